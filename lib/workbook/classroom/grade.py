"""Grade a folder of submitted exercise notebooks against the answer key, each in a sandbox of its own.

    workbook grade FOLDER [--set ch28/ex28_09_10] [--timeout 60] [--memory 2] [--jobs 2]
                          [--roster roster.csv] [--seed S] [--lms canvas] [--out DIR] [--fresh]
                          [--book-inputs] [--after-deadline] [--trusted]
    make grade SUBMISSIONS=FOLDER [SET=...] [TIMEOUT=60] [MEMORY=2] [OUT=DIR] [ROSTER=roster.csv SEED=0] [TRUSTED=1]

Writes ``grades.csv`` (columns ``submission,exercise,part,score,max_score,status``: a row per
submission and graded part, or one row with its status for a submission that could not be graded),
``feedback/<name>.md`` (what ``check()`` would say, part by part), the gradebooks (Canvas, Moodle,
Gradescope) into FOLDER, or ``--out``. Every submission gets its rows, whatever it holds.

Everything a submission controls is untrusted: its bytes, JSON, metadata, code, file name, the
answers and unit names it reports, its error messages.

* The grader reads each file once (no link, no special file, at most 8 MiB; its sha256 is taken
  from those bytes) with bounded readers (``untrusted.py``: JSON measured before it is parsed, exact
  types for the metadata) and never parses its code. Its code cells run in a fresh sandbox
  (``sandbox.py``: bubblewrap, own user, PID and network namespaces, memory, process, CPU-time,
  CPU-share and wall-clock caps); the answers come back as data, parsed strictly, with units as
  names drawn from a whitelist built from the key; they are judged here with the key built from
  the solution notebooks (``answer_key.py``). Nothing the notebook prints or redefines counts.
* In every output a submission's text is data: CSV cells are never formulas, feedback quotes it in
  code spans (no HTML, link, image or heading), the console gets no control characters, and no
  status quotes it.

Which exercise set: ``--set``, or else the notebook's own *signed* metadata (a variant issued by
``workbook variants``); never a majority. A notebook whose metadata names another known set gets
``other-exercise-set``.

Which student, and which inputs
* With ``--roster``: the uploader, as the LMS export names them (``--lms canvas``: the user id in
  Canvas's download names, mapped by the roster's ``canvas_id``; a Gradescope export, recognised by
  its ``submission_metadata.yml``: the submitters' SID or email), else the student the notebook
  was issued to (its signed metadata). A file name the student chose never picks the student; a
  roster id in front of ``__`` that differs from the issued student gives ``identity-conflict``.
  The inputs are recomputed from the roster and ``--seed``; a signed notebook of another seed gets
  ``variant-mismatch``.
* Without a roster: a signed variant is graded against the variant it was issued (and ``--seed``,
  if given, must match); a notebook whose variant metadata does not verify gets
  ``unverified-variant``, never a grade against the book's inputs; so does a notebook without
  variant metadata in a folder where other notebooks of its set carry signed variants, unless
  ``--book-inputs`` says the class answered the book's own notebooks. Identities are then unverified.

Feedback never says "too large" or "too small" (a direction lets a student binary-search the
answer over resubmissions); ``--after-deadline`` allows it.

Nothing is lost: a submission's failure is its own row; the run always writes ``grades.csv`` and
every gradebook; the submitted files are never opened for writing and their hashes are checked again
at the end (``changed-during-grading``); outputs are written whole (a temporary file, then a
rename). Each graded submission is journaled to ``.grades-progress.jsonl`` beside the outputs, each
line authenticated (HMAC under the instructor's secret) and tied to the grader's code and settings;
a resumed run reuses only lines that verify, and a submission the grader stopped on twice gets
``grader-error``. Concurrent sandboxes get a CPU share each (a cgroup), else they run one at a time;
a submission that timed out while another ran is run again alone before it scores 0, unless its
cgroup counted a whole core for the whole timeout (no neighbour slowed it).

Without a sandbox (bubblewrap missing, or no user namespaces) the grader refuses to run submitted
notebooks. ``--trusted`` runs them with the grader's own rights, for the instructor's own notebooks.

Statuses: ``correct``, ``wrong``, ``wrong-units``, ``unanswered`` (still ``...``), ``missing`` (the
variable is not defined), ``error: <Error> in cell <n>`` (the variable is missing and a cell
raised); for a whole submission: ``invalid-json``, ``not-a-notebook``, ``empty``, ``too-large``,
``symlink``, ``not-a-file``, ``unreadable``, ``timeout``, ``memory-limit``, ``cpu-limit``,
``killed``, ``kernel-failed`` (it exited before it reported, or its report was malformed),
``sandbox-failed`` (the sandbox did not start: the host's problem, grade again), ``grader-error``,
``changed-during-grading``, ``unknown-exercise-set``, ``other-exercise-set (<set>)``,
``unknown-student``, ``identity-conflict``, ``unverified-variant``, ``variant-mismatch (notebook
seed <s>, SEED=<t>)``. Per part also ``unit-confusion`` (right under a common unit confusion:
GB/GiB, Gb/GB, %/fraction, per direction/both ways) and ``book-inputs`` (a variant answered with the
book's inputs); both score 0.
"""
from __future__ import annotations

