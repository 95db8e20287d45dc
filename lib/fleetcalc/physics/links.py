"""Wires and links: line rates, signalling, FEC, reach and power, Vol. 2 Ch. 3 §3.1 and §3.3-3.4.

Symbols: ``levels`` voltage levels of a pulse-amplitude modulation (NRZ = 2, PAM4 = 4),
``baud`` the symbol rate (symbol/s, written as 1/s), ``lanes`` SerDes lanes per port. Link
rates in bit/s (``Gb/s``) and byte/s (``GB/s``) are both accepted: pint converts, and nothing
here assumes 8 or 10 bits per byte silently (400 Gb/s = 50 GB/s exactly, line 2748).
A bandwidth is one direction of a full-duplex link unless a function says otherwise; the
book's NVLink "900 GB/s" is both directions summed (line 2535), see :func:`one_way`.

Decibels (link budgets, losses) are plain numbers in dB: a dB budget is a difference of
logarithms and adding dB losses is the whole computation (line 2631).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import base_factor, calculator, num, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError

__all__ = [
    "one_way", "bandwidth_ratio", "bits_per_symbol", "line_rate", "symbol_rate_needed",
    "eye_gap_ratio", "eye_penalty_db", "fec_overhead", "fec_path_latency", "link_margin",
    "max_reach", "links_power", "links_cost", "power_share", "transfer_time",
    "go_back_n_resend", "latency_speedup",
]

_LEVELS = whole(ge=2, doc="voltage levels: NRZ 2, PAM4 4")

#: bytes in one bit: a line rate counts bits (symbols x bits per symbol), kernels count bytes
BIT = base_factor("bit")


@calculator(returns="byte/s", both_ways=qty("byte/s", gt=0, doc="both directions summed"),
            equation=eq(r"\beta_{\mathrm{dir}}", "both_ways/2", symbols={"both_ways": r"\beta_{\mathrm{both}}"},
                        ref="Vol. 2 §3.1 (line 2535: 900 GB/s both ways = 450 GB/s each way)"))
def one_way(both_ways):
    """Per-direction bandwidth of a symmetric full-duplex link: both-ways / 2
    (Vol. 2 Ch. 3 §3.1, line 2535: NVLink 900 GB/s both ways = 450 GB/s each way)."""
    return both_ways / 2.0


@calculator(returns="", fast=qty("byte/s", gt=0), slow=qty("byte/s", gt=0),
            equation=eq(r"\mathrm{cliff}", "fast/slow",
                        symbols={"fast": r"\beta_{\mathrm{fast}}", "slow": r"\beta_{\mathrm{slow}}"},
                        ref="Vol. 2 §3.1 (the bandwidth cliff, line 2535)"))
def bandwidth_ratio(fast, slow):
    """How many times less bandwidth the slow tier gives: fast / slow (Vol. 2 Ch. 3 §3.1, the
    'bandwidth cliff', line 2535). Compare like with like: both one-way or both both-ways."""
    return fast / slow


@calculator(returns="", levels=_LEVELS,
            equation=eq(r"b_{\mathrm{sym}}", "log2(levels)", ref="Vol. 2 §3.3 (line 2601: PAM4, 4 levels, 2 bits per symbol)"))
def bits_per_symbol(levels):
    """log2(levels) bits per symbol: NRZ 1, PAM4 2 (Vol. 2 Ch. 3 §3.3, line 2601)."""
    return np.log2(levels)


@calculator(returns="bit/s", baud=qty("1/s", gt=0, doc="symbol rate per lane"),
            levels=_LEVELS, lanes=whole(doc="SerDes lanes"),
            equation=eq(r"R_{\mathrm{line}}", "lanes*baud*log2(levels) * unit('bit')", symbols={"baud": r"f_{\mathrm{sym}}"},
                        ref="Vol. 2 §3.3 (lanes x symbol rate x bits per symbol, line 2601)"))
def line_rate(baud, levels, lanes=1):
    """Raw line rate = lanes x baud x log2(levels) (bit/s), before FEC and encoding
    (Vol. 2 Ch. 3 §3.3: PAM4 doubles the rate at the same symbol rate, line 2601)."""
    return lanes * baud * bits_per_symbol.kernel(levels) * BIT


@calculator(returns="1/s", rate=qty("bit/s", gt=0, doc="line rate to carry"), levels=_LEVELS,
            lanes=whole(doc="SerDes lanes"),
            equation=eq(r"f_{\mathrm{sym}}", "rate/(lanes*log2(levels) * unit('bit'))", symbols={"rate": r"R_{\mathrm{line}}"},
                        ref="Vol. 2 §3.3 (the symbol rate a line rate needs, line 2607)"))
def symbol_rate_needed(rate, levels, lanes=1):
    """Symbol rate per lane to carry ``rate``: rate / (lanes log2(levels)) (1/s = baud)
    (Vol. 2 Ch. 3 §3.3, line 2607: the symbol rate, not the bit rate, is what the medium caps)."""
    return rate / BIT / (lanes * bits_per_symbol.kernel(levels))


@calculator(returns="", levels=_LEVELS,
            equation=eq(r"g_{\mathrm{eye}}", "1/(levels - 1)", ref="Vol. 2 §3.3 (line 2609: the PAM4 gap is a third of NRZ's)"))
def eye_gap_ratio(levels):
    """Gap between adjacent levels relative to NRZ at the same swing: 1 / (levels - 1)
    (Vol. 2 Ch. 3 §3.3, line 2609: PAM4's gap shrinks by a factor of three)."""
    return 1.0 / (levels - 1.0)


@calculator(returns="", levels=_LEVELS,
            equation=eq(r"\Delta_{\mathrm{eye}}", "20*log10(levels - 1)",
                        ref="Vol. 2 §3.3 (follows from line 2609's factor of three), in dB"))
def eye_penalty_db(levels):
    """Noise-margin cost of the smaller eye vs NRZ: 20 log10(levels - 1) dB (amplitude ratio;
    follows from line 2609's factor of three: 9.54 dB for PAM4). A plain number in dB."""
    return 20.0 * np.log10(1.0 / eye_gap_ratio.kernel(levels))


@calculator(returns="", n=whole(doc="code word symbols"), k=whole(doc="data symbols, k <= n"),
            equation=eq(r"o_{\mathrm{FEC}}", "n/k - 1", ref="Vol. 2 §3.3 (RS(544,514), lines 2603, 2609)"))
def fec_overhead(n, k):
    """Extra bits a Reed-Solomon RS(n, k) code adds: n / k - 1 (RS(544,514): 5.84 %)
    (Vol. 2 Ch. 3 §3.3, lines 2603/2609 name the code; the overhead follows from it)."""
    if np.any(k > n):
        raise InputError(f"k must be <= n for an RS(n, k) code; got n={np.min(n):g}, k={np.max(k):g}")
    return n / k - 1.0


@calculator(returns="s", per_hop=qty("s", ge=0, doc="FEC time per hop"), hops=whole(ge=0),
            equation=eq(r"t_{\mathrm{FEC}}", "hops*per_hop", symbols={"hops": "h", "per_hop": r"t_{\mathrm{hop}}"},
                        ref="Vol. 2 §3.3 (line 2609: 3 hops x 100-200 ns)"))
def fec_path_latency(per_hop, hops):
    """FEC latency floor of a path: hops x per-hop FEC time (Vol. 2 Ch. 3 §3.3, line 2609:
    3 hops x 100-200 ns = 300-600 ns one way, 6 hops = 600-1200 ns there and back)."""
    return hops * per_hop


@calculator(returns="", budget_db=num(gt=0, doc="dB"), cable_loss_db=num(ge=0, doc="dB"),
            connector_loss_db=num(ge=0, doc="dB"),
            equation=eq(r"M_{\mathrm{dB}}", "budget_db - cable_loss_db - connector_loss_db",
                        symbols={"budget_db": r"B_{\mathrm{dB}}", "cable_loss_db": r"L_{\mathrm{cable}}",
                                 "connector_loss_db": r"L_{\mathrm{conn}}"},
                        ref="Vol. 2 §3.3 (line 2631: 30 - 18 - 2 = 10 dB)"))
def link_margin(budget_db, cable_loss_db, connector_loss_db=0.0):
    """Margin left = budget - cable loss - connector loss, all in dB
    (Vol. 2 Ch. 3 §3.3, line 2631: 30 - 18 - 2 = 10 dB)."""
    return budget_db - cable_loss_db - connector_loss_db


@calculator(returns="m", budget_db=num(gt=0, doc="dB"), loss_per_m_db=num(gt=0, doc="dB per metre"),
            connector_loss_db=num(ge=0, doc="dB"), min_margin_db=num(ge=0, doc="dB"),
            equation=eq(r"d_{\max}", "(budget_db - connector_loss_db - min_margin_db)/loss_per_m_db",
                        symbols={"budget_db": r"B_{\mathrm{dB}}", "connector_loss_db": r"L_{\mathrm{conn}}",
                                 "min_margin_db": r"M_{\min}", "loss_per_m_db": r"\ell_{\mathrm{dB/m}}"},
                        ref="Vol. 2 §3.3 (line 2631: the link budget)"))
def max_reach(budget_db, loss_per_m_db, connector_loss_db=0.0, min_margin_db=0.0):
    """Longest cable that keeps ``min_margin_db``: (budget - connectors - margin) / loss per metre
    (Vol. 2 Ch. 3 §3.3, line 2631: higher lane rates raise the loss per metre, so reach shrinks)."""
    avail = budget_db - connector_loss_db - min_margin_db
    if np.any(avail < 0):
        raise InputError(f"connector_loss_db + min_margin_db ({np.max(connector_loss_db + min_margin_db):g} dB) "
                         f"exceeds the budget ({np.min(budget_db):g} dB)")
    return avail / loss_per_m_db


@calculator(returns="W", n_links=whole(ge=0), power_per_link=qty("W", ge=0),
            equation=eq(r"P_{\mathrm{links}}", "n_links*power_per_link",
                        symbols={"n_links": "n", "power_per_link": r"P_{\mathrm{link}}"},
                        ref="Vol. 2 §3.3 (lines 2625, 2629)"))
def links_power(n_links, power_per_link):
    """Continuous power of n links: n x P_link (Vol. 2 Ch. 3 §3.3, lines 2625, 2629)."""
    return n_links * power_per_link


@calculator(returns="cu", n_links=whole(ge=0), cost_per_link=qty("cu", ge=0),
            equation=eq(r"C_{\mathrm{links}}", "n_links*cost_per_link",
                        symbols={"n_links": "n", "cost_per_link": r"c_{\mathrm{link}}"},
                        ref="Vol. 2 §3.3 (line 2625)"))
def links_cost(n_links, cost_per_link):
    """Capital cost of n links: n x cost per link (Vol. 2 Ch. 3 §3.3, line 2625)."""
    return n_links * cost_per_link


@calculator(returns="", part=qty("W", ge=0), whole=qty("W", gt=0),
            equation=eq(r"f_{P}", "part/whole", symbols={"part": r"P_{\mathrm{part}}", "whole": r"P_{\mathrm{total}}"},
                        ref="Vol. 2 §3.3 (line 2629: 10.5 % of the power budget)"))
def power_share(part, whole):
    """Fraction of a power budget: part / whole (Vol. 2 Ch. 3 §3.3, line 2629's 10.5 %)."""
    return part / whole


@calculator(returns="s", size=qty("byte", ge=0), bandwidth=qty("byte/s", gt=0),
            equation=eq("T", "size/bandwidth", symbols={"size": "n", "bandwidth": r"\beta"},
                        ref="Vol. 2 §3.4 (the n/β term of T(n) = α + n/β, line 2680)"))
def transfer_time(size, bandwidth):
    """Time to push ``size`` bytes through a link or cut of ``bandwidth``: T = size / bandwidth,
    the bandwidth term n/beta of Vol. 2 Ch. 3 §3.4 without alpha (Go-Back-N tail, line 2674;
    the staircase of Vol. 2 Ch. 2, line 1975; the bisection example of §3.5, line 2801)."""
    return size / bandwidth


@calculator(returns="byte", message=qty("byte", gt=0), delivered=qty("byte", ge=0, doc="<= message"),
            equation=eq(r"D_{\mathrm{resend}}", "message - delivered",
                        symbols={"message": r"D_{\mathrm{msg}}", "delivered": r"D_{\mathrm{done}}"},
                        ref="Vol. 2 §3.4 (Go-Back-N, line 2674)"))
def go_back_n_resend(message, delivered):
    """Bytes Go-Back-N resends after one loss: everything from the lost packet on,
    message - delivered (Vol. 2 Ch. 3 §3.4, line 2674: 1 GB message, loss at 900 MB -> 100 MB)."""
    if np.any(delivered > message):
        raise InputError(f"delivered must be <= message ({np.min(message):g} byte); "
                         f"got {np.max(delivered):g} byte")
    return message - delivered


@calculator(returns="", before=qty("s", gt=0), after=qty("s", gt=0),
            equation=eq("S", "before/after", symbols={"before": r"t_{\mathrm{before}}", "after": r"t_{\mathrm{after}}"},
                        ref="Vol. 2 §3.4 (RDMA, line 2641)"))
def latency_speedup(before, after):
    """How many times shorter a latency got: before / after (Vol. 2 Ch. 3 §3.4, line 2641)."""
    return before / after
