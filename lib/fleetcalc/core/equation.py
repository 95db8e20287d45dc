"""A calculator's equation, declared once, shown three ways.

A closed-form calculator declares the formula its kernel computes as a Python expression over
its own parameter names (base units in, base units out, as the kernel), in the book's form::

    @calculator(returns="s", ..., equation=eq(
        "t", "2*(p - 1)*alpha + 2*(p - 1)/p * m/beta_net", ref="Ch. 28 §28.5, Eq. 28.12"))

From that one string come:

* :meth:`Equation.latex`: the equation as displayed maths, ``t = 2(p-1)\\alpha + ...``;
* :func:`work` (``calc.work(...)``): the worked step, the equation, then the same expression
  with the caller's inputs put in (with their units), then the result in a unit chosen for the
  value, and the line that says where it comes from;
* :meth:`Equation.evaluate`: the expression's value, which ``tests/test_equations.py`` compares
  with the kernel at random valid inputs, so the equation shown cannot disagree with the code.

Why an expression string rather than SymPy: the book's form is kept as written (SymPy reorders
terms and rewrites ``2(p-1)/p`` as it likes), the printer is a page of ``ast`` code with no
import cost, and the string is evaluated by the same ``ast`` tree that is printed, so the
equation/kernel test checks exactly what the reader sees.

Allowed in an expression: the parameter names, numbers, ``+ - * / **``, unary minus,
comparisons, ``a if cond else b``, the functions in :data:`FUNCTIONS`, and ``unit("day")``: one
of a unit, in base units (86400 s), printed as 1 day, for a formula written per day or per bit. Names of other
calculators' results are not allowed: an equation is written in its own inputs (a ``where``
line may name an intermediate, see :func:`eq`).
"""
from __future__ import annotations

import ast
import functools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from fleetcalc.core.validate import ceil_count as _ceil_count

__all__ = ["Equation", "eq", "check_declaration", "NoEquation", "no_equation", "work", "WorkedStep", "symbol_latex", "FUNCTIONS", "attach", "equations_of"]

#: function name -> (numpy implementation, LaTeX template with {0}, {1} for the arguments)
FUNCTIONS = {
    "sqrt": (np.sqrt, r"\sqrt{{{0}}}"),
    "ceil": (np.ceil, r"\left\lceil {0} \right\rceil"),
    # a whole-number ceiling that forgives float noise (core.validate.ceil_count), printed as a ceiling
    "ceil_count": (lambda x: _ceil_count(x), r"\left\lceil {0} \right\rceil"),
    "floor": (np.floor, r"\left\lfloor {0} \right\rfloor"),
    "log2": (np.log2, r"\log_2\left({0}\right)"),
    "log10": (np.log10, r"\log_{{10}}\left({0}\right)"),
    "log": (np.log, r"\ln\left({0}\right)"),
    "exp": (np.exp, r"e^{{{0}}}"),
    # e^x - 1, computed without cancellation for small x (so 1 - e^{-x} can be written -expm1(-x))
    "expm1": (np.expm1, r"\left(e^{{{0}}} - 1\right)"),
    "abs": (np.abs, r"\left|{0}\right|"),
    # max(a, b, c) of several terms; max(x) and sum(x) of a list argument (printed \max_i x_i, \sum_i x_i)
    "max": (lambda *a: np.max(a[0], axis=0) if len(a) == 1 else functools.reduce(np.maximum, a), r"\max\left({args}\right)"),
    "min": (lambda *a: np.min(a[0], axis=0) if len(a) == 1 else functools.reduce(np.minimum, a), r"\min\left({args}\right)"),
    "sum": (lambda a: np.sum(a, axis=0), r"\sum_i {0}"),
}
_CONSTANTS = {"pi": (math.pi, r"\pi"), "e": (math.e, "e")}

_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
          "lambda", "lam", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi",
          "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi",
          "Omega"}


