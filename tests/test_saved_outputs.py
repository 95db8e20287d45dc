"""What the executed notebooks keep in the repository: no warning text and no path of the machine
that executed them.

A warning printed in a cell (stderr) is a defect the reader sees on the site and nbval compares
byte for byte; its message carries the executing machine's absolute path to the library, which
the repository must never hold. Either would also make a clean clone's nbval fail.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for d in ("chapters", "solutions", "exercises") for p in (ROOT / d).rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
# an absolute path of a machine: a home, a temporary or a work folder, a site-packages
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:home|root|tmp|work|Users|opt|usr/lib|var/folders)/[\w.+-]+/")


def _outputs(nb: dict):
    for i, c in enumerate(nb.get("cells", [])):
        for o in c.get("outputs", []) if c.get("cell_type") == "code" else []:
            text = o.get("text", "")
            yield i, o, "".join(text) if isinstance(text, list) else text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_warning_and_no_machine_path_in_saved_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    stderr = [(i, t[:160]) for i, o, t in _outputs(nb) if o.get("name") == "stderr" and "Warning" in t]
    assert not stderr, f"warnings saved in the outputs (cell, text): {stderr}"
    raw = json.dumps([o for _, o, _ in _outputs(nb)], ensure_ascii=False)
    found = sorted(set(MACHINE_PATH.findall(raw)))
    assert not found, f"a machine's path saved in the outputs: {found}"


def test_the_rule_sees_a_saved_warning_path():
    line = "/home/user/lib/fleetcalc/ui/diagrams/x.py:44: UnitStrippedWarning: ..."
    assert MACHINE_PATH.search(line) and not MACHINE_PATH.search("see lib/fleetcalc/ui/diagrams/x.py, 1 GB/s")