import argparse
import builtins
import csv
import dataclasses
import hashlib
import hmac
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from workbook import repo_root
from workbook.classroom import sandbox, signing, untrusted
from workbook.classroom.roster import Identities, canvas_user, read_gradescope, read_people, read_roster  # noqa: F401

COLUMNS = ["submission", "exercise", "part", "score", "max_score", "status"]
JOURNAL = ".grades-progress.jsonl"
_PARSE = threading.Lock()          # one notebook parsed at a time: the grader's memory stays bounded

STATUS_TEXT = {
    "invalid-json": "the file is not valid JSON (a notebook is a JSON file)",
    "not-a-notebook": "the file is JSON but not a Jupyter notebook",
    "empty": "the notebook has no code to run",
}


# ----------------------------------------------------------------------------- finding the submissions

@dataclasses.dataclass
class Submission:
    name: str                      # as found: "x.ipynb", or "submission_123/x.ipynb" in a Gradescope export
    path: Path
    canvas: str | None = None      # the uploader's Canvas user id (``--lms canvas``)
    submitters: list = dataclasses.field(default_factory=list)   # Gradescope's submitters
    refused: tuple | None = None   # (status, detail) for an entry that is not a plain file


def _entries(folder: Path, prefix: str = ""):
    try:
        items = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in items:
        if not e.name.endswith(".ipynb"):
            continue
        name = prefix + e.name
        if e.is_symlink():
            yield Submission(name, Path(e.path), refused=("symlink", "the file is a link to another file; hand in "
                                                                     "the notebook itself"))
        elif not e.is_file(follow_symlinks=False):
            yield Submission(name, Path(e.path), refused=("not-a-file", "this is not a regular file"))
        else:
            yield Submission(name, Path(e.path))


def find_submissions(folder: Path, lms: str | None = None) -> list[Submission]:
    """The ``.ipynb`` entries of ``folder`` (and, in a Gradescope export, of its ``submission_<id>/``
    folders), each with what the LMS says about its uploader."""
    out = list(_entries(folder))
    if lms == "canvas":
        for s in out:
            s.canvas = canvas_user(s.name)
    gs = read_gradescope(folder)
    if gs:
        for key in sorted(gs):
            d = folder / key
            if d.is_dir() and not d.is_symlink():
                for s in _entries(d, key + "/"):
                    s.submitters = gs[key]
                    out.append(s)
    return out


def read_submission(path: Path, data: bytes | None = None):
    """(Notebook, None), or (None, status) for a file that is not a usable notebook."""
    try:
        data = untrusted.read_file(path) if data is None else data
        with _PARSE:
            return untrusted.notebook(data), None
    except untrusted.Rejected as r:
        return None, r.status


def code_cells(nb) -> list[str]:
    """The sources of a notebook's code cells, in order (cell numbers in statuses count these from 1)."""
    return list(nb.cells)


# ----------------------------------------------------------------------------- judging

_UNKNOWN_UNIT = object()
KNOWN_ERRORS = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                         and issubclass(getattr(builtins, n), BaseException)) | {
    "DimensionalityError", "UndefinedUnitError", "OffsetUnitCalculusError", "InputError", "LinAlgError"}


def error_name(ename: str) -> str:
    """A cell's exception as a status names it: a known class name, else ``Exception`` (a submission
    names its own classes, and a status never quotes a submission)."""
    return ename if ename in KNOWN_ERRORS else "Exception"


def _value(v: dict, allowed: frozenset):
    if v["k"] == "none":
        return ...
    if v["k"] == "q":
        q = untrusted.quantity(v["m"], v["u"], allowed)
        return _UNKNOWN_UNIT if q is None else q
    if v["k"] == "n":
        return v["m"]
    return object()