def symbol_latex(name: str) -> str:
    """The LaTeX of a parameter name: ``beta_net`` -> ``\\beta_{\\mathrm{net}}``, ``T_SM`` ->
    ``T_{\\mathrm{SM}}``, ``alpha`` -> ``\\alpha``, ``eff`` -> ``\\mathrm{eff}``."""
    head, _, tail = name.partition("_")
    if head in _GREEK:
        head = "\\lambda" if head == "lam" else "\\" + head
    elif len(head) > 1:
        head = rf"\mathrm{{{head}}}"
    if not tail:
        return head
    tail = tail.replace("_", r"\,")
    sub = tail if len(tail) == 1 else rf"\mathrm{{{tail}}}"
    return f"{head}_{{{sub}}}"


# precedence for parenthesising: higher binds tighter
_PREC = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 4}


@dataclass(frozen=True)
class Equation:
    """One declared formula: ``lhs = expr``. ``lhs`` is LaTeX; ``expr`` a Python expression over
    the calculator's parameter names in base units; ``ref`` the book's section and equation;
    ``symbols`` LaTeX for names :func:`symbol_latex` would spell differently; ``key`` the result
    entry it computes when the calculator returns several; ``where`` intermediate definitions
    ``(name, expr)`` evaluated in order before ``expr`` (each shown as its own line)."""
    lhs: str
    expr: str
    ref: str
    symbols: dict = field(default_factory=dict, hash=False, compare=False)
    key: str | None = None
    where: tuple = ()
    note: str = ""
    rel: str = "="        # the book's relation between lhs and expr: "=", "≤", "≥" or "≈"

    def check(self) -> None:
        """Parse the expression and its ``where`` lines (ValueError on what cannot be shown).
        Parsing is deferred to first use, so declaring 240 equations costs nothing at import;
        ``tests/test_equations.py`` checks every declaration."""
        for _, text in self.where:
            _parse(text)
        _parse(self.expr)

    # --- the names it uses --------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Parameter names the expression (and its ``where`` lines) read, in order of appearance."""
        local = {n for n, _ in self.where}
        seen: list[str] = []
        for text in [t for _, t in self.where] + [self.expr]:
            nodes = [n for n in ast.walk(_parse(text)) if isinstance(n, ast.Name)]
            for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
                if isinstance(node, ast.Name) and node.id not in FUNCTIONS and node.id != "unit" and node.id not in _CONSTANTS \
                        and node.id not in local and node.id not in seen:
                    seen.append(node.id)
        return seen

    @property
    def inlined(self) -> str:
        """The expression with each ``where`` name replaced by its definition (for the worked step)."""
        text = self.expr
        for name, defn in reversed(self.where):
            text = _replace_name(text, name, f"({defn})")
        for name, defn in self.where:
            text = _replace_name(text, name, f"({defn})")
        return text

    def sym(self, name: str) -> str:
        return self.symbols.get(name) or symbol_latex(name)

    # --- evaluation ---------------------------------------------------------------------
    def evaluate(self, **values):
        """The expression's value for base-unit ``values`` (the kernel's own arguments)."""
        env = {k: f for k, (f, _) in FUNCTIONS.items()}
        env["unit"] = _unit_value
        env.update({k: v for k, (v, _) in _CONSTANTS.items()})
        env.update({k: _as_base(v) for k, v in values.items()})
        for name, text in self.where:
            env[name] = eval(_compiled(text), {"__builtins__": {}}, env)  # noqa: S307 (our own declared text)
        return eval(_compiled(self.expr), {"__builtins__": {}}, env)  # noqa: S307

    # --- rendering ----------------------------------------------------------------------
    def latex(self, values: dict | None = None) -> str:
        """``lhs = expr`` in LaTeX; with ``values`` (name -> LaTeX of a value), the expression with
        the values put in instead of the symbols."""
        return f"{self.lhs} {REL_LATEX[self.rel]} {self.rhs_latex(values)}"

    def rhs_latex(self, values: dict | None = None, text: str | None = None) -> str:
        printer = _Printer(self, values)
        return printer.show(_parse(self.expr if text is None else text).body)

    def lines(self) -> list[str]:
        """The displayed lines: each ``where`` definition, then the equation."""
        out = [f"{self.sym(n)} = {self.rhs_latex(text=t)}" for n, t in self.where]
        return out + [self.latex()]

    def _repr_latex_(self):
        return "$$" + _aligned(self.lines()) + "$$"

    def _repr_markdown_(self):
        from fleetcalc.core.cite import for_reader
        return "$$" + _aligned(self.lines()) + "$$\n\n*" + for_reader(self.ref) + "*"

    def __str__(self):
        return " ; ".join(f"{n} = {t}" for n, t in self.where) + ("; " if self.where else "") + \
            f"{_plain(self.lhs)} {self.rel} {self.expr}   ({self.ref})"


