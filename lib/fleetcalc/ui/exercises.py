"""Exercises: the answer key an instructor holds, and the sealed self-check a student runs.

Two registries, never mixed up:

* **The key** (:class:`Exercise`, :func:`register`). Each solution notebook holds a cell tagged
  ``answer-key`` that registers its exercises: the inputs (the book's numbers), per graded part an
  :class:`Answer` whose ``compute`` derives the answer from the inputs with lib calls (never a
  stored literal), its unit, tolerance and hint, the ranges for seeded variants, and the rubric of
  each written answer. Solution notebooks, ``workbook grade`` and ``workbook variants`` run those
  cells; nothing in this package does, so a student's kernel never holds the key.
* **The card** (:func:`publish`). A student notebook gets, in place of the key cell, a ``publish``
  call with the inputs and, per part, its unit, tolerance, hint and a *seal*: salted PBKDF2 digests
  of the tolerance bucket the answer falls in. ``check`` recomputes the digest of the student's
  bucket and compares, so it can say right or wrong without the answer being on the page.
  A seal is a commitment, not a vault (a determined student can search buckets by brute force); the
  grade comes from ``workbook grade``, which judges the student's variables with its own key.

    check("28.9", "beta_cluster", beta_cluster)

prints whether the answer is right within the part's tolerance and, if not, what to revisit.
An unanswered ``...`` (or ``None``) prints "not answered yet" and never raises, so a fresh
exercise notebook executes cleanly. :func:`answer_first` keeps an exercise's panel closed until
every part of that exercise has passed its check, or the student asks to see it.
"""
from __future__ import annotations

import functools
import hashlib
import contextlib
import contextvars
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import pint

from fleetcalc.core.units import Quantity, fmt
from fleetcalc.ui import units_feedback

__all__ = ["Answer", "Exercise", "WorkedAnswer", "show_work", "register", "exercise", "check", "grade", "judge", "all_exercises", "Session", "session", "current",
           "Result", "publish", "part", "answer_first", "seal", "sealed_panel", "cards_loaded"]


# ----------------------------------------------------------------------------- the key

@dataclass
class Answer:
    compute: Callable[..., Any]
    unit: str = ""          # the unit the student answers in ("" for a pure number)
    rel: float = 1e-3       # relative tolerance
    abs: float = 0.0        # absolute tolerance (in ``unit``)
    hint: str = ""          # what to revisit when the answer is wrong
    label: str = ""
    points: float = 1.0


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
        parts = ", ".join(f"{k}" + (f" [{a.unit}]" if a.unit else "") for k, a in self.answers.items())
        return (f"Exercise {self.id}: {self.title} ({self.source})\n  inputs: {_show_inputs(self.inputs)}\n"
                f"  answer variables: {parts}")

    def expected(self, part: str, **overrides):
        ans = self.answers[part]
        args = {**self.inputs, **overrides}
        params = inspect.signature(ans.compute).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            args = {k: v for k, v in args.items() if k in params}
        return ans.compute(**args)


    def worked(self, part: str, **overrides) -> "WorkedAnswer":
        """The worked steps of one graded part: every declared calculator its key called, with
        the inputs put in, then the expected answer (for the solutions, never a student's notebook)."""
        from fleetcalc.core.calculator import record_calls
        from fleetcalc.core.equation import equations_of, work

        with record_calls() as calls:
            value = self.expected(part, **overrides)
        steps, seen = [], set()
        for calc, args, kwargs in calls:
            key = (calc.__name__, repr(args), repr(sorted(kwargs.items())))
            if key in seen or not equations_of(calc):
                continue
            seen.add(key)
            try:
                steps.append(work(calc, *args, **kwargs))
            except (TypeError, ValueError):
                continue   # an input the worked step cannot show (an array, an optional term)
        return WorkedAnswer(self.id, part, self.answers[part], steps, value)


