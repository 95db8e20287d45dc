"""Run All, then answer: runs notebooks' code cells top to bottom in one IPython shell each, then
runs each exercise's model solution against the variables as they stand and reports each part's verdict.

    python tests/run_all_harness.py CONFIG.json OUT.json   (started by tests/test_exercise_run_all.py)

CONFIG: {"mode": "student"|"solution", "notebooks": [{"path": ..., "regions": [{"ex_id", "code", "parts"}]}]}
OUT: per notebook, the cells that raised, and per part its status after the region ran; in
student mode also whether the check opened the exercise's panel and whether opening it changed
any of the student's variables.
"""
import contextlib
import json
import os
import sys

os.environ["MPLBACKEND"] = "Agg"


def main(cfg_path, out_path):
    import jupytext
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    import fleetcalc.ui.exercises as fx

    cfg = json.load(open(cfg_path))
    c = Config()
    c.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=c)
    report = []
    for nbcfg in cfg["notebooks"]:
        shell.reset(new_session=False)
        sess = fx.Session()                 # this notebook's exercises only (as in a kernel of its own)
        scope = contextlib.ExitStack()
        scope.enter_context(fx.session(sess))
        nb = jupytext.read(nbcfg["path"], fmt="md:myst")
        errors = []
        for i, cell in enumerate([c for c in nb.cells if c.cell_type == "code"], 1):
            r = shell.run_cell(cell.source, store_history=False, silent=True)
            e = r.error_before_exec or r.error_in_exec
            if e is not None:
                errors.append(f"cell {i}: {type(e).__name__}: {e}")
        parts = {}
        for reg in nbcfg["regions"]:
            r = shell.run_cell(reg["code"], store_history=False, silent=True)
            e = r.error_before_exec or r.error_in_exec
            for p in reg["parts"]:
                key = f"{reg['ex_id']}/{p}"
                if e is not None:
                    parts[key] = f"raised {type(e).__name__}: {e}"
                    continue
                value = shell.user_ns.get(p, ...)
                if cfg["mode"] == "student":
                    parts[key] = fx.exercise(reg["ex_id"]).check(p, value).status
                else:
                    parts[key] = fx.grade(reg["ex_id"], p, value).status
        opened = {}
        if cfg["mode"] == "student":
            for reg in nbcfg["regions"]:
                before = {k: repr(v) for k, v in shell.user_ns.items() if not k.startswith("_")}
                n_before = len(sess.on_pass.get(reg["ex_id"], ()))
                try:
                    for p in reg["parts"]:
                        fx.check(reg["ex_id"], p, shell.user_ns.get(p, ...))
                    err = None
                except Exception as exc:  # noqa: BLE001
                    err = f"{type(exc).__name__}: {exc}"
                after = {k: repr(v) for k, v in shell.user_ns.items() if not k.startswith("_")}
                changed = sorted(k for k in before if after.get(k) != before[k])
                opened[reg["ex_id"]] = {"panels": n_before, "error": err, "changed": changed}
        scope.close()
        report.append({"path": nbcfg["path"], "errors": errors, "parts": parts, "opened": opened})
    json.dump(report, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
