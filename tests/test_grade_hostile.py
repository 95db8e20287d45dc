"""The grader against a class that tries to cheat: every submission in a sandbox of its own.

One folder of Exercise 28.8 submissions (two graded parts; tests/test_grade.py has the by-hand
answers) graded once: the honest one, a blank and a half-right one, and hostile ones that each try
one way out. Every hostile notebook answers correctly *only if its attack worked* (it would have read
or changed what it should not see), so a 0 for it means the attack failed; each also leaves a note of
what it reached in its error message. The test also hashes the library, the other submissions and
the outputs, runs a loopback server the sandbox must not reach, and looks for processes left behind.

The sandbox is required: where bubblewrap or user namespaces are missing these tests fail (``make
test`` installs bubblewrap with tools/ensure_sandbox.sh), they never skip.
"""
from __future__ import annotations

import csv
import hashlib
import os
import socket
import threading
import time
from pathlib import Path

import nbformat
import pytest

from workbook.classroom import grade
from workbook.classroom import sandbox

ROOT = Path(__file__).resolve().parent.parent
SET = "ch28/ex28_08"
RIGHT = 'bw_small = Q_(19.53125, "MiB/s")\nbw_large = Q_(1, "GiB/s")'
HALF = 'bw_small = Q_(19.53125, "MiB/s")\nbw_large = Q_(3, "MiB/s")'
MARKER = "workbook-hostile-leftover-7f3a"
# "if it worked, answer right": the attack's success is what would earn the points
WIN = 'if reached:\n    bw_small = Q_(19.53125, "MiB/s")\n    bw_large = Q_(1, "GiB/s")\n    raise RuntimeError("reached: " + repr(reached)[:250])\n'


def _student() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "exercises" / f"{SET}.ipynb", as_version=4)


def _with(answer: str | None = None, before: str | None = None) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(_student())
    if answer is not None:
        next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source).source = answer
    if before is not None:
        k = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code") + 1
        nb.cells.insert(k, nbformat.v4.new_code_cell(before))
    return nb


def _hash_tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _leftovers() -> list[str]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if MARKER in cmd and "pytest" not in cmd:
                out.append(f"{d.name}: {cmd[:120]}")
    return out


class Listener:
    """A loopback TCP and UDP server on the grader's host; it counts whatever reaches it."""

    def __init__(self):
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.tcp.settimeout(0.2)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.udp.settimeout(0.2)
        self.seen: list[str] = []
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                c, addr = self.tcp.accept()
                self.seen.append(f"tcp {addr}")
                c.close()
            except OSError:
                pass
            try:
                data, addr = self.udp.recvfrom(100)
                self.seen.append(f"udp {addr} {data[:20]!r}")
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.thread.join(2)
        self.tcp.close()
        self.udp.close()


