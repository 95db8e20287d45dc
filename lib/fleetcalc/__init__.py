"""fleetcalc: the calculators behind the ML-systems-at-scale course workbook.

One module per physical topic (roofline, collectives, storage, ...); every formula lives here
once, states its equation and source, carries units (pint) and validates its inputs.
Heavy modules load on first use, so ``import fleetcalc`` stays fast: the names below (``Q_``,
``ureg``, ``fmt``, ``book_says``, ``hw``, ...) import their module, and with it pint's unit
registry, the first time they are looked up (``from fleetcalc import Q_`` works as always).
"""
__version__ = "0.1.0"  # the single source of the version (pyproject reads it from here)

# name -> the module that defines it; imported on first access (PEP 562)
_LAZY = {"Q_": "fleetcalc.core.units", "ureg": "fleetcalc.core.units", "fmt": "fleetcalc.core.units",
         "book_says": "fleetcalc.core.book", "assume": "fleetcalc.core.book",
         "hw": "fleetcalc.core.catalog", "entry": "fleetcalc.core.catalog"}

__all__ = ["Q_", "ureg", "fmt", "book_says", "assume", "hw", "entry", "__version__"]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'fleetcalc' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
