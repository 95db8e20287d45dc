"""The equation a calculator shows is the formula its kernel computes.

Each closed-form calculator declares its formula once (``equation=eq(...)``,
``fleetcalc.core.equation``). From that declaration alone:

* at random valid inputs drawn from the calculator's own parameter declarations, the declared
  expression and the kernel give the same number (a calculator whose shown equation and code
  differ fails here, by name);
* every calculator a chapter notebook or solution calls declares an equation, or says with
  ``no_equation(reason)`` why it has none (a simulation, a search, a table look-up);
* the LaTeX printer writes the book's forms: hand-written expected strings below;
* the worked step shows the inputs as given, with units, and the result the calculator returns
  (Ch. 28 §28.5 Eq. 28.12 at p = 8, m = 1 GiB, alpha = 5 us, beta = 25 GiB/s: by hand,
  14 x 5 us + 1.75 x (1/25) s = 70 us + 70 ms = 70.07 ms).
"""
from __future__ import annotations

import math
import pathlib
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fleetcalc.core.calculator import is_calculator
from fleetcalc.core.equation import NoEquation, eq, equations_of
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

from strategies import strategy
from test_calculators import DECLARED, EXAMPLES, baseline

ROOT = pathlib.Path(__file__).resolve().parents[1]
WITH_EQUATION = sorted(n for n, f in DECLARED.items() if equations_of(f))
SETTINGS = settings(max_examples=40, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _called_from_notebooks() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for d in ("chapters", "solutions")
                     for p in (ROOT / d).rglob("*.md"))
    return {n for n in DECLARED if re.search(rf"\b{re.escape(n)}\b", text)}


def test_every_calculator_a_notebook_calls_shows_its_equation():
    used = _called_from_notebooks()
    missing = sorted(n for n in used if DECLARED[n].equation is None)
    assert not missing, ("declare equation=eq(...) or equation=no_equation(reason) for: "
                         + ", ".join(missing))
    assert len(used) > 200


def test_exemptions_give_a_reason():
    for n, f in DECLARED.items():
        if isinstance(f.equation, NoEquation):
            assert len(f.equation.reason) >= 15, n


def _draw(calc, name):
    """A strategy of keyword arguments for ``calc``: declared ones drawn, the rest from EXAMPLES."""
    fixed = EXAMPLES.get(name, {})
    drawn = {}
    for p, decl in calc.params.items():
        if p in fixed:
            continue
        if calc.defaults.get(p, 0) is None and all(p not in e.names for e in equations_of(calc)):
            continue  # optional, and the equation is shown without it
        if decl.kind == "any":
            continue
        drawn[p] = strategy(decl)
    return st.fixed_dictionaries(drawn).map(lambda d: {**fixed, **d})


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-300))


@pytest.mark.parametrize("name", WITH_EQUATION)
def test_equation_is_the_kernel(name):
    calc = DECLARED[name]

    @SETTINGS
    @given(_draw(calc, name))
    def agree(kw):
        try:
            base = calc.bind(**kw)
            got = calc.kernel(**base)
        except (InputError, ValueError):
            return  # a cross-argument rule refused this draw
        for e in equations_of(calc):
            want = got if e.key is None else got[e.key]
            shown = e.evaluate(**base)
            assert _close(shown, want), f"{name}: {e.expr} gives {shown!r}, the kernel {want!r} at {kw}"

    agree()
    # and at the typical call the fuzz tests use
    kw = baseline(name)
    base = calc.bind(**kw)
    got = calc.kernel(**base)
    for e in equations_of(calc):
        assert _close(e.evaluate(**base), got if e.key is None else got[e.key]), name


@pytest.mark.parametrize("name", WITH_EQUATION)
def test_worked_step_renders(name):
    calc = DECLARED[name]
    kw = baseline(name)
    step = calc.work(**kw)
    md = step._repr_markdown_()
    assert md.count("$$") >= 2 and "Where it comes from" in md
    assert "nan" not in md and "inf" not in md.replace("\\inf", "")
    text = str(step)
    assert calc.__name__ in md and step.refs in text


# --- the printer, against hand-written LaTeX ------------------------------------------------
PRINTED = [
    ("alpha + m/beta_net", r"\alpha + \frac{m}{\beta_{\mathrm{net}}}"),
    ("2*(p - 1)*alpha", r"2 \left(p - 1\right) \alpha"),
    ("a - (b - c)", r"a - \left(b - c\right)"),
    ("a - b + c", r"a - b + c"),
    ("(a + b)**2", r"\left(a + b\right)^{2}"),
    ("x**0.5", r"\sqrt{x}"),
    ("-x*y", r"-x y"),
    ("2*log2(p)", r"2 \log_2\left(p\right)"),
    ("ceil(N/k)", r"\left\lceil \frac{N}{k} \right\rceil"),
    ("max(t_c, t_n)", r"\max\left(t_{c}, t_{n}\right)"),
    ("D_vol/BW", r"\frac{D_{\mathrm{vol}}}{\mathrm{BW}}"),
    ("1 - exp(-(N*t/MTBF))", r"1 - e^{-\frac{N t}{\mathrm{MTBF}}}"),
    ("-expm1(-(t/M))", r"1 - e^{-\frac{t}{M}}"),
    ("(N_c/P)**alpha_N", r"\left(\frac{N_{c}}{P}\right)^{\alpha_{N}}"),
]


