"""Vol. 2 Ch. 3 (network fabrics) exercises V2.3.1-V2.3.10. The chapter's checkpoint questions
are lost in the source (lines 2809, 2841, 2861-2865), so these are our own, built from its
definitions, misconception boxes and worked examples. Answers are computed by the lib."""
from ..collectives import alpha_beta_time, latency_bandwidth_threshold, ring_allreduce_terms, ring_allreduce_time
from ..exercises import Answer, Exercise, register
from .. import fabric, links
from ..units import Q_

CH = "v2_ch3"

register(Exercise(
    id="V2.3.1", chapter=CH, title="The bandwidth cliff, like with like",
    source="Vol. 2 Ch. 3 §3.1 (line 2535) and Fig. 3.2 (lines 2539-2541)",
    inputs={"nvlink_both_ways": Q_(900, "GB/s"), "ib_port": Q_(400, "Gb/s")},
    answers={
        "nvlink_one_way": Answer(lambda nvlink_both_ways: links.one_way(nvlink_both_ways), unit="GB/s",
                                 hint="NVLink's figure sums both directions; one direction is half of it.",
                                 label="NVLink per direction"),
        "cliff": Answer(lambda nvlink_both_ways, ib_port: links.bandwidth_ratio(links.one_way(nvlink_both_ways), ib_port),
                        unit="", hint="divide one-way by one-way; convert Gb/s to GB/s (8 bits per byte).",
                        label="cliff, one-way vs one-way"),
        "mixed": Answer(lambda nvlink_both_ways, ib_port: links.bandwidth_ratio(nvlink_both_ways, ib_port),
                        unit="", hint="the figure's annotation divides the both-ways figure by one port.",
                        label="both-ways NVLink / one port"),
    },
    ranges={"nvlink_both_ways": (300, 1800, 100), "ib_port": (100, 800, 100)},
))

register(Exercise(
    id="V2.3.2", chapter=CH, title="Symbol rates of an 800 Gb/s port",
    source="Vol. 2 Ch. 3 §3.3 (lines 2601-2609, 2631)",
    inputs={"rate": Q_(800, "Gb/s"), "lanes": 8, "fec_n": 544, "fec_k": 514},
    answers={
        "baud_pam4": Answer(lambda rate, lanes: links.symbol_rate_needed(rate, 4, lanes), unit="GHz",
                            hint="rate / (lanes x log2(levels)); PAM4 carries 2 bits per symbol.",
                            label="PAM4 symbol rate per lane (GBd)"),
        "baud_nrz": Answer(lambda rate, lanes: links.symbol_rate_needed(rate, 2, lanes), unit="GHz",
                           hint="NRZ carries 1 bit per symbol.", label="NRZ symbol rate per lane (GBd)"),
        "overhead": Answer(lambda fec_n, fec_k: links.fec_overhead(fec_n, fec_k), unit="",
                           hint="RS(n, k) sends n symbols for every k of data: n/k - 1 extra.",
                           label="RS(544,514) overhead (fraction)"),
    },
    ranges={"lanes": (1, 16, 1)},
))

register(Exercise(
    id="V2.3.3", chapter=CH, title="How far copper reaches at 50G and 100G lanes",
    source="Vol. 2 Ch. 3 §3.3 link budget (line 2631)",
    inputs={"budget_db": 30.0, "connector_db": 2.0, "margin_db": 3.0, "loss_50g": 6.0, "loss_100g": 15.0},
    answers={
        "reach_50g": Answer(lambda budget_db, connector_db, margin_db, loss_50g:
                            links.max_reach(budget_db, loss_50g, connector_db, margin_db), unit="m",
                            hint="(budget - connectors - margin) / loss per metre.", label="reach at 50G lanes"),
        "reach_100g": Answer(lambda budget_db, connector_db, margin_db, loss_100g:
                             links.max_reach(budget_db, loss_100g, connector_db, margin_db), unit="m",
                             hint="same budget, higher loss per metre.", label="reach at 100G lanes"),
    },
    ranges={"loss_50g": (3.0, 10.0, 0.5), "loss_100g": (10.0, 25.0, 0.5)},
))

