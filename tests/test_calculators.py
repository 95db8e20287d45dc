"""Every physics calculator, fuzzed and checked from its own declaration.

A calculator declares its parameters' units and bounds once (``fleetcalc.core.calculator``).
From that declaration alone (tests/strategies.py), for each public calculator of every module in
``fleetcalc.physics``:

* a typical call (each argument comfortably inside its range) gives a finite result;
* each argument, alone, set to a malformed value (nan, inf, a string, True, a dict, None, an empty
  array, a plain number where a unit is needed, a wrong unit) or just past a declared bound is
  refused with ``InputError``/``TypeError`` whose message names that argument;
* random valid arguments (hypothesis, drawn inside the declared bounds) give a finite result or a
  clear error that names one of the arguments (a cross-argument rule such as k <= n); never nan,
  inf, ZeroDivisionError or a unit-library error;
* two values as an array work (the calculators are vectorised) or are refused clearly;
* the fast path ``calc.kernel`` on plain floats in base units gives the same number as the checked call;
* the docstring's unit table and the signature's type hints come from the declaration.

A public function that is not a declared calculator must be listed in ``PLAIN`` with the reason.
"""
from __future__ import annotations

import importlib
import inspect
import math
import pkgutil

import numpy as np
import pint
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fleetcalc.physics
from fleetcalc.core.calculator import WHOLE, is_calculator
from fleetcalc.core.units import Q_, Quantity
from fleetcalc.core.validate import nonfinite_parts

from strategies import array_of, malformed, outside, strategy, typical

# Public physics functions that are not declared calculators, and why.
PLAIN: dict[str, str] = {
    "design.design": "the capstone's design chain: an ordered record of declared calculator calls, no formula of its own",
    "design.device_figures": "a catalog look-up (peak, HBM, power of one device)",
    "design.layouts": "a grid of memory.per_gpu_budget calls over tensor x pipeline layouts",
    "design.summary_figures": "a design's figures in fixed units (for the summary panel's ratios)",
    "node.layout": "builds the node's component graph from the catalog (a structure, not a number)",
    "node.route": "the components a transfer passes (a list of names, not a number)",
    "node.crosses_socket": "whether a route crosses the socket link (a yes/no over node.route)",
    "node.socket_of": "which CPU a component hangs under (a name lookup in the graph)",
    "devices.device": "looks up a catalog entry by its label (a string); no numbers to declare",
    "devices.ridge_table": "a table of catalog entries; takes nothing",
    "devices.gpu_generation_table": "Table 2.2 from the catalog; takes nothing",
    "devices.tpu_generation_table": "Table 2.3 from the catalog; takes nothing",
    "devices.ratio": "new / old in whatever unit the caller gives (both of one kind, or both plain)",
    "measure.triad_bandwidth": "times this machine (a timing loop), not a formula",
    "measure.matmul_rate": "times this machine (a timing loop), not a formula",
    "measure.matmul_sweep": "times this machine over a list of sizes",
    "measure.gpu_available": "asks torch whether a GPU is present; takes nothing",
    "measure.gpu_matmul_rate": "times the GPU (a timing loop); None without one",
    "measure.gpu_copy_bandwidth": "times the GPU (a timing loop); None without one",
    "measure.gpu_triad_bandwidth": "times the GPU (a timing loop); None without one",
    "measure.matvec_rate": "times this machine (a timing loop), not a formula",
    "measure.memory_roofs": "times this machine twice (cache-sized and DRAM-sized triads)",
    "measure.cache_size": "reads this machine's cache size from Linux sysfs; no numbers to declare",
    "measure.triad_traffic": "the two byte countings of one triad (STREAM's 3 x 8n and numpy's 5 x 8n) as a labelled table",
    "checkpoint.write_checkpoint": "a simulation step on an ObjectStore object; returns whether it committed",
    "checkpoint.restore_latest": "reads an ObjectStore object; returns a RestoreResult dataclass",
    "prefetch.queue_length_trace": "takes a PrefetchRun (a simulation result), not numbers",
    "fabric.oversubscription": "port counts or capacities: the unit follows the arguments",
    "energy.power_remainder": "takes any number of parts (total, *parts): a declaration names a fixed list",
}

