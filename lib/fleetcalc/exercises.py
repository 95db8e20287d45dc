"""Exercise answers computed by the lib, and the ``check`` students run.

An :class:`Exercise` holds the exercise's inputs (the book's numbers) and, per part, an
:class:`Answer` whose ``compute`` derives the expected answer from those inputs with lib calls:
nothing is stored as a literal, so variants with other inputs get right answers too.
Chapters register their exercises in ``fleetcalc/exercise_bank/<chapter>.py``.

    check("28.2", "B_min", B_min)

prints whether the answer is right within the part's tolerance and, if not, what to revisit.
An unanswered ``...`` (or ``None``) prints "not answered yet" and never raises, so a fresh
exercise notebook executes cleanly.
"""
from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import pint

from .units import Quantity, as_quantity

__all__ = ["Answer", "Exercise", "register", "exercise", "expected", "check", "grade", "all_exercises", "Result"]


@dataclass
class Answer:
    compute: Callable[..., Any]
    unit: str = ""          # the unit the student answers in ("" for a pure number)
    rel: float = 1e-3       # relative tolerance
    abs: float = 0.0        # absolute tolerance (in ``unit``)
    hint: str = ""          # what to revisit when the answer is wrong
    label: str = ""


@dataclass
class Exercise:
    id: str
    chapter: str
    title: str
    source: str
    inputs: dict
    answers: dict[str, Answer]
    ranges: dict = field(default_factory=dict)  # input -> (lo, hi[, step]) for seeded variants
    valid: Callable[..., bool] | None = None     # extra condition a variant's inputs must meet

    def __repr__(self) -> str:
        def show(v):
            if isinstance(v, Quantity):
                return f"{v.magnitude:g} {v.units:~P}"
            return f"{v:g}" if isinstance(v, float) else str(v)
        ins = ", ".join(f"{k} = {show(v)}" for k, v in self.inputs.items())
        parts = ", ".join(f"{k}" + (f" [{a.unit}]" if a.unit else "") for k, a in self.answers.items())
        return (f"Exercise {self.id}: {self.title} ({self.source})\n  inputs: {ins}\n"
                f"  answer variables: {parts}")

    def expected(self, part: str, **overrides):
        ans = self.answers[part]
        args = {**self.inputs, **overrides}
        params = inspect.signature(ans.compute).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            args = {k: v for k, v in args.items() if k in params}
        return ans.compute(**args)


_REGISTRY: dict[str, Exercise] = {}
_loaded = False


def register(ex: Exercise) -> Exercise:
    if ex.id in _REGISTRY and _REGISTRY[ex.id] is not ex:
        raise ValueError(f"exercise {ex.id!r} is registered twice ({_REGISTRY[ex.id].chapter} and {ex.chapter})")
    _REGISTRY[ex.id] = ex
    return ex


def _load_bank():
    global _loaded
    if _loaded:
        return
    from . import exercise_bank

    for mod in pkgutil.iter_modules(exercise_bank.__path__):
        importlib.import_module(f"{exercise_bank.__name__}.{mod.name}")
    _loaded = True


def all_exercises() -> dict[str, Exercise]:
    _load_bank()
    return dict(_REGISTRY)


def exercise(ex_id: str) -> Exercise:
    _load_bank()
    try:
        return _REGISTRY[ex_id]
    except KeyError:
        raise KeyError(f"no exercise {ex_id!r}; known: {sorted(_REGISTRY)}") from None


def expected(ex_id: str, part: str, **overrides):
    return exercise(ex_id).expected(part, **overrides)


@dataclass
class Result:
    status: str  # "correct" | "wrong" | "unanswered" | "wrong-units"
    message: str

    def __bool__(self):
        return self.status == "correct"

    def __repr__(self):  # the cell shows the printed line; keep the repr quiet and stable
        return f"<check: {self.status}>"


def _magnitude_in(value, unit: str):
    if isinstance(value, Quantity):
        return float(value.to(unit or "dimensionless").magnitude)
    return float(value)


def check(ex_id: str, part: str, answer, inputs: dict | None = None) -> None:
    """Print whether ``answer`` to ``part`` of exercise ``ex_id`` is right (see :func:`grade`)."""
    print(grade(ex_id, part, answer, inputs=inputs).message)


def grade(ex_id: str, part: str, answer, inputs: dict | None = None) -> Result:
    """Grade ``answer`` to ``part`` of exercise ``ex_id`` without printing.

    ``inputs`` overrides some of the exercise's inputs (a seeded variant); the expected answer is
    recomputed from them.
    """
    ex = exercise(ex_id)
    if part not in ex.answers:
        raise KeyError(f"exercise {ex_id} has no part {part!r}; parts: {list(ex.answers)}")
    spec = ex.answers[part]
    label = spec.label or part
    unit_note = f" (in {spec.unit})" if spec.unit else ""
    if answer is ... or answer is None:
        res = Result("unanswered", f"… Exercise {ex_id}, {label}: not answered yet: replace ... with your answer{unit_note}.")
        return res
    want = _magnitude_in(ex.expected(part, **(inputs or {})), spec.unit)
    if inputs:
        label = f"{label} (your variant)"
    try:
        got = _magnitude_in(answer, spec.unit)
    except (pint.DimensionalityError, TypeError, ValueError):
        shown = f"{answer:~P}" if isinstance(answer, Quantity) else repr(answer)
        res = Result("wrong-units", f"✗ Exercise {ex_id}, {label}: {shown} is not a number{unit_note}; check the units.")
        return res
    if not math.isfinite(got):
        res = Result("wrong", f"✗ Exercise {ex_id}, {label}: the answer is not a finite number.")
        return res
    tol = max(spec.abs, spec.rel * abs(want))
    shown = f"{got:.6g}{' ' + spec.unit if spec.unit else ''}"
    if abs(got - want) <= tol * (1 + 1e-12):
        res = Result("correct", f"✓ Exercise {ex_id}, {label} = {shown}: correct.")
    else:
        direction = "too large" if got > want else "too small"
        hint = f" Revisit: {spec.hint}" if spec.hint else ""
        res = Result("wrong", f"✗ Exercise {ex_id}, {label} = {shown} is {direction}.{hint}")
    return res
