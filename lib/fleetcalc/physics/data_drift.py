"""Data drift: the degradation equation and the retraining threshold.

Vol. 2 notation conventions, lines 308-320 (seed 001; line numbers point into that seed text):
a model's accuracy falls in proportion to the divergence D(P_t || P_0) of the live data
distribution from the training one, and a divergence above the threshold tau calls for retraining.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import calculator, fraction, num
from fleetcalc.core.equation import eq, no_equation

__all__ = ["degraded_accuracy", "needs_retraining"]

_DIVERGENCE = num(ge=0, doc="D(P_t || P_0)")
_REF = "Vol. 2 notation conventions, the degradation equation"
_SYMBOLS = {"accuracy_0": r"\mathrm{Accuracy}_0", "sensitivity": r"\lambda",
            "divergence": r"\mathcal{D}\left(P_t \,\|\, P_0\right)", "tau": r"\tau"}


@calculator(returns="", accuracy_0=fraction(doc="accuracy on the training distribution"),
            sensitivity=num(ge=0, doc="lambda"), divergence=_DIVERGENCE,
            equation=eq(r"\mathrm{Accuracy}(t)", "max(accuracy_0 - sensitivity*divergence, 0)", ref=_REF,
                        symbols=_SYMBOLS))
def degraded_accuracy(accuracy_0, sensitivity, divergence):
    """Accuracy(t) ~= Accuracy_0 - lambda x D(P_t || P_0), the degradation equation (Vol. 2
    notation, line 308): accuracy falls in proportion to the drift of the data distribution.
    Clipped at 0 (a linear model of a fraction cannot go below it)."""
    return np.maximum(accuracy_0 - sensitivity * divergence, 0.0)


@calculator(returns=None, divergence=_DIVERGENCE, tau=num(gt=0, doc="drift threshold"),
            equation=no_equation("a yes/no test, D(P_t || P_0) > tau; the worked step needs a true/false "
                                 "result shown (it formats quantities only)"))
def needs_retraining(divergence, tau):
    """True when D(P_t || P_0) > tau, the drift threshold (line 320). Vectorised."""
    r = divergence > tau
    return bool(r) if np.ndim(r) == 0 else r
