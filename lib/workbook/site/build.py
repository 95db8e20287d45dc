"""Build the workbook's static sites (Jupyter Book 1.x) and its JupyterLite site from book.yml.

    workbook site build [--site student|instructor|all] [--jobs N]          # -> _build/<site>/
    workbook site lite                                                      # -> _build/lite/
    workbook site stage [--site ...]                                        # only write _build/.stage/

What `build` does, per site (student, instructor):
1. expands the globs of book.yml (a new notebook appears without editing it) into a staging
   folder _build/.stage/<site>/: the executed .ipynb of every notebook (its .md twin is left out),
   plain .md pages, site/index.md as the landing page, site/_static/;
   * every page with panels gets a note that a slider needs a running kernel;
   * static scrubbing: each panel of a chapter page gets a range under its picture that steps
     its main knob through frames drawn at build time (lib/workbook/site/scrub.py renders them, in --jobs
     processes, cached under _build/.cache/scrub/; they are copied into _static/scrub/);
   * launch buttons at the top of every notebook page: JupyterLite (the `lite` build, opening
     that notebook) and Binder (book.yml `launch:`);
   * saved panels carry the class names fleetcalc.ui.widgets gives them (fc-panel, ...), whose
     PANEL_CSS is served as _static/fc-panels.css, and their title as data (``Panel.fleetcalc``);
   * student site: no solutions/; links into solutions/ point at the exercises/ twin instead;
   * instructor site: solutions/ included, each solution folded (click to show);
2. writes the generated pages (number ledger, errata, glossary, notation: lib/workbook/site/reference_pages.py);
3. copies the widget and MathJax JavaScript (npm packages, cached under _build/.cache/) into
   _static/, so the pages never load code from a CDN;
4. writes _config.yml and _toc.yml into the staging folder and runs Sphinx with warnings as
   errors (-W --keep-going). Warnings go to _build/<site>.warnings.txt; any warning fails.
Staged files are only rewritten when their content changes, so a rebuild is incremental.
"""
from __future__ import annotations

import argparse
import copy
import fnmatch
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fleetcalc.core.ledger import MIME as LEDGER_MIME
from workbook import ROOT_ENV, repo_root
from workbook.notebooks.files import WIDGET_STATE, WIDGET_VIEW
def build_dir() -> Path:
    """Where the sites are built."""
    return repo_root() / "_build"

def stage_dir() -> Path:
    """Where each site's sources are staged."""
    return build_dir() / ".stage"

def cache_dir() -> Path:
    """The build's caches."""
    return build_dir() / ".cache"

SITES = ("student", "instructor")
NOTEBOOK_EXT = (".ipynb", ".md")
ASSET_EXT = {".png", ".jpg", ".jpeg", ".svg", ".gif", ".csv", ".json", ".toml", ".txt"}
KERNEL_NOTE_TAG = "site-kernel-note"


def _child_env() -> dict:
    """The environment of a tool process started from here: the same workbook repo_root()."""
    return {**os.environ, ROOT_ENV: str(repo_root())}


