"""Every slider of every panel is a valid input at both ends and at reachable steps inside.

The panels are collected without a kernel by lib/workbook/site/panel_harness.py (each notebook source is
executed in-process). For each knob, ``Knob.values()`` gives the two ends and a few reachable
values in between (every option of a dropdown); ``compute_at(**{name: v})`` with the other
sliders at their starting values must return finite results and must not raise.
One test per notebook, so a new chapter is covered as soon as its source exists.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fleetcalc.core.validate import nonfinite_parts

ROOT = Path(__file__).resolve().parent.parent

from workbook.site.panel_harness import collect_cached, notebook_sources

SOURCES = notebook_sources()


nonfinite = nonfinite_parts  # shared with the other range/fuzz tests (fleetcalc.core.validate)


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_panel_sliders_valid_over_range(source):
    res = collect_cached(source, draw=False)
    problems = []
    for rec in res.panels:
        p = rec.panel
        for name, k in p.knob_specs.items():
            for v in k.values():
                try:
                    out = p.compute_at(**{name: v})
                except Exception as exc:  # noqa: BLE001 - report which slider value breaks it
                    problems.append(f"{rec.id} ({rec.title}): {name}={v!r} raises {type(exc).__name__}: {exc}")
                    continue
                if not isinstance(out, dict):
                    problems.append(f"{rec.id}: compute returned {type(out).__name__}, not a dict")
                    continue
                bad = nonfinite(out)
                if bad:
                    problems.append(f"{rec.id} ({rec.title}): {name}={v!r} gives non-finite {', '.join(bad)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", SOURCES, ids=_rel)
def test_notebook_cells_run_in_process(source):
    """The harness executes every code cell (a failing cell could hide the panels after it)."""
    res = collect_cached(source, draw=False)
    assert not res.failures, "\n".join(str(f) + "\n" + f.traceback for f in res.failures)


def test_panels_found():
    """At least the exemplar's panel is collected (guards against a harness that finds nothing)."""
    exemplar = ROOT / "chapters" / "ch28" / "28_3_roofline.md"
    if not exemplar.exists():
        pytest.skip("exemplar notebook not present")
    assert collect_cached(exemplar, draw=False).panels, "no panel collected from the exemplar"
