"""Tests for fleetcalc.physics.loggp: the LogGP message model (Vol. 2 notation and Ch. 1, seed 001
lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import pytest

from fleetcalc import Q_

from fleetcalc.physics import loggp as s


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


def test_loggp_matches_alpha_beta_for_long_messages():
    L, o, G = Q_(2, "us"), Q_(1, "us"), Q_(1 / 25e9, "s/byte")
    t = s.loggp_message_time(Q_(1e6, "byte"), L, o, G)
    close(t, 4e-6 + (1e6 - 1) / 25e9, "s")
    ab = s.loggp_alpha_beta(L, o, G)
    from fleetcalc.physics.collectives import alpha_beta_time
    close(alpha_beta_time(Q_(1e6, "byte"), ab["alpha"], ab["beta_net"]), t.to("s").magnitude, "s")
    # burst: gap dominates small messages
    tb = s.loggp_burst_time(10, Q_(1, "byte"), L, o, Q_(5, "us"), G)
    close(tb, 9 * 5e-6 + 4e-6, "s")
