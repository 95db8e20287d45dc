"""The one facade a notebook imports: ``from fleetcalc.notebook import *``.

It gives a notebook everything it uses by name: units and formatting, the hardware catalog,
the ledger's ``book_says``, every physics topic module (``roofline``, ``links``, ``fabric``, ...),
the panel builder and the exercise checks. Figures come from ``fleetcalc.ui.plots`` and
``fleetcalc.ui.diagrams``, which a figure's cell imports by name.

The first cell is kept light (issue: the first cell under 0.3 s): the panel builder, which needs
ipywidgets (0.2 s to import), is imported by the first call of ``panel`` or ``knob``, not by the
facade; everything else a notebook names is imported here.

It prints the library version, so a notebook executed with another version of the library
shows it (and nbval fails on the changed line) instead of drifting silently.
"""
import importlib
import pkgutil

import numpy as np

import fleetcalc.physics

from fleetcalc import __version__
from fleetcalc.core.book import assume, book_says, vendor_note
from fleetcalc.core import notation
from fleetcalc.core.catalog import children, entries, entry, hw, vendor_table
from fleetcalc.core.units import Q_, fmt, ureg
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams import show
from fleetcalc.ui.exercises import Answer, Exercise, answer_first, check, exercise, part, publish, register, show_work
from fleetcalc.core.job import our_job
from fleetcalc.ui.quiz import question, quiz


class _Deferred:
    """A function of a heavy module, imported on first use; its help and signature are the real ones."""

    def __init__(self, module: str, name: str):
        self._module, self._name, self._target = module, name, None

    def _load(self):
        if self._target is None:
            self._target = getattr(importlib.import_module(self._module), self._name)
        return self._target

    def __call__(self, *args, **kwargs):
        return self._load()(*args, **kwargs)

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        return getattr(self._load(), key)

    @property
    def __doc__(self):
        return self._load().__doc__

    @property
    def __signature__(self):
        import inspect  # noqa: PLC0415
        return inspect.signature(self._load())

    @property
    def __wrapped__(self):
        return self._load()

    def __repr__(self):
        return f"<function {self._module}.{self._name}>"


panel = _Deferred("fleetcalc.ui.widgets", "panel")
knob = _Deferred("fleetcalc.ui.widgets", "knob")

# every physics topic module by its own name: roofline, links, fabric, ...
PHYSICS = sorted(m.name for m in pkgutil.iter_modules(fleetcalc.physics.__path__) if not m.name.startswith("_"))
globals().update({name: importlib.import_module(f"fleetcalc.physics.{name}") for name in PHYSICS})

__all__ = ["np", "Q_", "ureg", "fmt", "InputError", "hw", "entry", "entries", "children", "vendor_table", "notation", "book_says", "assume",
           "vendor_note", "panel", "knob", "show", "check", "exercise", "publish", "part", "answer_first",
           "Answer", "Exercise", "register", "show_work", "quiz", "question", "our_job", *PHYSICS]

print(f"fleetcalc {__version__}: every printed number below is recomputed and checked against the book")
