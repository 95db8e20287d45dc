"""One unit registry for the whole workbook, and the formatter every number goes through.

Units are carried, not remembered: a calculator handed GB/s where it expects seconds fails
loudly, and GB (10^9 byte) and GiB (2^30 byte), Gb/s and GB/s, never mix silently
(Ch. 28 §28.1 warns about exactly these).

Extra units on top of pint's defaults:

==========  ==============  =====================================================
unit        dimension       why
==========  ==============  =====================================================
FLOP        [computation]   floating-point operations (one multiply + one add = 2)
token       [token]         tokens processed or generated
request     [request]       I/O or serving requests (IOPS = request/s)
param       [parameter]     model parameters
batch       [batch]         batches in a data pipeline (r_b in batch/s)
device      [device]        accelerators, for device-hours and per-device rates
cu          [currency]      the book's abstract "currency unit" (货币单位)
==========  ==============  =====================================================

``byte``/``B`` with decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB) prefixes, and
``bit``/``b`` (so ``Gb/s`` is gigabit per second) carry the dimension [information]: a bandwidth
cannot be mistaken for a frequency, nor a bare number for a byte count.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pint

__all__ = ["ureg", "Q_", "Quantity", "fmt", "human_unit", "unit_latex", "as_quantity", "parse_printed", "FormatError"]

def _definitions_file() -> str:
    """pint's default definitions with information given a dimension of its own.

    Stock pint defines ``bit = []`` (dimensionless), so 2 GB/s would convert to 2e9 Hz and a bare
    number would pass for bytes; it also reads "Gb" as gigagilbert and "b" as barn. We patch a copy:
    ``bit = [information] = b`` (so "Gb/s" is gigabit per second, as the books write it).
    """
    import hashlib
    import os
    import tempfile
    from pathlib import Path

    src_dir = Path(pint.__file__).parent
    text = (src_dir / "default_en.txt").read_text(encoding="utf-8")
    patches = {
        "\nbit = []\n": "\nbit = [information] = b\n",
        "barn = 1e-28 * meter ** 2 = b\n": "barn = 1e-28 * meter ** 2\n",
        "gilbert = 1 / (4 * π) * biot_turn = Gb\n": "gilbert = 1 / (4 * π) * biot_turn\n",
        # pint refuses absolute @import paths: inline the constants instead
        "@import constants_en.txt": (src_dir / "constants_en.txt").read_text(encoding="utf-8"),
    }
    for old, new in patches.items():
        if old not in text:
            raise RuntimeError(f"fleetcalc.core.units: pint {pint.__version__} definitions changed; cannot patch {old.strip()!r}")
        text = text.replace(old, new)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fleetcalc"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        cache = Path(tempfile.gettempdir()) / "fleetcalc"
        cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"units-{digest}.txt"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return str(path)


ureg = pint.UnitRegistry(_definitions_file(), cache_folder=":auto:")
for _definition in (
    "flop = [computation] = FLOP",
    # "_" = no separate symbol: the short form prints the name itself ("token", not "tok")
    "token = [token] = _ = tok",
    "request = [request] = _ = req",
    "param = [parameter] = _ = parameter",
    "batch = [batch]",
    "device = [device] = _ = dev",
    "currency_unit = [currency] = cu",
):
    ureg.define(_definition)
ureg.formatter.default_format = "~P"
pint.set_application_registry(ureg)

Q_ = ureg.Quantity
Quantity = ureg.Quantity


def unit_latex(unit: str) -> str:
    """A compact unit string ("GiB/s", "µs", "kg/m**2", "FLOP/byte") as upright LaTeX."""
    text = unit.replace(" ", "")
    sup = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    text = re.sub("([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", lambda m: "**" + m.group(1).translate(sup), text)
    text = text.replace("·", "*")
    text = re.sub(r"\*\*(-?[\d.]+)", r"^{\1}", text)
    text = re.sub(r"([A-Za-zΩ°%]+)", lambda m: r"\mathrm{" + m.group(1) + "}", text)
    text = text.replace("*", r"\cdot ")
    return text.replace("µ", r"\mu").replace("μ", r"\mu").replace("%", r"\%")


class FormatError(ValueError):
    """A number that cannot be shown honestly at the requested precision."""


def as_quantity(value, unit: str | None = None):
    """Return ``value`` as a Quantity; a plain number takes ``unit`` (dimensionless by default).

    A string such as ``"25 GiB/s"`` is parsed.
    """
    if isinstance(value, Quantity):
        return value if unit is None else value.to(unit)
    if isinstance(value, str):
        return Q_(value) if unit is None else Q_(value).to(unit)
    return Q_(value, unit or "")


#: Unit ladders for ``fmt(value, "auto")``: the first unit (largest first) in which the value is >= 1.
_LADDERS = {
    "byte": ("PB", "TB", "GB", "MB", "kB", "B"),
    "byte_binary": ("PiB", "TiB", "GiB", "MiB", "KiB", "B"),
    "byte/second": ("PB/s", "TB/s", "GB/s", "MB/s", "kB/s", "B/s"),
    "byte_binary/second": ("TiB/s", "GiB/s", "MiB/s", "KiB/s", "B/s"),
    "bit/second": ("Tb/s", "Gb/s", "Mb/s", "kb/s", "b/s"),
    "second": ("h", "min", "s", "ms", "us", "ns"),
    "flop": ("EFLOP", "PFLOP", "TFLOP", "GFLOP", "MFLOP", "FLOP"),
    "flop/second": ("EFLOP/s", "PFLOP/s", "TFLOP/s", "GFLOP/s", "MFLOP/s", "FLOP/s"),
    "watt": ("GW", "MW", "kW", "W", "mW"),
    "joule": ("GJ", "MJ", "kJ", "J", "mJ", "uJ", "nJ", "pJ"),
}


def human_unit(value) -> str | None:
    """The unit a reader expects for ``value``: a prefix chosen so the number is >= 1 (256 MiB, 17.6 ms).

    Bytes keep binary prefixes when the value is already in KiB/MiB/GiB/TiB; ``None`` for a
    quantity with no ladder (it is then printed in its own unit).
    """
    q = as_quantity(value)
    units = " ".join(name for name, _ in q.unit_items())
    binary = any(w in units for w in ("kibibyte", "mebibyte", "gibibyte", "tebibyte", "pebibyte"))
    bits = "bit" in units and "byte" not in units
    for key, ladder in _LADDERS.items():
        if ("byte" in key and (bits or binary != ("binary" in key))) or (key.startswith("bit") and not bits):
            continue
        base = Q_(1, key.replace("byte_binary", "byte"))
        if q.dimensionality != base.dimensionality:
            continue
        if float(q.magnitude) == 0:
            return f"{base.units:~P}"
        for u in ladder:
            if abs(float(q.to(u).magnitude)) >= 1:
                return u
        return ladder[-1]
    return None


def _is_compound(units) -> bool:
    """Whether dimensionless ``units`` are dimensional units that cancel (µs/s, GB/GiB), as
    opposed to a named ratio such as percent, which prints as it is."""
    return len(units._units) > 1 or any(p != 1 for p in units._units.values())


def fmt(value, unit: str | None = None, decimals: int | None = None, sig: int | None = None, *,
        grouping: bool | None = None, with_unit: bool = True) -> str:
    """Format ``value`` in ``unit`` with ``decimals`` places (or ``sig`` significant digits).

    ``unit="auto"`` picks the prefix a reader expects (:func:`human_unit`). Refuses nan and inf,
    and refuses to print a non-zero value as zero: ask for more digits or a smaller unit
    instead. Numbers use thousands separators only when ``decimals`` is 0, unless ``grouping``
    says otherwise. ``with_unit=False`` prints the number alone (for a label that names the unit).
    The one number formatter of the workbook: panels, plots, diagrams and tools call it.
    """
    q = as_quantity(value)
    if unit is None and q.dimensionless and _is_compound(q.units):
        q = q.to("dimensionless")     # a ratio prints as a ratio: µs/s reduces before it prints
    if unit == "auto":
        unit = human_unit(q)
        if unit is None and not q.dimensionless:
            unit = f"{q.units:~P}"
    if unit is not None:
        q = q.to(unit)
    mag = q.magnitude
    if np.ndim(mag) != 0:
        raise FormatError(f"fmt formats one number; got an array of shape {np.shape(mag)}")
    mag = float(mag)
    if not math.isfinite(mag):
        raise FormatError(f"refusing to format a non-finite value ({mag}) in {unit or q.units}")
    if decimals is not None and sig is not None:
        raise FormatError("give decimals or sig, not both")
    if sig is not None:
        if sig < 1:
            raise FormatError(f"sig must be >= 1; got {sig}")
        text = f"{mag:{',' if grouping else ''}.{sig}g}"
        if "e" in text:
            mant, exp = text.split("e")
            text = f"{mant}e{int(exp)}"
    else:
        places = 3 if decimals is None else decimals
        if places < 0:
            raise FormatError(f"decimals must be >= 0; got {places}")
        group = places == 0 if grouping is None else grouping
        text = f"{mag:{',' if group else ''}.{places}f}"
    if mag != 0 and float(text.replace(",", "")) == 0:
        raise FormatError(
            f"{mag!r} {unit or q.units} would print as {text}: use more digits or a smaller unit"
        )
    if not with_unit:
        return text
    unit_text = unit if unit is not None else (f"{q.units:~P}" if not q.dimensionless else "")
    return f"{text} {unit_text}".strip()


_NUMBER = re.compile(
    r"^\s*(?P<num>[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?)"
    r"(\s*(?:e|E|×\s*10\^|x\s*10\^|×10\^)\s*(?P<exp>[-+]?\d+))?"
    r"\s*(?P<unit>.*?)\s*$"
)


def parse_printed(text: str):
    """Parse a number as a book prints it: ``"0.01757 s"``, ``"1.28e6 token/s"``,
    ``"1.28×10^6 token/s"``, ``"88,888.89 cu"``, ``"1.86 %"``.

    Returns ``(quantity, half_ulp)`` where ``half_ulp`` is half a unit in the last printed
    place (same unit as the quantity): the tolerance the printed precision implies.
    """
    m = _NUMBER.match(text)
    if not m:
        raise ValueError(f"cannot read a printed number from {text!r}")
    num = m.group("num").replace(",", "")
    exp = int(m.group("exp") or 0)
    places = len(num.split(".")[1]) if "." in num else 0
    unit = m.group("unit").strip()
    if unit == "%":
        unit = "percent"
    value = float(num) * 10.0**exp
    half_ulp = 0.5 * 10.0 ** (exp - places)
    return Q_(value, unit), half_ulp
