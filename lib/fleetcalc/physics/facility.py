"""Racks, facility power, PUE, cooling regime and the pod-scale training-time chain,
Vol. 2 Ch. 2 §§ Rack, Rack design, Facility reliability, Pod, WSC (seed 001, lines 2222-2360)
and the fallacies (lines 2390-2460).

PUE = P_facility / P_IT (Vol. 2 Ch. 2 Eq. 2.2, line 1722). Facility power and energy are
:func:`fleetcalc.physics.capacity.facility_power` / :func:`fleetcalc.physics.capacity.energy` and IT power of
identical units (GPUs in a rack, racks in a cluster) is :func:`fleetcalc.physics.capacity.it_power`:
call them there (not repeated here). The summary's
"90-95 % of facility power reaches compute" (line 2480) is the reciprocal of PUE.

The ``COOLING`` thresholds are the book's: room air through perforated tiles below ~10 kW per
rack, engineered (contained, high-pressure) air up to ~30 kW, liquid above (line 2236).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import anything, base_factor, calculator, fraction, num, one_value, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, magnitude

__all__ = [
    "rack_overhead", "racks_needed",
    "pue_from_compute_fraction", "compute_fraction_from_pue", "cooling_regime", "cooling_code",
    "rack_units_left", "total_mass", "floor_load", "sustained_rate", "ideal_training_time",
    "overhead_chain", "equivalent_hours", "COOLING",
]

#: Cooling regimes by rack power (kW upper bounds), Vol. 2 Ch. 2 line 2236.
COOLING = (("room air", 10.0), ("engineered air", 30.0), ("liquid", float("inf")))
_KW = base_factor("kW")   # the COOLING limits are in kW; kernels compute in W


@calculator(returns="kW", total=qty("kW", ge=0, doc=">= gpus x gpu_power"), gpus=whole(ge=0),
            gpu_power=qty("kW", ge=0),
            equation=eq(r"P_{\mathrm{other}}", "total - gpus*gpu_power",
                        symbols={"total": r"P_{\mathrm{rack}}", "gpus": "n", "gpu_power": r"P_{\mathrm{GPU}}"},
                        ref="Vol. 2 Ch. 2 §Rack (33.5 kW - 32 x 700 W = 11.1 kW)"))
def rack_overhead(total, gpus, gpu_power):
    """Non-GPU part of a rack's power: total - GPUs x GPU power (line 2232: 33.5 - 22.4 = 11.1 kW)."""
    rest = total - gpus * gpu_power
    if np.any(rest < 0):
        raise InputError(f"total must be >= gpus x gpu_power; got {np.max(total) / _KW:g} kW for "
                         f"{np.max(gpus)} x {np.max(gpu_power) / _KW:g} kW")
    return rest


@calculator(returns="", gpus=whole(), gpus_per_rack=whole(),
            equation=eq(r"n_{\mathrm{racks}}", "ceil(gpus/gpus_per_rack)",
                        symbols={"gpus": "N", "gpus_per_rack": r"N_{\mathrm{rack}}"},
                        ref="Vol. 2 Ch. 2 §Rack, §Pod (1,024 / 32 = 32 racks)"))
def racks_needed(gpus, gpus_per_rack):
    """Racks (each also one top-of-rack failure domain) for a GPU count: ceil(gpus / gpus per rack)
    (Vol. 2 Ch. 2 line 2228: 1,024 / 32 = 32 racks; line 2288: 8,192 / 32 = 256, "about 250";
    Ch. 3 §3.5, lines 2768-2770)."""
    return np.ceil(gpus / gpus_per_rack)


_F_IT = {"fraction": r"f_{\mathrm{IT}}", "pue": r"\mathrm{PUE}"}


@calculator(returns="", fraction=fraction(open_low=True, doc="share of facility power that reaches IT"),
            equation=eq(r"\mathrm{PUE}", "1/fraction", symbols=_F_IT,
                        ref="Vol. 2 Ch. 2, Eq. 2.2 (f_IT = P_IT / P_facility)"))
def pue_from_compute_fraction(fraction):
    """PUE = P_facility / P_IT = 1 / (share of facility power that reaches IT)
    (Eq. 2.2, line 1722; line 2480: 90-95 % -> PUE 1.05-1.11, 50-65 % -> 1.54-2.0)."""
    return 1.0 / fraction


