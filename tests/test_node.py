"""Tests for fleetcalc.physics.node (Vol. 2 Ch. 2 §§ Node ... Data loading, seed 001 lines 1919-2220)."""
import numpy as np
import pytest

from fleetcalc.physics import links
from fleetcalc.physics import node as N
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def test_bandwidth_staircase_10GB():
    # line 1978-1980: 10 GB / 3,350 GB/s = 3.0 ms; / 450 GB/s = 22.2 ms; / 50 GB/s = 200 ms
    t = N.staircase_times(Q_(10, "GB"), [hw("bw_hierarchy.package_fig212"),
                                          links.one_way(hw("nvlink4.gpu_bandwidth")),
                                          hw("infiniband_ndr.per_gpu")]).to("ms").magnitude
    assert np.round(t, 1).tolist() == [3.0, 22.2, 200.0]
    # line 2188-2190: 1 GB -> 2.2 ms and 20 ms
    assert round(links.transfer_time(Q_(1, "GB"), Q_(450, "GB/s")).to("ms").magnitude, 1) == 2.2
    assert links.transfer_time(Q_(1, "GB"), Q_(50, "GB/s")).to("ms").magnitude == pytest.approx(20)


def test_pcie_gen5():
    # line 2008: 32 GT/s x 16 lanes / 8 = 64 GB/s per direction (raw)
    assert N.pcie_link_bandwidth(Q_(32, "Gbit/s"), 16).to("GB/s").magnitude == pytest.approx(64)
    # hand: 128b/130b -> 63.015 GB/s; minus 20 % protocol (line 1988) -> 51.2 GB/s raw-based
    assert N.pcie_generation_bandwidth(5, Q_(32, "Gbit/s")).to("GB/s").magnitude == pytest.approx(64 * 128 / 130)
    assert N.pcie_link_bandwidth(Q_(32, "Gbit/s"), 16, protocol_overhead=0.2).magnitude == pytest.approx(51.2)
    # Gen6 FLIT: 64 GT/s x 16 x 242/256 / 8 = 121 GB/s (hand)
    assert N.pcie_generation_bandwidth(6, Q_(64, "Gbit/s")).to("GB/s").magnitude == pytest.approx(121)
    with pytest.raises(InputError, match="gen"):
        N.pcie_encoding(7)


def test_pcie_lanes_and_aggregate():
    # line 2010: 2 x 128 lanes, 8 GPUs + 8 HCAs at x16 -> 0 left; 16 links x 128 GB/s = 2.048 TB/s
    assert N.pcie_lanes_left(256, 16, 16).magnitude == 0
    assert N.aggregate_bandwidth(16, Q_(128, "GB/s")).to("TB/s").magnitude == pytest.approx(2.048)
    # Figure 2.11: 900 GB/s over 18 links = 50 GB/s; 18 x 112 = 2016 GB/s
    assert N.per_link_bandwidth(Q_(900, "GB/s"), 18).magnitude == pytest.approx(50)
    assert N.aggregate_bandwidth(18, Q_(112, "GB/s")).magnitude == pytest.approx(2016)


def test_topology_counts():
    # line 2020-2022: ring N links, mesh N(N-1)/2 = 28, opposite side 4 hops
    assert N.ring_links(8).magnitude == 8
    assert N.full_mesh_links(8).magnitude == 28
    assert N.ring_max_hops(8).magnitude == 4
    assert N.full_mesh_links(np.array([2, 4, 16])).magnitude.tolist() == [1, 6, 120]


def test_tp_allreduce_story():
    # line 2036: 4 x 2048 x 12288 x 2 B = 201 MB; / 900 GB/s = 0.2 ms; x 192 = 42.9 ms
    m = N.hidden_tensor_bytes(4, 2048, 12288, Q_(2, "byte"))
    assert round(m.to("MB").magnitude) == 201
    t_nv = links.transfer_time(m, Q_(900, "GB/s"))
    assert round(N.per_step_comm_time(t_nv, 96).to("ms").magnitude, 1) == 42.9
    # line 2046: PCIe 64 GB/s -> 3.1 ms, 604 ms, 75.1 % stall; NVLink -> 82.3 % busy
    t_pc = links.transfer_time(m, Q_(64, "GB/s"))
    assert round(t_pc.to("ms").magnitude, 1) == 3.1
    step = N.per_step_comm_time(t_pc, 96)
    assert round(step.to("ms").magnitude) == 604
    assert round(100 * N.stall_fraction(step, Q_(200, "ms")).magnitude, 1) == 75.1
    busy = 1 - N.stall_fraction(N.per_step_comm_time(t_nv, 96), Q_(200, "ms")).magnitude
    assert round(100 * busy, 1) == 82.3


def test_tier_array():
    # hand: [3.35 TB/s, 450 GB/s] -> [3350, 450] GB/s
    arr = N.tier_array([Q_(3.35, "TB/s"), Q_(450, "GB/s")])
    assert arr.to("GB/s").magnitude.tolist() == pytest.approx([3350, 450])
    t = N.staircase_times(Q_(10, "GB"), arr)
    assert t.to("ms").magnitude.tolist() == pytest.approx([10 / 3.35, 10 / 0.45])


def test_catalog_node_facility_entries():
    # vol2_ch2_node_facility.toml: both NVLink per-link figures kept, each with a direction and source line
    from fleetcalc.core.catalog import entry
    e112, e50 = entry("nvlink4.link_bandwidth_fig211"), entry("nvlink4.link_bandwidth_ring_fig211")
    assert e112.value == 112 and e50.value == 50 and "1923" in e112.source and e112.direction == "both-ways"
    assert entry("nvlink4.gpu_bandwidth").direction == "both-ways"
    assert entry("infiniband_ndr.per_gpu").direction == "one-way"
    assert entry("pcie.gen5_x16").direction == "one-way"
    # Table 2.9 and Figure 2.12 give two HBM figures (line 1960 vs 1970)
    assert hw("bw_hierarchy.package_table29").to("TB/s").magnitude == pytest.approx(3.3)
    assert hw("bw_hierarchy.package_fig212").to("TB/s").magnitude == pytest.approx(3.35)
    # 400 Gb/s ToR port = 50 GB/s per GPU (line 2258 vs line 1931)
    assert hw("infiniband_ndr.port_rate").to("GB/s").magnitude == pytest.approx(hw("infiniband_ndr.per_gpu").magnitude)