#: the relations a declared equation may state, and how each prints in LaTeX
REL_LATEX = {"=": "=", "≤": r"\le", "≥": r"\ge", "≈": r"\approx"}
_REL_ALIASES = {"<=": "≤", ">=": "≥", "~": "≈", "==": "="}


def eq(lhs: str, expr: str, *, ref: str, symbols: dict | None = None, key: str | None = None,
       where: tuple | list = (), note: str = "", rel: str = "=") -> Equation:
    """Declare a calculator's formula (see the module docstring). ``rel`` is the book's relation:
    "=" (default), "≤" / "<=" (the book states a bound from above: the kernel computes the bound),
    "≥" / ">=" or "≈"."""
    rel = _REL_ALIASES.get(rel, rel)
    if rel not in REL_LATEX:
        raise ValueError(f"eq(..., rel={rel!r}): the relation must be one of {sorted(REL_LATEX)} (or <=, >=, ~)")
    return Equation(lhs, expr, ref, dict(symbols or {}), key, tuple(tuple(w) for w in where), note, rel)


@dataclass(frozen=True)
class NoEquation:
    """A calculator with no closed form to show (a simulation, a search, a table look-up), and why."""
    reason: str


def no_equation(reason: str) -> NoEquation:
    """Declare that a calculator shows no equation, and say why (the coverage test reads it)."""
    if len(reason) < 15:
        raise ValueError("no_equation needs a reason a reader can check")
    return NoEquation(reason)


_PARSED: dict[str, ast.Expression] = {}
_CODE: dict[str, object] = {}


def _parse(text: str) -> ast.Expression:
    tree = _PARSED.get(text)
    if tree is None:
        tree = ast.parse(text, mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "unit":
                if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
                    raise ValueError(f"equation {text!r}: unit(...) takes one unit name, e.g. unit(\"day\")")
                continue
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
                raise ValueError(f"equation {text!r}: only {sorted(FUNCTIONS)} and unit(\"...\") may be called")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and not _inside_unit(tree, node):
                raise ValueError(f"equation {text!r}: a string is allowed only as unit(\"...\")")
            if isinstance(node, (ast.Attribute, ast.Subscript, ast.Lambda, ast.ListComp, ast.Dict)):
                raise ValueError(f"equation {text!r}: {type(node).__name__} is not allowed")
        _PARSED[text] = tree
    return tree


def _as_base(value):
    """A list argument (stage times, bandwidths) as one array of base-unit magnitudes."""
    if isinstance(value, (list, tuple)) and value:
        from fleetcalc.core.units import Quantity
        return np.array([_base_magnitude(v) if isinstance(v, Quantity) else float(v) for v in value])
    return value


def _base_magnitude(q) -> float:
    b = q.to_base_units()
    return float(b.magnitude) / 8.0 ** dict(b.units._units).get("bit", 0)


def _inside_unit(tree, const) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "unit" and const in n.args
               for n in ast.walk(tree))


def _unit_value(name: str) -> float:
    """One ``name`` in base units: unit("day") is 86400 (s), unit("bit") is 0.125 (byte)."""
    from fleetcalc.core.base_units import base_factor
    return base_factor(name)


def _compiled(text: str):
    code = _CODE.get(text)
    if code is None:
        code = _CODE[text] = compile(_parse(text), "<equation>", "eval")
    return code


