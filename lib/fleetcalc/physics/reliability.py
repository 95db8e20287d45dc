"""Reliability of synchronous jobs and checkpoint intervals, Ch. 28 §28.9 (Eq. 28.23-28.25).

Symbols follow §28.1: ``C`` the foreground pause to save a checkpoint (s), ``tau`` the useful
compute between saves (s), ``M`` the job's mean time between failures (MTBF, s), ``R_f`` the
recovery time (s). Failures are modelled as a stationary Poisson process (independent,
exponentially distributed gaps); correlated failures (shared power, network, software bugs)
break the model, as the book stresses.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.validate import count, magnitude, out

__all__ = [
    "failure_rate", "mtbf_of_n", "job_failure_rate", "failure_probability", "waste_terms",
    "waste_fraction", "young_daly_interval", "min_waste_fraction", "system_reliability", "fit_to_rate",
]


def failure_rate(mtbf):
    """lambda = 1 / MTBF (failures per second) for an exponential failure model (Ch. 28 §28.9)."""
    m = magnitude("mtbf", mtbf, "s", gt=0)
    return out(1.0 / m, "1/s")


def job_failure_rate(rate_one, n):
    """A job that stops when any of n independent parts fails fails at rate n * lambda (Ch. 28 §28.9)."""
    lam = magnitude("rate_one", rate_one, "1/s", ge=0)
    nn = count("n", n)
    return out(nn * lam, "1/s")


def mtbf_of_n(mtbf_one, n):
    """MTBF of a job on n independent, identical parts: 1 / (n lambda) = MTBF_one / n (Ch. 28 §28.9)."""
    m = magnitude("mtbf_one", mtbf_one, "s", gt=0)
    nn = count("n", n)
    return out(m / nn, "s")


def failure_probability(duration, mtbf):
    """P(at least one failure in a window) = 1 - exp(-duration / MTBF), exponential failures
    (Ch. 28 §28.9's Poisson assumption)."""
    d = magnitude("duration", duration, "s", ge=0)
    m = magnitude("mtbf", mtbf, "s", gt=0)
    return out(-np.expm1(-d / m), "")


def waste_terms(tau, C, M, R_f):
    """The three terms of Eq. 28.23 (Ch. 28): save = C/tau, lost = tau/(2M), recover = R_f/M.

    Returns a dict of dimensionless Quantities (fractions of useful time).
    """
    t = magnitude("tau", tau, "s", gt=0)
    c = magnitude("C", C, "s", ge=0)
    m = magnitude("M", M, "s", gt=0)
    r = magnitude("R_f", R_f, "s", ge=0)
    return {"save": out(c / t + 0.0 * m * r, ""),
            "lost": out(t / (2.0 * m) + 0.0 * c * r, ""),
            "recover": out(r / m + 0.0 * t * c, "")}


def waste_fraction(tau, C, M, R_f):
    """w(tau) ~= C/tau + tau/(2M) + R_f/M, lost time per unit useful time, Ch. 28 Eq. 28.23
    (valid when C, R_f and tau are small against M)."""
    terms = waste_terms(tau, C, M, R_f)
    return out(sum(v.magnitude for v in terms.values()), "")


def young_daly_interval(C, M):
    """tau* = sqrt(2 C M), the minimum of Eq. 28.23, Ch. 28 Eq. 28.24 (Young-Daly)."""
    c = magnitude("C", C, "s", gt=0)
    m = magnitude("M", M, "s", gt=0)
    return out(np.sqrt(2.0 * c * m), "s")


def min_waste_fraction(C, M, R_f):
    """w(tau*) = sqrt(2C/M) + R_f/M: at tau* the save and lost terms are equal, each sqrt(C/(2M))
    (Ch. 28 §28.9, after Eq. 28.25)."""
    c = magnitude("C", C, "s", gt=0)
    m = magnitude("M", M, "s", gt=0)
    r = magnitude("R_f", R_f, "s", ge=0)
    return out(np.sqrt(2.0 * c / m) + r / m, "")


def system_reliability(r_component, n):
    """R_system = R_component ** n: a system that works only if all n independent, identical parts
    work (series system), Vol. 2 Ch. 1 Eq. 1.1 (R_system(t) = R_component(t)^N = exp(-N lambda t)).

    ``r_component`` is a probability in (0, 1]; ``n`` a whole number >= 1. Example (Vol. 2 §1.4.1):
    0.999 ** 1000 = 36.8 %.
    """
    r = magnitude("r_component", r_component, "", gt=0, le=1)
    nn = count("n", n)
    return out(np.power(r, nn), "")


def fit_to_rate(fit):
    """Failure rate from a FIT figure: lambda = FIT x 1e-9 per device-hour (FIT = failures in
    10^9 device-hours; Vol. 2 notation). ``fit`` is a plain number >= 0; returns 1/hour."""
    f = magnitude("fit", fit, "", ge=0)
    return out(f * 1e-9, "1/hour")
