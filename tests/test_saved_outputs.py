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


# a ratio printed in scaled units: a number of five or more digits before its "x" / "×" (µs/s printed raw
# as "3333333.3 x"), or a unit left standing over itself ("µs / s", "GB / GiB") after a number
_T, _B = r"(?:µs|ms|ns|s)", r"(?:kB|MB|GB|TB|KiB|MiB|GiB|TiB)"
RAW_RATIO = re.compile(rf"(?<![\w.,])\d{{5,}}(?:\.\d+)?\s?(?:x|×)(?![\w])(?!\s*\d)|\d\s?(?:{_T}\s?/\s?{_T}|{_B}\s?/\s?{_B})(?![\w/])")


def _all_text(nb: dict):
    for i, o, t in _outputs(nb):
        data = o.get("data", {}).get("text/plain", "")
        yield i, t + ("".join(data) if isinstance(data, list) else data)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_ratio_printed_in_scaled_units(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    bad = [(i, m.group(0)) for i, t in _all_text(nb) for line in t.splitlines() for m in [RAW_RATIO.search(line)] if m]
    assert not bad, f"a ratio printed in scaled units (cell, text): {bad[:5]}"


def test_the_ratio_rule_sees_a_raw_ratio_and_spares_honest_ones():
    from fleetcalc.core.units import Q_, fmt

    assert RAW_RATIO.search("Table 2.9 NDR latency / Ch. 3 alpha: 3333333.3 to 6666666.7 x")
    assert RAW_RATIO.search("the two: 0.0003 µs/s") and RAW_RATIO.search("2.794 GB / GiB")
    assert not RAW_RATIO.search("ratio 3.3 to 6.7 x; 1,024 GPUs; 16384 x 4 tiles; 25 GB/s; 2 TB/s; 0.5 s/step")
    # the printer reduces a ratio of scaled units before it prints (10 µs / 3 s = 3.33e-6, not 3.33)
    assert fmt(Q_(10, "us") / Q_(3, "s"), sig=3) == "3.33e-6"
    assert fmt(Q_(3, "GB") / Q_(1, "GiB"), decimals=3) == "2.794"