def _num_latex(x) -> str:
    if isinstance(x, bool):
        return str(x)
    if float(x) == int(x) and abs(x) < 1e6:
        return str(int(x))
    text = f"{x:.6g}"
    if "e" in text:
        mant, exp = text.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return text


class _Printer:
    """LaTeX of an expression tree, symbols or substituted values."""

    def __init__(self, equation: Equation, values: dict | None):
        self.eq = equation
        self.values = values
        self.local = {n for n, _ in equation.where}

    def atom(self, name: str) -> tuple[str, bool]:
        """(LaTeX, is_value_with_unit) for a name."""
        if self.values is not None and isinstance(self.values.get(name), list):
            return r"\left[" + ", ".join(self.values[name]) + r"\right]", False
        if self.values is not None and name in self.values:
            text = self.values[name]
            return text, ("\\," in text or "\\mathrm" in text or "\\mu" in text)
        if name in _CONSTANTS:
            return _CONSTANTS[name][1], False
        return self.eq.sym(name), False

    def show(self, node, parent_prec: int = 0, right: bool = False) -> str:
        text, prec = self._show(node)
        if prec < parent_prec or (right and prec == parent_prec and prec in (1, 2)):
            return rf"\left({text}\right)"
        return text

    def _show(self, node) -> tuple[str, int]:
        if isinstance(node, ast.Constant):
            return _num_latex(node.value), 9
        if isinstance(node, ast.Name):
            text, unit = self.atom(node.id)
            return text, (1 if unit else 9)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Call) \
                and node.operand.func.id == "expm1":
            return rf"1 - e^{{{self.show(node.operand.args[0])}}}", 1      # -expm1(x) = 1 - e^x
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return "-" + self.show(node.operand, 3), 3
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if op is ast.Add:
                return f"{self.show(node.left, 1)} + {self.show(node.right, 1)}", 1
            if op is ast.Sub:
                return f"{self.show(node.left, 1)} - {self.show(node.right, 1, right=True)}", 1
            if op is ast.Div:
                return rf"\frac{{{self.show(node.left)}}}{{{self.show(node.right)}}}", 9
            if op is ast.Mult:
                return self._product(node), 2
            if op is ast.Pow:
                if isinstance(node.right, ast.Constant) and node.right.value == 0.5:
                    return rf"\sqrt{{{self.show(node.left)}}}", 9
                base = self.show(node.left, 5)
                if not base.startswith(r"\left(") and any(t in base for t in ("^", r"\times", r"\frac", r"\,", " ")):
                    base = rf"\left({base}\right)"   # 10^9 to a power, a fraction to a power, a value with its unit
                return f"{base}^{{{self.show(node.right)}}}", 4
            if op is ast.FloorDiv:
                return rf"\left\lfloor \frac{{{self.show(node.left)}}}{{{self.show(node.right)}}} \right\rfloor", 9
            raise ValueError(f"equation {self.eq.expr!r}: operator {op.__name__} is not shown")
        if isinstance(node, ast.Call) and node.func.id == "unit":
            from fleetcalc.core.units import unit_latex
            return rf"1\,{unit_latex(node.args[0].value)}", 1
        if isinstance(node, ast.Call) and node.func.id in ("sum", "max", "min") and len(node.args) == 1:
            return self._reduction(node.func.id, node.args[0])
        if isinstance(node, ast.Call):
            args = [self.show(a) for a in node.args]
            return FUNCTIONS[node.func.id][1].format(*args, args=", ".join(args)), 9
        if isinstance(node, ast.Compare):
            ops = {ast.Lt: "<", ast.LtE: r"\le", ast.Gt: ">", ast.GtE: r"\ge", ast.Eq: "=", ast.NotEq: r"\ne"}
            parts = [self.show(node.left, 1)]
            for o, c in zip(node.ops, node.comparators):
                parts += [ops[type(o)], self.show(c, 1)]
            return " ".join(parts), 0
        if isinstance(node, ast.IfExp):
            return (rf"\begin{{cases}} {self.show(node.body)} & \text{{if }} {self.show(node.test)} \\ "
                    rf"{self.show(node.orelse)} & \text{{otherwise}} \end{{cases}}"), 9
        raise ValueError(f"equation {self.eq.expr!r}: {type(node).__name__} is not shown")

    def _reduction(self, fn: str, inner) -> tuple[str, int]:
        r"""sum(x) / max(x) over a list argument: \sum_i x_i symbolically; with values put in,
        one term per element (a + b + c, or \max(a, b, c))."""
        lists = [n.id for n in ast.walk(inner) if isinstance(n, ast.Name) and self.values is not None
                 and isinstance(self.values.get(n.id), list)]
        if not lists:
            body = self.show(inner, 9 if fn == "sum" else 0)
            return (rf"\sum_i {body}" if fn == "sum" else rf"\{fn}_i {body}"), (2 if fn == "sum" else 9)
        n = len(self.values[lists[0]])
        terms = []
        for k in range(n):
            vals = {**self.values, **{name: self.values[name][k] for name in lists}}
            terms.append(_Printer(self.eq, vals).show(inner, 1 if fn == "sum" else 0))
        if fn == "sum":
            return " + ".join(terms), 1
        return rf"\{fn}\left({', '.join(terms)}\right)", 9

    def _factors(self, node) -> list:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            return self._factors(node.left) + self._factors(node.right)
        return [node]

    def _product(self, node) -> str:
        """Factors side by side as the book writes them (2(p-1)\alpha); a centred dot before a
        number, and, with values put in, between factors that are not in brackets."""
        parts = [self.show(f, 2) for f in self._factors(node)]
        out = parts[0]
        for text in parts[1:]:
            numeric = text[:1].isdigit() or text.startswith("-")
            bracketed = text.startswith(r"\left(")
            if numeric or (self.values is not None and not bracketed):
                out += r" \cdot " + text
            else:
                out += " " + text
        return out


