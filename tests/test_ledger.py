"""The number ledger as data (fleetcalc.core.ledger): records, their lines, and the one reader."""
from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import nbformat
import pytest

from fleetcalc.core.book import LEDGER, assume, book_says, vendor_note
from fleetcalc.core.ledger import CLASSES, KINDS, MARKERS, MIME, Record, by_kind, counts, emit, read_ledger
from fleetcalc.core.units import Q_

ROOT = Path(__file__).resolve().parent.parent

# One check of each kind, with the line each prints (the shapes of lib/fleetcalc/core/book.py's
# docstring; the values are the hand calculations of tests/test_book.py).
CHECKS = '''\
from fleetcalc.core.book import assume, book_says, vendor_note
from fleetcalc.core.units import Q_
# Eq. 28.14: 14 x (5 us + 32 MiB / 25 GiB/s) = 14 x 0.001255 s = 0.01757 s
book_says(14 * (Q_(5, "us") + Q_(32, "MiB") / Q_(25, "GiB/s")), "0.01757 s", where="Eq. 28.14", name="t_ring")
print("an ordinary line")
# 64 / (1 + 1/32) = 62.06, printed as 62.6
book_says(Q_(64 / (1 + 1 / 32), "FLOP/byte"), "62.6 FLOP/byte", where="t", erratum="dropped digit",
          correct="62.06 FLOP/byte")
# 3.15e23 FLOP / (8,192 x 1979e12 FLOP/s x 0.45) / 3600 = 11.99 h
book_says(Q_(3.15e23 / (8192 * 1979e12 * 0.45) / 3600, "hour"), "12.0 hour", where="line 2302", name="t",
          caveat="FP8 peak for a BF16 run")
'''
CHECKS_2 = '''\
book_says(Q_(4.1, "percent"), "4.1 %", where="§1.8", name="f", reconstruction="1.2 s back-solved from 4.1 %")
vendor_note("1,200 GB/s", Q_(300, "GB/s"), source="vendor datasheet", where="Table 2.x", name="ICI", note="per chip")
assume("1 s", where="§1.3", why="no per-step time given", name="t_step")
'''
LINES = [
    "[✓ book] Eq. 28.14 | t_ring = 0.017570 s | book: 0.01757 s",
    "[erratum] t | value = 62.06 FLOP/byte | book: 62.6 FLOP/byte | cause: dropped digit",
    "[caveat] line 2302 | t = 11.99 hour | book: 12.0 hour | caveat: FP8 peak for a BF16 run",
    "[reconstructed] §1.8 | f = 4.10 % | book: 4.1 % | rebuilt: 1.2 s back-solved from 4.1 %",
    "[vendor note] Table 2.x | ICI = 300 GB/s (vendor) | book: 1,200 GB/s | source: vendor datasheet | note: per chip",
    "[assumed] §1.3 | t_step = 1 s | why: no per-step time given",
]


