"""The capstone's design chain: one training run designed end to end, from a model and a deadline
to power and cost (chapters/capstone).

:func:`design` chains the course's calculators in the order a designer meets them (training FLOPs,
devices for the deadline, memory and layout, communication and fabric, data and storage,
checkpoints and failures, power and cost). It types no formula: each figure is one calculator call,
recorded as a :class:`Step` (the calculator, its inputs and its result), so the design ledger and
the pictures (``fleetcalc.ui.diagrams.capstone``) are drawn from the calculators' own results.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.job import our_job
from fleetcalc.core.units import Q_
from fleetcalc.physics import (capacity, collectives, facility, fabric, memory, reliability, scaling_laws,
                               storage)

__all__ = ["DEVICES", "STAGES", "SUMMARY", "Step", "Design", "design", "device_figures", "layouts", "summary_figures"]


#: the devices the summary panel offers (catalog keys); the book gives their dense FP16 peaks,
#: which equal their dense BF16 peaks
DEVICES = {"NVIDIA A100 80 GB": "a100", "NVIDIA H100 SXM": "h100", "NVIDIA B200": "b200"}


#: the seven stages, in the order the design meets them
STAGES = ("1 compute", "2 devices", "3 memory and layout", "4 communication and fabric",
          "5 data and storage", "6 checkpoints and failures", "7 power and cost")


@dataclass
class Step:
    """One figure of the design: which calculator computed it, from what, and its value."""
    key: str
    label: str
    stage: str
    calc: object
    args: tuple
    kwargs: dict
    result: object
    pick: str | int | None = None    # the entry of a dict (or, -1, the last of an array) that is the figure

    @property
    def value(self):
        return self.result[self.pick] if self.pick is not None else self.result


@dataclass
class Design:
    """The chained design: ``d["N"]`` is a figure's value, ``d.steps`` the ordered record."""
    inputs: dict
    steps: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return self.steps[key].value

    def __contains__(self, key):
        return key in self.steps

    def _do(self, key, label, stage, calc, *args, pick=None, **kwargs):
        res = calc(*args, **kwargs)
        self.steps[key] = Step(key, label, stage, calc, args, kwargs, res, pick)
        return self.steps[key].value


def device_figures(device: str) -> dict:
    """Peak rate, HBM capacity and power of one catalog device. For our job's own device these
    are our job's fields (the BF16 peak); for another, the catalog's dense FP16 peak."""
    if device == our_job.device:
        return {"R_peak": our_job.R_peak, "hbm_capacity": our_job.hbm_capacity, "gpu_power": our_job.gpu_power}
    return {"R_peak": hw(f"{device}.peak_fp16"), "hbm_capacity": hw(f"{device}.hbm_capacity"),
            "gpu_power": hw(f"{device}.tdp")}


def _count(q) -> int:
    """A whole count (a plain int, or a dimensionless or `device` Quantity) as int."""
    return int(round(float(getattr(q, "magnitude", q))))


