"""A sandbox of its own for each graded submission (bubblewrap), and the report it sends back.

    sandbox.available()        -> (True, "bubblewrap 0.8.0 ...") or (False, what to do)
    sandbox.host()             -> Host(cgroup={"memory", "pids", "cpu"}, user="nobody" or "")
    sandbox.run_cells(cells, names, limits, trusted=False) -> Outcome

What the submission's process sees (``bwrap`` with new user, PID, network, IPC, UTS and cgroup
namespaces, every capability dropped, no new privileges, no further user namespaces):

* ``/usr`` (and the ``/bin``, ``/lib`` links), the Python installation the grader runs on and the
  few ``/etc`` files the dynamic loader reads, read-only;
* the environment's site-packages at ``/opt/site/<n>``, read-only, with the editable-install hooks
  (``__editable__*``, ``*.egg-link``, a ``.pth`` naming the repository) and any installed
  ``workbook`` package covered, so nothing leads back to the repository;
* the calculator library alone (the ``fleetcalc`` package) at ``/opt/lib/fleetcalc``, read-only;
* ``/opt/grade``: the harness and this submission's code cells, read-only;
* a private ``/proc`` (its own processes only), a minimal, read-only ``/dev`` with a small
  ``/dev/shm``, and two small private tmpfs folders, ``/tmp`` and the working folder
  ``/home/student``: with ``/dev/shm`` the only places it can write.

Not there: ``solutions/``, the answer key, the grader's modules, the other submissions, the
submissions folder and its ``grades.csv``, the repository, the instructor's home. The network
namespace has only its own loopback, so no host or loopback service of the grader's is reachable.
The process starts with rlimits (address space = the memory cap, CPU seconds, file size, no core
files); the harness lowers its own process limit (RLIMIT_NPROC) before any submitted code runs.
That limit counts the processes of the sandbox's own user namespace, so it caps each sandbox on
its own; the kernel never applies it to root, so a grader running as root starts the sandbox as
``nobody`` (``setpriv``) where nobody can read what it binds, and else only with a pids cgroup
(without one it refuses: never a sandbox without a process cap). Where the host lets the grader create cgroups (v2 with the controllers
delegated, or v1 hierarchies), the sandbox also gets a cgroup of its own: ``memory`` (the memory
cap for all its processes together, tmpfs pages included), ``pids`` (the process cap) and ``cpu``
(a CPU share: ``cpu.max`` / ``cpu.cfs_quota_us`` of ``Limits.cpus`` cores), emptied afterwards.
:func:`host` says which of these hold here. When the harness exits, its PID namespace ends and the
kernel kills whatever the submission left running; when the grader dies, ``--die-with-parent``
takes the sandbox with it.

The answers come back through a file descriptor opened by the grader (never from what the notebook
prints), and :func:`parse_report` accepts only the documented shape and types. Whether the harness
started at all comes back on a pipe it writes one byte to before any submitted code runs, so a
notebook cannot pass its own failure off as the sandbox's.
"""
from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import math
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HARNESS = Path(__file__).with_name("sandbox_harness.py")
HOME = "/home/student"
GIB = 1 << 30


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout: float = 60.0              # wall clock for the whole run, seconds
    memory: int = 2 * GIB              # bytes: RLIMIT_AS of each process, and the cgroup's memory cap
    nproc: int = 64                    # processes and threads of the sandbox (RLIMIT_NPROC, cgroup pids.max)
    cpu: int | None = None             # CPU seconds per process (RLIMIT_CPU); default: timeout + 5
    fsize: int = 64 << 20              # largest file it may write (RLIMIT_FSIZE)
    tmpfs: int = 64 << 20              # size of each of its two writable folders
    shm: int = 16 << 20                # size of its /dev/shm
    nofile: int = 256
    cpus: float = 1.0                  # its CPU share, in cores (a cgroup's cpu quota, where there is one)


@dataclasses.dataclass
class Outcome:
    status: str | None                 # None: it ran and reported; else timeout, memory-limit, killed, ...
    detail: str = ""
    values: dict | None = None
    errors: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float | None = None   # CPU time of the whole sandbox, where a cgroup counts it


# ----------------------------------------------------------------------------- is there a sandbox

def bwrap_path() -> str | None:
    return shutil.which("bwrap")