def load_book(path: Path | None = None) -> dict:
    with open(path or repo_root() / "book.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


# ----------------------------------------------------------------------------- the page plan

@dataclass
class Page:
    src: Path | None        # repository file (None: generated)
    doc: str                # docname in the site (path without extension)
    ext: str                # ".ipynb" or ".md"
    kind: str               # "chapter" | "exercise" | "solution" | "page" | "stub" | "generated"
    text: str = ""          # content for stubs


@dataclass
class Chapter:
    head: Page
    sections: list[Page] = field(default_factory=list)


@dataclass
class Part:
    caption: str
    chapters: list[Chapter]


def _kind(rel: str) -> str:
    top = rel.split("/", 1)[0]
    return {"chapters": "chapter", "exercises": "exercise", "solutions": "solution"}.get(top, "page")


def _notebooks(pattern: str) -> list[Path]:
    """Files matching ``pattern`` that are pages, one per stem: the executed .ipynb when it exists."""
    by_stem: dict[Path, Path] = {}
    for name in sorted(glob.glob(str(repo_root() / pattern))):
        p = Path(name)
        if not p.is_file() or p.suffix not in NOTEBOOK_EXT or p.name.startswith(("_", ".")):
            continue
        stem = p.with_suffix("")
        if stem not in by_stem or p.suffix == ".ipynb":
            by_stem[stem] = p
    return [by_stem[s] for s in sorted(by_stem, key=natural_key)]


def natural_key(path: Path) -> list:
    """Filename order with numbers compared as numbers: 28_2 before 28_10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.as_posix())]


def _page(p: Path) -> Page:
    rel = p.relative_to(repo_root()).as_posix()
    return Page(p, rel.rsplit(".", 1)[0], p.suffix, _kind(rel))


def _is_intro(p: Path) -> bool:
    return p.stem.lower() in ("00_intro", "index", "intro", "readme")


def _chapter_from_files(files: list[Path], folder: Path, title: str | None) -> list[Chapter]:
    pages = [_page(p) for p in files]
    intro = [pg for pg, p in zip(pages, files) if _is_intro(p)]
    rest = [pg for pg, p in zip(pages, files) if not _is_intro(p)]
    if intro:
        return [Chapter(intro[0], intro[1:] + rest)]
    if title:
        doc = (folder.relative_to(repo_root()) / "index").as_posix()
        stub = Page(None, doc, ".md", "stub",
                    text=f"# {title}\n\nThe notebooks of this chapter, in reading order:\n\n"
                         "```{tableofcontents}\n```\n")
        return [Chapter(stub, rest)]
    return [Chapter(pg) for pg in pages]


def plan(book: dict, site: str) -> list[Part]:
    """The table of contents of one site: parts, chapters, pages (globs expanded now)."""
    titles = book.get("chapter_titles", {})
    order = list(titles)
    parts = []
    for part in book["parts"]:
        if site not in part.get("sites", SITES):
            continue
        chapters: list[Chapter] = []
        for entry in part["chapters"]:
            if "file" in entry:
                doc = entry["file"]
                chapters.append(Chapter(Page(None, doc, ".md", "generated")))
            elif "glob" in entry:
                files = _notebooks(entry["glob"])
                if files:
                    folder = files[0].parent
                    chapters += _chapter_from_files(files, folder, entry.get("title") or titles.get(folder.name))
            elif "group" in entry:
                folders = [Path(d) for d in glob.glob(str(repo_root() / entry["group"])) if Path(d).is_dir()]
                folders.sort(key=lambda d: (order.index(d.name) if d.name in order else len(order), d.name))
                for d in folders:
                    files = _notebooks(str((d / "*").relative_to(repo_root())))
                    if files:
                        title = entry.get("prefix", "") + titles.get(d.name, d.name)
                        chapters += _chapter_from_files(files, d, title)
            else:
                raise ValueError(f"book.yml: a chapter entry needs file, glob or group: {entry}")
        if chapters:
            parts.append(Part(part["caption"], chapters))
    return parts


def all_pages(parts: list[Part]) -> list[Page]:
    return [pg for part in parts for ch in part.chapters for pg in [ch.head, *ch.sections]]


# ----------------------------------------------------------------------------- transforms

def _fence(text: str, char: str = "`") -> str:
    longest = max((len(m) for m in re.findall(re.escape(char) + "{3,}", text)), default=2)
    return char * max(3, longest + 1)


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def has_panels(nb: dict) -> bool:
    return any(WIDGET_VIEW in o.get("data", {}) for c in nb.get("cells", []) if c.get("cell_type") == "code"
               for o in c.get("outputs", []))


KERNEL_NOTE = """```{{note}}
**Moving a slider needs a running kernel.** The panels on this page are pictures of their saved
state: a static web page has no Python kernel, so nothing recomputes here. To use the sliders, run
this notebook live (the launch buttons above, or `make lab`): see {{ref}}`run-live`.{extra}
```
"""
SCRUB_NOTE = """```{{note}}
**One knob per panel moves on this page.** Under each panel's picture, the range marked
*move here* steps its main knob through pictures drawn when this site was built (the other inputs
stay at the book's values). **Every other slider needs a running kernel**: open this notebook live
with the launch buttons above, or `make lab` (see {{ref}}`run-live`).{extra}
```
"""
KERNEL_NOTE_TEXT = "needs a running kernel"


def kernel_note_cell(extra: str = "", scrubbed: int = 0) -> dict:
    text = (SCRUB_NOTE if scrubbed else KERNEL_NOTE).format(extra=extra)
    return {"cell_type": "markdown", "metadata": {"tags": [KERNEL_NOTE_TAG]}, "source": text}


# ----------------------------------------------------------------------------- static scrubbing

SCRUB_TAG = "static-scrub"


def _model(state: dict, ref) -> tuple[str, dict] | tuple[None, None]:
    mid = ref[len("IPY_MODEL_"):] if isinstance(ref, str) and ref.startswith("IPY_MODEL_") else ref
    m = state.get(mid)
    return (mid, m) if m else (None, None)


def _descendants(state: dict, mid: str):
    """(model id, model) of a widget and everything below it (children, accordion pages)."""
    todo, seen = [mid], set()
    while todo:
        k = todo.pop(0)
        if k in seen or k not in state:
            continue
        seen.add(k)
        m = state[k]
        yield k, m
        for ref in m.get("state", {}).get("children", []) or []:
            cid, _ = _model(state, ref)
            if cid:
                todo.append(cid)


def _add_class(model: dict, cls: str) -> None:
    classes = model.setdefault("state", {}).setdefault("_dom_classes", [])
    if cls not in classes:
        classes.append(cls)


def _heading_title(state: dict, panel: dict) -> str:
    """The title a saved panel carries as data (``Panel.fleetcalc``, in its widget state)."""
    return (panel.get("state", {}).get("fleetcalc") or {}).get("title", "")


def _scrub_html(pid: str, spec: dict, frames: list, has_note: bool) -> str:
    label = html.escape(spec["label"])
    n = len(frames)
    data = json.dumps(frames, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    note = "" if has_note else (
        f"<div class='static-scrub-note'>Only <b>{label}</b> moves on this page (pictures drawn when "
        "the site was built, the other inputs at the book's values); the other inputs need a running "
        "kernel: launch this notebook live (buttons at the top of the page).</div>")
    fonts = "".join(f" data-{k.replace('_', '-')}='{spec[k]}'" for k in ("font_pt", "px", "font_pt_narrow", "px_narrow", "dpi")
                    if spec.get(k) is not None)
    return (f"<div class='static-scrub' data-panel='{pid}' data-knob='{html.escape(spec['knob'])}'{fonts}>"
            f"<label class='static-scrub-row'><span class='static-scrub-label'>Move <b>{label}</b> here "
            "<span class='static-scrub-hint'>(no kernel needed)</span></span>"
            f"<input type='range' min='0' max='{n - 1}' step='1' value='{spec['start']}' "
            f"aria-label='{label} (pictures drawn at build time)' "
            f"aria-valuetext='{html.escape(frames[spec['start']].get('say', ''), quote=True)}'>"
            f"<output class='static-scrub-value'>{html.escape(frames[spec['start']]['value'])}</output></label>"
            f"{note}<script type='application/json' class='static-scrub-frames'>{data}</script></div>")


def _classes(model: dict | None) -> list:
    return (model or {}).get("state", {}).get("_dom_classes", []) or []


PANEL_PARTS = {"head": "fc-heading", "top": "fc-panel-top", "table": "fc-readouts",
               "message": "fc-message", "image": "fc-picture"}


def _panel_parts(state: dict, mid: str) -> dict | None:
    """The parts of a saved fleetcalc panel, found by the class names the panel gives them
    (fleetcalc.ui.widgets.Panel); None when the widget is not a panel."""
    panel = state.get(mid)
    if "fc-panel" not in _classes(panel):
        return None
    below = list(_descendants(state, mid))
    parts = {"panel": panel}
    for key, cls in PANEL_PARTS.items():
        parts[key] = next((m for _, m in below if cls in _classes(m)), None)
    return parts if parts["head"] and parts["table"] else None


def add_scrubs(nb: dict, page: Page, scrub: dict) -> int:
    """Put a range input under each panel that has frames (scrub = {"manifest", "url"}), and mark
    the saved widgets the page script swaps (fc-panel, fc-picture, fc-readouts, fc-message,
    fc-main-knob). Returns the number of panels given a range."""
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    cells = nb["cells"]
    done = 0
    for k, spec in enumerate(scrub["manifest"]["panels"]):
        if spec["cell"] >= len(cells) or cells[spec["cell"]]["cell_type"] != "code":
            continue
        outputs = cells[spec["cell"]].get("outputs", [])
        views = [i for i, o in enumerate(outputs) if WIDGET_VIEW in o.get("data", {})]
        if spec["n"] >= len(views):
            continue
        at = views[spec["n"]]
        mid, panel = _model(state, outputs[at]["data"][WIDGET_VIEW]["model_id"])
        if panel is None or _heading_title(state, panel) != spec["title"]:
            print(f"site: {page.doc}: panel {spec['title']!r} does not match the saved output "
                  "(re-execute the notebook); no scrub for it", file=sys.stderr)
            continue
        parts = _panel_parts(state, mid)
        if parts is None:
            continue
        pid = f"fc-pid-{k}"
        _add_class(panel, "fc-scrubbable")
        _add_class(panel, pid)
        for cid, m in _descendants(state, mid):
            st = m.get("state", {})
            if st.get("description") == spec["label"] and "value" in st and m.get("model_name") != "HTMLModel":
                _add_class(m, "fc-main-knob")
        has_note = "fc-static-only" in parts["head"]["state"].get("value", "")
        title = spec["title"]
        frames = []
        for f in spec["frames"]:
            say = knob_says(spec["label"], f["value"])
            fr = {"value": f["value"], "pos": f.get("pos"), "img": (scrub["url"] + f["img"]) if f["img"] else None,
                  "table": f["table"], "message": f["message"], "say": say,
                  "alt": f"Plot of the panel {title}, drawn with {say} (the other inputs at their starting values)"}
            if f.get("img_narrow"):
                fr["img_narrow"] = scrub["url"] + f["img_narrow"]
            frames.append(fr)
        outputs.insert(at + 1, {"output_type": "display_data", "metadata": {"tags": [SCRUB_TAG]},
                                "data": {"text/html": _scrub_html(pid, spec, frames, has_note)}})
        done += 1
    return done


def knob_says(label: str, value: str) -> str:
    """What a screen reader hears for a knob's value: ``"HBM β_mem [TB/s]", "2.000"`` ->
    ``"HBM β_mem = 2.000 TB/s"`` (the unit the label names in brackets goes after the value)."""
    m = re.match(r"^(.*?)\s*\[([^\]]+)\]\s*$", label)
    name, unit = (m.group(1), m.group(2)) if m else (label, "")
    return f"{name} = {value}" + (f" {unit}" if unit else "")


KNOB_MODELS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "SelectionSliderModel",
               "DropdownModel", "IntRangeSliderModel", "FloatRangeSliderModel", "ToggleButtonsModel",
               "RadioButtonsModel", "CheckboxModel", "ButtonModel", "BoundedIntTextModel", "BoundedFloatTextModel")
NEEDS_KERNEL = "Needs a running kernel: this page cannot recompute. Open the notebook live (launch buttons at the top, or make lab)."


def disable_knobs(nb: dict) -> int:
    """Save every control of every widget on a static page disabled, with the reason as its
    tooltip: without a kernel nothing recomputes, so no control may look live. (A scrubbed
    panel's main knob gives way to its scrub range, which workbook.js puts in its place.)"""
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    n = 0
    for m in state.values():
        if m.get("model_name") in KNOB_MODELS:
            st = m.setdefault("state", {})
            st["disabled"] = True
            st["tooltip"] = NEEDS_KERNEL
            _add_class(m, "fc-needs-kernel")
            n += 1
    return n


_DIAGRAM_DOCS: dict | None = None


def _diagram_docs() -> dict:
    """name -> first paragraph of the docstring, for the drawing functions of fleetcalc.ui
    (diagrams and plots): what a picture drawn by ``name(...)`` shows."""
    global _DIAGRAM_DOCS
    if _DIAGRAM_DOCS is None:
        import importlib
        import inspect
        import pkgutil

        docs = {}
        for pkg_name in ("fleetcalc.ui.diagrams", "fleetcalc.ui.plots"):
            try:
                pkg = importlib.import_module(pkg_name)
            except Exception:  # noqa: BLE001 - alt text falls back to the page's own words
                continue
            for mod in pkgutil.iter_modules(pkg.__path__):
                try:
                    m = importlib.import_module(f"{pkg_name}.{mod.name}")
                except Exception:  # noqa: BLE001
                    continue
                for name, fn in vars(m).items():
                    if inspect.isfunction(fn) and fn.__doc__ and not name.startswith("_"):
                        first = re.split(r"\n\s*\n", inspect.cleandoc(fn.__doc__))[0]
                        docs.setdefault(name, re.sub(r"\s+", " ", first.replace("``", "").replace("`", "")).strip())
        _DIAGRAM_DOCS = docs
    return _DIAGRAM_DOCS


def _plain(md: str) -> str:
    t = re.sub(r"\$+([^$]*)\$+", r"\1", md)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"[`*_#>{}]", "", t)
    t = re.sub(r"\\[a-zA-Z]+", "", t)
    return re.sub(r"\s+", " ", t).strip()


def image_alt(cells: list, i: int) -> str:
    """Alt text for the picture a code cell draws: what the drawing function says it shows (its
    docstring), else the sentence of the text beside it that speaks of the picture."""
    src = _src(cells[i])
    docs = _diagram_docs()
    calls = [n for n in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", src) if n in docs]
    what = docs[calls[-1]] if calls else ""
    near = ""
    for j in (i + 1, i - 1):
        if 0 <= j < len(cells) and cells[j]["cell_type"] == "markdown":
            sentences = re.split(r"(?<=[.!?])\s+", _plain(_src(cells[j])))
            hit = [x for x in sentences if re.search(r"\b(picture|drawing|diagram|figure|drawn|plot|below|above)\b", x, re.I)]
            if hit:
                near = hit[0]
                break
    alt = " ".join(x for x in (what, near) if x) or "A diagram drawn by the workbook's library for this section."
    return ("Diagram: " + alt)[:600]


def add_image_alt(nb: dict) -> int:
    """Give every picture a code cell draws an alt text (myst-nb reads ``mystnb.image.alt``);
    without one the site would read out the image's file path."""
    cells = nb["cells"]
    n = 0
    for i, c in enumerate(cells):
        if c["cell_type"] != "code":
            continue
        if any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {}) for o in c.get("outputs", [])):
            md = c.setdefault("metadata", {}).setdefault("mystnb", {})
            md.setdefault("image", {}).setdefault("alt", image_alt(cells, i))
            n += 1
    return n


