"""Tests for fleetcalc.physics.facility (Vol. 2 Ch. 2 §§ Rack ... fallacies, seed 001 lines 2222-2460)."""
import numpy as np
import pytest

from fleetcalc.physics import capacity, facility as F
from fleetcalc.core.catalog import hw
from fleetcalc.physics.scaling_laws import training_flops
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def test_rack_power():
    # line 2232: 32 x 700 W = 22.4 kW; + 11.1 kW = 33.5 kW; line 2244: / 4 nodes = 8.375 ~ 8.4 kW
    gpu = capacity.it_power(hw("dc_rack.gpu_power"), 32)
    assert gpu.to("kW").magnitude == pytest.approx(22.4)
    assert F.rack_overhead(hw("dc_rack.rack_power"), 32, Q_(700, "W")).magnitude == pytest.approx(11.1)
    assert F.racks_needed(1024, 8 * 4).magnitude == 32
    assert F.racks_needed(8192, 8 * 4).magnitude == 256
    # line 2228: 32 x 33.5 kW = 1.072 MW
    assert capacity.it_power(Q_(33.5, "kW"), 32).to("MW").magnitude == pytest.approx(1.072)
    assert F.rack_units_left(42, 4, 8).magnitude == 10


def test_pue_and_cooling():
    # line 2480: 90-95 % to compute -> PUE 1.111-1.053; 50 % -> 2.0
    assert F.pue_from_compute_fraction(0.9).magnitude == pytest.approx(1 / 0.9)
    assert F.pue_from_compute_fraction(0.5).magnitude == pytest.approx(2.0)
    assert F.compute_fraction_from_pue(1.25).magnitude == pytest.approx(0.8)
    # facility power via capacity (Example 27.3 style): 1.072 MW x 1.1 = 1.1792 MW
    assert capacity.facility_power(Q_(1.072, "MW"), 1.1).to("MW").magnitude == pytest.approx(1.1792)
    # line 2236: <=10 kW room air, <=30 kW engineered air, above: liquid
    assert F.cooling_regime(Q_(8, "kW")) == "room air"
    assert F.cooling_regime(Q_(30, "kW")) == "engineered air"
    assert F.cooling_regime(Q_(33.5, "kW")) == "liquid"
    assert F.cooling_code(Q_(np.array([5, 20, 100]), "kW")).magnitude.tolist() == [0, 1, 2]
    with pytest.raises(InputError, match="fraction"):
        F.pue_from_compute_fraction(1.2)


def test_pod_training_time():
    # lines 2382-2390: 6 x 175e9 x 300e9 = 3.15e23; 8192 x 1979 T x 0.45 = 7.30 EFLOP/s; 12.0 h,
    # then 14.1, 14.8, 15.3, 16.8, 17.6 h
    C = training_flops(175e9, 300e9)
    assert C.to("FLOP").magnitude == pytest.approx(3.15e23)
    assert round(F.sustained_rate(8192, Q_(1979, "TFLOP/s"), 0.45).to("EFLOP/s").magnitude, 2) == 7.30
    t = F.ideal_training_time(C, 8192, Q_(1979, "TFLOP/s"), 0.45)
    assert round(t.to("hour").magnitude, 1) == 12.0
    chain = F.overhead_chain(t, 0.85, [0.05, 0.03, 0.10, 0.05]).to("hour").magnitude
    assert np.round(chain, 1).tolist() == [12.0, 14.1, 14.8, 15.3, 16.8, 17.6]
    # at the FP16 dense peak (989 TFLOP/s) the ideal time doubles: 24.0 h (hand)
    assert round(F.ideal_training_time(C, 8192, Q_(989, "TFLOP/s"), 0.45).to("hour").magnitude, 1) == 24.0


def test_mass_floor_hours():
    # line 2290: 1,024 x 130 kg = 133.12 t
    assert F.total_mass(1024, Q_(130, "kg")).to("t").magnitude == pytest.approx(133.12)
    assert F.floor_load(Q_(720, "kg"), Q_(0.72, "m**2")).magnitude == pytest.approx(1000)
    # line 2428: 10,000 V100-hours / 15.8 = 632.9 H100-hours
    assert round(F.equivalent_hours(Q_(10000, "hour"), 15.8).magnitude, 1) == 632.9
    with pytest.raises(InputError, match="mfu"):
        F.sustained_rate(8, Q_(1, "PFLOP/s"), 1.5)
