"""check(): the exercise answer checker (fleetcalc.exercises) and the exercise bank."""
import pytest

from fleetcalc.exercises import all_exercises, check, exercise, expected, grade
from fleetcalc.units import Q_


def test_expected_answers_are_computed_from_inputs():
    # Exercise 28.2 reference solution: 52; Exercise 28.3: 0.05 s, 0.05 s, 0.025 s
    assert expected("28.2", "B_min") == 52
    assert expected("28.3", "t_min").m_as("s") == pytest.approx(0.05)
    assert expected("28.3", "t_half_bytes").m_as("s") == pytest.approx(0.025)
    # other inputs, other answer (variants): d = n = 8192 -> B >= 50*2*8192^2/(2*8192^2 - 100*16384) = 50.61 -> 51
    assert expected("28.2", "B_min", d=8192) == 51


def test_feedback(capsys):
    assert grade("28.2", "B_min", 52).status == "correct"
    r = grade("28.2", "B_min", 51)
    assert r.status == "wrong" and "too small" in r.message and "Eq. 28.4" in r.message
    assert grade("28.3", "t_min", Q_(50, "ms")).status == "correct"   # units converted
    assert grade("28.3", "t_min", 0.05).status == "correct"           # plain number in the stated unit (s)
    assert grade("28.3", "t_min", Q_(50, "GB")).status == "wrong-units"
    assert grade("28.3", "t_min", float("nan")).status == "wrong"
    check("28.2", "B_min", ...)
    assert "not answered yet" in capsys.readouterr().out


def test_unanswered_never_raises():
    for ex_id, ex in all_exercises().items():
        for part in ex.answers:
            assert grade(ex_id, part, ...).status == "unanswered"


def test_every_registered_answer_is_computable_and_passes_its_own_check():
    for ex_id, ex in all_exercises().items():
        for part in ex.answers:
            assert grade(ex_id, part, ex.expected(part)).status == "correct", (ex_id, part)


def test_unknown_ids_are_clear():
    with pytest.raises(KeyError, match="no exercise"):
        exercise("99.9")
    with pytest.raises(KeyError, match="no part"):
        grade("28.2", "nope", 1)


def test_repr_lists_inputs():
    text = repr(exercise("28.2"))
    assert "d = 4096" in text and "I_target = 50 FLOP/B" in text and "B_min" in text
