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
