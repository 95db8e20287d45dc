"""Grade a folder of submitted exercise notebooks against the answer key.

    workbook grade FOLDER [--set ch28/ex28_09_10] [--timeout 60] [--jobs 2]
                                 [--roster roster.csv --seed 0]
    make grade SUBMISSIONS=FOLDER [SET=...] [TIMEOUT=60] [ROSTER=roster.csv SEED=0]

Writes ``FOLDER/grades.csv`` (columns ``submission,exercise,part,score,max_score,status``: a row
per submission and graded part, or one row with its status for a submission that could not run)
and ``FOLDER/feedback/<name>.md`` (what ``check()`` would say, part by part).

How a submission is judged
* Each ``.ipynb`` is copied into its own temporary folder and run top to bottom in a fresh kernel
  (cells that raise do not stop the run), under a time limit for the whole notebook (``--timeout``,
  default 60 s). Panels and the self-check are not graded, so the kernel stubs them out to save time.
* Then the grader reads the answer variables (the part names of the set's exercises) out of the
  kernel as plain numbers and units, and judges them here, in the grader's process, with the key
  built from the solution notebooks (``lib/workbook/answer_key.py``). Nothing the notebook prints counts,
  and nothing it redefines (``check``, the check cells, the lib) reaches the key.
* Which exercise set: the notebook's ``fleetcalc.exercise_set`` metadata, else the generated
  note naming its solution, else the exercise ids its ``publish``/``check`` calls name. The folder's
  set is ``--set`` or, without it, the set most submissions belong to; a notebook of another set
  gets one row ``other-exercise-set``.
* Which student (with ``--roster``): the file name ``<student id>__<anything>.ipynb`` that
  ``make variants`` issues (or any roster id that appears as a ``_``/``-``/``.``-separated token in
  the name, as LMS downloads rename files), else the notebook's ``fleetcalc.student`` metadata.
  The student's variant inputs are recomputed from the roster and the seed, never read from the
  notebook. Without a roster every submission is graded against the book's inputs.

Isolation: the kernel runs in a temporary folder with the submission only, and the key lives
in the grader's process; it is not a sandbox. For a class you do not trust, run the grader as a
user (or in a container) that can read the submissions but not ``solutions/``.

Statuses: ``correct``, ``wrong``, ``wrong-units``, ``unanswered`` (still ``...``), ``missing`` (the
variable is not defined), ``error: <Error> in cell <n>`` (the variable is missing and a cell
raised); for a whole submission: ``invalid-json``, ``not-a-notebook``, ``empty``, ``timeout``,
``kernel-failed``, ``unknown-exercise-set``, ``other-exercise-set (<set>)``, ``unknown-student``.
"""
from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import math
import os
import re
import secrets
import shutil
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from workbook import ROOT

COLUMNS = ["submission", "exercise", "part", "score", "max_score", "status"]

# Run in the kernel before the student's cells: panels and self-checks are not graded (stub them).
PREAMBLE = """\
import os as _os
_os.environ["MPLBACKEND"] = "Agg"
import fleetcalc.ui.widgets as _fw, fleetcalc.ui.exercises as _fx
_fw.panel = lambda *a, **k: None
_fx.answer_first = lambda *a, **k: None
_fx.check = lambda *a, **k: None   # the grader judges; the student's self-check verdict is not used
del _os, _fw, _fx
"""

# Run after them: the answer variables as plain numbers and unit names, between two nonce markers.
EXTRACT = """\
def _grader_read(v):
    try:
        if v is ... or v is None:
            return {"k": "none"}
        if isinstance(v, bool):
            return {"k": "other", "t": "bool"}
        if hasattr(v, "magnitude") and hasattr(v, "units"):
            return {"k": "q", "m": float(v.magnitude), "u": str(v.units)}
        return {"k": "n", "m": float(v)}
    except BaseException as e:
        return {"k": "other", "t": type(v).__name__}
import json as _grader_json
print("<<%(nonce)s>>" + _grader_json.dumps({n: (_grader_read(globals()[n]) if n in globals() else {"k": "missing"})
                                            for n in %(names)r}) + "<<%(nonce)s>>")
"""


