"""Neural scaling laws: power-law loss, training compute 6 P D, compute-optimal allocation.

Chinchilla's allocation, with the data-limited and compute-limited regimes.

Vol. 2 Ch. 1 lines 762-836 (seed 001; line numbers point into that seed text), after Kaplan et
al. 2020 and Hoffmann et al. 2022. The literature writes ``C ~= 6 N D`` with N = parameters;
Vol. 2 reserves N for devices, so this module writes ``C ~= 6 P D`` (``P`` parameters, ``D``
training tokens, ``C`` training compute in FLOP).

Parameter and token counts are accepted as plain numbers or as Quantities in ``param`` and
``token``.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import amount, calculator, num, qty
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, out

__all__ = [
    "power_law_loss", "resource_for_loss", "training_flops", "tokens_per_param", "compute_optimal",
    "CHINCHILLA_TOKENS_PER_PARAM", "constrained_allocation", "scaling_regime", "KAPLAN", "kaplan_loss",
]

#: "about 20 training tokens per parameter" (Ch. 1 lines 790 and 798, Hoffmann et al. 2022).
CHINCHILLA_TOKENS_PER_PARAM = 20.0

_P = amount("param", doc="parameters")
_D = amount("token", doc="training tokens")
_POWER_LAW = "Vol. 2 Ch. 1 (the power law of scaling)"
_LOSS = {"A_L": r"A_{\mathcal{L}}", "C_L": r"C_{\mathcal{L}}", "L_target": r"\mathcal{L}_{\mathrm{target}}",
         "tokens_per_param": "r"}
_OPTIMAL = "Vol. 2 Ch. 1 (compute-optimal allocation, about 20 tokens per parameter) with C = 6 P D"

@calculator(returns="", X=num(gt=0, doc="resource: parameters, tokens or FLOPs, normalised"),
            A_L=num(ge=0), alpha_scale=num(gt=0), C_L=num(ge=0, doc="irreducible loss"),
            equation=eq(r"\mathcal{L}(X)", "A_L*X**(-alpha_scale) + C_L", symbols=_LOSS, ref=_POWER_LAW))
def power_law_loss(X, A_L, alpha_scale, C_L):
    """L(X) = A_L X^(-alpha_scale) + C_L, Ch. 1 line 810 (and line 1129): loss falls as a power of
    the resource X (parameters, tokens or FLOPs) towards the floor C_L. X, A_L, C_L are pure
    numbers in whatever normalisation the fit used."""
    with np.errstate(over="ignore"):
        loss = A_L * np.power(X, -alpha_scale) + C_L
    if not np.all(np.isfinite(loss)):
        raise InputError(f"X = {X} is too small for alpha_scale = {alpha_scale}: the loss exceeds any float")
    return loss

@calculator(returns="", L_target=num(gt=0, doc="target loss, > C_L"), A_L=num(gt=0), alpha_scale=num(gt=0),
            C_L=num(ge=0, doc="irreducible loss"),
            equation=eq("X", "(A_L/(L_target - C_L))**(1/alpha_scale)", symbols=_LOSS,
                        ref=f"{_POWER_LAW}, solved for X"))
def resource_for_loss(L_target, A_L, alpha_scale, C_L):
    """X = (A_L / (L_target - C_L))^(1/alpha_scale): the resource a target loss needs (line 810
    solved for X). L_target must lie above the floor C_L."""
    if np.any(L_target <= C_L):
        raise InputError(f"L_target must be > C_L = {np.max(C_L):.6g} (the irreducible floor); got {L_target}")
    with np.errstate(over="ignore"):
        x = np.power(A_L / (L_target - C_L), 1.0 / alpha_scale)
    if not np.all(np.isfinite(x)):
        raise InputError(f"the resource for L_target = {L_target} exceeds any float: alpha_scale = {alpha_scale} "
                         f"is too small for A_L / (L_target - C_L) = {np.max(A_L / (L_target - C_L)):.6g}")
    return x

@calculator(returns="FLOP", P=_P, D=_D,
            equation=eq("C", "6*P*D", ref="Vol. 2 Ch. 2 (the 6 × P × D estimate of training FLOPs)"))
def training_flops(P, D):
    """C ~= 6 P D (FLOP): forward + backward cost of training P parameters on D tokens (Kaplan et al.
    2020, used by Hoffmann et al. 2022; the literature writes 6ND). Vol. 2 Ch. 2 line 2294 uses it
    for GPT-3 (6 x 175e9 x 300e9)."""
    return 6.0 * P * D

@calculator(returns="", P=_P, D=_D,
            equation=eq("r", "D/P", ref="Vol. 2 Ch. 1 (tokens per parameter; Chinchilla: about 20)"))
def tokens_per_param(P, D):
    """D / P: training tokens per parameter (Chinchilla's rule is about 20, Ch. 1 line 790)."""
    return D / P

_OPT_WHERE = [("P_opt", "sqrt(C/(6*tokens_per_param))"), ("D_opt", "tokens_per_param*P_opt")]
_CONSTRAINED = "Vol. 2 Ch. 1 (resource-constrained scaling regimes; our formalisation of the data-limited case)"
_BUDGET = dict(C=qty("FLOP", gt=0, doc="training compute budget"),
               tokens_per_param=num(gt=0, doc="r = D / P at the optimum (Chinchilla: about 20)"))

@calculator(returns={"P": "param", "D": "token"}, **_BUDGET, equation={
    "P": eq(r"P_{\mathrm{opt}}", "sqrt(C/(6*tokens_per_param))", symbols=_LOSS, ref=_OPTIMAL),
    "D": eq(r"D_{\mathrm{opt}}", "tokens_per_param*P_opt", where=[("P_opt", "sqrt(C/(6*tokens_per_param))")],
            symbols=_LOSS, ref=_OPTIMAL)})
def compute_optimal(C, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM):
    """Compute-optimal split of a budget C with D = r P and C = 6 P D:
    P_opt = sqrt(C / (6 r)) parameters, D_opt = r P_opt tokens (Ch. 1 lines 790 and 798, r ~= 20).
    Returns {"P": Quantity(param), "D": Quantity(token)}."""
    p = np.sqrt(C / (6.0 * tokens_per_param))
    return {"P": p, "D": tokens_per_param * p}

@calculator(returns=None, C=_BUDGET["C"], D_avail=amount("token", doc="unique tokens available"),
            tokens_per_param=_BUDGET["tokens_per_param"], equation={
                "P": eq("P", "C/(6*D_avail) if D_opt > D_avail else P_opt", where=_OPT_WHERE, symbols=_LOSS,
                        ref=_CONSTRAINED),
                "D": eq("D", "D_avail if D_opt > D_avail else D_opt", where=_OPT_WHERE, symbols=_LOSS,
                        ref=_CONSTRAINED)})
def constrained_allocation(C, D_avail, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM):
    """Allocation of a budget C when only D_avail unique tokens exist (Ch. 1 lines 830-836).

    If the compute-optimal D_opt(C) fits in D_avail, use (P_opt, D_opt). Otherwise the run is
    data-limited: use all D_avail tokens and spend the rest of the budget on a larger model,
    P = C / (6 D_avail) ("larger models, fewer optimisation steps", line 834). Our formalisation;
    the text states the regimes only in words. Returns {"P", "D", "data_limited"}.
    """
    opt = compute_optimal.kernel(C, tokens_per_param)
    limited = opt["D"] > D_avail
    d = np.where(limited, D_avail, opt["D"])
    p = np.where(limited, C / (6.0 * D_avail), opt["P"])
    return {"P": out(p, "param"), "D": out(d, "token"),
            "data_limited": bool(limited) if np.ndim(limited) == 0 else limited}

@calculator(returns=None, C=_BUDGET["C"], D_avail=amount("token", doc="unique tokens available"),
            tokens_per_param=_BUDGET["tokens_per_param"], equation=no_equation(
                "a classification into named regimes (data-limited, balanced, compute-limited)"),
            band=num(gt=1, doc="how many times D_opt counts as plentiful (our choice)"))
def scaling_regime(C, D_avail, tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM, band=2.0):
    """Which resource binds (Ch. 1 lines 828-836):

    'data-limited' when D_avail < D_opt(C) (compute exceeds what the data can use);
    'compute-limited' when D_avail > band x D_opt(C) (data is plentiful, compute is scarce);
    'balanced' in between. ``band`` (> 1) is our choice: the text gives no threshold. Vectorised.
    """
    d_opt = compute_optimal.kernel(C, tokens_per_param)["D"]
    da, d_opt, b = np.broadcast_arrays(D_avail, d_opt, band)
    lab = np.where(da < d_opt, "data-limited", np.where(da > b * d_opt, "compute-limited", "balanced"))
    return str(lab) if lab.ndim == 0 else lab


#: Kaplan et al. 2020, the two-variable fit L(N, D) of their Eq. 1.5, constants from their Table 2
#: ("Fits to L(N, D)": alpha_N = 0.076, alpha_D = 0.103, N_c = 6.4e13, D_c = 1.8e13; loss in nats
#: per token, P non-embedding parameters). The chapter prints no fitted constants for its loss
#: figures (Figs 1.7-1.8, line 830); these are the published fit of the study the figures come from.
#: Not the single-variable fits of their Eqs 1.1-1.2 (alpha_D = 0.095, N_c = 8.8e13, D_c = 5.4e13),
#: which describe L(N) with unlimited data and L(D) with an unlimited model, each fitted on its own.
KAPLAN = {"alpha_N": 0.076, "alpha_D": 0.103, "N_c": 6.4e13, "D_c": 1.8e13}


@calculator(returns="", P=amount("param", doc="non-embedding parameters"),
            D=amount("token", doc="training tokens"),
            alpha_N=num(gt=0, le=1), alpha_D=num(gt=0, le=1), N_c=num(gt=0), D_c=num(gt=0),
            equation=eq(r"\mathcal{L}(P, D)", "((N_c/P)**(alpha_N/alpha_D) + D_c/D)**alpha_D",
                        ref="Kaplan et al. 2020, Eq. 1.5 (the curves of Vol. 2 Ch. 1, Figs 1.7-1.8)"))
def kaplan_loss(P, D, alpha_N=KAPLAN["alpha_N"], alpha_D=KAPLAN["alpha_D"], N_c=KAPLAN["N_c"],
                D_c=KAPLAN["D_c"]):
    """L(P, D) = [(N_c/P)^(alpha_N/alpha_D) + D_c/D]^alpha_D (nats/token), Kaplan et al. 2020
    Eq. 1.5: the early-stopped test loss of a P-parameter model trained on D tokens (the curves
    of Vol. 2 Ch. 1 Figs 1.7-1.8). Each term is :func:`power_law_loss` in the normalised resource
    (P/N_c or D/D_c) with no floor: D -> infinity gives (N_c/P)^alpha_N, P -> infinity gives
    (D_c/D)^alpha_D."""
    exponent = alpha_N / alpha_D
    model_term = power_law_loss.kernel(P / N_c, 1.0, exponent, 0.0)
    data_term = power_law_loss.kernel(D / D_c, 1.0, 1.0, 0.0)
    return (model_term + data_term) ** alpha_D


# --- appended for the capstone (chapters/capstone): a model's width from its size -----------------
@calculator(returns="", P=amount("param", doc="non-embedding parameters"), L=num(gt=0, doc="layers"),
            equation=eq("h", "sqrt(P/(12*L))",
                        ref="Kaplan et al. 2020, §2.1 (P ≈ 12 L h² non-embedding parameters, solved for h)"))
def hidden_size_for_params(P, L):
    """Hidden size of a standard transformer with P non-embedding parameters in L layers:
    sqrt(P / (12 L)) (Kaplan et al. 2020, §2.1: each layer holds 4 h² attention and 8 h² MLP
    weights). 70e9 parameters in 80 layers: h = 8539 (Llama 2 70B, with grouped-query attention
    and a wider MLP, has 8192)."""
    return np.sqrt(P / (12.0 * L))


__all__ += ["hidden_size_for_params"]