def scrub_sources(pages: list[Page], book: dict) -> list[Path]:
    """Notebook sources (.md twins) of the pages whose panels get frames (book.yml static_scrub)."""
    kinds = (book.get("static_scrub") or {}).get("kinds", ["chapter"])
    out = []
    for pg in pages:
        if pg.kind in kinds and pg.ext == ".ipynb" and pg.src is not None:
            md = pg.src.with_suffix(".md")
            if md.is_file() and has_panels(json.loads(pg.src.read_text(encoding="utf-8"))):
                out.append(md)
    return out


def render_frames(sources: list[Path], jobs: int = 2) -> int:
    """Render the frames not yet cached, in ``jobs`` processes (lib/workbook/site/scrub.py). Returns rc."""
    from workbook.site import scrub

    keep = {scrub.cache_dir(p).name for p in sources}
    for old in sorted(scrub.frames_cache().glob("*")):        # frames of earlier versions of the notebooks
        if old.is_dir() and old.name not in keep and not old.name.endswith(".tmp"):
            shutil.rmtree(old, ignore_errors=True)
    todo = [p for p in sources if not (scrub.cache_dir(p) / "manifest.json").is_file()]
    if not todo:
        return 0
    t0 = time.time()
    chunks = [todo[i::max(1, jobs)] for i in range(max(1, jobs))]
    procs = [subprocess.Popen([sys.executable, "-m", "workbook.site.scrub", "render",
                               *[p.relative_to(repo_root()).as_posix() for p in c]], cwd=repo_root(), env=_child_env(),
                              stderr=subprocess.PIPE, text=True) for c in chunks if c]
    rc = 0
    for p in procs:
        _, err = p.communicate()
        if p.returncode:
            rc = 1
            print(err[-3000:], file=sys.stderr)
    print(f"site: frames for {len(todo)} notebook(s) in {time.time() - t0:.1f} s", flush=True)
    return rc


