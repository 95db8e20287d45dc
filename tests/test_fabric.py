"""Tests for fleetcalc.physics.fabric (Vol. 2 Ch. 3 §3.1-3.2, §3.5-3.6). Expected values name their
source: the seed text's line, or a hand calculation written out in the comment."""
import itertools
import math

import numpy as np
import pytest

from fleetcalc.physics import fabric, facility, links
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch


def test_bisection():
    # line 2748/2800: 512 x 50 GB/s = 25.6 TB/s; 4:1 -> 6.4 TB/s
    assert fabric.bisection_bandwidth(1024, Q_(400, "Gb/s")).to("TB/s").magnitude == pytest.approx(25.6)
    assert fabric.bisection_bandwidth(1024, Q_(50, "GB/s"), 4).to("TB/s").magnitude == pytest.approx(6.4)
    # line 2801-2803: 51,200 GB / 25,600 GB/s = 2 s; / 6,400 GB/s = 8 s
    data = fabric.bisection_crossing_bytes(1024, Q_(100, "GB"))
    assert data.to("GB").magnitude == pytest.approx(51200)
    assert links.transfer_time(data, Q_(25600, "GB/s")).to("s").magnitude == pytest.approx(2)
    assert links.transfer_time(data, Q_(6400, "GB/s")).to("s").magnitude == pytest.approx(8)
    # line 2770: 32 down / 32 up ports = 1:1
    assert fabric.oversubscription(32, 32).magnitude == 1
    assert fabric.oversubscription(Q_(1600, "Gb/s"), Q_(400, "Gb/s")).magnitude == pytest.approx(4)


def test_slowdown_costs():
    # line 2760: 30 % comm doubled -> step 1.3 -> loss 1 - 1/1.3 = 23.08 %
    assert fabric.throughput_loss(0.3, 2).magnitude == pytest.approx(0.230769, abs=1e-6)
    # line 2805: $300M x 0.3 x 3 / (0.7 + 1.2) = $142.105M
    assert fabric.stall_cost(Q_(300e6, "cu"), 0.3, 4).magnitude == pytest.approx(142.105e6, rel=1e-5)
    assert fabric.comm_stretch(0.3, 4).magnitude == pytest.approx(1.9)
    # Fig. 3.3 (English original's inputs): 200 ms compute, AR 1 ms / 30 ms -> 99.50 % / 86.96 %
    assert fabric.utilization(Q_(200, "ms"), Q_(1, "ms")).magnitude == pytest.approx(0.995025, abs=1e-6)
    assert fabric.utilization(Q_(200, "ms"), Q_(30, "ms")).magnitude == pytest.approx(0.869565, abs=1e-6)
    # line 2573: 100 ms x 1,024 GPUs = 102.4 GPU-s
    assert fabric.barrier_waste(1024, Q_(100, "ms")).to("s").magnitude == pytest.approx(102.4)
    # line 2879: 1,023 x 10 % = 102.3 GPU-steps
    assert fabric.straggler_gpu_steps(1024, 0.10).magnitude == pytest.approx(102.3)
    # hand: 1,024 GPUs x 1 h x $3 = $3,072
    assert fabric.idle_gpu_cost(1024, Q_(1, "hour"), Q_(3, "cu/hour")).magnitude == pytest.approx(3072)


