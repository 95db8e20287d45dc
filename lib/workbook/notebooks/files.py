"""What every notebook tool reads a notebook with: its MyST source, its cells' hashes, the panels
its saved widget state holds."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jupytext

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def cell_sources(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def sources_sha(nb) -> str:
    return sha(json.dumps(cell_sources(nb)))


def read_md(path: Path):
    nb = jupytext.read(path, fmt="md:myst")
    nb.metadata["kernelspec"] = dict(KERNEL)
    return nb


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def saved_panels(nb) -> list[tuple[int, dict]]:
    """(cell index, the panel's data: title, where, main, knobs [[name, label], ...]) of every fleetcalc
    panel an executed notebook saved, in page order (read from the saved widget state)."""
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})

    def below(mid, seen):
        m = state.get(mid)
        if m is None or mid in seen:
            return
        seen.add(mid)
        data = m.get("state", {}).get("fleetcalc")
        if data:
            yield data
        for ref in m.get("state", {}).get("children", []) or []:
            yield from below(ref.removeprefix("IPY_MODEL_") if isinstance(ref, str) else ref, seen)

    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            view = o.get("data", {}).get(WIDGET_VIEW)
            if view:
                out += [(i, data) for data in below(view["model_id"], set())]
    return out