@calculator(returns="", pue=num(ge=1),
            equation=eq(r"f_{\mathrm{IT}}", "1/pue", symbols=_F_IT, ref="Vol. 2 Ch. 2, Eq. 2.2"))
def compute_fraction_from_pue(pue):
    """Share of facility power that reaches IT: 1 / PUE (Eq. 2.2)."""
    return 1.0 / pue


_COOLING = dict(power_per_rack=qty("kW", ge=0),
                room_air_max=qty("kW", gt=0, doc="room-air limit; None = the book's ~10 kW"),
                air_max=qty("kW", gt=0, doc="engineered-air limit, > room_air_max; None = the book's ~30 kW"))


@calculator(returns="", **_COOLING,
            equation=no_equation("a classification of the rack power into the book's three cooling regimes"))
def cooling_code(power_per_rack, room_air_max=None, air_max=None):
    """0 = room air, 1 = engineered air, 2 = liquid, by rack power (line 2236: ~10 kW and
    ~30 kW limits). Vectorised."""
    r = COOLING[0][1] * _KW if room_air_max is None else room_air_max
    a = COOLING[1][1] * _KW if air_max is None else air_max
    if np.any(a <= r):
        raise InputError(f"air_max must be > room_air_max; got {np.min(a) / _KW:g} kW and {np.max(r) / _KW:g} kW")
    return np.where(power_per_rack <= r, 0, np.where(power_per_rack <= a, 1, 2))


@calculator(returns=None, **{**_COOLING, "power_per_rack": one_value(
                _COOLING["power_per_rack"], "cooling_regime names one rack's regime; use cooling_code for arrays")},
            equation=no_equation("a classification of one rack power into a named cooling regime"))
def cooling_regime(power_per_rack, room_air_max=None, air_max=None) -> str:
    """'room air', 'engineered air' or 'liquid' for one rack power (line 2236)."""
    code = cooling_code.kernel(power_per_rack, room_air_max, air_max)
    return COOLING[int(code)][0]


@calculator(returns="", rack_height=whole(doc="rack units"), nodes=whole(ge=0), node_height=whole(doc="rack units"),
            equation=eq(r"U_{\mathrm{free}}", "rack_height - nodes*node_height",
                        symbols={"rack_height": r"U_{\mathrm{rack}}", "nodes": "n", "node_height": r"U_{\mathrm{node}}"},
                        ref="Vol. 2 Ch. 2 §Rack design (42 U - 4 x 8 U = 10 U)"))
def rack_units_left(rack_height, nodes, node_height):
    """Rack units free after the nodes: height - nodes x node height (line 2242: 42 - 4 x 8 = 10 U)."""
    return rack_height - nodes * node_height


@calculator(returns="t", n=whole(ge=0), mass_each=qty("t", ge=0),
            equation=eq("m", "n*mass_each", symbols={"mass_each": r"m_{\mathrm{each}}"},
                        ref="Vol. 2 Ch. 2 §Pod (1,024 x 130 kg = 133 t)"))
def total_mass(n, mass_each):
    """Mass of n identical items: n x mass (line 2290: 1,024 x 130 kg = 133 t)."""
    return n * mass_each


@calculator(returns="kg/m**2", mass=qty("kg", ge=0), area=qty("m**2", gt=0, doc="footprint"),
            equation=eq(r"\sigma_{\mathrm{floor}}", "mass/area", symbols={"mass": "m", "area": "A"},
                        ref="Vol. 2 Ch. 2 §Pod (floor loading)"))
def floor_load(mass, area):
    """Floor loading = mass / footprint (kg/m^2), compared with line 2290's 1,500-2,500 kg/m^2."""
    return mass / area


_RATE = dict(devices=whole(), R_peak=qty("FLOP/s", gt=0, doc="say which peak: dense/sparse, precision"),
             mfu=fraction(open_low=True, doc="model FLOPs utilisation"))


_RSYM = {"devices": "N", "mfu": r"\mathrm{MFU}"}


@calculator(returns="EFLOP/s", **_RATE,
            equation=eq("R", "devices*R_peak*mfu", symbols=_RSYM,
                        ref="Vol. 2 Ch. 2 §Pod (8,192 x 1979 TFLOP/s x 0.45 = 7.30 EFLOP/s)"))
