"""Tests for fleetcalc.physics.data_drift: the degradation equation and the retraining threshold
(Vol. 2 notation, seed 001 lines 308-320).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import numpy as np
import pytest

from fleetcalc.physics import data_drift as s
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


def test_degradation_equation_line_308():
    # line 308: 0.9 - 0.5 x 0.1 = 0.85 ; clipped at zero
    assert s.degraded_accuracy(0.9, 0.5, 0.1).magnitude == pytest.approx(0.85)
    assert s.degraded_accuracy(0.9, 5, 1).magnitude == 0.0
    with pytest.raises(InputError, match="accuracy_0"):
        s.degraded_accuracy(1.2, 0.5, 0.1)


def test_retraining_threshold_line_320():
    assert s.needs_retraining(0.2, 0.1) is True and s.needs_retraining(0.05, 0.1) is False
    assert list(s.needs_retraining(np.array([0.05, 0.2]), 0.1)) == [False, True]
