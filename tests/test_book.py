"""book_says: the check that ties every printed number to a lib call (fleetcalc.core.book)."""
import pytest

from fleetcalc.core.book import LEDGER, BookMismatch, assume, book_says
from fleetcalc.core.units import Q_


def test_agreeing_number_prints_one_line(capsys):
    # Eq. 28.14: 14 x (5 us + 32 MiB / 25 GiB/s) = 14 x 0.001255 s = 0.01757 s (hand calculation)
    t = 14 * (Q_(5, "us") + Q_(32, "MiB") / Q_(25, "GiB/s"))
    assert book_says(t, "0.01757 s", where="Eq. 28.14", name="t_ring") is None
    line = capsys.readouterr().out.strip()
    assert line.startswith("[✓ book] Eq. 28.14 | t_ring = 0.0175") and line.endswith("book: 0.01757 s")
    assert LEDGER[-1].kind == "confirmed"


def test_disagreement_raises_and_names_everything():
    # a wrong printed number must fail: 0.01757 s printed as 0.01767 s
    t = 14 * (Q_(5, "us") + Q_(32, "MiB") / Q_(25, "GiB/s"))
    with pytest.raises(BookMismatch, match=r"Eq. 28.14: t_ring recomputes to .* book prints 0.01767 s"):
        book_says(t, "0.01767 s", where="Eq. 28.14", name="t_ring")


def test_precision_is_the_books():
    # 2048/120 = 17.0667 GiB/s: fine at "17.067", wrong at "17.07" +- 0.005? (17.0667 rounds to 17.07: ok)
    bw = Q_(2048, "GiB") / Q_(120, "s")
    book_says(bw, "17.067 GiB/s", where="Eq. 28.20")
    book_says(bw, "17.07 GiB/s", where="Eq. 28.20")
    with pytest.raises(BookMismatch):
        book_says(bw, "17.066 GiB/s", where="Eq. 28.20")
    with pytest.raises(BookMismatch):  # units are converted, not ignored: 17.067 GB/s is not 17.067 GiB/s
        book_says(bw, "17.067 GB/s", where="Eq. 28.20")


def test_wrong_dimension_is_a_mismatch():
    with pytest.raises(BookMismatch, match="cannot compare"):
        book_says(Q_(2, "s"), "2 GB", where="x")


def test_erratum_passes_only_while_the_book_is_wrong(capsys):
    # 62.06 printed as 62.6 would be an erratum; the corrected value is pinned
    value = Q_(64 / (1 + 1 / 32), "FLOP/byte")
    book_says(value, "62.6 FLOP/byte", where="t", erratum="dropped digit", correct="62.06 FLOP/byte")
    assert "[erratum] t | value = 62.06 FLOP/byte | book: 62.6 FLOP/byte | cause: dropped digit" in capsys.readouterr().out
    with pytest.raises(BookMismatch, match="now agrees"):
        book_says(value, "62.06 FLOP/byte", where="t", erratum="dropped digit")
    with pytest.raises(BookMismatch, match="pins the corrected value"):
        book_says(value, "62.6 FLOP/byte", where="t", erratum="dropped digit", correct="62.10 FLOP/byte")


def test_loosened_comparison_needs_a_reason():
    with pytest.raises(ValueError, match="why"):
        book_says(Q_(19, "GB"), "20 GB", where="x", rel=0.1)
    book_says(Q_(19.5, "GB"), "20 GB", where="x", rel=0.05, why="the text says about 20 GB")


def test_assume_prints_and_returns_quantity(capsys):
    q = assume("1 s", where="§1.3", why="no per-step time given")
    assert q == Q_(1, "s")
    assert capsys.readouterr().out.startswith("[assumed] §1.3 | input = 1 s | why: no per-step time given")


# ----------------------------------------------------------------------------- the four classes

from fleetcalc.core.book import CLASSES, MARKERS, vendor_note  # noqa: E402


def test_caveat_must_follow_and_prints_its_own_marker(capsys):
    # Vol. 2 line 2302: 3.15e23 FLOP / (8,192 x 1979e12 FLOP/s x 0.45) / 3600 = 11.99 h (hand calculation)
    t = Q_(3.15e23 / (8192 * 1979e12 * 0.45) / 3600, "hour")
    book_says(t, "12.0 hour", where="line 2302", name="t", caveat="FP8 peak for a BF16 run")
    out = capsys.readouterr().out
    assert out.startswith("[caveat] line 2302 | t = 11.99 hour | book: 12.0 hour | caveat: FP8 peak")
    assert "✓" not in out and LEDGER[-1].kind == "caveat"
    # a caveat is pinned: if the number stops following from the inputs, it fails
    with pytest.raises(BookMismatch, match="caveat"):
        book_says(t, "24.0 hour", where="line 2302", name="t", caveat="FP8 peak for a BF16 run")


