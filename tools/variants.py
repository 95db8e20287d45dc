"""Seeded exercise variants for homework and exams, with an answer key computed by the lib.

    python tools/variants.py [--n N] [--seed S] [--out DIR]      # default: 3 variants, seed 0, _build/variants

For every registered exercise that declares ``ranges`` (``lib/fleetcalc/exercise_bank/*.py``), draw
``N`` input sets inside those ranges that also satisfy the exercise's ``valid`` condition (so the
question still makes sense, e.g. a target intensity below the largest reachable one), and write

* ``DIR/<chapter>/ex<id>_v<k>.ipynb``: a student notebook per variant that states the inputs and has
  one answer cell + ``check`` per part, graded against *these* inputs (no answers inside);
* ``DIR/answer_key.csv`` and ``DIR/answer_key.md``: every part's answer, computed by the lib
  (``Exercise.expected``) from the variant's inputs. Keep these two files from students.

Ranges: ``name: (lo, hi)`` or ``(lo, hi, step)``, in the unit of the book's input (a Quantity input
keeps its unit). With a step the value is ``lo + k*step``; without one it is drawn uniformly (or
log-uniformly when ``hi/lo >= 20``) and rounded to 3 significant digits. Inputs without a range keep
the book's value. Draws that repeat the book's values or an earlier variant are redrawn.

Same seed, same lib -> byte-identical files: each exercise has its own random stream derived from
``sha256(seed/exercise id)``, so adding an exercise does not change the others' variants.

Grading a variant: the notebooks call ``check(id, part, x, inputs=VARIANT)``; the lib computes the
expected answer from the variant's inputs with the exercise's own tolerance (:func:`grade_variant`
here is the same call without printing).
"""
from __future__ import annotations

import argparse
import csv
import functools
import hashlib
import inspect
import io
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "lib"))  # works from a checkout even without the editable install

import nbformat  # noqa: E402

from fleetcalc import exercises as _ex  # noqa: E402
from fleetcalc.units import Q_, Quantity  # noqa: E402

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
SIG = 3            # significant digits of a value drawn without a step
MAX_TRIES = 400    # draws per wanted variant before giving up on an exercise


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


def _spec(spec) -> tuple[float, float, float | None]:
    if len(spec) == 2:
        return spec[0], spec[1], None
    if len(spec) == 3:
        return spec[0], spec[1], spec[2]
    raise ValueError(f"a range is (lo, hi) or (lo, hi, step); got {spec!r}")


def draw_value(rng: random.Random, book_value, spec):
    """One value inside ``spec`` = (lo, hi[, step]), in the unit (and type) of ``book_value``."""
    lo, hi, step = _spec(spec)
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


def _magnitude(v) -> float:
    return float(v.magnitude) if isinstance(v, Quantity) else float(v)


def in_range(value, spec) -> bool:
    """Whether ``value`` lies in ``spec`` (and on its step grid, if it has one)."""
    lo, hi, step = _spec(spec)
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
        out[part] = _ex._magnitude_in(ex.expected(part, **inputs), spec.unit)
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


def _key(ex, inputs: dict) -> tuple:
    return tuple((n, _magnitude(inputs[n])) for n in sorted(ex.ranges))


def variants_for(ex, n: int, seed: int) -> list[dict]:
    """``n`` distinct, valid input sets for ``ex`` (fewer if its ranges do not hold that many)."""
    missing = [name for name in ex.ranges if name not in ex.inputs]
    if missing:
        raise ValueError(f"exercise {ex.id}: ranges name inputs it does not have: {missing}")
    rng = _rng(seed, ex.id)
    seen = {_key(ex, ex.inputs)}  # never hand out the book's own numbers as a variant
    found: list[dict] = []
    for _ in range(MAX_TRIES * max(n, 1)):
        if len(found) == n:
            break
        inputs = dict(ex.inputs)
        for name in sorted(ex.ranges):
            inputs[name] = draw_value(rng, ex.inputs[name], ex.ranges[name])
        key = _key(ex, inputs)
        if key in seen or not acceptable(ex, inputs):
            continue
        seen.add(key)
        found.append(inputs)
    return found


def exercises_with_ranges() -> list:
    exs = [ex for ex in _ex.all_exercises().values() if ex.ranges and ex.answers]
    return sorted(exs, key=lambda ex: (ex.chapter, _id_key(ex.id)))


