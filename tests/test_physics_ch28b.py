"""Calculators appended for Ch. 28 §28.4 and §28.8 (worked steps with one value per input).

Expectations by hand: Exercise 28.5's reference solution (Ch. 28 line 460: 10 + 20 + 8 + 16 = 54 ms
serial, max = 20 ms) and the §28.4 sister stages (6 + 18 + 5 + 12 = 41 ms, max = 18 ms); the
preemption fraction 1 - (C + R + L)/T_p worked by hand (2 + 8 + 15 = 25 min of 120 min lost: 0.7917).
"""
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.physics import pipeline, scheduler


def test_eq_28_8_and_28_9_named_stages_match_the_list_forms():
    ex = [Q_(10, "ms"), Q_(20, "ms"), Q_(8, "ms"), Q_(16, "ms")]
    assert pipeline.serial_time_4(*ex).m_as("ms") == pytest.approx(54)
    assert pipeline.pipeline_interval_4(*ex).m_as("ms") == pytest.approx(20)
    sis = [Q_(6, "ms"), Q_(18, "ms"), Q_(5, "ms"), Q_(12, "ms")]
    assert pipeline.serial_time_4(*sis).m_as("ms") == pytest.approx(41)
    assert pipeline.pipeline_interval_4(*sis).m_as("ms") == pytest.approx(18)
    assert pipeline.serial_time_4(*sis).m_as("s") == pytest.approx(float(pipeline.serial_time(sis).m_as("s")))


def test_worked_steps_render():
    sis = [Q_(6, "ms"), Q_(18, "ms"), Q_(5, "ms"), Q_(12, "ms")]
    w = pipeline.pipeline_interval_4.work(*sis)
    assert "Eq. 28.9" in w._repr_markdown_()
    assert w.result.m_as("ms") == pytest.approx(18)


def test_preemption_useful_fraction_by_hand():
    f = scheduler.preemption_useful_fraction(Q_(120, "min"), Q_(2, "min"), Q_(8, "min"), Q_(15, "min"))
    assert float(f) == pytest.approx(1 - 25 / 120)
    with pytest.raises(Exception):
        scheduler.preemption_useful_fraction(Q_(0, "min"), Q_(2, "min"), Q_(8, "min"), Q_(15, "min"))
