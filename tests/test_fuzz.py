"""Fuzz every public calculator in lib/fleetcalc (hypothesis + a fixed list of bad inputs).

Calculators are discovered, not listed: every public function defined in a module of
``fleetcalc`` except the infrastructure and simulation modules in ``EXCLUDED_MODULES``. For each
one a valid call is found by *probing*: start every required argument at 2, then follow the
validation messages ("beta_mem needs a quantity in byte/s ...", "p must be >= 2 ...", "deficit
must be < f_nominal ...") until the call succeeds. The few that need a list or a string get a
hand-written baseline in ``MANUAL``. A calculator whose messages cannot guide the probe fails
``test_valid_call_found``: its messages do not name its own parameters.

Then, one argument at a time (the others at their valid baseline):

* bad inputs (nan, +-inf, a plain number where a unit is needed, a wrong unit, a string, None,
  True, a dict, an empty array, an array holding a nan or a string) must raise ``InputError``,
  ``ValueError`` or ``TypeError`` whose message names the parameter and shows the value;
* negative values (hypothesis) of a dimensioned argument must raise such an error; zero and
  negative plain numbers may be accepted only with a finite result;
* valid random inputs (hypothesis: every argument scaled by up to 30x either way) give a finite
  result or a clear error naming one of the parameters; never nan, inf, a ZeroDivisionError or a
  unit-library error;
* an array of two valid values works (finite) or is refused clearly.

Invariants the books state are checked on random valid inputs at the end of the file (roofline
under both roofs, ring all-reduce time growing with p, w(tau) minimised at tau*, pipeline
interval = slowest stage, MTBF of N parts = MTBF/N, probabilities in [0, 1]).

``python tests/test_fuzz.py`` prints every failing case grouped by module. Failing calculators are
never skipped or xfailed here: they get fixed.
"""
from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import re
import warnings

import numpy as np
import pytest

from fleetcalc.core.validate import nonfinite_parts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fleetcalc
import fleetcalc.physics
from fleetcalc.core.units import Q_, Quantity

EXCLUDED_MODULES = {"widgets", "plots", "book", "catalog", "exercises", "exercise_bank", "notebook",
                    "units", "validate", "measure",
                    # data tables and simulations without a simple numeric entry point
                    "notation", "checkpoint", "scheduler"}
EXCLUDED_FUNCS = {"prefetch.queue_length_trace"}  # takes a simulation result, not numbers