def _id_key(ex_id: str):
    return tuple(int(p) if p.isdigit() else p for p in ex_id.replace("-", ".").split("."))


# ----------------------------------------------------------------------------- grading

def grade_variant(ex_id: str, part: str, answer, inputs: dict):
    """Grade ``answer`` to ``part`` of exercise ``ex_id`` against the variant ``inputs``
    (``fleetcalc.exercises.grade`` itself: same tolerances and messages)."""
    return _ex.grade(ex_id, part, answer, inputs=inputs)


def check_variant(ex_id: str, part: str, answer, inputs: dict) -> None:
    """Print the verdict of :func:`grade_variant` (what the variant notebooks' ``check`` prints)."""
    print(grade_variant(ex_id, part, answer, inputs).message)


# ----------------------------------------------------------------------------- writing

def _code(v) -> str:
    """Python source that rebuilds ``v`` in a notebook (``Q_(75, "FLOP / byte")``, ``4096``)."""
    if isinstance(v, Quantity):
        return f'Q_({_code(v.magnitude)}, "{v.units:D}")'
    if _is_int(v):
        return str(v)
    if isinstance(v, float):
        short = f"{v:.12g}"
        if abs(v) >= 1e6:                                   # 6.59e11, not 659000000000.0
            mant, exp = f"{v:.11e}".split("e")
            short = f"{mant.rstrip('0').rstrip('.')}e{int(exp)}"
        if float(short) != v:
            return repr(v)
        return short + ".0" if short.lstrip("-").isdigit() else short
    return repr(v)


def _show(v) -> str:
    if isinstance(v, Quantity):
        unit = f"{v.units:~P}"
        return f"{_magnitude(v):g} {unit}".strip()
    return f"{v:g}" if isinstance(v, float) else str(v)


def _num(x: float) -> str:
    return f"{x:.10g}"


def slug(ex_id: str) -> str:
    """``"28.2"`` -> ``"28_02"`` (file names sort in exercise order)."""
    head, *rest = ex_id.replace("-", ".").split(".")
    return "_".join([head] + [p.zfill(2) if p.isdigit() else p for p in rest])


@functools.lru_cache(maxsize=None)
def _exercise_sources() -> tuple[tuple[str, str], ...]:
    return tuple((p.relative_to(ROOT).with_suffix(".ipynb").as_posix(), p.read_text(encoding="utf-8"))
                 for p in sorted((ROOT / "exercises").rglob("*.md")))


def student_notebook_path(ex_id: str) -> str | None:
    """The generated exercise notebook that asks this exercise (for the statement), if any."""
    needle = f'check("{ex_id}"'
    return next((rel for rel, text in _exercise_sources() if needle in text), None)


def _cell_md(text, **meta):
    return nbformat.v4.new_markdown_cell(text, metadata=meta)


def _cell_code(text, **meta):
    return nbformat.v4.new_code_cell(text, metadata=meta)


def variant_notebook(ex, k: int, inputs: dict, seed: int):
    changed = [n for n in ex.inputs if _key_value(inputs[n]) != _key_value(ex.inputs[n])]
    where = student_notebook_path(ex.id)
    rows = "\n".join(
        f"| `{n}` | {'**' + _show(inputs[n]) + '**' if n in changed else _show(inputs[n])} | {_show(ex.inputs[n])} |"
        for n in ex.inputs)
    statement = (f"The question is the book's {ex.source}" +
                 (f" (as posed in `{where}`)" if where else "") +
                 ", but with the inputs below. Where the statement's numbers differ from this table, "
                 "**use the table** (changed values in bold).")
    cells = [
        _cell_md(f"# Exercise {ex.id}, variant {k}: {ex.title}\n\n{statement}\n\n"
                 f"| input | your value | the book's value |\n|---|---|---|\n{rows}\n\n"
                 "Put each answer in its variable (in the unit named there) and run the cell: "
                 "`check` says whether it is right for *your* inputs."),
        _cell_code("from fleetcalc.notebook import *"),
    ]
    lines = [f"{n} = {_code(inputs[n])}" for n in ex.inputs]
    lines.append("VARIANT = dict(" + ", ".join(f"{n}={n}" for n in ex.inputs) + ")")
    cells.append(_cell_code("\n".join(lines), tags=["variant-inputs"]))
    for part, spec in ex.answers.items():
        label = spec.label or part
        unit = f" (in {spec.unit})" if spec.unit else ""
        cells.append(_cell_md(f"**{label}**{unit}"))
        call = f'check("{ex.id}", "{part}", {part}, inputs=VARIANT)'
        cells.append(_cell_code(f"{part} = ...  # your answer{unit}\n{call}", tags=["variant-answer"]))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(KERNEL)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["fleetcalc"] = {"variant": {"exercise": ex.id, "index": k, "seed": seed}}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:03d}"
    return nb