# Values for parameters a declaration cannot describe (declared ``anything``), and the few calls
# whose arguments are linked (one must stay below another) so that the typical value of each
# alone would break the link.
_TIERS = [Q_(3.35, "TB/s"), Q_(450, "GB/s"), Q_(50, "GB/s")]
_STAGES = [Q_(10, "ms"), Q_(20, "ms"), Q_(8, "ms"), Q_(16, "ms")]
EXAMPLES: dict[str, dict] = {
    "accelerator.occupancy": dict(blocks=2, t=128, T_SM=2048),
    "accelerator.largest_square_tile": dict(capacity=Q_(256, "KiB")),
    "roofline.min_batch_for_intensity": dict(I_target=Q_(50, "FLOP/byte"), d=4096, n=4096, s=Q_(2, "byte")),
    "devices.slowest_member_loss": dict(f_nominal=Q_(1830, "MHz"), deficit=Q_(50, "MHz")),
    "devices.annual_growth": dict(start=Q_(300, "W"), end=Q_(1000, "W")),
    "devices.project": dict(value=Q_(1000, "W")),
    "devices.years_to_reach": dict(start=Q_(1000, "W"), target=Q_(2000, "W")),
    "node.tier_array": dict(bandwidths=_TIERS),
    "node.staircase_times": dict(bandwidths=_TIERS),
    "reliability.node_failure_rate": dict(counts=[8, 1], mtbfs=[Q_(50000, "hour"), Q_(1190, "hour")]),
    "reliability.node_mtbf": dict(counts=[8, 1], mtbfs=[Q_(50000, "hour"), Q_(1190, "hour")]),
    "reliability.rest_of_node_mtbf": dict(node_mtbf_total=Q_(1000, "hour"), gpu_mtbf=Q_(50000, "hour")),
    "storage.spare_bandwidth": dict(capacity=Q_(40, "GiB/s")),
    **{f"pipeline.{f}": dict(stages=_STAGES) for f in (
        "serial_time", "pipeline_interval", "first_batch_time", "pipelined_total_time", "serial_total_time",
        "bottleneck_stage")},
    "pipeline.merge_stages": dict(stages=_STAGES, groups=[(0, 1)]),
    "storage.per_share": dict(total=Q_(40, "GiB/s")),
    "scheduler.greedy_allocation": dict(total_devices=16, jobs={"A": 12, "B": 12}),
    "scheduler.simulate_gang": dict(total_devices=16, jobs={"A": (12, 5.0), "B": (12, 3.0)}),
    **{f"storage.{f}": dict(stage_bandwidths=[Q_(32, "GiB/s"), Q_(16, "GiB/s"), Q_(24, "GiB/s")]) for f in (
        "restore_time_lower_bound", "restore_time_serial", "restore_bottleneck")},
    "facility.rack_overhead": dict(total=Q_(33.5, "kW"), gpus=32, gpu_power=Q_(700, "W")),
    "scaling_laws.resource_for_loss": dict(L_target=2.0, C_L=1.69),
    "trends.orders_of_magnitude": dict(start=Q_(1e18, "FLOP"), end=Q_(1e25, "FLOP")),
}

CLEAN = (ValueError, TypeError)
SETTINGS = settings(max_examples=25, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _public_functions():
    found = {}
    for m in sorted(pkgutil.iter_modules(fleetcalc.physics.__path__), key=lambda m: m.name):
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"fleetcalc.physics.{m.name}")
        for n in getattr(mod, "__all__", ()):
            f = getattr(mod, n)
            if callable(f) and not inspect.isclass(f) and getattr(f, "__module__", "") == mod.__name__:
                found[f"{m.name}.{n}"] = f
    return found


FUNCTIONS = _public_functions()
DECLARED = {k: f for k, f in FUNCTIONS.items() if is_calculator(f)}
IDS = sorted(DECLARED)


def test_every_public_calculator_is_declared():
    plain = sorted(k for k, f in FUNCTIONS.items() if not is_calculator(f) and k not in PLAIN)
    assert not plain, f"declare these with @calculator or list them in PLAIN with the reason: {plain}"
    stale = sorted(set(PLAIN) - set(FUNCTIONS))
    assert not stale, f"PLAIN names functions that no longer exist: {stale}"
    assert len(DECLARED) > 200


def baseline(name):
    calc = DECLARED[name]
    kw = {}
    for p, decl in calc.params.items():
        if p in EXAMPLES.get(name, {}):
            kw[p] = EXAMPLES[name][p]
        elif decl.kind == "any":
            if p not in calc.defaults:
                pytest.fail(f"{name}: parameter {p!r} is declared anything(); give it a value in EXAMPLES")
        elif p not in calc.defaults or calc.defaults[p] is None:
            if p in calc.defaults:
                continue  # optional: leave it out
            kw[p] = typical(decl)
    return kw


def _names_a_param(msg: str, calc) -> bool:
    return any(p in msg for p in calc.params)


def _outcome(name, kw):
    """None if the call was fine (finite result or a clean error naming a parameter); else a problem."""
    calc = DECLARED[name]
    try:
        res = calc(**kw)
    except CLEAN as err:
        if _names_a_param(str(err), calc):
            return None
        return f"{name}({kw}): error that names no parameter: {type(err).__name__}: {err}"
    except (ZeroDivisionError, OverflowError, pint.errors.PintError, FloatingPointError) as err:
        return f"{name}({kw}): {type(err).__name__}: {err}"
    bad = nonfinite_parts(res)
    return f"{name}({kw}): non-finite {bad}" if bad else None


@pytest.mark.parametrize("name", IDS)
def test_typical_call_is_finite(name):
    kw = baseline(name)
    calc = DECLARED[name]
    with np.errstate(all="raise"):
        res = calc(**kw)
    assert not nonfinite_parts(res), f"{name}({kw}) = {res}"


