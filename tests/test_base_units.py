"""Kernels compute in base units, so no unit factor is typed by hand inside ``physics/``.

The calculator declaration converts each argument from its declared unit to the base unit of its
dimension (SI, bytes, FLOP, ...) and the result back (``fleetcalc.core.calculator``). A kernel
that still multiplies by 1e9 or 3600 is converting units pint cannot see; one that calls another
calculator's checked form instead of its ``.kernel`` converts twice. Both fail here, by line.

A literal that looks like a unit factor but is not one (a tolerance, a count) carries the comment
``# not a unit factor: <why>`` on its line.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

import fleetcalc.physics
from fleetcalc.core.calculator import base_factor, base_unit, is_calculator

# magnitudes of the prefixes and time units a hand conversion types
FACTORS = {1e3, 1e6, 1e9, 1e12, 1e15, 1e18, 1e-3, 1e-6, 1e-9, 1e-15, 1e-18, 3600.0, 86400.0, 8760.0,
           1024.0, 1024.0 ** 2, 1024.0 ** 3, 31536000.0, 31557600.0, 60.0}
MODULES = sorted(m.name for m in pkgutil.iter_modules(fleetcalc.physics.__path__) if not m.name.startswith("_"))


def _literal_value(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and all(
            isinstance(n, ast.Constant) for n in (node.left, node.right)):
        return float(node.left.value) ** float(node.right.value)
    return None


@pytest.mark.parametrize("module", MODULES)
def test_no_hand_typed_unit_factor(module):
    mod = importlib.import_module(f"fleetcalc.physics.{module}")
    source = inspect.getsource(mod)
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        value = _literal_value(node)
        if value is None or value not in FACTORS:
            continue
        line = lines[node.lineno - 1]
        if "# not a unit factor:" in line:
            continue
        found.append(f"{module}.py:{node.lineno}: {line.strip()}")
    assert not found, "unit factors typed by hand (declare the unit instead):\n" + "\n".join(found)


def _calculators(mod):
    return {n: getattr(mod, n) for n in dir(mod) if is_calculator(getattr(mod, n))}


@pytest.mark.parametrize("module", MODULES)
def test_kernels_call_kernels(module):
    """Inside physics a calculator calls another one's ``.kernel`` (base units in and out)."""
    mod = importlib.import_module(f"fleetcalc.physics.{module}")
    found = []
    for name, calc in _calculators(mod).items():
        if calc.kernel.__module__ != mod.__name__:
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(calc.kernel)))
        env = calc.kernel.__globals__
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            target = None
            if isinstance(f, ast.Name):
                target = env.get(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                target = getattr(env.get(f.value.id), f.attr, None)
            if target is not None and is_calculator(target):
                found.append(f"{module}.{name} calls {ast.unparse(f)}(...) (use .kernel)")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("unit,factor,base", [
    # by hand: SI prefixes, 1 h = 3600 s, 1 W = 1 kg m^2 s^-3, and information counted in bytes
    # (pint's own base is the bit: 1 Gbit/s = 1e9 / 8 byte/s)
    ("GB", 1e9, "byte"), ("GiB", 2.0 ** 30, "byte"), ("Gbit/s", 1.25e8, "byte * second ** -1"),
    ("ms", 1e-3, "second"), ("hour", 3600.0, "second"), ("kW", 1e3, "kilogram * meter ** 2 * second ** -3"),
    ("TFLOP/s", 1e12, "flop * second ** -1"), ("bit", 0.125, "byte"),
])
def test_base_units(unit, factor, base):
    assert base_factor(unit) == pytest.approx(factor, rel=1e-15)
    assert base_unit(unit) == base