_REL_SPLIT = re.compile(r" (=|\\le|\\ge|\\approx) ")


def _aligned(lines: list[str]) -> str:
    """Lines ``a = b`` (or ``a \\le b``, ...) stacked on their first relation; continuation lines start with ``=``."""
    rows = []
    for line in lines:
        m = _REL_SPLIT.search(line)
        rows.append(f"{line[:m.start()]} &{m.group(1)} {line[m.end():]}" if m else f"&= {line}")
    return r"\begin{aligned} " + r" \\ ".join(rows) + r" \end{aligned}"


def _plain(latex: str) -> str:
    """A rough plain-text form of a LaTeX symbol, for terminals."""
    text = latex
    for a, b in ((r"\mathrm", ""), (r"\mathcal", ""), (r"\mathbf", ""), (r"\text", ""), ("\\,", " "), ("{", ""), ("}", ""), ("\\", "")):
        text = text.replace(a, b)
    return text


# --- the worked step -------------------------------------------------------------------

def _value_latex(value, declared_unit: str) -> tuple[str, str]:
    """(LaTeX, plain) of one input value as the caller gave it."""
    from fleetcalc.core.units import Quantity, fmt, unit_latex
    if isinstance(value, (list, tuple)) and value:
        parts = [_value_latex(v, declared_unit) for v in value]
        return [p[0] for p in parts], "[" + ", ".join(p[1] for p in parts) + "]"
    if isinstance(value, Quantity):
        mag = value.magnitude
        if np.ndim(mag):
            raise ValueError("a worked step shows one value per input; got an array")
        num = _num_latex(float(mag))
        unit = f"{value.units:~C}"
        if not unit:
            return num, num
        return rf"{num}\,{unit_latex(unit)}", f"{float(mag):g} {unit}"
    if declared_unit and value is not None and not isinstance(value, (str, bool)):
        return _value_latex(_q(value, declared_unit), declared_unit)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _num_latex(float(value)), f"{float(value):g}"
    return rf"\text{{{value}}}", str(value)