@dataclass
class WorkedAnswer:
    """One graded part of a solution, its reasoning shown: the worked steps, then the answer."""
    ex_id: str
    part: str
    answer: Answer
    steps: list
    value: Any

    def _value_text(self) -> str:
        v = self.value
        if isinstance(v, Quantity):
            return fmt(v, self.answer.unit or None, sig=4) if self.answer.unit or not v.dimensionless else fmt(v.to(""), None, sig=4)
        return fmt(v, None, sig=4) if isinstance(v, (int, float)) else str(v)

    def _repr_markdown_(self):
        head = f"**Exercise {self.ex_id}, `{self.part}`**" + (f" ({self.answer.label})" if self.answer.label else "")
        body = "\n\n".join(s._repr_markdown_() for s in self.steps) or \
            "*No declared equation is called by this part: it is arithmetic on the inputs.*"
        return f"{head}\n\n{body}\n\n**Answer:** `{self.part}` = {self._value_text()}\n"

    def __str__(self):
        steps = "\n".join(str(s) for s in self.steps)
        return f"Exercise {self.ex_id}, {self.part}:\n{steps}\n  answer: {self.part} = {self._value_text()}"

    __repr__ = __str__


def show_work(ex_id: str) -> None:
    """Display the worked steps of every graded part of a registered exercise (solutions only)."""
    from IPython.display import display

    ex = current().key.get(ex_id)
    if ex is None:
        raise KeyError(f"no exercise {ex_id!r} in the key; run the key cell first")
    for part in ex.answers:
        display(ex.worked(part))


def _show_inputs(inputs: dict) -> str:
    def show(v):
        return fmt(v, sig=6) if isinstance(v, (Quantity, float)) else str(v)
    return ", ".join(f"{k} = {show(v)}" for k, v in inputs.items())


class Session:
    """What one notebook's kernel (or one test, or one tool run) knows about its exercises: the key
    its answer-key cells registered, the cards its student card cell published, which parts have
    passed, the sealed panels and what opens each when its exercise passes.

    Nothing of it is module state. A kernel's session hangs on its IPython shell (so two kernels
    never see each other's); ``with session():`` makes a fresh one for a block (a test, a tool, a
    harness running several notebooks in one process, one notebook at a time)."""

    def __init__(self):
        self.key: dict[str, Exercise] = {}
        self.cards: dict[str, "Card"] = {}
        self.passed: dict[str, set] = {}
        self.panels: dict[str, str] = {}      # panel key -> its sealed source (a student's card cell)
        self.on_pass: dict[str, dict] = {}    # exercise id -> {panel key: what to do when every part has passed}


_ACTIVE: "contextvars.ContextVar[Session]" = contextvars.ContextVar("fleetcalc_exercise_session")
_SHELL_ATTR = "fleetcalc_exercise_session"


def current() -> Session:
    """The session the calls of this context work on: the one :func:`session` opened, else the
    running IPython kernel's (made on first use), else one made for this context."""
    s = _ACTIVE.get(None)
    if s is not None:
        return s
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:   # pragma: no cover - IPython comes with the notebook extra
        shell = None
    if shell is not None:
        s = getattr(shell, _SHELL_ATTR, None)
        if s is None:
            s = Session()
            setattr(shell, _SHELL_ATTR, s)
        return s
    s = Session()
    _ACTIVE.set(s)
    return s


@contextlib.contextmanager
def session(s: Session | None = None):
    """``with session() as s:`` the block works on a fresh session (or ``s``), then the one before."""
    s = Session() if s is None else s
    token = _ACTIVE.set(s)
    try:
        yield s
    finally:
        _ACTIVE.reset(token)


def register(ex: Exercise) -> Exercise:
    """Add ``ex`` to the session's key (rerunning a key cell replaces its exercises)."""
    current().key[ex.id] = ex
    return ex


def all_exercises() -> dict[str, Exercise]:
    """The exercises whose key cells ran in this session (none in a student's kernel)."""
    return dict(current().key)


@contextlib.contextmanager
def collecting():
    """``with collecting() as found:`` the exercises registered inside the block, in order.

    The block runs in a session of its own, so a key cell sees no other notebook's exercises; what
    it registered is added to the session around it afterwards (the tools run one solution's key
    cell at a time this way)."""
    outer = current()
    found: dict[str, Exercise] = {}
    with session() as inner:
        try:
            yield found
        finally:
            found.update(inner.key)
    outer.key.update(found)


