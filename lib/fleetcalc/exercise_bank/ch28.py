"""Ch. 28 exercises other than 28.2/28.3 (those are in ch28_roofline.py).

Every expected answer is computed from the exercise's inputs with lib calls. Conceptual
exercises (28.4, 28.12, 28.13) have written answers only and are registered without parts.
"""
from ..accelerator import resident_blocks
from ..checkpoint import ObjectStore, restore_latest, write_checkpoint
from ..collectives import alltoall_cut_time, ring_allreduce_terms
from ..exercises import Answer, Exercise, register
from ..pipeline import merge_stages, pipeline_interval, serial_time
from ..reliability import young_daly_interval
from ..storage import checkpoint_window_bandwidth, effective_bandwidth, per_share
from ..units import Q_


def _blocks(R_SM, r, t, H_SM, h, T_SM, n_arch):
    return resident_blocks(R_SM, r, t, H_SM, h, T_SM, n_arch).bound


register(Exercise(
    id="28.1", chapter="ch28", title="Resident blocks per SM", source="Ch. 28 Exercise 28.1",
    inputs={"R_SM": 65536, "H_SM": Q_(64, "KiB"), "T_SM": 2048, "n_arch": 16, "t": 256, "r": 64,
            "h": Q_(24, "KiB"), "h_new": Q_(16, "KiB")},
    answers={
        "n_block": Answer(lambda R_SM, r, t, H_SM, h, T_SM, n_arch: _blocks(R_SM, r, t, H_SM, h, T_SM, n_arch),
                          rel=0, abs=0, label="resident blocks (24 KiB per block)",
                          hint="Eq. 28.1: take the floor of each ratio, then the minimum."),
        "n_block_16k": Answer(lambda R_SM, r, t, H_SM, h_new, T_SM, n_arch: _blocks(R_SM, r, t, H_SM, h_new, T_SM, n_arch),
                              rel=0, abs=0, label="resident blocks (16 KiB per block)",
                              hint="recompute floor(H_SM/h) with h = 16 KiB; compare it with the register limit."),
    },
    ranges={"r": (16, 128, 8), "t": (64, 1024, 64)},
))

register(Exercise(id="28.4", chapter="ch28", title="NUMA: thread affinity is not page placement",
                  source="Ch. 28 Exercise 28.4", inputs={}, answers={}))

_STAGES = {"t_r": Q_(10, "ms"), "t_p": Q_(20, "ms"), "t_h": Q_(8, "ms"), "t_g": Q_(16, "ms")}

register(Exercise(
    id="28.5", chapter="ch28", title="Serial time, pipeline interval, shared resource",
    source="Ch. 28 Exercise 28.5", inputs=dict(_STAGES),
    answers={
        "t_serial": Answer(lambda t_r, t_p, t_h, t_g: serial_time([t_r, t_p, t_h, t_g]), unit="ms",
                           hint="Eq. 28.8: add the four stage times.", label="serial time per batch"),
        "t_pipe": Answer(lambda t_r, t_p, t_h, t_g: pipeline_interval([t_r, t_p, t_h, t_g]), unit="ms",
                         hint="Eq. 28.9: the slowest stage sets the steady interval.", label="steady interval"),
        "t_pipe_shared": Answer(lambda t_r, t_p, t_h, t_g: pipeline_interval(merge_stages([t_r, t_p, t_h, t_g], [(0, 1)])),
                                unit="ms", hint="read and prepare share one resource: merge them into one stage first.",
                                label="interval when read and prepare share a resource"),
    },
    ranges={"t_r": (1, 40, 1), "t_p": (1, 40, 1), "t_h": (1, 40, 1), "t_g": (1, 40, 1)},
))


def _ring(p, m, alpha, beta_net, part):
    return ring_allreduce_terms(p, m, alpha, beta_net)[part]


register(Exercise(
    id="28.6", chapter="ch28", title="Ring all-reduce: 8 vs 64 processes", source="Ch. 28 Exercise 28.6",
    inputs={"m": Q_(256, "MiB"), "alpha": Q_(5, "us"), "beta_net": Q_(25, "GiB/s"), "p_small": 8, "p_large": 64},
    answers={
        "latency_ratio": Answer(lambda m, alpha, beta_net, p_small, p_large:
                                (_ring(p_large, m, alpha, beta_net, "latency") / _ring(p_small, m, alpha, beta_net, "latency")).to(""),
                                label="start-up term, p_large over p_small",
                                hint="the start-up term is 2(p-1)α: compare 2·63 with 2·7."),
        "bandwidth_ratio": Answer(lambda m, alpha, beta_net, p_small, p_large:
                                  (_ring(p_large, m, alpha, beta_net, "bandwidth") / _ring(p_small, m, alpha, beta_net, "bandwidth")).to(""),
                                  label="transfer term, p_large over p_small",
                                  hint="the transfer term is 2(p-1)/p · m/β: compare 2·63/64 with 2·7/8."),
    },
    ranges={"p_small": (2, 16, 1), "p_large": (17, 1024, 1)},
))

