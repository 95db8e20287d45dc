"""Derived device tables: ridge points, generation-to-generation ratios, clocks implied by MAC
arrays, number formats and memory interfaces. Vol. 2 Ch. 2, accelerator sections (seed 001, lines
1217-1918; line numbers below point into that seed).

Hardware facts come from the catalog (``vol2_ch2_accelerators.toml``); this module only derives
columns from them (ridge points, ratios, efficiencies), never stores them. Roofline maths is
:mod:`fleetcalc.physics.roofline`; growth per year is :func:`fleetcalc.physics.trends.growth_factor_per_year`.

Symbols: ``R_peak`` peak rate (FLOP/s, dense unless a catalog entry says otherwise),
``beta_mem`` memory bandwidth (byte/s), ``f`` clock (Hz). Vol. 2 writes ``BW`` for the memory
bandwidth in Eq. 2.1 (I_ridge = R_peak / BW); Ch. 28 writes ``beta_mem``: the same quantity.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import roofline, trends
from fleetcalc.core.catalog import entry, hw
from fleetcalc.core.units import Quantity
from fleetcalc.core.calculator import anything, base_factor, calculator, choice, num, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, magnitude, out

__all__ = [
    "DEVICES", "device", "ridge_table", "GPU_GENERATIONS", "TPU_GENERATIONS", "gpu_generation_table",
    "tpu_generation_table", "ratio", "annual_growth", "project", "years_to_reach", "peak_from_macs", "implied_clock",
    "slowest_member_loss", "format_bits", "float_max_finite", "float_relative_step",
    "bytes_per_value", "interface_bandwidth", "pin_rate", "memory_cost", "fraction_held",
]

#: One bit in the kernels' base unit of information (bytes): a width of ``width`` bits is
#: ``width / BIT`` data pins.
BIT = base_factor("bit")
#: One year in the kernels' base unit (seconds).
YEAR = trends.YEAR

# The equation printer has no named unit constant (only pi and e): a formula that counts pins in
# bits or growth per year cannot be shown without a bare 0.125 or 31557600 in it.
_NEEDS_BIT = no_equation("needs a named unit constant (1 bit) in the expression: widths arrive in bytes "
                         "and the equation printer knows only pi and e")


#: Devices a roofline dropdown offers: label -> (peak entry, bandwidth entry). Each pairs a peak
#: with the memory it reads at the precision named; H200 shares the H100's compute (line 1541).
DEVICES: dict[str, tuple[str, str]] = {
    "H100 SXM, FP16 (989 TFLOP/s, 3.35 TB/s)": ("h100.peak_fp16", "h100.hbm_bandwidth"),
    "H100 SXM, FP8 (1979 TFLOP/s, 3.35 TB/s)": ("h100.peak_fp8", "h100.hbm_bandwidth"),
    "H200, FP16 (989 TFLOP/s, 4.8 TB/s)": ("h200.peak_fp16", "h200.hbm_bandwidth"),
    "A100, FP16 (312 TFLOP/s, 2.04 TB/s)": ("a100.peak_fp16", "a100.hbm_bandwidth"),
    "V100, FP16 (125 TFLOP/s, 0.9 TB/s)": ("v100.peak_fp16", "v100.hbm_bandwidth"),
    "B200, FP8 (4500 TFLOP/s, 8 TB/s)": ("b200.peak_fp8", "b200.hbm_bandwidth"),
    "TPU v5p, BF16 (459 TFLOP/s, 2.76 TB/s)": ("tpu_v5p.peak_bf16", "tpu_v5p.hbm_bandwidth"),
}


def device(key: str) -> dict:
    """Peak, bandwidth and ridge point of one :data:`DEVICES` entry (Eq. 2.1, line 1575)."""
    if not isinstance(key, str) or key not in DEVICES:
        raise InputError(f"key must be one of {list(DEVICES)}; got {key!r}")
    peak_path, bw_path = DEVICES[key]
    r, b = hw(peak_path), hw(bw_path)
    return {"R_peak": r, "beta_mem": b, "ridge": roofline.ridge_point(r, b),
            "precision": entry(peak_path).precision, "peak": entry(peak_path).peak}


def ridge_table() -> list[dict]:
    """One row per :data:`DEVICES` entry: R_peak, beta_mem, I_ridge = R_peak / beta_mem."""
    return [{"device": k, **device(k)} for k in DEVICES]


#: Table 2.2 (lines 1354-1362): the peak column mixes precisions (FP16 for V100/A100, FP8 for
#: H100/B200), as the table prints it.
GPU_GENERATIONS = {"V100": ("v100", "peak_fp16"), "A100": ("a100", "peak_fp16"),
                   "H100": ("h100", "peak_fp8"), "B200": ("b200", "peak_fp8")}
#: Table 2.3 (lines 1386-1396): v1's figure is INT8 TOPS, the rest BF16.
TPU_GENERATIONS = {"TPU v1": ("tpu_v1", "peak_int8"), "TPU v2": ("tpu_v2", "peak_bf16"),
                   "TPU v3": ("tpu_v3", "peak_bf16"), "TPU v4": ("tpu_v4", "peak_bf16"),
                   "TPU v5p": ("tpu_v5p", "peak_bf16")}


def ratio(new, old):
    """new / old for two amounts of one kind (a generation-to-generation factor, e.g. Table 2.2's
    NVLink 900 / 600 = 1.5x, line 1364). Both Quantities of one dimension, or both plain numbers."""
    return _ratio("new", new, "old", old)


def _ratio(new_name, new, old_name, old, new_gt=None):
    """:func:`ratio` with the caller's parameter names in its error messages."""
    if isinstance(new, Quantity) != isinstance(old, Quantity):
        raise InputError(f"{new_name} and {old_name} must both be Quantities or both plain numbers; "
                         f"got {new_name}={new!r}, {old_name}={old!r}")
    if isinstance(new, Quantity):
        o = magnitude(old_name, old, f"{new.units:D}", gt=0)
        n = magnitude(new_name, new, f"{new.units:D}", ge=None if new_gt is not None else 0, gt=new_gt)
    else:
        o = magnitude(old_name, old, "", gt=0)
        n = magnitude(new_name, new, "", ge=None if new_gt is not None else 0, gt=new_gt)
    return out(n / o, "")


