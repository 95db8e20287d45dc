"""The course's running job (core/data/running_job.toml) loads, cites, and is self-consistent.

Expected values are hand calculations from the job's stated inputs (named in each test).
"""
import math

import pytest

from fleetcalc.core.catalog import CatalogError, hw
from fleetcalc.core.job import load_job, our_job


def test_catalog_fields_are_the_catalogs_own_figures():
    assert our_job.beta_mem == hw("h100.hbm_bandwidth")
    assert our_job.R_peak.to("FLOP/s").magnitude == pytest.approx(989e12)  # Vol. 2 Table 2.6
    assert our_job.fields["gpu_mtbf"].kind == "book"
    assert "line 2098" in our_job.source("gpu_mtbf")


def test_layout_fills_the_cluster():
    # t x pp x dp = 8 x 4 x 32 = 1,024 GPUs; 128 nodes of 8
    assert our_job.t * our_job.pp * our_job.dp == our_job.N.magnitude == 1024
    assert our_job.N.magnitude / our_job.gpus_per_node.magnitude == 128


def test_training_compute_and_time_by_hand():
    from fleetcalc.physics.scaling_laws import training_flops
    # 6 P D = 6 x 70e9 x 1.4e12 = 5.88e23 FLOP (by hand)
    C = training_flops(our_job.P, our_job.D)
    assert C.to("FLOP").magnitude == pytest.approx(5.88e23, rel=1e-12)
    # at 40 % of 1,024 x 989 TFLOP/s: 5.88e23 / 4.05094e17 = 1.4515e6 s = 16.80 days (by hand)
    rate = our_job.N.magnitude * our_job.R_peak.to("FLOP/s").magnitude * our_job.eta_hw.magnitude
    assert C.to("FLOP").magnitude / rate / 86400 == pytest.approx(16.80, abs=0.01)


def test_state_is_sixteen_bytes_per_parameter():
    per_param = sum(getattr(our_job, k).to("byte").magnitude for k in ("s_w", "s_g", "s_opt", "s_master"))
    assert per_param == 16  # ZeRO §3: 2 + 2 + 12 bytes


def test_unknown_input_names_the_inputs():
    with pytest.raises(AttributeError, match="has no input 'params'.*P, D"):
        our_job.params


def test_malformed_field_names_itself(tmp_path):
    bad = tmp_path / "job.toml"
    bad.write_text('[job]\nname = "x"\nsummary = "y"\n[job.P]\nvalue = 1\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"job\.P needs unit, source"):
        load_job(bad)


def test_table_lists_every_input_with_its_source():
    text = str(our_job.table())
    assert text.count("\n|") == len(our_job.fields) + 2  # header, rule, one row each
    assert "| parameters | `P` | 70 billion param |" in text
    assert math.isclose(our_job.eta_hw.magnitude, 0.40)