# ----------------------------------------------------------------------------- the worker (one submission)

def run_one(path: str, names: list[str], limit: float, env: dict | None = None) -> dict:
    """Run ``path`` (already in its own temporary folder) in a fresh kernel and read ``names``."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    nonce = secrets.token_hex(8)
    run = nbformat.v4.new_notebook()
    run.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    run.cells = ([nbformat.v4.new_code_cell(PREAMBLE)]
                 + [nbformat.v4.new_code_cell(c.source) for c in cells]
                 + [nbformat.v4.new_code_cell(EXTRACT % {"nonce": nonce, "names": names})])
    client = NotebookClient(run, timeout=int(limit) + 1, kernel_name="python3", allow_errors=True,
                            record_timing=False, resources={"metadata": {"path": str(Path(path).parent)}})
    deadline = time.monotonic() + limit
    with client.setup_kernel(**({"env": env} if env is not None else {})):
        try:  # killed after the run whatever happens
            pid = client.km.provisioner.process.pid
            (Path(path).parent / "kernel.pid").write_text(str(pid))
        except Exception:
            pass
        for i, cell in enumerate(run.cells):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("time limit")
            client.timeout = max(1, int(math.ceil(left)))
            client.execute_cell(cell, i)
    errors = []
    for i, c in enumerate(run.cells[1:-1], start=1):
        for o in c.get("outputs", []):
            if o.get("output_type") == "error":
                errors.append({"cell": i, "ename": o.get("ename", "Error"), "evalue": str(o.get("evalue", ""))[:300]})
    text = "".join(o.get("text", "") for o in run.cells[-1].get("outputs", []) if o.get("output_type") == "stream")
    m = re.search(rf"<<{nonce}>>(.*?)<<{nonce}>>", text, re.S)
    values = json.loads(m.group(1)) if m else None
    return {"values": values, "errors": errors}


# ----------------------------------------------------------------------------- identifying a submission

def read_submission(path: Path):
    """(notebook dict, None) or (None, status) for a file that is not a usable notebook."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8", errors="strict"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, "invalid-json"
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        return None, "not-a-notebook"
    try:
        import nbformat
        nb = nbformat.from_dict(raw)
        nbformat.validate(nb)
    except Exception:
        try:
            nb = nbformat.reads(json.dumps(raw), as_version=4)
        except Exception:
            return None, "not-a-notebook"
    code = [c for c in nb.cells if c.get("cell_type") == "code" and str(c.get("source", "")).strip()]
    if not code:
        return None, "empty"
    return nb, None


def _source(c) -> str:
    s = c.get("source", "")
    return "".join(s) if isinstance(s, list) else str(s)


def identify_set(nb, sets_by_id: dict[str, str], known_sets: set[str]) -> str | None:
    meta = (nb.get("metadata") or {}).get("fleetcalc") or {}
    if meta.get("exercise_set") in known_sets:
        return meta["exercise_set"]
    text = "\n".join(_source(c) for c in nb.cells)
    for m in re.finditer(r"generated from `solutions/([^`]+)\.md`", text):
        if m.group(1) in known_sets:
            return m.group(1)
    ids = re.findall(r"""\b(?:publish|check|exercise)\(\s*["']([^"']+)["']""", text)
    votes = collections.Counter(sets_by_id[i] for i in ids if i in sets_by_id)
    return votes.most_common(1)[0][0] if votes else None


def identify_student(path: Path, nb, roster: list[str] | None) -> str | None:
    if roster is None:
        return None
    ids = set(roster)
    head = path.stem.split("__")[0]
    if head in ids:
        return head
    for token in re.split(r"[_\-. ]+", path.stem):
        if token in ids:
            return token
    meta = (nb.get("metadata") or {}).get("fleetcalc") or {}
    return meta.get("student") if meta.get("student") in ids else None


