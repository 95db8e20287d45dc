"""No shared mutable state: what one notebook, cell or test registers belongs to its own session.

- ``lib/`` holds no module-level registry: an empty container (or dict/list/set/WeakSet/defaultdict
  call) bound at module level is refused, except the caches and weak views below, each with its reason.
- Exercise cards, passes, sealed panels and their openers live in an exercise session
  (``fleetcalc.ui.exercises.session``; a kernel's hangs on its IPython shell): two notebooks run one
  after another in one process, or one cell run twice, see only their own.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui import exercises as fx
from workbook.classroom import answer_key

LIB = Path(__file__).resolve().parents[1] / "lib"

# module-level containers that are not shared state, and why
ALLOWED = {
    ("workbook/__init__.py", "_FOUND"): "memo of the checkout found per (WORKBOOK_ROOT, working directory)",
    ("workbook/__init__.py", "_USING"): "the stack of `using_root` blocks, popped on exit",
    ("workbook/site/panel_harness.py", "_CACHE"): "memo of a notebook's panels per (source, mtime): a pure function of the file",
    ("fleetcalc/ui/widgets.py", "_LIVE"): "a weak view of the panels alive (holds none of them; nothing is registered in it by a notebook)",
    ("fleetcalc/core/equation.py", "_PARSED"): "memo: an equation's text -> its parsed tree (a pure function of the text)",
    ("fleetcalc/core/equation.py", "_CODE"): "memo: an equation's text -> its compiled code (a pure function of the text)",
    ("fleetcalc/core/validate.py", "_FACTORS"): "memo: (unit, target) -> the conversion factor (a pure function of the two)",
    ("fleetcalc/core/book.py", "LEDGER"): "append-only log of this process's book checks, read by tests; the ledger page is built from saved outputs",
    ("workbook/classroom/variants.py", "_CACHE"): "memo: a student's draw, keyed by the exercise's own inputs and ranges (a pure function of them)",
    ("workbook/classroom/variants.py", "_ASSIGNED"): "memo: (set, exercise, roster, seed) -> the assignment (a pure function of them)",
}
MUTABLE_CALLS = {"dict", "list", "set", "WeakSet", "defaultdict", "OrderedDict", "WeakValueDictionary", "deque"}


def _is_empty_container(node) -> bool:
    if isinstance(node, (ast.Dict, ast.List, ast.Set)):
        return not (node.keys if isinstance(node, ast.Dict) else node.elts)
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in MUTABLE_CALLS and not node.args and not node.keywords
    return False


def module_registries(path: Path) -> list[str]:
    out = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if value is not None and _is_empty_container(value):
            out += [t.id for t in targets if isinstance(t, ast.Name)]
    return out


def test_the_scan_finds_a_registry_and_spares_constants(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("_REG: dict[str, int] = {}\nCARDS = dict()\nUNITS = {'a': 1}\nNAMES = ('a',)\n")
    assert module_registries(f) == ["_REG", "CARDS"]


@pytest.mark.parametrize("path", sorted(LIB.rglob("*.py")), ids=lambda p: p.relative_to(LIB).as_posix())
def test_no_module_level_registry(path):
    rel = path.relative_to(LIB).as_posix()
    found = [n for n in module_registries(path) if (rel, n) not in ALLOWED]
    assert not found, f"{rel}: module-level container(s) {found}; keep state in an object its owner creates"


def _publish(ex_id, key, salt="s"):
    ns = {"publish": fx.publish, "part": fx.part, "Q_": Q_}
    exec(answer_key.publish_source(key[ex_id], salt=salt), ns)


def test_two_notebooks_in_one_process_do_not_see_each_other():
    key = answer_key.all_exercises()
    right = key["28.2"].expected("B_min")
    with fx.session() as first:
        _publish("28.2", key)
        fx.sealed_panel("28.2", "00")
        fx.check("28.2", "B_min", right)
        assert fx.passed("28.2")
    with fx.session() as second:
        assert not fx.passed("28.2")
        with pytest.raises(KeyError):
            fx.exercise("28.2")          # the other notebook's card is not here
        assert second.cards == {} and second.panels == {}
    assert set(first.cards) == {"28.2"} and first.passed["28.2"] == {"B_min"}


def test_the_same_cell_twice_keeps_one_card_and_starts_it_over():
    key = answer_key.all_exercises()
    with fx.session() as s:
        _publish("28.2", key)
        fx.check("28.2", "B_min", key["28.2"].expected("B_min"))
        assert fx.passed("28.2")
        _publish("28.2", key)                       # the card cell run again
        assert list(s.cards) == ["28.2"] and not fx.passed("28.2")


def test_a_key_cell_registers_into_the_session_it_ran_in():
    with fx.session() as outer:
        with fx.collecting() as found:
            fx.register(fx.Exercise("T.1", "test", "t", "none", inputs={}, answers={}))
        assert list(found) == ["T.1"] and "T.1" in outer.key
    with fx.session() as other:
        assert "T.1" not in other.key


def test_each_test_starts_with_an_empty_session(_own_exercise_session):
    # tests/conftest.py gives every test its own: nothing another test left is here, in any order
    assert fx.current() is _own_exercise_session
    assert not (_own_exercise_session.cards or _own_exercise_session.key or _own_exercise_session.on_pass)
