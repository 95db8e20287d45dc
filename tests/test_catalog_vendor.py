"""The books' hardware figures held against the vendors' published ones (catalog vendor fields)."""
import textwrap

import pytest

from fleetcalc.core.catalog import CatalogError, entries, load_catalog, vendor_notes, vendor_table


def _load(tmp_path, text):
    (tmp_path / "t.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    return load_catalog(tmp_path)


def test_every_real_product_entry_has_a_vendor_figure_or_a_reason():
    products = [e for e in entries().values() if e.product]
    assert len(products) > 150  # GPUs, TPUs, DGX H100, NVLink, PCIe, InfiniBand, HBM/DDR5 standards, ...
    for e in products:
        assert (e.vendor_value is not None and e.vendor_source) or e.vendor_none, e.path


def test_a_product_entry_without_vendor_figure_or_reason_is_refused(tmp_path):
    with pytest.raises(CatalogError, match="vendor_value.*vendor_none"):
        _load(tmp_path, """
            [gpu]
            product = "Some GPU"
            vendor_source = "its datasheet"
            [gpu.tdp]
            value = 700
            unit = "W"
            source = "book line 1"
        """)


def test_a_difference_without_a_note_is_refused(tmp_path):
    with pytest.raises(CatalogError, match="vendor_note"):
        _load(tmp_path, """
            [gpu]
            product = "Some GPU"
            vendor_source = "its datasheet"
            [gpu.tdp]
            value = 700
            unit = "W"
            source = "book line 1"
            vendor_value = 1000
        """)


def test_vendor_unit_must_convert(tmp_path):
    with pytest.raises(CatalogError, match="vendor_unit"):
        _load(tmp_path, """
            [mem]
            product = "Some memory"
            vendor_source = "its datasheet"
            [mem.capacity]
            value = 16
            unit = "GB"
            source = "book line 1"
            vendor_value = 16
            vendor_unit = "W"
            vendor_note = "x"
        """)


def test_known_vendor_notes():
    notes = vendor_notes()
    # DGX H100 datasheet: ~10.2 kW maximum system power, against the book's 8.4 kW
    e = notes["dgx_h100.node_power"]
    assert e.value == 8.4 and e.vendor_quantity.to("kW").magnitude == pytest.approx(10.2)
    # H100: 132 SMs x 64K 32-bit registers (256 KiB) = 132 * 262,144 B = 34.6 MB, above the book's 20-30 MB
    assert notes["h100.register_file_high"].vendor_quantity.to("MB").magnitude == pytest.approx(132 * 262144 / 1e6, rel=1e-3)
    # TPU v4: Google publishes no per-chip ICI figure; its 1,200 GBps is the HBM2 bandwidth
    assert notes["tpu_v4.ici"].vendor_status == "none" and "HBM" in notes["tpu_v4.ici"].vendor_note
    # TPU v5p: 2 TensorCores x 4 MXUs = 8 per chip
    assert notes["tpu_v5p.mxus"].vendor_value == 2 * 4
    # a matching figure is not a note: H100 HBM bandwidth 3.35 TB/s on both sides
    assert entries()["h100.hbm_bandwidth"].vendor_status == "matches"
    assert "h100.hbm_bandwidth" not in notes


def test_gib_against_gb_is_a_difference():
    # Google states 32 GiB = 34.36 GB for TPU v4; the book writes 32 GB (7 % apart)
    e = entries()["tpu_v4.hbm_capacity"]
    assert e.vendor_status == "differs"
    assert e.vendor_quantity.to("GB").magnitude == pytest.approx(32 * 2**30 / 1e9)


def test_vendor_table_shows_book_and_vendor_side_by_side():
    t = vendor_table("dgx_h100")
    html = t._repr_html_()
    assert "8.4 kW" in html and "10.2 kW" in html and "differs" in html
    with pytest.raises(KeyError, match="no catalog entries"):
        vendor_table("no_such_device")
