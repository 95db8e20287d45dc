"""book_says: the check that ties every printed number to a lib call (fleetcalc.book)."""
import pytest

from fleetcalc.book import LEDGER, BookMismatch, assume, book_says
from fleetcalc.units import Q_


def test_agreeing_number_prints_one_line(capsys):
    # Eq. 28.14: 14 x (5 us + 32 MiB / 25 GiB/s) = 14 x 0.001255 s = 0.01757 s (hand calculation)
    t = 14 * (Q_(5, "us") + Q_(32, "MiB") / Q_(25, "GiB/s"))
    assert book_says(t, "0.01757 s", where="Eq. 28.14", name="t_ring") is None
    line = capsys.readouterr().out.strip()
    assert line.startswith("[✓ book] Eq. 28.14 | t_ring = 0.0175") and line.endswith("book: 0.01757 s")
    assert LEDGER[-1].status == "confirmed"


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
