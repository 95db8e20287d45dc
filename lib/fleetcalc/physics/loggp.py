"""The LogGP model of message passing: one message, a burst, the implied alpha and beta.

One k-byte message, a burst of back-to-back messages, and the alpha-beta parameters a LogGP link
implies for long messages.

LogGP (Alexandrov et al. 1995) as Vol. 2's notation conventions name it (lines 476-486, seed
001): ``L_lat`` the wire latency, ``o`` the per-message processor overhead at each end, ``g`` the
gap between messages and ``G`` the gap per byte (s/byte). Compare
:func:`fleetcalc.physics.collectives.alpha_beta_time`.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import calculator, qty, whole
from fleetcalc.core.equation import eq

__all__ = ["loggp_message_time", "loggp_burst_time", "loggp_alpha_beta"]

_K = qty("byte", ge=1, doc="message size")
_L = qty("s", ge=0, doc="wire latency")
_O = qty("s", ge=0, doc="per-message overhead at each end")
_G = qty("s/byte", ge=0, doc="gap per byte")
_REF = "LogGP (Alexandrov et al. 1995) in Vol. 2's notation (lines 476-486)"


@calculator(returns="s", k=_K, L_lat=_L, o=_O, G=_G,
            equation=eq("T(k)", "o + (k - 1)*G + L_lat + o", ref=_REF))
def loggp_message_time(k, L_lat, o, G):
    """T(k) = o + (k - 1) G + L_lat + o for one k-byte message (LogGP, Alexandrov et al. 1995;
    Vol. 2 notation lines 476-486, which name the gap g and the per-byte gap G; L_lat is the
    wire latency and o the per-message processor overhead at each end)."""
    return 2.0 * o + L_lat + (k - 1.0) * G


@calculator(returns="s", n_msg=whole(doc="messages"), k=_K, L_lat=_L, o=_O,
            g=qty("s", ge=0, doc="gap between messages"), G=_G,
            equation=eq(r"T_{\mathrm{burst}}", "(n_msg - 1)*max(g, o + (k - 1)*G) + (o + (k - 1)*G + L_lat + o)",
                        symbols={"n_msg": "n"}, ref=_REF))
def loggp_burst_time(n_msg, k, L_lat, o, g, G):
    """Time until the last of n_msg back-to-back k-byte messages arrives (LogGP): injections start
    max(g, o + (k-1)G) apart, so T = (n_msg - 1) max(g, o + (k-1)G) + T(k)."""
    period = np.maximum(g, o + (k - 1.0) * G)
    return (n_msg - 1) * period + loggp_message_time.kernel(k, L_lat, o, G)


@calculator(returns={"alpha": "s", "beta_net": "byte/s"}, L_lat=_L, o=_O, G=qty("s/byte", gt=0, doc="gap per byte"),
            equation={"alpha": eq(r"\alpha", "L_lat + 2*o - G", ref=_REF + ", matched to α + m/β_net (Ch. 28 Eq. 28.10)"),
                      "beta_net": eq(r"\beta_{\mathrm{net}}", "1/G", ref=_REF + ", matched to α + m/β_net (Ch. 28 Eq. 28.10)")})
def loggp_alpha_beta(L_lat, o, G):
    """The alpha-beta parameters a LogGP link implies for long messages: alpha = L_lat + 2o - G,
    beta = 1/G (so that alpha + k/beta = T(k)); compare collectives.alpha_beta_time.
    Returns {"alpha": s, "beta_net": byte/s}."""
    return {"alpha": L_lat + 2.0 * o - G, "beta_net": 1.0 / G}


@calculator(returns="s", k=_K, o=_O, g=qty("s", ge=0, doc="gap between messages"), G=_G,
            equation=eq(r"t_{\mathrm{inject}}", "max(g, o + (k - 1)*G)", ref=_REF))
def loggp_injection_period(k, o, g, G):
    """Time between the starts of back-to-back k-byte messages (LogGP): max(g, o + (k-1) G), the
    sender is held by the gap g or by its own overhead plus the bytes' injection, whichever is longer."""
    return np.maximum(g, o + (k - 1.0) * G)


__all__ += ["loggp_injection_period"]