def sustained_rate(devices, R_peak, mfu):
    """Cluster sustained rate = devices x R_peak x MFU (line 2383: 8,192 x 1979 TFLOP/s x 0.45
    = 7.30 EFLOP/s). Say which peak (dense/sparse, precision) R_peak is."""
    return devices * R_peak * mfu


@calculator(returns="hour", C=qty("FLOP", gt=0, doc="training compute"), **_RATE,
            equation=eq(r"T_{\mathrm{ideal}}", "C/(devices*R_peak*mfu)", symbols=_RSYM,
                        ref="Vol. 2 Ch. 2 §Pod (3.15e23 FLOP / 7.30 EFLOP/s = 12.0 h)"))
def ideal_training_time(C, devices, R_peak, mfu):
    """'Physical limit' time = C / (devices x R_peak x MFU) (line 2384: 3.15e23 / 7.30e18 =
    12.0 h). ``C`` from :func:`fleetcalc.physics.scaling_laws.training_flops` (6 P D)."""
    return C / sustained_rate.kernel(devices, R_peak, mfu)


@calculator(returns="hour", t_ideal=qty("hour", gt=0), efficiency=fraction(open_low=True, doc="scaling efficiency"),
            factors=anything("overhead fractions, each >= 0 (bubble, checkpoint, failures, maintenance)"),
            equation=no_equation("a running product over a list of overhead factors, one time per step of the chain"))
def overhead_chain(t_ideal, efficiency=1.0, factors=()):
    """Wall time after the book's multiplier chain (lines 2385-2390): divide by the scaling
    efficiency, then multiply by (1 + f) for each overhead f (bubble, checkpoint, failures,
    maintenance). Returns an array of the running times, ideal first."""
    steps = [t_ideal, t_ideal / efficiency]
    for i, f in enumerate(factors):
        steps.append(steps[-1] * (1.0 + magnitude(f"factors[{i}]", f, "", ge=0)))
    return np.array(steps)


@calculator(returns="hour", hours=qty("hour", ge=0), throughput_ratio=num(gt=0),
            equation=eq(r"T_{\mathrm{new}}", "hours/throughput_ratio",
                        symbols={"hours": r"T_{\mathrm{old}}", "throughput_ratio": "k"},
                        ref="Vol. 2 Ch. 2, Fallacies (not all GPU-hours are equal: 10,000 V100-hours / 15.8)"))
def equivalent_hours(hours, throughput_ratio):
    """Device-hours on a faster device for the same work: hours / (throughput ratio)
    (line 2428: 10,000 V100-hours / 15.8 = 633 H100-hours)."""
    return hours / throughput_ratio


# --------------------------------------------------------------------------- inverses (Vol. 2 Ch. 1)
@calculator(returns="TFLOP/s", C=qty("FLOP", gt=0, doc="training compute"), devices=whole(),
            duration=qty("s", gt=0, doc="wall-clock time of the run"),
            equation=eq(r"R_{\mathrm{dev}}", "C/(devices*duration)", symbols={"devices": "N", "duration": "T"},
                        ref="Vol. 2 Ch. 1, Table 1.1 (compute over devices and days); ideal_training_time "
                            "solved for the per-device rate"))
def per_device_rate(C, devices, duration):
    """Rate each device sustained over a run: C / (N T) (Vol. 2 Table 1.1: GPT-3's 3.14e23 FLOP on
    1,024 V100s in 29 days = 122 TFLOP/s)."""
    return C / (devices * duration)


@calculator(returns="", C=qty("FLOP", gt=0, doc="training compute"), devices=whole(),
            R_peak=qty("FLOP/s", gt=0, doc="say which peak: dense/sparse, precision"),
            duration=qty("s", gt=0, doc="wall-clock time of the run"),
            equation=eq(r"\mathrm{MFU}", "C/(devices*R_peak*duration)", symbols={"devices": "N", "duration": "T"},
                        ref="Vol. 2 Ch. 1 §1.1; ideal_training_time solved for the MFU"))
def required_mfu(C, devices, R_peak, duration):
    """MFU a run must sustain to finish C FLOP in a given time: C / (N R_peak T), the inverse of
    :func:`ideal_training_time` (above 1 the run cannot finish in time on that fleet)."""
    return per_device_rate.kernel(C, devices, duration) / R_peak


__all__ += ["per_device_rate", "required_mfu"]
