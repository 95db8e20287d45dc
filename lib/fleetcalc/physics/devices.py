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
from fleetcalc.core.units import Q_, Quantity
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "DEVICES", "device", "ridge_table", "GPU_GENERATIONS", "TPU_GENERATIONS", "gpu_generation_table",
    "tpu_generation_table", "ratio", "annual_growth", "project", "years_to_reach", "peak_from_macs", "implied_clock",
    "slowest_member_loss", "format_bits", "float_max_finite", "float_relative_step",
    "bytes_per_value", "interface_bandwidth", "pin_rate", "memory_cost", "fraction_held",
]

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


def annual_growth(start, end, years):
    """Compound yearly growth rate (end / start)^(1/years) - 1 (line 1738: TDP 300 W -> 1000 W in
    7 years). Uses :func:`fleetcalc.physics.trends.growth_factor_per_year`."""
    r = _ratio("end", end, "start", start, new_gt=0)
    magnitude("years", years, "year", gt=0)
    return out(trends.growth_factor_per_year(r, years).magnitude - 1.0, "")


def project(value, rate, periods):
    """value x (1 + rate)^periods: a quantity carried forward at a constant growth rate
    (line 1740's TDP planning scenario). ``periods`` may be fractional (years)."""
    g = magnitude("rate", rate, "", gt=-1)
    n = magnitude("periods", periods, "", ge=0)
    if not isinstance(value, Quantity):
        raise InputError(f"value needs a Quantity (e.g. Q_(1000, 'W')); got {value!r}")
    magnitude("value", value, f"{value.units:D}", ge=0)
    return value * (1.0 + g) ** n


def years_to_reach(start, target, rate):
    """t = ln(target / start) / ln(1 + rate) (years): when a quantity growing at ``rate`` per year
    reaches ``target`` (line 1740: when does a 1000 W accelerator reach 2000 W?)."""
    g = magnitude("rate", rate, "", gt=0)
    r = _ratio("target", target, "start", start).magnitude
    if np.any(np.asarray(r) < 1):
        raise InputError(f"target must be >= start; got {target} < {start}")
    return out(np.log(r) / np.log1p(g), "year")


def peak_from_macs(units, macs_per_clock, f):
    """R_peak = 2 x units x MACs per unit per clock x f (FLOP/s): one MAC is 2 FLOP.
    A 256x256 systolic array is one unit of 65,536 MACs per clock (TPU v1, line 1268); an H100
    tensor core does 512 FP16 MACs per clock (line 1680), 528 of them (line 1665)."""
    u = count("units", units)
    m = count("macs_per_clock", macs_per_clock)
    hz = magnitude("f", f, "Hz", gt=0)
    return out(2.0 * u * m * hz, "FLOP/s")


def implied_clock(R_peak, units, macs_per_clock):
    """f = R_peak / (2 x units x MACs per clock): the clock a quoted peak needs (GHz).
    A result far above ~2 GHz means the quoted array count cannot give the quoted peak."""
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    u = count("units", units)
    m = count("macs_per_clock", macs_per_clock)
    return out(r / (2.0 * u * m) / 1e9, "GHz")


def slowest_member_loss(f_nominal, deficit):
    """Throughput lost by a synchronous job when one member runs ``deficit`` below the nominal
    clock: every step waits for the slowest, so the loss is deficit / f_nominal (line 1350).
    Assumes step time proportional to 1/clock (compute-bound)."""
    f = magnitude("f_nominal", f_nominal, "Hz", gt=0)
    d = magnitude("deficit", deficit, "Hz", ge=0)
    if np.any(d >= f):
        raise InputError(f"deficit must be < f_nominal ({f_nominal}); got {deficit}")
    return out(d / f, "")


# --- number formats (Table 2.6, lines 1798-1818; FP8 formats lines 1688-1690) -----------------

def format_bits(exponent_bits, mantissa_bits, sign_bits=1):
    """Total width of a floating-point format: sign + exponent + mantissa (Table 2.6)."""
    e = count("exponent_bits", exponent_bits)
    m = count("mantissa_bits", mantissa_bits, ge=0)
    s = count("sign_bits", sign_bits, ge=0)
    return out(s + e + m, "bit")