# ----------------------------------------------------------------------------- judging

@dataclass
class Result:
    status: str  # "correct" | "wrong" | "unanswered" | "wrong-units"
    message: str

    def __bool__(self):
        return self.status == "correct"

    def __repr__(self):  # the cell shows the printed line; keep the repr quiet and stable
        return f"<check: {self.status}>"


def magnitude_in(value, unit: str) -> float:
    """An answer as a plain number in ``unit`` (a Quantity converted; a plain number taken as given)."""
    if isinstance(value, Quantity):
        return float(value.to(unit or "dimensionless").magnitude)
    if isinstance(value, bool):
        raise TypeError("a truth value is not a number")
    return float(value)


def _unanswered(value) -> bool:
    return value is ... or value is None


def _read(ex_id, label, answer, unit):
    """(number in ``unit``, None) or (None, Result) for an answer that is not a finite number."""
    unit_note = f" (in {unit})" if unit else ""
    if _unanswered(answer):
        return None, Result("unanswered", f"… Exercise {ex_id}, {label}: not answered yet: replace ... with "
                                          f"your answer{unit_note}.")
    try:
        got = magnitude_in(answer, unit)
    except pint.DimensionalityError:
        return None, Result("wrong-units", f"✗ Exercise {ex_id}, {label}: {answer:~P} is not right: "
                                           + units_feedback.wrong_dimension_note(answer, unit))
    except (pint.errors.UndefinedUnitError, TypeError, ValueError, AttributeError):
        shown = f"{answer:~P}" if isinstance(answer, Quantity) else type(answer).__name__
        return None, Result("wrong-units", f"✗ Exercise {ex_id}, {label}: {shown} is not a number{unit_note}; "
                                           "give a number or a quantity with units, e.g. Q_(2.5, \"GB/s\").")
    if not math.isfinite(got):
        return None, Result("wrong", f"✗ Exercise {ex_id}, {label}: the answer is not a finite number.")
    return got, None


def _confused(ex_id: str, label: str, shown: str, unit: str, ok) -> "Result | None":
    """A Result naming the unit confusion under which the student's number would be right (``ok(number)``)."""
    for c in units_feedback.confusions(unit):
        if ok(c):
            return Result("unit-confusion", f"✗ Exercise {ex_id}, {label} = {shown} is not right. "
                                            + units_feedback.confusion_note(c))
    return None


BOOK_NOTE = ("it matches the answer for the book's inputs, not your variant's: use the inputs of your exercise "
             "card (the cell above your answer binds them), not the numbers printed in the book.")


def judge(ex_id: str, label: str, answer, want: float, unit: str = "", rel: float = 1e-3, abs: float = 0.0,
          hint: str = "", book: float | None = None) -> Result:
    """Compare ``answer`` with the number ``want`` (in ``unit``) within max(abs, rel*|want|).

    A wrong answer that is right under a common unit confusion (GB/GiB, Gb/GB, %/fraction, per
    direction/both ways) gets status ``unit-confusion`` and a note naming it; with ``book`` (the
    answer for the book's inputs, when ``want`` is a variant's), one that matches the book's answer
    gets status ``book-inputs``.
    """
    got, bad = _read(ex_id, label, answer, unit)
    if bad is not None:
        return bad
    shown = fmt(got, sig=6) + (f" {unit}" if unit else "")
    if units_feedback.matches(got, want, rel, abs):
        return Result("correct", f"✓ Exercise {ex_id}, {label} = {shown}: correct.")
    if book is not None and units_feedback.matches(got, book, rel, abs):
        return Result("book-inputs", f"✗ Exercise {ex_id}, {label} = {shown} is not right for your variant: {BOOK_NOTE}")
    confused = _confused(ex_id, label, shown, unit, lambda c: units_feedback.matches(got / c.factor, want, rel, abs))
    if confused is not None:
        return confused
    direction = "too large" if got > want else "too small"
    revisit = f" Revisit: {hint}" if hint else ""
    return Result("wrong", f"✗ Exercise {ex_id}, {label} = {shown} is {direction}.{revisit}")


