"""CONTRIBUTING.md's Python examples run, in order, as a notebook would run them.

Each ```python block is executed after the facade's setup cell in one namespace (blocks may use
names an earlier block defined); a block that no longer runs against the library fails here.
The exercise block registers into a scratch registry, so other tests' keys are untouched.
"""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
BLOCKS = [textwrap.dedent(m.group(1)) for m in re.finditer(r"(?ms)^ *```python\n(.*?)^ *```", TEXT)]


def test_contributing_has_its_examples():
    assert len(BLOCKS) >= 5


def test_every_python_example_runs(capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    ns: dict = {}
    exec("from fleetcalc.notebook import *", ns)
    for i, block in enumerate(BLOCKS):
        try:
            exec(compile(block, f"CONTRIBUTING.md python block {i + 1}", "exec"), ns)
        except Exception as e:  # noqa: BLE001 (report which block)
            pytest.fail(f"CONTRIBUTING.md python block {i + 1} fails: {type(e).__name__}: {e}\n{block}")
    out = capsys.readouterr().out
    # Eq. 28.14 at the book's inputs: the block's book_says line confirms 0.01757 s (Ch. 28 §28.5)
    assert "0.01757 s" in out and "✗" not in out
    # the ridge-point example: I* = 1000 TFLOP/s / 2 TB/s = 500 FLOP/byte (abstract device, §28.3, by hand)
    I = ns["ridge_point"](ns["hw"]("abstract_device.peak_flops"), ns["hw"]("abstract_device.hbm_bandwidth"))
    assert I.to("FLOP/byte").magnitude == pytest.approx(
        ns["hw"]("abstract_device.peak_flops").m_as("FLOP/s") / ns["hw"]("abstract_device.hbm_bandwidth").m_as("byte/s"))
