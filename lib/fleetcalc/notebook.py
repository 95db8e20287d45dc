"""The one facade a notebook imports: ``from fleetcalc.notebook import *``.

It gives a notebook everything it uses by name: units and formatting, the hardware catalog,
the ledger's ``book_says``, every physics topic module (``roofline``, ``links``, ``fabric``, ...),
the panel builder and the exercise checks. Figures come from ``fleetcalc.ui.plots`` and
``fleetcalc.ui.diagrams``, which a figure's cell imports by name.

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
from fleetcalc.ui.widgets import knob, panel

# every physics topic module by its own name: roofline, links, fabric, ...
PHYSICS = sorted(m.name for m in pkgutil.iter_modules(fleetcalc.physics.__path__) if not m.name.startswith("_"))
globals().update({name: importlib.import_module(f"fleetcalc.physics.{name}") for name in PHYSICS})

__all__ = ["np", "Q_", "ureg", "fmt", "InputError", "hw", "entry", "entries", "children", "vendor_table", "notation", "book_says", "assume",
           "vendor_note", "panel", "knob", "show", "check", "exercise", "publish", "part", "answer_first",
           "Answer", "Exercise", "register", "show_work", "quiz", "question", "our_job", *PHYSICS]

print(f"fleetcalc {__version__}: every printed number below is recomputed and checked against the book")
