"""Seeded exercise variants, one per student of a roster, for homework and exams.

    workbook variants --roster roster.csv [--seed S] [--set ch28/ex28_09_10 ...] [--out DIR] [--self-checks]
    make variants ROSTER=roster.csv [SEED=0] [SET=ch28/ex28_09_10] [OUT=_build/variants]

The roster is a CSV with a column ``id`` (or ``student_id``/``student``; else the first column).
For every student and exercise set, every exercise that declares ``ranges`` in its solution
notebook's answer key gets inputs drawn inside those ranges from a random stream seeded by
``sha256(seed/student/exercise)``, redrawn until the exercise's ``valid`` condition holds, every
answer is finite and non-zero, the draw differs from the book's inputs and from every input set a
student listed earlier in the roster already holds (:func:`assign`; the number of draws passed over
is recorded in the notebook's metadata, ``fleetcalc.draws``). The question text, hints and labels
quote the student's numbers (:func:`restate`). The tool writes

* ``DIR/<set>/<student>__<set name>.ipynb``: the student's notebook (the set's student notebook
  with the student's inputs in its exercise card; graded, so no seal and closed panels, unless
  ``--self-checks``), its metadata (set, student, seed, draws) signed with the instructor's secret
  (``signing.py``); hand each student their file (the grader takes the student from an LMS export
  or from this signed metadata, never from the file name);
* ``DIR/answer_key.csv`` and ``DIR/answer_key.md``: every student's answers, computed by the lib
  from the student's inputs. Keep these two files from students.

``workbook grade --roster roster.csv --seed S`` recomputes each student's inputs the same way
(:func:`student_inputs`), so the grade never trusts the inputs written in a notebook.
Same roster, seed and lib -> byte-identical files.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import inspect
import io
import math
import random
import sys
from pathlib import Path

from workbook import repo_root
from workbook.notebooks.exercise_ids import ids_in_headings

import nbformat  # noqa: E402

from workbook.classroom import answer_key, signing
from workbook.classroom.exercises import to_exercise
from workbook.classroom.restate import _magnitude, _num, _show, restate
from workbook.classroom.roster import read_roster
from workbook.notebooks.files import read_md
from fleetcalc.ui import exercises as _ex
from fleetcalc.core.units import Q_, Quantity

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
SIG = 3            # significant digits of a value drawn without a step
MAX_TRIES = 400    # draws per wanted variant before giving up


# ----------------------------------------------------------------------------- drawing

def _rng(seed: int, ex_id: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}/{ex_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _decimals(x: float) -> int:
    text = repr(float(x))
    if "e" in text:
        mant, exp = text.split("e")
        return max(0, len(mant.split(".")[1].rstrip("0")) - int(exp)) if "." in mant else max(0, -int(exp))
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def _round_sig(x: float, sig: int = SIG) -> float:
    if x == 0:
        return 0.0
    return float(f"{x:.{sig - 1}e}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_range(spec) -> tuple[float, float, float | None]:
    """A variant range (lo, hi) or (lo, hi, step) as (lo, hi, step or None)."""
    if len(spec) == 2:
        return spec[0], spec[1], None
    if len(spec) == 3:
        return spec[0], spec[1], spec[2]
    raise ValueError(f"a range is (lo, hi) or (lo, hi, step); got {spec!r}")


def draw_value(rng: random.Random, book_value, spec):
    """One value inside ``spec`` = (lo, hi[, step]), in the unit (and type) of ``book_value``."""
    lo, hi, step = parse_range(spec)
    if not lo <= hi:
        raise ValueError(f"range {spec!r} has lo > hi")
    if step is not None:
        k = rng.randint(0, int(math.floor((hi - lo) / step + 1e-9)))
        if all(_is_int(v) for v in (lo, hi, step)):
            mag = lo + k * step
        else:
            mag = round(lo + k * step, max(_decimals(lo), _decimals(step)))
    else:
        if lo > 0 and hi / lo >= 20:
            mag = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        else:
            mag = rng.uniform(lo, hi)
        mag = min(max(_round_sig(mag), lo), hi)
    if isinstance(book_value, Quantity):
        return Q_(mag, book_value.units)
    return mag


def in_range(value, spec) -> bool:
    """Whether ``value`` lies in ``spec`` (and on its step grid, if it has one)."""
    lo, hi, step = parse_range(spec)
    m = _magnitude(value)
    if not (lo - 1e-12 * abs(lo) <= m <= hi + 1e-12 * abs(hi)):
        return False
    if step is None:
        return True
    k = (m - lo) / step
    return abs(k - round(k)) < 1e-6


def _call(fn, inputs: dict):
    params = inspect.signature(fn).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        inputs = {k: v for k, v in inputs.items() if k in params}
    return fn(**inputs)


def expected_answers(ex, inputs: dict) -> dict[str, float]:
    """Each part's answer for ``inputs``, computed by the lib, as a number in the part's unit."""
    out = {}
    for part, spec in ex.answers.items():
        out[part] = _ex.magnitude_in(ex.expected(part, **inputs), spec.unit)
    return out


def acceptable(ex, inputs: dict) -> bool:
    """The variant keeps the problem meaningful: ``valid`` holds and every answer is finite and
    non-zero (a zero answer, e.g. no resident block at all, is a degenerate question)."""
    try:
        if ex.valid is not None and not _call(ex.valid, inputs):
            return False
        return all(math.isfinite(v) and v != 0 for v in expected_answers(ex, inputs).values())
    except Exception:  # InputError or a degenerate input: not a usable variant
        return False


def variant_key(ex, inputs: dict) -> tuple:
    """What makes two variants of ``ex`` the same: its ranged inputs' magnitudes, by name."""
    return tuple((n, _magnitude(inputs[n])) for n in sorted(ex.ranges))


