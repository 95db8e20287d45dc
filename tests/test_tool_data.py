"""The tools pass data, not text to re-parse.

- A panel carries its title, knobs and parts as attributes and in its saved widget state; the site
  and the instructor guide read those, not the heading's HTML or the cell's source.
- One reader of exercise ids (``workbook.notebooks.exercise_ids``) for code and for headings.
- The exercise generator moves each closed panel after its exercise's last check from what it
  recorded while making the cells (it used to re-read its own output and skip the cell after a
  moved one).

Expected values are written by hand from the inputs each test builds.
"""
from __future__ import annotations

import json

import nbformat
import pytest

from workbook.notebooks import nb as nbtool
from workbook.classroom import exercises as student_nbs
from workbook.notebooks.exercise_ids import ids_in_code, ids_in_headings


def test_ids_in_code_reads_calls_not_text():
    src = ('check("28.9", "beta_node", beta_node)\n'
           'fx.check("28.10", "t", t)   # check("99.9") in a comment is not a call\n'
           'answer_first("28.9#2", prompt="check(\'1.1\')")\n'
           's = "exercise(\'7.7\')"\n')
    assert ids_in_code(src) == ["28.9", "28.10", "28.9"]
    assert ids_in_code(src, calls=("check",)) == ["28.9", "28.10"]


def test_ids_in_code_survives_a_half_written_cell():
    src = 'check("2.1", "a", a)\nb = (\ncheck("2.2", "b", b)\n'
    assert ids_in_code(src) == ["2.1", "2.2"]


@pytest.mark.parametrize("md, want", [
    ("## Exercise 28.2: the least batch for 50 FLOP/byte", [("28.2", "the least batch for 50 FLOP/byte")]),
    ("# Exercise 28.1: resident blocks per SM (§28.2, optional)", [("28.1", "resident blocks per SM (§28.2, optional)")]),
    ("## Question V2.1.2. Why does it stop?", [("V2.1.2", "Why does it stop?")]),
    ("# Exercise CAP.1–CAP.2: design the cluster", [("CAP.1", "")]),
    ("# Exercises 28.2 and 28.3: using the roofline", []),   # a set's title, not one exercise
    ("## Exercise 28.10", [("28.10", "")]),
])
def test_ids_in_headings(md, want):
    assert ids_in_headings(md) == want


def _code(src):
    return nbformat.v4.new_code_cell(src)


def test_panels_move_after_their_last_check_and_none_is_skipped():
    p1, p2 = _code("answer_first('1.1')"), _code("answer_first('1.1#2')")
    intro, c1, c2, after = _code("x = 1"), _code('check("1.1", "a", a)'), _code('check("1.1", "b", b)'), _code("y = 2")
    other = _code("answer_first('2.1')")
    cells = [intro, p1, p2, other, c1, c2, after]
    panel_of = {id(p1): "1.1", id(p2): "1.1", id(other): "2.1"}
    checked = {id(c1): {"1.1"}, id(c2): {"1.1"}}
    got = student_nbs._panels_after_their_checks(cells, panel_of, checked)
    # both 1.1 panels (the old loop skipped the second) follow the last 1.1 check; 2.1 has no check: stays
    assert [c.source for c in got] == [c.source for c in (intro, other, c1, c2, p1, p2, after)]


def test_a_panel_carries_its_title_and_knobs_as_data():
    from fleetcalc.ui.widgets import knob, panel

    p = panel(lambda bw, n: {"t": n / bw}, {"bw": knob(2, 1, 10, unit="GB/s", label="read bandwidth"),
                                            "n": knob(10, 1, 100, unit="GB", label="bytes")},
              title="Load time", where="Eq. 28.14")
    assert (p.title, p.where, p.knob_names, p.main) == ("Load time", "Eq. 28.14", ["bw", "n"], "bw")
    assert p.fleetcalc == {"title": "Load time", "where": "Eq. 28.14", "main": "bw",
                           "knobs": [["bw", "read bandwidth"], ["n", "bytes"]]}
    assert "fc-heading" in p.heading._dom_classes and "fc-readouts" in p.table._dom_classes
    assert p.get_state()["fleetcalc"]["title"] == "Load time"     # what a saved notebook keeps


def test_saved_panels_are_read_from_the_widget_state():
    state = {
        "a": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_b"], "_dom_classes": ["fc-panel"],
                                                   "fleetcalc": {"title": "T1", "knobs": [["x", "the x"]]}}},
        "b": {"model_name": "HTMLModel", "state": {"value": "<b>not read</b>"}},
        "c": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_d"]}},
        "d": {"model_name": "VBoxModel", "state": {"children": [], "fleetcalc": {"title": "T2", "knobs": []}}},
    }
    view = lambda m: {"output_type": "display_data",
                      "data": {nbtool.WIDGET_VIEW: {"model_id": m, "version_major": 2, "version_minor": 0}}}
    nb = {"cells": [{"cell_type": "markdown", "source": "# x"},
                    {"cell_type": "code", "source": "", "outputs": [view("a")]},
                    {"cell_type": "code", "source": "", "outputs": [view("c")]}],
          "metadata": {"widgets": {nbtool.WIDGET_STATE: {"state": state}}}}
    json.dumps(nb)
    assert [(i, p["title"]) for i, p in nbtool.saved_panels(nb)] == [(1, "T1"), (2, "T2")]