@calculator(returns="", start=anything("an amount > 0: a Quantity, or a plain number"),
            end=anything("an amount > 0 of the same kind as start"),
            years=qty("year", gt=0, doc="time between start and end"),
            equation=no_equation("needs a named unit constant (1 year) in the expression: years arrive in "
                                 "seconds and the equation printer knows only pi and e"))
def annual_growth(start, end, years):
    """Compound yearly growth rate (end / start)^(1/years) - 1 (line 1738: TDP 300 W -> 1000 W in
    7 years). Uses :func:`fleetcalc.physics.trends.growth_factor_per_year`."""
    r = _ratio("end", end, "start", start, new_gt=0)
    try:
        return trends.growth_factor_per_year.kernel(r.magnitude, years) - 1.0
    except (OverflowError, InputError):  # inputs are checked: only the result can be out of range
        raise InputError(f"(end / start)^(1 / years) overflows; got end / start = {r.magnitude!r}, "
                         f"years = {years / YEAR!r}") from None


@calculator(returns=None, value=anything("a Quantity >= 0 in any unit (the result keeps it)"),
            rate=num(gt=-1, doc="growth per period"), periods=num(ge=0, doc="periods (may be fractional)"),
            equation=eq(r"V_n", "value*(1 + rate)**periods", symbols={"value": "V_0", "rate": "g", "periods": "n"},
                        ref="Vol. 2 Ch. 2, lines 1738-1740 (TDP carried forward at ~18 % a year)"))
def project(value, rate, periods):
    """value x (1 + rate)^periods: a quantity carried forward at a constant growth rate
    (line 1740's TDP planning scenario). ``periods`` may be fractional (years)."""
    if not isinstance(value, Quantity):
        raise InputError(f"value needs a Quantity (e.g. Q_(1000, 'W')); got {value!r}")
    magnitude("value", value, f"{value.units:D}", ge=0)
    with np.errstate(over="ignore"):
        factor = np.power(1.0 + np.asarray(rate, dtype=float), periods)
    if not np.all(np.isfinite(factor)):
        raise InputError(f"(1 + rate)^periods overflows; got rate={rate!r}, periods={periods!r}")
    return value * factor


