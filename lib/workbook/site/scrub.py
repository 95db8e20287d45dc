"""Frames for the static site: each chapter panel scrubbed along its main knob, drawn at build time.

A static page has no kernel, so a panel there is a picture of its saved state. To let a reader
still see the idea move, the site build runs each chapter notebook's code once more (in-process,
with lib/workbook/site/panel_harness.py), and for every panel moves its main knob (``panel(main=...)``, else
its first knob) across the knob's range with every other knob at its starting value (the book's
value). Each position gives one frame: the picture (lossless WebP) and the readout table (HTML).

    workbook scrub render chapters/ch28/28_5_collectives.md ...          # fills _build/.cache/scrub/
    workbook scrub stats                                                 # frame counts and sizes

A notebook's frames are cached under ``_build/.cache/scrub/<key>/`` where the key hashes the
notebook source, the calculator library (lib/) and this file: a rebuild renders only what changed.
``manifest.json`` there lists, per panel, the notebook cell, the knob and its frames; identical
pictures are stored once (file name = content hash).
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import sys
import time
from pathlib import Path

from workbook import repo_root
def frames_cache() -> Path:
    """Where rendered static-panel frames are kept."""
    return repo_root() / "_build" / ".cache" / "scrub"

FRAMES = 21          # positions along a slider (the starting value is added when it falls between)
MAX_OPTIONS = 24     # a dropdown shows each option up to this many
FORMAT = "webp"      # lossless WebP: ~5-7 KB per 576 x 306 panel picture (PNG from the panel: ~20 KB)
# Phones: a second frame set drawn for a narrow column (3.9 in at 90 dpi = 351 px, about the text
# column of a 390 px screen), so chart text is not shrunk to 5-6 px there; several axes stack.
NARROW_WIDTH_IN = 3.7     # 333 px at 90 dpi: shown at its own size in a 390 px screen's column
NARROW_MIN_PT = 8.1       # no text below 8.1 pt there: 8.1 pt at 90 dpi = 10.1 px
DPI = 90


def _lib_hash() -> str:
    """The calculators and panel code the frames are drawn with (lib/fleetcalc), the harness that
    runs the notebooks and this file; the rest of the site tooling does not change a frame."""
    h = hashlib.sha1()
    files = list((repo_root() / "lib" / "fleetcalc").rglob("*")) + [repo_root() / "lib" / "workbook" / "panel_harness.py"]
    for p in sorted(files):
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".egg-info")) \
                and ".egg-info" not in str(p):
            h.update(p.relative_to(repo_root()).as_posix().encode())
            h.update(p.read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()


_LIB_HASH: str | None = None


def cache_key(md: Path) -> str:
    global _LIB_HASH
    if _LIB_HASH is None:
        _LIB_HASH = _lib_hash()
    h = hashlib.sha1(_LIB_HASH.encode())
    h.update(md.read_bytes())
    return h.hexdigest()[:16]


def cache_dir(md: Path) -> Path:
    return frames_cache() / cache_key(md)


# ----------------------------------------------------------------------------- positions

def positions(widget) -> list:
    """The values the main knob takes, in slider order, the widget's starting value included."""
    import ipywidgets as w

    start = widget.value
    if isinstance(widget, (w.Dropdown, w.ToggleButtons, w.RadioButtons, w.Select, w.SelectionSlider)):
        vals = list(widget._options_values)
        if isinstance(widget, w.SelectionSlider) and len(vals) > FRAMES and all(
                isinstance(v, (int, float)) and v > 0 for v in vals):
            # a log-spaced slider over whole numbers (fleetcalc's WholeLogSlider): frames evenly in log
            lo, hi = math.log(vals[0]), math.log(vals[-1])
            picks = {min(vals, key=lambda v: abs(math.log(v) - (lo + (hi - lo) * k / (FRAMES - 1))))
                     for k in range(FRAMES)}
            return sorted(picks | {start})
        if len(vals) > MAX_OPTIONS:
            idx = sorted({round(k * (len(vals) - 1) / (MAX_OPTIONS - 1)) for k in range(MAX_OPTIONS)})
            keep = [vals[i] for i in idx]
            vals = keep if start in keep else sorted(keep + [start], key=vals.index)
        return vals
    if isinstance(widget, w.FloatLogSlider):
        lo, hi, step = widget.min, widget.max, widget.step
        exps = [lo + (hi - lo) * k / (FRAMES - 1) for k in range(FRAMES)]
        exps = [round((e - lo) / step) * step + lo for e in exps] if step else exps
        vals = [float(f"{widget.base ** e:.6g}") for e in exps]
    else:
        lo, hi, step = widget.min, widget.max, widget.step or (widget.max - widget.min) / (FRAMES - 1)
        n = round((hi - lo) / step)
        if n + 1 <= FRAMES + 4:
            picks = range(n + 1)
        else:
            picks = sorted({round(k * n / (FRAMES - 1)) for k in range(FRAMES)})
        vals = [lo + k * step for k in picks]
        if isinstance(widget, w.IntSlider):
            vals = [int(round(v)) for v in vals]
        else:
            digits = max(0, -math.floor(math.log10(step))) + 2 if step else 6
            vals = [min(hi, round(v, digits)) for v in vals]
    out = sorted(set(vals) | {start})
    # a value within a tiny fraction of a step of the start is the start (no near-duplicate frame)
    span = (max(out) - min(out)) or 1
    return [v for v in out if v == start or abs(v - start) > 1e-9 * span]


