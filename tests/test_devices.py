"""fleetcalc.physics.devices: derived device tables (Vol. 2 Ch. 2, seed 001 lines 1217-1918)."""
import numpy as np
import pytest

from fleetcalc.physics import devices
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def test_h100_fp16_ridge_is_295():
    # line 1434 / 1613: 989 TFLOP/s / 3.35 TB/s ~= 295.2 FLOP/byte
    d = devices.device("H100 SXM, FP16 (989 TFLOP/s, 3.35 TB/s)")
    assert d["ridge"].to("FLOP/byte").magnitude == pytest.approx(295.22, abs=0.01)


def test_ridge_table_covers_every_device():
    rows = devices.ridge_table()
    assert len(rows) == len(devices.DEVICES)
    # hand: V100 125e12 / 0.9e12 = 138.9 (line 1436 inputs)
    v100 = [r for r in rows if r["device"].startswith("V100")][0]
    assert v100["ridge"].magnitude == pytest.approx(138.89, abs=0.01)


def test_unknown_device_names_choices():
    with pytest.raises(InputError, match="key must be one of"):
        devices.device("H800")


def test_gpu_table_ratios_match_table_2_2():
    rows = {r["gpu"]: r for r in devices.gpu_generation_table()}
    # caption line 1364: NVLink A100 -> H100 is 1.5x, the others double
    assert rows["H100"]["nvlink_x_prev"].magnitude == pytest.approx(1.5)
    assert rows["A100"]["nvlink_x_prev"].magnitude == pytest.approx(2.0)
    assert rows["B200"]["nvlink_x_prev"].magnitude == pytest.approx(2.0)
    # line 1334: H100 FP8 per watt vs V100 FP16 per watt = (1979/700)/(125/300) = 6.785
    eff = rows["H100"]["efficiency"].magnitude / rows["V100"]["efficiency"].magnitude
    assert eff == pytest.approx(6.785, abs=0.001)
    assert rows["V100"]["nvlink_x_prev"] is None


def test_tpu_table_has_no_ratio_where_v1_has_no_hbm():
    rows = devices.tpu_generation_table()
    assert rows[0]["hbm"] is None and rows[1]["hbm_x_prev"] is None
    # hand: v4 275 / v3 105 = 2.619
    assert rows[3]["R_peak_x_prev"].magnitude == pytest.approx(275 / 105)


def test_ratio_needs_same_kind():
    assert devices.ratio(Q_(1.8, "TB/s"), Q_(900, "GB/s")).magnitude == pytest.approx(2.0)
    with pytest.raises(InputError):
        devices.ratio(Q_(1, "W"), 3)
    with pytest.raises(InputError):
        devices.ratio(Q_(1, "W"), Q_(1, "s"))


def test_annual_growth_tdp():
    # line 1738: 300 W -> 1000 W over 2017-2024: (10/3)^(1/7) - 1 = 0.1877
    g = devices.annual_growth(Q_(300, "W"), Q_(1000, "W"), Q_(7, "year"))
    assert g.magnitude == pytest.approx(0.18767, abs=1e-5)
    assert devices.project(Q_(1000, "W"), 0.1877, 2).to("W").magnitude == pytest.approx(1410.63, abs=0.01)  # 1.1877^2 = 1.41063


def test_implied_clocks():
    # TPU v1: 92e12 / (2 x 65,536) = 0.702 GHz (Jouppi 2017 reports 700 MHz)
    assert devices.implied_clock(Q_(92e12, "FLOP/s"), 1, 256 * 256).magnitude == pytest.approx(0.7019, abs=1e-4)
    # TPU v5p as line 1667 states it (2 x 128x128): 7.0 GHz, i.e. impossible
    assert devices.implied_clock(Q_(459e12, "FLOP/s"), 2, 128 * 128).magnitude == pytest.approx(7.004, abs=1e-3)
    # inverse: 528 x 512 MAC x 2 x 1.83 GHz = 989.4 TFLOP/s
    assert devices.peak_from_macs(528, 512, Q_(1.83, "GHz")).to("TFLOP/s").magnitude == pytest.approx(989.43, abs=0.01)


def test_slowest_member_loss():
    assert devices.slowest_member_loss(Q_(1830, "MHz"), Q_(50, "MHz")).magnitude == pytest.approx(0.02732, abs=1e-5)
    with pytest.raises(InputError):
        devices.slowest_member_loss(Q_(1, "GHz"), Q_(2, "GHz"))


