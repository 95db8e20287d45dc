"""The capstone's design chain, ledger and pictures (lib/fleetcalc/ui/diagrams/capstone.py).

Expected values are hand calculations from our job's inputs (core/data/running_job.toml) and the
catalog figures it names: 70e9 parameters, 1.4e12 tokens, H100 at 989 TFLOP/s and 40 % MFU, 8-GPU
nodes, t = 8, pp = 4, 16 bytes of state per parameter, ZeRO-1, 400 Gb/s NICs with alpha = 1.5 us,
500 GB/s of shared storage, a 1,000 h node MTBF, 10 min recovery, 8.4 kW DGX H100 nodes, PUE 1/0.9.
"""
import numpy as np
import pytest
from matplotlib.figure import Figure

from fleetcalc import Q_
from fleetcalc.ui.diagrams import capstone


@pytest.fixture(scope="module")
def d():
    return capstone.design(deadline=Q_(17, "day"))


def _texts(fig):
    return "\n".join([t.get_text() for ax in fig.axes for t in ax.texts] + [ax.get_title() for ax in fig.axes]
                     + [t.get_text() for t in fig.texts])


def test_chain_by_hand(d):
    assert d["C"].to("FLOP").magnitude == pytest.approx(5.88e23)                   # 6 x 70e9 x 1.4e12
    assert d["r_dev"].to("token/s").magnitude == pytest.approx(941.905, rel=1e-5)   # 0.4 x 989e12 / 4.2e11
    # 1.4e12 / (941.905 x 17 x 86,400 s) = 1,012.05 -> 1,013 -> 1,016 (whole nodes) -> 1,024 (replicas of 32)
    assert d["N_deadline"] == 1016 and d["N"] == 1024 and d.inputs["dp"] == 32
    assert d["T_train"].to("hour").magnitude == pytest.approx(403.20, rel=1e-4)
    # HBM: 4.375 + 4.375 + 840e9/1024 B = 0.8203 + activations 80 x 4096 x 8192 x 34 / 8 B = 11.408 GB
    assert d["act"].to("GB").magnitude == pytest.approx(11.408, rel=1e-4)
    assert d["hbm"].to("GB").magnitude == pytest.approx(4.375 + 4.375 + 0.8203 + 11.408, rel=1e-4)
    # ring over 32: 62 x 1.5 us + 62/32 x 4.375 GB / 50 GB/s = 0.169624 s
    assert d["t_allreduce"].to("s").magnitude == pytest.approx(0.169624, rel=1e-5)
    # step: 6 x 70e9 x 4,194,304 / (1024 x 989e12 x 0.4) = 4.3486 s
    assert d["t_compute"].to("s").magnitude == pytest.approx(4.3486, rel=1e-4)
    assert d["C_save"].to("s").magnitude == pytest.approx(1.96)                      # 980 GB / 500 GB/s
    assert d["M"].to("s").magnitude == pytest.approx(28125)                          # 1,000 h / 128
    assert d["tau"].to("s").magnitude == pytest.approx(332.04, rel=1e-4)             # sqrt(2 x 1.96 x 28125)
    assert d["w"].magnitude == pytest.approx(0.011806 + 0.021333, rel=1e-3)          # sqrt(2C/M) + R_f/M
    assert d["T_wall"].to("hour").magnitude == pytest.approx(403.20 * 1.033139, rel=1e-4)
    assert d["failures"].magnitude == pytest.approx(128 * 416.56 / 1000, rel=1e-4)
    # IT: 1024 x 0.7 kW + 128 x (8.4 - 5.6) kW = 1,075.2 kW; facility / 0.9 = 1,194.7 kW
    assert d["P_IT"].to("kW").magnitude == pytest.approx(1075.2)
    assert d["P_facility"].to("kW").magnitude == pytest.approx(1194.67, rel=1e-5)
    assert d["cost_devices"].to("cu").magnitude == pytest.approx(1024 * 416.56 * 3, rel=1e-4)
    assert d["racks"].magnitude == 32 and d["cooling"] == "liquid"


def test_design_moves_with_its_inputs(d):
    # twice the deadline: about half the GPUs (1.4e12 / (941.905 x 34 d) = 506.0 -> 512)
    half = capstone.design(deadline=Q_(34, "day"))
    assert half["N"] == 512
    # the B200's 2,250 TFLOP/s: 989/2250 of the rate's devices
    b = capstone.design(device="b200")
    assert b["r_dev"].magnitude == pytest.approx(941.905 * 2250 / 989, rel=1e-5)
    assert b["N"] < d["N"]


