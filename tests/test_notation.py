"""Tests for fleetcalc.core.notation: the Vol. 2 symbol table as data (seed 001, lines 228-1216)."""
import inspect
from pathlib import Path

import pint
import pytest

from fleetcalc.physics import (collectives, data_drift, iron_law, loggp, parallel_scaling, reliability, roofline,
                               scaling_laws, trends)

from fleetcalc.core import notation as nt
from fleetcalc.core.units import ureg
from seeds import seeds_dir

SEED = seeds_dir() / nt.SOURCE
EXTRACT = Path(__file__).parent / "data" / "notation_source_lines.txt"


class _Lines:
    """The cited lines of the seed: from the seed itself where present, else the committed extract
    (CI runs on a clean clone without the seeds). Indexing is 0-based like a list of lines."""

    def __init__(self):
        self.by_number = {}
        for row in EXTRACT.read_text(encoding="utf-8").splitlines():
            if row and not row.startswith("#"):
                n, text = row.split("\t", 1)
                self.by_number[int(n)] = text
        if SEED.exists():  # the extract must still match the source it was cut from
            full = SEED.read_text(encoding="utf-8").splitlines()
            for n, text in self.by_number.items():
                assert full[n - 1] == text, f"tests/data extract line {n} differs from the seed"

    def __getitem__(self, i):
        return self.by_number[i + 1]


@pytest.fixture(scope="module")
def lines():
    return _Lines()


def test_every_source_line_shows_the_symbol(lines):
    # the line number of each entry is where the book writes it: the needle is on that line
    for s in nt.SYMBOLS:
        assert s.written in lines[s.source_line - 1], (s.symbol, s.source_line)


def test_iron_law_line_holds_all_six_symbols(lines):
    eq = lines[257 - 1]
    for needle in ("D_{\\text{vol}}", "\\text{BW}", "O", "R_{\\text{peak}}", "\\eta_{\\text{hw}}", "L_{\\text{lat}}"):
        assert needle in eq


def test_units_are_pint_units_or_kinds():
    for s in nt.SYMBOLS + nt.LIB_ONLY:
        if s.unit in nt.KINDS or s.unit == "":
            continue
        try:
            ureg.parse_expression(s.unit)
        except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError) as exc:  # pragma: no cover
            pytest.fail(f"{s.symbol}: unit {s.unit!r} does not parse ({exc})")


def test_fields_complete_and_groups_known():
    for s in nt.SYMBOLS:
        assert s.symbol and s.latex and s.meaning, s
        assert s.group in nt.GROUPS, s
        assert 1 <= s.source_line <= 1216, s
    for s in nt.LIB_ONLY:
        assert s.source_line == 0 and s.lib_name or s.symbol == "S(N)"


def test_book_notation_table_is_covered():
    # the rows of the notation tables (lines 261-614) that name a symbol in column one
    have = {s.symbol.split(" (")[0] for s in nt.SYMBOLS}
    for sym in ["T", "D_vol", "BW", "O", "η_hw", "L_lat", "B", "P", "D", "S", "d_head", "N_L", "N_heads",
                "H_KV", "ℓ", "ℒ", "η", "θ", "N", "MFU", "r_comp", "p(x)", "Pr(E)", "ρ", "T(n)", "α", "β",
                "n", "n*", "g", "G", "T_1", "T_N", "V", "M", "M[KV]", "E_total", "P[t]", "P[0]", "τ", "λ",
                "CI", "f_compute", "ρ_energy", "η_scaling", "τ_opt", "T_write", "MTBF_system", "R_system(t)"]:
        assert sym in have, sym


def test_lib_names_are_real_parameters():
    # every lib_name is a parameter of some public calculator (so the notation page can link them)
    params = set()
    for mod in (iron_law, parallel_scaling, scaling_laws, trends, loggp, data_drift, collectives, reliability, roofline):
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if callable(obj):
                params |= set(inspect.signature(obj).parameters)
    for s in nt.SYMBOLS + nt.LIB_ONLY:
        for name in filter(None, s.lib_name.split("|")):
            assert name in params, (s.symbol, name)


def test_stated_clashes_include_the_quick_reference():
    # line 432-444: B, P, D, L, eta are the book's quick-reference clashes
    stated = {c.symbol for c in nt.clashes(stated=True)}
    assert {"B", "P", "D", "L", "η"} <= stated
    unstated = {c.symbol for c in nt.clashes(stated=False)}
    assert {"BW / β", "τ", "p", "m", "M", "R"} <= unstated
    for c in nt.CLASHES:
        assert len(c.meanings) >= 2 and all(1 <= ln <= 1216 for ln in c.source_lines)


