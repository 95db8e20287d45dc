"""Generated hostile input for the grader's readers and writers (hypothesis).

The readers (``untrusted.notebook``, its metadata, ``sandbox.parse_report``, ``untrusted.quantity``,
file names) either return exactly typed data or refuse with a status, quickly, whatever they are
fed; the writers never let the data become a formula, markup or a terminal control; and a whole
run over a folder of generated hostile files beside honest ones finishes with every honest
submission graded and every output written. The run-level fuzz replaces the sandbox with the
generated answer reports themselves (what a hostile notebook could send); the sandbox's own
attacks are tests/test_grade_hostile.py's.
"""
from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbook.classroom import answer_key, grade, sandbox, signing, untrusted

ROOT = Path(__file__).resolve().parent.parent
SET = "ch28/ex28_08"
NAMES = ["bw_small", "bw_large"]
ALLOWED = untrusted.allowed_units([ex for exs in answer_key.load().values() for ex in exs.values()])
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# text as a hostile student writes it: controls, bidi and zero-width marks, lone surrogates, markup, formulas
HOSTILE_CHARS = st.sampled_from(list("=+-@\t\r\n\x1b\x00\x07`*_#[]()<>!|\\\"'/:.") +
                                ["\u202e", "\u2066", "\u200b", "\ud800", "\udfff", "\ufeff", "é", "😀", "Score: 2 / 2",
                                 "http://evil.example/x.png", "<img src=x>", "![b](http://e/x)"])
HOSTILE_TEXT = st.lists(st.one_of(HOSTILE_CHARS, st.text(max_size=5)), max_size=30).map("".join)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
                    st.floats(allow_nan=True, allow_infinity=True), HOSTILE_TEXT)
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                     st.dictionaries(HOSTILE_TEXT, inner, max_size=6)), max_leaves=40)
META_FIELDS = st.fixed_dictionaries({}, optional={
    "exercise_set": st.one_of(JSON, st.sampled_from([SET, "ch28/ex28_09_10", "../../etc", "ch28/ex28_08\n"])),
    "student": st.one_of(JSON, st.sampled_from(["s001", "=1+1", "s001\x1b", "-x"])),
    "seed": st.one_of(JSON, st.integers()),
    "draws": st.one_of(JSON, st.dictionaries(st.sampled_from(["28.8", "x", ""]), st.integers(), max_size=3)),
    "signature": st.one_of(JSON, st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))})


@pytest.fixture(scope="module", autouse=True)
def _own_secret(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(signing.ENV, str(tmp_path_factory.mktemp("secret") / "secret"))
        yield


def _honest_doc() -> dict:
    nb = nbformat.read(ROOT / "exercises" / f"{SET}.ipynb", as_version=4)
    next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source).source = \
        '# honest\nbw_small = Q_(19.53125, "MiB/s")\nbw_large = Q_(1, "GiB/s")'
    return json.loads(nbformat.writes(nb))


HONEST = _honest_doc()


def _dumps(doc) -> bytes:
    return json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")


def _notebooks():
    """Bytes of a generated hostile notebook: broken JSON, odd shapes, hostile metadata, hostile cells."""
    def with_meta(meta):
        doc = json.loads(json.dumps(HONEST))
        doc["metadata"]["fleetcalc"] = meta
        return _dumps(doc)

    def with_cells(cells):
        doc = json.loads(json.dumps(HONEST))
        doc["cells"] = cells
        return _dumps(doc)

    cell = st.fixed_dictionaries({"cell_type": st.one_of(st.sampled_from(["code", "markdown", "raw"]), JSON),
                                  "source": st.one_of(HOSTILE_TEXT, st.lists(HOSTILE_TEXT, max_size=4), JSON)})
    return st.one_of(st.binary(max_size=300), JSON.map(_dumps), META_FIELDS.map(with_meta), JSON.map(with_meta),
                     st.lists(st.one_of(cell, JSON), max_size=5).map(with_cells),
                     st.integers(1, 3000).map(lambda n: b'{"cells": [' + b"[" * n + b"]" * n + b"]}"),
                     st.builds(lambda b, k: b[:k], JSON.map(_dumps), st.integers(0, 200)))


