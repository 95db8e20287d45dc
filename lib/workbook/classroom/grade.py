"""Grade a folder of submitted exercise notebooks against the answer key, each in a sandbox of its own.

    workbook grade FOLDER [--set ch28/ex28_09_10] [--timeout 60] [--memory 2] [--jobs 2]
                          [--roster roster.csv --seed 0] [--out DIR] [--fresh] [--trusted]
    make grade SUBMISSIONS=FOLDER [SET=...] [TIMEOUT=60] [MEMORY=2] [OUT=DIR] [ROSTER=roster.csv SEED=0] [TRUSTED=1]

Writes ``grades.csv`` (columns ``submission,exercise,part,score,max_score,status``: a row per
submission and graded part, or one row with its status for a submission that could not run) and
``feedback/<name>.md`` (what ``check()`` would say, part by part) into FOLDER, or ``--out``.

How a submission is judged
* The grader reads each ``.ipynb`` once (its sha256 is taken from those bytes) and hands only its
  code cells to a fresh sandbox (``lib/workbook/classroom/sandbox.py``: bubblewrap, with new user, PID and
  network namespaces; the calculator library and the Python environment read-only; its own small
  ``/tmp`` and working folder; a memory cap, default 2 GiB, a process cap, a CPU-time cap and the
  wall-clock limit ``--timeout`` for the whole notebook, default 60 s). There a harness
  (``lib/workbook/classroom/sandbox_harness.py``) runs the cells top to bottom in one IPython shell (cells
  that raise do not stop the run; panels and self-checks are stubbed out, they are not graded).
* Then the harness writes the answer variables (the part names of the set's exercises) as plain
  numbers and unit names to a file descriptor the grader opened; the grader parses that report
  strictly (``sandbox.parse_report``) and judges the values here, in the grader's process, with the
  key built from the solution notebooks (``lib/workbook/classroom/answer_key.py``). Nothing the notebook prints
  counts, nothing it redefines (``check``, the check cells, the library) reaches the key, and a
  forged report can claim only this submission's own answer values, as assigning them would.
* Which exercise set: the notebook's ``fleetcalc.exercise_set`` metadata, else the generated
  note naming its solution, else the exercise ids its ``publish``/``check`` calls name. The folder's
  set is ``--set`` or, without it, the set most submissions belong to; a notebook of another set
  gets one row ``other-exercise-set``.
* Which student (with ``--roster``): the file name ``<student id>__<anything>.ipynb`` that
  ``make variants`` issues (or any roster id that appears as a ``_``/``-``/``.``-separated token in
  the name, as LMS downloads rename files), else the notebook's ``fleetcalc.student`` metadata.
  The student's variant inputs are recomputed from the roster and the seed, never read from the
  notebook. Without a roster every submission is graded against the book's inputs.

Nothing is lost: a submission's failure is its own row and the run goes on; the submitted files are
never opened for writing, and their hashes are checked again at the end (a file that changed meanwhile
gets ``changed-during-grading``); ``grades.csv`` and each feedback file are written whole (a
temporary file, then a rename); each graded submission is journaled to ``.grades-progress.jsonl``
beside the outputs, so a run that is interrupted resumes there (``--fresh`` ignores it) and a
finished run replaces every row.

Without a sandbox (bubblewrap missing, or no user namespaces) the grader refuses to run submitted
notebooks. ``--trusted`` runs them with the grader's own rights, for the instructor's own notebooks.

Statuses: ``correct``, ``wrong``, ``wrong-units``, ``unanswered`` (still ``...``), ``missing`` (the
variable is not defined), ``error: <Error> in cell <n>`` (the variable is missing and a cell
raised); for a whole submission: ``invalid-json``, ``not-a-notebook``, ``empty``, ``timeout``,
``memory-limit`` (a cell raised MemoryError at the cap, or the sandbox's cgroup killed a process),
``cpu-limit``, ``killed`` (its process died of a signal before it reported), ``kernel-failed`` (it
exited before it reported, or its report was malformed), ``sandbox-failed``, ``grader-error``,
``changed-during-grading``, ``unknown-exercise-set``, ``other-exercise-set (<set>)``,
``unknown-student``, ``variant-mismatch (notebook seed <s>, SEED=<t>)`` (the notebook was issued
with another seed: nothing is graded against the wrong inputs). Per part also ``unit-confusion``
(right under a common unit confusion: GB/GiB, Gb/GB, %/fraction, per direction/both ways; the
feedback names it) and ``book-inputs`` (a variant answered with the book's inputs); both score 0.
A ``timeout`` names the cell that was still running.

Variants without a roster: a notebook issued by ``workbook variants`` records its student, seed and
draws in its metadata; without ``--roster`` the grader grades it against that variant (and says so,
on the console and in the feedback) instead of against the book's inputs. With ``--roster`` the
inputs are recomputed from the roster and the seed, and a notebook issued with another seed gets
``variant-mismatch``.

Gradebooks (see :func:`write_gradebooks` and instructor/README.md): ``gradebook_canvas.csv``,
``gradebook_moodle.csv`` (one row per student: id, name, email from the roster, one column per
exercise, the total) and ``gradescope/<submission>.json`` (Gradescope's autograder results).
"""
from __future__ import annotations