# Baselines the probe cannot find (lists, strings, any-unit arguments, linked arguments).
MANUAL = {
    "accelerator.occupancy": dict(blocks=2, t=128, T_SM=2048),
    "devices.device": None,  # filled below with the first key the table accepts
    "devices.project": dict(value=Q_(700, "W"), rate=0.2, periods=3),
    "energy.movement_to_compute": dict(D_vol=Q_(2, "byte"), energy_per_bit=Q_(2, "pJ/bit"), macs=2,
                                       energy_per_mac=Q_(1, "pJ")),
    "fabric.fat_tree_tiers_needed": dict(hosts=1000, k=64),
    "inference.token_latency_floor": dict(Q=Q_(14, "GB"), beta_mem=Q_(3.35, "TB/s")),
    "inference.devices_to_hold": dict(size=Q_(350, "GB"), capacity=Q_(80, "GB")),
    "node.transfer_time": dict(D_vol=Q_(1, "GB"), BW=Q_(900, "GB/s")),
    "node.staircase_times": dict(D_vol=Q_(1, "GB"), bandwidths=[Q_(3.35, "TB/s"), Q_(450, "GB/s")]),
    "reliability.node_failure_rate": dict(counts=[8, 2], mtbfs=[Q_(50000, "hour"), Q_(100000, "hour")]),
    "reliability.node_mtbf": dict(counts=[8, 2], mtbfs=[Q_(50000, "hour"), Q_(100000, "hour")]),
    "reliability.rest_of_node_mtbf": dict(node_mtbf_total=Q_(5000, "hour"), gpu_mtbf=Q_(50000, "hour"), gpus=8),
    "parallel_scaling.ring_fleet_terms": dict(N=8, T_compute=Q_(1, "s"), M=Q_(1, "GB"), alpha=Q_(5, "us"),
                                     beta_net=Q_(50, "GB/s")),
    "parallel_scaling.ring_scaling_efficiency": dict(N=8, T_compute=Q_(1, "s"), M=Q_(1, "GB"), alpha=Q_(5, "us"),
                                            beta_net=Q_(50, "GB/s")),
    "storage.effective_bandwidth": dict(beta_io=Q_(2, "GB/s"), iops=Q_(1e4, "request/s"), request_size=Q_(1, "MB")),
    "storage.bandwidth_limit": dict(beta_io=Q_(2, "GB/s"), iops=Q_(1e4, "request/s"), request_size=Q_(1, "MB")),
    "storage.in_flight_requests": dict(rate=Q_(1e4, "request/s"), latency=Q_(1, "ms")),
    "storage.per_share": dict(total=Q_(40, "GiB/s"), shares=4),
    "storage.restore_time_lower_bound": dict(S_c=Q_(1, "TB"), stage_bandwidths=[Q_(40, "GB/s"), Q_(25, "GB/s")]),
    "storage.restore_time_serial": dict(S_c=Q_(1, "TB"), stage_bandwidths=[Q_(40, "GB/s"), Q_(25, "GB/s")]),
    "storage.restore_bottleneck": dict(stage_bandwidths=[Q_(40, "GB/s"), Q_(25, "GB/s")]),
    "pipeline.serial_time": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")]),
    "pipeline.pipeline_interval": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")]),
    "pipeline.first_batch_time": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")]),
    "pipeline.pipelined_total_time": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")], n_batches=10),
    "pipeline.serial_total_time": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")], n_batches=10),
    "pipeline.bottleneck_stage": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")]),
    "pipeline.merge_stages": dict(stages=[Q_(2, "ms"), Q_(3, "ms"), Q_(1, "ms")], groups=[(0, 1)]),
    "prefetch.simulate_prefetch": dict(n_batches=8, t_read=Q_(2, "ms"), t_prep=Q_(3, "ms"), t_copy=Q_(1, "ms"),
                                       t_compute=Q_(4, "ms"), K=2),
}
# Arguments that accept any unit (the result keeps it): a wrong dimension is not an error there.
ANY_UNIT = {("devices.project", "value"), ("storage.per_share", "total")}
# The errors a calculator may raise for bad input (InputError and UnitMismatch are both).
CLEAN = (ValueError, TypeError)


# ----------------------------------------------------------------------------- discovery

def discover():
    found = []
    for m in sorted(pkgutil.iter_modules(fleetcalc.physics.__path__), key=lambda m: m.name):
        if m.name in EXCLUDED_MODULES or m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"fleetcalc.physics.{m.name}")
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for n in names:
            f = getattr(mod, n, None)
            if inspect.isfunction(f) and f.__module__ == mod.__name__ and f"{m.name}.{n}" not in EXCLUDED_FUNCS:
                found.append((f"{m.name}.{n}", f))
    return found


_NEEDS_Q = re.compile(r"^(\w+) needs a (?:quantity|rate|Quantity) in (.+?)(?: \(e\.g\.|;|$)")
_EG = re.compile(r"^(\w+) needs .*?e\.g\. Q_\(([^,]+), '([^']+)'\)")
_BOUND = re.compile(r"^(\w+) must be (>=|<=|>|<) (-?[\d.]+(?:e[+-]?\d+)?)\s*([^;(]*)")
_REL = re.compile(r"^(\w+) must be (>=|<=|>|<) ")


def _scaled(v, factor):
    return v * factor


