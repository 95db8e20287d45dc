"""Vol. 2 Ch. 2, node to facility (seed lines 1919-2495): exercises 2b.1-2b.8.

Scenarios come from the chapter (Figure 2.11, the PCIe-vs-NVLink box, the failure sums, the
memory budget exercise, the rack and pod sums, the fallacies); 2b.3 and 2b.4 are our own
variations on the book's method, with their inputs stated here.
"""
from .. import collectives, facility, memory, node, scaling
from ..exercises import Answer, Exercise, register
from ..units import Q_

# ---------------------------------------------------------------- 2b.1 Figure 2.11
register(Exercise(
    id="2b.1", chapter="v2_ch2", title="Figure 2.11's NVLink numbers", source="Vol. 2 Ch. 2 Figure 2.11 (line 1923), line 2024",
    inputs={"aggregate": Q_(900, "GB/s"), "links": 18, "claimed": Q_(112, "GB/s")},
    answers={
        "per_link": Answer(lambda aggregate, links: node.per_link_bandwidth(aggregate, links), unit="GB/s",
                           hint="divide the per-GPU aggregate by the number of NVLinks per GPU.",
                           label="per-link bandwidth implied by the aggregate (both ways)"),
        "per_link_one_way": Answer(lambda aggregate, links: node.one_way(node.per_link_bandwidth(aggregate, links)),
                                   unit="GB/s", hint="900 GB/s is both directions summed; halve the per-link figure.",
                                   label="per-link bandwidth, one way"),
        "implied_aggregate": Answer(lambda claimed, links: node.aggregate_bandwidth(links, claimed), unit="GB/s",
                                    hint="multiply the caption's per-link figure by the number of links.",
                                    label="aggregate implied by 112 GB/s per link"),
    },
    ranges={"links": (6, 24, 1)},
))

# ---------------------------------------------------------------- 2b.2 PCIe vs NVLink box
def _tp_step(b, s, h, bytes_per_value, layers, bw, ring=False, p=8):
    m = node.hidden_tensor_bytes(b, s, h, bytes_per_value)
    t = collectives.ring_allreduce_time(p, m, Q_(0, "s"), bw) if ring else node.transfer_time(m, bw)
    return node.per_step_comm_time(t, layers)


register(Exercise(
    id="2b.2", chapter="v2_ch2", title="Tensor parallelism over PCIe and over NVLink",
    source="Vol. 2 Ch. 2 PCIe vs NVLink box (line 2046)",
    inputs={"b": 4, "s": 2048, "h": 12288, "bytes_per_value": Q_(2, "byte"), "layers": 96,
            "pcie": Q_(64, "GB/s"), "nvlink_one_way": Q_(450, "GB/s"), "t_compute": Q_(200, "ms")},
    answers={
        "comm_pcie": Answer(lambda b, s, h, bytes_per_value, layers, pcie: _tp_step(b, s, h, bytes_per_value, layers, pcie),
                            unit="ms", hint="message = b s h x 2 bytes; one AllReduce = message / 64 GB/s; x 2 passes x 96 layers.",
                            label="communication per step on PCIe (book's model)"),
        "stall_pcie": Answer(lambda b, s, h, bytes_per_value, layers, pcie, t_compute:
                             node.stall_fraction(_tp_step(b, s, h, bytes_per_value, layers, pcie), t_compute),
                             unit="", hint="waiting share = t_comm / (t_comm + t_compute).",
                             label="share of the step spent waiting on PCIe (0-1)"),
        "busy_nvlink_ring": Answer(lambda b, s, h, bytes_per_value, layers, nvlink_one_way, t_compute:
                                   1 - node.stall_fraction(_tp_step(b, s, h, bytes_per_value, layers, nvlink_one_way, ring=True), t_compute),
                                   unit="", hint="ring AllReduce over 8 GPUs moves 2(p-1)/p = 1.75 x the message over each one-way link.",
                                   label="busy share on NVLink, ring AllReduce at 450 GB/s (0-1)"),
    },
    ranges={"b": (1, 16, 1), "layers": (24, 128, 8), "t_compute": (50, 2000, 50)},
))

