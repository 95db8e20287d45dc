"""Energy and power at the chip: data movement vs arithmetic, efficiency per watt, the power wall
(TDP, heat flux, throttling, power caps). Vol. 2 Ch. 2 "power wall" and "energy of data
movement" (seed 001, lines 1714-1770 and 1830-1856; line numbers point into that seed).

Energy per bit (pJ/bit) is per bit *moved*; pint's ``bit`` and ``byte`` convert (1 byte = 8 bit),
so ``Q_(4, "pJ/bit")`` applied to bytes gives joules directly. The data-movement energy itself is
:func:`fleetcalc.physics.iron_law.movement_energy` (Vol. 2 notation, iron-law energy corollary); it is
imported, not rewritten. Facility power (PUE, Eq. 2.2) is :func:`fleetcalc.physics.capacity.facility_power`
and the power of n devices :func:`fleetcalc.physics.capacity.it_power`.

The text quotes three HBM energies: 2 pJ/bit (lines 1434, 1454), 2-5 pJ/bit (Table 2.4) and
4 pJ/bit (lines 1832-1848); the catalog keeps all three and each notebook says which it uses.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import calculator, num, qty
from fleetcalc.core.equation import eq
from fleetcalc.core.validate import InputError, magnitude, out
from fleetcalc.physics.iron_law import movement_energy

__all__ = [
    "flops_per_watt", "operand_energy", "mac_energy", "movement_to_compute",
    "heat_flux", "throttled_peak", "power_saving", "power_remainder",
]

_MAC_SYMBOLS = {"macs": r"N_{\mathrm{MAC}}", "energy_per_mac": r"E_{\mathrm{MAC}}"}


@calculator(returns="TFLOP/s/W", R_peak=qty("FLOP/s", ge=0), power=qty("W", gt=0),
            equation=eq(r"\mathrm{efficiency}", "R_peak/power", symbols={"power": r"P_{\mathrm{TDP}}"},
                        ref="Vol. 2 Ch. 2, lines 1334 and 1768 (peak per watt of TDP)"))
def flops_per_watt(R_peak, power):
    """Efficiency = R_peak / P (TFLOP/s per W), lines 1334 and 1768 (V100 125 / 300 = 0.42)."""
    return R_peak / power


@calculator(returns="pJ", bits=qty("bit", gt=0, doc="operand width"), energy_per_bit=qty("pJ/bit", ge=0),
            equation=eq(r"E_{\mathrm{operand}}", "bits*energy_per_bit",
                        symbols={"bits": "b", "energy_per_bit": r"E_{\mathrm{bit}}"},
                        ref="Vol. 2 Ch. 2, line 1844 (16 bit x 4 pJ/bit = 64 pJ)"))
def operand_energy(bits, energy_per_bit):
    """Energy to fetch one operand of ``bits`` bits: bits x pJ/bit (line 1844: 16 x 4 = 64 pJ)."""
    return bits * energy_per_bit


@calculator(returns="J", macs=num(ge=0, doc="multiply-accumulates"), energy_per_mac=qty("J", ge=0),
            equation=eq(r"E_{\mathrm{compute}}", "macs*energy_per_mac", symbols=_MAC_SYMBOLS,
                        ref="Vol. 2 Ch. 2, line 1852 (175e9 MAC x 1 pJ/MAC)"))
def mac_energy(macs, energy_per_mac):
    """Arithmetic energy: MACs x energy per MAC (J), line 1852 (175e9 x 1 pJ = 0.175 J).
    One MAC (multiply-accumulate) is 2 FLOP."""
    return macs * energy_per_mac


@calculator(returns="", D_vol=qty("byte", ge=0), energy_per_bit=qty("J/byte", ge=0, doc="per bit or per byte"),
            macs=num(ge=0), energy_per_mac=qty("J", ge=0),
            equation=eq(r"E_{\mathrm{move}}/E_{\mathrm{compute}}", "D_vol*energy_per_bit/(macs*energy_per_mac)",
                        symbols={"energy_per_bit": r"E_{\mathrm{bit}}", **_MAC_SYMBOLS},
                        ref="Vol. 2 Ch. 2, lines 1848-1856 (11.2 J / 0.175 J = 64)"))
def movement_to_compute(D_vol, energy_per_bit, macs, energy_per_mac):
    """(D_vol x E_bit) / (MACs x E_MAC): how many times the arithmetic's energy the data movement
    costs (line 1856: 11.2 J / 0.175 J = 64 for the 175B decode step)."""
    cp = mac_energy.kernel(macs, energy_per_mac)
    if np.any(np.asarray(cp) <= 0):
        raise InputError(f"macs x energy_per_mac must be > 0; got {macs} x {energy_per_mac} J")
    return movement_energy.kernel(D_vol, energy_per_bit) / cp


@calculator(returns="W/cm**2", power=qty("W", ge=0), area=qty("cm**2", gt=0, doc="die area"),
            equation=eq("q", "power/area", symbols={"power": r"P_{\mathrm{chip}}", "area": "A"},
                        ref="Vol. 2 Ch. 2, line 1750 (700 W / 814 mm^2 = 86 W/cm^2)"))
def heat_flux(power, area):
    """Mean heat flux q = P / A (W/cm^2), line 1750 (H100: 700 W / 814 mm^2 = 86 W/cm^2)."""
    return power / area


@calculator(returns="FLOP/s", R_peak=qty("FLOP/s", gt=0), power_limit=qty("W", gt=0, doc="<= tdp"),
            tdp=qty("W", gt=0), exponent=num(ge=0.5, le=4, doc="k in power ~ clock^k"),
            equation=eq(r"R_{\mathrm{throttled}}", "R_peak*(power_limit/tdp)**(1/exponent)",
                        symbols={"power_limit": r"P_{\mathrm{limit}}", "tdp": r"\mathrm{TDP}", "exponent": "k"},
                        ref="Vol. 2 Ch. 2, line 1732 (989 to ~712 TFLOP/s at 500 of 700 W)"))
def throttled_peak(R_peak, power_limit, tdp, exponent=1.0):
    """Peak under a power (cooling) limit below TDP: R_peak x (P_limit / TDP)^(1/k).

    Model: power grows as clock^k at fixed work per clock. k = 1 (power proportional to clock,
    voltage fixed) is the simplest reading of line 1732 (989 -> ~712 TFLOP/s at 500 of 700 W);
    k ~ 3 is DVFS with voltage scaled with clock. Only P_limit <= TDP is modelled."""
    if np.any(power_limit > tdp):
        raise InputError(f"power_limit must be <= tdp ({tdp} W); got {power_limit} W")
    return R_peak * (power_limit / tdp) ** (1.0 / exponent)


@calculator(returns="", cap=qty("W", gt=0, doc="<= tdp"), tdp=qty("W", gt=0),
            equation=eq(r"\mathrm{saving}", "1 - cap/tdp", symbols={"cap": r"P_{\mathrm{cap}}", "tdp": r"\mathrm{TDP}"},
                        ref="Vol. 2 Ch. 2, line 1766 (an H100 capped at 600 W of 700 W)"))
def power_saving(cap, tdp):
    """Fraction of power saved by capping a device at ``cap``: 1 - cap / TDP (line 1766)."""
    if np.any(cap > tdp):
        raise InputError(f"cap must be <= tdp ({tdp} W); got {cap} W")
    return 1.0 - cap / tdp


def power_remainder(total, *parts):
    """What a power budget leaves after the named parts: total - sum(parts) (W). May be negative:
    that signals parts that cannot all hold at once (line 1838's ranges at their upper ends)."""
    t = magnitude("total", total, "W", ge=0)
    s = sum(magnitude(f"parts[{i}]", p, "W", ge=0) for i, p in enumerate(parts))
    return out(t - s, "W")