def probe(f, start=2):
    """Find a valid call of ``f`` by following its validation messages. Returns (kwargs, error)."""
    sig = inspect.signature(f)
    req = [p.name for p in sig.parameters.values()
           if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    kw = {n: start for n in req}
    last = None
    for _ in range(60):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f(**kw)
            return kw, None
        except Exception as exc:  # noqa: BLE001
            msg = str(exc)
            last = f"{type(exc).__name__}: {msg}"
            m = _EG.match(msg) or _NEEDS_Q.match(msg)
            if m and m.group(1) in kw:
                unit = m.group(3) if m.re is _EG else m.group(2)
                try:
                    kw[m.group(1)] = Q_(2, unit)
                    continue
                except Exception:  # noqa: BLE001
                    return kw, last
            m = re.match(r"^(\w+) needs a (?:quantity|number) without units", msg)
            if m and m.group(1) in kw:
                kw[m.group(1)] = 2
                continue
            m = _BOUND.match(msg)
            if m and m.group(1) in kw:
                name, op, b, unit = m.groups()
                b = float(b)
                v = (b + 1 if op in (">", ">=") else (b / 2 if b > 0 else b - 1))
                try:
                    kw[name] = Q_(v, unit.strip()) if unit.strip() else v
                    continue
                except Exception:  # noqa: BLE001
                    return kw, last
            m = _REL.match(msg)
            if m and m.group(1) in kw:
                kw[m.group(1)] = _scaled(kw[m.group(1)], 2 if m.group(2) in (">", ">=") else 0.5)
                continue
            m = re.match(r"^(\w+) must be (-?[\d.]+) or (-?[\d.]+)", msg)
            if m and m.group(1) in kw:
                kw[m.group(1)] = int(m.group(2)) if m.group(2).lstrip("-").isdigit() else float(m.group(2))
                continue
            m = re.match(r"^(\w+) must be a whole number", msg)
            if m and m.group(1) in kw:
                v = kw[m.group(1)]
                kw[m.group(1)] = int(math.ceil(v.magnitude if isinstance(v, Quantity) else v))
                continue
            return kw, last
    return kw, last


CALCULATORS = discover()
FUNCS = dict(CALCULATORS)
IDS = [name for name, _ in CALCULATORS]


def _device_key():
    from fleetcalc.physics import devices

    try:
        devices.device("")
    except Exception as exc:  # noqa: BLE001 - the message lists the keys
        m = re.search(r"\['([^']+)'", str(exc))
        return dict(key=m.group(1)) if m else None
    return None


def _baselines():
    out, errors = {}, {}
    for name, f in CALCULATORS:
        if name in MANUAL:
            kw = _device_key() if name == "devices.device" else dict(MANUAL[name])
            if kw is None:
                errors[name] = "no manual baseline"
                continue
            try:
                f(**kw)
                out[name] = kw
            except Exception as exc:  # noqa: BLE001
                errors[name] = f"manual baseline {kw} fails: {type(exc).__name__}: {exc}"
            continue
        kw, err = probe(f)
        if err is None:
            out[name] = kw
        else:
            errors[name] = err
    return out, errors


BASELINES, PROBE_ERRORS = _baselines()


# ----------------------------------------------------------------------------- helpers

nonfinite = nonfinite_parts  # shared with the other range/fuzz tests (fleetcalc.core.validate)


def names_param(msg: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", msg) is not None


def call(f, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(**kw)


def _short(v) -> str:
    s = repr(v)
    return s if len(s) < 80 else s[:77] + "..."


def _magnitude_of(v):
    return v.magnitude if isinstance(v, Quantity) else v


def numeric_params(name):
    """(param, kind) for every argument of the baseline: 'quantity', 'number' or 'list'."""
    out = []
    for p, v in BASELINES.get(name, {}).items():
        if isinstance(v, Quantity):
            out.append((p, "quantity"))
        elif isinstance(v, bool):
            continue
        elif isinstance(v, (int, float, np.number)):
            out.append((p, "number"))
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], (Quantity, int, float)):
            out.append((p, "list"))
        elif isinstance(v, (str, list, tuple)):
            out.append((p, "string"))  # only wrong types are tried
    return out


def _wrong_unit(base):
    """A unit of another dimension than ``base``'s (kg, or s for a mass)."""
    return "second" if base.dimensionality == Q_(1, "kg").dimensionality else "kilogram"


def bad_values(fname, p, kind, base):
    """(label, value, texts the message may show: one of them must appear) for one argument."""
    cases = [("None", None, ("None",)), ("True", True, ("True",)), ("dict", {"a": 1}, ("dict", "{'a': 1}")),
             ("a string", "2 TB/s", ("2 TB/s",))]
    if kind == "string":
        return cases if not isinstance(base, str) else cases + [("a number", 2.5, ("2.5",))]
    if kind == "list":
        first = base[0]
        cases += [("an empty list", [], ()),
                  ("a list holding nan", [first * math.nan] + list(base[1:]), ("nan",)),
                  ("a list holding a string", ["x"] + list(base[1:]), ())]
        return cases
    b = abs(float(np.max(_magnitude_of(base)))) or 1.0
    plain = (f"{b:g}", repr(b), str(b))
    if kind == "quantity":
        u = str(base.units)
        cases += [("nan", Q_(math.nan, u), ("nan",)), ("inf", Q_(math.inf, u), ("inf",)),
                  ("-inf", Q_(-math.inf, u), ("inf",)),
                  ("a plain number (no unit)", b, plain),
                  ("an empty array", Q_(np.array([]), u), ()),
                  ("an array holding nan", Q_(np.array([b, math.nan]), u), ("nan",)),
                  ("a list holding a string", [b, "x"], ())]
        if (fname, p) not in ANY_UNIT:
            wrong = _wrong_unit(base)
            cases.append((f"a wrong unit ({wrong})", Q_(b, wrong), (wrong, f"{Q_(1, wrong).units:~P}")))
        return cases
    cases += [("nan", math.nan, ("nan",)), ("inf", math.inf, ("inf",)), ("-inf", -math.inf, ("inf",)),
              ("a quantity in kg", Q_(b, "kg"), ("kg", "kilogram")), ("an empty list", [], ()),
              ("an array holding nan", np.array([b, math.nan]), ("nan",)),
              ("a list holding a string", [b, "x"], ())]
    return cases


def check_bad(fname, p, label, value, show):
    """None if ``f`` refuses ``value`` for ``p`` clearly, else a problem line."""
    f = FUNCS[fname]
    kw = dict(BASELINES[fname])
    kw[p] = value
    try:
        res = call(f, kw)
    except CLEAN as exc:
        msg = str(exc)
        if not names_param(msg, p):
            return f"{fname}({p}={_short(value)}) [{label}]: {type(exc).__name__} does not name {p!r}: {msg[:200]!r}"
        if show and not any(t.lower() in msg.lower() for t in show):
            return f"{fname}({p}={_short(value)}) [{label}]: message does not show the value: {msg[:200]!r}"
        return None
    except Exception as exc:  # noqa: BLE001
        return f"{fname}({p}={_short(value)}) [{label}]: unclear {type(exc).__name__}: {str(exc)[:200]!r}"
    bad = nonfinite(res)
    if bad:
        return f"{fname}({p}={_short(value)}) [{label}]: returned non-finite {bad}"
    return f"{fname}({p}={_short(value)}) [{label}]: accepted, returned {_short(res)}"


def check_valid(fname, kw, what):
    """None if ``f(**kw)`` is finite or a clear refusal naming one of its parameters."""
    f = FUNCS[fname]
    try:
        res = call(f, kw)
    except CLEAN as exc:
        msg = str(exc)
        if any(names_param(msg, p) for p in inspect.signature(f).parameters) or names_param(msg, f.__name__):
            return None  # names a parameter (a cross-constraint), or the function ("takes scalars; use ...")
        return f"{fname}({', '.join(f'{k}={_short(v)}' for k, v in kw.items())}) [{what}]: " \
               f"{type(exc).__name__} names none of its parameters: {msg[:200]!r}"
    except Exception as exc:  # noqa: BLE001
        return f"{fname}({', '.join(f'{k}={_short(v)}' for k, v in kw.items())}) [{what}]: " \
               f"unclear {type(exc).__name__}: {str(exc)[:200]!r}"
    bad = nonfinite(res)
    if bad:
        return f"{fname}({', '.join(f'{k}={_short(v)}' for k, v in kw.items())}) [{what}]: returned non-finite {bad}"
    return None


def _fail(fname, problems):
    pytest.fail(f"{fname}:\n" + "\n".join(problems[:20])
                + (f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""), pytrace=False)


# Per calculator (about 250 of them, four tests each): few examples, the suite stays < 60 s.
FUZZ = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
# The stated invariants: more examples.
INVARIANT = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                     suppress_health_check=list(HealthCheck))


