"""Unit-aware feedback and panels that teach without telling (lib/fleetcalc/ui/exercises.py,
lib/fleetcalc/ui/units_feedback.py).

Values by hand, from the book's inputs:
* Exercise 28.9: 2 TiB in 90 s = 2048 GiB / 90 s = 22.756 GiB/s (Ch. 28 reference solution)
  = 24.434 GB/s = 195.47 Gb/s; per node (8 nodes) 2.8444 GiB/s.
* Exercise V2.3.4: n* = alpha beta = 1.2 us x 100 GB/s = 120 kB (the solution's "75 kB to 120 kB").
* Exercise V2.3.5: latency term 2(p-1)alpha = 2 x 2047 x 1.5 us = 6.141 ms, bandwidth term
  2(p-1)/p x 2 GB / 50 GB/s = 79.961 ms, share 6.141 / 86.102 = 0.071322.
* Exercise 2b.1: 900 GB/s over 18 links = 50 GB/s per link both ways, 25 GB/s one way.
"""
from __future__ import annotations

import pytest

from workbook.classroom import answer_key
from fleetcalc.core.units import Q_
from fleetcalc.ui import exercises as fx

KEY = answer_key.all_exercises()


@pytest.fixture(autouse=True)
def _the_key(key_session):
    """Each test's own session (tests/conftest.py), holding the key: grade() judges against it."""
    return key_session


def _card(ex_id, salt="t"):
    ns = {"publish": fx.publish, "part": fx.part, "Q_": Q_}
    exec(answer_key.publish_source(KEY[ex_id], salt=salt), ns)
    return fx.exercise(ex_id)


@pytest.mark.parametrize("ex_id,part,answer,names", [
    ("28.9", "beta_cluster", Q_(22.756, "GB/s"), "(GB vs GiB)"),          # the GiB/s number, labelled GB/s
    ("28.9", "beta_cluster", Q_(24.434, "Gbit/s"), "(bits vs bytes)"),   # the GB/s number, labelled Gb/s
    ("V2.3.4", "n_star", Q_(120, "KiB"), "(kB vs KiB)"),                  # the kB number, labelled KiB
    ("V2.3.5", "latency_share", 7.1322, "(percent vs fraction)"),
    ("2b.1", "per_link_one_way", Q_(50, "GB/s"), "(per direction vs both ways)"),
])
def test_a_unit_confusion_is_named_not_the_number(ex_id, part, answer, names):
    by_key = fx.grade(ex_id, part, answer)
    by_card = _card(ex_id).check(part, answer)
    assert by_key.status == by_card.status == "unit-confusion"
    assert by_key.message == by_card.message                  # the grader and the self-check say the same
    assert names in by_key.message
    want = fx.magnitude_in(KEY[ex_id].expected(part), KEY[ex_id].answers[part].unit)
    assert f"{want:.4g}" not in by_key.message and "too" not in by_key.message


def test_the_by_hand_values_are_the_keys():
    assert KEY["28.9"].expected("beta_cluster").m_as("GiB/s") == pytest.approx(2048 / 90, rel=1e-9)
    assert KEY["V2.3.4"].expected("n_star").m_as("kB") == pytest.approx(120, rel=1e-9)
    assert KEY["V2.3.5"].expected("latency_share").m_as("") == pytest.approx(6.141 / (6.141 + 79.9609375), rel=1e-6)
    assert KEY["2b.1"].expected("per_link_one_way").m_as("GB/s") == pytest.approx(25, rel=1e-9)


def test_a_wrong_dimension_says_which_was_given_and_which_is_wanted():
    for res in (fx.grade("28.9", "beta_cluster", Q_(90, "s")), _card("28.9").check("beta_cluster", Q_(90, "s"))):
        assert res.status == "wrong-units"
        assert "that is a time, but the answer is a bandwidth (data per time) (in GiB/s)" in res.message
    res = fx.grade("V2.3.4", "n_star", Q_(120, "kB/s"))
    assert "a bandwidth (data per time), but the answer is an amount of data" in res.message