register(Exercise(
    id="V2.3.4", chapter=CH, title="The α–β model for a faster link",
    source="Vol. 2 Ch. 3 §3.4 (lines 2680-2703), Ch. 28 Eq. 28.10",
    inputs={"alpha": Q_(1.2, "us"), "beta_net": Q_(100, "GB/s"), "small": Q_(4, "kB"), "big": Q_(350, "MB")},
    answers={
        "n_star": Answer(lambda alpha, beta_net: latency_bandwidth_threshold(alpha, beta_net), unit="kB",
                         hint="n* = α β.", label="crossover n*"),
        "T_small": Answer(lambda alpha, beta_net, small: alpha_beta_time(small, alpha, beta_net), unit="us",
                          hint="T(n) = α + n/β with n = 4 kB.", label="T(4 kB)"),
        "T_big": Answer(lambda alpha, beta_net, big: alpha_beta_time(big, alpha, beta_net), unit="ms",
                        hint="T(n) = α + n/β with n = 350 MB.", label="T(350 MB)"),
    },
    ranges={"alpha": (0.5, 5.0, 0.1), "beta_net": (25, 200, 25)},
))

register(Exercise(
    id="V2.3.5", chapter=CH, title="The 2,048-GPU cluster: gradients and control messages",
    source="Vol. 2 Ch. 3 §3.4 (line 2676, scenario cut off in the source), Eq. 28.12",
    inputs={"p": 2048, "bucket": Q_(2, "GB"), "control": Q_(8, "kB"), "alpha": Q_(1.5, "us"),
            "beta_net": Q_(50, "GB/s")},
    answers={
        "t_ring": Answer(lambda p, bucket, alpha, beta_net: ring_allreduce_time(p, bucket, alpha, beta_net),
                         unit="ms", hint="Eq. 28.12: 2(p-1)/p · M/β + 2(p-1)α.", label="ring AllReduce of the bucket"),
        "latency_share": Answer(lambda p, bucket, alpha, beta_net:
                                ring_allreduce_terms(p, bucket, alpha, beta_net)["latency"]
                                / ring_allreduce_time(p, bucket, alpha, beta_net), unit="",
                                hint="the 2(p-1)α term over the total.", label="start-up share of the ring"),
        "t_control": Answer(lambda control, alpha, beta_net: alpha_beta_time(control, alpha, beta_net), unit="us",
                            hint="one α-β message.", label="control message T(8 kB)"),
    },
    ranges={"p": (64, 8192, 64), "bucket": (0.1, 10.0)},
))

register(Exercise(
    id="V2.3.6", chapter=CH, title="A fat-tree for 8,192 GPUs",
    source="Vol. 2 Ch. 3 §3.5 (lines 2782, 2792, 2811)",
    inputs={"hosts": 8192, "k": 64},
    answers={
        "tiers": Answer(lambda hosts, k: fabric.fat_tree_tiers_needed(hosts, k), unit="", rel=0,
                        hint="smallest t with 2(k/2)^t >= hosts.", label="tiers at k = 64"),
        "k_two_tier": Answer(lambda hosts: fabric.fat_tree_min_radix(hosts, 2), unit="", rel=0,
                             hint="solve k^2/2 >= hosts for an even k.", label="radix for two tiers"),
        "switches_two_tier": Answer(lambda hosts: fabric.fat_tree_switches(fabric.fat_tree_min_radix(hosts, 2), 2),
                                    unit="", rel=0, hint="3k/2 switches in a full two-tier tree.",
                                    label="switches of that two-tier tree"),
    },
    ranges={"hosts": (2048, 65536, 1024)},
))

register(Exercise(
    id="V2.3.7", chapter=CH, title="What a 2:1 spine costs",
    source="Vol. 2 Ch. 3 §3.5 (lines 2760, 2805)",
    inputs={"budget": Q_(100e6, "cu"), "comm_fraction": 0.20, "slowdown": 2.0},
    answers={
        "loss": Answer(lambda comm_fraction, slowdown: fabric.throughput_loss(comm_fraction, slowdown), unit="",
                       hint="step = (1-f) + f·s; loss = 1 - 1/step.", label="throughput lost"),
        "cost": Answer(lambda budget, comm_fraction, slowdown: fabric.stall_cost(budget, comm_fraction, slowdown),
                       unit="cu", hint="idle share of the slowed step, f(s-1)/((1-f)+fs), times the budget.",
                       label="idle spend"),
    },
    ranges={"comm_fraction": (0.05, 0.6, 0.05), "slowdown": (1.5, 8.0, 0.5)},
))