# ----------------------------------------------------------------------------- tests

def test_calculators_discovered():
    assert len(CALCULATORS) > 50, [n for n, _ in CALCULATORS]


def problems_baseline(fname):
    """The probe (or MANUAL) found inputs the calculator accepts, with a finite result."""
    if fname in PROBE_ERRORS:
        return [f"no valid call found from its error messages; last: {PROBE_ERRORS[fname][:300]}"
                " (does the message name the function's own parameter?)"]
    res = call(FUNCS[fname], BASELINES[fname])
    bad = nonfinite(res)
    return [f"{fname}({BASELINES[fname]}) returned non-finite {bad}"] if bad else []


def problems_bad_inputs(fname):
    problems = []
    for p, kind in numeric_params(fname):
        for label, value, show in bad_values(fname, p, kind, BASELINES[fname][p]):
            r = check_bad(fname, p, label, value, show)
            if r:
                problems.append(r)
    return problems


def problems_negative_and_zero(fname):
    """Negative dimensioned values must be refused; zero or negative plain numbers may be
    accepted only with a finite result (else refused clearly)."""
    params = [(p, k) for p, k in numeric_params(fname) if k in ("quantity", "number")]
    if not params:
        return []
    problems = []

    @FUZZ
    @given(st.sampled_from(params), st.floats(1e-6, 1e12))
    def run(pk, x):
        p, kind = pk
        base = BASELINES[fname][p]
        for v, label in ((-x, "negative"), (0, "zero")):
            if kind == "quantity":
                value = Q_(v, str(base.units))
            else:
                value = -int(math.ceil(x)) if (v and isinstance(base, int)) else v
            if kind == "quantity" and label == "negative":
                r = check_bad(fname, p, label, value, ("-",))
            else:
                kw = dict(BASELINES[fname])
                kw[p] = value
                r = check_valid(fname, kw, label)
            if r:
                problems.append(r)

    run()
    for p, kind in params:  # small whole numbers at the low end (k = 1, 2 for a radix, ...)
        if kind == "number" and isinstance(BASELINES[fname][p], int):
            for v in (1, 2):
                kw = dict(BASELINES[fname])
                kw[p] = v
                r = check_valid(fname, kw, f"{p}={v}")
                if r:
                    problems.append(r)
    return sorted(set(problems))


