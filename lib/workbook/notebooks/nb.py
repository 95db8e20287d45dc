"""Executing notebooks: MyST sources -> executed .ipynb twins, and the pairs' check.

    workbook execute [PATH.md ...]             # default: every chapters/ and solutions/ source
    workbook pairs                             # report .md/.ipynb pairs whose cells differ

Safety: nothing a student typed is overwritten.
* ``execute`` refuses to replace an .ipynb whose cells were edited after it was built (its
  recorded source hash matches the .md, but its cells no longer do). Edit the .md (or save from
  JupyterLab with jupytext, which writes both), or pass ``--force``.
* ``execute`` skips a notebook whose source, library (lib/) and data files beside it are unchanged
  since it was last executed here, and whose executed twin is as that run wrote it (a record kept
  in _build/.cache/executed.json, never committed); ``--rerun`` executes it anyway.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from workbook import repo_root
from workbook.notebooks.files import (KERNEL, WIDGET_STATE, WIDGET_VIEW, cell_sources, read_md,  # noqa: F401
                                      saved_panels, sha, sources_sha)
from workbook.notebooks.slides import add_slide_metadata
SOURCE_DIRS = ("chapters", "solutions")



class Refused(RuntimeError):
    """Regeneration would overwrite someone's edits."""


# ----------------------------------------------------------------------------- execute

def execute_notebook(nb, cwd: Path, timeout: int = 300):
    """Run every cell of ``nb`` in a fresh kernel started in ``cwd``; the outputs land in ``nb``."""
    from nbclient import NotebookClient

    # the kernel's own start-up warnings (e.g. "running over TCP without encryption") are noise on the
    # console of `workbook execute` / `exercises`: the kernel logs errors only
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(cwd)}}, store_widget_state=True,
                            extra_arguments=["--IPKernelApp.log_level=ERROR"])
    client.execute()
    return nb


def build_ipynb(md: Path, force: bool = False) -> Path:
    """Execute ``md`` and write its .ipynb twin (refusing to clobber edited cells)."""
    md = md.resolve()
    out = md.with_suffix(".ipynb")
    text = md.read_text(encoding="utf-8")
    nb = read_md(md)
    if out.exists() and not force:
        old = nbformat.read(out, as_version=4)
        recorded = old.metadata.get("fleetcalc", {}).get("source_sha")
        edited = cell_sources(old) != cell_sources(nb)
        if edited and recorded == sha(text):
            raise Refused(
                f"{out.relative_to(repo_root())} was edited after it was built (its cells differ from "
                f"{md.name}, which has not changed). Copy your work elsewhere or save it into the .md, "
                f"then rerun; or pass --force to overwrite it."
            )
    nb.metadata["jupytext"] = {"formats": "ipynb,md:myst"}
    nb.metadata["fleetcalc"] = {"source_sha": sha(text)}
    execute_notebook(nb, md.parent)
    for cell in nb.cells:  # ids and execution metadata must not churn between runs
        cell.metadata.pop("execution", None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:03d}"
    add_slide_metadata(nb)  # lecture mode: slide metadata from the notebook's structure
    nbformat.write(nb, out)
    return out


def _freshness_path() -> Path:
    return repo_root() / "_build" / ".cache" / "executed.json"


