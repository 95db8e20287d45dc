"""fleetcalc.physics.energy: data movement vs arithmetic, the power wall (Vol. 2 Ch. 2 lines 1714-1856)."""
import numpy as np
import pytest

from fleetcalc.physics import capacity, energy, iron_law
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def test_flops_per_watt_line_1768():
    # 125/300 = 0.42, 1979/700 = 2.83, 4500/1000 = 4.50 TFLOP/s per W
    assert energy.flops_per_watt(Q_(125, "TFLOP/s"), Q_(300, "W")).magnitude == pytest.approx(0.41667, abs=1e-5)
    assert energy.flops_per_watt(Q_(1979, "TFLOP/s"), Q_(700, "W")).magnitude == pytest.approx(2.8271, abs=1e-4)
    with pytest.raises(InputError, match="power"):
        energy.flops_per_watt(Q_(1, "TFLOP/s"), Q_(0, "W"))


def test_operand_and_token_energy_lines_1844_1856():
    assert energy.operand_energy(Q_(16, "bit"), Q_(4, "pJ/bit")).magnitude == pytest.approx(64)
    assert energy.operand_energy(Q_(16, "bit"), Q_(20, "pJ/bit")).magnitude == pytest.approx(320)
    mv = iron_law.movement_energy(Q_(350, "GB"), Q_(4, "pJ/bit"))
    assert mv.to("J").magnitude == pytest.approx(11.2)
    assert energy.mac_energy(175e9, Q_(1, "pJ")).to("J").magnitude == pytest.approx(0.175)
    assert energy.movement_to_compute(Q_(350, "GB"), Q_(4, "pJ/bit"), 175e9, Q_(1, "pJ")).magnitude == pytest.approx(64)


def test_heat_flux_line_1750():
    # 700 W over 814 mm^2 = 86.0 W/cm^2
    assert energy.heat_flux(Q_(700, "W"), Q_(814, "mm**2")).magnitude == pytest.approx(85.995, abs=1e-3)
    arr = energy.heat_flux(Q_(np.array([700, 1000]), "W"), Q_(814, "mm**2"))
    assert arr.magnitude.shape == (2,)


def test_throttle_models():
    # linear: 989 x 5/7 = 706.4; cubic: 989 x (5/7)^(1/3) = 989 x 0.89389 = 884.07
    lin = energy.throttled_peak(Q_(989, "TFLOP/s"), Q_(500, "W"), Q_(700, "W"))
    cub = energy.throttled_peak(Q_(989, "TFLOP/s"), Q_(500, "W"), Q_(700, "W"), exponent=3)
    assert lin.to("TFLOP/s").magnitude == pytest.approx(706.43, abs=0.01)
    assert cub.to("TFLOP/s").magnitude == pytest.approx(884.07, abs=0.01)
    with pytest.raises(InputError):
        energy.throttled_peak(Q_(989, "TFLOP/s"), Q_(800, "W"), Q_(700, "W"))


def test_power_saving_and_sums():
    # line 1766: 600 of 700 W saves 1/7 = 14.3 %
    assert energy.power_saving(Q_(600, "W"), Q_(700, "W")).magnitude == pytest.approx(1 / 7)
    # line 1740: 8 x 2,000 W = 16 kW
    assert capacity.it_power(Q_(2000, "W"), 8).magnitude == pytest.approx(16)
    # line 1838: 700 - 500 - 250 = -50 W (the ranges' upper ends cannot both hold)
    assert energy.power_remainder(Q_(700, "W"), Q_(500, "W"), Q_(250, "W")).magnitude == pytest.approx(-50)
    assert capacity.facility_power(Q_(22.4, "kW"), 1.5).magnitude == pytest.approx(33.6)