def _random_kwargs(fname, draw):
    kw = {}
    for p, v in BASELINES[fname].items():
        if isinstance(v, bool) or isinstance(v, str):
            kw[p] = v
        elif isinstance(v, int):
            kw[p] = draw(st.integers(1, max(4, 64 * v)))
        elif isinstance(v, (float, Quantity)):
            kw[p] = v * 10 ** draw(st.floats(-1.5, 1.5))
        elif isinstance(v, (list, tuple)):
            kw[p] = [x * 10 ** draw(st.floats(-1.5, 1.5)) if not isinstance(x, (int, tuple)) else x for x in v]
        else:
            kw[p] = v
    return kw


def problems_random_valid(fname):
    if not BASELINES[fname]:
        return []
    problems = []

    @FUZZ
    @given(st.data())
    def run(data):
        kw = _random_kwargs(fname, data.draw)
        r = check_valid(fname, kw, "random valid-looking input")
        if r:
            problems.append(r)

    run()
    return sorted(set(problems))


def problems_arrays(fname):
    """Two valid values as an array (the convention is vectorised): finite, or refused clearly."""
    problems = []
    for p, kind in numeric_params(fname):
        base = BASELINES[fname][p]
        if kind == "quantity" and np.ndim(base.magnitude) == 0:
            value = Q_(np.array([base.magnitude, base.magnitude * 1.5]), str(base.units))
        elif kind == "number" and np.ndim(base) == 0:
            value = np.array([base, base * 2 if isinstance(base, int) else base * 1.5])
        else:
            continue
        kw = dict(BASELINES[fname])
        kw[p] = value
        r = check_valid(fname, kw, f"array for {p}")
        if r:
            problems.append(r)
    return problems


def all_problems(fname) -> list[str]:
    probs = problems_baseline(fname)
    if probs:
        return probs
    for check in (problems_bad_inputs, problems_negative_and_zero, problems_random_valid, problems_arrays):
        probs += check(fname)
    return probs


@pytest.mark.parametrize("fname", IDS)
def test_calculator(fname):
    """One calculator: a valid call exists; bad inputs are refused clearly (naming the parameter
    and the value); negatives/zero; random valid inputs give finite results; arrays work."""
    problems = all_problems(fname)
    if problems:
        _fail(fname, problems)


# ----------------------------------------------------------------------------- invariants

pos = st.floats(1e-3, 1e3)


@INVARIANT
@given(I=st.floats(0, 1e5), r=pos, b=pos)
def test_roofline_never_exceeds_either_roof(I, r, b):
    from fleetcalc.physics import roofline

    R = roofline.attainable_rate(Q_(I, "FLOP/byte"), Q_(r, "TFLOP/s"), Q_(b, "TB/s")).m_as("TFLOP/s")
    assert R <= r * (1 + 1e-12)
    assert R <= I * b * (1 + 1e-12) + 1e-300