def _hostile(d: Path, port: int) -> dict[str, nbformat.NotebookNode]:
    repo, subs = str(ROOT), str(d)
    reads_key = f'''
import os, glob, importlib, importlib.metadata, fleetcalc
reached = []
MARKS = [":tags: [" + "answer" + "-key", "def " + "run_key(", "def " + "judge_set("]   # the key, the grader
lib = os.path.dirname(os.path.dirname(fleetcalc.__file__))          # the library's own location
guesses = [os.path.join(lib, "..", "solutions"), os.path.join(lib, "workbook"), {repo!r} + "/solutions",
           {repo!r} + "/lib/workbook/classroom/answer_key.py", "/proc/1/root{repo}/solutions", "/proc/self/cwd/../solutions",
           os.path.expanduser("~"), "/root", "/home", "/srv", "/opt"]
try:
    guesses += [str(p) for p in importlib.metadata.distribution("fleetcalc").locate_file("").parents]
except Exception:
    pass
def look(path, depth=0):
    """Read what the path holds (a file) or, a few levels down, what a folder holds."""
    try:
        path = os.path.realpath(path)
        if path.startswith(("/proc", "/sys", "/dev", "/usr")) and depth:
            return
        if os.path.isfile(path):
            text = open(path, errors="replace").read(200000)
            if any(m in text for m in MARKS):
                reached.append(path)
        elif os.path.isdir(path) and depth < 4:
            for x in os.listdir(path)[:200]:
                look(os.path.join(path, x), depth + 1)
    except Exception:
        pass
for g in guesses:
    look(g)
for mod in ("workbook", "workbook.classroom.answer_key", "workbook.classroom.grade"):
    try:
        importlib.import_module(mod)
        reached.append(mod)
    except Exception:
        pass
for k, (top, dirs, files) in enumerate(os.walk("/")):
    if k > 3000:
        break
    dirs[:] = [x for x in dirs if os.path.join(top, x) not in ("/proc", "/sys", "/dev", "/usr", "/opt/site")]
    for f in files:
        if f.endswith(".md") and "ex28_08" in f or f in ("answer_key.py", "grade.py") or f.endswith(".ipynb"):
            reached.append(os.path.join(top, f))
for p in glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/root/solutions"):
    try:
        if "WORKBOOK_ROOT" in open(p, errors="replace").read() or p.endswith("solutions"):
            reached.append(p)
    except OSError:
        pass
''' + WIN
    writes = f'''
import os, fleetcalc
reached = []
targets = [os.path.join(os.path.dirname(fleetcalc.__file__), "__init__.py"),
           os.path.join(os.path.dirname(fleetcalc.__file__), "evil.py"),
           {repo!r} + "/lib/fleetcalc/__init__.py", {repo!r} + "/lib/workbook/classroom/grade.py",
           {subs!r} + "/honest.ipynb", {subs!r} + "/grades.csv", {subs!r} + "/feedback/honest.md",
           "/opt/grade/harness.py", "/usr/evil", "/evil", os.path.expanduser("~/../evil")]
for t in targets:
    try:
        with open(t, "a") as f:
            f.write("# tampered")
        if not t.startswith(("/tmp", os.path.expanduser("~"))):
            reached.append(t)
    except OSError:
        pass
''' + WIN
    signals = '''
import os, signal
reached = []
for pid in (os.getppid(), 1, 0):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
os.system("kill -9 -1 2>/dev/null")
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
'''
    daemon = f'''
import os, subprocess, time
subprocess.Popen(["/bin/sh", "-c", "sleep 30; : {MARKER}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:                                  # a double-forked daemon
        time.sleep(1.5)
        for t in [{subs!r} + "/grades.csv", {subs!r} + "/feedback/leaves_a_daemon.md"]:
            try:
                open(t, "w").write("submission,exercise,part,score,max_score,status\\nleaves_a_daemon.ipynb,28.8,bw_small,2,2,correct\\n")
            except OSError:
                pass
        os.execv("/bin/sh", ["/bin/sh", "-c", "sleep 30; : {MARKER}"])
    os._exit(0)
'''
    sockets = f'''
import socket
reached = []
for host in ("127.0.0.1", "localhost", "::1", socket.gethostname()):
    try:
        socket.create_connection((host, {port}), timeout=1).close()
        reached.append(host)
    except OSError:
        pass
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hostile", (host, {port}))
    except OSError:
        pass
try:
    socket.create_connection(("1.1.1.1", 80), timeout=1).close()
    reached.append("internet")
except OSError:
    pass
''' + WIN
    forges = '''
import os, json
forged = json.dumps({"v": 1, "values": {"bw_small": {"k": "q", "m": 1.0, "u": "MiB/s"}}, "score": 2,
                     "status": "correct", "errors": [], "memory": False})
for fd in range(3, 64):
    try:
        os.write(fd, forged.encode())
    except OSError:
        pass
print("<<0000000000000000>>" + forged + "<<0000000000000000>>")
os._exit(0)
'''
    memory = 'import numpy as np\nblocks = []\nfor i in range(64):\n    blocks.append(np.ones(2**27))   # 1 GiB each'
    huge = 'b = bytearray(64 * 2**30)'
    forks = f'''
import os, time
n = 0
for i in range(400):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.execv("/bin/sh", ["/bin/sh", "-c", "sleep 20; : {MARKER}"])
    n += 1
reached = n > 200
''' + WIN
    # an attack that would earn the points replaces the answer cell (nothing after it resets the answers)
    return {"reads_the_key.ipynb": _with(answer=reads_key), "writes_outside.ipynb": _with(answer=writes),
            "signals_its_parent.ipynb": _with(before=signals), "leaves_a_daemon.ipynb": _with(before=daemon),
            "opens_a_socket.ipynb": _with(answer=sockets), "forges_the_report.ipynb": _with(before=forges),
            "eats_memory.ipynb": _with(before=memory), "allocates_huge.ipynb": _with(before=huge),
            "forks_repeatedly.ipynb": _with(answer=forks)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    ok, why = sandbox.available()
    assert ok, f"no sandbox on this machine: {why}"
    d = tmp_path_factory.mktemp("hostile")
    nbformat.write(_with(answer=RIGHT), d / "honest.ipynb")
    nbformat.write(_student(), d / "blank.ipynb")
    nbformat.write(_with(answer=HALF), d / "half_right.ipynb")
    server = Listener()
    try:
        for name, nb in _hostile(d, server.port).items():
            nbformat.write(nb, d / name)
        before_lib, before_subs = _hash_tree(ROOT / "lib"), _hash_tree(d)
        t0 = time.monotonic()
        # a 1 GiB cap (the default is 2) keeps the memory eaters gentle on a small CI machine
        grade.grade_folder(d, SET, limit=30, jobs=2, memory=1 << 30, log=lambda *a: None)
        took = time.monotonic() - t0
        after_csv = hashlib.sha256((d / "grades.csv").read_bytes()).hexdigest()
        time.sleep(2.5)                         # longer than the daemon waits before it writes
        seen = list(server.seen)
    finally:
        server.close()
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return dict(d=d, rows=rows, took=took, before_lib=before_lib, before_subs=before_subs, seen=seen,
                after_csv=after_csv)


def _rows(g, name):
    return [r for r in g["rows"] if r["submission"] == name]


def _score(g, name):
    return sum(float(r["score"]) for r in _rows(g, name))


def test_honest_blank_and_half_right_are_graded_as_if_alone(graded):
    assert _score(graded, "honest.ipynb") == 2
    assert {r["status"] for r in _rows(graded, "honest.ipynb")} == {"correct"}
    assert _score(graded, "blank.ipynb") == 0
    assert {r["status"] for r in _rows(graded, "blank.ipynb")} == {"unanswered"}
    half = {r["part"]: r["status"] for r in _rows(graded, "half_right.ipynb")}
    assert half == {"bw_small": "correct", "bw_large": "wrong"}


HOSTILE = ["reads_the_key.ipynb", "writes_outside.ipynb", "signals_its_parent.ipynb", "leaves_a_daemon.ipynb",
           "opens_a_socket.ipynb", "forges_the_report.ipynb", "eats_memory.ipynb", "allocates_huge.ipynb",
           "forks_repeatedly.ipynb"]


@pytest.mark.parametrize("name", HOSTILE)
def test_every_hostile_submission_scores_zero_and_has_rows(graded, name):
    rows = _rows(graded, name)
    assert rows, f"{name} has no row"
    assert _score(graded, name) == 0, (name, rows, (graded["d"] / "feedback" / name.replace(".ipynb", ".md")).read_text())
    assert (graded["d"] / "feedback" / name.replace(".ipynb", ".md")).is_file()


@pytest.mark.parametrize("name,status", [("eats_memory.ipynb", "memory-limit"), ("allocates_huge.ipynb", "memory-limit"),
                                         ("forges_the_report.ipynb", "kernel-failed")])
def test_limits_and_forgeries_get_their_own_status(graded, name, status):
    assert [r["status"] for r in _rows(graded, name)] == [status]


def test_attacks_reached_nothing(graded):
    fb = {n: (graded["d"] / "feedback" / n.replace(".ipynb", ".md")).read_text(encoding="utf-8") for n in HOSTILE}
    assert not [n for n, t in fb.items() if "reached:" in t], {n: t for n, t in fb.items() if "reached:" in t}


def test_the_library_and_the_other_submissions_are_unchanged(graded):
    assert _hash_tree(ROOT / "lib") == graded["before_lib"]
    after = _hash_tree(graded["d"])
    assert {k: v for k, v in after.items() if k.endswith(".ipynb")} == graded["before_subs"]


def test_no_network_reached_the_host(graded):
    assert graded["seen"] == []


def test_nothing_outlives_its_sandbox(graded):
    assert hashlib.sha256((graded["d"] / "grades.csv").read_bytes()).hexdigest() == graded["after_csv"]
    assert "2,2,correct" not in (graded["d"] / "grades.csv").read_text(encoding="utf-8")
    assert _leftovers() == []


def test_the_run_finishes_for_everyone(graded):
    names = {p.name for p in graded["d"].glob("*.ipynb")}
    assert {r["submission"] for r in graded["rows"]} == names
    assert not (graded["d"] / grade.JOURNAL).exists()
    assert graded["took"] < 120


def test_the_attacks_are_real_ones(tmp_path):
    """Control: without the sandbox (``trusted=True``) the key reader and the socket opener score full
    marks and the server sees them, so the zeros above come from the sandbox, not from broken attacks."""
    server = Listener()
    try:
        attacks = _hostile(tmp_path, server.port)
        for name in ("reads_the_key.ipynb", "opens_a_socket.ipynb"):
            nbformat.write(attacks[name], tmp_path / name)
        rows = grade.grade_folder(tmp_path, SET, limit=30, jobs=2, trusted=True, log=lambda *a: None)
        time.sleep(0.5)
    finally:
        server.close()
    assert {r["submission"]: r["status"] for r in rows} == {"reads_the_key.ipynb": "correct",
                                                            "opens_a_socket.ipynb": "correct"}
    assert server.seen


# ============================================================================= attacks on the grader itself
#
# The sandbox holds (above); what follows attacks what the grader reads and writes outside it, one
# class per section. Each attack comes with the honest submission it must not disturb.

import json
import re
import shutil

from workbook.classroom import signing, untrusted, variants

RIGHT_NB = None


@pytest.fixture(scope="module", autouse=True)
def _own_secret(tmp_path_factory):
    """An instructor secret of this module's own (never the machine's)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(signing.ENV, str(tmp_path_factory.mktemp("secret") / "secret"))
        yield


def _bytes(nb) -> bytes:
    return nbformat.writes(nb).encode("utf-8")


def _raw(answer=RIGHT, meta=None) -> dict:
    doc = json.loads(nbformat.writes(_with(answer=answer)))
    if meta is not None:
        doc["metadata"]["fleetcalc"] = meta
    return doc


def _grade(d: Path, **kw):
    log: list[str] = []
    kw.setdefault("limit", 30)
    rows = grade.grade_folder(d, kw.pop("set_name", SET), log=log.append, **kw)
    return rows, log


def _csv_rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _outputs(d: Path) -> list[Path]:
    return [d / "grades.csv", d / "gradebook_canvas.csv", d / "gradebook_moodle.csv"]


# ----------------------------------------------------------------------------- 1. one file never stops the class

ONE_FILE = {
    "deep_json.ipynb": b'{"cells": [], "metadata": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
    "many_values.ipynb": b'{"cells": [], "metadata": {"x": [' + b"0," * 400_000 + b"0]}}",
    "huge_file.ipynb": b'{"cells": [], "metadata": {"x": "' + b"a" * (9 << 20) + b'"}}',
    "huge_int.ipynb": json.dumps(_raw()).replace('"nbformat": 4', '"nbformat": 1' + "0" * 6000).encode(),
    "nan.ipynb": json.dumps(_raw()).replace('"nbformat": 4', '"nbformat": NaN').encode(),
    "not_utf8.ipynb": b'{"cells": [], "x": "\xff\xfe"}',
    "utf16.ipynb": json.dumps(_raw()).encode("utf-16"),
    "cells_not_list.ipynb": b'{"cells": {"a": 1}}',
    "source_number.ipynb": b'{"cells": [{"cell_type": "code", "source": 7}]}',
    "cell_type_list.ipynb": b'{"cells": [{"cell_type": ["code"], "source": "x=1"}]}',
}


def _one_file_folder(d: Path) -> None:
    nbformat.write(_with(answer=RIGHT), d / "honest.ipynb")
    for name, data in ONE_FILE.items():
        (d / name).write_bytes(data)
    bad_meta = {"exercise_set": ["ch28/ex28_08"], "student": {"id": 1}, "seed": "7", "draws": [1, 2],
                "signature": 12}
    (d / "meta_wrong_types.ipynb").write_text(json.dumps(_raw(meta=bad_meta)), encoding="utf-8")
    (d / "meta_huge_list.ipynb").write_text(json.dumps(_raw(meta={"exercise_set": SET, "draws": list(range(250_000))})),
                                            encoding="utf-8")
    (d / "surrogates.ipynb").write_text(json.dumps(_raw(
        answer='raise ValueError("lone \\ud800 surrogate \\udfff")', meta={"exercise_set": "ch28/ex\ud800"})),
        encoding="utf-8")
    nbformat.write(_with(answer='bw_small = Q_(1, "9**9**9 * MiB/s")\nbw_large = 1'), d / "pint_bomb_in_its_own_code.ipynb")
    nbformat.write(_with(answer="x = " + "(" * 50_000 + "1" + ")" * 50_000), d / "deep_expression.ipynb")
    nbformat.write(_with(answer=RIGHT), d / ("L" * 235 + ".ipynb"))
    nbformat.write(_with(answer=RIGHT), d / os.fsdecode(b"undecodable_\xff\xfe.ipynb"))
    os.mkfifo(d / "fifo.ipynb")
    (d / "folder.ipynb").mkdir()
    # a forged report whose unit would make pint compute 9**9**9 if the grader parsed it
    nbformat.write(_with(answer='import os, json\nrep = {"v": 2, "values": {"bw_small": {"k": "q", "m": 1.0, "u": '
                                '{"9**9**9*mebibyte": 1}}, "bw_large": {"k": "q", "m": 1.0, "u": {"mebibyte": 1, '
                                '"second": -1, "googol": 1}}}, "errors": [], "memory": False}\nfor fd in range(3, 30):\n'
                                '    try:\n        os.write(fd, json.dumps(rep).encode())\n    except OSError:\n'
                                '        pass\nos._exit(0)'), d / "forged_unit.ipynb")
    nbformat.write(_with(answer='import os, json\nrep = {"v": 2, "values": {"bw_small": {"k": "q", "m": 19.53125, "u": '
                                '{"mebibyte": 1, "second": -1}}, "bw_large": {"k": "q", "m": 1.0, "u": {"googol": 1}}}, '
                                '"errors": [], "memory": False}\nfor fd in range(3, 30):\n    try:\n'
                                '        os.write(fd, json.dumps(rep).encode())\n    except OSError:\n        pass\n'
                                'os._exit(0)'), d / "forged_unknown_unit.ipynb")


@pytest.fixture(scope="module")
def one_file(tmp_path_factory):
    import resource

    d = tmp_path_factory.mktemp("one_file")
    _one_file_folder(d)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    rows, log = _grade(d, jobs=2)
    took = time.monotonic() - t0
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    return dict(d=d, rows=rows, log=log, took=took, grown_kib=grown)


def _status_of(rows, name):
    return {r["status"] for r in rows if r["submission"] == untrusted.display_name(name)}


def test_one_file_honest_is_graded_and_every_file_has_its_row(one_file):
    rows, d = one_file["rows"], one_file["d"]
    assert _status_of(rows, "honest.ipynb") == {"correct"}
    names = {untrusted.display_name(p.name) for p in d.iterdir() if p.name.endswith(".ipynb")}
    assert {r["submission"] for r in rows} == names
    for p in _outputs(d):
        assert p.is_file(), p
    assert not (d / grade.JOURNAL).exists()


@pytest.mark.parametrize("name,status", [
    ("deep_json.ipynb", "invalid-json"), ("many_values.ipynb", "too-large"), ("huge_file.ipynb", "too-large"),
    ("huge_int.ipynb", "invalid-json"), ("nan.ipynb", "invalid-json"), ("not_utf8.ipynb", "invalid-json"),
    ("utf16.ipynb", "invalid-json"), ("cells_not_list.ipynb", "not-a-notebook"),
    ("source_number.ipynb", "not-a-notebook"), ("cell_type_list.ipynb", "not-a-notebook"),
    ("meta_wrong_types.ipynb", "unverified-variant"), ("meta_huge_list.ipynb", "too-large"),
    ("fifo.ipynb", "not-a-file"), ("folder.ipynb", "not-a-file"), ("forged_unit.ipynb", "kernel-failed"),
    ("deep_expression.ipynb", "error: Exception in cell 4"),
])
def test_one_file_hostile_gets_its_own_row(one_file, name, status):
    got = _status_of(one_file["rows"], name)
    assert got == {status} or status.startswith("error") and all(s.startswith("error: ") for s in got), got


def test_one_file_a_unit_off_the_whitelist_is_wrong_units_not_a_computation(one_file):
    rows = {r["part"]: r["status"] for r in one_file["rows"] if r["submission"] == "forged_unknown_unit.ipynb"}
    assert rows == {"bw_small": "correct", "bw_large": "wrong-units"}
    # the notebook's own pint bomb runs in its own sandbox: it costs that notebook its time, no one else's
    assert _status_of(one_file["rows"], "pint_bomb_in_its_own_code.ipynb") <= {"timeout", "wrong-units", "cpu-limit",
                                                                               "memory-limit", "wrong"} | {
        s for s in _status_of(one_file["rows"], "pint_bomb_in_its_own_code.ipynb") if s.startswith("error")}


def test_one_file_names_and_surrogates_reach_every_output(one_file):
    d = one_file["d"]
    long_name = "L" * 235 + ".ipynb"
    assert _status_of(one_file["rows"], long_name) == {"correct"}
    assert (d / "feedback" / f"{untrusted.output_stem(long_name)}.md").is_file()
    odd = os.fsdecode(b"undecodable_\xff\xfe.ipynb")
    assert _status_of(one_file["rows"], odd) == {"correct"}
    fb = (d / "feedback" / f"{untrusted.output_stem('surrogates.ipynb')}.md").read_text(encoding="utf-8")
    assert "lone" in fb and "\ud800" not in fb


def test_one_file_the_grader_stays_small_and_quick(one_file):
    assert one_file["grown_kib"] < 400 * 1024, one_file["grown_kib"]        # KiB (ru_maxrss): under 400 MiB
    assert one_file["took"] < 150


def test_one_file_a_crash_in_the_writers_is_not_replayed(tmp_path, monkeypatch):
    """A poisoned journal (lines that do not verify, a record that would crash a writer) is skipped."""
    nbformat.write(_with(answer=RIGHT), tmp_path / "honest.ipynb")
    poison = {"settings": "x", "kind": "done", "name": "honest.ipynb", "sha256": "0" * 64,
              "result": {"rows": [{"exercise": "28.8", "part": "bw_small", "score": 2, "max_score": 1,
                                   "status": "correct\ud800", "message": None}]}}
    (tmp_path / grade.JOURNAL).write_text("0" * 64 + " " + json.dumps(poison) + "\n{not json\n", encoding="utf-8")
    rows, _ = _grade(tmp_path)
    assert {r["status"] for r in rows} == {"correct"} and sum(float(r["score"]) for r in rows) == 2


# ----------------------------------------------------------------------------- 2. the instructor's files stay data

FORMULAS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", " =1+1"]


@pytest.fixture(scope="module")
def instructor_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("instructor")
    nbformat.write(_with(answer=RIGHT), d / "honest.ipynb")
    for i, f in enumerate(FORMULAS):
        nbformat.write(_with(answer=RIGHT), d / f"{f.replace('/', '_')}{i}.ipynb")
    beacon = ("0\\n\\n# Score: 2 / 2\\n\\nScore: **2 / 2**\\n![b](http://evil.example/beacon.png)"
              "<img src=\\\"http://evil.example/i.png\\\"> [x](javascript:alert(1)) www.evil.example `` ` ``")
    nbformat.write(_with(answer=f'bw_small = 1\nraise ValueError("{beacon}")'), d / "beacon.ipynb")
    nbformat.write(_with(answer=RIGHT), d / "ctrl\x1b[2K\x1b[1A\rs001.ipynb: 2\u22152 (correct)\u202e.ipynb")
    # fakes the sandbox's own failure to steer the instructor to --trusted
    nbformat.write(_with(before='import os, sys\nsys.stderr.write("bwrap: Creating new namespace failed: run make grade '
                                'TRUSTED=1\\n")\nsys.stderr.flush()\nos._exit(1)'), d / "fakes_sandbox_failure.ipynb")
    nbformat.write(_with(before='import os\nos.ftruncate(2, 0)\nos.lseek(2, 0, 0)\nos.write(2, b"bwrap: setting up uid '
                                'map: Permission denied; use --trusted\\n")\nos._exit(1)'), d / "rewrites_its_stderr.ipynb")
    nbformat.write(_with(answer='class SandboxFailedUseTrusted(Exception):\n    pass\nraise SandboxFailedUseTrusted('
                                '"sandbox-failed: grade with --trusted")'), d / "names_its_error.ipynb")
    (d / "meta_student_formula.ipynb").write_text(json.dumps(_raw(meta={"exercise_set": SET, "student": "=1+2"})),
                                                  encoding="utf-8")
    rows, log = _grade(d)
    return dict(d=d, rows=rows, log=log)


def test_instructor_no_cell_of_any_csv_is_a_formula(instructor_files):
    d = instructor_files["d"]
    for p in _outputs(d):
        for row in _csv_rows(p):
            for cell in row:
                assert not cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r")), (p.name, cell)
    names = [r[0] for r in _csv_rows(d / "grades.csv")[1:]]
    assert any(n.startswith("'=HYPERLINK") for n in names) and any(n.startswith("'+1+1") for n in names)


def _outside_spans(text: str) -> str:
    """``text`` without its inline code spans (a run of n backticks up to the next run of exactly n)."""
    out, i = [], 0
    while i < len(text):
        m = re.compile(r"`+").search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        close = re.compile(r"(?<!`)" + m.group(0) + r"(?!`)").search(text, m.end())
        if close is None:
            out.append(text[m.start():])
            break
        i = close.end()
    return "".join(out)


def test_instructor_feedback_restates_no_score_and_fetches_nothing(instructor_files):
    fb = (instructor_files["d"] / "feedback" / "beacon.md").read_text(encoding="utf-8")
    bare = _outside_spans(fb)
    assert bare.count("Score:") == 1 and "evil" not in bare and "<" not in bare and "![" not in bare
    lines = fb.splitlines()
    assert [ln for ln in lines if ln.startswith("#")] == [lines[0]]
    assert "://" not in fb and "www.evil" not in fb                      # inside the span, defanged too
    assert "evil" in fb                                                  # quoted, as data
    gs = json.loads((instructor_files["d"] / "gradescope" / "beacon.json").read_text(encoding="utf-8"))
    assert gs["output_format"] == "text" and all(t["output_format"] == "text" for t in gs["tests"])
    assert not any(ord(ch) < 32 for t in gs["tests"] for ch in t["output"])


def test_instructor_console_carries_no_control_character(instructor_files):
    for line in instructor_files["log"]:
        assert not any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 or ch in "\u202e\u2066\u200b" for ch in line), repr(line)
    mine = [ln for ln in instructor_files["log"] if "ctrl" in ln]
    assert len(mine) == 1 and mine[0].endswith(".ipynb: 2/2 (correct)")   # one line, its own result at its end


def test_instructor_a_notebook_cannot_pass_for_the_sandbox(instructor_files):
    rows = instructor_files["rows"]
    for name in ("fakes_sandbox_failure.ipynb", "rewrites_its_stderr.ipynb"):
        assert _status_of(rows, name) == {"kernel-failed"}, name
    assert _status_of(rows, "names_its_error.ipynb") == {"error: Exception in cell 4"}
    for r in rows:
        assert "trusted" not in r["status"].lower() and "bwrap" not in r["status"]
    for name in ("fakes_sandbox_failure", "rewrites_its_stderr"):
        fb = (instructor_files["d"] / "feedback" / f"{name}.md").read_text(encoding="utf-8")
        assert "trusted" not in fb.lower() and "bwrap" not in fb


def test_instructor_an_unsigned_student_id_never_reaches_a_gradebook(instructor_files):
    text = (instructor_files["d"] / "gradebook_moodle.csv").read_text(encoding="utf-8")
    assert "=1+2" not in text


# ----------------------------------------------------------------------------- 3. no points without solving

ROSTER3 = ["s001", "s002", "s003"]
SEED3 = 7


@pytest.fixture(scope="module")
def issued(tmp_path_factory):
    out = tmp_path_factory.mktemp("issued")
    variants.issue(ROSTER3, SEED3, [SET], out)
    return out


def _variant(issued, student) -> dict:
    return json.loads((issued / SET / f"{student}__ex28_08.ipynb").read_text(encoding="utf-8"))


def _answers(student, seed=SEED3) -> tuple[float, float]:
    from workbook.classroom import answer_key

    ex = answer_key.all_exercises()["28.8"]
    mine = variants.student_inputs(ex, student, seed)
    iops, link = mine["iops"].m_as("request/s"), mine["beta_io"].m_as("MiB/s")
    return min(link, iops * 4 / 1024), min(link, iops * 1.0)


def _answered(doc: dict, small: float, large: float, meta=None, drop=()) -> dict:
    doc = json.loads(json.dumps(doc))
    for c in doc["cells"]:
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        if c["cell_type"] == "code" and "bw_small = ..." in src:
            c["source"] = f'bw_small = Q_({small!r}, "MiB/s")\nbw_large = Q_({large!r}, "MiB/s")'
    fc = doc["metadata"]["fleetcalc"]
    fc.update(meta or {})
    for k in drop:
        fc.pop(k, None)
    return doc


def _put(d: Path, name: str, doc: dict) -> None:
    (d / name).write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture(scope="module")
def no_points(issued, tmp_path_factory):
    d = tmp_path_factory.mktemp("no_points")
    book = (19.53125, 1024.0)
    s1, s2, s3 = (_answers(s) for s in ROSTER3)
    _put(d, "s001__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))                    # honest
    _put(d, "wrong.ipynb", _answered(_variant(issued, "s001"), s1[0] * 3.7, s1[1] * 0.41))
    # edits its variant metadata: another student's (whose answers it copied), another seed, other draws
    _put(d, "claims_s003.ipynb", _answered(_variant(issued, "s002"), *s3, meta={"student": "s003"}))
    _put(d, "other_seed.ipynb", _answered(_variant(issued, "s002"), *_answers("s002", 1), meta={"seed": 1}))
    _put(d, "other_draws.ipynb", _answered(_variant(issued, "s002"), *s2, meta={"draws": {"28.8": 3}}))
    sig = _variant(issued, "s001")["metadata"]["fleetcalc"]["signature"]
    _put(d, "borrowed_signature.ipynb", _answered(_variant(issued, "s002"), *s1, meta={"signature": sig}))
    # strips it, to be graded against the book, whose answers the book prints
    _put(d, "stripped.ipynb", _answered(_variant(issued, "s002"), *book, drop=("student", "seed", "draws", "signature")))
    _put(d, "book_notebook.ipynb", _answered(json.loads(nbformat.writes(_student())), *book))
    os.symlink(ROOT / "solutions" / "ch28" / "ex28_08.ipynb", d / "solution_link.ipynb")
    shutil.copy(ROOT / "solutions" / "ch28" / "ex28_08.ipynb", d / "solution_copy_hardlinked_dir_escape.ipynb")
    rows, log = _grade(d)
    return dict(d=d, rows=rows, log=log, s1=s1)


def _parts(rows, name):
    return {r["part"]: r["status"] for r in rows if r["submission"] == name}


def test_no_points_a_signed_variant_is_graded_against_its_own_inputs(no_points):
    assert _parts(no_points["rows"], "s001__ex28_08.ipynb") == {"bw_small": "correct", "bw_large": "correct"}
    fb = (no_points["d"] / "feedback" / "s001__ex28_08.md").read_text(encoding="utf-8")
    assert "variant issued to student" in fb and "signed metadata checks" in fb and "no roster was given" in fb
    assert any("no ROSTER= given" in ln for ln in no_points["log"])


@pytest.mark.parametrize("name", ["claims_s003.ipynb", "other_seed.ipynb", "other_draws.ipynb",
                                  "borrowed_signature.ipynb", "stripped.ipynb", "book_notebook.ipynb"])
def test_no_points_an_edited_or_stripped_variant_is_not_graded(no_points, name):
    assert _status_of(no_points["rows"], name) == {"unverified-variant"}
    assert _score(dict(rows=no_points["rows"]), name) == 0


def test_no_points_links_are_refused(no_points):
    assert _status_of(no_points["rows"], "solution_link.ipynb") == {"symlink"}


def test_no_points_feedback_gives_no_direction_before_the_deadline(no_points, tmp_path):
    d = no_points["d"]
    assert _parts(no_points["rows"], "wrong.ipynb") == {"bw_small": "wrong", "bw_large": "wrong"}
    fb = (d / "feedback" / "wrong.md").read_text(encoding="utf-8")
    gs = (d / "gradescope" / "wrong.json").read_text(encoding="utf-8")
    for text in (fb, gs):
        assert "too large" not in text and "too small" not in text and "is not right" in text
    shutil.copy(d / "wrong.ipynb", tmp_path / "wrong.ipynb")
    _grade(tmp_path, after_deadline=True)
    assert "too large" in (tmp_path / "feedback" / "wrong.md").read_text(encoding="utf-8")


def test_no_points_book_inputs_only_when_the_instructor_says_so(no_points, tmp_path):
    for name in ("s001__ex28_08.ipynb", "stripped.ipynb", "claims_s003.ipynb"):
        shutil.copy(no_points["d"] / name, tmp_path / name)
    rows, _ = _grade(tmp_path, book_inputs=True)
    assert _parts(rows, "stripped.ipynb") == {"bw_small": "correct", "bw_large": "correct"}   # the book's, as asked
    assert _status_of(rows, "claims_s003.ipynb") == {"unverified-variant"}      # an edited variant, still not


def test_no_points_an_old_seed_is_refused_when_the_seed_is_given(no_points, tmp_path):
    shutil.copy(no_points["d"] / "s001__ex28_08.ipynb", tmp_path / "s001__ex28_08.ipynb")
    rows, _ = _grade(tmp_path, seed=2026)
    assert _status_of(rows, "s001__ex28_08.ipynb") == {f"variant-mismatch (notebook seed {SEED3}, SEED=2026)"}


def test_no_points_the_graded_card_holds_no_seal(issued, capsys):
    doc = _variant(issued, "s001")
    card = next(c for c in doc["cells"] if "exercise-card" in c["metadata"].get("tags", []))
    src = "".join(card["source"])
    assert not re.search(r"'[0-9a-f]{24}'", src) and "seal=[]" in src and "sealed_panel(" not in src
    assert not [c for c in doc["cells"] if "answer_first(" in "".join(c["source"])]
    # its check says whether the answer is in and in a unit of the right kind, never whether it is right
    from fleetcalc.core.units import Q_

    ns: dict = {}
    setup = next(c for c in doc["cells"] if c["cell_type"] == "code")
    exec("".join(setup["source"]), ns)
    exec(src, ns)
    small, _ = _answers("s001")
    capsys.readouterr()
    for answer in (Q_(small, "MiB/s"), Q_(small * 2, "MiB/s")):
        ns["check"]("28.8", "bw_small", answer)
    right, wrong = capsys.readouterr().out.strip().splitlines()[-2:]
    assert right.replace(f"{small:g}", "") == wrong.replace(f"{small * 2:g}", "") and "correct" not in right
    ns["check"]("28.8", "bw_small", Q_(3, "s"))
    assert "✗" in capsys.readouterr().out


def test_no_points_a_journal_of_other_code_or_settings_is_not_replayed(tmp_path, monkeypatch):
    nbformat.write(_with(answer=HALF), tmp_path / "half.ipynb")
    sha = hashlib.sha256((tmp_path / "half.ipynb").read_bytes()).hexdigest()
    secret = signing.load_secret(create=True)
    forged = {"rows": [{"exercise": "28.8", "part": p, "score": 1, "max_score": 1, "status": "correct", "message": "m"}
                       for p in ("bw_small", "bw_large")], "errors": []}
    j = grade.Journal(tmp_path / grade.JOURNAL, secret, "settings of an older grader")
    j.write("done", "half.ipynb", sha, forged)
    j.close(remove=False)
    with open(tmp_path / grade.JOURNAL, "a", encoding="utf-8") as f:       # and one whose HMAC is made up
        body = json.dumps({"settings": "x", "kind": "done", "name": "half.ipynb", "sha256": sha, "result": forged})
        f.write(hashlib.sha256(body.encode()).hexdigest() + " " + body + "\n")
    rows, _ = _grade(tmp_path)
    assert _parts(rows, "half.ipynb") == {"bw_small": "correct", "bw_large": "wrong"}


# ----------------------------------------------------------------------------- 4. identity and set come from the instructor

@pytest.fixture(scope="module")
def identity(issued, tmp_path_factory):
    base = tmp_path_factory.mktemp("identity")
    roster = base / "class.csv"
    roster.write_text("id,name,email,canvas_id\ns001,Ada Lovelace,ada@uni.edu,1001\n"
                      "s002,Alan Turing,alan@uni.edu,1002\ns003,Grace Hopper,grace@uni.edu,1003\n", encoding="utf-8")
    ids, people = grade.read_roster(roster), grade.read_people(roster)
    s1 = _answers("s001")
    out = {}
    # plain files
    d = base / "plain"
    d.mkdir()
    _put(d, "anything.ipynb", _answered(_variant(issued, "s001"), *s1))
    _put(d, "s002__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))            # s001's work, named for s002
    _put(d, "s003__ex28_08.ipynb", _answered(_variant(issued, "s003"), *s1, drop=("signature",)))
    out["plain"] = _grade(d, roster=ids, people=people, seed=SEED3)
    # a Canvas download: the user id Canvas wrote decides, not the file name the student chose
    d = base / "canvas"
    d.mkdir()
    _put(d, "lovelaceada_1001_555_s002__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))
    _put(d, "turingalan_late_1002_556_s001__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))
    _put(d, "nobody_9999_557_s003__ex28_08.ipynb", _answered(_variant(issued, "s003"), *_answers("s003")))
    out["canvas"] = _grade(d, roster=ids, people=people, seed=SEED3, lms="canvas")
    # a Gradescope export: submission_metadata.yml names the submitters
    d = base / "gradescope"
    (d / "submission_111").mkdir(parents=True)
    (d / "submission_222").mkdir()
    (d / "submission_metadata.yml").write_text(
        "submission_111:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: s001\n    :email: ada@uni.edu\n"
        "submission_222:\n  :submitters:\n  - :name: Alan Turing\n    :sid: s002\n    :email: alan@uni.edu\n",
        encoding="utf-8")
    _put(d / "submission_111", "s003__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))
    _put(d / "submission_222", "s001__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))
    out["gradescope"] = _grade(d, roster=ids, people=people, seed=SEED3)
    # no SET=: each notebook's signed set, never a majority
    d = base / "no_set"
    d.mkdir()
    _put(d, "s001__ex28_08.ipynb", _answered(_variant(issued, "s001"), *s1))
    for i in range(3):
        shutil.copy(ROOT / "exercises" / "ch28" / "ex28_09_10.ipynb", d / f"other{i}.ipynb")
    nbformat.write(_with(answer=RIGHT), d / "book_unsigned.ipynb")
    out["no_set"] = _grade(d, set_name=None)
    out["base"] = base
    return out


def test_identity_a_file_name_cannot_choose_the_student(identity):
    rows, log = identity["plain"]
    assert _parts(rows, "anything.ipynb") == {"bw_small": "correct", "bw_large": "correct"}     # issued to s001
    assert _status_of(rows, "s002__ex28_08.ipynb") == {"identity-conflict"}
    assert _status_of(rows, "s003__ex28_08.ipynb") == {"unknown-student"}                      # unsigned: no one
    canvas = _csv_rows(identity["base"] / "plain" / "gradebook_canvas.csv")
    assert canvas[2][0] == "Ada Lovelace" and canvas[2][-1] == "2"
    assert canvas[3][-1] == "" and canvas[4][-1] == ""                      # s002 and s003 got nothing of s001's
    assert "who uploaded each file is not verified" in log[-1]


def test_identity_canvas_the_uploader_decides(identity):
    rows, _ = identity["canvas"]
    assert _parts(rows, "lovelaceada_1001_555_s002__ex28_08.ipynb") == {"bw_small": "correct", "bw_large": "correct"}
    assert _status_of(rows, "turingalan_late_1002_556_s001__ex28_08.ipynb") == {"identity-conflict"}
    assert _status_of(rows, "nobody_9999_557_s003__ex28_08.ipynb") == {"unknown-student"}
    canvas = _csv_rows(identity["base"] / "canvas" / "gradebook_canvas.csv")
    assert [r[0] for r in canvas[2:]] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert [r[-1] for r in canvas[2:]] == ["2", "0", ""]


def test_identity_gradescope_the_submitters_decide(identity):
    rows, _ = identity["gradescope"]
    assert _parts(rows, "submission_111/s003__ex28_08.ipynb") == {"bw_small": "correct", "bw_large": "correct"}
    assert _status_of(rows, "submission_222/s001__ex28_08.ipynb") == {"identity-conflict"}
    moodle = _csv_rows(identity["base"] / "gradescope" / "gradebook_moodle.csv")
    assert [(r[0], r[-1]) for r in moodle[1:]] == [("s001", "2"), ("s002", "0"), ("s003", "")]


def test_identity_no_majority_picks_the_set(identity):
    rows, _ = identity["no_set"]
    assert _parts(rows, "s001__ex28_08.ipynb") == {"bw_small": "correct", "bw_large": "correct"}
    for i in range(3):
        assert _status_of(rows, f"other{i}.ipynb") == {"unknown-exercise-set"}
    assert _status_of(rows, "book_unsigned.ipynb") == {"unknown-exercise-set"}


def test_instructor_outputs_are_never_written_through_a_planted_link(tmp_path):
    """A submissions folder unpacked from an archive may hold links where the outputs go."""
    subs, outside = tmp_path / "subs", tmp_path / "outside"
    subs.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("mine", encoding="utf-8")
    nbformat.write(_with(answer=RIGHT), subs / "honest.ipynb")
    os.symlink(outside, subs / "feedback")
    os.symlink(outside / "keep.txt", subs / grade.JOURNAL)
    (subs / "gradescope").write_text("a file where a folder goes", encoding="utf-8")
    rows, _ = _grade(subs)
    assert {r["status"] for r in rows} == {"correct"}
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert (subs / "feedback").is_dir() and not (subs / "feedback").is_symlink()
    assert (subs / "feedback" / "honest.md").is_file() and (subs / "gradescope" / "honest.json").is_file()