import argparse
import collections
import csv
import hashlib
import io
import json

import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from workbook import repo_root
from workbook.classroom import sandbox
from workbook.classroom.roster import read_people, read_roster  # noqa: F401  (read_roster: the grader's API)
from workbook.notebooks.exercise_ids import ids_in_code

COLUMNS = ["submission", "exercise", "part", "score", "max_score", "status"]

# ----------------------------------------------------------------------------- identifying a submission

def read_submission(path: Path, data: bytes | None = None):
    """(notebook dict, None) or (None, status) for a file that is not a usable notebook."""
    try:
        raw = json.loads((path.read_bytes() if data is None else data).decode("utf-8", errors="strict"))
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
    ids = [i for c in nb.cells if c.get("cell_type") == "code" for i in ids_in_code(_source(c))]
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


def variant_of(nb) -> dict | None:
    """What a variant notebook records about itself: {"student", "seed", "draws"} (None: the book's)."""
    meta = (nb.get("metadata") or {}).get("fleetcalc") or {}
    if not isinstance(meta.get("student"), str) or not isinstance(meta.get("seed"), int):
        return None
    draws = meta.get("draws") if isinstance(meta.get("draws"), dict) else {}
    return {"student": meta["student"], "seed": meta["seed"],
            "draws": {str(k): int(v) for k, v in draws.items() if isinstance(v, int) and 0 <= v < 10_000}}


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
    from fleetcalc.ui.exercises import judge, magnitude_in

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
            want = magnitude_in(ex.expected(name, **inputs), a.unit)
            book = magnitude_in(ex.expected(name), a.unit) if inputs else None
            res = judge(ex_id, label, _value(v), want, a.unit, a.rel, a.abs, a.hint, book=book)
            rows.append(dict(exercise=ex_id, part=name, score=a.points if res else 0, max_score=a.points,
                             status=res.status, message=res.message))
    return rows


# ----------------------------------------------------------------------------- the run

def code_cells(nb) -> list[str]:
    """The sources of a notebook's code cells, in order (cell numbers in statuses count these from 1)."""
    return [_source(c) for c in nb.cells if c.get("cell_type") == "code"]


