"""Collective communication time models of Ch. 28 §28.5 (Eq. 28.10-28.15).

Symbols follow §28.1: ``alpha`` is the start-up (launch) time of one message (s), ``beta_net``
the effective one-way byte rate of the path (byte/s), ``p`` the number of processes and ``m``
the bytes each process starts with. The classic "alpha-beta" literature writes the second term
as a time per byte; the book calls that ``beta_inv = 1 / beta_net`` (§28.1) so that the same
letter never carries two opposite units. These calculators take ``beta_net`` (a bandwidth).

All models ignore queueing and congestion (§28.5); they explain why small and large messages
may prefer different algorithms, not which algorithm is faster on a given network.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "alpha_beta_time", "latency_bandwidth_threshold", "ring_round_bytes", "ring_allreduce_terms",
    "ring_allreduce_time", "tree_allreduce_time", "ring_tree_crossover", "step_time_with_overlap",
    "exposed_communication", "alltoall_cut_time", "port_bandwidth_sum",
]


def _p(p, *, power_of_two=False):
    pp = count("p", p, ge=2)
    if power_of_two:
        lg = np.log2(pp)
        if not np.all(lg == np.round(lg)):
            raise InputError(f"p must be a power of two (Eq. 28.13 assumes a binary tree); got {p}")
    return pp


def alpha_beta_time(m, alpha, beta_net):
    """t_msg(m) ~= alpha + m / beta_net (one message of m bytes on one path), Ch. 28 Eq. 28.10."""
    mm = magnitude("m", m, "byte", ge=0)
    a = magnitude("alpha", alpha, "s", ge=0)
    b = magnitude("beta_net", beta_net, "byte/s", gt=0)
    return out(a + mm / b, "s")


def latency_bandwidth_threshold(alpha, beta_net):
    """m* = alpha * beta_net: below it a message is latency-dominated, above it bandwidth-dominated
    (Ch. 28 §28.5, the condition m << alpha beta_net under Eq. 28.10)."""
    a = magnitude("alpha", alpha, "s", ge=0)
    b = magnitude("beta_net", beta_net, "byte/s", gt=0)
    return out(a * b, "byte")


def ring_round_bytes(p, m):
    """Bytes each process sends per ring round: m / p (Ch. 28 §28.5, Eq. 28.11)."""
    pp = _p(p)
    mm = magnitude("m", m, "byte", ge=0)
    return out(mm / pp, "byte")


def ring_allreduce_terms(p, m, alpha, beta_net, gamma=None):
    """The terms of the ring all-reduce time, Ch. 28 Eq. 28.12:

    latency = 2 (p-1) alpha; bandwidth = 2 (p-1)/p * m / beta_net (bytes sent per process, not the
    network total); optional reduction = (p-1)/p * m * gamma with gamma in s/byte (§28.5).
    Returns a dict of Quantities in s (``reduction`` only when ``gamma`` is given).
    """
    pp = _p(p)
    mm = magnitude("m", m, "byte", ge=0)
    a = magnitude("alpha", alpha, "s", ge=0)
    b = magnitude("beta_net", beta_net, "byte/s", gt=0)
    terms = {"latency": out(2.0 * (pp - 1) * a + 0.0 * mm, "s"),
             "bandwidth": out(2.0 * (pp - 1) / pp * mm / b + 0.0 * a, "s")}
    if gamma is not None:
        g = magnitude("gamma", gamma, "s/byte", ge=0)
        terms["reduction"] = out((pp - 1) / pp * mm * g + 0.0 * a / b, "s")
    return terms


def ring_allreduce_time(p, m, alpha, beta_net, gamma=None):
    """t_ring ~= 2(p-1)(alpha + m/(p beta_net)) = 2(p-1) alpha + 2(p-1)/p m / beta_net,
    Ch. 28 Eq. 28.11/28.12 (plus (p-1) m gamma / p when a reduction cost gamma is given)."""
    terms = ring_allreduce_terms(p, m, alpha, beta_net, gamma)
    total = sum(t.to("s").magnitude for t in terms.values())
    return out(total, "s")


def tree_allreduce_time(p, m, alpha, beta_net):
    """t_tree ~= 2 log2(p) (alpha + m / beta_net): unsegmented binary-tree reduce + broadcast,
    p a power of two, Ch. 28 Eq. 28.13."""
    pp = _p(p, power_of_two=True)
    mm = magnitude("m", m, "byte", ge=0)
    a = magnitude("alpha", alpha, "s", ge=0)
    b = magnitude("beta_net", beta_net, "byte/s", gt=0)
    return out(2.0 * np.log2(pp) * (a + mm / b), "s")


def ring_tree_crossover(p, alpha, beta_net):
    """Message size m_x where Eq. 28.12 and Eq. 28.13 give the same time (Ch. 28 §28.5).

    2(p-1) a + 2(p-1)/p m/b = 2 L (a + m/b), L = log2 p  =>  m_x = a b ((p-1) - L) / (L - (p-1)/p).
    Below m_x the tree (fewer launches) is faster, above it the ring (less data on the critical
    path). For p = 2 both start-up terms are equal and m_x = 0: the ring is never slower.
    """
    pp = _p(p, power_of_two=True)
    a = magnitude("alpha", alpha, "s", ge=0)
    b = magnitude("beta_net", beta_net, "byte/s", gt=0)
    lg = np.log2(pp)
    return out(a * b * ((pp - 1) - lg) / (lg - (pp - 1) / pp), "byte")


def step_time_with_overlap(t_c, t_n, t_o):
    """t_step = t_c + t_n - t_o with 0 <= t_o <= min(t_c, t_n), Ch. 28 Eq. 28.15."""
    c = magnitude("t_c", t_c, "s", ge=0)
    n = magnitude("t_n", t_n, "s", ge=0)
    o = magnitude("t_o", t_o, "s", ge=0)
    lim = np.minimum(c, n)
    if np.any(o > lim * (1 + 1e-12)):
        raise InputError(
            f"t_o must be <= min(t_c, t_n) = {np.max(lim):.6g} s (only time spent on both can overlap, "
            f"Eq. 28.15); got {t_o}"
        )
    return out(c + n - o, "s")


def exposed_communication(t_n, t_o):
    """Communication left on the critical path: t_n - t_o (Ch. 28 §28.5, after Eq. 28.15)."""
    n = magnitude("t_n", t_n, "s", ge=0)
    o = magnitude("t_o", t_o, "s", ge=0)
    if np.any(o > n * (1 + 1e-12)):
        raise InputError(f"t_o must be <= t_n = {np.max(n):.6g} s; got {t_o}")
    return out(n - o, "s")


def alltoall_cut_time(hosts_a, hosts_b, bytes_per_pair, beta_cut):
    """Least time for an all-to-all between two groups joined by a cut of ``beta_cut`` per
    direction: each direction carries hosts_a x hosts_b x q bytes, so t >= a b q / beta_cut
    (Ch. 28 §28.5, bisection bandwidth; Exercise 28.7). Port bandwidth inside a group does not help."""
    a = count("hosts_a", hosts_a)
    b = count("hosts_b", hosts_b)
    q = magnitude("bytes_per_pair", bytes_per_pair, "byte", ge=0)
    c = magnitude("beta_cut", beta_cut, "byte/s", gt=0)
    return out(a * b * q / c, "s")


def port_bandwidth_sum(hosts, port_bandwidth):
    """Sum of host port rates, hosts x port: the number that does NOT bound cross-cut traffic (§28.5)."""
    n = count("hosts", hosts)
    b = magnitude("port_bandwidth", port_bandwidth, "byte/s", gt=0)
    return out(n * b, "byte/s")
