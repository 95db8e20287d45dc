"""Dollar amounts never open maths. MyST (the site) and JupyterLab read ``$...$`` as inline maths,
so two prices in one paragraph ("at $3 per GPU-hour ... a $50M run") typeset the words between
them as a formula. Each markdown cell is parsed with the same dollarmath rule the site uses
(markdown-it-py's plugin, which myst-parser runs); an inline formula that holds running English is
a price pair, and fails here by file. Write a price as ``\\$3``."""
from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for d in ("chapters", "solutions", "exercises") for p in (ROOT / d).rglob("*.md")
                 if p.name != "README.md" and "_build" not in p.parts)
_MD = MarkdownIt("commonmark").use(dollarmath_plugin)
_WORDS = re.compile(r"[A-Za-z]{3,}[\s,]+[A-Za-z]{2,}")


def prices_read_as_maths(text: str) -> list[str]:
    """The inline formulas of ``text`` that are running English (two dollars of prices)."""
    out = []
    for tok in _MD.parse(text):
        for ch in tok.children or []:
            if ch.type == "math_inline":
                body = re.sub(r"\\[A-Za-z]+(\{[^}]*\})?", "", ch.content)
                if _WORDS.search(body):
                    out.append(ch.content[:60])
    return out


def test_the_rule_sees_two_prices_and_spares_maths_and_escapes():
    assert prices_read_as_maths("At $3 per GPU-hour, a gap on a $50M run.")
    assert not prices_read_as_maths(r"At \$3 per GPU-hour, a gap on a \$50M run, with $p = 0.05$ and $\text{two words}$.")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_price_opens_maths(path):
    nb = jupytext.read(path, fmt="md:myst")
    bad = [b for c in nb.cells if c.cell_type == "markdown" for b in prices_read_as_maths(c.source)]
    assert not bad, f"prices read as maths (write \\$): {bad}"