@pytest.mark.parametrize("name", IDS)
def test_bad_inputs_are_refused_by_name(name):
    calc = DECLARED[name]
    kw = baseline(name)
    problems = []
    for p, decl in calc.params.items():
        for label, value in malformed(decl, calc.defaults.get(p, 0)) + outside(decl):
            bad = dict(kw, **{p: value})
            try:
                calc(**bad)
            except CLEAN as err:
                if p not in str(err):
                    problems.append(f"{p} = {label}: message does not name {p!r}: {err}")
                continue
            except Exception as err:  # noqa: BLE001 - any other error is the finding
                problems.append(f"{p} = {label}: {type(err).__name__}: {err}")
                continue
            problems.append(f"{p} = {label}: accepted")
    assert not problems, f"{name}:\n" + "\n".join(problems)


def valid_draws(name):
    """(fixed arguments from EXAMPLES, hypothesis strategies for the rest) of one calculator."""
    calc = DECLARED[name]
    fixed = dict(EXAMPLES.get(name, {}))
    return fixed, {p: strategy(d) for p, d in calc.params.items() if p not in fixed and d.kind != "any"}


@pytest.mark.parametrize("name", IDS)
def test_random_valid_inputs(name):
    fixed, drawn = valid_draws(name)
    problems = []

    @SETTINGS
    @given(st.fixed_dictionaries(drawn))
    def run(kw):
        r = _outcome(name, {**fixed, **kw})
        if r:
            problems.append(r)

    run()
    assert not problems, "\n".join(problems[:5])


@pytest.mark.parametrize("name", IDS)
def test_arrays_work(name):
    calc = DECLARED[name]
    kw = baseline(name)
    problems = []
    for p, decl in calc.params.items():
        if p not in kw or decl.kind in ("any", "choice"):
            continue
        arr = array_of(kw[p])
        if arr is None:
            continue
        r = _outcome(name, dict(kw, **{p: arr}))
        if r:
            problems.append(r)
    assert not problems, "\n".join(problems)


def _floats(calc, kw):
    """The arguments in base units (SI, bytes, FLOP), as pint converts them: kernels take these."""
    out = {}
    for p, v in kw.items():
        kind = calc.params[p].kind
        if kind == "quantities" and isinstance(v, (list, tuple)):   # a list of quantities: each item in base units
            out[p] = [_base_magnitude(x) if isinstance(x, Quantity) else x for x in v]
        else:
            out[p] = _base_magnitude(v) if kind in ("quantity", "amount", "quantities") and isinstance(v, Quantity) else v
    return out


def _base_magnitude(q):
    """pint's base-unit magnitude, with information in bytes (pint's base is the bit)."""
    b = q.to_base_units()
    return b.magnitude / 8.0 ** dict(b.units._units).get("bit", 0)


@pytest.mark.parametrize("name", [n for n in IDS if isinstance(DECLARED[n].returns, str)])
def test_kernel_is_the_same_formula(name):
    calc = DECLARED[name]
    kw = baseline(name)
    checked = calc(**kw)
    fast = calc.kernel(**{**{p: v for p, v in calc.defaults.items()}, **_floats(calc, kw)})
    want = (checked if calc.returns == WHOLE else _base_magnitude(checked) if calc.returns else checked.m_as(""))
    assert np.allclose(np.asarray(fast, dtype=float), want, rtol=1e-12, atol=0), (fast, want)


@pytest.mark.parametrize("name", IDS)
def test_docs_and_hints_come_from_the_declaration(name):
    calc = DECLARED[name]
    doc = calc.__doc__ or ""
    assert "Parameters (unit, allowed range)" in doc
    for p, decl in calc.params.items():
        assert f"    {p} : " in doc, f"{name}: {p} missing from the unit table"
        if decl.kind == "quantity":
            assert decl.unit in doc
    sig = inspect.signature(calc)
    assert all(q.annotation is not inspect.Parameter.empty for q in sig.parameters.values())
    if calc.returns == WHOLE:
        assert sig.return_annotation is int   # a whole number comes back as an int
    elif isinstance(calc.returns, str):
        assert sig.return_annotation is Quantity
    first = doc.strip().splitlines()[0]
    assert len(first) > 10 and not first.startswith("Parameters"), f"{name}: no formula line"


def test_declared_bounds_are_the_checked_bounds():
    """The declaration is what the wrapper enforces: a value one step inside each bound passes."""
    problems = []
    for name in IDS:
        calc = DECLARED[name]
        kw = baseline(name)
        for p, decl in calc.params.items():
            for bound, inside in ((decl.gt, "up"), (decl.ge, "at"), (decl.lt, "down"), (decl.le, "at")):
                if bound is None or decl.kind not in ("quantity", "number", "whole"):
                    continue
                x = bound if inside == "at" else bound + (1 if decl.kind == "whole" else max(abs(bound), 1) * 1e-6) * (
                    1 if inside == "up" else -1)
                v = Q_(x, decl.unit) if decl.kind == "quantity" else x
                try:
                    decl.check(p, v)
                except CLEAN as err:
                    problems.append(f"{name}.{p} = {x}: {err}")
    assert not problems, "\n".join(problems[:10])