HOW_TO = ("install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, or `tools/ensure_sandbox.sh`, which "
          "`make grade` runs) on a host whose kernel allows user namespaces (sysctl "
          "kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0), or grade your own, trusted "
          "notebooks without isolation with `--trusted` (make grade TRUSTED=1)")
NOBODY = 65534


def _as_root() -> bool:
    return os.geteuid() == 0


@functools.lru_cache(maxsize=None)
def available() -> tuple[bool, str]:
    """Whether a sandbox can be started here: bwrap exists and a probe run inside one succeeds."""
    bw = bwrap_path()
    if bw is None:
        return False, f"bubblewrap (bwrap) is not installed; {HOW_TO}"
    try:
        version = subprocess.run([bw, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        out = run_cells(["import os\nassert os.getpid() < 10"], ["probe"], Limits(timeout=30), _quiet=True)
    except Exception as exc:  # noqa: BLE001
        return False, f"bubblewrap could not start a sandbox ({type(exc).__name__}: {exc}); {HOW_TO}"
    if out.status is not None or out.errors:
        why = f"{out.status or out.errors[0]['ename']}: {out.detail[-400:]}"
        return False, f"bubblewrap could not start a sandbox ({why}); {HOW_TO}"
    h = host()
    return True, version + (f", cgroup {'+'.join(sorted(h.cgroup))}" if h.cgroup else ", no cgroup") \
        + (", as nobody" if h.user else "")


@dataclasses.dataclass(frozen=True)
class Host:
    """What holds on this host besides the namespaces and rlimits: the cgroup controllers a sandbox
    gets (``memory``, ``pids``, ``cpu``) and the user it runs as (``"nobody"``, or ``""`` for the grader's own)."""
    cgroup: frozenset
    user: str


@functools.lru_cache(maxsize=None)
def host() -> Host:
    cg = Cgroup.create(Limits())
    ctl = frozenset(cg.controllers) if cg else frozenset()
    if cg:
        cg.destroy()
    return Host(ctl, "nobody" if _as_nobody() else "")


@functools.lru_cache(maxsize=None)
def _as_nobody() -> bool:
    """A grader running as root starts each sandbox as nobody (RLIMIT_NPROC never holds for root), where
    nobody can read what the sandbox binds (the Python installation, site-packages, the library)."""
    if not _as_root() or shutil.which("setpriv") is None or bwrap_path() is None:
        return False
    try:
        out = run_cells(["pass"], ["probe"], Limits(timeout=30), _quiet=True, _drop=True)
    except Exception:  # noqa: BLE001
        return False
    return out.status is None


ROOT_WITHOUT_PIDS = ("the grader runs as root, where the kernel never applies a process limit (RLIMIT_NPROC), "
                     "and this host gives it no pids cgroup; a sandbox run as nobody would be capped, but nobody "
                     "cannot read the Python installation or the library here. Run the grader as an ordinary user, "
                     "make the environment readable by others, or delegate a pids cgroup")


# ----------------------------------------------------------------------------- what goes in

def _library_dir() -> Path:
    spec = importlib.util.find_spec("fleetcalc")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the fleetcalc package is not importable")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def _site_dirs() -> list[Path]:
    base = Path(sys.base_prefix).resolve()
    out = []
    for p in site.getsitepackages() + [site.getusersitepackages()]:
        p = Path(p)
        if p.is_dir() and not p.resolve().is_relative_to(base) and p.resolve() not in out:
            out.append(p.resolve())
    return out


def _covered(sitedir: Path, repo_markers: tuple[str, ...]) -> tuple[list[Path], list[Path]]:
    """Files and folders of a site-packages folder that would lead back to the repository or the grader."""
    files, dirs = [], []
    for p in sitedir.iterdir():
        n = p.name
        if n.startswith("__editable__") or n.endswith(".egg-link"):
            files.append(p)
        elif n.endswith(".pth"):
            try:
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            if any(m in text for m in repo_markers):
                files.append(p)
        elif n == "workbook" and p.is_dir():
            dirs.append(p)
    return files, dirs


def _bind_system(args: list[str]) -> None:
    for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/usr", "/usr"]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime"):
        if os.path.exists(f):
            args += ["--ro-bind", f, f]
    base = str(Path(sys.base_prefix).resolve())
    if not base.startswith("/usr/"):
        args += ["--ro-bind", base, base]
    exe = str(Path(sys.executable).resolve())
    if not exe.startswith(("/usr/", base + "/")):
        args += ["--ro-bind", exe, exe]


def _bwrap_args(grade_dir: Path, limits: Limits, fds: dict, env: dict) -> tuple[list[str], dict]:
    """The bwrap command line, and the harness's config for paths inside the sandbox."""
    lib = _library_dir()
    repo_markers = tuple({str(lib.parent), str(lib.parent.parent)})
    args = [bwrap_path() or "bwrap",
            "--unshare-all", "--unshare-user", "--disable-userns", "--uid", "65534", "--gid", "65534",
            "--hostname", "sandbox", "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    _bind_system(args)
    sites = []
    for i, d in enumerate(_site_dirs()):
        inside = f"/opt/site/{i}"
        args += ["--ro-bind", str(d), inside]
        files, dirs = _covered(d, repo_markers)
        for f in files:
            args += ["--ro-bind", "/dev/null", f"{inside}/{f.name}"]
        for sub in dirs:
            args += ["--tmpfs", f"{inside}/{sub.name}"]
        sites.append(inside)
    args += ["--ro-bind", str(lib), "/opt/lib/fleetcalc",
             "--ro-bind", str(grade_dir), "/opt/grade",
             "--proc", "/proc",
             "--dev", "/dev", "--remount-ro", "/dev", "--size", str(limits.shm), "--tmpfs", "/dev/shm",
             "--size", str(limits.tmpfs), "--tmpfs", "/tmp",
             "--size", str(limits.tmpfs), "--tmpfs", HOME,
             "--remount-ro", "/", "--chdir", HOME]
    for k, v in env.items():
        args += ["--setenv", k, v]
    cfg = {"cells": "/opt/grade/cells.json", "site": sites, "path": ["/opt/lib"], **fds}
    exe = str(Path(sys.executable).resolve())
    args += ["--", exe, "-I", "-S", "-B", "/opt/grade/harness.py", "/opt/grade/config.json"]
    return args, cfg


def _env(home: str, tmp: str) -> dict:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": tmp, "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{tmp}/matplotlib", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# ----------------------------------------------------------------------------- cgroups (where the host lets us)

class Cgroup:
    """A cgroup per sandbox: ``memory`` and ``pids`` cap all its processes together, ``cpu`` gives it
    a share of ``Limits.cpus`` cores. cgroup v2 where the grader's own cgroup delegates the
    controllers; else v1 hierarchies; each controller only where the host lets the grader make one
    (``controllers`` says which hold; the rlimits apply to each process either way)."""

    def __init__(self, paths: dict[str, Path], v2: bool):
        self.paths, self.v2 = paths, v2           # controller -> its cgroup folder (v2: one folder for all)

    @property
    def controllers(self) -> set[str]:
        return set(self.paths) - {"cpuacct"}

    def cpu_seconds(self) -> float | None:
        """CPU time all its processes used (v2 ``cpu.stat``, v1 ``cpuacct.usage``), or None."""
        try:
            if self.v2:
                d = next(iter(self.paths.values()))
                stat = dict(line.split() for line in (d / "cpu.stat").read_text().splitlines())
                return int(stat["usage_usec"]) / 1e6
            if "cpuacct" in self.paths:
                return int((self.paths["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError, KeyError, StopIteration):
            pass
        return None

    @classmethod
    def create(cls, limits: Limits) -> "Cgroup | None":
        name = f"workbook-grade-{os.getpid()}-{time.monotonic_ns()}"
        try:
            lines = Path("/proc/self/cgroup").read_text().splitlines()
        except OSError:
            return None
        own = {}
        for line in lines:
            try:
                _, ctrls, path = line.split(":", 2)
            except ValueError:
                continue
            for c in (ctrls.split(",") if ctrls else [""]):
                own[c] = path
        made: list[Path] = []

        def write(path: Path, text: str) -> bool:
            try:
                path.write_text(text)
                return True
            except OSError:
                return False

        def settings(ctl: str, d: Path, v2: bool) -> bool:
            quota = max(1000, int(limits.cpus * 100_000))
            if ctl == "memory":
                ok = write(d / ("memory.max" if v2 else "memory.limit_in_bytes"), str(limits.memory))
                for f in ("memory.swap.max",) if v2 else ("memory.memsw.limit_in_bytes",):
                    if (d / f).exists():
                        write(d / f, "0" if v2 else str(limits.memory))
                return ok
            if ctl == "pids":
                return write(d / "pids.max", str(limits.nproc))
            if ctl == "cpuacct":
                return (d / "cpuacct.usage").exists()
            if v2:
                return write(d / "cpu.max", f"{quota} 100000")
            return write(d / "cpu.cfs_period_us", "100000") and write(d / "cpu.cfs_quota_us", str(quota))

        try:
            for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
                if "" in own and (root / "cgroup.controllers").exists():
                    parent = root / own[""].lstrip("/")
                    try:
                        ctl = set((parent / "cgroup.subtree_control").read_text().split())
                    except OSError:
                        continue
                    want = [c for c in ("memory", "pids", "cpu") if c in ctl]
                    if not want:
                        continue
                    d = parent / name
                    d.mkdir()
                    made.append(d)
                    held = {c: d for c in want if settings(c, d, True)}
                    if held:
                        return cls(held, True)
                    d.rmdir()
                    made.remove(d)
            held = {}
            for ctl in ("memory", "pids", "cpu", "cpuacct"):
                base = Path("/sys/fs/cgroup") / ctl
                if ctl == "cpuacct" and "cpu" in held and (held["cpu"] / "cpuacct.usage").exists():
                    held["cpuacct"] = held["cpu"]            # cpu,cpuacct mounted together
                    continue
                if ctl not in own or not (base / "cgroup.procs").exists():
                    continue
                d = base / own[ctl].lstrip("/") / name
                try:
                    d.mkdir()
                except OSError:
                    continue
                made.append(d)
                if settings(ctl, d, False):
                    held[ctl] = d
                else:
                    d.rmdir()
                    made.remove(d)
            if held:
                return cls(held, False)
        except OSError:
            pass
        for d in reversed(made):
            try:
                d.rmdir()
            except OSError:
                pass
        return None

    def _dirs(self) -> list[Path]:
        return list(dict.fromkeys(self.paths.values()))

    def join_prefix(self) -> list[str]:
        """A shell prefix that moves the process into the cgroup before it execs the sandbox."""
        script = "".join(f'echo $$ > "{p}/cgroup.procs" && ' for p in self._dirs()) + 'exec "$@"'
        return ["/bin/sh", "-c", script, "sh"]

    def oom_killed(self) -> bool:
        d = self.paths.get("memory")
        if d is None:
            return False
        try:
            if self.v2:
                ev = dict(line.split() for line in (d / "memory.events").read_text().splitlines())
                return int(ev.get("oom_kill", 0)) > 0
            ctl = dict(line.split() for line in (d / "memory.oom_control").read_text().splitlines())
            return int(ctl.get("oom_kill", 0)) > 0
        except (OSError, ValueError):
            return False

    def destroy(self) -> None:
        """Kill whatever is still in it, then remove it."""
        for d in self._dirs():
            if self.v2 and (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
            for _ in range(50):
                try:
                    pids = [int(x) for x in (d / "cgroup.procs").read_text().split()]
                except OSError:
                    break
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                time.sleep(0.02)
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


# ----------------------------------------------------------------------------- the report

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_UNIT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


class BadReport(ValueError):
    pass


def _units_ok(u) -> bool:
    return (isinstance(u, dict) and len(u) <= 8
            and all(isinstance(k, str) and _UNIT.fullmatch(k) and type(e) is int and -8 <= e <= 8 and e
                    for k, e in u.items()))


def parse_report(raw: bytes, names: list[str], n_cells: int) -> tuple[dict, list, bool]:
    """(values, errors, memory) from the harness's report; BadReport if it is not exactly the documented shape.

    ``{"v": 2, "values": {name: value}, "errors": [{"cell", "ename", "evalue"}], "memory": bool}``; a
    value is ``{"k": "none"}``, ``{"k": "missing"}``, ``{"k": "n", "m": number}``, ``{"k": "q", "m":
    number, "u": {unit name: whole exponent}}`` or ``{"k": "other", "t": type name}``. Nothing the
    report says is echoed in a BadReport's message."""
    if len(raw) > 1 << 20:
        raise BadReport("report too large")
    if raw.count(b"[") + raw.count(b"{") > 5_000:
        raise BadReport("report too nested")
    try:
        doc = json.loads(raw.decode("utf-8", errors="strict"), parse_constant=lambda c: (_ for _ in ()).throw(BadReport("constant")))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadReport("not JSON") from None

    def need(cond, what):
        if not cond:
            raise BadReport(what)

    need(isinstance(doc, dict) and set(doc) == {"v", "values", "errors", "memory"} and doc["v"] == 2, "top level")
    need(isinstance(doc["memory"], bool), "memory")
    vals = doc["values"]
    need(isinstance(vals, dict) and set(vals) == set(names), "names")
    out = {}
    for n in names:
        v = vals[n]
        need(isinstance(v, dict) and isinstance(v.get("k"), str), f"value {n}")
        k = v["k"]
        if k in ("none", "missing"):
            need(set(v) == {"k"}, f"value {n}")
        elif k == "n":
            need(set(v) == {"k", "m"} and type(v["m"]) in (int, float) and math.isfinite(v["m"]), f"value {n}")
        elif k == "q":
            need(set(v) == {"k", "m", "u"} and type(v["m"]) in (int, float) and math.isfinite(v["m"])
                 and _units_ok(v["u"]), f"value {n}")
        elif k == "other":
            need(set(v) == {"k", "t"} and isinstance(v["t"], str) and len(v["t"]) <= 100, f"value {n}")
        else:
            raise BadReport(f"value {n}: unknown kind")
        out[n] = {**v, "m": float(v["m"])} if "m" in v else dict(v)
    errs = doc["errors"]
    need(isinstance(errs, list) and len(errs) <= 200, "errors")
    errors = []
    for e in errs:
        need(isinstance(e, dict) and set(e) == {"cell", "ename", "evalue"}, "error")
        need(type(e["cell"]) is int and 1 <= e["cell"] <= n_cells, "error cell")
        need(isinstance(e["ename"], str) and _NAME.fullmatch(e["ename"]) is not None, "error name")
        need(isinstance(e["evalue"], str) and len(e["evalue"]) <= 300, "error value")
        errors.append(dict(e))
    return out, errors, doc["memory"]


# ----------------------------------------------------------------------------- one run

def _describe_exit(rc: int) -> tuple[str, str]:
    sig = rc - 128 if rc > 128 else (-rc if rc < 0 else 0)
    if sig == signal.SIGXCPU:
        return "cpu-limit", "it used up its CPU-time limit"
    if sig:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return "killed", f"its process was killed ({name}) before it reported its answers"
    return "kernel-failed", f"its process exited (code {rc}) before it reported its answers"


def _running_cell(errlog: Path, n_cells: int) -> str:
    """ ": it was still running code cell 7 of 12" from the harness's markers on stderr, or ""."""
    try:
        with open(errlog, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - (1 << 16)))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    found = re.findall(r"^@@workbook-cell (\d{1,6})$", tail, re.M)
    if not found or not 1 <= int(found[-1]) <= n_cells:
        return ""
    return f": it was still running code cell {int(found[-1])} of {n_cells} (the {_ordinal(int(found[-1]))} code cell)"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _started(fd: int) -> bool:
    """Whether the harness wrote its start byte (before any submitted code ran) on the pipe ``fd``."""
    try:
        return os.read(fd, 1) == b"1"
    except (BlockingIOError, OSError):
        return False


def run_cells(cells: list[str], names: list[str], limits: Limits = Limits(), trusted: bool = False,
              _quiet: bool = False, _drop: bool | None = None) -> Outcome:
    """Run ``cells`` (a notebook's code cells, in order) in a fresh sandbox; read ``names`` back as data.

    ``trusted=True`` runs the same harness without the sandbox (the grader's rights; for an
    instructor's own notebooks)."""
    t0 = time.monotonic()
    cpu = limits.cpu or int(math.ceil(limits.timeout)) + 5
    drop = not trusted and _as_root() and (_as_nobody() if _drop is None else _drop)
    with tempfile.TemporaryDirectory(prefix="workbook-grade-") as tmp:
        gd = Path(tmp) / "grade"
        gd.mkdir()
        shutil.copyfile(HARNESS, gd / "harness.py")
        (gd / "cells.json").write_text(json.dumps(cells), encoding="utf-8")
        report = Path(tmp) / "report.json"
        errlog = Path(tmp) / "stderr.txt"
        rfd = os.open(report, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        efd = os.open(errlog, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        sr, sw = os.pipe()
        os.set_blocking(sr, False)
        cg = None
        try:
            if trusted:
                home = Path(tmp) / "home"
                (home / "tmp").mkdir(parents=True)
                cfg = {"cells": str(gd / "cells.json"), "site": [], "path": [str(_library_dir().parent)],
                       "report_fd": rfd, "start_fd": sw}
                cmd = [sys.executable, "-I", "-B", str(gd / "harness.py"), str(gd / "config.json")]
                env = _env(str(home), str(home / "tmp"))
                cwd = str(home)
            else:
                env = _env(HOME, "/tmp")
                args, cfg = _bwrap_args(gd, limits, {"report_fd": rfd, "start_fd": sw}, env)
                cg = Cgroup.create(limits)
                if _as_root() and not drop and (cg is None or "pids" not in cg.controllers):
                    return Outcome("sandbox-failed", ROOT_WITHOUT_PIDS, seconds=time.monotonic() - t0)
                as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] if drop else []
                cmd = (cg.join_prefix() if cg else []) + as_nobody + args
                env, cwd = {"PATH": "/usr/bin:/bin"}, "/"
            cfg["names"] = list(names)
            cfg["nproc"] = 0 if trusted else limits.nproc   # trusted: the grader's own user, its own limits
            (gd / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
            if drop:                          # nobody reads the harness and the cells, nothing else here
                os.chmod(tmp, 0o711)
                for f in (gd, *gd.iterdir()):
                    os.chown(f, NOBODY, NOBODY)
            # the process cap is the harness's own RLIMIT_NPROC (and pids.max): not lowered out here, where it
            # would count every process of the grader's user
            rl = ["prlimit", f"--as={limits.memory}", f"--cpu={cpu}",
                  f"--fsize={limits.fsize}", "--core=0", f"--nofile={limits.nofile}", "--"]
            proc = subprocess.Popen(rl + cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=efd,
                                    pass_fds=(rfd, sw), cwd=cwd, env=env, start_new_session=True)
            for fd in (rfd, efd, sw):
                os.close(fd)
            rfd = efd = sw = -1
            try:
                rc = proc.wait(timeout=limits.timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)   # bwrap and, with it, its PID namespace
                except ProcessLookupError:
                    pass
                rc = proc.wait()
            if cg is not None:
                oom, used = cg.oom_killed(), cg.cpu_seconds()
                cg.destroy()
                cg = None
            else:
                oom, used = False, None
            took = time.monotonic() - t0
            started = _started(sr)
            if not started:                   # nothing of the submission ran: what failed is the sandbox
                tail = errlog.read_bytes()[-2000:].decode("utf-8", "replace") if errlog.exists() else ""
                last = (tail.strip().splitlines() or [""])[-1][:300]
                return Outcome("sandbox-failed", f"the sandbox did not start (exit code {rc}"
                               + (f": {last}" if last else "") + "); grade this submission again", seconds=took)
            if timed_out:
                return Outcome("timeout", f"did not finish within {limits.timeout:g} s" + _running_cell(errlog, len(cells)),
                               seconds=took, cpu_seconds=used)
            raw = report.read_bytes()[: (1 << 20) + 1]
            if not raw:
                if oom:
                    return Outcome("memory-limit", f"it went over the memory cap ({limits.memory / GIB:g} GiB)", seconds=took)
                status, detail = _describe_exit(rc)
                return Outcome(status, detail, seconds=took)
            try:
                values, errors, memory = parse_report(raw, list(names), len(cells))
            except BadReport as exc:
                return Outcome("kernel-failed", f"its answer report was malformed ({exc})", seconds=took)
            if memory or oom:
                where = next((f" (cell {e['cell']})" for e in errors if e["ename"] == "MemoryError"), "")
                return Outcome("memory-limit", f"it went over the memory cap ({limits.memory / GIB:g} GiB){where}",
                               errors=errors, seconds=took)
            return Outcome(None, values=values, errors=errors, seconds=took)
        finally:
            for fd in (rfd, efd, sw, sr):
                if fd >= 0:
                    os.close(fd)
            if cg is not None:
                cg.destroy()
