"""Fig. 28.4 (lib/fleetcalc/ui/diagrams/collectives.py): the ring's chunk bookkeeping.

Independent expectations from the algorithm Eq. 28.11 counts (Ch. 28 §28.5, lines 184-186):
2(p-1) steps; after the p-1 reduce-scatter steps each process holds one chunk summed over all p
processes, and no two processes hold the same one; after all 2(p-1) steps every process holds
every chunk fully reduced. Bytes per step m/p = 32 MiB for the book's p = 8, m = 256 MiB (line 194).
"""
import numpy as np
import pytest

from fleetcalc.ui.diagrams.collectives import (draw_tree, ring_allreduce_state, ring_phases, ring_steps,
                                            ring_vs_tree_plot)
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


@pytest.mark.parametrize("p", [2, 3, 4, 8])
def test_reduce_scatter_then_all_gather(p):
    assert ring_steps(p) == 2 * (p - 1)
    start = ring_allreduce_state(p, 0)
    assert (start.count == 1).all() and start.sends == ()
    mid = ring_allreduce_state(p, p - 1)
    full = [tuple(np.flatnonzero(row == p)) for row in mid.count]
    assert all(len(f) == 1 for f in full)                      # one fully reduced chunk each
    assert sorted(f[0] for f in full) == list(range(p))        # and they are all different
    assert (ring_allreduce_state(p, 2 * (p - 1)).count == p).all()


def test_each_step_sends_one_chunk_per_process_to_its_neighbour():
    st = ring_allreduce_state(8, 3)
    assert len(st.sends) == 8
    assert all(dst == (src + 1) % 8 for src, dst, _ in st.sends)
    assert st.phase == "reduce-scatter"
    assert ring_allreduce_state(8, 8).phase == "all-gather"


def test_step_out_of_range_is_refused():
    with pytest.raises(InputError, match=r"0\.\.14 for p = 8"):
        ring_allreduce_state(8, 15)
    with pytest.raises(InputError, match="power of two"):
        from matplotlib.figure import Figure
        draw_tree(Figure().add_subplot(), 6)


def test_panel_plot_labels_the_books_example():
    from matplotlib.figure import Figure
    fig = Figure()
    axes = fig.subplots(1, 2)
    res = {"p": 8, "step": 7, "m": Q_(256, "MiB"), "alpha": Q_(5, "us"), "beta_net": Q_(25, "GiB/s")}
    ring_vs_tree_plot(axes, {}, res)
    title = axes[0].get_title()
    assert "14 steps of 32 MiB" in title                       # line 194
    assert "17.6 ms" in title                                   # Eq. 28.14: 0.01757 s
    assert len(ring_phases(4).axes) == 8


def test_legible_fonts():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(9, 3.8))
    axes = fig.subplots(1, 2)
    ring_vs_tree_plot(axes, {}, {"p": 8, "step": 3, "m": Q_(256, "MiB"), "alpha": Q_(5, "us"),
                                 "beta_net": Q_(25, "GiB/s")})
    sizes = [t.get_fontsize() for ax in list(axes) + list(ring_phases(4).axes) for t in ax.texts]
    assert min(sizes) >= 8