def _key_value(v):
    return (_magnitude(v), f"{v.units:D}") if isinstance(v, Quantity) else v


def generate(n: int = 3, seed: int = 0, out: Path | str = ROOT / "_build" / "variants") -> list[dict]:
    """Write the variant notebooks and the answer key; returns the key's rows."""
    out = Path(out)
    if (out / "answer_key.csv").exists():  # an earlier run: remove its files (only ours), start clean
        for old in [out / "answer_key.csv", out / "answer_key.md", *out.glob("*/ex*_v[0-9]*.ipynb")]:
            old.unlink(missing_ok=True)
        for folder in out.iterdir():
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    md = [f"# Answer key: exercise variants (seed {seed}, {n} per exercise)\n",
          "Every answer is computed by `fleetcalc` from the variant's inputs "
          "(`Exercise.expected`). Regenerate with `python tools/variants.py --n "
          f"{n} --seed {seed}`. **Instructor only: do not hand this file out.**\n"]
    shortfalls = []
    for ex in exercises_with_ranges():
        found = variants_for(ex, n, seed)
        if len(found) < n:
            shortfalls.append(f"exercise {ex.id}: only {len(found)} of {n} distinct valid variants")
        md.append(f"\n## Exercise {ex.id}: {ex.title} ({ex.source})\n")
        parts = list(ex.answers)
        md.append("| variant | notebook | inputs (changed from the book) | " +
                  " | ".join(f"{ex.answers[p].label or p}" + (f" [{ex.answers[p].unit}]" if ex.answers[p].unit else "")
                             for p in parts) + " |")
        md.append("|---|---|---|" + "---|" * len(parts))
        for k, inputs in enumerate(found, start=1):
            nb_rel = Path(ex.chapter) / f"ex{slug(ex.id)}_v{k:02d}.ipynb"
            path = out / nb_rel
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(variant_notebook(ex, k, inputs, seed), path)
            answers = expected_answers(ex, inputs)
            shown_inputs = "; ".join(f"{name} = {_show(inputs[name])}" for name in sorted(ex.ranges))
            for part in parts:
                rows.append({"exercise": ex.id, "variant": k, "notebook": nb_rel.as_posix(), "part": part,
                             "label": ex.answers[part].label or part, "answer": _num(answers[part]),
                             "unit": ex.answers[part].unit, "inputs": shown_inputs,
                             "inputs_json": json.dumps({name: _key_value(inputs[name]) for name in ex.inputs},
                                                       sort_keys=True)})
            md.append(f"| {k} | `{nb_rel.as_posix()}` | {shown_inputs} | " +
                      " | ".join(_num(answers[p]) for p in parts) + " |")
    buf = io.StringIO()
    fields = ["exercise", "variant", "notebook", "part", "label", "answer", "unit", "inputs", "inputs_json"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (out / "answer_key.csv").write_text(buf.getvalue(), encoding="utf-8")
    (out / "answer_key.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    for line in shortfalls:
        print(f"warning: {line}", file=sys.stderr)
    return rows


def inputs_from_row(ex, row: dict) -> dict:
    """Rebuild a variant's inputs from an answer-key row (its ``inputs_json``)."""
    raw = json.loads(row["inputs_json"])
    out = {}
    for name, v in raw.items():
        out[name] = Q_(v[0], v[1]) if isinstance(v, list) else v
    return {**ex.inputs, **out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3, help="variants per exercise (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--out", default=str(ROOT / "_build" / "variants"), help="output folder (default _build/variants)")
    a = ap.parse_args(argv)
    if a.n < 1:
        ap.error("--n must be >= 1")
    rows = generate(a.n, a.seed, a.out)
    n_nb = len({r["notebook"] for r in rows})
    print(f"wrote {n_nb} variant notebooks and an answer key ({len(rows)} answers) to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