@calculator(returns="year", start=anything("an amount > 0: a Quantity, or a plain number"),
            target=anything("an amount >= start of the same kind"), rate=num(gt=0, doc="growth per year"),
            equation=no_equation("needs a named unit constant (1 year) in the expression: the result "
                                 "leaves in seconds and the equation printer knows only pi and e"))
def years_to_reach(start, target, rate):
    """t = ln(target / start) / ln(1 + rate) (years): when a quantity growing at ``rate`` per year
    reaches ``target`` (line 1740: when does a 1000 W accelerator reach 2000 W?)."""
    r = _ratio("target", target, "start", start).magnitude
    if np.any(np.asarray(r) < 1):
        raise InputError(f"target must be >= start; got {target} < {start}")
    return YEAR * np.log(r) / np.log1p(rate)


_UNITS = whole(doc="MAC units (tensor cores, systolic arrays)")
_MACS = whole(doc="MACs per unit per clock")
_MAC_SYMBOLS = {"units": r"n_{\mathrm{units}}", "macs_per_clock": r"n_{\mathrm{MAC}}"}
_FORMAT_SYMBOLS = {"exponent_bits": "e", "mantissa_bits": "m", "sign_bits": "s", "ieee": r"\mathrm{IEEE}"}


@calculator(returns="FLOP/s", units=_UNITS, macs_per_clock=_MACS, f=qty("Hz", gt=0, doc="clock"),
            equation=eq(r"R_{\mathrm{peak}}", "2*units*macs_per_clock*f", symbols=_MAC_SYMBOLS,
                        ref="Vol. 2 Ch. 2, lines 1268, 1665 and 1680 (one MAC is 2 FLOP)"))
def peak_from_macs(units, macs_per_clock, f):
    """R_peak = 2 x units x MACs per unit per clock x f (FLOP/s): one MAC is 2 FLOP.
    A 256x256 systolic array is one unit of 65,536 MACs per clock (TPU v1, line 1268); an H100
    tensor core does 512 FP16 MACs per clock (line 1680), 528 of them (line 1665)."""
    return 2.0 * units * macs_per_clock * f


@calculator(returns="GHz", R_peak=qty("FLOP/s", gt=0, doc="quoted peak"), units=_UNITS, macs_per_clock=_MACS,
            equation=eq("f", "R_peak/(2*units*macs_per_clock)", symbols=_MAC_SYMBOLS,
                        ref="Vol. 2 Ch. 2, lines 1665 and 1680 (the clock a quoted peak needs)"))
def implied_clock(R_peak, units, macs_per_clock):
    """f = R_peak / (2 x units x MACs per clock): the clock a quoted peak needs (GHz).
    A result far above ~2 GHz means the quoted array count cannot give the quoted peak."""
    return R_peak / peak_from_macs.kernel(units, macs_per_clock, 1.0)  # the peak at a clock of 1 Hz


@calculator(returns="", f_nominal=qty("Hz", gt=0, doc="nominal clock"),
            deficit=qty("Hz", ge=0, doc="how far the slowest member runs below it"),
            equation=eq(r"\mathrm{loss}", "deficit/f_nominal", symbols={"deficit": r"\Delta f"},
                        ref="Vol. 2 Ch. 2, line 1350 (one chip 50 MHz below the fleet)"))
def slowest_member_loss(f_nominal, deficit):
    """Throughput lost by a synchronous job when one member runs ``deficit`` below the nominal
    clock: every step waits for the slowest, so the loss is deficit / f_nominal (line 1350).
    Assumes step time proportional to 1/clock (compute-bound)."""
    if np.any(deficit >= f_nominal):
        raise InputError(f"deficit must be < f_nominal ({np.min(f_nominal):g} Hz); got {np.max(deficit):g} Hz")
    return deficit / f_nominal


# --- number formats (Table 2.6, lines 1798-1818; FP8 formats lines 1688-1690) -----------------

@calculator(returns="bit", exponent_bits=whole(doc="exponent field"), mantissa_bits=whole(ge=0, doc="mantissa field"),
            sign_bits=whole(ge=0, doc="sign field"), equation=_NEEDS_BIT)
