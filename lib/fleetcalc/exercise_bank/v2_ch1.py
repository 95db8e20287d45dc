"""Vol. 2 notation and Ch. 1 exercises (solutions/v2_ch1, solutions/v2_notation).

The chapter ends with four open questions (seed 001, lines 1149-1155) and no numeric problems; the
numeric exercises below are ours, built on the chapter's worked examples and learning objectives
(apply the fleet law, analyse scaling-law limits, diagnose risk with the reliability gap and
communication intensity). Answers are computed by the lib from the inputs.
"""
import numpy as np

from .. import collectives, reliability, scaling
from ..exercises import Answer, Exercise, register
from ..units import Q_

# --- V2.1.1: the reliability gap for a Llama-3-sized job ------------------------------------

register(Exercise(
    id="V2.1.1", chapter="v2_ch1", title="How often does a 16,384-GPU job fail, and how often should it save?",
    source="Vol. 2 Ch. 1 §1.1 worked example and notation lines 500-518 (our numbers)",
    inputs={"N": 16_384, "mtbf_gpu": Q_(50_000, "hour"), "t_step": Q_(8, "s"), "T_write": Q_(60, "s")},
    answers={
        "mtbf_sys": Answer(lambda N, mtbf_gpu: reliability.mtbf_of_n(mtbf_gpu, N), unit="hour",
                           hint="independent parts: the job's MTBF is the GPU MTBF divided by N (Eq. 1.1's N*lambda).",
                           label="job MTBF"),
        "failures_per_day": Answer(lambda N, mtbf_gpu: (Q_(1, "day") / reliability.mtbf_of_n(mtbf_gpu, N)).to(""),
                                   unit="", hint="one day divided by the job MTBF.", label="failures per day"),
        "p_step": Answer(lambda N, mtbf_gpu, t_step: reliability.failure_probability(t_step, reliability.mtbf_of_n(mtbf_gpu, N)),
                         unit="", hint="P = 1 - exp(-t_step / MTBF_system) (line 582), as a fraction.",
                         label="P(at least one failure in a step)"),
        "tau_opt": Answer(lambda N, mtbf_gpu, T_write: reliability.young_daly_interval(T_write, reliability.mtbf_of_n(mtbf_gpu, N)),
                          unit="minute", hint="tau_opt = sqrt(2 T_write MTBF_system) with the *system* MTBF (line 510).",
                          label="checkpoint interval"),
        "overestimate": Answer(lambda N: np.sqrt(N), unit="",
                               hint="compare sqrt(2 T_write MTBF_gpu) with sqrt(2 T_write MTBF_gpu / N).",
                               label="overestimate factor with the component MTBF"),
    },
    ranges={"N": (1024, 100_000, 1024), "mtbf_gpu": (10_000, 200_000, 5_000), "t_step": (1, 60, 1), "T_write": (10, 600, 10)},
))

# --- V2.1.2: compute-optimal allocation for GPT-3's budget ------------------------------------

register(Exercise(
    id="V2.1.2", chapter="v2_ch1", title="Compute-optimal allocation for GPT-3's budget",
    source="Vol. 2 Ch. 1 §1.4, Figure 1.6 and lines 800, 846 (our question)",
    inputs={"C": Q_(3.14e23, "FLOP"), "P_gpt3": Q_(175e9, "param"), "D_gpt3": Q_(300e9, "token"), "r": 20},
    answers={
        "P_opt": Answer(lambda C, r: scaling.compute_optimal(C, r)["P"], unit="param", rel=2e-3,
                        hint="C = 6PD with D = rP gives P = sqrt(C / (6r)).", label="compute-optimal parameters"),
        "D_opt": Answer(lambda C, r: scaling.compute_optimal(C, r)["D"], unit="token", rel=2e-3,
                        hint="D = r P_opt.", label="compute-optimal tokens"),
        "ratio_gpt3": Answer(lambda P_gpt3, D_gpt3: scaling.tokens_per_param(P_gpt3, D_gpt3), unit="", rel=2e-3,
                             hint="tokens divided by parameters.", label="GPT-3 tokens per parameter"),
        "D_needed": Answer(lambda P_gpt3, r: r * P_gpt3.to("param").magnitude * Q_(1, "token"), unit="token",
                           rel=2e-3, hint="20 tokens for each of GPT-3's parameters.",
                           label="tokens a 175B model needs at 20:1"),
    },
    ranges={"C": (1e21, 1e26), "r": (5, 60, 1)},
))

# --- V2.1.3: the fleet law for data parallelism --------------------------------------------------


def _grad(P, grad_bytes):
    return Q_(P * grad_bytes, "byte")


def _t_comm(P, grad_bytes, N, beta):
    return collectives.ring_allreduce_time(N, _grad(P, grad_bytes), Q_(0, "s"), beta)