def judge_set(exs: dict, values: dict | None, errors: list, inputs_for, allowed: frozenset | None = None,
              direction: bool = False) -> list[dict]:
    """One row dict per graded part: exercise, part, score, max_score, status, message (the grader's
    own words) and quote (text from the submission, shown as such), if any."""
    from fleetcalc.core.units import fmt
    from fleetcalc.ui.exercises import judge, magnitude_in

    if allowed is None:
        allowed = untrusted.allowed_units(list(exs.values()))
    rows = []
    err = errors[0] if errors else None
    for ex_id, ex in exs.items():
        inputs = inputs_for(ex)
        for name, a in ex.answers.items():
            label = a.label or name
            v = (values or {}).get(name, {"k": "missing"})
            row = dict(exercise=ex_id, part=name, score=0, max_score=a.points)
            if v["k"] in ("missing", "none") and err:
                en = error_name(err["ename"])
                rows.append({**row, "status": f"error: {en} in cell {err['cell']}",
                             "message": f"✗ Exercise {ex_id}, {label}: no answer; cell {err['cell']} raised {en}, "
                                        "with the message", "quote": err["evalue"]})
                continue
            if v["k"] == "missing":
                rows.append({**row, "status": "missing",
                             "message": f"✗ Exercise {ex_id}, {label}: the variable `{name}` is not defined."})
                continue
            answer = _value(v, allowed)
            if answer is _UNKNOWN_UNIT:
                rows.append({**row, "status": "wrong-units",
                             "message": f"✗ Exercise {ex_id}, {label}: the answer's unit is not one the grader accepts "
                                        f"here; give it in {a.unit or 'no unit (a plain number)'}, or a unit like it."})
                continue
            want = magnitude_in(ex.expected(name, **inputs), a.unit)
            book = magnitude_in(ex.expected(name), a.unit) if inputs else None
            res = judge(ex_id, label, answer, want, a.unit, a.rel, a.abs, a.hint, book=book)
            message = res.message
            if res.status == "wrong" and not direction:
                shown = fmt(magnitude_in(answer, a.unit), sig=6) + (f" {a.unit}" if a.unit else "")
                message = f"✗ Exercise {ex_id}, {label} = {shown} is not right." + (f" Revisit: {a.hint}" if a.hint else "")
            rows.append({**row, "score": a.points if res else 0, "status": res.status, "message": message})
    return rows


# ----------------------------------------------------------------------------- the run

def execute_submission(nb, names: list[str], limit: float, trusted: bool = False,
                       memory: int = sandbox.Limits.memory) -> dict:
    """Run one submission's code cells in a sandbox of its own; {"values", "errors"} or {"status", "detail"}.

    The sandbox gets a copy of the code cells only; the submitted file is never opened by it.
    """
    try:
        out = sandbox.run_cells(code_cells(nb), names, sandbox.Limits(timeout=limit, memory=memory), trusted=trusted)
    except Exception as exc:  # noqa: BLE001 - anything about this submission: its row, not the run
        return {"status": "sandbox-failed", "detail": f"the sandbox could not be started ({type(exc).__name__})"}
    if out.status is not None:
        return {"status": out.status, "detail": out.detail, "errors": out.errors, "cpu_seconds": out.cpu_seconds}
    return {"values": out.values, "errors": out.errors}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _code_version() -> str:
    """A digest of the code a grade depends on (the grader, the sandbox, the key's reader, the checks)."""
    from fleetcalc.ui import exercises as fx

    from workbook.classroom import answer_key, roster, variants

    files = [Path(__file__), Path(sandbox.__file__), sandbox.HARNESS, Path(untrusted.__file__),
             Path(signing.__file__), Path(roster.__file__), Path(answer_key.__file__), Path(variants.__file__),
             Path(fx.__file__)]
    return _sha256(b"".join(f.read_bytes() for f in files))


def _settings(set_name, limit, roster, seed, trusted, memory, extra=()) -> str:
    """A digest of everything a grade depends on besides the submission (a resumed run must match it)."""
    from workbook.classroom import answer_key

    keys = _sha256(b"".join(p.read_bytes() for p in answer_key.solution_sources()))
    return _sha256(json.dumps([set_name, limit, roster, seed, trusted, memory, list(extra), keys,
                               _code_version()]).encode())[:32]


class Journal:
    """``.grades-progress.jsonl``: one authenticated line per event (``start``, ``done``) of a submission.

    Each line is ``<hmac> <json>``; a line whose HMAC (under the instructor's secret) or settings
    do not match, or that does not parse as a record, is skipped, never replayed."""

    def __init__(self, path: Path, secret: bytes, settings: str):
        self.path, self.secret, self.settings = path, secret, settings
        self.lock = threading.Lock()
        self.f = None

    def read(self) -> tuple[dict, dict]:
        """({(name, sha256): result}, {(name, sha256): starts without a result})."""
        done, starts = {}, {}
        try:
            if not self.path.is_file() or self.path.is_symlink() or self.path.stat().st_size > 256 << 20:
                return done, starts
            lines = self.path.read_bytes().split(b"\n")
        except OSError:
            return done, starts
        for line in lines:
            if len(line) > 4 << 20 or b" " not in line:
                continue
            mac, body = line.split(b" ", 1)
            if not hmac.compare_digest(mac, signing.mac(self.secret, "journal", body).encode()):
                continue
            try:
                e = json.loads(body)
                if e["settings"] != self.settings:
                    continue
                k = (str(e["name"]), str(e["sha256"]))
                if e["kind"] == "start":
                    starts[k] = starts.get(k, 0) + 1
                elif e["kind"] == "done" and _result_ok(e["result"]):
                    done[k] = e["result"]
            except (ValueError, KeyError, TypeError, RecursionError):
                continue
        return done, {k: n for k, n in starts.items() if k not in done}

    def write(self, kind: str, name: str, sha: str, result: dict | None = None) -> None:
        rec = {"settings": self.settings, "kind": kind, "name": name, "sha256": sha}
        if result is not None:
            rec["result"] = result
        body = json.dumps(rec, ensure_ascii=True).encode()
        line = signing.mac(self.secret, "journal", body).encode() + b" " + body + b"\n"
        with self.lock:
            try:
                if self.f is None:             # never through a link planted in its place
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
                    self.f = os.fdopen(fd, "ab")
                self.f.write(line)
                self.f.flush()
                os.fsync(self.f.fileno())
            except OSError:
                pass                       # no journal: the run goes on, it only cannot resume

    def close(self, remove: bool) -> None:
        if self.f is not None:
            self.f.close()
        if remove:
            self.path.unlink(missing_ok=True)