def _code(src: str):
    return nbformat.v4.new_code_cell(src)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """A small notebook that makes one check of each kind, executed in a kernel (as the
    notebooks are), and saved: (path, notebook)."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Checks\n[✓ book] a marker in prose is no record"),
                _code(CHECKS), _code("x = 1\nx"), _code(CHECKS_2)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder = tmp_path_factory.mktemp("ledger")
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    path = folder / "checks.ipynb"
    nbformat.write(nb, path)
    return path, nb


def test_reader_finds_every_kind_in_order_with_its_cell(executed):
    path, nb = executed
    records = read_ledger(path)
    assert [r.kind for r in records] == ["confirmed", "erratum", "caveat", "reconstruction", "vendor", "assumed"]
    assert [r.cell for r in records] == [1, 1, 1, 3, 3, 3]
    assert [r.line() for r in records] == LINES
    # a path, the JSON dict and an nbformat node read the same
    assert read_ledger(json.loads(path.read_text(encoding="utf-8"))) == records == read_ledger(nb)


def test_each_output_is_the_line_and_the_record(executed):
    _, nb = executed
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    bundles = [o for o in outs if MIME in o.get("data", {})]
    assert [o.output_type for o in bundles] == ["display_data"] * 6
    assert [o.data["text/plain"] for o in bundles] == LINES   # what a reader sees and nbval compares
    assert set(bundles[0].data) == {"text/plain", MIME}
    # ordinary prints stay stream output, in their place between the records
    kinds = [o.output_type for o in nb.cells[1].outputs]
    assert kinds == ["display_data", "stream", "display_data", "display_data"]
    assert nb.cells[1].outputs[1].text == "an ordinary line\n"


def test_stored_record_is_stable(executed):
    """nbval compares the JSON too: it must hold only what the check computed (no time, no id, no
    cell number), in a fixed key order, the same in a kernel as in this process."""
    _, nb = executed
    stored = [o.data[MIME] for c in nb.cells if c.cell_type == "code" for o in c.outputs if MIME in o.get("data", {})]
    names = [f.name for f in fields(Record) if f.name != "cell"]
    assert all(list(d) == names for d in stored)
    start = len(LEDGER)
    ns: dict = {}
    exec(CHECKS + CHECKS_2, ns)
    assert [r.to_json() for r in LEDGER[start:]] == stored


def test_records_round_trip():
    r = Record("caveat", "line 1350", "loss", "2.7 %", "5 %", computed=2.732240437, unit="%", tolerance=0.5,
               hedge="'may'", verdict="differs", reason="clock deficit alone", why="the text gives a band")
    back = Record.from_json(json.loads(json.dumps(r.to_json())))
    assert back == r and back.cell is None
    assert Record.from_json(r.to_json(), cell=4).cell == 4
    with pytest.raises(ValueError, match="kind"):
        Record("confirmation", "w", "n", "1")


def test_line_of_each_kind_as_printed_before(capsys):
    """Outside IPython a check prints its line, and the line is the record's."""
    # 2048 GiB / 120 s = 17.0667 GiB/s (hand calculation), loosened: the text says 'about 17'
    book_says(Q_(2048, "GiB") / Q_(120, "s"), "17 GiB/s", where="Eq. 28.20", name="bw", rel=0.01,
              why="the text says about 17")
    assert capsys.readouterr().out == "[✓ book] Eq. 28.20 | bw = 17.1 GiB/s | book: 17 GiB/s | the text says about 17\n"
    rec = LEDGER[-1]
    assert (rec.kind, rec.verdict, rec.rel, rec.unit) == ("confirmed", "agrees", 0.01, "GiB/s")
    assert rec.computed == pytest.approx(2048 / 120) and rec.tolerance == pytest.approx(0.5)
    # 50 MHz of 1.83 GHz = 2.7 %; the book's hedged 5 % (Vol. 2 line 1350), with a tolerance remark
    book_says(Q_(50 / 1830 * 100, "percent"), "5 %", where="line 1350", name="loss", caveat="clock deficit alone",
              hedge="'may'")
    out = capsys.readouterr().out
    assert out == "[caveat] line 1350 | loss = 2.7 % | book: 5 % | caveat: clock deficit alone (the book hedges: 'may')\n"
    assert out.strip() == LEDGER[-1].line() and LEDGER[-1].verdict == "differs"
    hedged = Record("caveat", "w", "n", "1", "2", hedge="h", reason="c", why="y")
    assert hedged.line() == "[caveat] w | n = 1 | book: 2 | caveat: c (the book hedges: h) | y"
    assert hedged.detail() == "c (the book hedges: h) | y"
    vendor = Record("vendor", "w", "n", "300 GB/s", "1,200 GB/s", source="s", note="m")
    assert (vendor.shown, vendor.detail()) == ("300 GB/s (vendor)", "s; m")
    emit(vendor)
    assert capsys.readouterr().out == vendor.line() + "\n"


def test_erratum_record_keeps_the_computed_value_and_the_pinned_one():
    book_says(Q_(64 / (1 + 1 / 32), "FLOP/byte"), "62.6 FLOP/byte", where="t", erratum="dropped digit",
              correct="62.06 FLOP/byte")
    r = LEDGER[-1]
    assert (r.value, r.correct, r.verdict, r.reason) == ("62.06 FLOP/byte", "62.06 FLOP/byte", "differs", "dropped digit")
    assert r.computed == pytest.approx(62.0606, abs=1e-4) and r.tolerance == pytest.approx(0.05)


def test_quiet_vendor_note_is_recorded_but_not_shown(capsys):
    vendor_note("8.4 kW", "10.2 kW", source="x", where="w", quiet=True)
    assert capsys.readouterr().out == "" and LEDGER[-1].kind == "vendor"
    assert LEDGER[-1].computed == pytest.approx(10.2) and LEDGER[-1].unit == "kW"
    q = assume("2 GB", where="w", why="none given")
    assert q == Q_(2, "GB") and (LEDGER[-1].computed, LEDGER[-1].unit) == (2.0, "GB")


def test_grouping_and_counting():
    recs = [Record("confirmed", "a", "x", "1"), Record("erratum", "b", "y", "2"), Record("confirmed", "c", "z", "3")]
    assert [r.where for r in by_kind(recs)["confirmed"]] == ["a", "c"] and by_kind(recs)["assumed"] == []
    c = counts(recs)
    assert [c[k] for k in KINDS] == [2, 1, 0, 0, 0, 0]
    assert set(CLASSES) < set(KINDS) == set(MARKERS)


def test_counts_of_a_real_chapter_match_its_lines():
    """Independent of the reader: the `[✓ book]` lines in a chapter notebook's outputs (any output
    type) are as many as the confirmed records read_ledger finds, and each is a record's line."""
    path = ROOT / "chapters" / "ch28" / "28_3_roofline.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    lines = []
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            t = o.get("text") or o.get("data", {}).get("text/plain", "")
            lines += [ln for ln in ("".join(t) if isinstance(t, list) else t).splitlines()
                      if ln.startswith(MARKERS["confirmed"])]
    records = read_ledger(path)
    assert len(lines) >= 5
    assert counts(records)["confirmed"] == len(lines)
    assert [r.line() for r in records if r.kind == "confirmed"] == lines
