"""Fig. 28.3 (lib/fleetcalc/ui/diagrams/node.py): the routes and the catalog's labels.

Independent expectations: Exercise 28.4's reference answer (Ch. 28 line 460: the pages on NUMA 1
reach a GPU on NUMA 0 through the socket interconnect), Vol. 2 line 2012 (4 GPUs per CPU root
complex; crossing the socket link costs up to 50 % of the bandwidth: 64 GB/s -> 32 GB/s).
"""
import pytest

from fleetcalc.ui.diagrams.node import crosses_socket, layout, numa_node, route, socket_of


def test_exercise_28_4_path_crosses_the_socket_link():
    lay = layout()
    r = route(lay, "dram1", "gpu0")
    assert r[0] == "dram1" and r[-1] == "gpu0"
    assert r.index("cpu1") < r.index("socket link") < r.index("cpu0")
    assert crosses_socket(lay, "dram1", "gpu0")


def test_local_paths_do_not_cross():
    lay = layout()
    assert route(lay, "gpu0", "nic0") == ["gpu0", "sw0", "nic0"]      # same switch: one hop up, one down
    assert not crosses_socket(lay, "dram0", "gpu3")
    assert crosses_socket(lay, "gpu1", "nic5")


def test_four_gpus_per_socket_as_the_text_says():
    lay = layout()
    assert [socket_of(lay, f"gpu{g}") for g in range(8)] == [0] * 4 + [1] * 4


def test_labels_carry_catalog_and_calculator_values():
    texts = [t.get_text() for ax in numa_node().axes for t in ax.texts]
    joined = "\n".join(texts)
    assert "as little as 32 GB/s" in joined          # 64 GB/s x (1 - 0.5), line 2012
    assert "64 GB/s per direction" in joined
    assert "900 GB/s per GPU" in joined               # line 1931
    assert "50 GB/s one way" in joined
    assert sum(t.startswith("GPU\n") for t in texts) == 8


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="gpus must be a multiple of 4"):
        layout(gpus=6, nics=6)
    with pytest.raises(KeyError, match="no component 'gpu9'"):
        route(layout(), "gpu9", "nic0")


def test_legible_fonts():
    assert min(t.get_fontsize() for ax in numa_node().axes for t in ax.texts) >= 8
