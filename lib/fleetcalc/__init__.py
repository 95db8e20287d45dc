"""fleetcalc: the calculators behind the ML-systems-at-scale course workbook.

One module per physical topic (roofline, collectives, storage, ...); every formula lives here
once, states its equation and source, carries units (pint) and validates its inputs.
Heavy modules (matplotlib) load lazily, so ``import fleetcalc`` stays fast.
"""
__version__ = "0.1.0"  # the single source of the version (pyproject reads it from here)

from fleetcalc.core.units import Q_, ureg, fmt  # noqa: E402
from fleetcalc.core.book import book_says, assume  # noqa: E402
from fleetcalc.core.catalog import hw, entry  # noqa: E402

__all__ = ["Q_", "ureg", "fmt", "book_says", "assume", "hw", "entry", "__version__"]