# ---------------------------------------------------------------- 2b.3 node reliability
register(Exercise(
    id="2b.3", chapter="v2_ch2", title="What fails in a node, and how often",
    source="Vol. 2 Ch. 2 §Failure probability (line 2098); our own 24 h variant",
    inputs={"node_mtbf": Q_(1000, "hour"), "gpu_mtbf": Q_(50000, "hour"), "gpus": 8, "nodes": 128,
            "window": Q_(24, "hour")},
    answers={
        "rest_mtbf": Answer(lambda node_mtbf, gpu_mtbf, gpus: node.rest_of_node_mtbf(node_mtbf, gpu_mtbf, gpus),
                            unit="hour", hint="failure rates of parts in series add: 1/M_node = n/M_gpu + 1/M_rest.",
                            label="MTBF of everything except the GPUs"),
        "p_one_node": Answer(lambda window, node_mtbf: node.failure_probability_of_fleet(window, node_mtbf, 1),
                             unit="", hint="P = 1 - exp(-T/M) for one node.", label="P(one node fails in the window)"),
        "p_any": Answer(lambda window, node_mtbf, nodes: node.failure_probability_of_fleet(window, node_mtbf, nodes),
                        unit="", hint="n nodes in series: MTBF/n, then P = 1 - exp(-T n / M).",
                        label="P(at least one of the nodes fails in the window)"),
    },
    ranges={"nodes": (8, 1024, 8), "window": (1, 336, 1)},
))

# ---------------------------------------------------------------- 2b.4 memory budget, 70B
_B = Q_(1, "byte")


def _budget(P, t=8, dp=1, zero=0, offload=False, act=Q_(10, "GB"), buf=Q_(5, "GB")):
    return memory.per_gpu_budget(P, 2 * _B, 2 * _B, 8 * _B, t=t, dp=dp, zero=zero,
                                 offload_optimizer=offload, activations=act, buffers=buf)


def _dp_min(P, activations, buffers, hbm, t):
    """Least data-parallel degree with ZeRO-1 that fits in HBM without offload (search)."""
    for dp in range(1, 4097):
        if _budget(P, t=t, dp=dp, zero=1, act=activations, buf=buffers)["hbm"] <= hbm:
            return dp
    return 4097


register(Exercise(
    id="2b.4", chapter="v2_ch2", title="A 70B memory budget on one DGX H100",
    source="Our variant of the memory budget exercise (Vol. 2 Ch. 2 lines 2148-2180)",
    inputs={"P": 70e9, "t": 8, "activations": Q_(10, "GB"), "buffers": Q_(5, "GB"), "hbm": Q_(80, "GB")},
    answers={
        "weights_gpu": Answer(lambda P, t: _budget(P, t=t)["weights"], unit="GB",
                              hint="P x 2 bytes / t.", label="FP16 weights per GPU"),
        "hbm_no_offload": Answer(lambda P, t, activations, buffers: _budget(P, t=t, act=activations, buf=buffers)["hbm"],
                                 unit="GB", hint="weights + gradients + Adam (8 B/param) / t + activations + buffers.",
                                 label="HBM per GPU, nothing offloaded"),
        "hbm_offload": Answer(lambda P, t, activations, buffers: _budget(P, t=t, offload=True, act=activations, buf=buffers)["hbm"],
                              unit="GB", hint="as before without the optimizer state (it moves to DDR5).",
                              label="HBM per GPU, Adam offloaded to host"),
        "dp_min": Answer(_dp_min, unit="", rel=0, abs=0,
                         hint="with ZeRO-1 only the Adam share divides by dp: solve weights + grads + Adam/dp + rest <= HBM, round up.",
                         label="least ZeRO-1 data-parallel degree that fits without offload"),
    },
    ranges={"P": (7e9, 70e9), "activations": (0, 30, 1)},
))

# ---------------------------------------------------------------- 2b.5 activations
register(Exercise(
    id="2b.5", chapter="v2_ch2", title="Activations, checkpointing and the microbatch",
    source="Vol. 2 Ch. 2 memory budget, steps 3 and the fix (lines 2166-2180); Korthikanti et al. 2022",
    inputs={"s": 2048, "b": 4, "h": 12288, "a": 96, "L": 96, "t": 8},
    answers={
        "act_none_sp": Answer(lambda s, b, h, a, L, t: memory.activation_memory(s, b, h, a, L, t, True, "none"), unit="GB",
                              hint="s b h (34 + 5 a s / h) / t per layer, times L.",
                              label="no checkpointing, TP + sequence parallel"),
        "act_full": Answer(lambda s, b, h, a, L, t: memory.activation_memory(s, b, h, a, L, t, False, "full"), unit="GB",
                           hint="keep only each layer's input: 2 s b h bytes per layer.", label="full checkpointing, TP only"),
        "act_full_b1": Answer(lambda s, h, a, L, t: memory.activation_memory(s, 1, h, a, L, t, False, "full"), unit="GB",
                              hint="activations scale with the microbatch b.", label="full checkpointing at microbatch 1"),
    },
    ranges={"b": (1, 16, 1), "s": (512, 8192, 512)},
))

# ---------------------------------------------------------------- 2b.6 rack and facility
def _rack(gpu_power, other_per_node, nodes_per_rack, gpus_per_node):
    return facility.rack_power(nodes_per_rack * gpus_per_node, gpu_power, nodes_per_rack * other_per_node)


