"""Ch. 28 §28.3 exercises: 28.2 (least batch for a target intensity) and 28.3 (time bounds)."""
from ..exercises import Answer, Exercise, register
from ..roofline import max_matmul_intensity, min_batch_for_intensity, time_lower_bound
from ..units import Q_

register(Exercise(
    id="28.2", chapter="ch28", title="Least batch for a target intensity",
    source="Ch. 28 Exercise 28.2",
    # W is square (d = n = 4096), so one input d stands for both
    inputs={"d": 4096, "s": Q_(2, "byte"), "I_target": Q_(50, "FLOP/byte")},
    answers={"B_min": Answer(
        lambda d, s, I_target: min_batch_for_intensity(I_target, d, d, s),
        unit="", rel=0, abs=0,
        hint="write I_ideal(B) from Eq. 28.4 with d = n, set it >= the target and solve for B; "
             "then round up to a whole batch.", label="least whole B")},
    ranges={"d": (1024, 16384, 1024), "I_target": (10, 200, 5)},
    valid=lambda d, s, I_target: I_target < max_matmul_intensity(d, d, s),
))


def _time(F, Q, R_peak, beta_mem, f_scale=1.0, q_scale=1.0):
    return time_lower_bound(F * f_scale, Q * q_scale, R_peak, beta_mem)

register(Exercise(
    id="28.3", chapter="ch28", title="Compute-bound or memory-bound: which half helps?",
    source="Ch. 28 Exercise 28.3",
    inputs={"F": Q_(4e12, "FLOP"), "Q": Q_(1e11, "byte"), "R_peak": Q_(2e14, "FLOP/s"),
            "beta_mem": Q_(2e12, "byte/s")},
    answers={
        "t_min": Answer(lambda F, Q, R_peak, beta_mem: _time(F, Q, R_peak, beta_mem), unit="s",
                        hint="t >= max(F/R_peak, Q/beta_mem), Eq. 28.2: compute both terms.",
                        label="lower bound on t"),
        "t_half_flops": Answer(lambda F, Q, R_peak, beta_mem: _time(F, Q, R_peak, beta_mem, f_scale=0.5), unit="s",
                               hint="halve F only; which term of the max is larger now?",
                               label="bound with F halved"),
        "t_half_bytes": Answer(lambda F, Q, R_peak, beta_mem: _time(F, Q, R_peak, beta_mem, q_scale=0.5), unit="s",
                               hint="halve Q only; the memory term Q/beta_mem halves.",
                               label="bound with Q halved"),
    },
    ranges={"F": (1e11, 1e14), "Q": (1e9, 1e12), "R_peak": (1e13, 2e15), "beta_mem": (5e11, 8e12)},
))