def test_fat_tree_sizes():
    # line 2782: k = 64 -> 2,048 (two tiers) and 65,536 (three tiers); line 2792: (k/2)^2 = 1,024
    assert fabric.fat_tree_hosts(64, 2).magnitude == 2048
    assert fabric.fat_tree_hosts(64, 3).magnitude == 65536
    assert fabric.fat_tree_pod_hosts(64).magnitude == 1024
    # line 2811: 5 k^2 / 4 = 5,120 switches; two tiers: 64 leaves + 32 spines = 96
    assert fabric.fat_tree_switches(64, 3).magnitude == 5120
    assert fabric.fat_tree_switches(64, 2).magnitude == 96
    # k = 4 three-tier fat-tree (Al-Fares 2008): 16 hosts, 20 switches, 48 cables
    assert fabric.fat_tree_hosts(4, 3).magnitude == 16
    assert fabric.fat_tree_switches(4, 3).magnitude == 20
    assert fabric.fat_tree_links(4, 3).magnitude == 48
    assert fabric.fat_tree_tiers_needed(2048, 64).magnitude == 2
    assert fabric.fat_tree_tiers_needed(2049, 64).magnitude == 3
    assert fabric.fat_tree_tiers_needed(4096, 64).magnitude == 3
    ks = np.array([16, 32, 64])
    assert fabric.fat_tree_hosts(ks, 3).magnitude.tolist() == [1024, 8192, 65536]
    with pytest.raises(InputError, match="even"):
        fabric.fat_tree_hosts(63, 2)


def test_hops_racks_rails():
    # line 2821-2827: 3 x 0.6 us = 1.8 us vs 1 x 0.6 us
    assert fabric.switch_traversals(2).magnitude == 3
    assert fabric.switch_traversals(3).magnitude == 5
    assert fabric.path_latency(3, Q_(0.6, "us")).to("us").magnitude == pytest.approx(1.8)
    # line 2770: 1,024 GPUs / 32 per rack = 32 racks
    assert facility.racks_needed(1024, 32).magnitude == 32
    assert facility.racks_needed(1025, 32).magnitude == 33
    # line 2839: 8 rails of 128 GPUs
    rails, per = fabric.rail_groups(1024, 8)
    assert (rails.magnitude, per.magnitude) == (8, 128)
    with pytest.raises(InputError, match="whole number of nodes"):
        fabric.rail_groups(1020, 8)


def test_dragonfly_torus():
    # Kim et al. 2008 balanced dragonfly p = h = 4, a = 8: 8*4*(8*4+1) = 1,056 hosts
    assert fabric.dragonfly_hosts(4, 8, 4).magnitude == 1056
    # line 2845: 25-50 % global bandwidth -> 4x-2x slowdown
    assert fabric.slowdown_from_fraction(0.25).magnitude == pytest.approx(4)
    assert fabric.slowdown_from_fraction(0.5).magnitude == pytest.approx(2)
    # 16^3 torus: 4,096 nodes, diameter 24, bisection 2 * 16^2 = 512 links, 6 neighbours
    assert fabric.torus_nodes((16, 16, 16)).magnitude == 4096
    assert fabric.torus_diameter((16, 16, 16)).magnitude == 24
    assert fabric.torus_bisection_links((16, 16, 16)).magnitude == 512
    assert fabric.torus_bisection_links((8, 8, 16)).magnitude == 128
    assert fabric.torus_neighbors(3).magnitude == 6
    with pytest.raises(InputError, match="even"):
        fabric.torus_bisection_links((5, 5, 5))


def test_incast():
    # Fig. 3.11: 256 x 50 GB/s = 12.8 TB/s onto 400 Gb/s -> 256x
    assert fabric.incast_overload(256, Q_(50, "GB/s"), Q_(400, "Gb/s")).magnitude == pytest.approx(256)
    # hand: 32 MB / (12.8e12 - 50e9) B/s = 2.5098 us
    t = fabric.buffer_fill_time(Q_(32, "MB"), 256, Q_(50, "GB/s"), Q_(400, "Gb/s"))
    assert t.to("us").magnitude == pytest.approx(32e6 / (12.8e12 - 50e9) * 1e6)
    with pytest.raises(InputError, match="never fills"):
        fabric.buffer_fill_time(Q_(32, "MB"), 1, Q_(50, "GB/s"), Q_(400, "Gb/s"))