def test_float_formats():
    # lines 1688-1690: E4M3 max ~448, E5M2 max ~57,344; FP16 max 65,504 (IEEE 754)
    assert devices.float_max_finite(4, 3, ieee=False).magnitude == 448
    assert devices.float_max_finite(5, 2).magnitude == 57344
    assert devices.float_max_finite(5, 10).magnitude == 65504
    assert devices.float_relative_step(3).magnitude == 1 / 8
    assert devices.format_bits(8, 10).to("bit").magnitude == 19   # TF32, Table 2.6
    assert devices.bytes_per_value(Q_(4, "bit")).to("byte").magnitude == 0.5
    arr = devices.float_relative_step(np.array([2, 3, 7]))
    assert np.allclose(arr.magnitude, [0.25, 0.125, 2 ** -7])


def test_interfaces():
    # 8 channels x 64 bit x 4.8 Gb/s = 307.2 GB/s (lines 1438-1440)
    bw = devices.interface_bandwidth(Q_(64, "bit"), Q_(4.8, "Gbit/s"), 8)
    assert bw.to("GB/s").magnitude == pytest.approx(307.2)
    # 670 GB/s over 1024 pins = 5.234 Gb/s per pin (line 1522)
    assert devices.pin_rate(Q_(670, "GB/s"), Q_(1024, "bit")).magnitude == pytest.approx(5.234375)
    with pytest.raises(InputError):
        devices.interface_bandwidth(Q_(0, "bit"), Q_(1, "Gbit/s"))


def test_memory_cost_and_fraction():
    # line 1478: 80 GB x $10-15 = $800-1,200; line 1510: 80/350 = 22.9 %
    assert devices.memory_cost(Q_(80, "GB"), Q_(10, "cu/GB")).magnitude == pytest.approx(800)
    assert devices.memory_cost(Q_(192, "GB"), Q_(15, "cu/GB"), 1000).to("cu").magnitude == pytest.approx(2.88e6)
    assert devices.fraction_held(Q_(80, "GB"), Q_(350, "GB")).magnitude == pytest.approx(0.22857, abs=1e-5)
    assert devices.fraction_held(Q_(400, "GB"), Q_(350, "GB")).magnitude == 1.0


def test_catalog_h100_stack_sum():
    # line 1522: 5 stacks x 670 GB/s = 3.35 TB/s
    total = hw("h100.hbm_stack_bandwidth") * hw("h100.hbm_stacks").magnitude
    assert total.to("TB/s").magnitude == pytest.approx(hw("h100.hbm_bandwidth").to("TB/s").magnitude)


def test_years_to_reach():
    # 1000 W -> 2000 W at 25.74 %/year (A100 400 W -> B200 1000 W in 4 years): ln 2 / ln 1.25743 = 0.693147 / 0.229081 = 3.0258 years
    g = devices.annual_growth(Q_(400, "W"), Q_(1000, "W"), Q_(4, "year"))
    assert g.magnitude == pytest.approx(2.5 ** 0.25 - 1)
    t = devices.years_to_reach(Q_(1000, "W"), Q_(2000, "W"), g)
    assert t.to("year").magnitude == pytest.approx(3.0259, abs=1e-3)
    with pytest.raises(InputError):
        devices.years_to_reach(Q_(2000, "W"), Q_(1000, "W"), 0.1)


def test_out_of_range_results_are_refused_by_name():
    # ieee=False puts normals in the top binade: with FP64's 11 exponent bits that is 2^1024 (> float64 max)
    assert devices.float_max_finite(10, 3, ieee=False).magnitude == pytest.approx((2 - 2 ** -2) * 2.0 ** 512)
    with pytest.raises(InputError, match="exponent_bits"):
        devices.float_max_finite(11, 3, ieee=False)
    # 1.2^5000 = 10^(5000 x 0.0792) ~ 1e396, beyond a float64
    with pytest.raises(InputError, match="periods"):
        devices.project(Q_(1000, "W"), 0.2, 5000)
    with pytest.raises(InputError, match="years"):
        devices.annual_growth(Q_(300, "W"), Q_(1000, "W"), Q_(1e-3, "year"))