def _result_ok(r) -> bool:
    """A journaled result has the shape the grader writes (anything else is not replayed)."""
    if not isinstance(r, dict) or not isinstance(r.get("rows"), list):
        return False
    for row in r["rows"]:
        if not (isinstance(row, dict) and all(isinstance(row.get(k), str) for k in ("exercise", "part", "status", "message"))
                and all(type(row.get(k)) in (int, float) for k in ("score", "max_score"))):
            return False
    return isinstance(r.get("errors", []), list)


def _fail(total, status, detail="", errors=()) -> dict:
    return {"rows": [dict(exercise="", part="", score=0, max_score=total, status=status, message=detail or status)],
            "errors": list(errors)}


def grade_folder(folder: Path, set_name: str | None = None, limit: float = 60, jobs: int = 2,
                 roster: list[str] | None = None, seed: int | None = None, log=print, trusted: bool = False,
                 memory: int = sandbox.Limits.memory, out: Path | None = None, fresh: bool = False,
                 people: dict | None = None, lms: str | None = None, book_inputs: bool = False,
                 after_deadline: bool = False) -> list[dict]:
    from workbook.classroom import answer_key, variants

    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"grade: SUBMISSIONS={folder} is not a folder")
    if limit <= 0:
        raise SystemExit(f"grade: --timeout must be > 0 seconds; got {limit}")
    if lms not in (None, "canvas", "gradescope", "files"):
        raise SystemExit(f"grade: --lms is canvas, gradescope or files; got {lms!r}")
    key = answer_key.load()
    if set_name is not None and set_name not in key:
        raise SystemExit(f"grade: --set {set_name!r} is not an exercise set; known: {sorted(key)}")
    if not trusted:
        ok, why = sandbox.available()
        if not ok:
            raise SystemExit("grade: refusing to run submitted notebooks without a sandbox: " + why)
    out = Path(out) if out is not None else folder
    out.mkdir(parents=True, exist_ok=True)
    seed_given = seed is not None
    seed = seed if seed is not None else 0
    ids = Identities(roster, people)
    secret = signing.load_secret(create=True)
    allowed = untrusted.allowed_units([ex for exs in key.values() for ex in exs.values()])
    log = _console(log)
    h = sandbox.host() if not trusted else sandbox.Host(frozenset(), "")
    serial = not trusted and "cpu" not in h.cgroup
    jobs = 1 if serial else max(1, jobs)

    subs = find_submissions(folder, lms)
    if not subs:
        log(f"grade: no .ipynb files in {folder}")
    names = [s.name for s in subs]
    # first pass: what each file is and claims (read with bounds, nothing kept but the metadata)
    first: dict[str, dict] = {}
    for s in subs:
        first[s.name] = _look(s, secret)
    signed_sets = {f["set"] for f in first.values() if f.get("verified")
                   and (not seed_given or f["meta"].get("seed") == seed)}
    if roster is not None:
        sets_needed = {set_name} if set_name else {f["set"] for f in first.values() if f.get("verified")}
        for sname in sets_needed:
            for ex in key[sname].values():
                variants.assign(ex, roster, seed)          # before the pool: TooFewVariants stops the run here
    extra = (sorted(roster) if roster else None, lms, book_inputs, after_deadline, seed_given)
    settings = _settings(set_name, limit, roster, seed, trusted, memory, extra)
    journal = Journal(out / JOURNAL, secret, settings)
    done, stopped = ({}, {}) if fresh else journal.read()

    def total_of(s):
        return sum(a.points for ex in key.get(s, {}).values() for a in ex.answers.values())

    def one(sub: Submission, f: dict) -> dict:
        s = set_name or (f["set"] if f.get("verified") else None)
        fail = lambda *a, **k: {**_fail(total_of(s or set_name), *a, **k), "set": s}   # noqa: E731
        if sub.refused:
            return fail(*sub.refused)
        if f.get("status"):
            return fail(f["status"], f["detail"])
        meta, verified = f["meta"], f.get("verified", False)
        other = [x for x in [meta.get("exercise_set"), *f["named"]] if x in key and x != set_name]
        if set_name and other and set_name not in (meta.get("exercise_set"), *f["named"]):
            return fail(f"other-exercise-set ({other[0]})", f"this notebook belongs to {other[0]}, not {set_name}")
        if s is None:
            return fail("unknown-exercise-set", "no exercise set: none was given (SET=) and this notebook carries no "
                        "signed exercise set")
        student, how, problem = _identity(sub, meta, verified, ids, roster)
        base = {"set": s, "student": student, "identity": how}
        if problem:
            return {**fail(*problem), **base}
        recorded = meta if verified else None
        if recorded is not None and (roster is not None or seed_given) and recorded["seed"] != seed:
            return {**fail(f"variant-mismatch (notebook seed {recorded['seed']}, SEED={seed})",
                           f"this notebook was issued with seed {recorded['seed']}, but the class is graded with "
                           f"SEED={seed}: grade again with SEED={recorded['seed']} (nothing was graded against "
                           "the wrong inputs)"), **base}
        if roster is not None:
            src = "roster"
        elif recorded is not None:
            src = "signed"
        elif f["claims"] or (s in signed_sets and not book_inputs):
            return {**fail("unverified-variant", "this notebook's variant cannot be verified as one that was issued "
                                                 "(its variant metadata was changed or removed), so it is not graded "
                                                 "against any inputs; ask your instructor"), **base}
        else:
            src = "book"
        exs = key[s]
        part_names = [n for ex in exs.values() for n in ex.answers]
        if not part_names:
            return {"rows": [], "errors": [], **base}
        data = untrusted.read_file(sub.path)
        if _sha256(data) != f["sha256"]:
            return {**fail("changed-during-grading", "the file changed while the class was graded; grade it again"),
                    **base}
        nb, bad = read_submission(sub.path, data)
        del data
        if bad:
            return {**fail(bad, STATUS_TEXT.get(bad, bad)), **base}
        res = run(sub.name, nb, part_names)
        if "status" in res:
            # a timeout beside another sandbox is run again alone, unless it had its whole CPU share all along
            starved = res.get("cpu_seconds") is None or res["cpu_seconds"] < 0.8 * limit * sandbox.Limits.cpus
            return {**fail(res["status"], res.get("detail", ""), res.get("errors", ())), **base,
                    "overlapped": res.get("overlapped", False) and starved}

        def inputs_for(ex):
            if src == "roster":
                return variants.assign(ex, roster, seed)[student][0]
            if src == "signed":
                return variants.student_inputs(ex, student, recorded["seed"], recorded.get("draws", {}).get(ex.id, 0))
            return {}

        rows = judge_set(exs, res["values"], res["errors"], inputs_for, allowed, direction=after_deadline)
        return {"rows": rows, "errors": res["errors"], **base, "variant_from": src,
                "seed": seed if src == "roster" else (recorded or {}).get("seed")}

    active: set = set()
    overlapped: set = set()
    alock = threading.Lock()

    def run(name, nb, part_names):
        with alock:
            active.add(name)
            if len(active) > 1:
                overlapped.update(active)
        try:
            res = execute_submission(nb, part_names, limit, trusted=trusted, memory=memory)
        finally:
            with alock:
                active.discard(name)
        res["overlapped"] = name in overlapped
        return res

    def safe(sub: Submission) -> tuple[dict, bool]:
        f = first[sub.name]
        k = (sub.name, f.get("sha256", ""))
        if k in done:
            return done[k], True
        if stopped.get(k, 0) >= 2:
            r = _fail(total_of(set_name), "grader-error", "the grader stopped twice while grading this submission; "
                      "it is not tried a third time")
        else:
            journal.write("start", *k)
            try:
                r = one(sub, f)
            except untrusted.Rejected as rj:
                r = _fail(total_of(set_name), rj.status, rj.detail)
            except Exception as exc:  # noqa: BLE001 - one submission never stops the run
                log(f"grader error on {untrusted.display_name(sub.name)}: "
                    + "".join(traceback.format_exception_only(type(exc), exc)).strip()[:300])
                r = _fail(total_of(set_name), "grader-error", f"the grader failed on this submission "
                          f"({type(exc).__name__}); the instructor's console has the error")
        if not (r.get("overlapped") and _status(r) == "timeout"):
            journal.write("done", *k, r)
        return r, False

    results: list[tuple[Submission, dict]] = []
    t0 = time.monotonic()
    reused = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for sub, (r, old) in zip(subs, pool.map(safe, subs)):
            results.append((sub, r))
            reused += old
            if not (r.get("overlapped") and _status(r) == "timeout"):
                log(_line(sub, r, old))
    retried = 0
    for i, (sub, r) in enumerate(results):   # timed out beside another sandbox: once more, alone
        if r.get("overlapped") and _status(r) == "timeout":
            retried += 1
            f = first[sub.name]
            try:
                r2 = one(sub, f)
            except Exception as exc:  # noqa: BLE001
                r2 = _fail(total_of(set_name), "grader-error", f"the grader failed on this submission ({type(exc).__name__})")
            r2["retried_alone"] = True
            r2.pop("overlapped", None)
            journal.write("done", sub.name, f.get("sha256", ""), r2)
            results[i] = (sub, r2)
            log(_line(sub, r2, False) + " [run again alone after a timeout beside another submission]")
    changed = []
    for i, (sub, r) in enumerate(results):   # the originals were never written; say so if someone else did
        if sub.refused or first[sub.name].get("sha256") is None:
            continue
        try:
            now = _sha256(untrusted.read_file(sub.path))
        except untrusted.Rejected:
            now = None
        if now != first[sub.name]["sha256"]:
            changed.append(untrusted.display_name(sub.name))
            results[i] = (sub, {**r, **_fail(total_of(r.get("set") or set_name), "changed-during-grading",
                                             "the file changed while the class was graded; grade it again")})
    docs = [dict(name=sub.name, **r) for sub, r in results]
    wrote = _write_all(out, docs, set_name, key, roster, people or {}, log)
    journal.close(remove=wrote)
    _notes(docs, roster, seed_given, log)
    how = "without isolation (--trusted)" if trusted else f"each in its own sandbox ({sandbox.available()[1]})"
    if serial:
        how += ", one at a time (no CPU share for concurrent sandboxes on this host)"
    n_issued = sum(1 for d in docs if d.get("identity") == "issued")
    log(f"graded {len(subs)} submission(s) of {set_name or 'the sets their notebooks name'} {how} in "
        f"{time.monotonic() - t0:.1f} s" + (f", {reused} from the interrupted run" if reused else "")
        + (f", {retried} run again alone after a timeout" if retried else "") + f" -> {out / 'grades.csv'}; "
        + (f"CHANGED while grading: {', '.join(changed)}" if changed else
           f"all {len(subs)} submitted file(s) unchanged (sha256)")
        + (f"; {n_issued} student(s) named by their notebooks' signed metadata (not by an LMS export: who "
           "uploaded each file is not verified)" if n_issued and roster is not None else ""))
    return [dict(submission=untrusted.display_name(d["name"]), **{k: row[k] for k in COLUMNS[1:]})
            for d in docs for row in d["rows"]]