register(Exercise(
    id="28.7", chapter="ch28", title="High port bandwidth, low bisection", source="Ch. 28 Exercise 28.7",
    inputs={"hosts_per_rack": 32, "port": Q_(50, "GB/s"), "cut": Q_(50, "GB/s"), "q": Q_(16, "MiB")},
    answers={
        "t_cut": Answer(lambda hosts_per_rack, q, cut: alltoall_cut_time(hosts_per_rack, hosts_per_rack, q, cut),
                        unit="s", label="all-to-all lower bound set by the cut",
                        hint="each direction of the cut carries 32 x 32 pair messages of q bytes."),
    },
))

register(Exercise(
    id="28.8", chapter="ch28", title="IOPS roof vs link roof", source="Ch. 28 Exercise 28.8",
    inputs={"beta_io": Q_(1, "GiB/s"), "iops": Q_(5000, "request/s"), "q_small": Q_(4, "KiB"), "q_large": Q_(1, "MiB")},
    answers={
        "bw_small": Answer(lambda beta_io, iops, q_small: effective_bandwidth(beta_io, iops, q_small), unit="MiB/s",
                           hint="Eq. 28.16: min(link, IOPS x request size).", label="bound at 4 KiB"),
        "bw_large": Answer(lambda beta_io, iops, q_large: effective_bandwidth(beta_io, iops, q_large), unit="MiB/s",
                           hint="at 1 MiB the request roof exceeds the link; which one binds?", label="bound at 1 MiB"),
    },
    ranges={"iops": (1000, 50000, 1000)},
))

register(Exercise(
    id="28.9", chapter="ch28", title="A 90-second checkpoint window", source="Ch. 28 Exercise 28.9",
    inputs={"S_c": Q_(2, "TiB"), "window": Q_(90, "s"), "nodes": 8},
    answers={
        "beta_cluster": Answer(lambda S_c, window: checkpoint_window_bandwidth(S_c, window), unit="GiB/s",
                               hint="Eq. 28.20 with the new window.", label="cluster bandwidth"),
        "beta_node": Answer(lambda S_c, window, nodes: per_share(checkpoint_window_bandwidth(S_c, window), nodes),
                            unit="GiB/s", hint="split the cluster figure evenly over the nodes.", label="per node"),
    },
    ranges={"window": (30, 600, 10)},
))


def _restored(n_shards, bad_rank, crash_after):
    store = ObjectStore()
    write_checkpoint(store, 100, n_shards)
    write_checkpoint(store, 200, n_shards, corrupt=bad_rank)
    write_checkpoint(store, 300, n_shards, crash_after=crash_after)
    return restore_latest(store).step


register(Exercise(
    id="28.10", chapter="ch28", title="A commit manifest for 64 shards", source="Ch. 28 Exercise 28.10",
    inputs={"n_shards": 64, "bad_rank": 17, "crash_after": 63},
    answers={"restored_step": Answer(_restored, rel=0, abs=0, label="step restored",
                                     hint="an uncommitted step and a step with a bad digest are both rejected whole.")},
))

register(Exercise(
    id="28.11", chapter="ch28", title="Young-Daly when failures come four times as often",
    source="Ch. 28 Exercise 28.11", inputs={"C": Q_(60, "s"), "M": Q_(24, "hour"), "factor": 4},
    answers={
        "tau_star": Answer(lambda C, M: young_daly_interval(C, M), unit="s", hint="Eq. 28.24: sqrt(2CM).",
                           label="τ* at the original M"),
        "ratio": Answer(lambda C, M, factor: (young_daly_interval(C, M / factor) / young_daly_interval(C, M)).to(""),
                        hint="τ* grows as the square root of M.", label="new τ* over old τ*"),
    },
    ranges={"factor": (2, 16, 1)},
))

register(Exercise(id="28.12", chapter="ch28", title="Busier devices, more energy per useful token",
                  source="Ch. 28 Exercise 28.12", inputs={}, answers={}))
register(Exercise(id="28.13", chapter="ch28", title="A compatibility matrix for a migration",
                  source="Ch. 28 Exercise 28.13", inputs={}, answers={}))
