"""The iron law of ML systems, its energy corollary and communication intensity.

Vol. 2 front matter ("notation conventions", lines 255-332 and 390) and Ch. 1 Eq. 1.2 and 1.5
(seed 001; line numbers point into that seed text).

Symbols follow Vol. 2 (see :mod:`fleetcalc.core.notation`): ``D_vol`` bytes moved, ``BW`` bandwidth,
``O`` operations (FLOP), ``R_peak`` peak rate, ``eta_hw`` hardware efficiency, ``L_lat`` fixed
latency. Communication intensity CI (byte/FLOP) compares the iron law's network term with its
compute term; :func:`ci_boundary` is the intensity at which the hardware makes them equal.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import calculator, num, qty
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError

__all__ = [
    # iron law and energy corollary
    "iron_law_terms", "iron_law_time", "movement_energy", "energy_total", "energy_productivity",
    "compressed_payload",
    # communication intensity
    "communication_intensity", "ci_boundary", "ci_regime", "comm_to_compute_time_ratio",
    "BOOK_CI_LOW", "BOOK_CI_HIGH", "book_ci_band",
]

_NOTATION = "Vol. 2 notation conventions"
_IRON_LAW = eq("T", "D_vol/BW + O/(R_peak*eta_hw) + L_lat", ref=f"{_NOTATION} (the iron law of ML systems)")

_TERMS = f"{_NOTATION} (the iron law's three terms)"
_IRON = dict(D_vol=qty("byte", ge=0, doc="bytes moved"), BW=qty("byte/s", gt=0, doc="bandwidth"),
             O=qty("FLOP", ge=0, doc="operations"), R_peak=qty("FLOP/s", gt=0, doc="peak rate"),
             eta_hw=num(gt=0, le=1, doc="hardware efficiency"), L_lat=qty("s", ge=0, doc="fixed latency"))


def _labels(arr):
    """A str for one value, an array of str for many."""
    arr = np.asarray(arr)
    return str(arr) if arr.ndim == 0 else arr


# --------------------------------------------------------------------------------------------
# the iron law and its energy corollary (front matter, lines 255-332)


@calculator(returns={"data": "s", "compute": "s", "latency": "s"}, **_IRON, equation={
    "data": eq(r"T_{\mathrm{data}}", "D_vol/BW", ref=_TERMS),
    "compute": eq(r"T_{\mathrm{compute}}", "O/(R_peak*eta_hw)", ref=_TERMS),
    "latency": eq(r"T_{\mathrm{latency}}", "L_lat", ref=_TERMS)})
def iron_law_terms(D_vol, BW, O, R_peak, eta_hw, L_lat):
    """The three terms of the iron law T = D_vol/BW + O/(R_peak eta_hw) + L_lat (Vol. 2 notation,
    line 257): ``data`` = D_vol/BW, ``compute`` = O/(R_peak eta_hw), ``latency`` = L_lat (s)."""
    z = 0.0 * (D_vol + BW + O + R_peak + eta_hw + L_lat)  # broadcast every term to the common shape
    return {"data": D_vol / BW + z, "compute": O / (R_peak * eta_hw) + z, "latency": L_lat + z}


@calculator(returns="s", **_IRON, equation=_IRON_LAW)
def iron_law_time(D_vol, BW, O, R_peak, eta_hw, L_lat):
    """T = D_vol/BW + O/(R_peak eta_hw) + L_lat (s), the iron law of ML systems (Vol. 2 notation,
    line 257; Ch. 1 line 986). The terms add: no overlap of data movement and compute."""
    return sum(iron_law_terms.kernel(D_vol, BW, O, R_peak, eta_hw, L_lat).values())


@calculator(returns="J", D_vol=qty("byte", ge=0, doc="bytes moved"),
            E_move=qty("J/byte", ge=0, doc="energy per byte (or per bit: pint converts)"),
            equation=eq(r"E_{\mathrm{data}}", "D_vol*E_move",
                        ref=f"{_NOTATION} (the energy corollary's data-movement term)"))
def movement_energy(D_vol, E_move):
    """D_vol x E_move (J): the data-movement term of the energy corollary (line 326). ``E_move`` is
    energy per byte or per bit (``Q_(15, "pJ/bit")``, Ch. 1 line 1040's network figure)."""
    return D_vol * E_move


@calculator(returns="J", D_vol=qty("byte", ge=0), E_move=qty("J/byte", ge=0), O=qty("FLOP", ge=0),
            E_compute=qty("J/FLOP", ge=0),
            equation=eq(r"E_{\mathrm{total}}", "D_vol*E_move + O*E_compute",
                        ref=f"{_NOTATION} (the energy corollary)"))
def energy_total(D_vol, E_move, O, E_compute):
    """E_total ~= D_vol x E_move + O x E_compute (J), the energy corollary of the iron law
    (Vol. 2 notation, line 326)."""
    return movement_energy.kernel(D_vol, E_move) + O * E_compute


@calculator(returns="FLOP/J", O_useful=qty("FLOP", ge=0), E_compute=qty("J", ge=0),
            E_cooling=qty("J", ge=0), E_network=qty("J", ge=0),
            equation=eq(r"\rho_{\mathrm{energy}}", "O_useful/(E_compute + E_cooling + E_network)",
                        ref="Vol. 2 Ch. 1, Eq. 1.5"))
def energy_productivity(O_useful, E_compute, E_cooling, E_network):
    """rho_energy = O_useful / (E_compute + E_cooling + E_network) (FLOP/J), Ch. 1 Eq. 1.5."""
    tot = E_compute + E_cooling + E_network
    if np.any(tot <= 0):
        raise InputError("E_compute + E_cooling + E_network must be > 0 J; got 0 J in total")
    return O_useful / tot


@calculator(returns="byte", M=qty("byte", ge=0, doc="message payload"),
            r_comp=num(ge=1, doc="compression ratio"),
            equation=eq(r"M_{\mathrm{comp}}", "M/r_comp", ref=f"{_NOTATION} (r_comp, the compression ratio)"))
def compressed_payload(M, r_comp):
    """M / r_comp: the payload after compression by ratio r_comp >= 1 (Vol. 2 notation, line 390)."""
    return M / r_comp


# --------------------------------------------------------------------------------------------
# communication intensity (Eq. 1.2) and the boundary that hardware sets

#: The book's qualitative bands (Ch. 1 line 928): CI < 0.01 compute-intensive, CI > 0.1
#: network-bound. They are stated, not derived from any device; see :func:`ci_boundary`.
BOOK_CI_LOW = 0.01   # byte/FLOP
BOOK_CI_HIGH = 0.1   # byte/FLOP

_BOUNDARY = dict(BW_net=qty("byte/s", gt=0, doc="network bandwidth per device"),
                 R_peak=qty("FLOP/s", gt=0), eta_hw=num(gt=0, le=1))
_CI = qty("byte/FLOP", ge=0, doc="communication intensity")


@calculator(returns="byte/FLOP", bytes_net=qty("byte", ge=0, doc="bytes sent over the network"),
            O_local=qty("FLOP", gt=0, doc="FLOPs executed locally"),
            equation=eq(r"\mathrm{CI}", "bytes_net/O_local", ref="Vol. 2 Ch. 1, Eq. 1.2",
                        symbols={"bytes_net": r"\text{bytes sent}_{\mathrm{network}}",
                                 "O_local": r"\text{FLOPs executed}_{\mathrm{local}}"}))
def communication_intensity(bytes_net, O_local):
    """CI = bytes sent over the network / FLOPs executed locally (byte/FLOP), Ch. 1 Eq. 1.2."""
    return bytes_net / O_local


@calculator(returns="byte/FLOP", **_BOUNDARY, equation=eq(
    r"\mathrm{CI}^{*}", "BW_net/(R_peak*eta_hw)",
    ref=f"{_NOTATION} (the iron law: data term = compute term per device); Ch. 28 §28.3, Eq. 28.3 inverted"))
def ci_boundary(BW_net, R_peak, eta_hw=1.0):
    """CI* = BW_net / (R_peak eta_hw) (byte/FLOP): the intensity at which network time equals compute
    time, D_vol/BW_net = O/(R_peak eta_hw) (the iron law's first two terms per device). Below CI*
    the step is compute-bound, above it network-bound: the network analogue of the roofline ridge
    (Ch. 28 Eq. 28.3 inverted)."""
    return BW_net / (R_peak * eta_hw)


@calculator(returns="", CI=_CI, **_BOUNDARY, equation=eq(
    r"T_{\mathrm{net}}/T_{\mathrm{compute}}", "CI/CI_star", where=[("CI_star", "BW_net/(R_peak*eta_hw)")],
    symbols={"CI_star": r"\mathrm{CI}^{*}"}, ref="Vol. 2 Ch. 1, Eq. 1.2 against the iron law's compute term"))
def comm_to_compute_time_ratio(CI, BW_net, R_peak, eta_hw=1.0):
    """T_net / T_compute = CI / CI* = CI R_peak eta_hw / BW_net (no overlap): > 1 means the network
    term of the iron law is the larger one."""
    return CI / ci_boundary.kernel(BW_net, R_peak, eta_hw)


@calculator(returns=None, CI=_CI, **_BOUNDARY, equation=no_equation(
    "a classification into named regimes (compute-bound, balanced, network-bound) by CI against CI*"))
def ci_regime(CI, BW_net, R_peak, eta_hw=1.0):
    """'compute-bound' when CI < CI*, 'network-bound' when CI > CI*, 'balanced' at CI* (relative
    tolerance 1e-9). Vectorised: an array of labels for array inputs."""
    ci, star = np.broadcast_arrays(CI, ci_boundary.kernel(BW_net, R_peak, eta_hw))
    lab = np.where(ci < star, "compute-bound", "network-bound")
    lab = np.where(np.isclose(ci, star, rtol=1e-9, atol=0), "balanced", lab)  # not a unit factor: a relative tolerance
    return _labels(lab)


@calculator(returns=None, CI=_CI, equation=no_equation(
    "a classification into the book's named qualitative bands (low, between, high)"))
def book_ci_band(CI):
    """The book's qualitative band (Ch. 1 line 928): 'low' (< 0.01 byte/FLOP), 'high' (> 0.1) or
    'between' (the text names no band there). Vectorised."""
    lab = np.where(CI < BOOK_CI_LOW, "low", np.where(CI > BOOK_CI_HIGH, "high", "between"))
    return _labels(lab)
