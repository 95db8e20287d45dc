"""Vol. 2 Ch. 2 figures, second set (lib/fleetcalc/ui/diagrams: accelerator, hbm, power, memory, inference, cluster): each draws and
carries the values named beside it (hand arithmetic from the book's and the vendors' inputs)."""
from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.physics.accelerator import largest_square_tile
from fleetcalc.physics.energy import flops_per_watt
from fleetcalc.ui.diagrams import accelerator as accelerator_figures, cluster as cluster_figures, hbm as hbm_figures, inference as inference_figures, memory as memory_figures, power as power_figures


@pytest.mark.parametrize("draw", [accelerator_figures.spectrum_by_precision, accelerator_figures.tile_derivation, hbm_figures.bus_widths, power_figures.power_stages,
                                  memory_figures.memory_tiers])
def test_each_figure_draws(draw):
    fig = draw()
    assert isinstance(fig, Figure) and fig.axes


def _texts(fig):
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts + [ax.title]) + " ".join(
        t.get_text() for t in fig.texts)


def test_fig_2_3_compares_fp16_dense_like_for_like():
    # V100 125 TFLOP/s / 300 W = 0.417; H100 989 / 700 = 1.41; B200 2,250 / 1,000 W = 2.25 (NVIDIA B200 datasheet)
    got = {n: flops_per_watt(hw(f"{d}.peak_fp16"), hw(f"{d}.tdp")).to("TFLOP/s/W").magnitude for n, d in accelerator_figures.LIKE_FOR_LIKE}
    assert got["V100"] == pytest.approx(125 / 300, rel=1e-3)
    assert got["H100"] == pytest.approx(989 / 700, rel=1e-3)
    assert got["B200"] == pytest.approx(2.25, rel=1e-3)
    assert all(prec in ("FP8", "INT8") for *_, prec in accelerator_figures.NARROW)   # no narrow format on the FP16 line
    text = _texts(accelerator_figures.spectrum_by_precision())
    assert "0.42" in text and "2.25" in text and "INT8: 1.23" in text   # TPU v1: 92 TOPS / 75 W


def test_fig_2_6_derives_the_tile_sizes():
    # 3 T^2 x 2 B <= 256 KiB: sqrt(262,144 / 6) = 209.0 -> 208; <= 50 MB: sqrt(5e7 / 6) = 2,886.8 -> 2,880
    assert largest_square_tile(hw("h100.smem_per_sm"), Q_(2, "byte"), 16) == 208
    assert largest_square_tile(hw("h100.l2_capacity"), Q_(2, "byte"), 16) == 2880
    text = _texts(accelerator_figures.tile_derivation())
    assert "209.0" in text and "2,886.8" in text and "T = 2,880" in text and "104 FLOP/byte" in text


def test_fig_2_7_marks_the_books_server_figure_and_its_likeliest_source():
    r = hbm_figures.ddr_server_readings()
    # 8 channels x 64 bit x 4.8 / 6.4 / 3.2 Gb/s / 8 bit per byte = 307.2 / 409.6 / 204.8 GB/s
    assert r["ddr5_low"].to("GB/s").magnitude == pytest.approx(307.2)
    assert r["ddr5_high"].to("GB/s").magnitude == pytest.approx(409.6)
    assert r["ddr4_3200"].to("GB/s").magnitude == pytest.approx(204.8)
    assert r["book"].to("GB/s").magnitude == pytest.approx(200)
    text = _texts(hbm_figures.bus_widths())
    assert "16 x 64 pins" in text and "erratum" in text and "204.8 GB/s" in text


def test_fig_2_10_has_no_caption_inside():
    text = _texts(power_figures.power_stages())
    # IT power: 700 W / 0.90 / 0.95 = 818.7 W (the assumed PSU and VRM efficiencies)
    assert "819 W" in text and "700 W" in text
    assert "PUE counts" not in text and "conversion chain alone" not in text


def test_memory_tiers_values():
    rows = dict(memory_figures.tier_rows())
    # the text's 500 GB/s shared file system over 128 nodes = 3.906 GB/s; 500,000 token/s x 2 B = 1 MB/s
    assert rows["shared FS / 128 nodes"].to("GB/s").magnitude == pytest.approx(500 / 128)
    assert rows["raw token ids, whole cluster"].to("MB/s").magnitude == pytest.approx(1.0)
    assert rows["HBM, one H100"].to("TB/s").magnitude == pytest.approx(3.35)


def test_decode_floor_bars_values():
    rows = {d: (m, c) for d, m, c in inference_figures.decode_terms()}
    # 70.6e9 x 2 B = 141.2 GB over 3.35 TB/s = 42.15 ms (the book's 42.1 ms, line 1516); 2 x 70.6e9 FLOP / 989 TFLOP/s = 0.143 ms
    assert rows["h100"][0].to("ms").magnitude == pytest.approx(141.2 / 3.35, rel=1e-4)
    assert rows["h100"][1].to("ms").magnitude == pytest.approx(2 * 70.6e9 / 989e12 * 1e3, rel=1e-4)
    assert "h200" not in rows          # Exercise 2a.3 asks for the H200's floor
    assert isinstance(inference_figures.decode_floor_bars(), Figure)


def test_time_chain_waterfall_values():
    h = [x.to("hour").magnitude for x in cluster_figures.chain_hours()]
    # 6 x 175e9 x 300e9 = 3.15e23 FLOP over 10,000 x 989 TFLOP/s x 0.45 = 70,779 s = 19.66 h;
    # / 0.85 x 1.05 x 1.03 x 1.10 x 1.05 = 28.89 h
    ideal = 3.15e23 / (10_000 * 989e12 * 0.45) / 3600
    assert h[0] == pytest.approx(ideal, rel=1e-6)
    assert h[-1] == pytest.approx(ideal / 0.85 * 1.05 * 1.03 * 1.10 * 1.05, rel=1e-6)
    assert isinstance(cluster_figures.time_chain_waterfall(), Figure)
