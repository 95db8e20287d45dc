"""Where the tools read exercise ids: one reader for code, one for headings.

    ids_in_code('check("28.9", "beta_node", beta_node)')     -> ["28.9"]
    ids_in_headings("## Exercise 28.9: a shorter window")    -> [("28.9", "a shorter window")]

Code is read as Python (the first string argument of ``publish``, ``check``, ``exercise``,
``answer_first`` and ``sealed_panel``; a panel key ``"28.9#2"`` names exercise 28.9). A student's
half-written cell that does not parse is read line by line, so one syntax error does not hide the
ids of the lines around it.
"""
from __future__ import annotations

import ast
import re

CALLS = ("publish", "check", "exercise", "answer_first", "sealed_panel")
HEADING = re.compile(r"^#{1,6}\s+(?:Exercise|Question)\s+([0-9A-Za-z]+(?:\.[0-9A-Za-z]+)+)(?!\w|\.\w)[:.]?[ \t]*(.*)$",
                     re.M)


def _calls(tree: ast.AST, calls) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        first = node.args[0]
        if name in calls and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append((node.lineno, node.col_offset, first.value.split("#")[0]))
    return [i for _, _, i in sorted(found)]


def ids_in_code(source: str, calls=CALLS) -> list[str]:
    """The exercise ids a code cell names, in the order they appear (repeats kept)."""
    try:
        return _calls(ast.parse(source), calls)
    except SyntaxError:
        out = []
        for line in source.splitlines():
            try:
                out += _calls(ast.parse(line.strip()), calls)
            except SyntaxError:
                continue
        return out


def ids_in_headings(markdown: str) -> list[tuple[str, str]]:
    """(id, title) of each ``# Exercise <id>: title`` / ``## Question <id>`` heading, in order.
    A heading that names a range (``Exercise CAP.1–CAP.2``) gives its first id and no title."""
    out = []
    for m in HEADING.finditer(markdown):
        title = m.group(2).strip()
        out.append((m.group(1), "" if title[:1] in "–-—" else title))
    return out
