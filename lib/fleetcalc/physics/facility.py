"""Racks, facility power, PUE, cooling regime and the pod-scale training-time chain,
Vol. 2 Ch. 2 §§ Rack, Rack design, Facility reliability, Pod, WSC (seed 001, lines 2222-2360)
and the fallacies (lines 2390-2460).

PUE = P_facility / P_IT (Vol. 2 Ch. 2 Eq. 2.2, line 1722). Facility power and energy are
:func:`fleetcalc.physics.capacity.facility_power` / :func:`fleetcalc.physics.capacity.energy` and IT power of
identical units is :func:`fleetcalc.physics.capacity.it_power` (imported, not repeated). The summary's
"90-95 % of facility power reaches compute" (line 2480) is the reciprocal of PUE.

The ``COOLING`` thresholds are the book's: room air through perforated tiles below ~10 kW per
rack, engineered (contained, high-pressure) air up to ~30 kW, liquid above (line 2236).
"""
from __future__ import annotations

import functools

import numpy as np

from fleetcalc.physics.capacity import energy, facility_power, it_power  # noqa: F401  (re-exported)
from fleetcalc.core.units import Q_, ureg
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "rack_power", "rack_overhead", "racks_needed", "cluster_it_power", "facility_power", "energy",
    "pue_from_compute_fraction", "compute_fraction_from_pue", "cooling_regime", "cooling_code",
    "rack_units_left", "total_mass", "floor_load", "sustained_rate", "ideal_training_time",
    "overhead_chain", "equivalent_hours", "COOLING",
]


@functools.lru_cache(maxsize=None)
def _u(name):
    """A parsed unit, cached: pint re-parses prefixed unit strings ("GB", "kW") on every call."""
    return ureg.Unit(name)

#: Cooling regimes by rack power (kW upper bounds), Vol. 2 Ch. 2 line 2236.
COOLING = (("room air", 10.0), ("engineered air", 30.0), ("liquid", float("inf")))
_ROOM_AIR = Q_(COOLING[0][1] * 1e3, "W")
_AIR = Q_(COOLING[1][1] * 1e3, "W")
_ZERO_W = Q_(0.0, "W")


def rack_power(gpus, gpu_power, overhead):
    """Rack power = GPUs x GPU power + everything else (CPUs, NVSwitch, NICs, conversion,
    fans), line 2232: 32 x 700 W = 22.4 kW + 11+ kW = 33.5 kW."""
    n = count("gpus", gpus, ge=0)
    p = magnitude("gpu_power", gpu_power, "W", ge=0)
    o = magnitude("overhead", overhead, "W", ge=0)
    return out(n * p + o, "W").to(_u("kW"))


def rack_overhead(total, gpus, gpu_power):
    """Non-GPU part of a rack's power: total - GPUs x GPU power (line 2232: 33.5 - 22.4 = 11.1 kW)."""
    t = magnitude("total", total, "W", ge=0)
    n = count("gpus", gpus, ge=0)
    p = magnitude("gpu_power", gpu_power, "W", ge=0)
    rest = t - n * p
    if np.any(rest < 0):
        raise InputError(f"total must be >= gpus x gpu_power; got {total} for {gpus} x {gpu_power}")
    return out(rest, "W").to(_u("kW"))


def racks_needed(gpus, gpus_per_rack):
    """Racks (each also one top-of-rack failure domain) for a GPU count: ceil(gpus / gpus per rack)
    (Vol. 2 Ch. 2 line 2228: 1,024 / 32 = 32 racks; line 2288: 8,192 / 32 = 256, "about 250";
    Ch. 3 §3.5, lines 2768-2770)."""
    g = count("gpus", gpus)
    r = count("gpus_per_rack", gpus_per_rack)
    return out(np.ceil(g / r), "")


def cluster_it_power(racks, power_per_rack, other_power=None):
    """IT power of identical racks plus shared gear: capacity.it_power(rack power, racks, other)
    (line 2228: 32 x 33.5 kW = 1.07 MW, the book's "about 1.1 MW")."""
    count("racks", racks, ge=0)                                 # own names before delegating
    magnitude("power_per_rack", power_per_rack, "W", ge=0)
    if other_power is not None:
        magnitude("other_power", other_power, "W", ge=0)
    other = _ZERO_W if other_power is None else other_power
    return it_power(power_per_rack, racks, other).to(_u("MW"))


def pue_from_compute_fraction(fraction):
    """PUE = P_facility / P_IT = 1 / (share of facility power that reaches IT)
    (Eq. 2.2, line 1722; line 2480: 90-95 % -> PUE 1.05-1.11, 50-65 % -> 1.54-2.0)."""
    f = magnitude("fraction", fraction, "", gt=0, le=1)
    return out(1.0 / f, "")