def variants_for(ex, n: int, seed: int) -> list[dict]:
    """``n`` distinct, valid input sets for ``ex`` (fewer if its ranges do not hold that many)."""
    missing = [name for name in ex.ranges if name not in ex.inputs]
    if missing:
        raise ValueError(f"exercise {ex.id}: ranges name inputs it does not have: {missing}")
    rng = _rng(seed, ex.id)
    seen = {variant_key(ex, ex.inputs)}  # never hand out the book's own numbers as a variant
    found: list[dict] = []
    for _ in range(MAX_TRIES * max(n, 1)):
        if len(found) == n:
            break
        inputs = dict(ex.inputs)
        for name in sorted(ex.ranges):
            inputs[name] = draw_value(rng, ex.inputs[name], ex.ranges[name])
        key = variant_key(ex, inputs)
        if key in seen or not acceptable(ex, inputs):
            continue
        seen.add(key)
        found.append(inputs)
    return found


def exercises_with_ranges() -> list:
    exs = [ex for ex in answer_key.all_exercises().values() if ex.ranges and ex.answers]
    return sorted(exs, key=lambda ex: (ex.chapter, _id_key(ex.id)))


def _id_key(ex_id: str):
    return tuple(int(p) if p.isdigit() else p for p in ex_id.replace("-", ".").split("."))


_CACHE: dict = {}   # keyed by the exercise's own inputs and ranges too: an edited key misses it


def _cache_key(ex, student: str, seed: int, skip: int) -> tuple:
    ranges = tuple((n, repr(r)) for n, r in sorted(ex.ranges.items()))
    return (getattr(ex, "set", ""), ex.id, variant_key(ex, ex.inputs), ranges, student, seed, skip)


def _draws(ex, student: str, seed: int):
    """The student's stream of acceptable variants of ``ex`` (never the book's inputs), in order."""
    rng = _rng(seed, f"{student}/{ex.id}")
    book = variant_key(ex, ex.inputs)
    for _ in range(MAX_TRIES):
        inputs = dict(ex.inputs)
        for name in sorted(ex.ranges):
            inputs[name] = draw_value(rng, ex.inputs[name], ex.ranges[name])
        if variant_key(ex, inputs) != book and acceptable(ex, inputs):
            yield {n: inputs[n] for n in sorted(ex.ranges)}


