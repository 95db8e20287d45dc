"""What every notebook's first cell imports: ``from fleetcalc.notebook import *``.

It prints the library version, so a notebook executed with another version of the library
shows it (and nbval fails on the changed line) instead of drifting silently.
"""
import numpy as np

from . import __version__, roofline
from .book import assume, book_says, vendor_note
from .catalog import entry, hw
from .exercises import answer_first, check, exercise, part, publish
from .units import Q_, fmt, ureg
from .widgets import knob, panel

__all__ = ["np", "Q_", "ureg", "fmt", "hw", "entry", "book_says", "assume", "panel", "knob",
           "check", "exercise", "publish", "part", "answer_first", "roofline", "vendor_note"]

print(f"fleetcalc {__version__}: every printed number below is recomputed and checked against the book")