def test_a_number_put_into_a_power_is_bracketed():
    e = eq("L", "X**(-a)", ref="test")
    assert e.rhs_latex({"X": r"1 \times 10^{9}", "a": "0.34"}) == r"\left(1 \times 10^{9}\right)^{-0.34}"


@pytest.mark.parametrize("expr,latex", PRINTED)
def test_printer_writes_the_book_form(expr, latex):
    assert eq("y", expr, ref="test").rhs_latex() == latex


def test_printer_precedence_is_what_python_computes():
    """A printed form whose brackets were lost would read as another formula: each expression
    here is evaluated as printed (by hand) and as code."""
    e = eq("y", "a - (b - c)", ref="test")
    assert e.evaluate(a=5.0, b=3.0, c=1.0) == 3.0
    assert eq("y", "a/(b*c)", ref="test").rhs_latex() == r"\frac{a}{b c}"


def test_worked_step_ring_allreduce():
    from fleetcalc.physics import collectives
    step = collectives.ring_allreduce_time.work(p=8, m=Q_(1, "GiB"), alpha=Q_(5, "us"), beta_net=Q_(25, "GiB/s"))
    assert math.isclose(step.result.m_as("ms"), 70.07, rel_tol=1e-12)   # by hand, module docstring
    md = step._repr_markdown_()
    assert r"2 \left(8 - 1\right) \left(5\,\mu\mathrm{s}\right)" in md
    assert r"\frac{1\,\mathrm{GiB}}{25\,\mathrm{GiB}/\mathrm{s}}" in md
    assert r"&= 70.1\,\mathrm{ms}" in md
    assert "Eq. 28.12" in md
    assert "= 70.1 ms" in str(step)


def test_worked_step_refuses_an_input_it_cannot_show():
    from fleetcalc.physics import collectives
    with pytest.raises(ValueError, match="gamma"):
        collectives.ring_allreduce_time.work(8, Q_(1, "GiB"), Q_(5, "us"), Q_(25, "GiB/s"), gamma=Q_(1, "ns/byte"))


def test_every_declaration_parses_and_names_only_its_parameters():
    from fleetcalc.core.equation import check_declaration
    for name in WITH_EQUATION:
        check_declaration(DECLARED[name])


def test_equation_names_only_its_parameters():
    from fleetcalc.core.calculator import calculator, qty
    from fleetcalc.core.equation import check_declaration

    @calculator(returns="s", x=qty("s"), equation=eq("y", "x + z", ref="test"))
    def f(x):
        return x
    with pytest.raises(TypeError, match="not its parameters"):
        check_declaration(f)


def test_equation_refuses_code_it_cannot_show():
    with pytest.raises(ValueError):
        eq("y", "__import__('os').system('true')", ref="test").check()
    with pytest.raises(ValueError):
        eq("y", "x.real", ref="test").check()


# --- the formula sheets and the solutions' reasoning ----------------------------------------

def test_formula_sheet_lists_each_equation_under_the_section_that_teaches_it():
    from workbook.site import reference_pages
    from workbook.site import build as site
    book = site.load_book()
    pages = site.all_pages(site.plan(book, "student"))
    text = reference_pages.formula_page(pages, book, "student", "ch28")
    sec = text.index("</chapters/ch28/28_5_collectives>")
    ring = text.index(r"$t_{\mathrm{ring}} = 2 \left(p - 1\right) \alpha + \frac{2 \left(p - 1\right)}{p} \frac{m}{\beta_{\mathrm{net}}}$")
    assert sec < ring
    assert "Ch. 28 §28.5, Eq. 28.12" in text[ring:ring + 2000]
    # the sheet is one per chapter, and the site's book.yml names each
    for ch in reference_pages.FORMULA_CHAPTERS:
        assert f"file: reference/formulas-{ch}" in (ROOT / "book.yml").read_text(encoding="utf-8")


def test_worked_answer_shows_the_steps_the_key_took():
    from fleetcalc.physics import collectives
    from fleetcalc.ui.exercises import Answer, Exercise
    ex = Exercise(id="T.1", chapter="test", title="ring", source="test",
                  inputs={"p": 8, "m": Q_(1, "GiB"), "alpha": Q_(5, "us"), "beta_net": Q_(25, "GiB/s")},
                  answers={"t": Answer(lambda p, m, alpha, beta_net: collectives.ring_allreduce_time(p, m, alpha, beta_net),
                                       unit="ms", label="ring time")})
    w = ex.worked("t")
    md = w._repr_markdown_()
    assert "Eq. 28.12" in md and r"\left(5\,\mu\mathrm{s}\right)" in md
    assert "**Answer:** `t` = 70.07 ms" in md    # by hand: 70 us + 1.75 x 40 ms