def design(P=None, D=None, deadline=Q_(17, "day"), device=None, *, mfu=None, t=None, pp=None,
           oversubscription=1.0, bytes_per_token=Q_(4, "byte/token"), R_f=None, pue=None,
           energy_price=Q_(0.10, "cu/kWh"), L=None) -> Design:
    """Chain the calculators from the model (P parameters, D tokens) and a deadline to power and
    cost. Every input left out is our job's (``our_job``); ``deadline`` 17 days is the capstone's
    own choice (the least whole number of days in which 1,024 H100s at 40 % MFU finish our job).
    ``t`` x ``pp`` is the model-parallel layout (our job's 8 x 4); the device count is rounded up
    to whole model replicas, so data parallelism ``dp`` = N / (t pp) is whole. ``R_f`` is the
    recovery time per failure (the catalog's 10 min by default), ``pue`` the facility's (from
    the book's 90 % of power reaching compute in a liquid-cooled hall), ``energy_price`` our
    assumption (1 cu is about one US dollar, like the 3 cu GPU-hour)."""
    P = our_job.P if P is None else P
    D = our_job.D if D is None else D
    device = our_job.device if device is None else device
    mfu = our_job.eta_hw if mfu is None else mfu
    t = _count(our_job.t) if t is None else int(t)
    pp = _count(our_job.pp) if pp is None else int(pp)
    L = _count(our_job.L) if L is None else int(L)
    R_f = hw("node_mtbf.recovery_low") if R_f is None else R_f
    k = _count(our_job.gpus_per_node)
    dev = device_figures(device)
    if pue is None:
        pue = facility.pue_from_compute_fraction(hw("dc_facility.liquid_to_compute_low"))
    d = Design(inputs={"P": P, "D": D, "deadline": deadline, "device": device, "mfu": mfu, "t": t, "pp": pp,
                       "oversubscription": oversubscription, **dev})
    S1, S2, S3, S4, S5, S6, S7 = STAGES

    # 1 compute
    d._do("C", "training compute", S1, scaling_laws.training_flops, P, D)
    d._do("r_tok", "tokens per parameter", S1, scaling_laws.tokens_per_param, P, D)
    # 2 devices for the deadline
    r_dev = d._do("r_dev", "tokens per second per device", S2, capacity.token_rate_per_device, P, dev["R_peak"], mfu)
    n_dl = d._do("N_deadline", "devices for the deadline (whole nodes)", S2, capacity.devices_for_deadline,
                 D, deadline, r_dev, per_node=k)
    N = d._do("N", "devices (whole model replicas)", S2, capacity.round_up_to_nodes, n_dl, t * pp)
    dp = N // (t * pp)
    d.inputs["dp"] = dp
    d._do("T_train", "training time at that MFU", S2, capacity.training_time, D, N, r_dev)
    # 3 memory and layout
    same_model = np.isclose(Q_(P, "param").to("param").magnitude if not hasattr(P, "units") else
                            P.to("param").magnitude, our_job.P.to("param").magnitude) and L == _count(our_job.L)
    h = _count(our_job.h) if same_model else \
        _count(d._do("h", "hidden size", S3, scaling_laws.hidden_size_for_params, P, L))
    act = d._do("act", "activations per GPU (selective recompute, sequence parallel)", S3, memory.activation_memory,
                _count(our_job.s), _count(our_job.b), h, _count(our_job.a), L, t,
                sequence_parallel=True, recompute="selective")
    budget = d._do("hbm", "HBM used per GPU", S3, memory.per_gpu_budget, P, our_job.s_w, our_job.s_g, our_job.s_opt,
                   our_job.s_master, t=t, pp=pp, dp=dp, zero=_count(our_job.zero), activations=act, pick="hbm")
    d._do("headroom", "HBM left per GPU", S3, memory.headroom, dev["hbm_capacity"], budget)
    # 4 communication and fabric
    grad = d.steps["hbm"].result["gradients"]
    if dp >= 2:
        t_ar = d._do("t_allreduce", "gradient all-reduce per step (ring over dp)", S4, collectives.ring_allreduce_time,
                     dp, grad, our_job.alpha, our_job.nic_rate)
    else:   # one replica: no data-parallel all-reduce, nothing exposed
        t_ar = d._do("t_allreduce", "gradient all-reduce per step (one replica: none)", S4,
                     collectives.exposed_communication, Q_(0, "s"), Q_(0, "s"))
    C_step = d._do("C_step", "compute per step", S4, scaling_laws.training_flops, P, our_job.batch_tokens)
    t_c = d._do("t_compute", "compute time per step", S4, facility.ideal_training_time, C_step, N, dev["R_peak"], mfu)
    U = d._do("U", "share of a step computing (no overlap)", S4, fabric.utilization, t_c, t_ar)
    d._do("bisection", "bisection bandwidth (per direction)", S4, fabric.bisection_bandwidth, max(N, 2), our_job.nic_rate,
          oversubscription)
    d._do("tiers", "fat-tree tiers (radix 64)", S4, fabric.fat_tree_tiers_needed, N, _count(hw("switch64.radix")))
    d._do("loss_oversub", "throughput lost to oversubscription (at most: every ring hop through the leaf uplinks)", S4, fabric.throughput_loss,
          1 - U.to("").magnitude, max(oversubscription, 1.0))
    # 5 data and storage
    r_tok = d._do("token_rate", "tokens per second, cluster", S5, storage.aggregate_token_rate, N, r_dev)
    d._do("beta_token", "token read bandwidth", S5, storage.token_read_bandwidth, r_tok, bytes_per_token)
    S_w = d._do("S_weights", "checkpoint: weights", S5, memory.weights_memory, P, our_job.s_w)
    S_o = d._do("S_opt", "checkpoint: optimizer state and master weights", S5, memory.optimizer_memory, P,
                our_job.s_opt, our_job.s_master)
    S_c = (S_w + S_o).to("GB")
    C_save = d._do("C_save", "checkpoint pause (whole file system, best case)", S5, storage.checkpoint_window_time,
                   S_c, our_job.storage_bw)
    # 6 checkpoints and failures
    nodes = N // k
    M = d._do("M", "job MTBF", S6, reliability.mtbf_of_n, our_job.node_mtbf, nodes)
    d._do("tau", "checkpoint interval (Young-Daly)", S6, reliability.young_daly_interval, C_save, M)
    w = d._do("w", "time lost to saves, failures and recovery", S6, reliability.min_waste_fraction, C_save, M, R_f)
    T_wall = d._do("T_wall", "wall-clock time", S6, facility.overhead_chain, d["T_train"],
                   factors=[w.to("").magnitude], pick=-1)
    d._do("failures", "expected failures in the run", S6, reliability.expected_failures, T_wall,
          our_job.node_mtbf, nodes)
    # 7 power, facility and cost
    rest = d._do("P_rest", "non-GPU power per node", S7, facility.rack_overhead, hw("dgx_h100.node_power"),
                 _count(hw("dgx_h100.gpus")), hw("h100.tdp"))
    P_rest = d._do("P_rest_all", "non-GPU power, all nodes", S7, capacity.it_power, rest, nodes)
    it = d._do("P_IT", "IT power", S7, capacity.it_power, dev["gpu_power"], N, P_rest)
    rack = d._do("P_rack", "power per rack (4 nodes)", S7, capacity.it_power, dev["gpu_power"], 4 * k,
                 capacity.it_power(rest, 4))
    d._do("cooling", "cooling regime", S7, facility.cooling_regime, rack)
    d._do("racks", "racks", S7, facility.racks_needed, N, 4 * k)
    fac = d._do("P_facility", "facility power", S7, capacity.facility_power, it, pue)
    E = d._do("E", "energy", S7, capacity.energy, fac, T_wall)
    d._do("cost_energy", "electricity", S7, capacity.electricity_cost, E, energy_price)
    d._do("cost_devices", "GPU-hours", S7, capacity.device_hour_cost, N, T_wall,
          our_job.gpu_hour_price / Q_(1, "device"))
    return d