def read_roster(path: Path) -> list[str]:
    """Student ids from a roster CSV (a column named ``id``, ``student`` or ``student_id``; else the first)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"roster {path} is empty")
    header = [h.strip().lower() for h in rows[0]]
    col = next((header.index(h) for h in ("id", "student_id", "student") if h in header), None)
    body = rows[1:] if col is not None else rows
    col = col or 0
    ids = [r[col].strip() for r in body if len(r) > col and r[col].strip()]
    bad = [i for i in ids if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.\-]*", i)]
    if bad:
        raise ValueError(f"roster {path}: student ids may hold letters, digits, '.' and '-' only; got {bad[:3]}")
    if len(set(ids)) != len(ids):
        dup = [i for i, n in collections.Counter(ids).items() if n > 1]
        raise ValueError(f"roster {path}: student id(s) listed twice: {dup[:3]}")
    return ids


# ----------------------------------------------------------------------------- judging

def _value(v: dict):
    from fleetcalc.core.units import Q_

    if v["k"] == "none":
        return ...
    if v["k"] == "q":
        try:
            return Q_(v["m"], v["u"])
        except Exception:
            return object()          # a unit our registry does not know: wrong units
    if v["k"] == "n":
        return v["m"]
    return object()


def judge_set(exs: dict, values: dict | None, errors: list, inputs_for) -> list[dict]:
    """One row dict per graded part: part, exercise, score, max_score, status, message."""
    from fleetcalc.ui.exercises import judge, _magnitude_in

    rows = []
    err = errors[0] if errors else None
    for ex_id, ex in exs.items():
        inputs = inputs_for(ex)
        for name, a in ex.answers.items():
            label = a.label or name
            v = (values or {}).get(name, {"k": "missing"})
            if v["k"] in ("missing", "none") and err:
                status = f"error: {err['ename']} in cell {err['cell']}"
                msg = f"✗ Exercise {ex_id}, {label}: no answer; cell {err['cell']} raised {err['ename']}: {err['evalue']}"
                rows.append(dict(exercise=ex_id, part=name, score=0, max_score=a.points, status=status, message=msg))
                continue
            if v["k"] == "missing":
                rows.append(dict(exercise=ex_id, part=name, score=0, max_score=a.points, status="missing",
                                 message=f"✗ Exercise {ex_id}, {label}: the variable `{name}` is not defined."))
                continue
            want = _magnitude_in(ex.expected(name, **inputs), a.unit)
            res = judge(ex_id, label, _value(v), want, a.unit, a.rel, a.abs, a.hint)
            rows.append(dict(exercise=ex_id, part=name, score=a.points if res else 0, max_score=a.points,
                             status=res.status, message=res.message))
    return rows


# ----------------------------------------------------------------------------- the run

def execute_submission(path: Path, names: list[str], limit: float) -> dict:
    """Run one submission in a fresh kernel in a temporary folder; {"values", "errors"} or {"status"}.

    The kernel is its own process (cwd: the temporary folder, which holds only the submission);
    this thread drives it with a deadline for the whole notebook and kills it afterwards.
    """
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        work = Path(tmp) / "submission.ipynb"
        shutil.copyfile(path, work)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBOOK_", "JUPYTER_"))}
        env.update(MPLBACKEND="Agg", HOME=tmp, PYTHONDONTWRITEBYTECODE="1")
        try:
            res = run_one(str(work), names, limit, env=env)
        except (CellTimeoutError, TimeoutError):
            return {"status": "timeout", "detail": f"did not finish within {limit:g} s"}
        except DeadKernelError as exc:
            return {"status": "kernel-failed", "detail": f"the kernel died: {str(exc)[:200]}"}
        except Exception as exc:  # anything else about this submission: its row, not the run
            return {"status": "kernel-failed", "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
        finally:
            pidfile = Path(tmp) / "kernel.pid"   # the kernel never outlives its submission
            if pidfile.exists():
                try:
                    os.kill(int(pidfile.read_text()), signal.SIGKILL)
                except (ValueError, ProcessLookupError, PermissionError):
                    pass
        if res.get("values") is None:
            return {"status": "kernel-failed", "detail": "the answer variables could not be read"}
        return res


def grade_folder(folder: Path, set_name: str | None = None, limit: float = 60, jobs: int = 2,
                 roster: list[str] | None = None, seed: int = 0, log=print) -> list[dict]:
    from workbook import answer_key, variants

    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"grade: SUBMISSIONS={folder} is not a folder")
    if limit <= 0:
        raise SystemExit(f"grade: --timeout must be > 0 seconds; got {limit}")
    key = answer_key.load()
    if set_name is not None and set_name not in key:
        raise SystemExit(f"grade: --set {set_name!r} is not an exercise set; known: {sorted(key)}")
    sets_by_id = {ex_id: s for s, exs in key.items() for ex_id in exs}
    subs = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    if not subs:
        log(f"grade: no .ipynb files in {folder}")
    parsed = {}
    for p in subs:
        nb, bad = read_submission(p)
        parsed[p] = (nb, bad, identify_set(nb, sets_by_id, set(key)) if nb is not None else None)
    if set_name is None:
        votes = collections.Counter(s for _, _, s in parsed.values() if s)
        set_name = votes.most_common(1)[0][0] if votes else None
    total = sum(a.points for ex in key.get(set_name, {}).values() for a in ex.answers.values())

    def fail(p, status, detail=""):
        return {"path": p, "rows": [dict(exercise="", part="", score=0, max_score=total, status=status,
                                         message=detail or status)], "errors": []}

    def one(p):
        nb, bad, s = parsed[p]
        if bad:
            return fail(p, bad, {"invalid-json": "the file is not valid JSON (a notebook is a JSON file)",
                                 "empty": "the notebook has no code to run",
                                 "not-a-notebook": "the file is JSON but not a Jupyter notebook"}[bad])
        if s is None:
            return fail(p, "unknown-exercise-set", "no exercise of any set is named in this notebook")
        if s != set_name:
            return fail(p, f"other-exercise-set ({s})", f"this notebook belongs to {s}, not {set_name}")
        student = identify_student(p, nb, roster)
        if roster is not None and student is None:
            return fail(p, "unknown-student", "no roster id in the file name or the notebook's metadata")
        exs = key[s]
        names = [n for ex in exs.values() for n in ex.answers]
        if not names:
            return {"path": p, "rows": [], "errors": [], "student": student}
        res = execute_submission(p, names, limit)
        if "status" in res:
            return fail(p, res["status"], res.get("detail", ""))

        def inputs_for(ex):
            return variants.student_inputs(ex, student, seed) if student else {}

        rows = judge_set(exs, res["values"], res["errors"], inputs_for)
        return {"path": p, "rows": rows, "errors": res["errors"], "student": student}

    results = []
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for r in pool.map(one, subs):
            results.append(r)
            n_ok = sum(row["score"] for row in r["rows"])
            log(f"{r['path'].name}: {n_ok:g}/{sum(row['max_score'] for row in r['rows']):g} "
                f"({', '.join(sorted({row['status'] for row in r['rows']})) or 'no graded parts'})")
    write_outputs(folder, results, set_name)
    log(f"graded {len(subs)} submission(s) of {set_name} in {time.monotonic() - t0:.1f} s -> "
        f"{folder / 'grades.csv'}")
    return [dict(submission=r["path"].name, **{k: row[k] for k in COLUMNS[1:]}) for r in results for row in r["rows"]]


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def write_outputs(folder: Path, results: list[dict], set_name: str | None) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    fb = folder / "feedback"
    fb.mkdir(exist_ok=True)
    for r in results:
        name = r["path"].name
        for row in r["rows"]:
            w.writerow([name, row["exercise"], row["part"], _num(row["score"]), _num(row["max_score"]), row["status"]])
        score = sum(row["score"] for row in r["rows"])
        out = sum(row["max_score"] for row in r["rows"])
        lines = [f"# Feedback: {name}", "",
                 f"Exercise set `{set_name}`" + (f", variant of student `{r['student']}`" if r.get("student") else "")
                 + f". Score: **{_num(score)} / {_num(out)}**.", ""]
        for row in r["rows"]:
            lines.append(f"- {row['message']}")
        if r.get("errors"):
            lines += ["", "Cells that raised an error while your notebook ran:", ""]
            lines += [f"- cell {e['cell']}: `{e['ename']}`: {e['evalue']}" for e in r["errors"]]
        (fb / f"{r['path'].stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "grades.csv").write_text(buf.getvalue(), encoding="utf-8")


def sample_submissions(set_name: str, n: int, out: Path) -> list[Path]:
    """``n`` filled-in copies of a set's student notebook (to rehearse or time the grader): every
    fourth unanswered, every fourth with one wrong part, the rest right."""
    import nbformat

    from workbook import answer_key

    exs = answer_key.load_set(ROOT / "solutions" / f"{set_name}.md")
    want = {}
    for ex in exs.values():
        for name, a in ex.answers.items():
            want[name] = (_magnitude_in_unit(ex.expected(name), a.unit), a.unit)
    base = nbformat.read(ROOT / "exercises" / f"{set_name}.ipynb", as_version=4)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        nb = nbformat.from_dict(base)
        wrong_done = False
        for c in nb.cells:
            if c.cell_type != "code" or "# your answer" not in c.source or i % 4 == 0:
                continue
            lines = []
            for line in c.source.split("\n"):
                m = re.match(r"^(\s*)(\w+) = \.\.\.  # your answer", line)
                if m and m.group(2) in want:
                    v, unit = want[m.group(2)]
                    if i % 4 == 1 and not wrong_done:
                        v, wrong_done = v * 1.5 + 1, True
                    line = f'{m.group(1)}{m.group(2)} = Q_({v!r}, "{unit}")' if unit else f"{m.group(1)}{m.group(2)} = {v!r}"
                lines.append(line)
            c.source = "\n".join(lines)
        path = out / f"sample{i:03d}.ipynb"
        nbformat.write(nb, path)
        paths.append(path)
    return paths


def _magnitude_in_unit(q, unit):
    from fleetcalc.ui.exercises import _magnitude_in
    return _magnitude_in(q, unit)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the folder of submitted .ipynb files")
    ap.add_argument("--set", default=None, help="the exercise set, e.g. ch28/ex28_09_10 (default: the most common)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per submission (default 60)")
    ap.add_argument("--jobs", type=int, default=2, help="submissions run at once (default 2)")
    ap.add_argument("--roster", default=None, help="roster CSV: grade each student against their own variant")
    ap.add_argument("--seed", type=int, default=0, help="the seed the variants were issued with (default 0)")
    ap.add_argument("--samples", type=int, default=0,
                    help="instead of grading: write this many filled-in sample submissions of --set into the folder")
    a = ap.parse_args(argv)
    if a.samples:
        if not a.set:
            ap.error("--samples needs --set")
        print(f"wrote {len(sample_submissions(a.set, a.samples, Path(a.folder)))} sample submissions to {a.folder}")
        return 0
    if a.roster and not Path(a.roster).is_file():
        ap.error(f"--roster {a.roster}: no such file")
    roster = read_roster(Path(a.roster)) if a.roster else None
    grade_folder(Path(a.folder), a.set, a.timeout, a.jobs, roster, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
