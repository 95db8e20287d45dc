"""The declaration's kinds that replaced copy-pasted checks: a whole-number result (``returns=WHOLE``),
one float-forgiving ceiling (``ceil_count``), whole-number parameters that take a count in a
count unit (``our_job.N`` is 1,024 device), a list of quantities (``quantities``) and a
scalar-only argument (``one_value``)."""
import re
from pathlib import Path

import numpy as np
import pytest

from fleetcalc.core.calculator import WHOLE, calculator, ceil_count, whole
from fleetcalc.core.equation import eq
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

PHYSICS = Path(__file__).resolve().parents[1] / "lib" / "fleetcalc" / "physics"


@calculator(returns=WHOLE, n=whole(), k=whole(), equation=eq("m", "ceil_count(n/k)", ref="test"))
def _groups(n, k):
    """m = ceil(n / k)."""
    return ceil_count(n / k)


def test_whole_result_is_an_int_and_the_ceiling_forgives_float_noise():
    assert _groups(10, 5) == 2 and isinstance(_groups(10, 5), int)
    assert _groups(11, 5) == 3
    assert list(_groups(np.array([10, 11]), 5)) == [2, 3]
    # a quotient float rounding nudged above a whole number still counts that number; 5.01 needs 6
    assert 0.1 * 3 / 0.1 > 3 and ceil_count(0.1 * 3 / 0.1) == 3   # 0.1*3/0.1 is 3.0000000000000004 in floats
    assert ceil_count(5.01) == 6


def test_whole_parameter_takes_a_count_in_a_count_unit():
    assert _groups(Q_(1024, "device"), 8) == 128
    with pytest.raises(InputError, match="n needs a quantity without units; got 3 GB"):
        _groups(Q_(3, "GB"), 8)
    with pytest.raises(InputError, match="n"):
        _groups(Q_(10.5, "device"), 8)


def test_the_worked_step_prints_the_ceiling_as_a_ceiling():
    step = _groups.work(11, 5)
    assert r"\left\lceil" in step._repr_latex_() and "1e-09" not in step._repr_latex_()
    assert step.result == 3


def test_no_physics_module_copies_the_cast_or_the_ceiling_guard():
    for path in PHYSICS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"int\(\w+\) if np\.ndim\(\w+\) == 0 else", text), f"{path.name}: use returns=WHOLE"
        assert not re.search(r"np\.ceil\([^\n]*- *1e-\d+", text), f"{path.name}: use ceil_count"
        # a scalar-only argument is declared with one_value, not guarded by hand in the kernel
        assert not re.search(r"if (?:any\()?np\.ndim\([^\n]*\n\s+raise InputError", text), f"{path.name}: use one_value"


def test_a_one_value_parameter_refuses_an_array_and_names_it():
    from fleetcalc.physics import facility, fabric

    assert facility.cooling_regime(Q_(40, "kW")) == "liquid"           # > the book's ~30 kW air limit
    with pytest.raises(InputError, match=r"power_per_rack must be one value \(cooling_regime.*shape \(2,\)"):
        facility.cooling_regime(Q_([5, 40], "kW"))
    assert list(facility.cooling_code(Q_([5, 40], "kW"))) == [0, 2]   # the array form stays open
    with pytest.raises(InputError, match=r"flows must be one value .*not vectorised"):
        fabric.ecmp_collision_probability(np.array([8, 16]), 4, 4)


def test_a_list_of_quantities_names_the_bad_item():
    from fleetcalc.physics import pipeline

    assert pipeline.serial_time([Q_(1, "s"), Q_(500, "ms")]).m_as("s") == pytest.approx(1.5)   # 1 s + 0.5 s
    with pytest.raises(InputError, match=r"stages\[1\]"):
        pipeline.serial_time([Q_(1, "s"), Q_(-1, "s")])