def layouts(P=None, N=None, device=None, ts=(1, 2, 4, 8), pps=(1, 2, 4, 8, 16)) -> dict:
    """HBM used per GPU (GB) for each tensor x pipeline layout of our job on N devices (NaN where
    t x pp does not divide N): ``{"t": ts, "pp": pps, "hbm": 2-D array, "capacity": GB}``."""
    P = our_job.P if P is None else P
    N = _count(our_job.N) if N is None else int(N)
    dev = device_figures(our_job.device if device is None else device)
    grid = np.full((len(ts), len(pps)), np.nan)
    for i, t in enumerate(ts):
        act = memory.activation_memory(_count(our_job.s), _count(our_job.b), _count(our_job.h), _count(our_job.a),
                                       _count(our_job.L), t, sequence_parallel=True, recompute="selective")
        for j, pp in enumerate(pps):
            if N % (t * pp):
                continue
            b = memory.per_gpu_budget(P, our_job.s_w, our_job.s_g, our_job.s_opt, our_job.s_master, t=t, pp=pp,
                                      dp=N // (t * pp), zero=_count(our_job.zero), activations=act)
            grid[i, j] = b["hbm"].to("GB").magnitude
    return {"t": ts, "pp": pps, "hbm": grid, "capacity": dev["hbm_capacity"].to("GB").magnitude}


#: the figures the summary panel compares with our job's, in chain order: (key, label)
SUMMARY = (("C", "training FLOPs"), ("N", "GPUs"), ("hbm", "HBM per GPU"), ("t_allreduce", "all-reduce per step"),
           ("C_save", "checkpoint pause"), ("failures", "failures in the run"), ("T_wall", "wall-clock time"),
           ("P_facility", "facility power"), ("cost_devices", "GPU-hour cost"))


def summary_figures(d: Design) -> dict:
    """The summary panel's figures of a design, as floats in fixed units (for ratios)."""
    def mag(key):
        v = d[key]
        if key == "T_wall":
            return float(v.to("hour").magnitude)
        return float(v.to_base_units().magnitude) if hasattr(v, "units") else float(v)
    return {k: mag(k) for k, _ in SUMMARY}
