"""tools/variants.py: seeded exercise variants and their answer key.

The expected answers come from the lib (Exercise.expected); what is tested here is that the
variants stay inside the exercise's declared ranges and valid region, that every answer in the key
grades as correct against its own variant's inputs (and a wrong one does not), and that one seed
gives byte-identical files.
"""
from __future__ import annotations

import csv
import importlib.util
import math
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("variants", ROOT / "tools" / "variants.py")
variants = importlib.util.module_from_spec(_spec)
sys.modules["variants"] = variants
_spec.loader.exec_module(variants)

N, SEED = 2, 11


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    a = tmp_path_factory.mktemp("variants_a")
    b = tmp_path_factory.mktemp("variants_b")
    rows = variants.generate(N, SEED, a)
    variants.generate(N, SEED, b)
    return a, b, rows


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_byte_identical_files(generated):
    a, b, _ = generated
    fa, fb = _files(a), _files(b)
    assert fa.keys() == fb.keys()
    assert [k for k in fa if fa[k] != fb[k]] == []
    assert "answer_key.csv" in fa and "answer_key.md" in fa


def test_another_seed_gives_other_variants(tmp_path):
    ex = variants.exercises_with_ranges()[0]
    assert variants.variants_for(ex, N, SEED) != variants.variants_for(ex, N, SEED + 1)


def test_every_exercise_with_ranges_gets_variants(generated):
    _, _, rows = generated
    want = {ex.id for ex in variants.exercises_with_ranges()}
    assert want, "no registered exercise declares ranges"
    assert {r["exercise"] for r in rows} == want


def test_variant_inputs_lie_in_their_ranges_and_are_valid():
    for ex in variants.exercises_with_ranges():
        found = variants.variants_for(ex, N, SEED)
        assert found, f"exercise {ex.id}: no valid variant"
        keys = set()
        for inputs in found:
            for name, spec in ex.ranges.items():
                assert variants.in_range(inputs[name], spec), (ex.id, name, inputs[name], spec)
                assert isinstance(inputs[name], variants.Quantity) == isinstance(ex.inputs[name], variants.Quantity)
            for name in set(ex.inputs) - set(ex.ranges):        # unranged inputs keep the book's value
                assert inputs[name] is ex.inputs[name]
            if ex.valid is not None:
                assert variants._call(ex.valid, inputs), (ex.id, inputs)
            keys.add(variants._key(ex, inputs))
        assert len(keys) == len(found), f"exercise {ex.id}: repeated variant"
        assert variants._key(ex, ex.inputs) not in keys, f"exercise {ex.id}: a variant repeats the book"


def test_every_answer_in_the_key_grades_correct_against_its_own_inputs(generated):
    _, _, rows = generated
    exs = variants._ex.all_exercises()
    for row in rows:
        ex = exs[row["exercise"]]
        inputs = variants.inputs_from_row(ex, row)
        answer = float(row["answer"])                           # as printed in the key (10 digits)
        res = variants.grade_variant(ex.id, row["part"], answer, inputs)
        assert res.status == "correct", (row, res.message)
        wrong = answer * 1.5 + 1
        assert variants.grade_variant(ex.id, row["part"], wrong, inputs).status == "wrong", row


def test_grading_uses_the_variant_not_the_book():
    """Exercise 28.2 at d = n = 4096, s = 2 byte: 50 FLOP/byte needs B = 52 (4096 B >= 100 B + 204800,
    B >= 51.2). A variant target of 100 FLOP/byte needs 4096 B >= 200 B + 409600, B >= 105.1 -> 106."""
    from fleetcalc.units import Q_

    inputs = {"I_target": Q_(100, "FLOP/byte")}
    assert variants.grade_variant("28.2", "B_min", 106, inputs).status == "correct"
    assert variants.grade_variant("28.2", "B_min", 52, inputs).status == "wrong"
    assert variants.grade_variant("28.2", "B_min", 52, {}).status == "correct"


def test_key_csv_matches_rows_and_notebooks_hold_no_answers(generated):
    a, _, rows = generated
    with open(a / "answer_key.csv", newline="", encoding="utf-8") as f:
        on_disk = list(csv.DictReader(f))
    assert [{k: str(v) for k, v in r.items()} for r in rows] == on_disk
    for rel in {r["notebook"] for r in rows}:
        nb = nbformat.read(a / rel, as_version=4)
        nbformat.validate(nb)
        ex_rows = [r for r in rows if r["notebook"] == rel]
        answer_cells = [c for c in nb.cells if "variant-answer" in c.metadata.get("tags", [])]
        assert len(answer_cells) == len(ex_rows)
        for cell, r in zip(answer_cells, ex_rows):
            assert cell.source.startswith(f"{r['part']} = ...  # your answer")
            assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_range_helpers():
    import random

    rng = random.Random(0)
    for _ in range(200):
        v = variants.draw_value(rng, 4096, (1024, 16384, 1024))
        assert isinstance(v, int) and v % 1024 == 0 and 1024 <= v <= 16384
        x = variants.draw_value(rng, 1.0, (1e11, 1e14))           # log-uniform, 3 significant digits
        assert 1e11 <= x <= 1e14 and float(f"{x:.2e}") == x
        y = variants.draw_value(rng, 0.5, (0.1, 0.9, 0.05))
        assert variants.in_range(y, (0.1, 0.9, 0.05)) and y == round(y, 2)
    assert not variants.in_range(1000, (1024, 16384, 1024))
    assert not variants.in_range(1500, (1024, 16384, 1024))
    assert variants.slug("28.2") == "28_02" and variants.slug("V2.1.3") == "V2_01_03"


def test_a_variant_notebook_runs_and_grades(generated):
    """Execute one generated notebook with the key's answers typed in: every check says ✓."""
    import nbclient
    a, _, rows = generated
    row0 = next(r for r in rows if r["exercise"] == "28.2")
    nb = nbformat.read(a / row0["notebook"], as_version=4)
    answers = {r["part"]: r["answer"] for r in rows if r["notebook"] == row0["notebook"]}
    for cell in nb.cells:
        if "variant-answer" in cell.metadata.get("tags", []):
            part = cell.source.split(" = ", 1)[0]
            cell.source = cell.source.replace(f"{part} = ...", f"{part} = {answers[part]}", 1)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert printed.count("✓") == len(answers), printed
    assert "✗" not in printed