def test_precisions_bytes():
    got = {p.name: p.bytes for p in nt.PRECISIONS}
    # lines 418-426: FP64 8 bytes, FP32 4, FP16 2, BF16 2, FP8 1, INT8 1; FP4 and INT4 are 4 bits
    assert got == {"FP64": 8, "FP32": 4, "TF32": 4, "FP16": 2, "BF16": 2, "FP8": 1, "FP4": 0.5,
                   "INT8": 1, "INT4": 0.5}
    # FP32 -> INT8 is the "one quarter" of line 290
    assert got["INT8"] / got["FP32"] == 0.25


def test_lookup_and_rows():
    assert {s.meaning for s in nt.lookup("λ")} >= {"sensitivity of a model to distribution shift"}
    assert len(nt.lookup("λ")) == 2
    assert sum(len(v) for v in nt.by_group().values()) == len(nt.SYMBOLS)
    rows = nt.table_rows("iron")
    assert rows[0]["symbol"] == "T" and all("latex" in r for r in rows)


def test_book_KB_is_not_a_pint_unit():
    # line 411 writes KB = 10^3 bytes; pint knows only kB (a reason notebooks write kB)
    with pytest.raises(pint.errors.UndefinedUnitError):
        ureg.parse_expression("KB")
    assert ureg.parse_expression("kB").to("byte").magnitude == 1000


def test_each_clash_cites_a_line_that_shows_the_letter(lines):
    # every clash points at least once to a line where the letter (or one of the letters) is written
    import re
    for c in nt.CLASHES:
        if c.library:                     # the library's own clash: it cites no book line
            assert not c.source_lines and c.resolution, c.symbol
            continue
        toks = [t for t in re.split(r"[\s/,()]+", c.symbol) if t]
        assert any(t in lines[ln - 1] for ln in c.source_lines for t in toks), c.symbol


def _dimension(unit: str):
    from fleetcalc.core.units import Q_

    return Q_(1, unit).dimensionality


def _parameter_meanings():
    """(parameter name, calculator, declared kind, declared unit) of every public calculator."""
    import importlib
    import pkgutil

    import fleetcalc.physics as physics
    from fleetcalc.core.calculator import calculators_in

    for m in pkgutil.iter_modules(physics.__path__):
        mod = importlib.import_module(f"fleetcalc.physics.{m.name}")
        for cname, calc in calculators_in(mod).items():
            for pname, p in calc.params.items():
                yield pname, f"{m.name}.{cname}", p.kind, p.unit


def test_one_symbol_one_meaning_or_a_documented_clash():
    # a parameter named for a notation symbol (its lib_name) takes that symbol's dimension; where a
    # calculator uses the letter for something else, the clash must be in the table's [[clash]] list
    by_name = {}
    for s in nt.SYMBOLS + nt.LIB_ONLY:
        for name in filter(None, s.lib_name.split("|")):
            by_name.setdefault(name, []).append(s)
    clash_letters = {part.strip() for c in nt.CLASHES for part in c.symbol.replace(",", "/").split("/")}
    undocumented = []
    for pname, where, kind, unit in _parameter_meanings():
        for s in by_name.get(pname, ()):
            if s.unit in nt.KINDS or s.unit in ("param", "token", "device", "request", ""):
                ok = kind in ("whole", "number", "amount", "any", "choice") or (kind == "quantity" and
                                                                                 _dimension(unit) == _dimension(s.unit or "dimensionless"))
            else:
                ok = kind in ("quantity", "amount", "quantities") and _dimension(unit) == _dimension(s.unit)
            if not ok and pname not in clash_letters:
                undocumented.append(f"{where}({pname}: {kind} {unit!r}) vs notation {s.symbol} ({s.unit!r}: {s.meaning})")
    assert not undocumented, "one symbol, two meanings, no clash recorded:\n" + "\n".join(undocumented)


def test_the_meaning_rule_sees_a_second_meaning():
    # hand-made case: MTBF declared as bytes would be caught unless M's clash is recorded
    s = next(s for s in nt.SYMBOLS if "M" in s.lib_name.split("|") and s.unit == "hour")
    assert _dimension("byte") != _dimension(s.unit)
    assert "M" in {c.symbol for c in nt.CLASHES}
