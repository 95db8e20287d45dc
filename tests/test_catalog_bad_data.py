"""Malformed or incomplete catalog entries fail at load, naming the entry and the field.

Each case writes a small TOML catalog into a temporary folder and loads it with
``fleetcalc.core.catalog.load_catalog(tmp)``; the error must be a ``CatalogError`` (a ValueError)
whose message names the entry path (``dev.hbm``) and the offending field (or, for a duplicate
top-level name, the name and both files). A well-formed catalog of the same shape loads.
"""
from __future__ import annotations

import re

import pytest

from fleetcalc.core.catalog import CatalogError, load_catalog

GOOD = """
[dev.hbm]
value = 3.35e12
unit = "byte/s"
direction = "memory"
source = "Vol. 2 Ch. 2, Table 2.2 (line 1360)"

[dev.peak]
value = 989e12
unit = "FLOP/s"
peak = "dense"
precision = "FP16"
source = "Vol. 2 Ch. 2, Table 2.2"

[dev.link]
value = 400
unit = "Gb/s"
direction = "one-way"
source = "Vol. 2 Ch. 3"

[dev.memory]
value = 80
unit = "GB"
source = "Vol. 2 Ch. 2"
"""


def _write(tmp_path, text, name="a.toml"):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _replace_entry(entry: str, new_body: str) -> str:
    """GOOD with the table ``[dev.<entry>]`` replaced by ``new_body``."""
    pattern = re.compile(rf"\[dev\.{entry}\]\n(?:(?!\n\[).)*", re.S)
    assert pattern.search(GOOD), entry
    return pattern.sub(f"[dev.{entry}]\n{new_body.strip()}\n", GOOD)


def test_good_catalog_loads(tmp_path):
    cat = load_catalog(_write(tmp_path, GOOD))
    assert set(cat) == {"dev.hbm", "dev.peak", "dev.link", "dev.memory"}
    assert cat["dev.hbm"].quantity.to("TB/s").magnitude == pytest.approx(3.35)
    assert cat["dev.link"].quantity.to("GB/s").magnitude == pytest.approx(50)  # 400 Gb/s = 50 GB/s


CASES = {
    # case id: (entry, new body, field the message must name)
    "missing unit": ("memory", 'value = 80\nsource = "Vol. 2 Ch. 2"', "unit"),
    "missing source": ("memory", 'value = 80\nunit = "GB"', "source"),
    "empty source": ("memory", 'value = 80\nunit = "GB"\nsource = "  "', "source"),
    "missing value": ("memory", 'unit = "GB"\nsource = "Vol. 2 Ch. 2"', "value"),
    "non-numeric value": ("memory", 'value = "80"\nunit = "GB"\nsource = "Vol. 2 Ch. 2"', "value"),
    "boolean value": ("memory", 'value = true\nunit = "GB"\nsource = "Vol. 2 Ch. 2"', "value"),
    "nan value": ("memory", 'value = nan\nunit = "GB"\nsource = "Vol. 2 Ch. 2"', "value"),
    "inf value": ("memory", 'value = inf\nunit = "GB"\nsource = "Vol. 2 Ch. 2"', "value"),
    "bad unit": ("memory", 'value = 80\nunit = "gigafrobs"\nsource = "Vol. 2 Ch. 2"', "unit"),
    "unit not a string": ("memory", 'value = 80\nunit = 3\nsource = "Vol. 2 Ch. 2"', "unit"),
    "unknown direction": ("hbm", 'value = 3.35e12\nunit = "byte/s"\ndirection = "sideways"\nsource = "T 2.2"',
                          "direction"),
    "bandwidth without direction": ("hbm", 'value = 3.35e12\nunit = "byte/s"\nsource = "T 2.2"', "direction"),
    "bit rate without direction": ("link", 'value = 400\nunit = "Gb/s"\nsource = "Ch. 3"', "direction"),
    "direction on a non-bandwidth": ("memory", 'value = 80\nunit = "GB"\ndirection = "up"\nsource = "Ch. 2"',
                                     "direction"),
    "FLOP/s without peak": ("peak", 'value = 989e12\nunit = "FLOP/s"\nsource = "T 2.2"', "peak"),
    "FLOP/s with unknown peak": ("peak", 'value = 989e12\nunit = "TFLOP/s"\npeak = "boost"\nsource = "T 2.2"',
                                 "peak"),
    "unknown field": ("memory", 'value = 80\nunit = "GB"\nsource = "Ch. 2"\nsorce = "typo"', "sorce"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_entry_fails_naming_entry_and_field(tmp_path, case):
    entry, body, field = CASES[case]
    _write(tmp_path, _replace_entry(entry, body))
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path)
    msg = str(info.value)
    assert f"dev.{entry}" in msg, f"{case}: the message does not name the entry: {msg}"
    assert field in msg, f"{case}: the message does not name the field {field!r}: {msg}"
    assert "a.toml" in msg, f"{case}: the message does not name the file: {msg}"


def test_duplicate_top_level_name_across_files(tmp_path):
    _write(tmp_path, GOOD, "a.toml")
    _write(tmp_path, '[dev.other]\nvalue = 1\nunit = "W"\nsource = "Ch. 2"\n', "b.toml")
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path)
    msg = str(info.value)
    assert "dev" in msg and "a.toml" in msg and "b.toml" in msg, msg


def test_invalid_toml_names_the_file(tmp_path):
    _write(tmp_path, GOOD + "\n[dev.broken\nvalue = 1\n", "bad.toml")
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path)
    assert "bad.toml" in str(info.value)


def test_catalog_error_is_a_value_error():
    assert issubclass(CatalogError, ValueError)