def _look(sub: Submission, secret: bytes) -> dict:
    """What a file is (its sha256, its status if it cannot be graded) and what its metadata claims."""
    if sub.refused:
        return {"status": sub.refused[0], "detail": sub.refused[1]}
    try:
        data = untrusted.read_file(sub.path)
    except untrusted.Rejected as r:
        return {"status": r.status, "detail": r.detail}
    sha = _sha256(data)
    try:
        with _PARSE:
            nb = untrusted.notebook(data)
    except untrusted.Rejected as r:
        return {"status": r.status, "detail": r.detail, "sha256": sha}
    finally:
        del data
    verified = signing.verify_variant(secret, nb.meta)
    return {"sha256": sha, "meta": nb.meta, "claims": nb.claims_variant, "verified": verified,
            "set": nb.meta.get("exercise_set"), "named": list(nb.named_sets)}


def _identity(sub: Submission, meta: dict, verified: bool, ids: Identities, roster):
    """(student, how: "lms" | "issued" | None, problem (status, detail) or None)."""
    issued = meta.get("student") if verified else None
    if roster is None:
        return issued, ("issued" if issued else None), None
    known = set(ids.ids)
    if sub.canvas is not None or sub.submitters:
        found = [ids.from_canvas(sub.canvas)] if sub.canvas is not None else \
            [ids.from_gradescope(p) for p in sub.submitters]
        found = [x for x in found if x]
        if not found:
            return None, None, ("unknown-student", "its uploader, as the LMS export names them, is not in the roster")
        if issued is not None and issued not in found:
            return found[0], "lms", ("identity-conflict", "the notebook was issued to another student than the one "
                                                          "who uploaded it: not graded (grade it by hand if that is right)")
        return found[0], "lms", None
    if issued is None or issued not in known:
        return None, None, ("unknown-student", "no roster student: the notebook carries no signed variant metadata "
                                               "naming one (and a file name is not an identity)")
    head = sub.name.rsplit("/", 1)[-1].split("__")[0]
    if head in known and head != issued:
        return issued, "issued", ("identity-conflict", "the file is named for another student than the one it was "
                                                       "issued to: not graded (grade it by hand if that is right)")
    return issued, "issued", None