def _q(value, unit):
    from fleetcalc.core.units import Q_, human_unit
    q = Q_(value, unit)
    pretty = human_unit(q)
    return q.to(pretty) if pretty else q


@dataclass
class WorkedStep:
    """A calculator's equation with the caller's inputs put in, and the result.

    Shows as aligned maths in JupyterLab and on the site, as plain text in a terminal;
    ``result`` is the calculator's own checked result (a Quantity, or a dict of them)."""
    name: str
    equations: list
    inputs: list          # per equation: {name: LaTeX}
    plain_inputs: list    # per equation: {name: plain text}
    results: list         # per equation: the Quantity it computes
    result: object

    def _rows(self) -> list[str]:
        from fleetcalc.core.units import fmt, unit_latex
        blocks = []
        for e, vals, res in zip(self.equations, self.inputs, self.results):
            rows = [f"{e.sym(n)} &= {e.rhs_latex(text=t)}" for n, t in e.where]
            rows.append(f"{e.lhs} &{REL_LATEX[e.rel]} {e.rhs_latex()}")
            rows.append(f"&= {e.rhs_latex(vals, text=e.inlined)}")
            shown = _result_text(res)
            num, _, unit = shown.partition(" ")
            rows.append(f"&= {num.replace(',', '{,}')}" + (rf"\,{unit_latex(unit)}" if unit else ""))
            blocks.append(r"\begin{aligned} " + r" \\ ".join(rows) + r" \end{aligned}")
        return blocks

    @property
    def refs(self) -> str:
        """Where the equations come from, as a reader cites them (no seed line numbers)."""
        from fleetcalc.core.cite import for_reader
        seen = []
        for e in self.equations:
            r = for_reader(e.ref)
            if r not in seen:
                seen.append(r)
        return "; ".join(seen)

    def latex(self) -> str:
        return r" \\[4pt] ".join(self._rows())

    def _repr_markdown_(self):
        body = "\n\n".join(f"$$\n{b}\n$$" for b in self._rows())
        return f"{body}\n\n<small>Where it comes from: {self.refs} (`{self.name}`)</small>\n"

    def _repr_latex_(self):
        return "$$" + self.latex() + "$$"

    def __str__(self):
        from fleetcalc.core.units import fmt
        lines = []
        for e, vals, res in zip(self.equations, self.plain_inputs, self.results):
            for n, t in e.where:
                lines.append(f"  {n} = {t}")
            lines.append(f"  {_plain(e.lhs)} {e.rel} {_plain_units(e.expr)}")
            text = _replace_names(e.inlined, {n: f"({v})" if " " in v and not v.startswith("[") else v for n, v in vals.items()})
            lines.append(f"  {' ' * len(_plain(e.lhs))} = {_plain_units(text)}")
            lines.append(f"  {' ' * len(_plain(e.lhs))} = {_result_text(res)}")
        lines.append(f"  ({self.refs})")
        return "\n".join(lines)

    __repr__ = __str__


def _plain_units(text: str) -> str:
    """unit('day') as a reader writes it: (1 day)."""
    return re.sub(r"""unit\(['"]([^'"]+)['"]\)""", r"(1 \1)", text)


def _replace_name(text: str, name: str, value: str) -> str:
    return re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", lambda m: value, text)


def _replace_names(text: str, values: dict) -> str:
    """Every name replaced by its value in one pass (a value put in is never substituted again)."""
    if not values:
        return text
    names = sorted(values, key=len, reverse=True)
    pattern = r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")(?!\w)"
    return re.sub(pattern, lambda m: values[m.group(1)], text)


