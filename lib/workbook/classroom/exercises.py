"""Student notebooks from solution notebooks (``workbook exercises``).

    workbook exercises [--check] [SOLUTION.md ...]     # regenerate exercises/ from solutions/

* :func:`to_exercise` writes a student notebook without answers: the answer-key cell becomes a
  sealed ``publish`` card (one collapsed cell, ``jupyter.source_hidden``, that also holds each
  panel's sealed source), solution regions become stubs, model answers become "Your answer" cells
  with the rubric's self-check list, and each panel cell only names its panel (``answer_first``):
  it opens by itself once the exercise's parts pass, or earlier on a click with the readouts that
  would give an answer away hidden.
* ``exercises/.generated.json`` keeps the hash of every file this wrote; a file whose content
  changed since then is a student's work, and regeneration leaves it and says so.
"""
from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat

from workbook import repo_root
from workbook.classroom.answer_key import publish_source, run_key, salt_for
from workbook.notebooks.exercise_ids import ids_in_code
from workbook.notebooks.files import cell_sources, read_md, sha, sources_sha
from workbook.notebooks.nb import execute

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"


def manifest_path() -> Path:
    """What `workbook exercises` wrote last (a student's edits are told apart from it)."""
    return repo_root() / "exercises" / ".generated.json"


def _assigned_names(code: str) -> list[str]:
    names: list[str] = []
    tree = ast.parse(code)
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id not in names:
                    names.append(n.id)
    return names


def strip_solution_code(source: str, answers: set | None = None) -> str:
    """Replace each BEGIN/END SOLUTION region with ``name = ...  # your answer`` stubs
    (only for graded answer names when ``answers`` names some of the region's variables)."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == BEGIN:
            indent = line[: len(line) - len(line.lstrip())]
            j = i + 1
            while j < len(lines) and lines[j].strip() != END:
                j += 1
            if j == len(lines):
                raise ValueError(f"unclosed '{BEGIN}' in cell:\n{source}")
            region = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j])
            names = _assigned_names(region)
            if not names:
                raise ValueError(f"a solution region assigns no answer variable:\n{region}")
            if answers and set(names) & answers:
                names = [n for n in names if n in answers]
            out += [f"{indent}{n} = ...  # your answer" for n in names]
            i = j + 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


HEADING = re.compile(r"^#{1,6} ", re.M)
SELF_CHECK = re.compile(r"^\*\*Self-check[^\n]*\n", re.M)


def _split_solution_markdown(source: str) -> tuple[str, str]:
    """(model answer, the text from the first heading on): a heading is the next question's."""
    m = HEADING.search(source)
    if not m:
        return source, ""
    return source[:m.start()].rstrip(), source[m.start():].strip()


