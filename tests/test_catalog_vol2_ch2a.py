"""The Vol. 2 Ch. 2 accelerator catalog (vol2_ch2_accelerators.toml): every entry loads with a
unit and a source, FLOP/s entries say dense/sparse, bandwidths say their direction, and the
figures the text states more than once agree with each other."""
import pytest

from fleetcalc.core.catalog import children, entries, entry, hw

MINE = ("v100", "a100", "h100", "h200", "b200", "reticle", "tpu_v1", "tpu_v2", "tpu_v3", "tpu_v4",
        "tpu_v5p", "wse3", "cpu_server", "ddr5", "hbm", "hbm2e", "hbm3", "hbm3e", "hbm4",
        "data_movement", "fig2_1", "fleet_v2ch2", "precision_formats")


def test_every_entry_has_source_line():
    mine = [e for p, e in entries().items() if p.split(".")[0] in MINE]
    assert len(mine) > 150
    for e in mine:
        assert "Vol. 2 Ch. 2" in e.source and "line" in e.source, e.path


def test_peaks_and_directions():
    for p, e in entries().items():
        if p.split(".")[0] not in MINE:
            continue
        if e.unit == "FLOP/s":
            assert e.peak in ("dense", "sparse") and e.precision, p
        if e.unit in ("byte/s", "bit/s"):
            assert e.direction in ("one-way", "both-ways", "memory"), p


def test_table_2_6_formats_add_up():
    # sign + exponent + mantissa = bits for every float row of Table 2.6 (lines 1804-1814)
    for fmt in ("fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2"):
        bits = hw(f"precision_formats.{fmt}.bits").magnitude
        assert 1 + hw(f"precision_formats.{fmt}.exponent_bits").magnitude + hw(f"precision_formats.{fmt}.mantissa_bits").magnitude == bits


def test_h100_precision_ladder():
    # Table 2.6: FP8 = 2 x FP16 (to the printed digit), TF32 = FP16 / 2 (rounded down)
    assert hw("h100.peak_fp8").magnitude == pytest.approx(2 * hw("h100.peak_fp16").magnitude, abs=1e12)
    assert hw("h100.peak_tf32").magnitude == pytest.approx(hw("h100.peak_fp16").magnitude / 2, abs=1e12)
    assert entry("h100.peak_int4").note.startswith("Suspect")


def test_three_hbm_energies_are_kept():
    vals = {hw(p).to("pJ/bit").magnitude for p in ("hbm.energy_per_bit", "hbm.energy_per_bit_alt",
                                                  "hbm.energy_per_bit_table_high")}
    assert vals == {2.0, 4.0, 5.0}


def test_device_children():
    assert {"h100.peak_fp16", "h100.hbm_bandwidth", "h100.tdp"} <= set(children("h100"))
    assert hw("h200.hbm_bandwidth").to("TB/s").magnitude == 4.8