def _status(r: dict) -> str:
    return r["rows"][0]["status"] if len(r.get("rows", [])) == 1 and not r["rows"][0]["part"] else ""


def _line(sub: Submission, r: dict, old: bool) -> str:
    n_ok = sum(row["score"] for row in r["rows"])
    return (f"{untrusted.display_name(sub.name)}: {n_ok:g}/{sum(row['max_score'] for row in r['rows']):g} "
            f"({', '.join(sorted({row['status'] for row in r['rows']})) or 'no graded parts'})"
            + (" [from the interrupted run]" if old else ""))


def _console(log):
    """``log`` with every line made safe for a terminal (no escape sequence, no control character)."""
    def out(line):
        log(untrusted.console(line))
    return out


def _notes(docs, roster, seed_given, log) -> None:
    signed = [d for d in docs if d.get("variant_from") == "signed"]
    if roster is None and docs:
        seeds = sorted({d.get("seed") for d in signed}, key=str)
        log("NOTE: no ROSTER= given: identities are unverified (who uploaded each file is not known; the gradebooks "
            "list the student a signed variant was issued to, else the file name)"
            + (f"; {len(signed)} variant notebook(s) were graded against the variant each was issued (signed "
               f"metadata; seed(s) {', '.join(map(str, seeds))})" if signed else "")
            + ". Pass ROSTER= (and the LMS export) to grade each uploader against their own variant"
            + ("" if seed_given or not signed else ", and SEED= to refuse notebooks of another seed"))
    unverified = [d for d in docs if _status(d) == "unverified-variant"]
    if unverified:
        log(f"NOTE: {len(unverified)} notebook(s) got unverified-variant: their variant metadata does not verify with "
            f"the instructor's secret ({signing.ENV} or the default secret file), or they carry none beside signed "
            "variants of their set. If this class answered the book's own notebooks, grade with --book-inputs; if "
            "the variants were issued on another machine, use its secret file")