# ----------------------------------------------------------------------------- launch buttons

LAUNCH_TAG = "launch-buttons"


def launch_links(book: dict, page: Page) -> dict:
    """{"lite": url or None, "binder": url or None} for one notebook page (book.yml launch:)."""
    cfg = book.get("launch") or {}
    nb_path = page.doc + ".ipynb"
    depth = page.doc.count("/")
    links = {"lite": None, "binder": None}
    lite_globs = (book.get("lite") or {}).get("contents", [])
    if cfg.get("lite") and any(fnmatch.fnmatch(nb_path, g) for g in lite_globs):
        links["lite"] = "../" * depth + cfg["lite"].rstrip("/") + "/lab/index.html?path=" + nb_path
    if cfg.get("repository_url") and cfg.get("binderhub_url"):
        m = re.match(r"https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$", cfg["repository_url"])
        if not m:
            raise SystemExit(f"book.yml launch.repository_url must be a GitHub URL; got {cfg['repository_url']!r}")
        links["binder"] = (cfg["binderhub_url"].rstrip("/") + f"/v2/gh/{m.group(1)}/{m.group(2)}/"
                           + cfg.get("branch", "main") + "?urlpath=lab/tree/" + nb_path)
    return links


def launch_bar(book: dict, page: Page) -> str:
    links = launch_links(book, page)
    if not any(links.values()):
        return ""
    parts = []
    if links["lite"]:
        parts.append(f"<a class='launch-button launch-lite' href='{html.escape(links['lite'])}' "
                     "target='_blank' rel='noopener' "
                     "title='Python in this browser (JupyterLite; opens in a new tab; needs the network once)'>"
                     "&#9654; JupyterLite</a>")
    if links["binder"]:
        parts.append(f"<a class='launch-button launch-binder' href='{html.escape(links['binder'])}' "
                     "target='_blank' rel='noopener' "
                     "title='A JupyterLab on mybinder.org, built from environment.yml (opens in a new tab)'>&#9654; Binder</a>")
    return ("<div class='launch-buttons'><span class='launch-label'>Run this notebook live:</span> "
            + " ".join(parts) + " <span class='launch-local'>or <code>make lab</code> on your "
            "computer</span></div>\n")


def _rewrite_solution_links(text: str) -> str:
    """Student site: a link into solutions/ points at the exercise twin (same relative layout)."""
    def fix(m):
        target = m.group(2)
        if "solutions/" in target and not re.match(r"[a-z]+://", target):
            target = target.replace("solutions/", "exercises/")
        return m.group(1) + target + m.group(3)
    return re.sub(r"(\]\()([^)\s]+)(\))", fix, text)


def _add_tag(cell: dict, tag: str) -> None:
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def fold_solutions(nb: dict) -> int:
    """Instructor site: fold each solution (code inputs, written answers, reference checks)."""
    n = 0
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        src = _src(cell)
        if cell["cell_type"] == "code" and "solution-only" in tags:
            _add_tag(cell, "hide-cell"); n += 1
        elif cell["cell_type"] == "code" and "# BEGIN SOLUTION" in src:
            _add_tag(cell, "hide-input"); n += 1
        elif cell["cell_type"] == "markdown" and "solution" in tags:
            f = _fence(src)
            cell["source"] = (f"{f}{{admonition}} Solution (written answer)\n:class: dropdown\n\n"
                              f"{src.strip()}\n{f}\n")
            n += 1
    return n


def drop_ledger_records(nb: dict) -> None:
    """A page shows each check's line (text/plain); its record (the ledger MIME type) is read
    from the source notebook by the ledger pages, so the page's copy drops it."""
    for c in nb["cells"]:
        for o in c.get("outputs", []) if c["cell_type"] == "code" else []:
            o.get("data", {}).pop(LEDGER_MIME, None)


# ----------------------------------------------------------------------------- pages that lead somewhere

_NB_PATH = re.compile(r"`((?:chapters|exercises|solutions|instructor)/[A-Za-z0-9_./-]+?\.(?:ipynb|md))`")
_NB_LINK = re.compile(r"\]\(((?:\.\./)*(?:chapters|exercises|solutions)/[A-Za-z0-9_/.-]+?\.(?:ipynb|md))(?:#[^)]*)?\)")


def _rel(from_doc: str, to_doc: str, ext: str = ".ipynb") -> str:
    return os.path.relpath(to_doc + ext, os.path.dirname(from_doc) or ".").replace(os.sep, "/")


@dataclass
class SiteLinks:
    """What the site knows about its pages to link them: doc -> (title, ext), the chapter name
    of each folder, and which sections each exercise set practises (read from the exercise
    notebooks' own references to chapter notebooks)."""
    pages: dict
    names: dict
    practises: dict          # exercise doc -> [chapter section doc, ...]
    practised_by: dict       # chapter section doc -> [exercise doc, ...]
    site: str = "student"

    def target(self, rel_path: str) -> str | None:
        doc = rel_path.rsplit(".", 1)[0]
        if self.site == "student" and doc.startswith("solutions/"):
            doc = "exercises/" + doc[len("solutions/"):]
        return doc if doc in self.pages else None


def page_title(pg: Page) -> str:
    from workbook.site.reference_pages import notebook_title

    if pg.src is None:
        m = re.search(r"^#\s+(.+?)\s*$", pg.text, re.M)
        return m.group(1) if m else pg.doc
    return notebook_title(pg.src)