def grade(ex_id: str, part: str, answer, inputs: dict | None = None) -> Result:
    """Grade ``answer`` to ``part`` against the key (``inputs`` overrides some inputs: a variant)."""
    key = current().key
    ex = key.get(ex_id)
    if ex is None:
        raise KeyError(f"no exercise {ex_id!r} in the key; known: {sorted(key)}")
    if part not in ex.answers:
        raise KeyError(f"exercise {ex_id} has no part {part!r}; parts: {list(ex.answers)}")
    spec = ex.answers[part]
    label = (spec.label or part) + (" (your variant)" if inputs else "")
    if _unanswered(answer):
        return _read(ex_id, label, answer, spec.unit)[1]
    want = magnitude_in(ex.expected(part, **(inputs or {})), spec.unit)
    book = magnitude_in(ex.expected(part), spec.unit) if inputs else None
    return judge(ex_id, label, answer, want, spec.unit, spec.rel, spec.abs, spec.hint, book=book)


# ----------------------------------------------------------------------------- the card and its seals

ITERATIONS = 20_000   # PBKDF2 rounds per digest: a check costs milliseconds, a bucket search much more


def _buckets(x: float, rel: float, abs_: float) -> list[str]:
    """Names of the tolerance buckets around ``x`` (the bucket of x and its neighbours)."""
    if rel == 0 and abs_ == 0:
        return [f"x{x:.12g}"]
    names = []
    if rel > 0:
        if x == 0:
            names.append("r0")
        else:
            k = math.floor(math.log(math.fabs(x)) / math.log1p(rel))
            s = "+" if x > 0 else "-"
            names += [f"r{s}{k + d}" for d in (-1, 0, 1)]
    if abs_ > 0:
        k = math.floor(x / abs_)
        names += [f"a{k + d}" for d in (-1, 0, 1)]
    return names


@functools.lru_cache(maxsize=4096)
def _digest(bucket: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", bucket.encode(), salt.encode(), ITERATIONS).hex()[:24]


def seal(want: float, rel: float, abs_: float, salt: str) -> list[str]:
    """The digests a student notebook carries for a part: only the answer's own bucket(s)."""
    if rel == 0 and abs_ == 0:
        return [_digest(f"x{want:.12g}", salt)]
    own = []
    if rel > 0:
        if want == 0:
            own.append("r0")
        else:
            k = math.floor(math.log(math.fabs(want)) / math.log1p(rel))
            own.append(f"r{'+' if want > 0 else '-'}{k}")
    if abs_ > 0:
        own.append(f"a{math.floor(want / abs_)}")
    return [_digest(b, salt) for b in own]


@dataclass
class Part:
    unit: str = ""
    rel: float = 1e-3
    abs: float = 0.0
    hint: str = ""
    label: str = ""
    seal: tuple = ()
    book: tuple = ()     # a variant's card: the seal of the answer for the book's inputs


def part(unit: str = "", *, rel: float = 1e-3, abs: float = 0.0, hint: str = "", label: str = "",
         seal: tuple | list = (), book: tuple | list = ()) -> Part:
    return Part(unit, rel, abs, hint, label, tuple(seal), tuple(book))


def _in_seal(x: float, p: Part, salt: str, digests) -> bool:
    return any(_digest(b, salt) in digests for b in _buckets(x, p.rel, p.abs))


@dataclass
class Card:
    id: str
    title: str
    inputs: dict
    parts: dict[str, Part]
    salt: str

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}" + (f" [{p.unit}]" if p.unit else "") for k, p in self.parts.items())
        return f"Exercise {self.id}: {self.title}\n  inputs: {_show_inputs(self.inputs)}\n  answer variables: {parts}"

    def _salt(self, name: str) -> str:
        return f"{self.salt}/{self.id}/{name}"

    def check(self, name: str, answer) -> Result:
        p = self.parts[name]
        label = p.label or name
        got, bad = _read(self.id, label, answer, p.unit)
        if bad is not None:
            return bad
        salt = self._salt(name)
        shown = f"{fmt(got, sig=6)}{' ' + p.unit if p.unit else ''}"
        if _in_seal(got, p, salt, p.seal):
            return Result("correct", f"✓ Exercise {self.id}, {label} = {shown}: correct (it matches the sealed answer).")
        if p.book and _in_seal(got, p, salt, p.book):
            return Result("book-inputs", f"✗ Exercise {self.id}, {label} = {shown} is not right for your variant: {BOOK_NOTE}")
        confused = _confused(self.id, label, shown, p.unit, lambda c: _in_seal(got / c.factor, p, salt, p.seal))
        if confused is not None:
            return confused
        # no "too large / too small": a direction would let a student binary-search the answer
        revisit = f" Revisit: {p.hint}" if p.hint else ""
        return Result("wrong", f"✗ Exercise {self.id}, {label} = {shown} is not right.{revisit}")

    def reveals(self, value) -> bool:
        """Whether ``value`` (a panel readout) would show one of this exercise's graded answers."""
        for name, p in self.parts.items():
            try:
                x = magnitude_in(value, p.unit)
            except Exception:
                continue
            if isinstance(x, float) and math.isfinite(x) and _in_seal(x, p, self._salt(name), p.seal):
                return True
        return False