def test_right_and_plainly_wrong_answers_are_unchanged():
    assert _card("28.9").check("beta_cluster", Q_(22.756, "GiB/s")).status == "correct"
    assert _card("28.9").check("beta_cluster", Q_(30, "GiB/s")).status == "wrong"
    assert fx.grade("28.9", "beta_cluster", Q_(30, "GiB/s")).status == "wrong"


def test_a_variant_card_says_when_the_answer_is_the_books():
    ex = KEY["28.9"]
    ns = {"publish": fx.publish, "part": fx.part, "Q_": Q_}
    exec(answer_key.publish_source(ex, {"window": Q_(540, "s")}, salt="v"), ns)
    card = fx.exercise("28.9")
    assert card.check("beta_cluster", Q_(2048 / 540, "GiB/s")).status == "correct"     # 3.7926 GiB/s, by hand
    res = card.check("beta_cluster", Q_(22.756, "GiB/s"))                               # the book's 90 s
    assert res.status == "book-inputs" and "not your variant's" in res.message
    assert fx.grade("28.9", "beta_cluster", Q_(22.756, "GiB/s"), inputs={"window": Q_(540, "s")}).status == "book-inputs"


PANEL = '''
from fleetcalc.notebook import panel, knob
def need(window):
    return {"beta": (S_c / window).to("GiB/s"), "per_node": (S_c / window / nodes).to("GiB/s")}
panel(need, knobs={"window": knob(window, 10, 900, 5, unit="s", label="window")},
      show={"beta": ("GiB/s", 3, "cluster"), "per_node": ("GiB/s", 3, "per node")}, title="t")
'''


def test_a_panel_hides_the_graded_readouts_then_opens_by_itself(monkeypatch, capsys):
    import binascii
    import zlib

    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    card = _card("28.9")
    fx.sealed_panel("28.9", binascii.hexlify(zlib.compress(PANEL.encode())).decode())
    fx.answer_first("28.9", prompt="Shorter window?")
    box = shown[-1]
    note, button = box.children
    assert "opens by itself" in note.value
    button.click()                                         # open early: the graded readouts are hidden
    from fleetcalc.ui.widgets import Panel
    p = next(w for w in shown if isinstance(w, Panel))
    assert p.table.value.count(fx.HIDDEN) == 2 and "22.8" not in p.table.value and "2.84" not in p.table.value
    p.set(window=100)                                      # other inputs: their readouts show (20.48 GiB/s)
    assert "20.480 GiB/s" in p.table.value and fx.HIDDEN not in p.table.value
    p.set(window=90)
    assert fx.HIDDEN in p.table.value
    fx.check("28.9", "beta_cluster", Q_(2048 / 90, "GiB/s"))
    assert fx.HIDDEN in p.table.value                      # one part still open
    fx.check("28.9", "beta_node", Q_(2048 / 90 / 8, "GiB/s"))
    assert "22.756 GiB/s" in p.table.value and "2.844 GiB/s" in p.table.value and fx.HIDDEN not in p.table.value
    assert "passes" in note.value


def test_a_panel_opens_by_itself_when_the_parts_pass(monkeypatch):
    import binascii
    import zlib

    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    _card("28.9")
    fx.sealed_panel("28.9", binascii.hexlify(zlib.compress(PANEL.encode())).decode())
    fx.answer_first("28.9")
    box = shown[-1]
    from fleetcalc.ui.widgets import Panel
    assert not any(isinstance(w, Panel) for w in shown)
    fx.check("28.9", "beta_cluster", Q_(2048 / 90, "GiB/s"))
    fx.check("28.9", "beta_node", Q_(2048 / 90 / 8, "GiB/s"))
    p = next(w for w in shown if isinstance(w, Panel))     # opened by the check, no click
    assert "22.756 GiB/s" in p.table.value and len(box.children) == 2