def site_links(pages: list[Page], book: dict, site: str) -> SiteLinks:
    titles = {pg.doc: (page_title(pg), pg.ext) for pg in pages if pg.kind != "generated"}
    names = dict(book.get("chapter_titles", {}))
    practises, by = {}, {}
    numbered = {}
    for pg in pages:
        if pg.kind == "chapter" and pg.doc in titles:
            m = re.match(r"(\d+\.\d+[a-z]?)\s", titles[pg.doc][0])
            if m:
                numbered.setdefault(m.group(1), pg.doc)
    for pg in pages:
        if pg.kind not in ("exercise", "solution") or pg.src is None:
            continue
        from workbook.site.reference_pages import markdown_text

        text = markdown_text(pg.src)
        refs = []
        for m in re.finditer(r"(?:`|\]\()((?:\.\./)*chapters/[A-Za-z0-9_/.-]+?\.(?:ipynb|md))", text):
            path = m.group(1)
            if path.startswith("."):
                path = os.path.normpath(os.path.join(os.path.dirname(pg.doc), path)).replace(os.sep, "/")
            doc = path.rsplit(".", 1)[0]
            if doc in titles and not doc.endswith(("00_intro", "99_summary")) and doc not in refs:
                refs.append(doc)
        for m in re.finditer(r"§\s?(\d+\.\d+[a-z]?)", titles.get(pg.doc, ("",))[0] + "\n" + text):
            doc = numbered.get(m.group(1))
            if doc and doc not in refs:
                refs.append(doc)
        practises[pg.doc] = refs
        if pg.kind == "exercise":
            for d in refs:
                by.setdefault(d, [])
                if pg.doc not in by[d]:
                    by[d].append(pg.doc)
    return SiteLinks(titles, names, practises, by, site)


def _link_text(title: str) -> str:
    return title.replace("[", "(").replace("]", ")").replace("`", "'")


def link_paths(text: str, doc: str, links: SiteLinks | None) -> str:
    """A notebook path written as code (`chapters/ch28/28_5_collectives.ipynb`) becomes a link to
    that page, named by its title (the path stays in the link's tooltip)."""
    if links is None:
        return text

    def fix(m):
        target = links.target(m.group(1))
        if target is None:
            return m.group(0)
        title, ext = links.pages[target]
        return f"[{_link_text(title)}]({_rel(doc, target, ext)})"
    return _NB_PATH.sub(fix, text)


def retitle(cells: list, title: str) -> None:
    """Give the page's first heading this title (one name per chapter; unique page titles)."""
    for c in cells:
        if c["cell_type"] == "markdown":
            src = _src(c)
            if re.search(r"^#\s+.+$", src, re.M):
                c["source"] = re.sub(r"^#\s+.+$", lambda m: "# " + title, src, count=1, flags=re.M)
            return


def practice_cell(page: Page, links: SiteLinks) -> dict | None:
    """Chapter sections: the exercise sets that practise them. Exercise sets: their sections."""
    def link(doc: str) -> str:
        return f"[{_link_text(links.pages[doc][0])}]({_rel(page.doc, doc, links.pages[doc][1])})"

    others = (links.practised_by if page.kind == "chapter" else links.practises).get(page.doc, [])
    if not others:
        return None
    if page.kind == "chapter":
        items = "".join(f"* {link(e)}\n" for e in others)
        source = f"```{{admonition}} Practise this section\n:class: tip\n\n{items}```\n"
    else:
        source = f"**Sections this practises:** {', '.join(map(link, others))}.\n"
    return {"cell_type": "markdown", "metadata": {"tags": ["site-practice"]}, "source": source}


def transform_notebook(nb: dict, page: Page, site: str, scrub: dict | None = None,
                       launch: str = "", links: SiteLinks | None = None) -> dict:
    nb = copy.deepcopy(nb)
    cells = nb["cells"]
    if links is not None:
        folder = Path(page.doc).parent.name
        if page.kind == "chapter" and Path(page.doc).name == "00_intro" and folder in links.names:
            retitle(cells, links.names[folder])
        elif page.kind == "solution":
            t = links.pages.get(page.doc, ("",))[0]
            if t and not t.lower().startswith("solution"):
                retitle(cells, "Solution: " + t)
        for c in cells:
            if c["cell_type"] == "markdown":
                c["source"] = link_paths(_src(c), page.doc, links)
        extra = practice_cell(page, links)
        if extra is not None:
            if any("id" in c for c in cells):
                extra["id"] = "site-practice"
            if page.kind == "chapter":
                # before the section's closing material when there is a takeaways heading, else at the end
                at = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                           and re.search(r"^#+\s*(What to take away|Takeaways)", _src(c), re.M | re.I)), len(cells))
                cells.insert(at, extra)
            else:
                cells.insert(1 if cells and cells[0]["cell_type"] == "markdown" else 0, extra)
    drop_ledger_records(nb)
    scrubbed = add_scrubs(nb, page, scrub) if scrub else 0
    disable_knobs(nb)
    add_image_alt(nb)
    if site == "student":
        for c in cells:
            if c["cell_type"] == "markdown":
                c["source"] = _rewrite_solution_links(_src(c))
    if page.kind == "solution":
        fold_solutions(nb)
    if has_panels(nb):
        extra = ""
        if page.kind == "solution":
            extra = " The solution cells are folded: click a cell's toggle to show it."
        at = 1 if cells and cells[0]["cell_type"] == "markdown" else 0
        note = kernel_note_cell(extra, scrubbed)
        if any("id" in c for c in cells):
            note["id"] = KERNEL_NOTE_TAG
        cells.insert(at, note)
    if launch:
        at = 1 if cells and cells[0]["cell_type"] == "markdown" else 0
        bar = {"cell_type": "markdown", "metadata": {"tags": [LAUNCH_TAG]}, "source": launch}
        if any("id" in c for c in cells):
            bar["id"] = LAUNCH_TAG
        cells.insert(at, bar)
    return nb


def transform_markdown(text: str, page: Page, site: str, links: SiteLinks | None = None) -> str:
    text = link_paths(text, page.doc, links)
    return _rewrite_solution_links(text) if site == "student" else text


def landing_text(text: str, site: str) -> str:
    """The landing page for one edition: blocks between ``<!-- instructor-only -->`` and
    ``<!-- /instructor-only -->`` (maintainer commands) are left out of the student edition,
    and ``<!-- student-only -->`` blocks out of the instructor edition."""
    drop = "instructor-only" if site == "student" else "student-only"
    text = re.sub(rf"<!-- {drop} -->.*?<!-- /{drop} -->\n?", "", text, flags=re.S)
    return re.sub(r"<!-- /?(?:instructor|student)-only -->\n?", "", text)