def publish(ex_id: str, title: str = "", *, inputs: dict, parts: dict, salt: str = "") -> Card:
    """Register the student's card for ``ex_id`` (what a student notebook runs instead of the key)."""
    card = Card(ex_id, title, dict(inputs), dict(parts), salt)
    s = current()
    s.cards[ex_id] = card
    s.passed.pop(ex_id, None)
    return card


def sealed_panel(key: str, code: str) -> None:
    """Keep a panel's sealed source under ``key`` (``"28.9"``, ``"28.9#2"``) for :func:`answer_first`."""
    current().panels[key] = code


def cards_loaded() -> None:
    """The one line a student's (collapsed) card cell prints."""
    ids = ", ".join(current().cards) or "none"
    print(f"Exercise cards loaded: {ids}. Each exercise's inputs are in the cell that opens it "
          "(and in exercise(\"<id>\").inputs); its self-checks are sealed (this cell stays collapsed).")


def exercise(ex_id: str):
    """The exercise's card (student notebook) or its key entry (solution notebook): ``.inputs``."""
    s = current()
    if ex_id in s.cards:
        return s.cards[ex_id]
    if ex_id in s.key:
        return s.key[ex_id]
    raise KeyError(f"no exercise {ex_id!r}; run the notebook's cells from the top (known: "
                   f"{sorted(set(s.cards) | set(s.key))})")


def check(ex_id: str, part: str, answer, inputs: dict | None = None) -> None:
    """Print whether ``answer`` to ``part`` of exercise ``ex_id`` is right (never raises on ...)."""
    s = current()
    if ex_id in s.cards and inputs is None:
        card = s.cards[ex_id]
        if part not in card.parts:
            raise KeyError(f"exercise {ex_id} has no part {part!r}; parts: {list(card.parts)}")
        before = passed(ex_id)
        res = card.check(part, answer)
        done = s.passed.setdefault(ex_id, set())
        (done.add if res else done.discard)(part)
        print(res.message)
        if passed(ex_id) and not before:
            for opener in list(s.on_pass.get(ex_id, {}).values()):
                opener()
        return
    res = grade(ex_id, part, answer, inputs=inputs)
    print(res.message)


def passed(ex_id: str) -> bool:
    """Whether every graded part of ``ex_id`` has passed its check in this kernel."""
    s = current()
    card = s.cards.get(ex_id)
    return bool(card and card.parts) and s.passed.get(ex_id, set()) >= set(card.parts)


HIDDEN = "hidden until your answers pass"