def format_bits(exponent_bits, mantissa_bits, sign_bits=1):
    """Total width of a floating-point format: sign + exponent + mantissa (Table 2.6)."""
    return (sign_bits + exponent_bits + mantissa_bits) * BIT


@calculator(returns="", exponent_bits=whole(ge=2, le=11, doc="exponent field (FP64 has 11; more overflows)"),
            mantissa_bits=whole(ge=1, doc="mantissa field"),
            ieee=choice(True, False, doc="IEEE-like (inf/NaN reserved) or OCP 'FN' (E4M3)"),
            equation=eq(r"x_{\max}", "(2 - 2**(-mantissa_bits))*2**(2**exponent_bits - 2 - bias) if ieee else "
                        "(2 - 2**(-(mantissa_bits - 1)))*2**(2**exponent_bits - 1 - bias)",
                        where=[("bias", "2**(exponent_bits - 1) - 1")], symbols=_FORMAT_SYMBOLS,
                        ref="Vol. 2 Ch. 2, Table 2.6 and lines 1688-1690 (E4M3 448, E5M2 57,344)"))
def float_max_finite(exponent_bits, mantissa_bits, ieee=True):
    """Largest finite value of a binary float format with bias 2^(e-1) - 1.

    IEEE-like (inf/NaN take the all-ones exponent; FP16, BF16, FP8 E5M2):
    (2 - 2^-m) x 2^(2^e - 2 - bias)  -> E5M2 = 57,344 (line 1690).
    ``ieee=False`` is the OCP "FN" convention of FP8 E4M3 (no inf; only the all-ones pattern is
    NaN, so the top binade holds normals): (2 - 2^-(m-1)) x 2^(2^e - 1 - bias) -> 448 (line 1688).
    """
    e, m = np.asarray(exponent_bits, dtype=float), np.asarray(mantissa_bits, dtype=float)
    bias = 2.0 ** (e - 1) - 1
    if ieee:
        return (2.0 - 2.0 ** -m) * 2.0 ** (2.0 ** e - 2 - bias)
    if np.any(e > 10):
        # the FN top binade of an 11-bit exponent is 2^1024, beyond a float64
        raise InputError(f"exponent_bits must be <= 10 with ieee=False (larger overflows); got {exponent_bits!r}")
    return (2.0 - 2.0 ** -(m - 1)) * 2.0 ** (2.0 ** e - 1 - bias)


@calculator(returns="", mantissa_bits=whole(ge=0, doc="mantissa field"),
            equation=eq(r"\epsilon", "2**(-mantissa_bits)", symbols=_FORMAT_SYMBOLS,
                        ref="Vol. 2 Ch. 2, lines 1688-1690 (relative precision 1/8 for E4M3, 1/4 for E5M2)"))
def float_relative_step(mantissa_bits):
    """2^-m: the gap between 1 and the next value (the text's 'relative precision', 1/8 for
    E4M3 and 1/4 for E5M2, lines 1688-1690). The worst rounding error is half of it."""
    return 2.0 ** -np.asarray(mantissa_bits, dtype=float)


@calculator(returns="byte", bits=qty("bit", gt=0, doc="bits per value"),
            equation=no_equation("a change of unit (bits to bytes) that the declared units make; "
                                 "the kernel's value passes through"))
def bytes_per_value(bits):
    """Bytes one value occupies: bits / 8 (FP16 = 2 byte, INT4 = 0.5 byte; lines 1510-1512)."""
    return bits  # in bytes already: the declaration converts


# --- memory interfaces (§HBM, lines 1430-1470, 1522) ------------------------------------------

_WIDTH = qty("bit", gt=0, doc="data pins per interface")
_INTERFACES = whole(doc="buses (channels, stacks)")


@calculator(returns="byte/s", width=_WIDTH, pin_rate=qty("bit/s", gt=0, doc="data rate per pin"),
            interfaces=_INTERFACES, equation=_NEEDS_BIT)
def interface_bandwidth(width, pin_rate, interfaces=1):
    """Peak bandwidth of ``interfaces`` buses of ``width`` data pins at ``pin_rate`` each:
    interfaces x width x pin rate (byte/s). DDR5: 8 channels x 64 bit x 4.8 Gb/s (lines 1438-1440)."""
    return interfaces * (width / BIT) * pin_rate  # width / BIT: the number of data pins