register(Exercise(
    id="V2.3.8", chapter=CH, title="The rail dividend once everything is in α",
    source="Vol. 2 Ch. 3 §3.5 rail example (lines 2821-2829), §3.3 FEC (line 2609)",
    inputs={"per_switch": Q_(0.6, "us"), "fec": Q_(150, "ns"), "endpoint": Q_(1.0, "us")},
    answers={
        "t_rail": Answer(lambda per_switch, fec, endpoint: endpoint + fabric.path_latency(1, per_switch)
                         + links.fec_path_latency(fec, 1), unit="us",
                         hint="endpoint + 1 switch + FEC on 1 hop.", label="α on a rail"),
        "t_fat": Answer(lambda per_switch, fec, endpoint: endpoint + fabric.path_latency(3, per_switch)
                        + links.fec_path_latency(fec, 3), unit="us",
                        hint="endpoint + 3 switches + FEC on 3 hops.", label="α leaf-spine-leaf"),
        "dividend": Answer(lambda per_switch, fec, endpoint:
                           (endpoint + fabric.path_latency(3, per_switch) + links.fec_path_latency(fec, 3))
                           / (endpoint + fabric.path_latency(1, per_switch) + links.fec_path_latency(fec, 1)),
                           unit="", hint="ratio of the two α's.", label="latency dividend"),
    },
    ranges={"endpoint": (0.0, 3.0, 0.1), "fec": (50, 300, 10)},
))

register(Exercise(
    id="V2.3.9", chapter=CH, title="PFC storms at 16,384 GPUs",
    source="Vol. 2 Ch. 3 §3.6 (lines 2925-2945)",
    inputs={"gpus": 16384, "link_tiers": 3, "per_link": 2, "p_daily": 1e-5, "target": 0.01},
    answers={
        "P_day": Answer(lambda gpus, link_tiers, per_link, p_daily: fabric.pfc_storm_probability(
            p_daily, int(fabric.transceivers(gpus, link_tiers, per_link).magnitude)), unit="",
            hint="n = GPUs x tiers x 2; P = 1 - (1 - p)^n.", label="P(storm in a day)"),
        "P_week": Answer(lambda gpus, link_tiers, per_link, p_daily: fabric.pfc_storm_probability(
            p_daily, int(fabric.transceivers(gpus, link_tiers, per_link).magnitude), Q_(7, "day")), unit="",
            hint="seven independent days: 1 - (1 - p)^(7n).", label="P(storm in a week)"),
        "p_needed": Answer(lambda gpus, link_tiers, per_link, target: fabric.max_device_probability(
            target, int(fabric.transceivers(gpus, link_tiers, per_link).magnitude)), unit="", rel=1e-3,
            hint="solve 1 - (1 - p)^n = target for p.", label="per-transceiver p for a 1 % daily risk"),
    },
    ranges={"gpus": (1024, 65536, 1024)},
))

register(Exercise(
    id="V2.3.10", chapter=CH, title="ECMP odds for 16 flows on 8 paths",
    source="Vol. 2 Ch. 3 §3.6 adaptive routing (line 2957)",
    inputs={"flows": 16, "paths": 8},
    answers={
        "P_balanced": Answer(lambda flows, paths: fabric.ecmp_max_load_cdf(flows, paths)[-(-flows // paths)],
                             unit="", hint="P(busiest path <= flows/paths).", label="P(perfect balance)"),
        "P_double": Answer(lambda flows, paths: fabric.ecmp_collision_probability(flows, paths, 2 * (-(-flows // paths))),
                           unit="", hint="P(some path carries at least twice the ideal).",
                           label="P(some path at twice the ideal or more)"),
        "slowdown": Answer(lambda flows, paths: fabric.ecmp_expected_slowdown(flows, paths), unit="",
                           hint="E[busiest load] / ideal load.", label="expected slowdown"),
    },
    ranges={"flows": (4, 24, 1), "paths": (2, 12, 1)},
))