def handle_position(widget, value) -> float | None:
    """Where the slider's handle sits for ``value``, in percent of its track (None: not a slider)."""
    import ipywidgets as w

    if isinstance(widget, w.FloatLogSlider):
        lo, hi, x = widget.min, widget.max, math.log(value, widget.base)
    elif isinstance(widget, (w.IntSlider, w.FloatSlider)):
        lo, hi, x = widget.min, widget.max, value
    else:
        return None
    return round(100 * min(1.0, max(0.0, (x - lo) / (hi - lo))), 3) if hi > lo else 0.0


def readout(widget, value) -> str:
    """The value as the slider's own readout prints it."""
    import ipywidgets as w

    if isinstance(widget, (w.Dropdown, w.ToggleButtons, w.RadioButtons, w.Select, w.SelectionSlider)):
        opts = widget.options  # a dict, (label, value) pairs, or plain values labelled by str()
        pairs = (list(opts.items()) if isinstance(opts, dict) else
                 [o if isinstance(o, tuple) and len(o) == 2 else (str(o), o) for o in opts])
        return str(next(label for label, v in pairs if v == value))
    fmt = getattr(widget, "readout_format", "d")
    try:
        return format(value, fmt)
    except (ValueError, TypeError):
        return str(value)


# ----------------------------------------------------------------------------- rendering

def _encode(png: bytes) -> bytes:
    from PIL import Image

    im = Image.open(io.BytesIO(png))
    im = im.convert("RGB") if im.mode in ("RGBA", "P", "LA") else im
    buf = io.BytesIO()
    im.save(buf, format="WEBP", lossless=True, quality=20, method=1)   # ~5 KB, ~5 ms a frame
    return buf.getvalue()


def _min_font(p, pt: float) -> bool:
    """Raise every text of the panel's figure below ``pt`` points to ``pt`` (the narrow frames);
    True when one changed (the picture must then be drawn again)."""
    from matplotlib.text import Text

    fig = getattr(p, "figure", None)
    changed = False
    for t in fig.findobj(Text) if fig is not None else []:
        if t.get_fontsize() < pt:
            t.set_fontsize(pt)
            changed = True
    if changed:
        try:
            fig.tight_layout()      # the larger text keeps inside the picture
        except Exception:  # noqa: BLE001 - a layout the engine cannot solve keeps the old one
            pass
    return changed