# ----------------------------------------------------------------------------- writing the outputs

def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, then a rename."""
    fd, tmp = tempfile.mkstemp(prefix=".wb-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _csv(rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([untrusted.csv_cell(c) for c in row])
    return buf.getvalue()


def _write_all(out: Path, docs: list[dict], set_name, key, roster, people, log) -> bool:
    """grades.csv, the feedback and the gradebooks, each on its own: one that fails never stops the others."""
    ok = True
    for what, fn in (("grades.csv and feedback", lambda: write_outputs(out, docs, set_name)),
                     ("gradebooks", lambda: write_gradebooks(out, docs, set_name, key, roster, people))):
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - say so, write the rest
            ok = False
            log(f"grade: could not write the {what}: {type(exc).__name__}: {exc}")
    return ok


def _feedback(d: dict) -> str:
    name = untrusted.display_name(d["name"])
    score = sum(row["score"] for row in d["rows"])
    top = sum(row["max_score"] for row in d["rows"])
    q = untrusted.md_code
    lines = [f"# Feedback: {q(name)}", "",
             (f"Exercise set {q(d['set'])}" if d.get("set") else "No exercise set")
             + (f", variant of student {q(d['student'])}" if d.get("student") else "")
             + f". Score: **{_num(score)} / {_num(top)}**.", ""]
    if d.get("variant_from") == "signed":
        lines += [f"Graded against the variant issued to student {q(d['student'])} (seed {_num(d.get('seed'))}; its "
                  "signed metadata checks): no roster was given.", ""]
    if any(row["status"] == "book-inputs" for row in d["rows"]):
        lines += ["Some answers match the book's inputs, not your variant's: redo them with the inputs in "
                  "your exercise card.", ""]
    for row in d["rows"]:
        lines.append(f"- {row['message']}" + (f": {q(row['quote'])}" if row.get("quote") is not None else ""))
    if d.get("errors"):
        lines += ["", "Cells that raised an error while your notebook ran (the messages are your notebook's):", ""]
        lines += [f"- cell {int(e['cell'])}: {error_name(e['ename'])}: {q(e['evalue'])}" for e in d["errors"][:50]]
    return "\n".join(lines) + "\n"


def _own_dir(path: Path) -> Path:
    """``path`` as a real folder: a link or file found in its place is moved aside, never written through."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.rename(path.with_name(f"{path.name}.not-a-folder-{time.time_ns()}"))
    path.mkdir(exist_ok=True)
    return path


def write_outputs(folder: Path, results: list[dict], set_name: str | None) -> None:
    """``grades.csv`` (written whatever else fails) and ``feedback/<stem>.md`` per submission."""
    rows = [COLUMNS]
    failed = []
    try:
        fb = _own_dir(folder / "feedback")
    except OSError:
        fb, failed = None, ["all"]
    for d in results:
        name = untrusted.display_name(d["name"])
        for row in d["rows"]:
            rows.append([name, row["exercise"], row["part"], _num(row["score"]), _num(row["max_score"]), row["status"]])
        if fb is None:
            continue
        try:
            _write_atomic(fb / f"{untrusted.output_stem(d['name'])}.md", _feedback(d))
        except Exception:  # noqa: BLE001 - its feedback is missing; the grades are still written
            failed.append(name)
    _write_atomic(folder / "grades.csv", _csv(rows))
    if failed:
        raise OSError(f"feedback not written for {len(failed)} submission(s): {', '.join(failed[:5])}")