def _panel_call(source: str):
    """The ``panel(...)`` call of a panel cell (its ast node), or None for any other cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "panel":
            return node
    return None


def _closed_panel(cell, key: str | None):
    """(the student's panel cell, its sealed source): the panel's code goes to the collapsed card
    cell (``sealed_panel``), the visible cell only names it (``answer_first``)."""
    import binascii
    import zlib

    call = _panel_call(cell.source)
    prompt = ""
    for kw in call.keywords:
        if kw.arg == "prompt" and isinstance(kw.value, ast.Constant):
            prompt = kw.value.value
    blob = binascii.hexlify(zlib.compress(cell.source.encode("utf-8"), 9)).decode()
    lines = [blob[i:i + 96] for i in range(0, len(blob), 96)]
    code = "\n".join(f'    "{line}"' for line in lines)
    cell.source = (f"# This exercise's panel: it opens by itself once your answers pass; before that, on a click,\n"
                   f"# with the readouts that would give the answers away hidden.\n"
                   f"answer_first({key!r}, prompt={prompt!r})")
    cell.outputs = []
    return cell, f"sealed_panel({key!r}, (\n{code}))"


def _panels_after_their_checks(cells: list, panel_of: dict, checked: dict) -> list:
    """The cells in order, each exercise's panel moved to just after that exercise's last check
    cell when it came before it (from what was recorded while the cells were made)."""
    last = {}
    for k, c in enumerate(cells):
        for ex_id in checked.get(id(c), ()):
            last[ex_id] = k
    out, waiting = [], {}
    for k, c in enumerate(cells):
        ex_id = panel_of.get(id(c))
        if ex_id is not None and last.get(ex_id, -1) > k:
            waiting.setdefault(ex_id, []).append(c)
            continue
        out.append(c)
        for e in sorted(checked.get(id(c), ())):
            if last.get(e) == k:
                out += waiting.pop(e, [])
    return out


CARD_HEAD = ("# Your exercises' inputs and sealed self-checks (the answers are not here), and the exercises' panels,\n"
             "# sealed until you answer. Nothing to read or edit here: run it and keep it collapsed.\n"
             "from fleetcalc.ui.exercises import sealed_panel, cards_loaded\n")
CARD_META = {"tags": ["exercise-card", "hide-input"], "jupyter": {"source_hidden": True}}
GRADED_CHECK = '''

def check(ex_id, part, answer, inputs=None):
    """A graded variant: is the answer in, and in a unit of the right kind? Whether it is right, the grader says."""
    import pint
    from fleetcalc.ui.exercises import exercise as _card, magnitude_in as _in
    p = _card(ex_id).parts[part]
    label, unit = p.label or part, p.unit
    if answer is ... or answer is None:
        print(f"… Exercise {ex_id}, {label}: not answered yet: replace ... with your answer" + (f" (in {unit})." if unit else "."))
        return
    try:
        _in(answer, unit)
    except pint.DimensionalityError:
        print(f"✗ Exercise {ex_id}, {label}: {answer:~P} is not in a unit of the right kind: the answer is in {unit}.")
        return
    except Exception:
        print(f"✗ Exercise {ex_id}, {label}: give a number" + (f" or a quantity in {unit}" if unit else "") + ".")
        return
    print(f"• Exercise {ex_id}, {label}: answered, in a unit of the right kind (a graded variant: the grader says "
          "whether it is right).")'''
GRADED_PANEL = ("*This exercise's panel stays closed in a graded variant: it would show your answers. The book's "
                "notebook (`{book}`) has it, at the book's numbers.*")


def to_exercise(nb, source_rel: str, overrides: dict | None = None, salt: str | None = None,
                meta: dict | None = None, graded: bool = False):
    """The student notebook of a solution notebook.

    * the ``answer-key`` cell becomes ``publish(...)`` calls: the inputs (``overrides``: a
      student's variant) and sealed self-checks, never the answers;
    * ``# BEGIN SOLUTION`` regions become ``name = ...  # your answer`` stubs;
    * markdown tagged ``solution`` becomes a "Your answer" cell (a question heading that shared the
      cell is kept); ``rubric`` and ``solution-only`` cells are dropped;
    * each panel is closed ("answer first") and placed after its exercise's last check cell.

    ``graded=True`` (a variant the grader grades): the card carries no seal, since a seal falls to a
    search over tolerance buckets in about a minute; its ``check`` says only whether an answer is
    in and in a unit of the right kind; the panels, which without seals could not hide the
    answers, stay closed (a note names the book's notebook, which has them at the book's numbers).
    """
    set_name = source_rel.removeprefix("solutions/").removesuffix(".md")
    salt = salt_for(set_name) if salt is None else salt
    ex = copy.deepcopy(nb)
    cells = []
    current: str | None = None
    answers: set = set()
    card_cell = None
    panel_count: dict = {}
    sealed_sources: list = []
    panel_of: dict[int, str] = {}       # id(closed panel cell) -> its exercise
    checked: dict[int, set] = {}        # id(code cell) -> the exercises it checks
    for cell in ex.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and "answer-key" in tags:
            exs = run_key(cell.source, set_name)
            answers |= {n for e in exs.values() for n in e.answers}
            body = "\n".join(publish_source(e, (overrides or {}).get(e.id), salt) for e in exs.values())
            if graded:
                body = re.sub(r",\s*book=\[[^\]]*\]", "", re.sub(r"seal=\[[^\]]*\]", "seal=[]", body)) + GRADED_CHECK
            card_cell = nbformat.v4.new_code_cell(CARD_HEAD + body, metadata=copy.deepcopy(CARD_META))
            cells.append(card_cell)
            continue
        if "rubric" in tags:  # the instructor's rubric stays out; its self-check list goes in, folded
            m = SELF_CHECK.search(cell.source)
            if m:
                cells.append(nbformat.v4.new_markdown_cell(
                    "<details><summary>After you answer: self-check</summary>\n\n"
                    + cell.source[m.end():].strip() + "\n\n</details>", metadata={"tags": ["self-check"]}))
            continue
        if "solution-only" in tags:
            continue
        if cell.cell_type == "markdown" and "solution" in tags:
            cells.append(nbformat.v4.new_markdown_cell(
                "**Your answer:** _double-click to write your answer here._",
                metadata={"tags": ["answer"]}))
            _, rest = _split_solution_markdown(cell.source)
            if rest:
                cells.append(nbformat.v4.new_markdown_cell(rest))
            continue
        if cell.cell_type == "code":
            checks = ids_in_code(cell.source, calls=("check",))
            ids = checks or ids_in_code(cell.source, calls=("exercise",))
            if ids:
                current = ids[-1]
            checked[id(cell)] = set(checks)
            if BEGIN in cell.source:
                cell.source = strip_solution_code(cell.source, answers)
            if _panel_call(cell.source) is not None and graded:
                cells.append(nbformat.v4.new_markdown_cell(GRADED_PANEL.format(book=f"exercises/{set_name}.ipynb"),
                                                           metadata={"tags": ["panel-closed"]}))
                continue
            if _panel_call(cell.source) is not None:
                base = current or ""
                n = panel_count[base] = panel_count.get(base, 0) + 1
                cell, sealed = _closed_panel(cell, base if n == 1 and base else f"{base}#{n}")
                sealed_sources.append(sealed)
                if base:
                    panel_of[id(cell)] = base
        if cell.cell_type == "markdown" and HEADING.search(cell.source) and not cell.source.startswith("**Your"):
            current = None if re.search(r"^#{1,3} ", cell.source, re.M) else current
        cells.append(cell)
    cells = _panels_after_their_checks(cells, panel_of, checked)
    if card_cell is None and sealed_sources:   # panels without an answer key: a card cell of their own
        card_cell = nbformat.v4.new_code_cell(CARD_HEAD.rstrip(), metadata=copy.deepcopy(CARD_META))
        first_code = next((k for k, c in enumerate(cells) if c.cell_type == "code"), len(cells))
        cells.insert(first_code + 1, card_cell)
    if card_cell is not None:
        card_cell.source += "".join("\n" + s for s in sealed_sources) + "\ncards_loaded()"
    how = ("answer and run the `check(...)` cell below it: in this graded variant it says whether the answer is in "
           "and in a unit of the right kind, and the grader says whether it is right; the panels stay closed. "
           if graded else
           "answer and run the `check(...)` cell below it; an exercise's panel opens by itself once its "
           "parts pass (before that, on a click, with the readouts that would give the answers away hidden). ")
    note = nbformat.v4.new_markdown_cell(
        f"> **Student notebook**, generated from `{source_rel}`. Replace each `...` with your "
        + how +
        "Each exercise's inputs are bound in the cell that opens it, under names no other exercise uses, "
        "so *Run All* leaves every exercise's numbers in place. Regenerating the exercises never overwrites a notebook you "
        "have edited.",
        metadata={"tags": ["generated-note"]})
    first_md = next((k for k, c in enumerate(cells) if c.cell_type == "markdown"), -1)
    cells.insert(first_md + 1, note)
    ex.cells = cells
    ex.metadata["fleetcalc"] = {"exercise_set": set_name, **(meta or {})}
    return ex


def _load_manifest() -> dict:
    return json.loads(manifest_path().read_text()) if manifest_path().exists() else {}


def _file_sha(path: Path) -> str:
    if path.suffix == ".ipynb":
        return sources_sha(nbformat.read(path, as_version=4))
    return sha(path.read_text(encoding="utf-8"))


def _untouched(path: Path, manifest: dict, fresh_text: str) -> bool:
    """True if ``path`` is as this tool last wrote it, or as it would write it now."""
    k = path.relative_to(repo_root()).as_posix()
    if manifest.get(k) == _file_sha(path):
        return True
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8") == fresh_text
    fresh = jupytext.reads(fresh_text, fmt="md:myst")
    return cell_sources(nbformat.read(path, as_version=4)) == cell_sources(fresh)


def _update_manifest(paths: list[Path]) -> None:
    """Record the hashes of freshly written files, under a lock (several runs may overlap)."""
    import fcntl

    manifest_path().parent.mkdir(parents=True, exist_ok=True)
    with open(manifest_path().with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = _load_manifest()
        for path in paths:
            if path.exists():
                manifest[path.relative_to(repo_root()).as_posix()] = _file_sha(path)
        manifest_path().write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")


def generate_exercises(check: bool = False, jobs: int = 2, force: bool = False, only: list[str] | None = None) -> int:
    """Regenerate exercises/ from solutions/ (``only``: some solution sources).

    A file changed since this tool wrote it (and different from what it would write now) is a
    student's work: it is left alone and reported; the other exercises are still regenerated.
    """
    manifest = _load_manifest()
    planned: list[tuple[Path, str]] = []
    problems: list[str] = []
    sources = [Path(p).resolve() for p in only] if only else sorted((repo_root() / "solutions").rglob("*.md"))
    for src in sources:
        if src.name == "README.md":
            continue
        rel = src.relative_to(repo_root() / "solutions")
        dest = repo_root() / "exercises" / rel
        ex = to_exercise(read_md(src), f"solutions/{rel.as_posix()}")
        text = jupytext.writes(ex, fmt="md:myst")
        key = (Path("exercises") / rel).as_posix()
        if check:
            if not dest.exists():
                problems.append(f"{key} is missing (run make exercises)")
            elif dest.read_text(encoding="utf-8") != text:
                problems.append(f"{key} differs from what solutions/{rel.as_posix()} generates (run make exercises)")
            continue
        if (not force and dest.exists() and dest.read_text(encoding="utf-8") == text
                and dest.with_suffix(".ipynb").exists()):
            continue  # up to date (--force re-executes it: the library may print differently now)
        edited = [path for path in (dest, dest.with_suffix(".ipynb"))
                  if path.exists() and not force and not _untouched(path, manifest, text)]
        for path in edited:
            k = path.relative_to(repo_root()).as_posix()
            problems.append(
                f"{k} has changed since it was generated: it may hold a student's answers, so it was "
                f"left as it is. Rename or move it (e.g. to {path.stem}.mine{path.suffix}) and rerun, "
                f"or pass --force to overwrite it."
            )
        if not edited:
            planned.append((dest, text))
    if check:
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 1
        print("exercises/ matches solutions/")
        return 0
    for dest, text in planned:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
    rc = execute([str(d) for d, _ in planned], force=True, jobs=jobs) if planned else 0
    _update_manifest([p for dest, _ in planned for p in (dest, dest.with_suffix(".ipynb"))])
    print(f"generated {len(planned)} exercise notebook(s)")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return rc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help="solution sources to regenerate (default: all)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    return generate_exercises(check=a.check, jobs=a.jobs, force=a.force, only=a.paths or None)


if __name__ == "__main__":
    sys.exit(main())
