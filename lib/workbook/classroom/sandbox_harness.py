"""Runs inside a submission's sandbox: the notebook's code cells in one IPython shell, then its answers.

    python -I -S sandbox_harness.py CONFIG.json      (started by ``lib/workbook/classroom/sandbox.py``)

CONFIG names the cells file, the answer variables, the import path (the calculator library and the
environment's site-packages, both read-only in the sandbox), the file descriptor of the report, the
pipe it writes one byte to once it has started (before any submitted code runs, so the grader tells
a sandbox that failed to start from a notebook that failed) and the process cap it sets on itself
(RLIMIT_NPROC, counted in the sandbox's own user namespace).
This file imports nothing of the workbook (the grader's modules are not in the sandbox): only the
standard library and IPython, so a notebook runs as it does in a kernel (magics, ``display``, a
cell that raises does not stop the run).

The report is one JSON object written to the report descriptor after the last cell:
``{"v": 2, "values": {name: {"k": ...}}, "errors": [{"cell", "ename", "evalue"}], "memory": bool}``; a
quantity's unit is sent as its unit names and whole exponents (``{"mebibyte": 1, "second": -1}``),
never as text the grader would have to parse.
The submission's code runs in this process, so it could write that descriptor itself; the grader
therefore reads the report as the submission's own claim about its answer variables (what it could
claim by assigning them), parses it strictly, and judges it with the key, which never enters here.
"""
import json
import math
import os
import resource
import site
import sys

# captured before the submission runs (it may rebind names in these modules; nothing here depends on it)
_dumps, _isfinite, _write, _exit, _isinstance, _float, _str = json.dumps, math.isfinite, os.write, os._exit, isinstance, float, str

PREAMBLE = """\
import os as _os
_os.environ["MPLBACKEND"] = "Agg"
import fleetcalc.ui.widgets as _fw, fleetcalc.ui.exercises as _fx
_fw.panel = lambda *a, **k: None
_fx.answer_first = lambda *a, **k: None
_fx.check = lambda *a, **k: None   # the grader judges; the student's self-check verdict is not used
del _os, _fw, _fx
"""


def _read(v):
    """One answer variable as plain data: a number, a quantity (magnitude, unit name), or its type."""
    try:
        if v is ... or v is None:
            return {"k": "none"}
        if _isinstance(v, bool):
            return {"k": "other", "t": "bool"}
        if hasattr(v, "magnitude") and hasattr(v, "units"):
            m = _float(v.magnitude)
            u = {}
            for k, e in dict(v.units._units).items():
                if not _isinstance(e, (int, float)) or e != int(e) or not -8 <= e <= 8 or e == 0 or len(_str(k)) > 40:
                    return {"k": "other", "t": "quantity"}
                u[_str(k)] = int(e)
            if not _isfinite(m) or len(u) > 8:
                return {"k": "other", "t": "quantity"}
            return {"k": "q", "m": m, "u": u}
        m = _float(v)
        return {"k": "n", "m": m} if _isfinite(m) else {"k": "other", "t": "float"}
    except BaseException:
        try:
            return {"k": "other", "t": _str(type(v).__name__)[:100]}
        except BaseException:
            return {"k": "other", "t": "object"}


def run() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    started = int(cfg["start_fd"])
    nproc = int(cfg.get("nproc", 64))
    if nproc > 0:                            # this sandbox's processes and threads, whoever runs the grader
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    os.write(started, b"1")                  # the harness runs: whatever fails from here on is the notebook's
    os.close(started)
    fd = int(cfg["report_fd"])
    os.set_inheritable(fd, False)            # a program the notebook starts does not get it
    for p in cfg["site"]:
        site.addsitedir(p)                   # the environment's packages (their .pth files too)
    sys.path[:0] = cfg["path"]               # the calculator library
    with open(cfg["cells"], encoding="utf-8") as f:
        cells = json.load(f)
    names = cfg["names"]

    from traitlets.config import Config
    from IPython.core.interactiveshell import InteractiveShell

    c = Config()
    c.HistoryManager.enabled = False         # no sqlite file, no history thread
    shell = InteractiveShell.instance(config=c)
    shell.run_cell(PREAMBLE, store_history=False)
    errors, memory = [], False
    for i, src in enumerate(cells, start=1):
        try:
            _write(2, f"\n@@workbook-cell {i}\n".encode())   # the grader names this cell if time runs out
        except BaseException:
            pass
        try:
            r = shell.run_cell(src, store_history=False)
            e = r.error_before_exec or r.error_in_exec
        except MemoryError as exc:
            e = exc
        except BaseException as exc:          # noqa: BLE001 - a cell never stops the run
            e = exc
        if e is not None:
            try:
                ename, evalue = _str(type(e).__name__)[:100], _str(e)[:300]
            except BaseException:
                ename, evalue = "Error", ""
            errors.append({"cell": i, "ename": ename, "evalue": evalue})
            if _isinstance(e, MemoryError):   # the memory cap: the run stops, as a kernel would die
                memory = True
                break
    ns = shell.user_ns
    values = {n: (_read(ns[n]) if n in ns else {"k": "missing"}) for n in names}
    data = _dumps({"v": 2, "values": values, "errors": errors[:200], "memory": memory}).encode()
    try:
        while data:
            data = data[_write(fd, data):]
    finally:
        _exit(0)                              # no atexit handler, no finaliser of the notebook's runs after


if __name__ == "__main__":
    run()
