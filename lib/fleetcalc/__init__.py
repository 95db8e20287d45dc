"""fleetcalc: the calculators behind the ML-systems-at-scale course workbook.

One module per physical topic (roofline, collectives, storage, ...); every formula lives here
once, states its equation and source, carries units (pint) and validates its inputs.
Heavy modules (matplotlib) load lazily, so ``import fleetcalc`` stays fast.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("fleetcalc")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"

from .units import Q_, ureg, fmt  # noqa: E402
from .book import book_says, assume  # noqa: E402
from .catalog import hw, entry  # noqa: E402

__all__ = ["Q_", "ureg", "fmt", "book_says", "assume", "hw", "entry", "__version__"]
