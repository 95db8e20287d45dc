"""Scaling at fleet size: the iron law, the fleet law, communication intensity, scaling laws.

Vol. 2 front matter ("notation conventions") and Ch. 1 "the scale moment" (seed 001, lines
1-1216). Line numbers below point into that seed text.

Symbols follow Vol. 2 (see :mod:`fleetcalc.core.notation`): ``D_vol`` bytes moved, ``BW`` bandwidth,
``O`` operations (FLOP), ``R_peak`` peak rate, ``eta_hw`` hardware efficiency, ``L_lat`` fixed
latency, ``N`` devices, ``P`` parameters, ``D`` training tokens, ``C`` training compute (FLOP).

Clashes with Ch. 28 (whose symbols :mod:`fleetcalc.physics.collectives` and :mod:`fleetcalc.physics.reliability`
use): Ch. 28 writes ``p`` for processes and ``m`` for message bytes, where Vol. 2 writes ``N`` for
devices, ``n``/``M`` for message bytes and keeps ``p`` (pipeline stages) and ``m`` (micro-batches)
for parallelism; Ch. 28's ``C`` is a checkpoint pause, here ``C`` is a compute budget; Ch. 28's
``M`` is an MTBF, Vol. 2's ``M`` a message payload. The scaling-law literature (Kaplan 2020,
Hoffmann 2022) writes ``C ~= 6 N D`` with N = parameters; Vol. 2 reserves N for devices, so this
module writes ``C ~= 6 P D``.

Collective times (alpha-beta, ring all-reduce) come from :mod:`fleetcalc.physics.collectives` and
MTBF / failure probabilities from :mod:`fleetcalc.physics.reliability`; they are imported, not rewritten.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import collectives
from fleetcalc.core.units import Quantity
from fleetcalc.core.validate import InputError, UnitMismatch, count, magnitude, out

__all__ = [
    # iron law and energy corollary
    "iron_law_terms", "iron_law_time", "movement_energy", "energy_total", "energy_productivity",
    # fleet law, scaling efficiency
    "fleet_step_time", "compute_fraction", "comm_compute_ratio", "scaling_efficiency", "speedup",
    "amdahl_speedup", "amdahl_limit", "implied_compute_time", "ring_fleet_terms",
    "ring_scaling_efficiency",
    # communication intensity
    "communication_intensity", "ci_boundary", "ci_regime", "comm_to_compute_time_ratio",
    "BOOK_CI_LOW", "BOOK_CI_HIGH", "book_ci_band",
    # scaling laws, compute-optimal allocation, resource-constrained scaling
    "power_law_loss", "resource_for_loss", "training_flops", "tokens_per_param", "compute_optimal",
    "CHINCHILLA_TOKENS_PER_PARAM", "constrained_allocation", "scaling_regime",
    # trends
    "orders_of_magnitude", "annual_growth_factor", "doubling_time", "growth_factor_per_year",
    # LogGP, storage feed
    "loggp_message_time", "loggp_burst_time", "loggp_alpha_beta", "storage_utilization",
    # other laws of the notation conventions
    "degraded_accuracy", "needs_retraining", "devices_3d", "compressed_payload",
    # barrier vs independent tasks
    "barrier_throughput", "independent_throughput",
]

# --------------------------------------------------------------------------------------------
# helpers


def _amount(name, value, unit, **bounds):
    """A count-like amount (parameters, tokens) given as a plain number or a Quantity in ``unit``."""
    if isinstance(value, Quantity):
        return magnitude(name, value, unit, **bounds)
    return magnitude(name, value, "", **bounds)


def _fraction(name, value, *, lo_open=False, hi_open=False):
    """A pure number in [0, 1] (or an open end)."""
    kw = {"gt": 0.0} if lo_open else {"ge": 0.0}
    kw.update({"lt": 1.0} if hi_open else {"le": 1.0})
    return magnitude(name, value, "", **kw)


# --------------------------------------------------------------------------------------------
# the iron law and its energy corollary (front matter, lines 255-332)


def iron_law_terms(D_vol, BW, O, R_peak, eta_hw, L_lat):
    """The three terms of the iron law T = D_vol/BW + O/(R_peak eta_hw) + L_lat (Vol. 2 notation,
    line 257): ``data`` = D_vol/BW, ``compute`` = O/(R_peak eta_hw), ``latency`` = L_lat (s)."""
    d = magnitude("D_vol", D_vol, "byte", ge=0)
    bw = magnitude("BW", BW, "byte/s", gt=0)
    o = magnitude("O", O, "FLOP", ge=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    e = magnitude("eta_hw", eta_hw, "", gt=0, le=1)
    lat = magnitude("L_lat", L_lat, "s", ge=0)
    z = 0.0 * (d + bw + o + r + e + lat)  # broadcast every term to the common shape
    return {"data": out(d / bw + z, "s"), "compute": out(o / (r * e) + z, "s"), "latency": out(lat + z, "s")}


def iron_law_time(D_vol, BW, O, R_peak, eta_hw, L_lat):
    """T = D_vol/BW + O/(R_peak eta_hw) + L_lat (s), the iron law of ML systems (Vol. 2 notation,
    line 257; Ch. 1 line 986). The terms add: no overlap of data movement and compute."""
    t = iron_law_terms(D_vol, BW, O, R_peak, eta_hw, L_lat)
    return out(sum(v.magnitude for v in t.values()), "s")


def movement_energy(D_vol, E_move):
    """D_vol x E_move (J): the data-movement term of the energy corollary (line 326). ``E_move`` is
    energy per byte or per bit (``Q_(15, "pJ/bit")``, Ch. 1 line 1040's network figure)."""
    d = magnitude("D_vol", D_vol, "byte", ge=0)
    e = magnitude("E_move", E_move, "J/byte", ge=0)
    return out(d * e, "J")


def energy_total(D_vol, E_move, O, E_compute):
    """E_total ~= D_vol x E_move + O x E_compute (J), the energy corollary of the iron law
    (Vol. 2 notation, line 326)."""
    mv = movement_energy(D_vol, E_move).magnitude
    o = magnitude("O", O, "FLOP", ge=0)
    ec = magnitude("E_compute", E_compute, "J/FLOP", ge=0)
    return out(mv + o * ec, "J")


def energy_productivity(O_useful, E_compute, E_cooling, E_network):
    """rho_energy = O_useful / (E_compute + E_cooling + E_network) (FLOP/J), Ch. 1 Eq. 1.5."""
    o = magnitude("O_useful", O_useful, "FLOP", ge=0)
    ec = magnitude("E_compute", E_compute, "J", ge=0)
    el = magnitude("E_cooling", E_cooling, "J", ge=0)
    en = magnitude("E_network", E_network, "J", ge=0)
    tot = ec + el + en
    if np.any(tot <= 0):
        raise InputError("E_compute + E_cooling + E_network must be > 0 J; got 0 J in total")
    return out(o / tot, "FLOP/J")


# --------------------------------------------------------------------------------------------
# the fleet law and scaling efficiency (Eq. 1.3, 1.4, line 1018, line 454)


def fleet_step_time(T_compute, N, T_comm, T_sync=None, T_overlap=None):
    """T_step(N) = T_compute/N + T_comm(N) + T_sync(N) - T_overlap, Ch. 1 Eq. 1.3 (the fleet law).

    ``T_compute`` is the single-device compute time of one step; ``T_overlap`` (communication
    hidden behind compute) may not exceed min(T_comm, T_compute/N).
    """
    tc = magnitude("T_compute", T_compute, "s", ge=0)
    n = count("N", N)
    tm = magnitude("T_comm", T_comm, "s", ge=0)
    ts = 0.0 if T_sync is None else magnitude("T_sync", T_sync, "s", ge=0)
    to = 0.0 if T_overlap is None else magnitude("T_overlap", T_overlap, "s", ge=0)
    lim = np.minimum(tm, tc / n)
    if np.any(to > lim * (1 + 1e-12) + 1e-300):
        raise InputError(
            f"T_overlap must be <= min(T_comm, T_compute/N) = {np.min(lim):.6g} s (only communication "
            f"that runs during compute is hidden, Eq. 1.3); got {T_overlap}")
    return out(tc / n + tm + ts - to, "s")


def compute_fraction(T_compute, N, T_comm, T_sync=None, T_overlap=None):
    """f_compute = (T_compute/N) / T_step(N), Ch. 1 Eq. 1.4: the share of wall-clock time doing
    useful math. Below 0.5 more than half of the fleet's silicon idles (line 996)."""
    step = fleet_step_time(T_compute, N, T_comm, T_sync, T_overlap).magnitude
    tc = magnitude("T_compute", T_compute, "s", ge=0)
    n = count("N", N)
    if np.any(step <= 0):
        raise InputError("T_step must be > 0 s; every term is zero")
    return out((tc / n) / step, "")


def comm_compute_ratio(T_comm, T_compute, N):
    """rho = T_comm(N) / (T_compute / N) (dimensionless), Vol. 2 notation line 454: near or above 1
    the scaling is communication-bound."""
    tm = magnitude("T_comm", T_comm, "s", ge=0)
    tc = magnitude("T_compute", T_compute, "s", gt=0)
    n = count("N", N)
    return out(tm / (tc / n), "")


def scaling_efficiency(T_1, N, T_N):
    """eta_scaling = T_1 / (N x T_N) <= 1, Vol. 2 notation line 490 and Ch. 1 line 1018.

    Values above 1 (super-linear speed-up, e.g. from cache effects) are returned as computed; the
    book's bound assumes the same work and no such effects.
    """
    t1 = magnitude("T_1", T_1, "s", gt=0)
    n = count("N", N)
    tn = magnitude("T_N", T_N, "s", gt=0)
    return out(t1 / (n * tn), "")


def speedup(T_1, T_N):
    """S(N) = T_1 / T_N: how many times faster N devices finish the same work (= N eta_scaling)."""
    t1 = magnitude("T_1", T_1, "s", gt=0)
    tn = magnitude("T_N", T_N, "s", gt=0)
    return out(t1 / tn, "")


def amdahl_speedup(N, serial_fraction):
    """S(N) = 1 / (f + (1 - f)/N) for a fraction f of time that does not shrink with N (Amdahl's
    law; Ch. 1 line 1022 calls the fleet law a special form of it)."""
    n = count("N", N)
    f = _fraction("serial_fraction", serial_fraction)
    return out(1.0 / (f + (1.0 - f) / n), "")


def amdahl_limit(serial_fraction):
    """S_max = 1 / f as N grows without bound (Ch. 1 line 1022: 20 % waiting on the network caps the
    speed-up at 5x)."""
    f = _fraction("serial_fraction", serial_fraction, lo_open=True)
    return out(1.0 / f, "")


def implied_compute_time(f_compute, T_comm):
    """The per-device compute time that gives compute fraction f with exposed communication T_comm:
    f = t/(t + T_comm)  =>  t = f T_comm / (1 - f) (Eq. 1.4 solved for T_compute/N, no sync or
    overlap). Used to recover the input a printed efficiency implies."""
    f = _fraction("f_compute", f_compute, hi_open=True)
    tm = magnitude("T_comm", T_comm, "s", ge=0)
    return out(f * tm / (1.0 - f), "s")


def ring_fleet_terms(N, T_compute, M, alpha, beta_net, T_sync=None, overlap=0.0):
    """Fleet-law terms for data parallelism with a ring all-reduce of the M-byte gradient per step.

    T_compute/N is the local math; T_comm(N) = collectives.ring_allreduce_time(N, M, alpha,
    beta_net) (Ch. 28 Eq. 28.12, 2(N-1)/N M bytes per device, Ch. 1 line 748) and 0 at N = 1;
    ``overlap`` in [0, 1] is the share of min(T_comm, T_compute/N) hidden behind compute.
    Returns a dict of Quantities (s): compute, comm, sync, overlap, step.
    """
    n = count("N", N)
    tc = magnitude("T_compute", T_compute, "s", gt=0)
    ts = 0.0 if T_sync is None else magnitude("T_sync", T_sync, "s", ge=0)
    ov = _fraction("overlap", overlap)
    magnitude("M", M, "byte", ge=0)            # name Vol. 2's symbols in errors (collectives says m)
    magnitude("alpha", alpha, "s", ge=0)
    magnitude("beta_net", beta_net, "byte/s", gt=0)
    ring = collectives.ring_allreduce_time(np.maximum(n, 2), M, alpha, beta_net).to("s").magnitude
    comm = np.where(n >= 2, ring, 0.0)
    local = tc / n
    hidden = ov * np.minimum(comm, local)
    step = local + comm + ts - hidden
    z = 0.0 * step
    return {"compute": out(local + z, "s"), "comm": out(comm + z, "s"), "sync": out(ts + z, "s"),
            "overlap": out(hidden + z, "s"), "step": out(step, "s")}


def ring_scaling_efficiency(N, T_compute, M, alpha, beta_net, T_sync=None, overlap=0.0):
    """eta_scaling(N) = T_1 / (N T_step(N)) with T_1 = T_compute (one device does not communicate)
    and T_step from :func:`ring_fleet_terms` (Ch. 1 line 1018 with Eq. 1.3): the communication tax
    as a function of fleet size."""
    terms = ring_fleet_terms(N, T_compute, M, alpha, beta_net, T_sync, overlap)
    tc = magnitude("T_compute", T_compute, "s", gt=0)
    n = count("N", N)
    return out(tc / (n * terms["step"].magnitude), "")


# --------------------------------------------------------------------------------------------
# communication intensity (Eq. 1.2) and the boundary that hardware sets

#: The book's qualitative bands (Ch. 1 line 928): CI < 0.01 compute-intensive, CI > 0.1
#: network-bound. They are stated, not derived from any device; see :func:`ci_boundary`.
BOOK_CI_LOW = 0.01   # byte/FLOP
BOOK_CI_HIGH = 0.1   # byte/FLOP


def communication_intensity(bytes_net, O_local):
    """CI = bytes sent over the network / FLOPs executed locally (byte/FLOP), Ch. 1 Eq. 1.2."""
    b = magnitude("bytes_net", bytes_net, "byte", ge=0)
    o = magnitude("O_local", O_local, "FLOP", gt=0)
    return out(b / o, "byte/FLOP")


def ci_boundary(BW_net, R_peak, eta_hw=1.0):
    """CI* = BW_net / (R_peak eta_hw) (byte/FLOP): the intensity at which network time equals compute
    time, D_vol/BW_net = O/(R_peak eta_hw) (the iron law's first two terms per device). Below CI*
    the step is compute-bound, above it network-bound: the network analogue of the roofline ridge
    (Ch. 28 Eq. 28.3 inverted)."""
    bw = magnitude("BW_net", BW_net, "byte/s", gt=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    e = magnitude("eta_hw", eta_hw, "", gt=0, le=1)
    return out(bw / (r * e), "byte/FLOP")


def comm_to_compute_time_ratio(CI, BW_net, R_peak, eta_hw=1.0):
    """T_net / T_compute = CI / CI* = CI R_peak eta_hw / BW_net (no overlap): > 1 means the network
    term of the iron law is the larger one."""
    ci = magnitude("CI", CI, "byte/FLOP", ge=0)
    star = ci_boundary(BW_net, R_peak, eta_hw).magnitude
    return out(ci / star, "")


def _labels(arr):
    """A str for one value, an array of str for many."""
    arr = np.asarray(arr)
    return str(arr) if arr.ndim == 0 else arr


def ci_regime(CI, BW_net, R_peak, eta_hw=1.0):
    """'compute-bound' when CI < CI*, 'network-bound' when CI > CI*, 'balanced' at CI* (relative
    tolerance 1e-9). Vectorised: an array of labels for array inputs."""
    ci = magnitude("CI", CI, "byte/FLOP", ge=0)
    star = ci_boundary(BW_net, R_peak, eta_hw).magnitude
    ci, star = np.broadcast_arrays(ci, star)
    lab = np.where(ci < star, "compute-bound", "network-bound")
    lab = np.where(np.isclose(ci, star, rtol=1e-9, atol=0), "balanced", lab)
    return _labels(lab)


def book_ci_band(CI):
    """The book's qualitative band (Ch. 1 line 928): 'low' (< 0.01 byte/FLOP), 'high' (> 0.1) or
    'between' (the text names no band there). Vectorised."""
    ci = magnitude("CI", CI, "byte/FLOP", ge=0)
    lab = np.where(ci < BOOK_CI_LOW, "low", np.where(ci > BOOK_CI_HIGH, "high", "between"))
    return _labels(lab)


# --------------------------------------------------------------------------------------------
# scaling laws and compute-optimal allocation (lines 762-836)

#: "about 20 training tokens per parameter" (Ch. 1 lines 790 and 798, Hoffmann et al. 2022).
CHINCHILLA_TOKENS_PER_PARAM = 20.0


def power_law_loss(X, A_L, alpha_scale, C_L):
    """L(X) = A_L X^(-alpha_scale) + C_L, Ch. 1 line 810 (and line 1129): loss falls as a power of
    the resource X (parameters, tokens or FLOPs) towards the floor C_L. X, A_L, C_L are pure
    numbers in whatever normalisation the fit used."""
    x = magnitude("X", X, "", gt=0)
    a = magnitude("A_L", A_L, "", ge=0)
    al = magnitude("alpha_scale", alpha_scale, "", gt=0)
    c = magnitude("C_L", C_L, "", ge=0)
    return out(a * x ** (-al) + c, "")


def resource_for_loss(L_target, A_L, alpha_scale, C_L):
    """X = (A_L / (L_target - C_L))^(1/alpha_scale): the resource a target loss needs (line 810
    solved for X). L_target must lie above the floor C_L."""
    lt = magnitude("L_target", L_target, "", gt=0)
    a = magnitude("A_L", A_L, "", gt=0)
    al = magnitude("alpha_scale", alpha_scale, "", gt=0)
    c = magnitude("C_L", C_L, "", ge=0)
    if np.any(lt <= c):
        raise InputError(f"L_target must be > C_L = {np.max(c):.6g} (the irreducible floor); got {L_target}")
    return out((a / (lt - c)) ** (1.0 / al), "")


def training_flops(P, D):
    """C ~= 6 P D (FLOP): forward + backward cost of training P parameters on D tokens (Kaplan et al.
    2020, used by Hoffmann et al. 2022; the literature writes 6ND). Vol. 2 Ch. 2 line 2294 uses it
    for GPT-3 (6 x 175e9 x 300e9)."""
    p = _amount("P", P, "param", gt=0)
    d = _amount("D", D, "token", gt=0)
    return out(6.0 * p * d, "FLOP")


def tokens_per_param(P, D):
    """D / P: training tokens per parameter (Chinchilla's rule is about 20, Ch. 1 line 790)."""
    p = _amount("P", P, "param", gt=0)
    d = _amount("D", D, "token", gt=0)
    return out(d / p, "")


def compute_optimal(C, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM):
    """Compute-optimal split of a budget C with D = r P and C = 6 P D:
    P_opt = sqrt(C / (6 r)) parameters, D_opt = r P_opt tokens (Ch. 1 lines 790 and 798, r ~= 20).
    Returns {"P": Quantity(param), "D": Quantity(token)}."""
    c = magnitude("C", C, "FLOP", gt=0)
    r = magnitude("tokens_per_param", tokens_per_param, "", gt=0)
    p = np.sqrt(c / (6.0 * r))
    return {"P": out(p, "param"), "D": out(r * p, "token")}


def constrained_allocation(C, D_avail, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM):
    """Allocation of a budget C when only D_avail unique tokens exist (Ch. 1 lines 830-836).

    If the compute-optimal D_opt(C) fits in D_avail, use (P_opt, D_opt). Otherwise the run is
    data-limited: use all D_avail tokens and spend the rest of the budget on a larger model,
    P = C / (6 D_avail) ("larger models, fewer optimisation steps", line 834). Our formalisation;
    the text states the regimes only in words. Returns {"P", "D", "data_limited"}.
    """
    opt = compute_optimal(C, tokens_per_param)
    c = magnitude("C", C, "FLOP", gt=0)
    da = _amount("D_avail", D_avail, "token", gt=0)
    d_opt = opt["D"].magnitude
    limited = d_opt > da
    d = np.where(limited, da, d_opt)
    p = np.where(limited, c / (6.0 * da), opt["P"].magnitude)
    return {"P": out(p, "param"), "D": out(d, "token"),
            "data_limited": bool(limited) if np.ndim(limited) == 0 else limited}


def scaling_regime(C, D_avail, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM, band=2.0):
    """Which resource binds (Ch. 1 lines 828-836):

    'data-limited' when D_avail < D_opt(C) (compute exceeds what the data can use);
    'compute-limited' when D_avail > band x D_opt(C) (data is plentiful, compute is scarce);
    'balanced' in between. ``band`` (> 1) is our choice: the text gives no threshold. Vectorised.
    """
    opt = compute_optimal(C, tokens_per_param)
    da = _amount("D_avail", D_avail, "token", gt=0)
    b = magnitude("band", band, "", gt=1)
    d_opt = opt["D"].magnitude
    da, d_opt, b = np.broadcast_arrays(da, d_opt, b)
    lab = np.where(da < d_opt, "data-limited", np.where(da > b * d_opt, "compute-limited", "balanced"))
    return _labels(lab)


# --------------------------------------------------------------------------------------------
# trends (lines 453, 672, 776)


def orders_of_magnitude(start, end):
    """log10(end / start): how many factors of ten separate two amounts of the same kind
    (both plain numbers, or both Quantities of one dimension)."""
    if isinstance(start, Quantity) != isinstance(end, Quantity):
        raise UnitMismatch(f"start and end must both be Quantities of one dimension or both plain numbers; "
                           f"got start={start!r}, end={end!r}")
    unit = f"{end.units:D}" if isinstance(end, Quantity) else ""
    st = magnitude("start", start, unit, gt=0)
    en = magnitude("end", end, unit, gt=0)
    return out(np.log10(en / st), "")


def growth_factor_per_year(ratio, years):
    """ratio^(1/years): the constant yearly factor that turns one amount into ``ratio`` times it."""
    r = magnitude("ratio", ratio, "", gt=0)
    y = magnitude("years", years, "year", gt=0)
    return out(r ** (1.0 / y), "")


def doubling_time(factor_per_year):
    """t_2 = ln 2 / ln(factor per year) (years); the factor must exceed 1."""
    f = magnitude("factor_per_year", factor_per_year, "", gt=1)
    return out(np.log(2.0) / np.log(f), "year")


def annual_growth_factor(doubling):
    """2^(1 year / t_2): the yearly factor of something that doubles every ``doubling``."""
    t2 = magnitude("doubling", doubling, "year", gt=0)
    return out(2.0 ** (1.0 / t2), "")


# --------------------------------------------------------------------------------------------
# LogGP (notation lines 476-486)


def loggp_message_time(k, L_lat, o, G):
    """T(k) = o + (k - 1) G + L_lat + o for one k-byte message (LogGP, Alexandrov et al. 1995;
    Vol. 2 notation lines 476-486, which name the gap g and the per-byte gap G; L_lat is the
    wire latency and o the per-message processor overhead at each end)."""
    kk = magnitude("k", k, "byte", ge=1)
    lat = magnitude("L_lat", L_lat, "s", ge=0)
    oo = magnitude("o", o, "s", ge=0)
    gg = magnitude("G", G, "s/byte", ge=0)
    return out(2.0 * oo + lat + (kk - 1.0) * gg, "s")


def loggp_burst_time(n_msg, k, L_lat, o, g, G):
    """Time until the last of n_msg back-to-back k-byte messages arrives (LogGP): injections start
    max(g, o + (k-1)G) apart, so T = (n_msg - 1) max(g, o + (k-1)G) + T(k)."""
    m = count("n_msg", n_msg)
    one = loggp_message_time(k, L_lat, o, G).magnitude
    kk = magnitude("k", k, "byte", ge=1)
    oo = magnitude("o", o, "s", ge=0)
    gap = magnitude("g", g, "s", ge=0)
    gg = magnitude("G", G, "s/byte", ge=0)
    period = np.maximum(gap, oo + (kk - 1.0) * gg)
    return out((m - 1) * period + one, "s")


def loggp_alpha_beta(L_lat, o, G):
    """The alpha-beta parameters a LogGP link implies for long messages: alpha = L_lat + 2o - G,
    beta = 1/G (so that alpha + k/beta = T(k)); compare collectives.alpha_beta_time.
    Returns {"alpha": s, "beta_net": byte/s}."""
    lat = magnitude("L_lat", L_lat, "s", ge=0)
    oo = magnitude("o", o, "s", ge=0)
    gg = magnitude("G", G, "s/byte", gt=0)
    return {"alpha": out(lat + 2.0 * oo - gg, "s"), "beta_net": out(1.0 / gg, "byte/s")}


# --------------------------------------------------------------------------------------------
# feeding the fleet (Part I principles, line 1199)


def storage_utilization(BW_storage, N_GPU, R_consumption):
    """Utilization = min(1, BW_storage / (N_GPU x R_consumption)), Vol. 2 Part I principles
    (line 1199): accelerators idle when storage cannot deliver what they consume."""
    bw = magnitude("BW_storage", BW_storage, "byte/s", ge=0)
    n = count("N_GPU", N_GPU)
    r = magnitude("R_consumption", R_consumption, "byte/s", gt=0)
    return out(np.minimum(1.0, bw / (n * r)), "")


# --------------------------------------------------------------------------------------------
# the other laws of the notation conventions (lines 308-320, 390, 524)


def degraded_accuracy(accuracy_0, sensitivity, divergence):
    """Accuracy(t) ~= Accuracy_0 - lambda x D(P_t || P_0), the degradation equation (Vol. 2
    notation, line 308): accuracy falls in proportion to the drift of the data distribution.
    Clipped at 0 (a linear model of a fraction cannot go below it)."""
    a = _fraction("accuracy_0", accuracy_0)
    lam = magnitude("sensitivity", sensitivity, "", ge=0)
    dv = magnitude("divergence", divergence, "", ge=0)
    return out(np.maximum(a - lam * dv, 0.0), "")


def needs_retraining(divergence, tau):
    """True when D(P_t || P_0) > tau, the drift threshold (line 320). Vectorised."""
    dv = magnitude("divergence", divergence, "", ge=0)
    t = magnitude("tau", tau, "", gt=0)
    r = dv > t
    return bool(r) if np.ndim(r) == 0 else r


def devices_3d(d, p, t):
    """N_total = d x p x t: data-parallel replicas x pipeline stages x tensor-parallel degree
    (Vol. 2 notation, line 524)."""
    return int(count("d", d) * count("p", p) * count("t", t)) if all(
        np.ndim(x) == 0 for x in (d, p, t)) else count("d", d) * count("p", p) * count("t", t)


def compressed_payload(M, r_comp):
    """M / r_comp: the payload after compression by ratio r_comp >= 1 (Vol. 2 notation, line 390)."""
    m = magnitude("M", M, "byte", ge=0)
    r = magnitude("r_comp", r_comp, "", ge=1)
    return out(m / r, "byte")


# --------------------------------------------------------------------------------------------
# barrier synchronisation vs independent tasks (Ch. 1 line 724, Figure 1.4)


def _slowdowns(N, slowdown, n_slow):
    n = count("N", N)
    sl = magnitude("slowdown", slowdown, "", ge=0)
    k = count("n_slow", n_slow, ge=0)
    if np.any(k > n):
        raise InputError(f"n_slow must be <= N = {N}; got {n_slow}")
    return n, sl, k


def barrier_throughput(N, slowdown, n_slow=1):
    """Cluster throughput relative to ideal when n_slow of N workers take (1 + slowdown) times as
    long and every step waits at a barrier: 1 / (1 + slowdown) if any worker is slow (Ch. 1
    line 724: "a 10 % slower node slows the whole cluster by 10 %")."""
    n, sl, k = _slowdowns(N, slowdown, n_slow)
    return out(np.where(k > 0, 1.0 / (1.0 + sl), 1.0) + 0.0 * n, "")


def independent_throughput(N, slowdown, n_slow=1):
    """Throughput relative to ideal when workers run independent tasks (MapReduce, Figure 1.4):
    the slow workers lose only their own share, (N - n_slow + n_slow / (1 + slowdown)) / N."""
    n, sl, k = _slowdowns(N, slowdown, n_slow)
    return out((n - k + k / (1.0 + sl)) / n, "")
