"""The iron law of ML systems (Vol. 2 notation): a step's time as its data, compute and overhead terms, side by side."""
from __future__ import annotations

from fleetcalc.core.units import fmt
from fleetcalc.physics import iron_law
from fleetcalc.ui.diagrams.draw import PALETTE
from fleetcalc.ui.diagrams.draw import figure_axes as _figure

__all__ = ["iron_law_bars"]


_TERM_KIND = {"data": "memory", "compute": "compute", "latency": "idle"}


_TERM_LABEL = {"data": "data  D_vol / BW", "compute": "compute  O / (R_peak η_hw)", "latency": "overhead  L_lat"}


def iron_law_bars(cases: dict, *, unit: str = "ms", title: str = "The iron law: where a step's time goes"):
    """One horizontal bar per case, split into the iron law's data, compute and overhead terms.

    ``cases`` maps a label to the six arguments of ``iron_law.iron_law_terms`` (D_vol, BW, O,
    R_peak, eta_hw, L_lat), as a tuple or a dict. ``fig.terms`` holds, per case, the three terms
    in ``unit`` and ``fig.totals`` their sums. The bars share one time axis, so a change that
    touches one term shows as one segment shrinking and the others staying put."""
    if not cases:
        raise ValueError("cases must name at least one step")
    terms, totals = {}, {}
    for name, args in cases.items():
        t = iron_law.iron_law_terms(**args) if isinstance(args, dict) else iron_law.iron_law_terms(*args)
        terms[name] = {k: float(v.to(unit).magnitude) for k, v in t.items()}
        totals[name] = sum(terms[name].values())
    fig, ax = _figure((7.2, 0.9 + 0.55 * len(cases)))
    names = list(cases)
    for i, name in enumerate(reversed(names)):
        left = 0.0
        for key in ("data", "compute", "latency"):
            w = terms[name][key]
            ax.barh(i, w, left=left, color=PALETTE[_TERM_KIND[key]], alpha=0.75, height=0.6,
                    label=_TERM_LABEL[key] if i == 0 else None)
            left += w
        ax.text(left, i, f"  T = {fmt(totals[name], None, sig=3)} {unit}", va="center", fontsize=8)
    ax.set_yticks(range(len(names)), list(reversed(names)), fontsize=8)
    ax.set_xlim(0, max(totals.values()) * 1.35)
    ax.set_xlabel(f"time ({unit})", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7, loc="lower right", ncol=3, frameon=False, bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize=10, loc="left", pad=18)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    fig.terms, fig.totals = terms, totals
    return fig