def test_pfc_storm():
    # lines 2935-2943: 4,096 x 3 x 2 = 24,576; 1 - (1 - 1e-5)^24576 = 0.2179
    n = fabric.transceivers(4096, 3, 2)
    assert n.magnitude == 24576
    p = fabric.pfc_storm_probability(1e-5, 24576)
    assert p.magnitude == pytest.approx(1 - (1 - 1e-5) ** 24576, rel=1e-12)
    assert p.magnitude == pytest.approx(0.2179, abs=1e-4)
    # a week: 1 - (1 - p_day)^7
    wk = fabric.pfc_storm_probability(1e-5, 24576, Q_(7, "day"))
    assert wk.magnitude == pytest.approx(1 - (1 - 1e-5) ** (7 * 24576), rel=1e-9)
    assert fabric.expected_storms(1e-5, 24576).magnitude == pytest.approx(-24576 * math.log1p(-1e-5))
    ns = np.array([1024, 24576])
    assert fabric.pfc_storm_probability(1e-5, ns).magnitude.shape == (2,)
    with pytest.raises(InputError, match="p_daily"):
        fabric.pfc_storm_probability(0, 10)


def _brute_cdf(flows, paths):
    cnt = np.zeros(flows + 1)
    for a in itertools.product(range(paths), repeat=flows):
        cnt[np.bincount(a, minlength=paths).max()] += 1
    return np.cumsum(cnt) / paths ** flows


@pytest.mark.parametrize("flows,paths", [(8, 4), (5, 3), (6, 2), (3, 5)])
def test_ecmp_exact(flows, paths):
    # brute-force enumeration of every hash assignment
    assert fabric.ecmp_max_load_cdf(flows, paths).magnitude == pytest.approx(_brute_cdf(flows, paths), abs=1e-12)


def test_ecmp_book_case():
    # line 2957: 8 flows on 4 paths. Perfect balance 8!/(2!^4)/4^8 = 2520/65536 = 3.85 %
    cdf = fabric.ecmp_max_load_cdf(8, 4).magnitude
    assert cdf[2] == pytest.approx(2520 / 65536)
    assert fabric.ecmp_collision_probability(8, 4, 4).magnitude == pytest.approx(1 - cdf[3])
    assert fabric.ecmp_collision_probability(8, 4, 0).magnitude == 1
    assert fabric.ecmp_expected_slowdown(8, 4).magnitude == pytest.approx(
        fabric.ecmp_expected_max_load(8, 4).magnitude / 2)
    with pytest.raises(InputError, match="flows"):
        fabric.ecmp_max_load_cdf(5000, 4)


def test_validation():
    with pytest.raises(UnitMismatch):
        fabric.bisection_bandwidth(1024, 50)
    with pytest.raises(InputError, match="oversubscription"):
        fabric.bisection_bandwidth(1024, Q_(50, "GB/s"), 0.5)
    with pytest.raises(InputError, match="comm_fraction"):
        fabric.comm_stretch(1.5, 2)


def test_inverses():
    # line 2782 inverted: 2,048 hosts in two tiers need k = 64; 2,049 need 66; 8,192 need 128
    assert fabric.fat_tree_min_radix(2048, 2).magnitude == 64
    assert fabric.fat_tree_min_radix(2049, 2).magnitude == 66
    assert fabric.fat_tree_min_radix(8192, 2).magnitude == 128
    assert fabric.fat_tree_min_radix(65536, 3).magnitude == 64
    # P_target = 1 %, n = 24,576: p = 1 - 0.99^(1/24576) = 4.0895e-7, and it round-trips
    p = fabric.max_device_probability(0.01, 24576).magnitude
    assert p == pytest.approx(1 - 0.99 ** (1 / 24576), rel=1e-9)
    assert fabric.pfc_storm_probability(p, 24576).magnitude == pytest.approx(0.01, rel=1e-9)


def test_fat_tree_bisection_links_by_hand():
    # a non-blocking tree of 1,024 hosts carries 512 host links across its cut; 4:1 -> 128 (Vol. 2 §3.5, line 2748)
    from fleetcalc.physics.fabric import fat_tree_bisection_links
    assert fat_tree_bisection_links(1024).magnitude == 512
    assert fat_tree_bisection_links(1024, 4).magnitude == 128