@FAST
@given(_notebooks())
def test_the_notebook_reader_returns_typed_data_or_refuses(data):
    t0 = time.monotonic()
    try:
        nb = untrusted.notebook(data)
    except untrusted.Rejected as r:
        assert r.status in {"invalid-json", "not-a-notebook", "empty", "too-large"}
        return
    finally:
        assert time.monotonic() - t0 < 2
    assert all(isinstance(c, str) for c in nb.cells)
    m = nb.meta
    assert set(m) <= {"exercise_set", "student", "seed", "draws", "signature"}
    assert all(isinstance(m[k], str) for k in ("exercise_set", "student", "signature") if k in m)
    assert type(m.get("seed", 0)) is int and all(type(v) is int for v in m.get("draws", {}).values())
    assert not signing.verify_variant(signing.load_secret(create=True), m)      # no generated input is issued


@FAST
@given(st.dictionaries(st.one_of(st.sampled_from(sorted(ALLOWED)[:40] + ["googol", "9**9**9", ""]), HOSTILE_TEXT),
                       st.one_of(st.integers(-100, 100), st.floats(), st.booleans(), st.none(), HOSTILE_TEXT),
                       max_size=10),
       st.floats(allow_nan=False, allow_infinity=False))
def test_a_unit_is_built_from_whitelisted_names_only(units, m):
    t0 = time.monotonic()
    q = untrusted.quantity(m, units, ALLOWED)
    assert time.monotonic() - t0 < 0.5
    if q is not None:
        assert set(q.units._units) <= ALLOWED and all(-8 <= e <= 8 for e in q.units._units.values())


REPORT = st.one_of(
    st.binary(max_size=200),
    st.fixed_dictionaries({"v": st.sampled_from([2, 1, "2"]), "values": st.one_of(JSON, st.fixed_dictionaries(
        {n: st.one_of(JSON, st.fixed_dictionaries({"k": st.sampled_from(["q", "n", "none", "missing", "other", "x"]),
                                                   "m": st.one_of(st.floats(), st.integers(), JSON),
                                                   "u": st.one_of(JSON, st.dictionaries(HOSTILE_TEXT, st.integers(
                                                       -10, 10), max_size=4))})) for n in NAMES})),
                           "errors": st.one_of(JSON, st.lists(st.fixed_dictionaries(
                               {"cell": st.integers(-2, 9), "ename": HOSTILE_TEXT, "evalue": HOSTILE_TEXT}), max_size=3)),
                           "memory": st.one_of(st.booleans(), JSON)}).map(_dumps))


@FAST
@given(REPORT)
def test_the_report_parser_returns_typed_data_or_refuses(raw):
    try:
        values, errors, memory = sandbox.parse_report(raw, NAMES, 8)
    except sandbox.BadReport as exc:
        assert len(str(exc)) < 80          # its message never carries the report's text
        return
    assert set(values) == set(NAMES) and isinstance(memory, bool)
    assert all(1 <= e["cell"] <= 8 and len(e["evalue"]) <= 300 for e in errors)


@FAST
@given(st.one_of(HOSTILE_TEXT, st.integers(), st.floats()))
def test_the_writers_neutralise_what_they_are_given(text):
    cell = untrusted.csv_cell(text)
    assert not cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r")) or isinstance(text, (int, float))
    span = untrusted.md_code(text)
    assert "\n" not in span and "\r" not in span and "://" not in span
    if span != "(empty)":
        fence = span[:len(span) - len(span.lstrip("`"))]
        assert span.startswith(fence + " ") and span.endswith(" " + fence)
        assert fence not in span[len(fence):-len(fence)]        # nothing closes the span early
    line = untrusted.console(text)
    assert all(ch.isprintable() or ch == " " for ch in line)
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in untrusted.plain(text))


