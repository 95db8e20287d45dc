"""Tests for fleetcalc.physics.capacity (Ch. 28 §28.9, Example 27.3, Eq. 28.26-28.27)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import capacity as K, storage
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

TOK, RATE = Q_(1.28e12, "token"), Q_(20000, "token/s")


def test_example_27_3_time_and_devices():
    # Eq. 28.27: 1.28e12 / (64 x 20000) = 1e6 s = 277.78 h
    T = K.training_time(TOK, 64, RATE)
    assert T.to("s").magnitude == pytest.approx(1e6)
    assert round(T.to("hour").magnitude, 2) == 277.78
    # 12-day deadline: 61.73 -> 62 -> 64 on 8-device nodes
    assert round(K.devices_lower_bound(TOK, Q_(12, "day"), RATE).magnitude, 2) == 61.73
    assert K.devices_for_deadline(TOK, Q_(12, "day"), RATE) == 62
    assert K.devices_for_deadline(TOK, Q_(12, "day"), RATE, per_node=8) == 64
    assert K.round_up_to_nodes(62, 8) == 64
    # at 16000 token/s: 347.22 h on 64 devices; 78 -> 80 devices
    assert round(K.training_time(TOK, 64, Q_(16000, "token/s")).to("hour").magnitude, 2) == 347.22
    assert K.devices_for_deadline(TOK, Q_(12, "day"), Q_(16000, "token/s")) == 78
    assert K.devices_for_deadline(TOK, Q_(12, "day"), Q_(16000, "token/s"), per_node=8) == 80


def test_example_27_3_power_and_cost():
    it = K.it_power(Q_(8, "kW"), 8, Q_(20, "kW"))
    assert it.to("kW").magnitude == pytest.approx(84)
    fac = K.facility_power(it, 1.2)
    assert fac.to("kW").magnitude == pytest.approx(100.8)
    E = K.energy(fac, Q_(1e6, "s"))
    assert E.to("kWh").magnitude == pytest.approx(28000)
    bill = K.electricity_cost(E, Q_(0.8, "cu/kWh"))
    assert bill.to("cu").magnitude == pytest.approx(22400)
    dev = K.device_hour_cost(64, Q_(1e6, "s"), Q_(5, "cu/device/hour"))
    assert round(dev.to("cu").magnitude, 2) == 88888.89
    assert round((bill + dev).to("cu").magnitude, 2) == 111288.89


def test_example_27_3_serving():
    mu = K.replica_throughput(Q_(800, "token/s"), Q_(400, "token/request"))
    assert mu.magnitude == pytest.approx(2)
    assert K.replicas_needed(Q_(12, "request/s"), mu, 0.75) == 8
    assert K.kv_capacity_requests(Q_(20, "GiB"), Q_(0.5, "GiB")) == 40
    # Little: 12 request/s x 2 s in service = 24 in flight (hand)
    assert storage.in_flight_requests(Q_(12, "request/s"), Q_(2, "s")).magnitude == pytest.approx(24)


def test_validation():
    with pytest.raises(InputError, match="pue"):
        K.facility_power(Q_(84, "kW"), 0.9)
    with pytest.raises(InputError, match="max_utilisation"):
        K.replicas_needed(Q_(12, "request/s"), Q_(2, "request/s"), 1.5)
    with pytest.raises(InputError, match="devices"):
        K.training_time(TOK, 0, RATE)


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(100, 1e6), days=st.floats(0.5, 365), per_node=st.integers(1, 16))
def test_devices_meet_deadline(rate, days, per_node):
    n = K.devices_for_deadline(TOK, Q_(days, "day"), Q_(rate, "token/s"), per_node=per_node)
    assert n % per_node == 0
    assert K.training_time(TOK, n, Q_(rate, "token/s")).to("day").magnitude <= days * (1 + 1e-9)


def test_vectorised_sweep():
    rates = Q_(np.linspace(10000, 30000, 5), "token/s")
    n = K.devices_for_deadline(TOK, Q_(12, "day"), rates, per_node=8)
    assert n.shape == (5,) and np.all(np.diff(n) <= 0)