def _tree_sha(files) -> str:
    h = hashlib.sha256()
    for f in sorted(files):
        if f.is_file() and "__pycache__" not in f.parts and ".egg-info" not in str(f) and f.suffix != ".pyc":
            h.update(f.relative_to(repo_root()).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def inputs_sha(md: Path, lib_sha: str) -> str:
    """What an executed twin depends on besides its own source: the library and the data files
    in the notebook's folder (everything there but the notebooks themselves)."""
    data = [f for f in md.parent.iterdir() if f.suffix not in (".md", ".ipynb")]
    return sha(lib_sha + _tree_sha(data))


def _record(md: Path, lib_sha: str) -> dict:
    out = md.with_suffix(".ipynb")
    return {"source": sha(md.read_text(encoding="utf-8")), "inputs": inputs_sha(md, lib_sha),
            "ipynb": hashlib.sha256(out.read_bytes()).hexdigest()[:16] if out.exists() else None}


def _update_freshness(records: dict) -> None:
    """Merge ``records`` into the freshness record, under a lock (several runs may overlap)."""
    import fcntl

    path = _freshness_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        known = json.loads(path.read_text()) if path.exists() else {}
        known.update(records)
        path.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")


def _build_one(args):
    md, force = args
    try:
        build_ipynb(Path(md), force=force)
        return md, None
    except Exception as exc:  # report, do not kill the pool
        return md, f"{type(exc).__name__}: {exc}"


def default_sources() -> list[Path]:
    out = []
    for d in SOURCE_DIRS:
        out += sorted((repo_root() / d).rglob("*.md"))
    return [p for p in out if p.name != "README.md" and "_build" not in p.parts]


def execute(paths: list[str], force: bool, jobs: int, rerun: bool = False) -> int:
    """Execute the sources ``paths`` (default: all) into their .ipynb twins; without ``rerun`` or
    ``force``, a source whose twin is fresh (see the module docstring) is skipped."""
    mds = [Path(p) for p in paths] if paths else default_sources()
    mds = [(p.with_suffix(".md") if p.suffix == ".ipynb" else p).resolve() for p in mds]
    lib_sha = _tree_sha((repo_root() / "lib").rglob("*"))
    path = _freshness_path()
    known = json.loads(path.read_text()) if path.exists() else {}
    key = {m: m.relative_to(repo_root()).as_posix() for m in mds}
    todo = [m for m in mds if rerun or force or known.get(key[m]) != _record(m, lib_sha)]
    if len(todo) < len(mds):
        print(f"{len(mds) - len(todo)} notebook(s) fresh: source, library and executed twin unchanged "
              f"since they were last executed here (--rerun executes them anyway)")
    failures, done = 0, {}
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for md, err in pool.map(_build_one, [(str(m), force) for m in todo]):
            md = Path(md)
            rel = md.relative_to(repo_root())
            if err:
                failures += 1
                print(f"FAILED {rel}: {err[:2000]}", file=sys.stderr)
            else:
                done[key[md]] = _record(md, lib_sha)
                print(f"executed {rel.with_suffix('.ipynb')}")
    if done:
        _update_freshness(done)
    return 1 if failures else 0


# ----------------------------------------------------------------------------- pairs

def pair_problems(dirs=("chapters", "solutions", "exercises")) -> list[str]:
    problems = []
    for d in dirs:
        for md in sorted((repo_root() / d).rglob("*.md")):
            if md.name == "README.md" or "_build" in md.parts:
                continue
            nbp = md.with_suffix(".ipynb")
            rel = md.relative_to(repo_root())
            if not nbp.exists():
                problems.append(f"{rel} has no executed .ipynb twin")
                continue
            if cell_sources(read_md(md)) != cell_sources(nbformat.read(nbp, as_version=4)):
                problems.append(f"{rel} and its .ipynb have different cells (run make notebooks)")
        for nbp in sorted((repo_root() / d).rglob("*.ipynb")):
            if ".ipynb_checkpoints" in nbp.parts:
                continue
            if not nbp.with_suffix(".md").exists():
                problems.append(f"{nbp.relative_to(repo_root())} has no .md source")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("execute")
    e.add_argument("paths", nargs="*", help="notebook sources (default: every chapters/ and solutions/ source)")
    e.add_argument("--force", action="store_true", help="overwrite an executed twin whose cells were edited")
    e.add_argument("--rerun", action="store_true", help="execute fresh notebooks too")
    e.add_argument("-j", "--jobs", type=int, default=2)
    sub.add_parser("pairs")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "execute":
            return execute(a.paths, a.force, a.jobs, rerun=a.rerun)
        problems = pair_problems()
        print("\n".join(problems) or "all pairs match")
        return 1 if problems else 0
    except Refused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