def _students_of(d: dict) -> list[str]:
    return [d["student"]] if d.get("student") else [untrusted.display_name(d["name"]).removesuffix(".ipynb")]


def write_gradebooks(folder: Path, results: list[dict], set_name: str | None, key: dict,
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

    One row per student: the best-scoring submission of each student and set when several are
    handed in (a roster's students with no submission get empty cells); without a roster, one per
    submission. Every cell passes the formula neutraliser."""
    sets = [set_name] if set_name else sorted({d["set"] for d in results if d.get("set") in key})
    cols, points = [], {}
    for s in sets:
        exs = key.get(s, {})
        for e in exs:
            points[(s, e)] = sum(a.points for a in exs[e].answers.values())
            cols.append((s, e))
        points[(s, None)] = sum(points[(s, e)] for e in exs)
        cols.append((s, None))
    best: dict[tuple, dict] = {}
    for d in results:
        for sid in _students_of(d):
            k = (sid, d.get("set") or set_name)
            score = sum(row["score"] for row in d["rows"])
            if k not in best or score > sum(row["score"] for row in best[k]["rows"]):
                best[k] = d
    order = list(roster) if roster else sorted({sid for sid, _ in best})
    head = [f"{s or 'grades'} {e}" if e else f"{s or 'grades'} total" for s, e in cols]

    def cells(sid):
        out = []
        for s, e in cols:
            d = best.get((sid, s))
            if d is None:
                out.append("")
                continue
            got = [row["score"] for row in d["rows"] if e is None or row["exercise"] == e]
            out.append(_num(sum(got)) if e is None else _num(float(sum(got))))
        return out

    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *head],
            ["Points Possible", "", "", "", "", *[_num(points[c]) for c in cols]]]
    for sid in order:
        pp = people.get(sid, {})
        rows.append([pp.get("name") or sid, pp.get("canvas_id", ""), pp.get("sis_id") or sid,
                     pp.get("email", ""), pp.get("section", ""), *cells(sid)])
    _write_atomic(folder / "gradebook_canvas.csv", _csv(rows))
    rows = [["ID number", "Email address", "Full name", *head]]
    for sid in order:
        pp = people.get(sid, {})
        rows.append([sid, pp.get("email", ""), pp.get("name", ""), *cells(sid)])
    _write_atomic(folder / "gradebook_moodle.csv", _csv(rows))
    gs = _own_dir(folder / "gradescope")
    p = untrusted.plain
    for d in results:
        tests = [{"name": f"Exercise {row['exercise']}, {row['part']}" if row["exercise"] else "notebook",
                  "number": row["exercise"] or "", "score": row["score"], "max_score": row["max_score"],
                  "status": "passed" if row["status"] == "correct" else "failed",
                  "output": p(row["message"] + (f": {row['quote']}" if row.get("quote") is not None else ""), 600),
                  "output_format": "text", "visibility": "visible"} for row in d["rows"]]
        doc = {"score": sum(row["score"] for row in d["rows"]),
               "output": f"Exercise set {d.get('set') or set_name}" + (f", student {d['student']}" if d.get("student") else ""),
               "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}
        _write_atomic(gs / f"{untrusted.output_stem(d['name'])}.json", json.dumps(doc, indent=1, ensure_ascii=True) + "\n")


# ----------------------------------------------------------------------------- sample submissions

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
    ap.add_argument("folder", help="the folder of submitted .ipynb files (or an LMS export of them)")
    ap.add_argument("--set", default=None, help="the exercise set, e.g. ch28/ex28_09_10 (default: each notebook's "
                                                "signed one)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per submission (default 60)")
    ap.add_argument("--jobs", type=int, default=2, help="submissions run at once (default 2)")
    ap.add_argument("--roster", default=None, help="roster CSV: grade each student against their own variant")
    ap.add_argument("--seed", type=int, default=None, help="the seed the variants were issued with (default 0 with a "
                                                           "roster; without one, any signed seed)")
    ap.add_argument("--lms", choices=("canvas", "gradescope", "files"), default=None,
                    help="where FOLDER comes from: canvas (Download Submissions: the uploader is in each file name); "
                         "a Gradescope export is recognised by its submission_metadata.yml")
    ap.add_argument("--memory", type=float, default=2, help="memory cap per submission, GiB (default 2)")
    ap.add_argument("--out", default=None, help="where grades.csv and feedback/ go (default: the folder)")
    ap.add_argument("--fresh", action="store_true", help="ignore what an interrupted run already graded")
    ap.add_argument("--book-inputs", action="store_true",
                    help="without a roster: grade notebooks without variant metadata against the book's inputs even "
                         "beside signed variants")
    ap.add_argument("--after-deadline", action="store_true",
                    help="the deadline has passed: feedback may say 'too large' / 'too small'")
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
                 people=people, lms=None if a.lms in (None, "files") else a.lms, book_inputs=a.book_inputs,
                 after_deadline=a.after_deadline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
