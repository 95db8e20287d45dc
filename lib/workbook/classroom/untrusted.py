"""What a submission controls, read with bounds and written out as data.

In (the grader's own process never parses a submission any other way):

    data = read_file(path)          # a regular file, no link, at most MAX_BYTES; else Rejected
    nb = notebook(data)             # Notebook(cells, meta, claims_variant); else Rejected(status)
    q = quantity(19.5, {"mebibyte": 1, "second": -1}, allowed)   # a unit whitelisted from the key

The JSON is measured before it is parsed (depth and number of values, from the bytes alone), so a
deep or huge value is refused before ``json.loads`` builds anything; the metadata keeps only fields of
the exact type and shape expected; a unit is built from names on a whitelist drawn from the key, so
pint never parses a string the submission wrote.

Out (every output of the grader passes through one of these):

    csv_cell(x)      a spreadsheet cell: never a formula (OWASP: ' before = + - @ tab CR)
    md_code(text)    submission text in Markdown: one inline code span, no HTML, link or heading
    plain(text)      one line of text: no control, format or surrogate character, length-capped
    console(text)    a console line: the same, so no escape sequence reaches the terminal
    output_stem(n)   a file name for feedback/<stem>.md: letters, digits, . _ - only, capped
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import stat
import unicodedata

MAX_BYTES = 8 << 20        # a notebook file (the book's largest notebook is under 1 MiB)
MAX_DEPTH = 32             # JSON nesting (a notebook needs about 8)
MAX_VALUES = 200_000       # JSON values (the book's largest notebook has about 33,000)
MAX_CELLS = 2_000


class Rejected(Exception):
    """A submission the grader will not read further: ``status`` for its row, ``detail`` for its feedback."""

    def __init__(self, status: str, detail: str):
        super().__init__(status)
        self.status, self.detail = status, detail


# ----------------------------------------------------------------------------- reading a file

def read_file(path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file that is not a symbolic link, read once, at most ``limit`` of them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if os.path.islink(path):
            raise Rejected("symlink", "the file is a link to another file; hand in the notebook itself") from None
        raise Rejected("unreadable", f"the file could not be opened ({type(exc).__name__})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Rejected("not-a-file", "this is not a regular file")
        if st.st_size > limit:
            raise Rejected("too-large", f"the file is larger than {limit >> 20} MiB: clear its outputs "
                                        "(Edit > Clear Outputs of All Cells) and hand it in again")
        chunks, n = [], 0
        while n <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - n))
            if not b:
                break
            chunks.append(b)
            n += len(b)
        if n > limit:
            raise Rejected("too-large", f"the file is larger than {limit >> 20} MiB")
        return b"".join(chunks)
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- JSON, measured first

_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


def _measure(data: bytes) -> tuple[int, bool]:
    """(number of values, deeper than MAX_DEPTH) of JSON text, from its bytes alone (C-speed passes).

    Escapes are removed (``\\\\`` pairs, then ``\\"``), so every quote left delimits a string; the
    text outside strings then holds every bracket and comma. Exact for valid JSON, which is all
    ``json.loads`` will build from."""
    flat = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    pieces = flat.split(b'"')
    if len(pieces) % 2 == 0:
        raise Rejected("invalid-json", "the file is not valid JSON (a notebook is a JSON file)")
    strings = len(pieces) // 2
    outside = b"".join(pieces[0::2])
    del flat, pieces
    opens = outside.count(b"[") + outside.count(b"{")
    values = strings + opens + outside.count(b",") + 1
    if values > MAX_VALUES:
        return values, False
    nest = outside.translate(None, _BRACKETS)
    for _ in range(MAX_DEPTH):
        if not nest:
            return values, False
        nest = nest.replace(b"[]", b"").replace(b"{}", b"")
    return values, bool(nest)


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def json_value(data: bytes):
    """The JSON value of ``data`` (UTF-8), or Rejected: too deep, too many values, not JSON."""
    values, deep = _measure(data)
    if values > MAX_VALUES:
        raise Rejected("too-large", f"the notebook holds more than {MAX_VALUES} JSON values: clear its outputs "
                                    "and hand it in again")
    if deep:
        raise Rejected("invalid-json", f"the file is not valid JSON, or nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        raise Rejected("invalid-json", "the file is not valid JSON (a notebook is a JSON file)") from None


# ----------------------------------------------------------------------------- the notebook

ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]{0,63}")          # a roster id
SET = re.compile(r"[a-z0-9_]{1,40}/[A-Za-z0-9_]{1,80}")        # ch28/ex28_08
EXERCISE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.\-]{0,31}")     # 28.8, V2.3.4
HEX64 = re.compile(r"[0-9a-f]{64}")
VARIANT_FIELDS = ("student", "seed", "draws", "signature")


GENERATED = re.compile(r"generated from `solutions/([a-z0-9_]{1,40}/[A-Za-z0-9_]{1,80})\.md`")


@dataclasses.dataclass
class Notebook:
    cells: list              # the sources of its code cells, in order (cell numbers count these from 1)
    meta: dict               # the metadata.fleetcalc fields that have the exact expected type and shape
    claims_variant: bool     # it carries any variant field at all (valid or not)
    named_sets: tuple = ()   # the sets its generated note names ("generated from `solutions/<set>.md`")


def _source(src) -> str:
    if isinstance(src, str):
        return src
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    raise Rejected("not-a-notebook", "the file is JSON but not a Jupyter notebook (a cell's source is not text)")


def _int(v, lo: int, hi: int) -> bool:
    return type(v) is int and lo <= v <= hi


def metadata(fc) -> tuple[dict, bool]:
    """(the valid fields of ``metadata.fleetcalc``, whether it claims a variant at all)."""
    if not isinstance(fc, dict):
        return {}, False
    out = {}
    s = fc.get("exercise_set")
    if isinstance(s, str) and SET.fullmatch(s):
        out["exercise_set"] = s
    s = fc.get("student")
    if isinstance(s, str) and ID.fullmatch(s):
        out["student"] = s
    if _int(fc.get("seed"), -(1 << 63), (1 << 63) - 1):
        out["seed"] = fc["seed"]
    d = fc.get("draws")
    if isinstance(d, dict) and len(d) <= 200 and all(isinstance(k, str) and EXERCISE.fullmatch(k) and _int(v, 0, 9_999)
                                                     for k, v in d.items()):
        out["draws"] = dict(d)
    s = fc.get("signature")
    if isinstance(s, str) and HEX64.fullmatch(s):
        out["signature"] = s
    return out, any(k in fc for k in VARIANT_FIELDS)


def notebook(data: bytes) -> Notebook:
    """A submitted notebook as the grader needs it, or Rejected with its status."""
    doc = json_value(data)
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise Rejected("not-a-notebook", "the file is JSON but not a Jupyter notebook")
    if len(doc["cells"]) > MAX_CELLS:
        raise Rejected("too-large", f"the notebook has more than {MAX_CELLS} cells")
    code, named = [], []
    for c in doc["cells"]:
        if not isinstance(c, dict) or c.get("cell_type") not in ("code", "markdown", "raw"):
            raise Rejected("not-a-notebook", "the file is JSON but not a Jupyter notebook")
        if c["cell_type"] == "code":
            code.append(_source(c.get("source", "")))
        elif c["cell_type"] == "markdown" and len(named) < 4:
            named += [m.group(1) for m in GENERATED.finditer(_source(c.get("source", ""))[:4000])][:4]
    if not any(s.strip() for s in code):
        raise Rejected("empty", "the notebook has no code to run")
    meta = doc.get("metadata")
    fields, claims = metadata(meta.get("fleetcalc") if isinstance(meta, dict) else None)
    return Notebook(code, fields, claims, tuple(named))


# ----------------------------------------------------------------------------- units

SI = ("", "kilo", "mega", "giga", "tera", "peta", "exa", "milli", "micro", "nano", "pico")
BINARY = ("kibi", "mebi", "gibi", "tebi", "pebi", "exbi")
FAMILIES = ({"bit", "byte"}, {"second", "minute", "hour", "day", "week", "year"}, {"watt", "watt_hour", "joule"})
UNPREFIXED = {"minute", "hour", "day", "week", "year"}


@functools.lru_cache(maxsize=8)
def _allowed(roots: frozenset) -> frozenset:
    from fleetcalc.core.units import ureg

    out = {"percent"}
    for root in roots:
        prefixes = ("",) if root in UNPREFIXED else SI + (BINARY if root in ("bit", "byte") else ())
        for p in prefixes:
            try:
                if ureg.get_name(p + root) == p + root:
                    out.add(p + root)
            except Exception:  # noqa: BLE001 - not a unit of the registry: not allowed
                continue
    return frozenset(out)


def allowed_units(exercises) -> frozenset:
    """The unit names (pint's canonical ones) an answer may carry: every unit in the key's answers and
    inputs, its family (bit/byte, second/hour/day, watt/joule), the SI prefixes (and the binary ones
    for bits and bytes), and percent. Nothing else reaches pint."""
    from fleetcalc.core.units import Q_, Quantity, ureg

    roots = set()
    for ex in exercises:
        units = [Q_(1.0, a.unit).units for a in ex.answers.values() if a.unit]
        units += [v.units for v in ex.inputs.values() if isinstance(v, Quantity)]
        for u in units:
            for name in u._units:
                for _, root, _ in ureg.parse_unit_name(name):
                    roots.add(root)
    for fam in FAMILIES:
        if roots & fam:
            roots |= fam
    return _allowed(frozenset(roots))


def quantity(m: float, units: dict, allowed: frozenset):
    """A Quantity of magnitude ``m`` in ``units`` ({name: whole exponent}), or None when a name is not allowed."""
    from fleetcalc.core.units import Q_
    from pint.util import UnitsContainer

    if not isinstance(units, dict) or len(units) > 8:
        return None
    for name, e in units.items():
        if name not in allowed or type(e) is not int or not -8 <= e <= 8 or e == 0:
            return None
    return Q_(m, UnitsContainer(units))


# ----------------------------------------------------------------------------- writing it out as data

_SAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@functools.lru_cache(maxsize=4096)
def _char_ok(ch: str) -> bool:
    return unicodedata.category(ch) not in _SAFE_CATEGORIES


def plain(text, limit: int = 300) -> str:
    """One line of printable text: every kind of whitespace becomes a space, control, format (bidi,
    zero-width), surrogate and unassigned characters become U+FFFD; at most ``limit`` characters."""
    s = text if isinstance(text, str) else str(text)
    cut = len(s) > limit
    s = s[:limit]
    out = []
    for ch in s:
        if ch.isspace():
            out.append(" ")
        elif ch.isascii() and ch.isprintable() or _char_ok(ch):
            out.append(ch)
        else:
            out.append("\ufffd")
    return "".join(out) + ("…" if cut else "")


def console(text, limit: int = 2000) -> str:
    """A line for the instructor's console: nothing in it moves the cursor or rewrites another line."""
    return plain(text, limit)


FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(x) -> str:
    """A CSV cell a spreadsheet shows as text: ``'`` before a cell that starts (after spaces) with
    = + - @ tab or CR, the OWASP rule against formula injection."""
    s = plain(x, 1000) if not isinstance(x, (int, float)) else str(x)
    head = s.lstrip(" ")
    if head.startswith(FORMULA) or s.startswith(FORMULA):
        return "'" + s
    return s




def md_code(text, limit: int = 300) -> str:
    """Submission text inside Markdown: one inline code span (a fence longer than any backtick run
    in it), so no HTML, image, link, emphasis or heading is rendered; URL schemes are defanged."""
    s = plain(text, limit)
    s = re.sub(r"(?i)www\.", lambda m: m.group(0)[:3] + "[.]", s.replace("://", "[:]//"))
    if not s.strip():
        return "(empty)"
    run = max((len(r) for r in re.findall(r"`+", s)), default=0)
    fence = "`" * (run + 1)
    return f"{fence} {s} {fence}"


def output_stem(name: str) -> str:
    """A file-name stem for a submission's outputs: the name's own stem when it is short and plain,
    else its letters, digits, ``. _ -`` (capped) and 8 hex digits of its hash, so names stay apart."""
    stem = name[:-6] if name.endswith(".ipynb") else name
    safe = re.sub(r"[^A-Za-z0-9._\-]", "_", stem)[:80].lstrip(".-") or "submission"
    if safe != stem:
        safe += "-" + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return safe


def display_name(name: str) -> str:
    """A submission's name as the outputs show it (undecodable bytes and controls replaced)."""
    return plain(name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), 300)