@calculator(returns="Gbit/s", bandwidth=qty("bit/s", gt=0, doc="bandwidth of all interfaces"), width=_WIDTH,
            interfaces=_INTERFACES, equation=_NEEDS_BIT)
def pin_rate(bandwidth, width, interfaces=1):
    """Per-pin data rate a bandwidth implies: bandwidth / (interfaces x width) (Gb/s).
    H100: 670 GB/s per 1024-bit HBM3 stack (line 1522)."""
    return bandwidth / (interfaces * (width / BIT))  # width / BIT: the number of data pins


@calculator(returns="cu", capacity=qty("GB", ge=0, doc="memory per device"),
            price=qty("cu/GB", ge=0, doc="price per GB"), devices=whole(doc="devices"),
            equation=eq(r"C_{\mathrm{mem}}", "devices*capacity*price",
                        symbols={"devices": "N", "capacity": r"M_{\mathrm{dev}}", "price": r"p_{\mathrm{GB}}"},
                        ref="Vol. 2 Ch. 2, line 1478 (H100: 80 GB x $10-15/GB)"))
def memory_cost(capacity, price, devices=1):
    """devices x capacity x price per GB (cu; the text's $): H100 80 GB x $10-15 (line 1478)."""
    return devices * capacity * price


@calculator(returns="", capacity=qty("byte", ge=0, doc="memory available"), size=qty("byte", gt=0, doc="bytes to hold"),
            equation=eq(r"f_{\mathrm{held}}", "min(capacity/size, 1)",
                        ref="Vol. 2 Ch. 2, line 1510 (A100 80 GB of 350 GB = 23 %)"))
def fraction_held(capacity, size):
    """Share of ``size`` bytes that ``capacity`` holds, capped at 1 (A100 80 GB of 350 GB = 23 %,
    line 1510)."""
    return np.minimum(capacity / size, 1.0)


# --- generation tables (Tables 2.2 and 2.3) ---------------------------------------------------

def gpu_generation_table() -> list[dict]:
    """Table 2.2 with its derived columns: efficiency (peak / TDP) and each column's ratio to the
    previous generation. The peak column is the table's (mixed precision, see GPU_GENERATIONS)."""
    from fleetcalc.physics.energy import flops_per_watt

    rows, prev = [], None
    for name, (dev, peak_key) in GPU_GENERATIONS.items():
        r = hw(f"{dev}.{peak_key}")
        row = {"gpu": name, "year": int(hw(f"{dev}.year").magnitude), "R_peak": r,
               "precision": entry(f"{dev}.{peak_key}").precision, "tdp": hw(f"{dev}.tdp"),
               "nvlink": hw(f"{dev}.nvlink"), "beta_mem": hw(f"{dev}.hbm_bandwidth")}
        row["efficiency"] = flops_per_watt(r, row["tdp"])
        row["ridge"] = roofline.ridge_point(r, row["beta_mem"])
        for col in ("R_peak", "tdp", "nvlink", "beta_mem", "efficiency"):
            row[f"{col}_x_prev"] = ratio(row[col], prev[col]) if prev else None
        rows.append(row)
        prev = row
    return rows


def tpu_generation_table() -> list[dict]:
    """Table 2.3 with ratios to the previous generation (v1 has no HBM or ICI: '—' in the table)."""
    rows, prev = [], None
    for name, (dev, peak_key) in TPU_GENERATIONS.items():
        row = {"tpu": name, "year": int(hw(f"{dev}.year").magnitude), "R_peak": hw(f"{dev}.{peak_key}"),
               "precision": entry(f"{dev}.{peak_key}").precision}
        for col, key in (("hbm", "hbm_capacity"), ("ici", "ici")):
            try:
                row[col] = hw(f"{dev}.{key}")
            except KeyError:
                row[col] = None
        for col in ("R_peak", "hbm", "ici"):
            ok = prev is not None and row[col] is not None and prev[col] is not None
            row[f"{col}_x_prev"] = ratio(row[col], prev[col]) if ok else None
        rows.append(row)
        prev = row
    return rows