def compute_fraction_from_pue(pue):
    """Share of facility power that reaches IT: 1 / PUE (Eq. 2.2)."""
    u = magnitude("pue", pue, "", ge=1)
    return out(1.0 / u, "")


def cooling_code(power_per_rack, room_air_max=None, air_max=None):
    """0 = room air, 1 = engineered air, 2 = liquid, by rack power (line 2236: ~10 kW and
    ~30 kW limits). Vectorised."""
    p = magnitude("power_per_rack", power_per_rack, "W", ge=0)
    r = magnitude("room_air_max", room_air_max if room_air_max is not None else _ROOM_AIR, "W", gt=0)
    a = magnitude("air_max", air_max if air_max is not None else _AIR, "W", gt=0)
    if np.any(a <= r):
        raise InputError(f"air_max must be > room_air_max; got {air_max} and {room_air_max}")
    return out(np.where(p <= r, 0, np.where(p <= a, 1, 2)), "")


def cooling_regime(power_per_rack, room_air_max=None, air_max=None) -> str:
    """'room air', 'engineered air' or 'liquid' for one rack power (line 2236)."""
    code = cooling_code(power_per_rack, room_air_max, air_max).magnitude
    if np.ndim(code) != 0:
        raise InputError("cooling_regime takes one rack power; use cooling_code for arrays")
    return COOLING[int(code)][0]


def rack_units_left(rack_height, nodes, node_height):
    """Rack units free after the nodes: height - nodes x node height (line 2242: 42 - 4 x 8 = 10 U)."""
    h = count("rack_height", rack_height)
    n = count("nodes", nodes, ge=0)
    u = count("node_height", node_height)
    return out(h - n * u, "")


def total_mass(n, mass_each):
    """Mass of n identical items: n x mass (line 2290: 1,024 x 130 kg = 133 t)."""
    k = count("n", n, ge=0)
    m = magnitude("mass_each", mass_each, "kg", ge=0)
    return out(k * m, "kg").to(_u("t"))


def floor_load(mass, area):
    """Floor loading = mass / footprint (kg/m^2), compared with line 2290's 1,500-2,500 kg/m^2."""
    m = magnitude("mass", mass, "kg", ge=0)
    a = magnitude("area", area, "m**2", gt=0)
    return out(m / a, "kg/m**2")


def sustained_rate(devices, R_peak, mfu):
    """Cluster sustained rate = devices x R_peak x MFU (line 2383: 8,192 x 1979 TFLOP/s x 0.45
    = 7.30 EFLOP/s). Say which peak (dense/sparse, precision) R_peak is."""
    n = count("devices", devices)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    u = magnitude("mfu", mfu, "", gt=0, le=1)
    return out(n * r * u, "FLOP/s").to(_u("EFLOP/s"))


def ideal_training_time(C, devices, R_peak, mfu):
    """'Physical limit' time = C / (devices x R_peak x MFU) (line 2384: 3.15e23 / 7.30e18 =
    12.0 h). ``C`` from :func:`fleetcalc.physics.scaling.training_flops` (6 P D)."""
    c = magnitude("C", C, "FLOP", gt=0)
    rate = sustained_rate(devices, R_peak, mfu).to(_u("FLOP/s")).magnitude
    return out(c / rate, "s").to(_u("hour"))


def overhead_chain(t_ideal, efficiency=1.0, factors=()):
    """Wall time after the book's multiplier chain (lines 2385-2390): divide by the scaling
    efficiency, then multiply by (1 + f) for each overhead f (bubble, checkpoint, failures,
    maintenance). Returns an array of the running times, ideal first."""
    t = magnitude("t_ideal", t_ideal, "s", gt=0)
    e = magnitude("efficiency", efficiency, "", gt=0, le=1)
    steps = [t, t / e]
    for i, f in enumerate(factors):
        ff = magnitude(f"factors[{i}]", f, "", ge=0)
        steps.append(steps[-1] * (1.0 + ff))
    return out(np.array(steps), "s").to(_u("hour"))


def equivalent_hours(hours, throughput_ratio):
    """Device-hours on a faster device for the same work: hours / (throughput ratio)
    (line 2428: 10,000 V100-hours / 15.8 = 633 H100-hours)."""
    h = magnitude("hours", hours, "hour", ge=0)
    r = magnitude("throughput_ratio", throughput_ratio, "", gt=0)
    return out(h / r, "hour")