# ----------------------------------------------------------------------------- staging

class Stager:
    """Writes files under a folder only when their content changes; removes what was not written."""

    def __init__(self, root: Path):
        self.root = root
        self.written: set[Path] = set()

    def write(self, rel: str, data: bytes | str) -> Path:
        path = self.root / rel
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.written.add(path)
        if path.is_file() and path.read_bytes() == data:
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def copy(self, src: Path, rel: str) -> Path:
        return self.write(rel, src.read_bytes())

    def prune(self, keep=()) -> None:
        for path in sorted(self.root.rglob("*"), reverse=True):
            if path.is_file() and path not in self.written and not any(path.match(k) for k in keep):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def _ipynb_text(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def _toc(book: dict, parts: list[Part]) -> dict:
    def entry(pg: Page) -> dict:
        return {"file": pg.doc}
    toc = {"format": "jb-book", "root": "index", "parts": []}
    for part in parts:
        chapters = []
        for ch in part.chapters:
            e = entry(ch.head)
            if ch.sections:
                e["sections"] = [entry(s) for s in ch.sections]
            chapters.append(e)
        toc["parts"].append({"caption": part.caption, "chapters": chapters})
    return toc


def _config(book: dict, site: str) -> dict:
    cfg = copy.deepcopy(book.get("jupyter_book", {}))
    cfg["title"] = book["title"] + (" (instructor edition)" if site == "instructor" else "")
    cfg["author"] = book.get("author", "")
    cfg.setdefault("exclude_patterns", [])
    cfg["exclude_patterns"] += ["_build", "_ext", "**.ipynb_checkpoints", "_config.yml", "_toc.yml"]
    cfg.setdefault("sphinx", {}).setdefault("config", {})
    cfg["sphinx"]["config"]["html_context"] = {"workbook_site": site}
    cfg["sphinx"].setdefault("local_extensions", {})["workbook_site"] = "_ext"
    cfg["sphinx"]["config"].setdefault("language", book.get("language", "en"))
    return cfg


# ----------------------------------------------------------------------------- npm assets

def npm_asset_dir(spec: dict) -> Path:
    """Unpack one npm package (``npm pack``, cached under _build/.cache/) and return its folder."""
    pkg = spec["package"]
    safe = re.sub(r"[^A-Za-z0-9.]+", "-", pkg.lstrip("@"))
    out = cache_dir() / safe
    if (out / "package" / "package.json").is_file():
        return out / "package"
    cache_dir().mkdir(parents=True, exist_ok=True)
    tmp = cache_dir() / (safe + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    npm = shutil.which("npm")
    if not npm:
        raise SystemExit("npm is needed once to fetch the widget/MathJax JavaScript (apt-get install npm)")
    print(f"site: npm pack {pkg} (cached under {cache_dir().relative_to(repo_root())})", flush=True)
    res = subprocess.run([npm, "pack", pkg, "--silent"], cwd=tmp, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"npm pack {pkg} failed:\n{res.stderr}")
    tgz = next(tmp.glob("*.tgz"))
    with tarfile.open(tgz) as tf:
        tf.extractall(tmp, filter="data")
    tgz.unlink()
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out / "package"


def stage_npm_assets(book: dict, st: Stager) -> None:
    for spec in book.get("npm_assets", []):
        pkg_dir = npm_asset_dir(spec)
        n = 0
        for pattern in spec["files"]:
            for f in sorted(pkg_dir.glob(pattern)):
                if f.is_file():
                    # keep paths below the pattern's fixed folder (MathJax finds its fonts relatively)
                    fixed = pattern.split("*", 1)[0].rsplit("/", 1)[0] if "/" in pattern else ""
                    base = pkg_dir / (fixed.split("/", 1)[0] if fixed else "")
                    rel = f.relative_to(base) if fixed else f.relative_to(pkg_dir)
                    st.copy(f, f"_static/{spec['into']}/{rel.as_posix()}")
                    n += 1
        if not n:
            raise SystemExit(f"npm asset {spec['package']}: no file matched {spec['files']}")


# ----------------------------------------------------------------------------- stage + build

def stage(site: str, book: dict | None = None, jobs: int = 1) -> tuple[Path, list[Part]]:
    book = book or load_book()
    from workbook.site import reference_pages
    from workbook.site import scrub as scrub_mod

    root = stage_dir() / site
    st = Stager(root)
    parts = plan(book, site)
    pages = all_pages(parts)
    sources = scrub_sources(pages, book)
    if render_frames(sources, jobs):
        # a notebook whose cells fail in the harness still gets the frames of the panels it built
        # (a panel whose frames do not match its saved output gets none: see add_scrubs); the
        # nbval run of that notebook and tests/test_site.py report the failure itself
        print("site: WARNING: some notebook cells failed while drawing frames (see above)", file=sys.stderr)
    links = site_links(pages, book, site)
    for pg in pages:
        rel = pg.doc + pg.ext
        if pg.kind == "stub":
            st.write(rel, pg.text)
        elif pg.kind == "generated":
            continue
        elif pg.ext == ".ipynb":
            nb = json.loads(pg.src.read_text(encoding="utf-8"))
            scrub = None
            md = pg.src.with_suffix(".md")
            if md in sources and (scrub_mod.cache_dir(md) / "manifest.json").is_file():
                cdir = scrub_mod.cache_dir(md)
                key = cdir.name
                scrub = {"manifest": json.loads((cdir / "manifest.json").read_text(encoding="utf-8")),
                         "url": "../" * pg.doc.count("/") + f"_static/scrub/{key}/"}
                for f in sorted(cdir.glob("*." + scrub_mod.FORMAT)):
                    st.copy(f, f"_static/scrub/{key}/{f.name}")
            st.write(rel, _ipynb_text(transform_notebook(nb, pg, site, scrub, launch_bar(book, pg), links)))
        else:
            st.write(rel, transform_markdown(pg.src.read_text(encoding="utf-8"), pg, site, links))
    # assets next to the notebooks (figures, data files)
    for folder in sorted({pg.src.parent for pg in pages if pg.src is not None}):
        for f in sorted(folder.rglob("*")):
            if f.is_file() and f.suffix.lower() in ASSET_EXT and ".ipynb_checkpoints" not in f.parts:
                st.copy(f, f.relative_to(repo_root()).as_posix())
    # landing page and static files
    st.write("index.md", landing_text((repo_root() / book["landing"]).read_text(encoding="utf-8"), site))
    static = repo_root() / "site" / "_static"
    if static.is_dir():
        for f in sorted(static.rglob("*")):
            if f.is_file() and "wm" not in f.relative_to(static).parts[:1]:
                st.copy(f, "_static/" + f.relative_to(static).as_posix())
    from fleetcalc.ui.widgets import PANEL_CSS  # one source for the panels' layout rules

    st.write("_static/fc-panels.css", "/* Generated from fleetcalc.ui.widgets.PANEL_CSS by lib/workbook/site/build.py. */\n"
             + PANEL_CSS.lstrip())
    ext = repo_root() / "site" / "_ext"
    for f in sorted(ext.glob("*.py")):
        st.copy(f, "_ext/" + f.name)
    stage_npm_assets(book, st)
    # generated reference pages
    generated = [pg.doc for pg in pages if pg.kind == "generated"]
    for rel, text in reference_pages.generate(site, pages, book).items():
        if rel.rsplit(".", 1)[0] in generated:
            st.write(rel, text)
    missing = [d for d in generated if (root / (d + ".md")) not in st.written]
    if missing:
        raise SystemExit(f"book.yml names generated pages that lib/workbook/site/reference_pages.py does not make: {missing}")
    st.write("_config.yml", yaml.safe_dump(_config(book, site), allow_unicode=True, sort_keys=False))
    st.write("_toc.yml", yaml.safe_dump(_toc(book, parts), allow_unicode=True, sort_keys=False))
    st.prune()
    return root, parts


def _sphinx(site: str) -> int:
    """Run Sphinx on a staged site (in its own process: docutils patching is global).

    Sphinx re-reads only changed pages, and a page read earlier does not repeat its warnings; so
    after a failed build the next one starts from a fresh environment (marker file .ok)."""
    from jupyter_book.sphinx import build_sphinx

    src = stage_dir() / site
    out = build_dir() / site
    doctrees = build_dir() / ".doctrees" / site
    ok = build_dir() / ".doctrees" / f"{site}.ok"
    fresh = not ok.is_file()
    ok.unlink(missing_ok=True)
    res = build_sphinx(src, out, noconfig=True, path_config=str(src / "_config.yml"),
                       confoverrides={"external_toc_path": str(src / "_toc.yml"), "latex_individualpages": False},
                       doctreedir=doctrees, warningiserror=True, keep_going=True, freshenv=fresh, quiet=True)
    if isinstance(res, Exception):
        raise res
    return int(res or 0)


def _mark_ok(site: str) -> None:
    (build_dir() / ".doctrees").mkdir(parents=True, exist_ok=True)
    (build_dir() / ".doctrees" / f"{site}.ok").write_text("last build had no warnings\n")


def prune_output(site: str, parts: list[Part]) -> int:
    """Remove pages of documents that left the book (Sphinx never deletes an old page's HTML)."""
    out = build_dir() / site
    docs = {pg.doc for pg in all_pages(parts)} | {"index", "genindex", "search"}
    n = 0
    # frames of earlier builds (another library or notebook version): Sphinx only adds to _static
    staged = stage_dir() / site / "_static" / "scrub"
    for d in sorted((out / "_static" / "scrub").glob("*")):
        if d.is_dir() and not (staged / d.name).is_dir():
            shutil.rmtree(d)
            n += 1
    for f in list(out.rglob("*.html")) + list((out / "_sources").rglob("*")):
        rel = f.relative_to(out)
        if rel.parts[0] == "_static" or not f.is_file():
            continue
        if rel.parts[0] == "_sources":
            doc = rel.relative_to("_sources").as_posix()
            doc = doc[:-4] if doc.endswith(".txt") else doc
            doc = doc.rsplit(".", 1)[0]
        else:
            doc = rel.with_suffix("").as_posix()
        if doc not in docs:
            f.unlink()
            n += 1
    return n


def build(sites: list[str], jobs: int = 2) -> int:
    book = load_book()
    t0 = time.time()
    plans = {}
    for s in sites:
        plans[s] = stage(s, book, jobs)[1]
    print(f"site: staged {', '.join(sites)} in {time.time() - t0:.1f} s", flush=True)
    procs = {}
    pending = list(sites)
    rc = 0
    while pending or procs:
        while pending and len(procs) < max(1, jobs):
            s = pending.pop(0)
            log = open(build_dir() / f"{s}.log", "w")
            procs[s] = (subprocess.Popen([sys.executable, "-m", "workbook.site.build", "_sphinx", s], cwd=repo_root(), env=_child_env(),
                                         stdout=log, stderr=subprocess.PIPE, text=True), log)
        s = next(iter(procs))
        p, log = procs.pop(s)
        _, err = p.communicate()
        log.close()
        prune_output(s, plans[s])
        warnings = [ln for ln in err.splitlines() if ln.strip()]
        (build_dir() / f"{s}.warnings.txt").write_text("\n".join(warnings) + ("\n" if warnings else ""), encoding="utf-8")
        if p.returncode or warnings:
            rc = 1
            print(f"site: {s} FAILED (warnings are errors): {len(warnings)} lines in "
                  f"_build/{s}.warnings.txt", file=sys.stderr)
            print("\n".join(warnings[:40]), file=sys.stderr)
        else:
            _mark_ok(s)
            print(f"site: {s} -> _build/{s}/index.html", flush=True)
    print(f"site: done in {time.time() - t0:.1f} s", flush=True)
    return rc


# ----------------------------------------------------------------------------- JupyterLite

LITE_SETUP = ("# JupyterLite only: install the workbook's calculators into this in-browser Python.\n"
              "%pip install -q fleetcalc pint\n")


def build_wheel(dest: Path) -> Path:
    """The fleetcalc wheel (pure Python), built offline from a copy of the sources in _build/.cache/
    (so setuptools' build/ and egg-info folders never land in the working tree)."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("fleetcalc-*.whl"):
        old.unlink()
    src = cache_dir() / "wheel-src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (repo_root() / name).is_file():
            shutil.copy2(repo_root() / name, src / name)
    # the calculators only: the workbook's own tooling (lib/workbook/) has no place in the browser
    shutil.copytree(repo_root() / "lib" / "fleetcalc", src / "lib" / "fleetcalc",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(dest), str(src)], capture_output=True, text=True,
                         env={**os.environ, "PIP_NO_INDEX": "1"})
    if res.returncode:
        raise SystemExit(f"building the fleetcalc wheel failed:\n{res.stdout}\n{res.stderr}")
    return next(dest.glob("fleetcalc-*.whl"))


LITE_NOTICE_MARK = "workbook-lite-notice"
# The JupyterLite pages cannot run Python until Pyodide has been fetched (from its CDN, once), and
# they cannot start at all from file://. Without this notice a notebook opens and nothing runs, in
# silence (a run stays at [*], the kernel reads "Unknown"). The notice says what is missing, in words.
LITE_NOTICE = r"""<script id="workbook-lite-notice">
(function () {
  var LAB = "make lab";
  function show(title, body) {
    function put() {
      if (document.getElementById("wb-lite-msg")) { return; }
      var d = document.createElement("div");
      d.id = "wb-lite-msg"; d.setAttribute("role", "alert");
      d.style.cssText = "position:fixed;left:0;right:0;top:0;z-index:100000;padding:14px 18px;" +
        "background:#fff4e5;color:#3d2a00;border-bottom:3px solid #e89217;font:15px/1.45 system-ui,sans-serif";
      d.innerHTML = "<strong>" + title + "</strong><br>" + body +
        " <button type='button' style='margin-left:1em' onclick='this.parentNode.remove()'>dismiss</button>";
      document.body.appendChild(d);
    }
    if (document.body) { put(); } else { document.addEventListener("DOMContentLoaded", put); }
  }
  if (location.protocol === "file:") {
    show("JupyterLite must be served over http.",
      "Opened from a file, this page stays blank: browsers do not run its workers from file://. " +
      "Run <code>make serve</code> in the workbook and open http://127.0.0.1:8000/lite/ , or work the " +
      "notebooks on your computer with <code>" + LAB + "</code>.");
    return;
  }
  var url = "PYODIDE_URL";
  var done = false;
  function offline() {
    if (done) { return; } done = true;
    show("Python cannot start here: Pyodide could not be downloaded.",
      "JupyterLite runs Python in your browser with Pyodide, which it fetches from " + url.split("/").slice(0, 3).join("/") +
      " the first time; this computer cannot reach it (offline, or blocked). Notebooks open, but no cell will run " +
      "and the panels show as text. To run the notebooks and move every slider without the internet, clone the " +
      "workbook and run <code>" + LAB + "</code> (JupyterLab on your computer).");
  }
  var timer = setTimeout(offline, 15000);
  fetch(url, { method: "HEAD", mode: "no-cors", cache: "no-store" })
    .then(function () { done = true; clearTimeout(timer); })
    .catch(function () { clearTimeout(timer); offline(); });
})();
</script>"""


def lite_pyodide_url(out: Path) -> str:
    """Where the built JupyterLite's kernel loads Pyodide from (its config, else the extension's default)."""
    for cfg in (out / "jupyter-lite.json", out / "lab" / "jupyter-lite.json"):
        if cfg.is_file():
            m = re.search(r'"pyodideUrl"\s*:\s*"([^"]+)"', cfg.read_text(encoding="utf-8"))
            if m:
                return m.group(1)
    for js in sorted((out / "extensions").rglob("*.js")) if (out / "extensions").is_dir() else []:
        m = re.search(r"https://cdn\.jsdelivr\.net/pyodide/[^\"'`]+?pyodide\.mjs", js.read_text(encoding="utf-8", errors="replace"))
        if m:
            return m.group(0)
    return "https://cdn.jsdelivr.net/pyodide/"


def add_lite_notice(out: Path) -> int:
    """Put the offline / file:// notice into every page of the JupyterLite build."""
    script = LITE_NOTICE.replace("PYODIDE_URL", lite_pyodide_url(out))
    n = 0
    for page in sorted(out.glob("*/index.html")) + [out / "index.html"]:
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        text = re.sub(r'<script id="workbook-lite-notice">.*?</script>', "", text, flags=re.S)
        text = text.replace("<head>", "<head>" + script, 1) if "<head>" in text else script + text
        page.write_text(text, encoding="utf-8")
        n += 1
    return n


def lite() -> int:
    book = load_book()
    spec = book.get("lite", {})
    t0 = time.time()
    cache_dir().mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(cache_dir() / "wheels")
    content = build_dir() / ".stage" / "lite-content"
    st = Stager(content)
    for pattern in spec.get("contents", []):
        for f in sorted(glob.glob(str(repo_root() / pattern))):
            p = Path(f)
            nb = json.loads(p.read_text(encoding="utf-8"))
            setup = {"cell_type": "code", "execution_count": None, "metadata": {"tags": ["lite-setup"]},
                     "outputs": [], "source": LITE_SETUP}
            if "id" in (nb["cells"][0] if nb["cells"] else {}):
                setup["id"] = "lite-setup"
            nb["cells"].insert(0, setup)
            st.write(p.relative_to(repo_root()).as_posix(), _ipynb_text(nb))
    for extra in spec.get("extra_contents", []):
        p = repo_root() / extra
        if p.is_file():
            st.write(p.name, p.read_bytes())
    st.prune()
    out = build_dir() / "lite"
    jupyter = Path(sys.executable).with_name("jupyter")
    cmd = [str(jupyter), "lite", "build", "--contents", str(content), "--output-dir", str(out),
           "--piplite-wheels", str(wheel), "--lite-dir", str(build_dir() / ".stage" / "lite-dir")]
    (build_dir() / ".stage" / "lite-dir").mkdir(parents=True, exist_ok=True)
    res = subprocess.run(cmd, cwd=build_dir() / ".stage" / "lite-dir", capture_output=True, text=True)
    (build_dir() / "lite.log").write_text(res.stdout + res.stderr, encoding="utf-8")
    if res.returncode:
        print(res.stdout[-4000:], res.stderr[-4000:], file=sys.stderr)
        return res.returncode
    n = add_lite_notice(out)
    print(f"site: JupyterLite -> _build/lite/index.html ({time.time() - t0:.1f} s, offline notice in {n} pages); "
          f"wheel {wheel.name}. Note: pyodide itself loads from its CDN at run time.")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the static sites into _build/<site>/")
    b.add_argument("--site", choices=[*SITES, "all"], default="all")
    b.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", 2)))
    s = sub.add_parser("stage", help="only stage the sources into _build/.stage/<site>/")
    s.add_argument("--site", choices=[*SITES, "all"], default="all")
    sub.add_parser("lite", help="build the JupyterLite site into _build/lite/")
    x = sub.add_parser("_sphinx")
    x.add_argument("site", choices=SITES)
    a = ap.parse_args(argv)
    if a.cmd == "_sphinx":
        return _sphinx(a.site)
    if a.cmd == "lite":
        return lite()
    sites = list(SITES) if a.site == "all" else [a.site]
    if a.cmd == "stage":
        for s_ in sites:
            print(stage(s_)[0])
        return 0
    return build(sites, a.jobs)


if __name__ == "__main__":
    sys.exit(main())