def test_layout_map_values():
    g = capstone.layouts()
    i, j = g["t"].index(1), g["pp"].index(1)
    # t = pp = 1 over 1,024: 140 + 140 + 840/1024 + 80 x 4096 x 8192 x 34 B (91.27 GB) = 372.1 GB
    assert g["hbm"][i, j] == pytest.approx(140 + 140 + 0.8203 + 91.27, rel=1e-3)
    t = _texts(capstone.layout_map(g, chosen=(8, 4)))
    assert "21 GB" in t and "372 GB" in t and "80 GB" in t


def test_chain_diagram_shows_each_stage(d):
    t = _texts(capstone.chain_diagram(d))
    assert "N = 1,024 GPUs" in t and "21.0 GB per GPU" in t and "t=8, pp=4, dp=32" in t
    assert "5.88e23 FLOP" in t and "checkpoint 980 GB" in t and "1.19 MW facility" in t


def test_ledger_lists_every_figure(d):
    text = capstone.ledger(d, {"scaling_laws.training_flops": ("v2_ch1/1_4_scaling_laws", "1.4 Scaling laws")})
    rows = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith("| stage")]
    assert len(rows) == len(d.steps)
    assert "$C = 6 P D$" in text and "[1.4 Scaling laws](../v2_ch1/1_4_scaling_laws.ipynb)" in text
    assert "Eq. 28.24" in text and "Eq. 28.12" in text


def test_teaching_sections_read_the_sources(tmp_path):
    (tmp_path / "ch28").mkdir()
    (tmp_path / "ch28" / "28_1_a.md").write_text("# 28.1 A\nx = capacity.energy(p, t)\n", encoding="utf-8")
    (tmp_path / "ch28" / "28_2_b.md").write_text("# 28.2 B\ncapacity.energy.work(p, t)\n", encoding="utf-8")
    s = capstone.teaching_sections(tmp_path)
    assert s["capacity.energy"] == ("ch28/28_2_b", "28.2 B")      # the worked step wins over a first call


def test_summary_panel_bars():
    fig = Figure()
    ax = fig.add_subplot()
    n = len(capstone.SUMMARY)
    update = capstone.summary_panel(ax, {}, {"ratios": [2.0] + [1.0] * (n - 1), "fits": True, "meets": True})
    bars = ax.patches
    assert bars[0].get_x() == pytest.approx(1.0) and bars[0].get_width() == pytest.approx(1.0)   # from 1 to 2
    update({}, {"ratios": [0.5] * n, "fits": False, "meets": False})
    assert bars[0].get_x() == pytest.approx(0.5) and bars[0].get_width() == pytest.approx(0.5)


def test_record_diagram_draws_one_panel_per_quantity():
    fig = capstone.record_diagram([("GPUs", 1024.0, [("OPT-175B", 992.0)], ""), ("MFU", 40.0, [("x", 43.0)], "%")])
    assert len(fig.axes) == 2 and "comparison, not a confirmation" in fig._suptitle.get_text()


def test_stage_panels_draw_and_move(d):
    fig = Figure()
    ax = fig.add_subplot()
    days = np.array([5.0, 17.0, 120.0])
    res = {"days_curve": days, "devices_curve": np.array([3448, 1016, 144]), "days": 17.0, "devices": 1016,
           "gpu_hours": Q_(1016 * 17 * 24, "hour")}
    update = capstone.deadline_panel(ax, {}, res)
    assert "1,016 GPUs x 17 days = 414,528 GPU-hours" in _texts(fig)        # 1,016 x 408 h
    update({}, {**res, "days": 34.0, "devices": 512, "gpu_hours": Q_(512 * 34 * 24, "hour")})
    assert "417,792 GPU-hours" in _texts(fig)                                  # 512 x 816 h
    fig = Figure()
    ax = fig.add_subplot()
    capstone.step_panel(ax, {}, {"t_compute": d["t_compute"], "t_full": d["t_allreduce"], "t_over": 2 * d["t_allreduce"],
                                 "u_full": d["U"], "u_over": d["U"], "ratio": 2})
    assert "computing 96.2% of the step" in _texts(fig)      # 4.3486 / (4.3486 + 0.1696)
    fig = Figure()
    ax = fig.add_subplot()
    capstone.cost_panel(ax, {}, {k: d[k] for k in ("cost_energy", "cost_devices", "P_facility", "E")})
    assert "facility 1.19 MW" in _texts(fig)
