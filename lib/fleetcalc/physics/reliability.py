"""Reliability of synchronous jobs and nodes, and checkpoint intervals: Ch. 28 §28.9
(Eq. 28.23-28.25) and Vol. 2 Ch. 2 §Node health (lines 2081-2098).

Symbols follow §28.1: ``C`` the foreground pause to save a checkpoint (s), ``tau`` the useful
compute between saves (s), ``M`` the job's mean time between failures (MTBF, s), ``R_f`` the
recovery time (s). Failures are modelled as a stationary Poisson process (independent,
exponentially distributed gaps); correlated failures (shared power, network, software bugs)
break the model, as the book stresses.

A node (or any system) that stops when one of its parts fails is a series system: its failure
rate is the sum of its parts' rates (:func:`node_failure_rate`), its MTBF the inverse
(:func:`node_mtbf`); n identical parts give :func:`mtbf_of_n`.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import anything, base_factor, calculator, num, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.units import Quantity
from fleetcalc.core.validate import InputError, count, magnitude, nonempty_list

__all__ = [
    "failure_rate", "mtbf_of_n", "job_failure_rate", "failure_probability", "waste_terms",
    "waste_fraction", "young_daly_interval", "min_waste_fraction", "system_reliability", "fit_to_rate",
    "node_failure_rate", "node_mtbf", "rest_of_node_mtbf", "expected_failures", "restart_overhead",
    "failure_probability_of_fleet",
]

_HOUR = base_factor("hour")          # s in one hour, for messages in hours
_PER_FIT = base_factor("1/gigahour")  # one FIT: one failure in 10^9 device-hours, in 1/s
_MTBF = {"mtbf": r"\mathrm{MTBF}", "mtbf_one": r"\mathrm{MTBF}", "n": "N", "duration": "t"}


@calculator(returns="1/s", mtbf=qty("s", gt=0, doc="mean time between failures"),
            equation=eq(r"\lambda", "1/mtbf", symbols=_MTBF, ref="Ch. 28 §28.9 (exponential failures)"))
def failure_rate(mtbf):
    """lambda = 1 / MTBF (failures per second) for an exponential failure model (Ch. 28 §28.9)."""
    return 1.0 / mtbf


@calculator(returns="1/s", rate_one=qty("1/s", ge=0, doc="failure rate of one part"),
            n=whole(doc="independent parts"),
            equation=eq(r"\lambda_{\mathrm{job}}", "n*rate_one", symbols={"n": "p", "rate_one": r"\lambda"},
                        ref="Ch. 28 §28.9 (p independent nodes: p λ)"))
def job_failure_rate(rate_one, n):
    """A job that stops when any of n independent parts fails fails at rate n * lambda (Ch. 28 §28.9)."""
    return n * rate_one


@calculator(returns="s", mtbf_one=qty("s", gt=0, doc="MTBF of one part"), n=whole(doc="independent, identical parts"),
            equation=eq("M", "mtbf_one/n", symbols={"mtbf_one": r"\mathrm{MTBF}_{1}", "n": "p"},
                        ref="Ch. 28 §28.9 (1/(p λ) with λ = 1/MTBF)"))
def mtbf_of_n(mtbf_one, n):
    """MTBF of a job on n independent, identical parts: 1 / (n lambda) = MTBF_one / n (Ch. 28 §28.9)."""
    return mtbf_one / n


@calculator(returns="", duration=qty("s", ge=0, doc="the window"), mtbf=qty("s", gt=0),
            equation=eq("P", "-expm1(-(duration/mtbf))", symbols={"duration": "t", "mtbf": r"\mathrm{MTBF}"},
                        ref="Ch. 28 §28.9 (exponential failures); Vol. 2 Eq. 1.1"))
def failure_probability(duration, mtbf):
    """P(at least one failure in a window) = 1 - exp(-duration / MTBF), exponential failures
    (Ch. 28 §28.9's Poisson assumption)."""
    return -np.expm1(-duration / mtbf)


@calculator(returns={"save": "", "lost": "", "recover": ""},
            tau=qty("s", gt=0, doc="useful compute between saves"), C=qty("s", ge=0, doc="save pause"),
            M=qty("s", gt=0, doc="job MTBF"), R_f=qty("s", ge=0, doc="recovery time"),
            equation={"save": eq(r"w_{\mathrm{save}}", "C/tau", ref="Ch. 28 §28.9, Eq. 28.23"),
                      "lost": eq(r"w_{\mathrm{lost}}", "tau/(2*M)", ref="Ch. 28 §28.9, Eq. 28.23"),
                      "recover": eq(r"w_{\mathrm{recover}}", "R_f/M", ref="Ch. 28 §28.9, Eq. 28.23")})
def waste_terms(tau, C, M, R_f):
    """The three terms of Eq. 28.23 (Ch. 28): save = C/tau, lost = tau/(2M), recover = R_f/M.

    Returns a dict of dimensionless Quantities (fractions of useful time).
    """
    return {"save": C / tau + 0.0 * M * R_f,
            "lost": tau / (2.0 * M) + 0.0 * C * R_f,
            "recover": R_f / M + 0.0 * tau * C}


@calculator(returns="", tau=qty("s", gt=0, doc="useful compute between saves"), C=qty("s", ge=0, doc="save pause"),
            M=qty("s", gt=0, doc="job MTBF"), R_f=qty("s", ge=0, doc="recovery time"),
            equation=eq(r"w(\tau)", "C/tau + tau/(2*M) + R_f/M", ref="Ch. 28 §28.9, Eq. 28.23"))
def waste_fraction(tau, C, M, R_f):
    """w(tau) ~= C/tau + tau/(2M) + R_f/M, lost time per unit useful time, Ch. 28 Eq. 28.23
    (valid when C, R_f and tau are small against M)."""
    return sum(waste_terms.kernel(tau, C, M, R_f).values())


@calculator(returns="s", C=qty("s", gt=0, doc="save pause"), M=qty("s", gt=0, doc="job MTBF"),
            equation=eq(r"\tau_*", "sqrt(2*C*M)", ref="Ch. 28 §28.9, Eq. 28.24"))
def young_daly_interval(C, M):
    """tau* = sqrt(2 C M), the minimum of Eq. 28.23, Ch. 28 Eq. 28.24 (Young-Daly)."""
    return np.sqrt(2.0 * C * M)


@calculator(returns="", C=qty("s", gt=0, doc="save pause"), M=qty("s", gt=0, doc="job MTBF"),
            R_f=qty("s", ge=0, doc="recovery time"),
            equation=eq(r"w(\tau_*)", "sqrt(2*C/M) + R_f/M",
                        ref="Ch. 28 §28.9, Eq. 28.23 at Eq. 28.24's τ* (save and lost terms each sqrt(C/(2M)))"))
def min_waste_fraction(C, M, R_f):
    """w(tau*) = sqrt(2C/M) + R_f/M: at tau* the save and lost terms are equal, each sqrt(C/(2M))
    (Ch. 28 §28.9, after Eq. 28.25)."""
    return np.sqrt(2.0 * C / M) + R_f / M


@calculator(returns="", r_component=num(gt=0, le=1, doc="reliability of one part"), n=whole(doc="parts in series"),
            equation=eq(r"R_{\mathrm{system}}", "r_component**n",
                        symbols={"r_component": r"R_{\mathrm{component}}", "n": "N"}, ref="Vol. 2 Ch. 1, Eq. 1.1"))
def system_reliability(r_component, n):
    """R_system = R_component ** n: a system that works only if all n independent, identical parts
    work (series system), Vol. 2 Ch. 1 Eq. 1.1 (R_system(t) = R_component(t)^N = exp(-N lambda t)).

    ``r_component`` is a probability in (0, 1]; ``n`` a whole number >= 1. Example (Vol. 2 §1.4.1):
    0.999 ** 1000 = 36.8 %.
    """
    return np.power(r_component, n)


@calculator(returns="1/hour", fit=num(ge=0, doc="failures in 10^9 device-hours"),
            equation=no_equation("a unit conversion (λ = FIT x 10^-9 per device-hour): in base units the "
                                 "expression would be the bare factor 1/(3.6e12 s)"))
def fit_to_rate(fit):
    """Failure rate from a FIT figure: lambda = FIT x 1e-9 per device-hour (FIT = failures in
    10^9 device-hours; Vol. 2 notation). ``fit`` is a plain number >= 0; returns 1/hour."""
    return fit * _PER_FIT


# --------------------------------------------------------------------------- a node's parts
_seq = nonempty_list


@calculator(returns="1/s", counts=anything("list of part counts, each a whole number >= 0"),
            mtbfs=anything("list of per-part MTBFs (time quantities > 0), as long as counts"),
            equation=eq(r"\lambda_{\mathrm{node}}", "sum(counts/mtbfs)", symbols={"counts": "n_i", "mtbfs": r"\mathrm{MTBF}_i"},
                        ref="Vol. 2 Ch. 2, node health (lines 2081-2098): a series system"))
def node_failure_rate(counts, mtbfs):
    """Failure rate of a node that stops when any part fails: sum_i n_i / MTBF_i (series system,
    exponential failures; Vol. 2 Ch. 2 §Node health, lines 2081-2098)."""
    counts = _seq("counts", counts, "node_failure_rate")
    mtbfs = _seq("mtbfs", mtbfs, "node_failure_rate")
    if len(counts) != len(mtbfs):
        raise InputError(f"counts and mtbfs must be of equal length; got {len(counts)} counts {counts!r} "
                         f"and {len(mtbfs)} mtbfs {mtbfs!r}")
    total = 0.0
    for i, (n, m) in enumerate(zip(counts, mtbfs)):
        n_i = count(f"counts[{i}]", n, ge=0)
        m_i = magnitude(f"mtbfs[{i}]", m, "s", gt=0)
        if np.all(n_i == 0):
            continue
        total = total + np.asarray(n_i) * failure_rate.kernel(m_i)
    return total


@calculator(returns="hour", counts=anything("list of part counts, each a whole number >= 0"),
            mtbfs=anything("list of per-part MTBFs (time quantities > 0), as long as counts"),
            equation=eq(r"\mathrm{MTBF}_{\mathrm{node}}", "1/sum(counts/mtbfs)", symbols={"counts": "n_i", "mtbfs": r"\mathrm{MTBF}_i"},
                        ref="Vol. 2 Ch. 2, node health (lines 2081-2098)"))
def node_mtbf(counts, mtbfs):
    """MTBF of a node from its parts: 1 / sum_i (n_i / MTBF_i) (Vol. 2 Ch. 2, lines 2081-2098;
    a node with 8 GPUs of 50,000 h alone has 6,250 h)."""
    lam = node_failure_rate.kernel(counts, mtbfs)
    if np.any(lam <= 0):
        raise InputError(f"at least one of counts must be non-zero; got {counts!r}")
    return 1.0 / lam


@calculator(returns="hour", node_mtbf_total=qty("s", gt=0, doc="MTBF of the whole node"),
            gpu_mtbf=qty("s", gt=0, doc="MTBF of one GPU"), gpus=whole(doc="GPUs per node"),
            equation=eq(r"\mathrm{MTBF}_{\mathrm{rest}}", "1/(1/node_mtbf_total - gpus/gpu_mtbf)",
                        symbols={"node_mtbf_total": r"\mathrm{MTBF}_{\mathrm{node}}",
                                 "gpu_mtbf": r"\mathrm{MTBF}_{\mathrm{GPU}}", "gpus": "n"},
                        ref="Vol. 2 Ch. 2 §Node health (1,000 h node, 8 x 50,000 h GPUs)"))
def rest_of_node_mtbf(node_mtbf_total, gpu_mtbf, gpus):
    """MTBF of everything in a node except its GPUs, implied by a whole-node MTBF:
    1 / (1/M_node - n/M_gpu) (Vol. 2 Ch. 2, line 2098: 1,000 h node, 8 x 50,000 h GPUs -> 1,190 h)."""
    rest = 1.0 / node_mtbf_total - job_failure_rate.kernel(failure_rate.kernel(gpu_mtbf), gpus)
    if np.any(rest <= 0):
        raise InputError(f"node_mtbf_total must be shorter than the GPUs' own MTBF (gpu_mtbf / gpus); "
                         f"got {np.max(node_mtbf_total) / _HOUR:g} hour")
    return 1.0 / rest


@calculator(returns="", duration=qty("s", ge=0, doc="the window"), mtbf_one=qty("s", gt=0, doc="MTBF of one part"),
            n=whole(doc="independent, identical parts"),
            equation=eq(r"\mathrm{E}[n_f]", "n*duration/mtbf_one", symbols={**_MTBF, "duration": "T"},
                        ref="Vol. 2 Ch. 2 §Node health (128 x 336 h / 1,000 h = 43)"))
def expected_failures(duration, mtbf_one, n=1):
    """Expected failures of n parts in a window: n x T / MTBF = T / mtbf_of_n(MTBF, n)
    (Vol. 2 Ch. 2, line 2098: 128 nodes x 336 h / 1,000 h = 43; 1,024 GPUs x 336 h / 50,000 h = 6.9)."""
    return duration / mtbf_of_n.kernel(mtbf_one, n)


@calculator(returns="", failures=num(ge=0, doc="restarts in the run (may be an expected, fractional count)"),
            recovery=qty("s", ge=0, doc="time to recover from one failure"), duration=qty("s", gt=0, doc="run time"),
            equation=eq(r"f_{\mathrm{restart}}", "failures*recovery/duration",
                        symbols={"failures": "n_f", "recovery": r"t_{\mathrm{rec}}", "duration": "T"},
                        ref="Vol. 2 Ch. 2 §Node health (43 x 10-30 min / 336 h = 2.1-6.4 %)"))
def restart_overhead(failures, recovery, duration):
    """Share of the run lost to restarts: failures x recovery time / run time (Vol. 2 Ch. 2, line 2098:
    43 x 10-30 min / 336 h = 2.1-6.4 %). Work lost since the last checkpoint is not included."""
    return failures * recovery / duration


@calculator(returns="", duration=qty("s", ge=0, doc="the window"), mtbf_one=qty("s", gt=0, doc="MTBF of one part"),
            n=whole(doc="independent, identical parts"),
            equation=eq("P", "-expm1(-(n*duration/mtbf_one))", symbols={"duration": "t", "mtbf_one": r"\mathrm{MTBF}_{1}", "n": "N"},
                        ref="Vol. 2 Eq. 1.1 (N parts, exponential failures)"))
def failure_probability_of_fleet(duration, mtbf_one, n):
    """P(at least one of n parts fails within the window) = 1 - exp(-n T / MTBF):
    :func:`failure_probability` with :func:`mtbf_of_n` (Vol. 2 Ch. 2, line 2098's "considerable" probability)."""
    return failure_probability.kernel(duration, mtbf_of_n.kernel(mtbf_one, n))


# --------------------------------------------------------------------------- inverses (Vol. 2 Ch. 1)
@calculator(returns="", rate=qty("1/s", ge=0, doc="failure rate of one device"),
            equation=no_equation("a unit conversion, the inverse of fit_to_rate (FIT = λ in failures per "
                                 "10^9 device-hours): in base units the expression would be the bare factor 3.6e12 s"))
def rate_to_fit(rate):
    """FIT figure of a failure rate: lambda x 1e9 device-hours, the inverse of :func:`fit_to_rate`
    (Vol. 2 notation: FIT = failures in 10^9 device-hours; 1 / 50,000 h = 20,000 FIT)."""
    return rate / _PER_FIT


@calculator(returns="hour", duration=qty("s", gt=0, doc="the observed window"),
            failures=num(gt=0, doc="failures counted in the window"),
            n=whole(doc="independent, identical parts that were running"),
            equation=eq(r"\mathrm{MTBF}_{1}", "n*duration/failures",
                        symbols={"duration": "T", "failures": "n_f", "n": "N"},
                        ref="Vol. 2 Ch. 1 §1.1 (Llama 3: 419 interruptions in 54 days on 16,384 GPUs); "
                            "expected_failures solved for the MTBF"))
def implied_mtbf(duration, failures, n=1):
    """Per-part MTBF implied by a failure count: N x T / n_f, :func:`expected_failures` solved for
    the MTBF (n = 1 gives the mean gap between failures). Vol. 2 §1.1: 16,384 x 54 days / 419
    = 50,700 h, if every interruption were an independent GPU failure."""
    return n * duration / failures


__all__ += ["rate_to_fit", "implied_mtbf"]
