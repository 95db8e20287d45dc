"""The unit registry and the formatter (fleetcalc.core.units)."""
import math

import pytest

from fleetcalc.core.units import FormatError, Q_, fmt, parse_printed


def test_decimal_and_binary_bytes_differ():
    # GB = 10^9 byte, GiB = 2^30 byte (Ch. 28 §28.1)
    assert Q_(1, "GiB").to("byte").magnitude == 2**30
    assert Q_(1, "GB").to("byte").magnitude == 10**9


def test_bits_are_not_bytes_and_gb_is_gigabit():
    # Gb/s vs GB/s: eight bits per byte (Ch. 28 §28.1); 400 Gb/s = 50 GB/s by hand
    assert Q_(400, "Gb/s").to("GB/s").magnitude == pytest.approx(50)
    assert Q_(1, "b").to("bit").magnitude == 1


def test_bandwidth_is_not_a_frequency():
    with pytest.raises(Exception):
        Q_(2, "GB/s").to("Hz")


def test_workbook_units_have_their_own_dimensions():
    assert Q_(1, "TFLOP/s").to("FLOP/s").magnitude == 1e12
    assert Q_(64 * 20000, "token/s").to("token/h").magnitude == 64 * 20000 * 3600
    with pytest.raises(Exception):
        Q_(1, "token").to("request")
    assert Q_(5, "cu/device/h").dimensionality != Q_(5, "1/h").dimensionality


def test_fmt_decimals_and_units():
    # 5.12e6 byte/s = 4.8828 MiB/s (Ch. 28 Eq. 28.18 prints 4.883)
    assert fmt(Q_(5.12e6, "byte/s"), "MiB/s", 3) == "4.883 MiB/s"
    assert fmt(Q_(1234567, "byte"), "byte", 0) == "1,234,567 byte"
    assert fmt(Q_(0.01757, "s"), "ms", 2) == "17.57 ms"
    assert fmt(Q_(3219.94, "s"), "s", sig=3) == "3.22e3 s"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_fmt_refuses_non_finite(bad):
    with pytest.raises(FormatError, match="non-finite"):
        fmt(Q_(bad, "s"), "s", 2)


def test_fmt_refuses_non_zero_shown_as_zero():
    with pytest.raises(FormatError, match="would print as 0.00"):
        fmt(Q_(1e-6, "s"), "s", 2)
    assert fmt(Q_(1e-6, "s"), "us", 2) == "1.00 us"
    assert fmt(Q_(0, "s"), "s", 2) == "0.00 s"


def test_parse_printed_precision():
    q, half = parse_printed("0.01757 s")
    assert q.magnitude == 0.01757 and q.units == Q_(1, "s").units and half == pytest.approx(0.000005)
    q, half = parse_printed("1.28×10^6 token/s")
    assert q.magnitude == pytest.approx(1.28e6) and half == pytest.approx(5000)
    q, half = parse_printed("88,888.89 cu")
    assert q.magnitude == pytest.approx(88888.89) and half == pytest.approx(0.005)
    q, half = parse_printed("1.86%")
    assert q.to("").magnitude == pytest.approx(0.0186) and math.isclose(half, 0.005)
    with pytest.raises(ValueError):
        parse_printed("about twenty")


def test_auto_unit_picks_the_prefix_a_reader_expects():
    # hand values: 262,144 KiB = 256 MiB (2^18 KiB / 2^10); 0.01757 s = 17.57 ms;
    # 400 Gb/s stays in bits; 2,100 W = 2.1 kW
    from fleetcalc.core.units import Q_, fmt
    assert fmt(Q_(262144, "KiB"), "auto", sig=3) == "256 MiB"
    assert fmt(Q_(0.01757, "s"), "auto", sig=4) == "17.57 ms"
    assert fmt(Q_(400, "Gb/s"), "auto", sig=3) == "400 Gb/s"
    assert fmt(Q_(2100, "W"), "auto", sig=3) == "2.1 kW"
    assert fmt(Q_(5e9, "B"), "auto", sig=3) == "5 GB"
    assert fmt(Q_(0, "s"), "auto", sig=2) == "0 s"


def test_import_fleetcalc_is_cheap_and_loads_pint_on_first_use():
    """``import fleetcalc`` defers pint and numpy (target < 0.3 s CPU, bench/README.md); the names
    it exports still work. CPU time (not wall) in a fresh interpreter, so a loaded machine does not
    flake: it measures a few milliseconds, a hundred times under the target."""
    import subprocess
    import sys

    code = ("import sys, time\n"
            "t = time.process_time()\n"
            "import fleetcalc\n"
            "cpu = time.process_time() - t\n"
            "assert 'pint' not in sys.modules and 'numpy' not in sys.modules, 'import fleetcalc loaded pint'\n"
            "from fleetcalc import Q_, ureg, fmt\n"
            "assert fmt(Q_(256, 'MiB'), 'auto', sig=3) == '256 MiB' and Q_ is ureg.Quantity\n"
            "print(cpu)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.split()[-1]) < 0.3


def test_fmt_grouping_and_number_alone():
    # by hand: 16384 to 4 significant digits needs an exponent (%g switches at 10^sig): 1.638e4;
    # 1234 fits in 4 digits and takes a thousands separator; 1234.5 GB at one decimal likewise
    assert fmt(16384.0, sig=4, grouping=True) == "1.638e4"
    assert fmt(1234.0, sig=4, grouping=True) == "1,234"
    assert fmt(Q_(1234.5, "GB"), "GB", 1, grouping=True) == "1,234.5 GB"
    assert fmt(Q_(1234, "GB"), "GB", 0, grouping=False) == "1234 GB"
    assert fmt(Q_(1024, "bit"), "bit", 0, with_unit=False) == "1,024"   # "1,024-bit bus" labels
    assert fmt(Q_(0.0123, ""), "%", 2) == "1.23 %"
