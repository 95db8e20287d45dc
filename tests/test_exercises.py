"""The answer key (solution notebooks' answer-key cells), the sealed self-check, answer-first panels."""
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from workbook.classroom import answer_key
from fleetcalc.ui import exercises as fx
from fleetcalc.core.units import Q_

KEY = answer_key.all_exercises()


@pytest.fixture(autouse=True)
def _the_key(key_session):
    """Each test's own session (tests/conftest.py), holding the key: grade() judges against it."""
    return key_session


def test_expected_answers_are_computed_from_inputs():
    # Exercise 28.2 reference solution: 52; Exercise 28.3: 0.05 s, 0.05 s, 0.025 s
    assert KEY["28.2"].expected("B_min") == 52
    assert KEY["28.3"].expected("t_min").m_as("s") == pytest.approx(0.05)
    assert KEY["28.3"].expected("t_half_bytes").m_as("s") == pytest.approx(0.025)
    # other inputs, other answer (variants): d = n = 8192 -> B >= 50*2*8192^2/(2*8192^2 - 100*16384) = 50.61 -> 51
    assert KEY["28.2"].expected("B_min", d=8192) == 51
    # Exercise 28.9 reference solution: 2 TiB in 90 s = 22.756 GiB/s
    assert KEY["28.9"].expected("beta_cluster").m_as("GiB/s") == pytest.approx(22.756, abs=5e-4)


def test_every_set_has_its_key_in_its_own_solution_notebook():
    sets = answer_key.load()
    assert set(sets) == {answer_key.set_name(p) for p in answer_key.solution_sources()}
    assert sum(len(ex.answers) for exs in sets.values() for ex in exs.values()) >= 116
    for s, exs in sets.items():
        names = Counter(p for ex in exs.values() for p in ex.answers)
        assert all(n == 1 for n in names.values()), f"{s}: a part name is used twice: {names}"
        for ex in exs.values():
            assert ex.set == s


def test_feedback_from_the_key():
    assert fx.grade("28.2", "B_min", 52).status == "correct"
    r = fx.grade("28.2", "B_min", 51)
    assert r.status == "wrong" and "too small" in r.message and "Eq. 28.4" in r.message
    assert fx.grade("28.3", "t_min", Q_(50, "ms")).status == "correct"   # units converted
    assert fx.grade("28.3", "t_min", 0.05).status == "correct"           # plain number in the stated unit (s)
    assert fx.grade("28.3", "t_min", Q_(50, "GB")).status == "wrong-units"
    assert fx.grade("28.3", "t_min", float("nan")).status == "wrong"
    assert fx.grade("28.3", "t_min", True).status == "wrong-units"


def test_every_answer_passes_its_own_check_and_unanswered_never_raises():
    for ex_id, ex in KEY.items():
        for part in ex.answers:
            assert fx.grade(ex_id, part, ex.expected(part)).status == "correct", (ex_id, part)
            assert fx.grade(ex_id, part, ...).status == "unanswered"


def test_sealed_self_check_agrees_with_the_key_within_tolerance(capsys):
    # A card built the way a student notebook gets it: Exercise 28.2 (B_min = 52, exact) and 28.3.
    for ex_id in ("28.2", "28.3", "28.9"):
        ns = {"publish": fx.publish, "part": fx.part, "Q_": Q_}
        exec(answer_key.publish_source(KEY[ex_id], salt="test"), ns)
    card = fx.exercise("28.2")
    assert isinstance(card, fx.Card) and "52" not in repr(card.parts)
    assert card.check("B_min", 52).status == "correct"
    assert card.check("B_min", 51).status == "wrong"
    t9 = fx.exercise("28.9")
    assert t9.check("beta_cluster", Q_(22.756, "GiB/s")).status == "correct"
    assert t9.check("beta_cluster", Q_(24.434, "GB/s")).status == "correct"    # 22.756 GiB/s in GB/s
    assert t9.check("beta_cluster", Q_(22.9, "GiB/s")).status == "wrong"       # 0.6 % off, tolerance 0.1 %
    assert t9.check("beta_cluster", Q_(1, "s")).status == "wrong-units"
    fx.check("28.9", "beta_cluster", ...)
    assert "not answered yet" in capsys.readouterr().out
    assert not fx.passed("28.9")
    fx.check("28.9", "beta_cluster", Q_(22.756, "GiB/s"))
    assert not fx.passed("28.9")                       # beta_node still open
    fx.check("28.9", "beta_node", Q_(22.756 / 8, "GiB/s"))
    assert fx.passed("28.9")


def test_seal_buckets_accept_within_tolerance_and_reject_beyond_twice_it():
    # Card.check salts each part with "<salt>/<exercise id>/<part>"
    card = fx.Card("x", "", {}, {"v": fx.part("", rel=1e-3, seal=fx.seal(100.0, 1e-3, 0.0, "/x/v"))}, "")
    for ok in (100.0, 100.099, 99.901):
        assert card.check("v", ok).status == "correct", ok
    for bad in (100.25, 99.75, -100.0, 0.0):
        assert card.check("v", bad).status == "wrong", bad


def test_no_key_in_a_student_kernel():
    code = ("from fleetcalc.notebook import *\n"
            "import fleetcalc.ui.exercises as fx\n"
            "assert fx.all_exercises() == {}\n"
            "assert 'expected' not in dir()\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-500:]


def test_unknown_ids_are_clear():
    with pytest.raises(KeyError, match="no exercise"):
        fx.exercise("99.9")
    with pytest.raises(KeyError, match="no part"):
        fx.grade("28.2", "nope", 1)


def test_repr_lists_inputs():
    text = repr(KEY["28.2"])
    assert "d = 4096" in text and "I_target = 50 FLOP/B" in text and "B_min" in text


def test_answer_first_opens_only_after_the_parts_pass_or_a_click():
    import binascii
    import zlib

    code = binascii.hexlify(zlib.compress(b"import sys\nsys._fx_panel_opened = True")).decode()
    fx.publish("T.1", "t", inputs={}, parts={"a": fx.part("", rel=1e-3, seal=fx.seal(2.0, 1e-3, 0.0, "/T.1/a"))})
    sys.__dict__.pop("_fx_panel_opened", None)
    fx.answer_first("T.1", code, prompt="What happens?")
    assert not hasattr(sys, "_fx_panel_opened")            # closed: the code has not run
    fx.check("T.1", "a", 2.0)
    fx.answer_first("T.1", code, prompt="What happens?")
    assert getattr(sys, "_fx_panel_opened", False)          # every part passed: it opens


def test_answer_first_opens_on_a_click(monkeypatch):
    import binascii
    import zlib

    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    code = binascii.hexlify(zlib.compress(b"import sys\nsys._fx_clicked = True")).decode()
    sys.__dict__.pop("_fx_clicked", None)
    fx.answer_first(None, code, prompt="Predict first")
    box = shown[-1]
    note, button = box.children
    assert "Predict first" in note.value and not hasattr(sys, "_fx_clicked")
    button.click()
    assert getattr(sys, "_fx_clicked", False) and button not in box.children   # the panel replaced the button