@INVARIANT
@given(m=st.floats(1e-3, 1e4), alpha=st.floats(0.1, 100), beta=st.floats(1, 1000), pmax=st.integers(3, 512))
def test_ring_allreduce_time_grows_with_p(m, alpha, beta, pmax):
    from fleetcalc.physics import collectives

    ps = np.arange(2, pmax + 1)
    t = collectives.ring_allreduce_time(ps, Q_(m, "MB"), Q_(alpha, "us"), Q_(beta, "GB/s")).m_as("s")
    assert np.all(np.diff(t) >= -1e-15 * t[1:]), "ring all-reduce time fell as p grew"
    t2 = [collectives.ring_allreduce_time(int(p), Q_(m, "MB"), Q_(alpha, "us"), Q_(beta, "GB/s")).m_as("s")
          for p in (2, pmax)]
    assert np.allclose(t2, t[[0, -1]], rtol=1e-12), "array and scalar p disagree"


@INVARIANT
@given(C=st.floats(1, 3600), M=st.floats(3600, 1e7), R_f=st.floats(0, 3600),
       k=st.sampled_from([0.25, 0.5, 0.9, 0.99, 1.01, 1.1, 2.0, 4.0]))
def test_waste_minimised_at_young_daly(C, M, R_f, k):
    from fleetcalc.physics import reliability

    Cq, Mq, Rq = Q_(C, "s"), Q_(M, "s"), Q_(R_f, "s")
    tau_star = reliability.young_daly_interval(Cq, Mq)
    w_star = reliability.waste_fraction(tau_star, Cq, Mq, Rq).m_as("")
    assert w_star <= reliability.waste_fraction(tau_star * k, Cq, Mq, Rq).m_as("") * (1 + 1e-12)
    assert math.isclose(w_star, reliability.min_waste_fraction(Cq, Mq, Rq).m_as(""), rel_tol=1e-9)


@INVARIANT
@given(st.lists(st.floats(1e-3, 1e4), min_size=1, max_size=8))
def test_pipeline_interval_is_slowest_stage(ts):
    from fleetcalc.physics import pipeline

    stages = [Q_(t, "ms") for t in ts]
    assert math.isclose(pipeline.pipeline_interval(stages).m_as("ms"), max(ts), rel_tol=1e-12)
    assert pipeline.bottleneck_stage(stages) == int(np.argmax(ts))
    assert pipeline.pipelined_total_time(stages, 1).m_as("ms") == pytest.approx(sum(ts), rel=1e-12)


@INVARIANT
@given(M=st.floats(1, 1e7), N=st.integers(1, 10**6))
def test_mtbf_of_n_parts_falls_as_one_over_n(M, N):
    from fleetcalc.physics import reliability

    one = reliability.mtbf_of_n(Q_(M, "hour"), 1).m_as("hour")
    n = reliability.mtbf_of_n(Q_(M, "hour"), N).m_as("hour")
    assert math.isclose(one, M, rel_tol=1e-12)
    assert math.isclose(n * N, M, rel_tol=1e-9)


PROBABILITY_FUNCS = [n for n in IDS if re.search(r"probability|_cdf$", n.split(".")[1])]


@pytest.mark.parametrize("fname", PROBABILITY_FUNCS)
def test_probabilities_stay_in_unit_interval(fname):
    if fname not in BASELINES:
        pytest.skip("no valid baseline (see test_valid_call_found)")
    problems = []

    @FUZZ
    @given(st.data())
    def run(data):
        kw = _random_kwargs(fname, data.draw)
        try:
            res = call(FUNCS[fname], kw)
        except CLEAN:
            return
        v = np.asarray(res.m_as("") if isinstance(res, Quantity) else res, dtype=float)
        if not np.all((v >= 0) & (v <= 1)):
            problems.append(f"{fname}({kw}) = {v} is outside [0, 1]")

    run()
    assert not problems, "\n".join(problems[:10])


def test_failure_probability_grows_with_window():
    from fleetcalc.physics import reliability

    d = Q_(np.array([1, 10, 100, 1000, 1e4]), "hour")
    p = np.asarray(reliability.failure_probability(d, Q_(500, "hour")).m_as(""))
    assert np.all(np.diff(p) > 0) and np.all((p >= 0) & (p <= 1))


# ----------------------------------------------------------------------------- report

def report() -> str:
    """Every failing case, grouped by module (markdown)."""
    by_module: dict[str, list[str]] = {}
    for fname, _ in CALCULATORS:
        problems = all_problems(fname)
        if problems:
            module = fname.split(".")[0]
            by_module.setdefault(module, []).append(
                f"- `{fname}`:\n" + "\n".join(f"    - {l}" for l in problems[:8])
                + (f"\n    - ... {len(problems) - 8} more" if len(problems) > 8 else ""))
    lines = []
    for module in sorted(by_module):
        lines += [f"### {module}", ""] + by_module[module] + [""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