def execute_submission(nb, names: list[str], limit: float, trusted: bool = False,
                       memory: int = sandbox.Limits.memory) -> dict:
    """Run one submission's code cells in a sandbox of its own; {"values", "errors"} or {"status", "detail"}.

    The sandbox gets a copy of the code cells only; the submitted file is never opened by it.
    """
    try:
        out = sandbox.run_cells(code_cells(nb), names, sandbox.Limits(timeout=limit, memory=memory), trusted=trusted)
    except Exception as exc:  # noqa: BLE001 - anything about this submission: its row, not the run
        return {"status": "sandbox-failed", "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
    if out.status is not None:
        return {"status": out.status, "detail": out.detail, "errors": out.errors}
    return {"values": out.values, "errors": out.errors}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _settings(set_name, limit, roster, seed, trusted, memory) -> str:
    """A digest of everything a grade depends on besides the submission (a resumed run must match it)."""
    from workbook.classroom import answer_key

    src = repo_root() / "solutions" / f"{set_name}.md" if set_name else None
    key = _sha256(src.read_bytes()) if src is not None and src.is_file() else ""
    keyfiles = [Path(answer_key.__file__), Path(__file__), Path(sandbox.__file__)]
    code = _sha256(b"".join(f.read_bytes() for f in keyfiles))
    return _sha256(json.dumps([set_name, limit, roster, seed, trusted, memory, key, code]).encode())[:32]


JOURNAL = ".grades-progress.jsonl"


def _read_journal(path: Path, settings: str) -> dict:
    """{(name, sha256): result} from an interrupted run with the same settings."""
    out = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            e = json.loads(line)
            if e["settings"] == settings:
                out[(e["name"], e["sha256"])] = e["result"]
        except (ValueError, KeyError, TypeError):
            continue                     # a line cut short when the run stopped
    return out


def grade_folder(folder: Path, set_name: str | None = None, limit: float = 60, jobs: int = 2,
                 roster: list[str] | None = None, seed: int = 0, log=print, trusted: bool = False,
                 memory: int = sandbox.Limits.memory, out: Path | None = None, fresh: bool = False,
                 people: dict | None = None) -> list[dict]:
    from workbook.classroom import answer_key
    from workbook.classroom import variants

    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"grade: SUBMISSIONS={folder} is not a folder")
    if limit <= 0:
        raise SystemExit(f"grade: --timeout must be > 0 seconds; got {limit}")
    key = answer_key.load()
    if set_name is not None and set_name not in key:
        raise SystemExit(f"grade: --set {set_name!r} is not an exercise set; known: {sorted(key)}")
    if not trusted:
        ok, why = sandbox.available()
        if not ok:
            raise SystemExit("grade: refusing to run submitted notebooks without a sandbox: " + why)
    out = Path(out) if out is not None else folder
    out.mkdir(parents=True, exist_ok=True)
    sets_by_id = {ex_id: s for s, exs in key.items() for ex_id in exs}
    subs = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    if not subs:
        log(f"grade: no .ipynb files in {folder}")
    parsed, digest = {}, {}
    for p in subs:                       # read once: what is hashed is what is graded
        data = p.read_bytes()
        digest[p] = _sha256(data)
        nb, bad = read_submission(p, data)
        parsed[p] = (nb, bad, identify_set(nb, sets_by_id, set(key)) if nb is not None else None)
    if set_name is None:
        votes = collections.Counter(s for _, _, s in parsed.values() if s)
        set_name = votes.most_common(1)[0][0] if votes else None
    total = sum(a.points for ex in key.get(set_name, {}).values() for a in ex.answers.values())
    settings = _settings(set_name, limit, roster, seed, trusted, memory)
    journal = out / JOURNAL
    done = {} if fresh else _read_journal(journal, settings)

    def fail(status, detail="", errors=()):
        return {"rows": [dict(exercise="", part="", score=0, max_score=total, status=status,
                              message=detail or status)], "errors": list(errors)}

    def one(p):
        nb, bad, s = parsed[p]
        if bad:
            return fail(bad, {"invalid-json": "the file is not valid JSON (a notebook is a JSON file)",
                              "empty": "the notebook has no code to run",
                              "not-a-notebook": "the file is JSON but not a Jupyter notebook"}[bad])
        if s is None:
            return fail("unknown-exercise-set", "no exercise of any set is named in this notebook")
        if s != set_name:
            return fail(f"other-exercise-set ({s})", f"this notebook belongs to {s}, not {set_name}")
        student = identify_student(p, nb, roster)
        if roster is not None and student is None:
            return fail("unknown-student", "no roster id in the file name or the notebook's metadata")
        recorded = variant_of(nb)
        how = None
        if roster is not None:
            if recorded is not None and recorded["seed"] != seed:
                return fail(f"variant-mismatch (notebook seed {recorded['seed']}, SEED={seed})",
                            f"this notebook was issued with seed {recorded['seed']}, but the class is graded with "
                            f"SEED={seed}: grade again with SEED={recorded['seed']} (nothing was graded against "
                            "the wrong inputs)")
            how = "roster"
        elif recorded is not None:
            student, how = recorded["student"], "notebook"
        exs = key[s]
        names = [n for ex in exs.values() for n in ex.answers]
        if not names:
            return {"rows": [], "errors": [], "student": student}
        res = execute_submission(nb, names, limit, trusted=trusted, memory=memory)
        if "status" in res:
            return fail(res["status"], res.get("detail", ""), res.get("errors", ()))

        def inputs_for(ex):
            if how == "roster":
                return variants.assign(ex, roster, seed)[student][0]
            if how == "notebook":
                return variants.student_inputs(ex, student, recorded["seed"], recorded["draws"].get(ex.id, 0))
            return {}

        rows = judge_set(exs, res["values"], res["errors"], inputs_for)
        return {"rows": rows, "errors": res["errors"], "student": student, "variant_from": how,
                "seed": seed if how == "roster" else (recorded or {}).get("seed")}

    def safe(p):
        if (p.name, digest[p]) in done:
            return done[(p.name, digest[p])], True
        try:
            r = one(p)
            if roster is not None and not r.get("student") and parsed[p][0] is not None:
                r["student"] = identify_student(p, parsed[p][0], roster)   # its gradebook row, even when it failed
            return r, False
        except Exception as exc:  # noqa: BLE001 - one submission never stops the run
            return fail("grader-error", f"{type(exc).__name__}: {str(exc)[:200]}"), False

    results = []
    t0 = time.monotonic()
    reused = 0
    with open(journal, "a", encoding="utf-8") as jf, ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for p, (r, old) in zip(subs, pool.map(safe, subs)):
            results.append((p, r))
            reused += old
            if not old:                  # the journal lets an interrupted run resume where it stopped
                jf.write(json.dumps({"settings": settings, "name": p.name, "sha256": digest[p], "result": r}) + "\n")
                jf.flush()
                os.fsync(jf.fileno())
            n_ok = sum(row["score"] for row in r["rows"])
            log(f"{p.name}: {n_ok:g}/{sum(row['max_score'] for row in r['rows']):g} "
                f"({', '.join(sorted({row['status'] for row in r['rows']})) or 'no graded parts'})"
                + (" [from the interrupted run]" if old else ""))
    changed = []
    for i, (p, r) in enumerate(results):  # the originals were never written; say so if someone else did
        try:
            now = _sha256(p.read_bytes())
        except OSError:
            now = None
        if now != digest[p]:
            changed.append(p.name)
            results[i] = (p, fail("changed-during-grading",
                                  "the file changed while the class was graded; grade it again"))
    write_outputs(out, [dict(path=p, **r) for p, r in results], set_name)
    write_gradebooks(out, [dict(path=p, **r) for p, r in results], set_name, key.get(set_name, {}),
                     roster, people or {})
    journal.unlink(missing_ok=True)
    from_nb = [p.name for p, r in results if r.get("variant_from") == "notebook"]
    if from_nb:
        log(f"NOTE: no ROSTER= given: {len(from_nb)} variant notebook(s) were graded against the student and "
            "seed recorded in each notebook (its metadata, which a student could edit); pass ROSTER= and SEED= "
            "to recompute every student's inputs from the roster instead")
    how = "without isolation (--trusted)" if trusted else f"each in its own sandbox ({sandbox.available()[1]})"
    log(f"graded {len(subs)} submission(s) of {set_name} {how} in {time.monotonic() - t0:.1f} s"
        + (f", {reused} from the interrupted run" if reused else "") + f" -> {out / 'grades.csv'}; "
        + (f"CHANGED while grading: {', '.join(changed)}" if changed else
           f"all {len(subs)} submitted file(s) unchanged (sha256)"))
    return [dict(submission=p.name, **{k: row[k] for k in COLUMNS[1:]}) for p, r in results for row in r["rows"]]


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, then a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
        if r.get("variant_from") == "notebook":
            lines += [f"Graded against the variant recorded in this notebook (student `{r['student']}`, seed "
                      f"{r.get('seed')}): no roster was given.", ""]
        if any(row["status"] == "book-inputs" for row in r["rows"]):
            lines += ["Some answers match the book's inputs, not your variant's: redo them with the inputs in "
                      "your exercise card.", ""]
        for row in r["rows"]:
            lines.append(f"- {row['message']}")
        if r.get("errors"):
            lines += ["", "Cells that raised an error while your notebook ran:", ""]
            lines += [f"- cell {e['cell']}: `{e['ename']}`: {e['evalue']}" for e in r["errors"]]
        _write_atomic(fb / f"{r['path'].stem}.md", "\n".join(lines) + "\n")
    _write_atomic(folder / "grades.csv", buf.getvalue())