@FAST
@given(st.lists(st.binary(min_size=1, max_size=180).filter(lambda b: b"/" not in b and b"\0" not in b),
                min_size=2, max_size=6, unique=True))
def test_file_names_map_to_distinct_safe_stems(raw_names):
    names = [os.fsdecode(b + b".ipynb") for b in raw_names]
    stems = [untrusted.output_stem(n) for n in names]
    assert len(set(stems)) == len(stems)
    for s in stems:
        assert len(s) <= 100 and s and not s.startswith((".", "-")) and all(c.isalnum() and c.isascii() or c in "._-"
                                                                            for c in s)


# ----------------------------------------------------------------------------- a whole run

FILE_NAME = st.binary(min_size=1, max_size=120).filter(
    lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")).map(lambda b: os.fsdecode(b + b".ipynb"))


@pytest.fixture(scope="module")
def signed():
    """An honest, signed variant notebook of student s001 (seed 7), and its right answers (MiB/s)."""
    from workbook.classroom import variants

    nb, exs, overrides = variants.student_notebook(SET, "s001", 7, secret=signing.load_secret(create=True),
                                                   self_checks=False)
    inputs = {**exs["28.8"].inputs, **overrides["28.8"]}
    want = [exs["28.8"].expected(p, **inputs).m_as("MiB/s") for p in NAMES]
    next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source).source = "# honest"
    return nbformat.writes(nb).encode(), want


@pytest.fixture()
def no_sandbox(monkeypatch, signed):
    """The sandbox replaced by the reports a hostile notebook could send (drawn per file)."""
    reports: dict[str, bytes] = {}
    small, large = signed[1]

    def fake(nb, names, *a, **k):
        if nb.cells and any("# honest" in c for c in nb.cells):
            return {"values": {"bw_small": {"k": "q", "m": small, "u": {"mebibyte": 1, "second": -1}},
                               "bw_large": {"k": "q", "m": large, "u": {"mebibyte": 1, "second": -1}}}, "errors": []}
        raw = reports.get(nb.cells[0] if nb.cells else "", b"")
        try:
            values, errors, _ = sandbox.parse_report(raw, list(names), len(nb.cells))
        except sandbox.BadReport:
            return {"status": "kernel-failed", "detail": "its answer report was malformed"}
        return {"values": values, "errors": errors}
    monkeypatch.setattr(grade, "execute_submission", fake)
    monkeypatch.setattr(sandbox, "available", lambda: (True, "replaced by the fuzz test"))
    return reports


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(FILE_NAME, _notebooks(), REPORT), min_size=1, max_size=6, unique_by=lambda t: t[0]),
       st.sampled_from([SET, None]))
def test_a_run_over_generated_hostile_files_grades_every_honest_one(tmp_path_factory, no_sandbox, signed, files,
                                                                   set_name):
    d = tmp_path_factory.mktemp("fuzz")
    honest = ["honest_a.ipynb", "honest_b.ipynb"]
    for n in honest:
        (d / n).write_bytes(signed[0])
    written = set(honest)
    for name, data, report in files:
        if name in written or len(os.fsencode(name)) > 250:
            continue
        try:
            (d / name).write_bytes(data)
        except OSError:
            continue
        written.add(name)
        try:
            nb = untrusted.notebook(data)
            if nb.cells:
                no_sandbox[nb.cells[0]] = report
        except untrusted.Rejected:
            pass
    log: list[str] = []
    rows = grade.grade_folder(d, set_name, limit=5, jobs=2, log=log.append)
    for f in ("grades.csv", "gradebook_canvas.csv", "gradebook_moodle.csv"):
        assert (d / f).is_file()
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert {r["submission"] for r in table} == {untrusted.csv_cell(untrusted.display_name(n)) for n in written}
    for n in honest:                                   # with SET= or by their own signed set
        assert {r["status"] for r in table if r["submission"] == n} == {"correct"}
    assert all(not any(ord(c) < 32 for c in line) for line in log)
    assert not (d / grade.JOURNAL).exists()
    assert len(rows) == len(table)