def render_notebook(md: Path, force: bool = False) -> dict:
    """Render (or reuse) the frames of one notebook; return its manifest."""
    out = cache_dir(md)
    man_path = out / "manifest.json"
    if man_path.is_file() and not force:
        return json.loads(man_path.read_text(encoding="utf-8"))
    from workbook.site.panel_harness import collect

    t0 = time.perf_counter()
    res = collect(md)
    tmp = out.with_name(out.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    panels = []
    for rec in res.panels:
        p = rec.panel
        name = getattr(p, "main", None) or next(iter(p.controls), None)
        if name not in getattr(p, "controls", {}):
            continue
        ctl = p.controls[name]
        label = ctl.description or name
        start_value = ctl.value
        frames = []
        vals = positions(ctl)
        for v in vals:
            ctl.value = v
            png = bytes(p.image.value or b"") if getattr(p, "plot_fn", None) is not None else b""
            img = None
            if png:
                data = _encode(png)
                img = hashlib.sha1(data).hexdigest()[:12] + "." + FORMAT
                (tmp / img).write_bytes(data)
            frames.append({"value": readout(ctl, v), "pos": handle_position(ctl, v), "img": img,
                           "table": p.table.value, "message": p.message.value})
        ctl.value = start_value
        font_pt = p.min_font_pt() if hasattr(p, "min_font_pt") else None
        wide_px = p.figure.bbox.width if getattr(p, "figure", None) is not None else None
        narrow = {}
        if getattr(p, "plot_fn", None) is not None and getattr(p, "drawing", False) and hasattr(p, "resize_figure"):
            w0, h0 = p._figsize
            n_axes = getattr(p, "_n_axes", 1)
            size = (NARROW_WIDTH_IN, h0 * (0.75 * n_axes if n_axes > 1 else 1.0))
            p.resize_figure(size, stacked=n_axes > 1)
            _min_font(p, NARROW_MIN_PT)
            pts = []      # the smallest text of each narrow frame, as drawn
            for k, v in enumerate(vals):
                ctl.value = v
                if _min_font(p, NARROW_MIN_PT) or (k == 0 and v == start_value):
                    p.redraw()
                pts.append(p.min_font_pt() or NARROW_MIN_PT)
                png = bytes(p.image.value or b"")
                if png:
                    data = _encode(png)
                    img = hashlib.sha1(data).hexdigest()[:12] + "." + FORMAT
                    (tmp / img).write_bytes(data)
                    frames[k]["img_narrow"] = img
            ctl.value = start_value
            narrow = {"font_pt_narrow": min(pts) if pts else None, "px_narrow": p.figure.bbox.width}
            p.resize_figure((w0, h0), stacked=False)
        start = vals.index(start_value)
        panels.append({"cell": rec.cell, "n": rec.n, "title": rec.title, "knob": name, "label": label,
                       "start": start, "frames": frames, "font_pt": font_pt, "px": wide_px, "dpi": DPI, **narrow})
    man = {"notebook": md.relative_to(repo_root()).as_posix(), "panels": panels,
           "failures": [str(f) for f in res.failures], "seconds": round(time.perf_counter() - t0, 2)}
    (tmp / "manifest.json").write_text(json.dumps(man, ensure_ascii=False, indent=1), encoding="utf-8")
    import shutil

    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return man


def stats() -> dict:
    n_panels = n_frames = n_files = size = 0
    for man in frames_cache().glob("*/manifest.json"):
        m = json.loads(man.read_text(encoding="utf-8"))
        n_panels += len(m["panels"])
        n_frames += sum(len(p["frames"]) for p in m["panels"])
        for f in man.parent.glob("*." + FORMAT):
            n_files += 1
            size += f.stat().st_size
    return {"panels": n_panels, "frames": n_frames, "files": n_files, "bytes": size}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("paths", nargs="+")
    r.add_argument("--force", action="store_true")
    sub.add_parser("stats")
    a = ap.parse_args(argv)
    if a.cmd == "stats":
        print(json.dumps(stats()))
        return 0
    rc = 0
    for p in a.paths:
        try:
            man = render_notebook((repo_root() / p).resolve(), force=a.force)
        except Exception as exc:  # noqa: BLE001 - one broken notebook must not stop the others
            print(f"scrub: {p}: no frames ({type(exc).__name__}: {exc})", file=sys.stderr)
            rc = 1
            continue
        if man["failures"]:
            print(f"scrub: {p}: failing cells: {man['failures']}", file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