def _student_of(r: dict) -> str:
    return r.get("student") or r["path"].stem


def write_gradebooks(folder: Path, results: list[dict], set_name: str | None, exs: dict,
                     roster: list[str] | None, people: dict) -> None:
    """The gradebooks an LMS imports, beside ``grades.csv``.

    * ``gradebook_canvas.csv``: Canvas's gradebook import (columns ``Student, ID, SIS User ID,
      SIS Login ID, Section``, a ``Points Possible`` row, then one column per exercise and the total,
      each named ``<set> <exercise>`` / ``<set> total``); Canvas matches a row on ``ID`` (the roster's
      ``canvas_id``) or else ``SIS User ID`` (the roster's ``sis_id``, else the student id).
    * ``gradebook_moodle.csv``: Moodle's grade import (``ID number, Email address, Full name``, then
      one column per exercise and the total); map ``ID number`` (or the email) to the user field.
    * ``gradescope/<submission>.json``: Gradescope autograder results (``score``, ``tests`` with
      ``name, score, max_score, status, output``), one per submission.

    One row per student: the best-scoring submission of each student when several are handed in
    (a roster's students with no submission get empty cells); without a roster, one per submission.
    """
    import json as _json

    ex_ids = list(exs)
    points = {e: sum(a.points for a in exs[e].answers.values()) for e in ex_ids}
    total_max = sum(points.values())
    best: dict[str, dict] = {}
    for r in results:
        sid = _student_of(r)
        score = sum(row["score"] for row in r["rows"])
        if sid not in best or score > sum(row["score"] for row in best[sid]["rows"]):
            best[sid] = r
    order = list(roster) if roster else sorted(best)
    prefix = set_name or "grades"

    def per_ex(r):
        got = {e: 0.0 for e in ex_ids}
        for row in r["rows"]:
            if row["exercise"] in got:
                got[row["exercise"]] += row["score"]
        return got

    # Canvas
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = [f"{prefix} {e}" for e in ex_ids] + [f"{prefix} total"]
    w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *cols])
    w.writerow(["Points Possible", "", "", "", "", *[_num(points[e]) for e in ex_ids], _num(total_max)])
    for sid in order:
        pp = people.get(sid, {})
        r = best.get(sid)
        cells = ([_num(v) for v in per_ex(r).values()] + [_num(sum(row["score"] for row in r["rows"]))]
                 if r else [""] * len(cols))
        w.writerow([pp.get("name") or sid, pp.get("canvas_id", ""), pp.get("sis_id") or sid,
                    pp.get("email", ""), pp.get("section", ""), *cells])
    _write_atomic(folder / "gradebook_canvas.csv", buf.getvalue())
    # Moodle
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["ID number", "Email address", "Full name", *cols])
    for sid in order:
        pp = people.get(sid, {})
        r = best.get(sid)
        cells = ([_num(v) for v in per_ex(r).values()] + [_num(sum(row["score"] for row in r["rows"]))]
                 if r else [""] * len(cols))
        w.writerow([sid, pp.get("email", ""), pp.get("name", ""), *cells])
    _write_atomic(folder / "gradebook_moodle.csv", buf.getvalue())
    # Gradescope: one results.json per submission
    gs = folder / "gradescope"
    gs.mkdir(exist_ok=True)
    for r in results:
        tests = [{"name": f"Exercise {row['exercise']}, {row['part']}" if row["exercise"] else "notebook",
                  "number": row["exercise"] or "", "score": row["score"], "max_score": row["max_score"],
                  "status": "passed" if row["status"] == "correct" else "failed",
                  "output": row["message"], "visibility": "visible"} for row in r["rows"]]
        doc = {"score": sum(row["score"] for row in r["rows"]),
               "output": f"Exercise set {set_name}" + (f", student {r['student']}" if r.get("student") else ""),
               "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}
        _write_atomic(gs / f"{r['path'].stem}.json", _json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def sample_submissions(set_name: str, n: int, out: Path) -> list[Path]:
    """``n`` filled-in copies of a set's student notebook (to rehearse or time the grader): every
    fourth unanswered, every fourth with one wrong part, the rest right."""
    import nbformat

    from fleetcalc.ui.exercises import magnitude_in
    from workbook.classroom import answer_key

    exs = answer_key.load_set(repo_root() / "solutions" / f"{set_name}.md")
    want = {}
    for ex in exs.values():
        for name, a in ex.answers.items():
            want[name] = (magnitude_in(ex.expected(name), a.unit), a.unit)
    base = nbformat.read(repo_root() / "exercises" / f"{set_name}.ipynb", as_version=4)
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



def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="the folder of submitted .ipynb files")
    ap.add_argument("--set", default=None, help="the exercise set, e.g. ch28/ex28_09_10 (default: the most common)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per submission (default 60)")
    ap.add_argument("--jobs", type=int, default=2, help="submissions run at once (default 2)")
    ap.add_argument("--roster", default=None, help="roster CSV: grade each student against their own variant")
    ap.add_argument("--seed", type=int, default=0, help="the seed the variants were issued with (default 0)")
    ap.add_argument("--memory", type=float, default=2, help="memory cap per submission, GiB (default 2)")
    ap.add_argument("--out", default=None, help="where grades.csv and feedback/ go (default: the folder)")
    ap.add_argument("--fresh", action="store_true", help="ignore what an interrupted run already graded")
    ap.add_argument("--trusted", action="store_true",
                    help="run the notebooks WITHOUT a sandbox, with your rights (only for notebooks you wrote)")
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
    people = read_people(Path(a.roster)) if a.roster else None
    if a.memory <= 0:
        ap.error(f"--memory must be > 0 GiB; got {a.memory}")
    grade_folder(Path(a.folder), a.set, a.timeout, a.jobs, roster, a.seed, trusted=a.trusted,
                 memory=int(a.memory * sandbox.GIB), out=Path(a.out) if a.out else None, fresh=a.fresh,
                 people=people)
    return 0


if __name__ == "__main__":
    sys.exit(main())