def float_max_finite(exponent_bits, mantissa_bits, ieee=True):
    """Largest finite value of a binary float format with bias 2^(e-1) - 1.

    IEEE-like (inf/NaN take the all-ones exponent; FP16, BF16, FP8 E5M2):
    (2 - 2^-m) x 2^(2^e - 2 - bias)  -> E5M2 = 57,344 (line 1690).
    ``ieee=False`` is the OCP "FN" convention of FP8 E4M3 (no inf; only the all-ones pattern is
    NaN, so the top binade holds normals): (2 - 2^-(m-1)) x 2^(2^e - 1 - bias) -> 448 (line 1688).
    """
    e = count("exponent_bits", exponent_bits, ge=2)
    if np.any(np.asarray(e) > 11):
        # 2^(2^e - 2 - bias) overflows a float64 beyond FP64's 11 exponent bits.
        raise InputError(f"exponent_bits must be <= 11 (FP64's exponent; larger overflows); "
                         f"got {exponent_bits!r}")
    m = count("mantissa_bits", mantissa_bits, ge=1)
    bias = 2.0 ** (e - 1) - 1
    if ieee:
        return out((2.0 - 2.0 ** -m) * 2.0 ** (2.0 ** e - 2 - bias), "")
    return out((2.0 - 2.0 ** -(m - 1)) * 2.0 ** (2.0 ** e - 1 - bias), "")


def float_relative_step(mantissa_bits):
    """2^-m: the gap between 1 and the next value (the text's 'relative precision', 1/8 for
    E4M3 and 1/4 for E5M2, lines 1688-1690). The worst rounding error is half of it."""
    m = count("mantissa_bits", mantissa_bits, ge=0)
    return out(2.0 ** -m, "")


def bytes_per_value(bits):
    """Bytes one value occupies: bits / 8 (FP16 = 2 byte, INT4 = 0.5 byte; lines 1510-1512)."""
    b = magnitude("bits", bits, "bit", gt=0)
    return out(b / 8.0, "byte")


# --- memory interfaces (§HBM, lines 1430-1470, 1522) ------------------------------------------

def interface_bandwidth(width, pin_rate, interfaces=1):
    """Peak bandwidth of ``interfaces`` buses of ``width`` data pins at ``pin_rate`` each:
    interfaces x width x pin rate (byte/s). DDR5: 8 channels x 64 bit x 4.8 Gb/s (lines 1438-1440)."""
    w = magnitude("width", width, "bit", gt=0)
    r = magnitude("pin_rate", pin_rate, "bit/s", gt=0)
    n = count("interfaces", interfaces)
    return out(n * w * r / 8.0, "byte/s")


def pin_rate(bandwidth, width, interfaces=1):
    """Per-pin data rate a bandwidth implies: bandwidth / (interfaces x width) (Gb/s).
    H100: 670 GB/s per 1024-bit HBM3 stack (line 1522)."""
    b = magnitude("bandwidth", bandwidth, "bit/s", gt=0)
    w = magnitude("width", width, "bit", gt=0)
    n = count("interfaces", interfaces)
    return out(b / (n * w) / 1e9, "Gbit/s")


def memory_cost(capacity, price, devices=1):
    """devices x capacity x price per GB (cu; the text's $): H100 80 GB x $10-15 (line 1478)."""
    c = magnitude("capacity", capacity, "GB", ge=0)
    p = magnitude("price", price, "cu/GB", ge=0)
    n = count("devices", devices)
    return out(n * c * p, "cu")


def fraction_held(capacity, size):
    """Share of ``size`` bytes that ``capacity`` holds, capped at 1 (A100 80 GB of 350 GB = 23 %,
    line 1510)."""
    c = magnitude("capacity", capacity, "byte", ge=0)
    s = magnitude("size", size, "byte", gt=0)
    return out(np.minimum(c / s, 1.0), "")


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