register(Exercise(
    id="V2.1.3", chapter="v2_ch1", title="Scaling efficiency and the bandwidth it needs",
    source="Vol. 2 Ch. 1 §1.8 GPT-3 example (lines 1026-1040), with our inputs",
    inputs={"P": 175e9, "grad_bytes": 2, "N": 1024, "beta": Q_(400, "Gbit/s"), "t_local": Q_(1.2, "s")},
    answers={
        "t_comm": Answer(lambda P, grad_bytes, N, beta: _t_comm(P, grad_bytes, N, beta), unit="s",
                         hint="ring all-reduce: 2(N-1)/N x gradient bytes / beta (Ch. 28 Eq. 28.12, alpha = 0).",
                         label="T_comm(N)"),
        "eta": Answer(lambda P, grad_bytes, N, beta, t_local:
                      scaling.compute_fraction(t_local * N, N, _t_comm(P, grad_bytes, N, beta)), unit="",
                      hint="f = (T_compute/N) / (T_compute/N + T_comm), Eq. 1.4 with no sync or overlap.",
                      label="scaling efficiency (fraction)"),
        "beta_half": Answer(lambda P, grad_bytes, N, t_local:
                            (collectives.ring_allreduce_time(N, _grad(P, grad_bytes), Q_(0, "s"), Q_(1, "byte/s"))
                             .to("s").magnitude * Q_(1, "byte")) / t_local,
                            unit="GB/s", hint="50 % efficiency means T_comm = T_compute/N: solve the ring time for beta.",
                            label="bandwidth for 50 % efficiency"),
    },
    ranges={"N": (8, 16_384, 8), "beta": (50, 3200, 50), "t_local": (0.2, 20, 0.1)},
))

# --- V2.1.4: communication intensity against the hardware boundary -------------------------------


def _sent(P, grad_bytes, N, BW):
    return collectives.ring_allreduce_terms(N, _grad(P, grad_bytes), Q_(0, "s"), BW)["bandwidth"] * BW


def _ci(P, grad_bytes, N, BW, b):
    return scaling.communication_intensity(_sent(P, grad_bytes, N, BW), scaling.training_flops(P, b))


register(Exercise(
    id="V2.1.4", chapter="v2_ch1", title="Communication intensity of data parallelism",
    source="Vol. 2 Ch. 1 §1.7, Eq. 1.2 (line 924), with our inputs",
    inputs={"P": 70e9, "grad_bytes": 2, "N": 512, "b": Q_(8192, "token"), "BW": Q_(400, "Gbit/s"),
            "R_peak": Q_(989, "TFLOP/s")},
    answers={
        "CI": Answer(lambda P, grad_bytes, N, BW, b: _ci(P, grad_bytes, N, BW, b), unit="byte/FLOP",
                     hint="bytes each device sends in the ring all-reduce divided by its 6 P b FLOPs per step.",
                     label="CI (Eq. 1.2)"),
        "CI_star": Answer(lambda BW, R_peak: scaling.ci_boundary(BW, R_peak), unit="byte/FLOP",
                          hint="network time equals compute time at CI* = BW / (R_peak eta_hw).",
                          label="boundary CI*"),
        "time_ratio": Answer(lambda P, grad_bytes, N, BW, b, R_peak:
                             scaling.comm_to_compute_time_ratio(_ci(P, grad_bytes, N, BW, b), BW, R_peak), unit="",
                             hint="CI / CI*.", label="network time / compute time"),
        "b_boundary": Answer(lambda P, grad_bytes, N, BW, R_peak:
                             (_sent(P, grad_bytes, N, BW) / scaling.ci_boundary(BW, R_peak)
                              / scaling.training_flops(P, 1)).to("") * Q_(1, "token"),
                             unit="token", hint="solve 2(N-1)/N x (bytes per value) P / (6 P b) = CI* for b.",
                             label="tokens per device per step at the boundary"),
    },
    ranges={"P": (1e9, 1e12), "N": (8, 4096, 8), "b": (512, 1_048_576, 512), "BW": (50, 3200, 50),
            "R_peak": (100, 4000, 10)},
))

# --- VN.1: the iron law and its energy corollary (notation) -----------------------------------

register(Exercise(
    id="VN.1", chapter="v2_notation", title="Read the iron law: which term dominates?",
    source="Vol. 2 notation, the iron law (line 257) and energy corollary (line 326), our inputs",
    inputs={"D_vol": Q_(20, "GB"), "BW": Q_(3.35, "TB/s"), "O": Q_(40, "GFLOP"), "R_peak": Q_(989, "TFLOP/s"),
            "eta_hw": 0.5, "L_lat": Q_(10, "us"), "E_move": Q_(4, "pJ/bit"), "E_compute": Q_(1, "pJ/FLOP")},
    answers={
        "T": Answer(lambda D_vol, BW, O, R_peak, eta_hw, L_lat: scaling.iron_law_time(D_vol, BW, O, R_peak, eta_hw, L_lat),
                    unit="ms", hint="add D_vol/BW, O/(R_peak eta_hw) and L_lat.", label="T"),
        "data_share": Answer(lambda D_vol, BW, O, R_peak, eta_hw, L_lat:
                             scaling.iron_law_terms(D_vol, BW, O, R_peak, eta_hw, L_lat)["data"]
                             / scaling.iron_law_time(D_vol, BW, O, R_peak, eta_hw, L_lat),
                             unit="", hint="the data term divided by T.", label="share of T moving data"),
        "T_int8": Answer(lambda D_vol, BW, O, R_peak, eta_hw, L_lat:
                         scaling.iron_law_time(D_vol / 2, BW, O, R_peak, eta_hw, L_lat), unit="ms",
                         hint="BF16 -> INT8 halves D_vol (2 bytes -> 1 byte); O is unchanged.", label="T with INT8 weights"),
        "E_total": Answer(lambda D_vol, E_move, O, E_compute: scaling.energy_total(D_vol, E_move, O, E_compute),
                          unit="J", hint="D_vol x E_move + O x E_compute; 1 byte = 8 bit.", label="E_total"),
    },
    ranges={"D_vol": (1, 200, 1), "O": (1, 10_000, 1), "eta_hw": (0.1, 1.0, 0.05)},
))