def student_inputs(ex, student: str, seed: int, skip: int = 0) -> dict:
    """The inputs of ``ex`` that differ for ``student`` (``{}``: the book's inputs): the
    ``skip``-th acceptable draw of the student's own stream (``skip`` > 0 after a collision, see
    :func:`assign`)."""
    key = _cache_key(ex, student, seed, skip)
    if key in _CACHE:
        return dict(_CACHE[key])
    found: dict = {}
    if ex.ranges and ex.answers:
        missing = [name for name in ex.ranges if name not in ex.inputs]
        if missing:
            raise ValueError(f"exercise {ex.id}: ranges name inputs it does not have: {missing}")
        for k, inputs in enumerate(_draws(ex, student, seed)):
            if k == skip:
                found = inputs
                break
    _CACHE[key] = found
    return dict(found)


class TooFewVariants(ValueError):
    """An exercise's ranges hold fewer distinct variants than the roster has students."""


_ASSIGNED: dict = {}


def assign(ex, roster: list[str], seed: int) -> dict[str, tuple[dict, int]]:
    """{student: (inputs, skip)} for every student of ``roster``, no two alike.

    Each student takes the first draw of their own stream that no student before them in the
    roster took (``skip`` counts the draws passed over; it is written into the student's notebook
    so the grader can recompute it without the roster). Append new students at the end of the
    roster and keep those who left: an earlier student's variant never depends on a later one.
    """
    key = (getattr(ex, "set", ""), ex.id, tuple(roster), seed)
    if key in _ASSIGNED:
        return _ASSIGNED[key]
    taken: set = set()
    out: dict = {}
    for student in roster:
        got = None
        if ex.ranges and ex.answers:
            for k, inputs in enumerate(_draws(ex, student, seed)):
                vk = variant_key(ex, {**ex.inputs, **inputs})
                if vk not in taken:
                    taken.add(vk)
                    got = (inputs, k)
                    _CACHE[_cache_key(ex, student, seed, k)] = dict(inputs)
                    break
            if got is None:
                raise TooFewVariants(f"exercise {ex.id}: no variant left for {student} after {len(taken)} students: "
                                     "widen its ranges (or give it a finer step)")
        out[student] = got or ({}, 0)
    _ASSIGNED[key] = out
    return out


# ----------------------------------------------------------------------------- writing

def student_notebook(set_name: str, student: str, seed: int, draws: dict | None = None,
                     secret: bytes | None = None, self_checks: bool = True):
    """The set's student notebook with ``student``'s inputs and seals (not executed).

    ``draws``: {exercise id: skip} from :func:`assign` (default: each exercise's first draw).
    ``secret``: the instructor's (``signing.load_secret``): the metadata then carries its signature,
    which the grader verifies. ``self_checks=False``: a graded variant, whose card holds no seal (a
    seal falls to a search over tolerance buckets) and whose panels stay closed (:func:`to_exercise`)."""
    import re

    src = repo_root() / "solutions" / f"{set_name}.md"
    exs = answer_key.load_set(src)
    draws = draws or {}
    overrides = {ex_id: student_inputs(ex, student, seed, draws.get(ex_id, 0)) for ex_id, ex in exs.items()}
    kept = {k: v for k, v in sorted(draws.items()) if v}
    meta = {"student": student, "seed": seed, "draws": kept}
    if secret is not None:
        meta["signature"] = signing.sign_variant(secret, set_name, student, seed, kept)
    nb = to_exercise(read_md(src), f"solutions/{set_name}.md", overrides=overrides,
                            salt=answer_key.salt_for(set_name, f"{student}/{seed}"),
                            meta=meta, graded=not self_checks)
    # the question text quotes the student's numbers, not the book's
    current = None
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        heads = [i for i, _ in ids_in_headings(cell.source)]
        if heads and heads[0] in exs:
            current = heads[0]
        elif re.search(r"^#+ ", cell.source, re.M):
            current = None
        if current and overrides.get(current):
            cell.source = restate(cell.source, exs[current].inputs, overrides[current])
    rows = [f"| Exercise {ex_id} | `{n}` | **{_show(v)}** | {_show(exs[ex_id].inputs[n])} |"
            for ex_id, changed in overrides.items() for n, v in changed.items()]
    text = (f"**Your variant (student `{student}`).** The questions below quote your numbers; your "
            "exercise card holds them all (each exercise's first cell binds them). Where a number in the "
            "text still differs from the card's, use the card's: they are yours.")
    if rows:
        text += "\n\n| exercise | input | your value | the book's value |\n|---|---|---|---|\n" + "\n".join(rows)
    k = next(i for i, c in enumerate(nb.cells) if "generated-note" in c.metadata.get("tags", []))
    nb.cells.insert(k + 1, nbformat.v4.new_markdown_cell(text, metadata={"tags": ["variant-note"]}))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:03d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata["kernelspec"] = dict(KERNEL)
    return nb, exs, overrides