def _result_text(res) -> str:
    """The result in a unit chosen for the value, to 3 significant digits (whole numbers from 100 up)."""
    from fleetcalc.core.units import Q_, Quantity, fmt, human_unit
    q = res if isinstance(res, Quantity) else Q_(res, "")
    unit = human_unit(q) or (None if q.dimensionless else f"{q.units:~P}")
    mag = abs(float(q.to(unit).magnitude if unit else q.to("").magnitude))
    if 100 <= mag < 1e6:
        text = fmt(q, unit or "", decimals=0, grouping=True)
    else:
        u = unit or ("" if q.dimensionless else None)
        text = fmt(q, u, sig=3)
        shown = float(text.split(" ")[0].replace(",", ""))
        true = float(q.to(unit).magnitude if unit else q.to("").magnitude)
        for sig in (4, 5, 6):   # a value that rounds to a whole number it is not (0.9998 -> "1") keeps its digits
            if shown != int(shown) or abs(true - shown) <= 1e-9 * max(1.0, abs(true)):
                break
            text = fmt(q, u, sig=sig)
            shown = float(text.split(" ")[0].replace(",", ""))
    return text[:-3] + " µs" if text.endswith(" us") else text


def equations_of(calc) -> list[Equation]:
    """The equations a calculator declares (empty when it declares none)."""
    e = getattr(calc, "equation", None)
    if e is None or isinstance(e, NoEquation):
        return []
    if isinstance(e, Equation):
        return [e]
    return list(e)


def work(calc, *args, **kwargs) -> WorkedStep:
    """The worked step of ``calc`` at these inputs (``calc.work(...)`` is the same)."""
    from fleetcalc.core.base_units import kernel_result
    eqs = equations_of(calc)
    if not eqs:
        raise TypeError(f"{calc.__name__} declares no equation; it cannot show a worked step")
    result = calc(*args, **kwargs)
    bound = calc.__signature__.bind(*args, **kwargs)
    bound.apply_defaults()
    base = calc.bind(*args, **kwargs)
    for e in eqs:
        extra = [n for n, v in base.items() if v is not None and n not in e.names
                 and calc.defaults.get(n, 0) is None]
        if extra:
            raise ValueError(f"{calc.__name__}: the worked step shows {e.ref} without {', '.join(extra)}; "
                             f"leave {', '.join(extra)} out to show it")
    inputs, plain, results = [], [], []
    for e in eqs:
        vals, pl = {}, {}
        for n in e.names:
            latex, text = _value_latex(bound.arguments[n], _shown_unit(calc, n, bound.arguments[n]))
            vals[n], pl[n] = latex, text
        inputs.append(vals)
        plain.append(pl)
        if e.key is None:
            results.append(result if not isinstance(result, dict) else kernel_result(calc, e.evaluate(**base)))
        else:
            results.append(result[e.key])
    return WorkedStep(calc.__name__, eqs, inputs, plain, results, result)


def check_declaration(calc) -> None:
    """Each equation of ``calc`` parses and names only the calculator's own parameters (TypeError
    or ValueError naming it otherwise). Run by the tests for every calculator, not at import."""
    for e in equations_of(calc):
        e.check()
        unknown = [n for n in e.names if n not in calc.params]
        if unknown:
            raise TypeError(f"{calc.__name__}: equation {e.expr!r} names {unknown}, which are not its parameters")


def _with_key(e: Equation, key: str) -> Equation:
    return Equation(e.lhs, e.expr, e.ref, e.symbols, key, e.where, e.note, e.rel)


def _shown_unit(calc, name, value) -> str:
    """The unit a value that is not a Quantity (a default, in the kernel's base unit) is shown in."""
    p = calc.params[name]
    return p.kernel_unit if p.kind == "quantity" else ""


def attach(calc, equation) -> None:
    """Give a declared calculator its equation(s) and its ``work`` method."""
    if isinstance(equation, NoEquation):
        calc.equation = equation
        return
    if isinstance(equation, dict):
        equation = [e if e.key == k else _with_key(e, k) for k, e in equation.items()]
    eqs = [equation] if isinstance(equation, Equation) else list(equation)
    for e in eqs:
        if not isinstance(e, Equation):
            raise TypeError(f"{calc.__name__}: equation must be eq(...) or a list of them; got {e!r}")
    calc.equation = eqs[0] if len(eqs) == 1 else tuple(eqs)
    calc.work = lambda *args, **kwargs: work(calc, *args, **kwargs)