def _masked_table(table, card: Card, ex_id: str):
    """A Panel._table_html that hides each readout showing a graded answer of ``card`` until ``ex_id`` passes."""
    def masked(panel, results):
        if passed(ex_id):
            return table(panel, results)
        return table(panel, {k: (HIDDEN if not isinstance(v, str) and card.reveals(v) else v)
                             for k, v in results.items()})
    return masked


def answer_first(key: str | None, code: str | None = None, prompt: str = "") -> None:
    """An exercise's panel that teaches without telling.

    ``key`` names the exercise (``"28.9"``, or ``"28.9#2"`` for its second panel) and the sealed
    source its card cell stored (:func:`sealed_panel`; or ``code``: zlib-compressed, hex-encoded).
    Before every part of the exercise passes its check, the panel opens on a click, at the
    exercise's own inputs, with every readout that would show a graded answer hidden (moving a
    slider to other inputs shows theirs). When the parts pass, it opens by itself (or, if open,
    shows every readout). The panel runs in a copy of the notebook's namespace overlaid with the
    exercise's inputs: it never changes the student's variables. The saved notebook holds only what
    was on screen.
    """
    import ast
    import binascii
    import zlib

    import ipywidgets as widgets
    from IPython import get_ipython
    from IPython.display import display

    ex_id = (key or "").split("#")[0] or None
    sess = current()                     # the panel, its opener and its card live in this kernel's session
    code = code if code is not None else sess.panels.get(key or "")
    if code is None:
        raise KeyError(f"no sealed panel {key!r}: run the notebook's cells from the top")
    source = zlib.decompress(binascii.unhexlify(code)).decode("utf-8")
    out = widgets.Output()
    opened, panels = [], []

    def open_panel(_=None):
        if opened:
            return
        opened.append(True)
        from fleetcalc.ui.widgets import collect_panels

        box.children = (note, out)
        shell = get_ipython()
        ns: dict = {}
        exec("from fleetcalc.notebook import *", ns)    # what every notebook's setup cell imports
        if shell is not None:
            ns.update(shell.user_ns)
        card = sess.cards.get(ex_id) if ex_id else None
        if card is not None:
            ns.update(card.inputs)
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        from fleetcalc.ui.widgets import Panel

        table = Panel._table_html
        with out, collect_panels() as made:
            if card is not None:   # masked from the panel's first update on: no answer ever reaches the page
                Panel._table_html = _masked_table(table, card, ex_id)
            try:
                exec(compile(tree, "<panel>", "exec"), ns)
                value = eval(compile(ast.Expression(last.value), "<panel>", "eval"), ns) if last is not None else None
            finally:
                Panel._table_html = table
            if card is not None:
                for p in made:
                    p._table_html = _masked_table(table, card, ex_id).__get__(p)
            panels.extend(made)
            if value is not None:
                display(value)
        refresh()

    question = f"<b>Predict first:</b> {prompt}<br>" if prompt else ""

    def refresh():
        if ex_id and passed(ex_id):
            text = f"✓ Every part of Exercise {ex_id} passes: the panel shows every readout."
        elif ex_id and opened:
            text = (f"<i>The readouts that would give away Exercise {ex_id}'s answers are hidden until every part "
                    "passes its check; move the sliders to other inputs to explore.</i>")
        elif ex_id:
            text = (f"<i>Answer first: this panel opens by itself once every part of Exercise {ex_id} passes its "
                    "check; or open it now, with the readouts that would give away the answers hidden.</i>")
        else:
            text = "<i>Write your answer first, then open the panel.</i>"
        note.value = question + text

    def on_pass():
        if not opened:
            open_panel()
        else:
            for p in panels:       # the readouts come back
                p.update()
            refresh()

    note = widgets.HTML()
    button = widgets.Button(description="Open the panel", button_style="",
                            tooltip="the readouts that would give away the answers stay hidden until your answers pass")
    button.on_click(open_panel)
    box = widgets.VBox([note, button])
    refresh()
    if ex_id:
        sess.on_pass.setdefault(ex_id, {})[key] = on_pass     # a re-run panel cell replaces its opener
    if ex_id and passed(ex_id):
        open_panel()
    display(box)