def test_unit_constants_and_many_argument_max():
    e = eq("P", "max(a, b, c) + 1 - (1 - p)**(w/unit('day'))", ref="test")
    assert e.rhs_latex() == r"\max\left(a, b, c\right) + 1 - \left(1 - p\right)^{\frac{w}{1\,\mathrm{day}}}"
    # by hand: max = 3; two days at p = 0.5: 1 - 0.25 = 0.75
    assert e.evaluate(a=1.0, b=3.0, c=2.0, p=0.5, w=2 * 86400.0) == 3.75
    assert e.names == ["a", "b", "c", "p", "w"]


def test_units_print_as_upright_latex():
    from fleetcalc.core.units import unit_latex
    assert unit_latex("W/cm²") == r"\mathrm{W}/\mathrm{cm}^{2}"
    assert unit_latex("kg·m⁻²") == r"\mathrm{kg}\cdot \mathrm{m}^{-2}"
    assert unit_latex("µs") == r"\mu\mathrm{s}"


def test_list_arguments_sum_and_max_term_by_term():
    """Eq. 28.8-28.9 over the stages of Algorithm 28.1's example (10, 20, 8, 16 ms): by hand the
    serial time is 54 ms and the interval the slowest stage, 20 ms."""
    from fleetcalc.physics import pipeline, storage
    st = [Q_(10, "ms"), Q_(20, "ms"), Q_(8, "ms"), Q_(16, "ms")]
    step = pipeline.serial_time.work(st)
    assert math.isclose(step.result.m_as("ms"), 54.0)
    tex = step.latex()
    assert r"\sum_i t_i" in tex and r"10\,\mathrm{ms} + 20\,\mathrm{ms} + 8\,\mathrm{ms} + 16\,\mathrm{ms}" in tex
    assert r"\max\left(10\,\mathrm{ms}, 20\,\mathrm{ms}, 8\,\mathrm{ms}, 16\,\mathrm{ms}\right)" in pipeline.pipeline_interval.work(st).latex()
    # Eq. 28.22: 2 GiB through 32 and 16 GiB/s stages, pipelined: the slower one, 2/16 s = 125 ms
    r = storage.restore_time_lower_bound.work(Q_(2, "GiB"), [Q_(32, "GiB/s"), Q_(16, "GiB/s")])
    assert math.isclose(r.result.m_as("ms"), 125.0) and r"\max_i \frac{S_{c}}{\beta_i}" in r.latex()


# The book's relations, as Ch. 28 prints them (Eq. 28.1 "n_block ≤ min(...)", Eq. 28.9 "t_pipe ≥ max(...)",
# Eq. 28.16 "β_effective ≤ min(β_io, aq)", Eq. 28.22 "t_restore ≥ max(...)"): the declaration keeps them,
# and the displayed equation, the worked step and the formula sheet print them.
BOOK_RELATIONS = [("accelerator", "resident_blocks", "≤", r"\le"), ("pipeline", "pipeline_interval", "≥", r"\ge"),
                  ("pipeline", "pipeline_interval_4", "≥", r"\ge"), ("storage", "effective_bandwidth", "≤", r"\le"),
                  ("storage", "restore_time_lower_bound", "≥", r"\ge")]


@pytest.mark.parametrize("module,name,rel,tex", BOOK_RELATIONS)
def test_a_book_inequality_keeps_its_relation(module, name, rel, tex):
    import importlib

    calc = getattr(importlib.import_module(f"fleetcalc.physics.{module}"), name)
    e = calc.equation
    assert e.rel == rel and f" {tex} " in e.latex() and f" {rel} " in str(e)


def test_a_worked_bound_prints_its_relation_then_the_values():
    from fleetcalc.core.units import Q_
    from fleetcalc.physics import storage

    w = storage.effective_bandwidth.work(Q_(10, "GB/s"), Q_(1000, "1/s"), Q_(1, "MB"))
    md = w._repr_markdown_()
    assert r"&\le \min" in md and "&= 1\\,\\mathrm{GB}/\\mathrm{s}" in md   # β ≤ min(...) = ... = 1 GB/s (hand: 1000/s x 1 MB)
    assert "beta_effective ≤ min(" in str(w)


def test_an_unknown_relation_is_refused():
    from fleetcalc.core.equation import eq

    with pytest.raises(ValueError, match="relation"):
        eq("x", "y", ref="test", rel="<")
    assert eq("x", "y", ref="test", rel="<=").rel == "≤"
