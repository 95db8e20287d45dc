"""§28.10's GPU cell takes its "no GPU" path cleanly on any machine: the GPU is hidden by patching
``measure.gpu_available``, so the test means the same on a laptop and on a GPU server."""
import contextlib
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from workbook.notebooks import nb as nbtool

from fleetcalc.physics import measure  # noqa: E402

SOURCE = ROOT / "chapters" / "ch28" / "28_10_measure.md"


def _gpu_cell():
    cells = [c.source for c in nbtool.read_md(SOURCE).cells
             if c.cell_type == "code" and "measure.gpu_available()" in c.source]
    assert len(cells) == 1, "28_10_measure has exactly one GPU cell"
    return cells[0]


def test_gpu_cell_without_a_gpu(monkeypatch):
    monkeypatch.setattr(measure, "gpu_available", lambda: False)
    def refuse(*a, **k):  # the no-GPU path must not touch the GPU calculators at all
        raise AssertionError("GPU calculator called without a GPU")
    monkeypatch.setattr(measure, "gpu_matmul_rate", refuse)
    monkeypatch.setattr(measure, "gpu_copy_bandwidth", refuse)
    out = io.StringIO()
    ns = {}
    with contextlib.redirect_stdout(out):
        exec("from fleetcalc.notebook import *\nfrom fleetcalc.physics import measure\n" + _gpu_cell(), ns)
    assert "GPU measurements skipped" in out.getvalue()


def test_gpu_library_calls_answer_none_without_a_gpu(monkeypatch):
    monkeypatch.setattr(measure, "gpu_available", lambda: False)
    assert measure.gpu_matmul_rate() is None and measure.gpu_copy_bandwidth() is None