def test_hedged_caveat_passes_only_while_the_two_differ(capsys):
    # Vol. 2 line 1350: a 50 MHz deficit of 1.83 GHz costs 50/1830 = 2.7 %; the text says 'may ... 5-10 %'
    loss = Q_(50 / 1830 * 100, "percent")
    book_says(loss, "5 %", where="line 1350", name="loss", caveat="clock deficit alone", hedge="'may'")
    out = capsys.readouterr().out
    assert out.startswith("[caveat] line 1350 | loss = 2.7 % | book: 5 %") and "(the book hedges: 'may')" in out
    with pytest.raises(BookMismatch, match="now agrees"):
        book_says(Q_(5, "percent"), "5 %", where="line 1350", caveat="clock deficit alone", hedge="'may'")
    with pytest.raises(ValueError, match="caveat"):
        book_says(loss, "5 %", where="line 1350", hedge="'may'")


def test_reconstruction_is_never_a_confirmation(capsys):
    # Vol. 2 §1.8: a compute time back-solved from the printed 4.1 % gives 4.1 % back
    f = Q_(4.1, "percent")
    book_says(f, "4.1 %", where="§1.8", name="f", reconstruction="1.2 s back-solved from 4.1 %")
    out = capsys.readouterr().out
    assert out.startswith("[reconstructed] §1.8 | f = 4.10 % | book: 4.1 % | rebuilt: 1.2 s back-solved")
    assert "✓" not in out and LEDGER[-1].kind == "reconstruction"
    with pytest.raises(BookMismatch, match="reconstruction"):
        book_says(f, "4.3 %", where="§1.8", name="f", reconstruction="1.2 s back-solved from 4.1 %")


def test_vendor_note_shows_both_and_fails_when_they_agree(capsys):
    # Vol. 2 Table 2.x gives TPU v4 ICI 1,200 GB/s; the book figure and the vendor figure differ
    vn = vendor_note("1,200 GB/s", Q_(300, "GB/s"), source="vendor datasheet", where="Table 2.x", name="ICI")
    out = capsys.readouterr().out
    assert out.startswith("[vendor note] Table 2.x | ICI = 300 GB/s (vendor) | book: 1,200 GB/s | source: vendor datasheet")
    assert (vn.book, vn.vendor) == ("1,200 GB/s", "300 GB/s") and LEDGER[-1].kind == "vendor"
    with pytest.raises(BookMismatch, match="agrees"):
        vendor_note("8.4 kW", "8,400 W", source="x", where="w")
    with pytest.raises(BookMismatch, match="cannot compare"):
        vendor_note("8.4 kW", "8.4 GB", source="x", where="w")
    with pytest.raises(ValueError, match="source"):
        vendor_note("8.4 kW", "10.2 kW", source=" ", where="w")
    vendor_note("8.4 kW", "10.2 kW", source="x", where="w", quiet=True)
    assert capsys.readouterr().out == ""


def test_one_class_per_number_and_no_empty_reasons():
    with pytest.raises(ValueError, match="one class"):
        book_says(Q_(1, ""), "2", where="w", erratum="a", caveat="b")
    with pytest.raises(ValueError, match="must say something"):
        book_says(Q_(1, ""), "1", where="w", caveat=" ")
    with pytest.raises(ValueError, match="erratum"):
        book_says(Q_(1, ""), "1", where="w", correct="1")
    assert CLASSES == ("erratum", "caveat", "vendor", "reconstruction")
    assert len(set(MARKERS.values())) == len(MARKERS) == 6


def test_worded_comparison_is_checked_as_a_claim(capsys):
    # Vol. 2 line 778: 1.4x a year against Moore's law (doubling in ~2 years = 2**0.5 = 1.414x a year);
    # "far above" read at its weakest, "> 1": 4 / 1.414 = 2.83 holds, 1.4 / 1.414 = 0.99 does not
    book_says(Q_(4 / 2 ** 0.5, ""), "> 1", where="line 778", name="DL era / Moore")
    assert capsys.readouterr().out.startswith("[✓ book] line 778 | DL era / Moore = 2.828 | book: > 1")
    with pytest.raises(BookMismatch, match="claim does not hold"):
        book_says(Q_(1.4 / 2 ** 0.5, ""), "> 1", where="line 778", name="pre-2010 / Moore")
    book_says(Q_(1.4 / 2 ** 0.5, ""), "> 1", where="line 778", erratum="in line with Moore", correct="0.99")
    with pytest.raises(BookMismatch, match="now agrees"):
        book_says(Q_(4 / 2 ** 0.5, ""), "> 1", where="line 778", erratum="in line with Moore")


def test_a_value_below_the_printed_precision_is_not_shown_as_zero():
    # §1.7 (line 928): CI* = 50 GB/s / 989 TFLOP/s = 5.06e-5 byte/FLOP against the printed 0.01
    from fleetcalc.core.book import _shown
    from fleetcalc.core.units import Q_
    assert _shown(5.0556e-5, Q_(0.01, "byte/FLOP"), 0.005, "0.01 byte/FLOP") == "5.1×10^-5 byte/FLOP"
    assert _shown(0.0123, Q_(0.01, "byte/FLOP"), 0.005, "0.01 byte/FLOP") == "0.012 byte/FLOP"
