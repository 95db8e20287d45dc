"""Energy and power at the chip: data movement vs arithmetic, efficiency per watt, the power wall
(TDP, heat flux, throttling, power caps). Vol. 2 Ch. 2 "power wall" and "energy of data
movement" (seed 001, lines 1714-1770 and 1830-1856; line numbers point into that seed).

Energy per bit (pJ/bit) is per bit *moved*; pint's ``bit`` and ``byte`` convert (1 byte = 8 bit),
so ``Q_(4, "pJ/bit")`` applied to bytes gives joules directly. The data-movement energy itself is
:func:`fleetcalc.physics.scaling.movement_energy` (Vol. 2 notation, iron-law energy corollary); it is
imported, not rewritten. Facility power (PUE, Eq. 2.2) is :func:`fleetcalc.physics.capacity.facility_power`.

The text quotes three HBM energies: 2 pJ/bit (lines 1434, 1454), 2-5 pJ/bit (Table 2.4) and
4 pJ/bit (lines 1832-1848); the catalog keeps all three and each notebook says which it uses.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics.capacity import facility_power
from fleetcalc.physics.scaling import movement_energy
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "flops_per_watt", "operand_energy", "movement_energy", "mac_energy", "movement_to_compute",
    "heat_flux", "throttled_peak", "power_saving", "power_sum", "power_remainder", "facility_power",
]


def flops_per_watt(R_peak, power):
    """Efficiency = R_peak / P (TFLOP/s per W), lines 1334 and 1768 (V100 125 / 300 = 0.42)."""
    r = magnitude("R_peak", R_peak, "FLOP/s", ge=0)
    p = magnitude("power", power, "W", gt=0)
    return out(r / p / 1e12, "TFLOP/s/W")


def operand_energy(bits, energy_per_bit):
    """Energy to fetch one operand of ``bits`` bits: bits x pJ/bit (line 1844: 16 x 4 = 64 pJ)."""
    b = magnitude("bits", bits, "bit", gt=0)
    e = magnitude("energy_per_bit", energy_per_bit, "pJ/bit", ge=0)
    return out(b * e, "pJ")


def mac_energy(macs, energy_per_mac):
    """Arithmetic energy: MACs x energy per MAC (J), line 1852 (175e9 x 1 pJ = 0.175 J).
    One MAC (multiply-accumulate) is 2 FLOP."""
    n = magnitude("macs", macs, "", ge=0)
    e = magnitude("energy_per_mac", energy_per_mac, "J", ge=0)
    return out(n * e, "J")


def movement_to_compute(D_vol, energy_per_bit, macs, energy_per_mac):
    """(D_vol x E_bit) / (MACs x E_MAC): how many times the arithmetic's energy the data movement
    costs (line 1856: 11.2 J / 0.175 J = 64 for the 175B decode step)."""
    magnitude("D_vol", D_vol, "byte", ge=0)
    magnitude("energy_per_bit", energy_per_bit, "J/byte", ge=0)   # own name before delegating
    mv = movement_energy(D_vol, energy_per_bit).magnitude
    cp = mac_energy(macs, energy_per_mac).magnitude
    if np.any(np.asarray(cp) <= 0):
        raise InputError(f"macs x energy_per_mac must be > 0; got {macs} x {energy_per_mac}")
    return out(mv / cp, "")


def heat_flux(power, area):
    """Mean heat flux q = P / A (W/cm^2), line 1750 (H100: 700 W / 814 mm^2 = 86 W/cm^2)."""
    p = magnitude("power", power, "W", ge=0)
    a = magnitude("area", area, "cm**2", gt=0)
    return out(p / a, "W/cm**2")


def throttled_peak(R_peak, power_limit, tdp, exponent=1.0):
    """Peak under a power (cooling) limit below TDP: R_peak x (P_limit / TDP)^(1/k).

    Model: power grows as clock^k at fixed work per clock. k = 1 (power proportional to clock,
    voltage fixed) is the simplest reading of line 1732 (989 -> ~712 TFLOP/s at 500 of 700 W);
    k ~ 3 is DVFS with voltage scaled with clock. Only P_limit <= TDP is modelled."""
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    t = magnitude("tdp", tdp, "W", gt=0)
    p = magnitude("power_limit", power_limit, "W", gt=0)
    k = magnitude("exponent", exponent, "", ge=0.5, le=4)
    if np.any(p > t):
        raise InputError(f"power_limit must be <= tdp ({tdp}); got {power_limit}")
    return out(r * (p / t) ** (1.0 / k), "FLOP/s")


def power_saving(cap, tdp):
    """Fraction of power saved by capping a device at ``cap``: 1 - cap / TDP (line 1766)."""
    c = magnitude("cap", cap, "W", gt=0)
    t = magnitude("tdp", tdp, "W", gt=0)
    if np.any(c > t):
        raise InputError(f"cap must be <= tdp ({tdp}); got {cap}")
    return out(1.0 - c / t, "")


def power_sum(devices, per_device):
    """devices x power per device (kW): 8 GPUs x 2,000 W = 16 kW (line 1740)."""
    n = count("devices", devices, ge=0)
    p = magnitude("per_device", per_device, "W", ge=0)
    return out(n * p / 1e3, "kW")


def power_remainder(total, *parts):
    """What a power budget leaves after the named parts: total - sum(parts) (W). May be negative:
    that signals parts that cannot all hold at once (line 1838's ranges at their upper ends)."""
    t = magnitude("total", total, "W", ge=0)
    s = sum(magnitude(f"parts[{i}]", p, "W", ge=0) for i, p in enumerate(parts))
    return out(t - s, "W")
