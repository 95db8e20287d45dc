"""Tests for fleetcalc.physics.scaling_laws: power-law loss, 6 P D and compute-optimal allocation (Vol.
2 notation and Ch. 1, seed 001 lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import math

import pytest

from fleetcalc import Q_

from fleetcalc.physics import scaling_laws as s
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


def test_training_flops_gpt3():
    # 6 x 175e9 x 300e9 = 3.15e23 (Ch. 2 line 2294 writes the product; Ch. 1 prints 3.14e23 from
    # the unrounded 174.6e9 parameters of Brown et al. 2020)
    close(s.training_flops(Q_(175e9, "param"), Q_(300e9, "token")), 3.15e23, "FLOP")
    close(s.training_flops(175e9, 300e9), 3.15e23, "FLOP")


def test_chinchilla_point():
    # Ch. 1 line 788: 63e9 parameters on 1.4e12 tokens; 6PD = 5.292e23 FLOP; 22.2 tokens/param
    close(s.training_flops(63e9, 1.4e12), 5.292e23, "FLOP")
    close(s.tokens_per_param(63e9, 1.4e12), 1.4e12 / 63e9)
    opt = s.compute_optimal(Q_(5.292e23, "FLOP"))
    # hand: P = sqrt(5.292e23 / 120) = 6.641e10
    close(opt["P"], math.sqrt(5.292e23 / 120), "param")
    close(opt["D"], 20 * math.sqrt(5.292e23 / 120), "token")
    # round trip: 6 P D = C
    close(s.training_flops(opt["P"], opt["D"]), 5.292e23, "FLOP")


def test_constrained_allocation_and_regimes():
    c = Q_(1e24, "FLOP")
    d_opt = s.compute_optimal(c)["D"].magnitude
    a = s.constrained_allocation(c, Q_(d_opt / 4, "token"))
    assert a["data_limited"] is True
    close(a["P"], 1e24 / (6 * d_opt / 4), "param")
    assert s.scaling_regime(c, d_opt / 4) == "data-limited"
    assert s.scaling_regime(c, d_opt * 1.5) == "balanced"
    assert s.scaling_regime(c, d_opt * 10) == "compute-limited"
    b = s.constrained_allocation(c, d_opt * 10)
    assert b["data_limited"] is False


def test_power_law_round_trip():
    loss = s.power_law_loss(1e9, 400.0, 0.34, 1.69)
    x = s.resource_for_loss(loss, 400.0, 0.34, 1.69)
    assert x.magnitude == pytest.approx(1e9, rel=1e-9)
    with pytest.raises(InputError, match="L_target"):
        s.resource_for_loss(1.5, 400.0, 0.34, 1.69)


def test_kaplan_constants_are_the_two_variable_fit_of_table_2():
    # Kaplan et al. 2020, Table 2 ("Fits to L(N, D)"), the constants of their Eq. 1.5: not the
    # single-variable fits of Eqs 1.1-1.2 (alpha_D = 0.095, N_c = 8.8e13, D_c = 5.4e13)
    assert s.KAPLAN == {"alpha_N": 0.076, "alpha_D": 0.103, "N_c": 6.4e13, "D_c": 1.8e13}


def test_kaplan_loss_matches_the_paper_formula_by_hand():
    # Kaplan et al. 2020 Eq. 1.5: L = [(N_c/N)^(a_N/a_D) + D_c/D]^a_D with Table 2's N_c = 6.4e13,
    # D_c = 1.8e13, a_N = 0.076, a_D = 0.103. For N = 1e9, D = 1e12: 64,000^(0.076/0.103) =
    # 64,000^0.73786 = 3,518.1; + 18 -> 3,536.1; ^0.103 = 2.3201 nats/token
    assert s.kaplan_loss(1e9, 1e12).magnitude == pytest.approx(2.3201, abs=5e-4)
    # unlimited data: (N_c/N)^a_N = 64,000^0.076 = 2.3188
    assert s.kaplan_loss(1e9, 1e30).magnitude == pytest.approx(2.3188, abs=5e-4)
    # unlimited model: (D_c/D)^a_D; D = 1.8e15 tokens = 100 D_c -> 100^-0.103 = 10^-0.206 = 0.6223
    assert s.kaplan_loss(1e30, 1.8e15).magnitude == pytest.approx(10 ** -0.206, rel=1e-6)


def test_kaplan_loss_rejects_bad_input():
    with pytest.raises(ValueError, match="P"):
        s.kaplan_loss(-1, 1e9)
    with pytest.raises(ValueError, match="D"):
        s.kaplan_loss(1e9, 0)