register(Exercise(
    id="2b.6", chapter="v2_ch2", title="From GPUs to megawatts",
    source="Vol. 2 Ch. 2 §Rack (lines 2224-2232), Eq. 2.2; our PUE",
    inputs={"gpus": 1024, "gpus_per_node": 8, "nodes_per_rack": 4, "gpu_power": Q_(700, "W"),
            "other_per_node": Q_(2.775, "kW"), "pue": 1.1, "days": Q_(30, "day")},
    answers={
        "rack_power": Answer(_rack, unit="kW", hint="GPUs x GPU power + non-GPU power of the nodes.", label="rack power"),
        "racks": Answer(lambda gpus, gpus_per_node, nodes_per_rack: facility.racks_needed(gpus, gpus_per_node, nodes_per_rack),
                        unit="", rel=0, abs=0, hint="ceil(GPUs / GPUs per rack).", label="racks"),
        "facility_power": Answer(lambda gpus, gpus_per_node, nodes_per_rack, gpu_power, other_per_node, pue:
                                 facility.facility_power(facility.cluster_it_power(
                                     facility.racks_needed(gpus, gpus_per_node, nodes_per_rack).magnitude,
                                     _rack(gpu_power, other_per_node, nodes_per_rack, gpus_per_node)), pue),
                                 unit="MW", hint="IT power = racks x rack power; facility = PUE x IT (Eq. 2.2).",
                                 label="facility power"),
        "energy": Answer(lambda gpus, gpus_per_node, nodes_per_rack, gpu_power, other_per_node, pue, days:
                         facility.energy(facility.facility_power(facility.cluster_it_power(
                             facility.racks_needed(gpus, gpus_per_node, nodes_per_rack).magnitude,
                             _rack(gpu_power, other_per_node, nodes_per_rack, gpus_per_node)), pue), days),
                         unit="MWh", hint="energy = facility power x time.", label="energy over the period"),
    },
    ranges={"gpus": (64, 16384, 64), "pue": (1.05, 2.0), "gpu_power": (300, 1200, 25)},
))

# ---------------------------------------------------------------- 2b.7 pod time at the right peak
_FACTORS = (0.05, 0.03, 0.10, 0.05)

register(Exercise(
    id="2b.7", chapter="v2_ch2", title="The pod training time at the FP16 dense peak",
    source="Vol. 2 Ch. 2 §Pod training time (lines 2294-2310), corrected peak",
    inputs={"P": 175e9, "D": 300e9, "gpus": 8192, "R_peak": Q_(989, "TFLOP/s"), "mfu": 0.45, "efficiency": 0.85},
    answers={
        "t_ideal": Answer(lambda P, D, gpus, R_peak, mfu: facility.ideal_training_time(scaling.training_flops(P, D), gpus, R_peak, mfu),
                          unit="hour", hint="C = 6 P D; time = C / (GPUs x peak x MFU).", label="ideal time"),
        "t_total": Answer(lambda P, D, gpus, R_peak, mfu, efficiency: facility.overhead_chain(
                              facility.ideal_training_time(scaling.training_flops(P, D), gpus, R_peak, mfu), efficiency, _FACTORS)[-1],
                          unit="hour", hint="divide by 0.85, then x 1.05 x 1.03 x 1.10 x 1.05.", label="after the book's chain"),
    },
    ranges={"gpus": (1024, 32768, 1024), "mfu": (0.2, 0.6)},
))

# ---------------------------------------------------------------- 2b.8 fallacies by numbers
register(Exercise(
    id="2b.8", chapter="v2_ch2", title="Fallacies by numbers",
    source="Vol. 2 Ch. 2 fallacies (lines 2428, 2432)",
    inputs={"v100_hours": Q_(10000, "hour"), "h100_fp16": Q_(989, "TFLOP/s"), "v100_fp16": Q_(125, "TFLOP/s"),
            "t_compute": Q_(20, "s"), "t_comm": Q_(2, "s"), "speedup": 2.0},
    answers={
        "h100_hours": Answer(lambda v100_hours, h100_fp16, v100_fp16: facility.equivalent_hours(v100_hours, (h100_fp16 / v100_fp16).to("")),
                             unit="hour", hint="compare peaks at the same precision, then hours / ratio.",
                             label="H100-hours for the same FP16 work"),
        "gain": Answer(lambda t_compute, t_comm, speedup:
                       (t_compute + t_comm) / node.step_time_after_network_upgrade(t_compute, t_comm, speedup) - 1,
                       unit="", hint="throughput gain = old step / new step - 1, with only the communication sped up.",
                       label="throughput gain from the faster network (0-1)"),
    },
    ranges={"t_comm": (0.5, 20, 0.5), "speedup": (1.5, 8)},
))
