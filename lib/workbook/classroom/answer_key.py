"""The answer key, read from the solution notebooks (the single source of every exercise).

Each solution notebook ``solutions/<chapter>/<set>.md`` has one code cell tagged ``answer-key``
that registers its exercises (``fleetcalc.ui.exercises.register``). This module runs those cells in
the instructor's process, for the generator (``workbook exercises``), the variants
(``lib/workbook/classroom/variants.py``), the grader (``lib/workbook/classroom/grade.py``) and the instructor guide. The key is never
written into ``exercises/``: a student notebook gets :func:`publish_source` instead (the inputs and
sealed self-checks).

    load()                  -> {"ch28/ex28_09_10": {"28.9": Exercise, "28.10": Exercise}, ...}
    exercise_sets()         -> {"28.9": "ch28/ex28_09_10", ...}
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from workbook import repo_root

from fleetcalc.ui import exercises as _ex
from fleetcalc.core.units import Q_, Quantity

KEY_TAG = "answer-key"


def set_name(md: Path) -> str:
    """``solutions/ch28/ex28_09_10.md`` -> ``ch28/ex28_09_10`` (the exercise set's name)."""
    md = Path(md).resolve()
    return md.relative_to(repo_root() / "solutions").with_suffix("").as_posix()


def key_sources(md: Path) -> list[str]:
    """The sources of the ``answer-key`` cells of a MyST solution notebook (read with jupytext,
    the one MyST reader of the tools)."""
    import jupytext

    nb = jupytext.read(Path(md), fmt="md:myst")
    return [c.source for c in nb.cells if c.cell_type == "code" and KEY_TAG in c.metadata.get("tags", [])]


def run_key(source: str, name: str) -> dict[str, "_ex.Exercise"]:
    """Run one key cell; returns the exercises it registered, in order."""
    import contextlib
    import io

    # quietly: a key cell (and the notebook facade's banner on its first import) prints nothing
    # on the console of `workbook grade`, `variants` or `exercises`
    with _ex.collecting() as found, contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, f"<answer key {name}>", "exec"), {"__name__": f"answer_key:{name}"})
    return found


@functools.lru_cache(maxsize=None)
def _load_one(md: str, mtime: float) -> dict:
    exs: dict = {}
    for src in key_sources(Path(md)):
        exs.update(run_key(src, set_name(Path(md))))
    for ex in exs.values():
        ex.set = set_name(Path(md))
    return exs


def load_set(md: Path) -> dict:
    md = Path(md).resolve()
    return _load_one(str(md), md.stat().st_mtime)


def solution_sources() -> list[Path]:
    return [p for p in sorted((repo_root() / "solutions").rglob("*.md")) if p.name != "README.md" and "_build" not in p.parts]


def load() -> dict[str, dict]:
    """Every exercise set's exercises: {set name: {exercise id: Exercise}}."""
    return {set_name(md): load_set(md) for md in solution_sources()}


def all_exercises() -> dict:
    """{exercise id: Exercise} over every set (each carries ``.set``)."""
    out = {}
    for exs in load().values():
        out.update(exs)
    return out


def exercise_sets() -> dict[str, str]:
    return {ex_id: ex.set for ex_id, ex in all_exercises().items()}


# ----------------------------------------------------------------------------- the student's card

def code(v) -> str:
    """Python source that rebuilds ``v`` in a notebook (``Q_(75, "FLOP / byte")``, ``4096``)."""
    if isinstance(v, Quantity):
        unit = f"{v.units:~D}"
        try:
            same = Q_(1, unit).units == v.units
        except Exception:
            same = False
        return f'Q_({code(v.magnitude)}, "{unit if same else format(v.units, "D")}")'
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        short = f"{v:.12g}"
        if abs(v) >= 1e6:                                   # 6.59e11, not 659000000000.0
            mant, exp = f"{v:.11e}".split("e")
            short = f"{mant.rstrip('0').rstrip('.')}e{int(exp)}"
        if float(short) != v:
            return repr(v)
        return short + ".0" if short.lstrip("-").isdigit() else short
    if isinstance(v, (list, tuple)):
        inner = ", ".join(code(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{code(k)}: {code(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str):
        return repr(v)
    if hasattr(v, "tolist"):                                # numpy scalars and arrays
        return code(v.tolist())
    raise TypeError(f"cannot write an input of type {type(v).__name__} into a notebook: {v!r}")


def salt_for(set_name: str, variant: str = "") -> str:
    return hashlib.sha256(f"fleetcalc/{set_name}/{variant}".encode()).hexdigest()[:16]


def publish_source(ex, inputs: dict | None = None, salt: str = "") -> str:
    """The ``publish(...)`` call a student notebook runs for ``ex``: inputs and sealed parts.

    For a variant (``inputs`` overrides some of the book's), hints and labels quote the variant's
    numbers, and each part also carries the seal of the book's answer (``book=``), so the
    self-check can say "that is the book's answer, not your variant's"."""
    over = dict(inputs or {})
    inputs = {**ex.inputs, **over}
    if over:
        from workbook.classroom.restate import restate
    else:
        def restate(text, book, mine):
            return text
    lines = [f"publish({ex.id!r}, {ex.title!r},", "        inputs={" + ", ".join(
        f"{k!r}: {code(v)}" for k, v in inputs.items()) + "},"]
    if ex.answers:
        lines.append("        parts={")
        for name, a in ex.answers.items():
            want = _ex.magnitude_in(ex.expected(name, **inputs), a.unit)
            digests = _ex.seal(want, a.rel, a.abs, f"{salt}/{ex.id}/{name}")
            book = ""
            if over:
                b = _ex.magnitude_in(ex.expected(name), a.unit)
                bd = [d for d in _ex.seal(b, a.rel, a.abs, f"{salt}/{ex.id}/{name}") if d not in digests]
                book = f",\n                 book={bd!r}" if bd else ""
            lines.append(f"            {name!r}: part({a.unit!r}, rel={a.rel!r}, abs={a.abs!r}, "
                         f"label={restate(a.label or name, ex.inputs, over)!r},\n"
                         f"                 hint={restate(a.hint, ex.inputs, over)!r},\n"
                         f"                 seal={digests!r}{book}),")
        lines.append("        },")
    else:
        lines.append("        parts={},")
    lines.append(f"        salt={salt!r})")
    return "\n".join(lines)