def issue(roster: list[str], seed: int = 0, sets: list[str] | None = None,
          out: Path | str | None = None, self_checks: bool = False) -> list[dict]:
    """Write each student's notebook of each set and the answer key; returns the key's rows.

    Each notebook's variant metadata is signed with the instructor's secret (made on the first
    run); ``self_checks=True`` keeps the sealed self-checks and panels of the book's notebooks."""
    out = Path(out) if out is not None else repo_root() / "_build" / "variants"
    known = [answer_key.set_name(p) for p in answer_key.solution_sources()]
    sets = sets or [s for s in known if any(ex.ranges and ex.answers
                                             for ex in answer_key.load_set(repo_root() / "solutions" / f"{s}.md").values())]
    unknown = [s for s in sets if s not in known]
    if unknown:
        raise SystemExit(f"variants: unknown exercise set(s) {unknown}; known: {known}")
    secret = signing.load_secret(create=True)
    rows: list[dict] = []
    md = [f"# Answer key: student variants (seed {seed})\n",
          "Every answer is computed by `fleetcalc` from the student's inputs. "
          "**Instructor only: do not hand this file out.**\n"]
    for s in sets:
        md += [f"\n## {s}\n", "| student | exercise | part | answer | unit | inputs |", "|---|---|---|---|---|---|"]
        exs_s = answer_key.load_set(repo_root() / "solutions" / f"{s}.md")
        plan = {ex_id: assign(ex, roster, seed) for ex_id, ex in exs_s.items()}
        for student in roster:
            nb, exs, overrides = student_notebook(s, student, seed, {e: plan[e][student][1] for e in plan},
                                                  secret=secret, self_checks=self_checks)
            path = out / s / f"{student}__{Path(s).name}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, path)
            for ex_id, ex in exs.items():
                inputs = {**ex.inputs, **overrides[ex_id]}
                shown = "; ".join(f"{n} = {_show(v)}" for n, v in overrides[ex_id].items()) or "the book's"
                for part, a in ex.answers.items():
                    value = _ex.magnitude_in(ex.expected(part, **inputs), a.unit)
                    rows.append({"student": student, "set": s, "exercise": ex_id, "part": part,
                                 "answer": _num(value), "unit": a.unit, "inputs": shown,
                                 "notebook": path.relative_to(out).as_posix()})
                    md.append(f"| {student} | {ex_id} | {part} | {_num(value)} | {a.unit} | {shown} |")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["student", "set", "exercise", "part", "answer", "unit", "inputs",
                                             "notebook"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "answer_key.csv").write_text(buf.getvalue(), encoding="utf-8")
    (out / "answer_key.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    return rows


def main(argv=None) -> int:

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roster", required=True, help="roster CSV (a column id, student_id or student)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--set", action="append", default=None, help="exercise set(s) (default: every set with ranges)")
    ap.add_argument("--out", default=str(repo_root() / "_build" / "variants"), help="output folder (default _build/variants)")
    ap.add_argument("--self-checks", action="store_true",
                    help="keep the sealed self-checks and panels (practice: a seal falls to a search in about a minute)")
    a = ap.parse_args(argv)
    if not Path(a.roster).is_file():
        ap.error(f"--roster {a.roster}: no such file (a CSV with a column id, student_id or student; "
                 "e.g. make variants ROSTER=class.csv)")
    roster = read_roster(Path(a.roster))
    rows = issue(roster, a.seed, a.set, a.out, self_checks=a.self_checks)
    n_nb = len({r["notebook"] for r in rows})
    print(f"wrote {n_nb} student notebooks and an answer key ({len(rows)} answers) to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
