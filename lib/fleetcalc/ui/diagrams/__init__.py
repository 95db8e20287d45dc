"""Conceptual diagrams drawn by code from the library and the catalog, one module per topic.

A diagram takes its numbers from the calculators and the catalog, so it cannot disagree with
the worked examples beside it. Each diagram function returns a ``matplotlib.figure.Figure``;
in a notebook show it with :func:`show` (a PNG the static site keeps), in a cell tagged
``diagram``. Shared drawing primitives live in :mod:`fleetcalc.ui.diagrams.draw`.
"""
from fleetcalc.ui.diagrams.draw import show

__all__ = ["show"]
