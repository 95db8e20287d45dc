"""Relations the books state, checked on random valid inputs (hypothesis).

The roofline never exceeds either roof (Eq. 28.3); ring all-reduce time grows with p
(Eq. 28.12); the waste w(tau) is smallest at the Young-Daly interval tau* (Eq. 28.20);
a pipeline's interval is its slowest stage (Eq. 28.7); the MTBF of N parts is MTBF/N
(Eq. 28.18); every calculator named for a probability stays in [0, 1].
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fleetcalc.core.units import Q_, Quantity
from test_calculators import DECLARED, valid_draws

INVARIANT = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))

pos = st.floats(1e-3, 1e3)


@INVARIANT
@given(I=st.floats(0, 1e5), r=pos, b=pos)
def test_roofline_never_exceeds_either_roof(I, r, b):
    from fleetcalc.physics import roofline

    R = roofline.attainable_rate(Q_(I, "FLOP/byte"), Q_(r, "TFLOP/s"), Q_(b, "TB/s")).m_as("TFLOP/s")
    assert R <= r * (1 + 1e-12)
    assert R <= I * b * (1 + 1e-12) + 1e-300


@INVARIANT
@given(m=st.floats(1e-3, 1e4), alpha=st.floats(0.1, 100), beta=st.floats(1, 1000), pmax=st.integers(3, 512))
def test_ring_allreduce_time_grows_with_p(m, alpha, beta, pmax):
    from fleetcalc.physics import collectives

    ps = np.arange(2, pmax + 1)
    t = collectives.ring_allreduce_time(ps, Q_(m, "MB"), Q_(alpha, "us"), Q_(beta, "GB/s")).m_as("s")
    assert np.all(np.diff(t) >= -1e-15 * t[1:]), "ring all-reduce time fell as p grew"
    t2 = [collectives.ring_allreduce_time(int(p), Q_(m, "MB"), Q_(alpha, "us"), Q_(beta, "GB/s")).m_as("s")
          for p in (2, pmax)]
    assert np.allclose(t2, t[[0, -1]], rtol=1e-12), "array and scalar p disagree"


@INVARIANT
@given(C=st.floats(1, 3600), M=st.floats(3600, 1e7), R_f=st.floats(0, 3600),
       k=st.sampled_from([0.25, 0.5, 0.9, 0.99, 1.01, 1.1, 2.0, 4.0]))
def test_waste_minimised_at_young_daly(C, M, R_f, k):
    from fleetcalc.physics import reliability

    Cq, Mq, Rq = Q_(C, "s"), Q_(M, "s"), Q_(R_f, "s")
    tau_star = reliability.young_daly_interval(Cq, Mq)
    w_star = reliability.waste_fraction(tau_star, Cq, Mq, Rq).m_as("")
    assert w_star <= reliability.waste_fraction(tau_star * k, Cq, Mq, Rq).m_as("") * (1 + 1e-12)
    assert math.isclose(w_star, reliability.min_waste_fraction(Cq, Mq, Rq).m_as(""), rel_tol=1e-9)


@INVARIANT
@given(st.lists(st.floats(1e-3, 1e4), min_size=1, max_size=8))
def test_pipeline_interval_is_slowest_stage(ts):
    from fleetcalc.physics import pipeline

    stages = [Q_(t, "ms") for t in ts]
    assert math.isclose(pipeline.pipeline_interval(stages).m_as("ms"), max(ts), rel_tol=1e-12)
    assert pipeline.bottleneck_stage(stages) == int(np.argmax(ts))
    assert pipeline.pipelined_total_time(stages, 1).m_as("ms") == pytest.approx(sum(ts), rel=1e-12)


@INVARIANT
@given(M=st.floats(1, 1e7), N=st.integers(1, 10**6))
def test_mtbf_of_n_parts_falls_as_one_over_n(M, N):
    from fleetcalc.physics import reliability

    one = reliability.mtbf_of_n(Q_(M, "hour"), 1).m_as("hour")
    n = reliability.mtbf_of_n(Q_(M, "hour"), N).m_as("hour")
    assert math.isclose(one, M, rel_tol=1e-12)
    assert math.isclose(n * N, M, rel_tol=1e-9)


PROBABILITY_CALCULATORS = sorted(n for n in DECLARED if "probability" in n.split(".")[1] or n.endswith("_cdf"))


def test_probability_calculators_found():
    assert len(PROBABILITY_CALCULATORS) >= 2, PROBABILITY_CALCULATORS


@pytest.mark.parametrize("name", PROBABILITY_CALCULATORS)
def test_probabilities_stay_in_unit_interval(name):
    calc = DECLARED[name]
    fixed, drawn = valid_draws(name)
    problems = []

    @INVARIANT
    @given(st.fixed_dictionaries(drawn))
    def run(kw):
        try:
            res = calc(**fixed, **kw)
        except (ValueError, TypeError):
            return
        v = np.asarray(res.m_as("") if isinstance(res, Quantity) else res, dtype=float)
        if not np.all((v >= 0) & (v <= 1)):
            problems.append(f"{name}({kw}) = {v} is outside [0, 1]")

    run()
    assert not problems, "\n".join(problems[:10])


def test_failure_probability_grows_with_window():
    from fleetcalc.physics import reliability

    d = Q_(np.array([1, 10, 100, 1000, 1e4]), "hour")
    p = np.asarray(reliability.failure_probability(d, Q_(500, "hour")).m_as(""))
    assert np.all(np.diff(p) > 0) and np.all((p >= 0) & (p <= 1))
