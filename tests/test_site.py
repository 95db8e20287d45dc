"""The static sites (make book) and the JupyterLite build (make lite).

Both sites are built once per test session (workbook site build, incremental, into _build/;
a file lock keeps parallel pytest workers from building at the same time). The expectations are
derived here from the repository's files, independently of lib/workbook/site/build.py's own plan:
* no warnings (Sphinx -W: a broken cross-reference or a missing page fails the build);
* every notebook of chapters/, exercises/ (and solutions/ on the instructor site) has its page;
* solutions are absent from the student site and present, folded, on the instructor site;
* the generated reference pages exist and their counts match the notebooks' outputs;
* every Chinese glossary term occurs in the source line it is said to come from;
* static scrubbing: every chapter panel has a range whose frames step one of its own knobs, start
  at the saved state, and change what the reader sees; the student site stays under 90 MB;
* launch buttons: the JupyterLite link lands in the `make lite` build on that very notebook, the
  Binder link names the repository of book.yml and that notebook.
"""
from __future__ import annotations

import fcntl
import html
import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from seeds import seeds_dir

from fleetcalc.core.ledger import MIME, Record, read_ledger

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
SITES = ("student", "instructor")
SEEDS = seeds_dir()
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KINDS = ("confirmed", "erratum", "caveat", "vendor", "reconstruction", "assumed")   # the ledger's columns


# ----------------------------------------------------------------------------- shared build

def _locked_run(cmd: list[str], lock_name: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run ``cmd`` under a lock, once per test run: the pytest-xdist workers of one run share the
    result (the first runs it, the others wait for it and read what it left, in ``<lock>.<run>``)."""
    BUILD.mkdir(exist_ok=True)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    done = BUILD / f"{lock_name}.{run}.json" if run else None
    with open(BUILD / lock_name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if done is not None and done.is_file():
                r = json.loads(done.read_text(encoding="utf-8"))
                return subprocess.CompletedProcess(cmd, r["rc"], r["out"], r["err"])
            res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
            if done is not None:
                for old in BUILD.glob(f"{lock_name}.*.json"):
                    old.unlink()
                done.write_text(json.dumps({"rc": res.returncode, "out": res.stdout, "err": res.stderr}), encoding="utf-8")
            return res
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


BUILD_RESULT: dict = {}


@pytest.fixture(scope="session")
def built_sites():
    """Build both sites once per session; returns {site: html folder}. The build's exit status and
    warnings are asserted by test_build_has_no_warnings (any warning fails); the other tests look
    at whatever the build produced, so one broken page does not hide the rest.
    WORKBOOK_SITE_PREBUILT=1 reuses _build/ as it is (quick iterations on the tests themselves)."""
    if os.environ.get("WORKBOOK_SITE_PREBUILT") != "1":
        res = _locked_run([sys.executable, "-m", "workbook.cli", "site", "build"], ".site-build.lock")
        BUILD_RESULT.update(rc=res.returncode, out=res.stdout[-3000:], err=res.stderr[-6000:])
    for s in SITES:
        assert (BUILD / s / "index.html").is_file(), f"the {s} site was not built: {BUILD_RESULT}"
    return {s: BUILD / s for s in SITES}


# ----------------------------------------------------------------------------- expectations

def notebook_stems(top: str) -> list[Path]:
    """Pages expected from one source folder: one per stem (the .ipynb twin or a plain .md)."""
    stems = set()
    for p in (ROOT / top).glob("*/*"):
        if p.suffix in (".ipynb", ".md") and not p.name.startswith(("_", ".")):
            stems.add(p.with_suffix("").relative_to(ROOT))
    return sorted(stems)


def expected_pages(site: str) -> list[Path]:
    tops = ["chapters", "exercises"] + (["solutions"] if site == "instructor" else [])
    pages = [s for t in tops for s in notebook_stems(t)]
    if site == "instructor":
        pages += [p.with_suffix("").relative_to(ROOT) for p in (ROOT / "instructor").glob("*.md")]
    return pages


def ledger_lines(nb_path: Path) -> list[str]:
    """The text line of every ledger record a notebook's outputs hold."""
    return [r.line() for r in read_ledger(nb_path)]


def has_panels(nb_path: Path) -> bool:
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    return any(WIDGET_VIEW in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code"
               for o in c.get("outputs", []))


def page_text(path: Path) -> str:
    """Visible-ish text of a built page: tags stripped, entities decoded, whitespace collapsed."""
    t = path.read_text(encoding="utf-8")
    t = re.sub(r"<script.*?</script>", " ", t, flags=re.S)
    t = re.sub(r"<[^>]+>", "", t)
    return re.sub(r"\s+", " ", html.unescape(t))


def ledger_sources(site: str) -> list[Path]:
    tops = ["chapters", "solutions" if site == "instructor" else "exercises"]
    return sorted(p for t in tops for p in (ROOT / t).glob("*/*.ipynb"))


# ----------------------------------------------------------------------------- tests

def test_build_has_no_warnings(built_sites):
    if BUILD_RESULT:
        assert BUILD_RESULT["rc"] == 0, f"make book failed (warnings are errors):\n{BUILD_RESULT['err']}"
    for site in SITES:
        w = (BUILD / f"{site}.warnings.txt").read_text(encoding="utf-8").strip()
        assert w == "", f"{site} site: warnings\n{w}"
        assert (built_sites[site] / "index.html").is_file()


@pytest.mark.parametrize("site", SITES)
def test_every_notebook_page_exists(built_sites, site):
    missing = [str(p) for p in expected_pages(site) if not (built_sites[site] / p.with_suffix(".html")).is_file()]
    assert not missing, f"{site}: pages missing: {missing}"
    assert expected_pages(site), "no notebooks found at all"


def test_solutions_absent_from_student_site(built_sites):
    student = built_sites["student"]
    assert not (student / "solutions").exists()
    assert not (student / "_sources" / "solutions").exists()
    for page in student.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text, f"solution code on the student site: {page}"
        links = [h for h in re.findall(r'href="([^"]*)"', text) if "solutions/" in h]
        assert not links, f"{page} links to solutions: {links}"
    index = (student / "searchindex.js").read_text(encoding="utf-8")
    assert "solutions/" not in index and "BEGIN SOLUTION" not in index
    # the solution regions' code is nowhere on the student site (lines that the generated
    # exercise keeps, e.g. an expression reused in its panel, are not solutions)
    pages = [page_text(p) for p in (student / "exercises").rglob("*.html")]
    for md in (ROOT / "solutions").glob("*/*.md"):
        twin = ROOT / "exercises" / md.relative_to(ROOT / "solutions")
        kept = twin.read_text(encoding="utf-8") if twin.is_file() else ""
        for region in re.findall(r"# BEGIN SOLUTION\n(.*?)# END SOLUTION", md.read_text(encoding="utf-8"), re.S):
            for line in region.splitlines():
                line = line.strip()
                if len(line) > 25 and not line.startswith("#") and line not in kept:
                    assert not any(line in t for t in pages), f"solution line on the student site: {line}"


def test_solutions_present_and_folded_on_instructor_site(built_sites):
    inst = built_sites["instructor"]
    sol = notebook_stems("solutions")
    assert sol, "no solution notebooks in the repository"
    for stem in sol:
        page = inst / stem.with_suffix(".html")
        text = page.read_text(encoding="utf-8")
        src = (ROOT / stem.with_suffix(".md")).read_text(encoding="utf-8")
        if "# BEGIN SOLUTION" in src:
            assert "BEGIN SOLUTION" in html.unescape(re.sub(r"<[^>]+>", "", text)), f"{page}: solution code missing"
            assert "tag_hide-input" in text, f"{page}: solution code not folded"
        if re.search(r'"tags": \[[^]]*"solution"', src):
            assert "Solution (written answer)" in text and "dropdown" in text, f"{page}: written answer not folded"
    for p in (ROOT / "instructor").glob("*.md"):
        assert (inst / "instructor" / p.with_suffix(".html").name).is_file()


@pytest.mark.parametrize("site", SITES)
def test_pages_with_panels_say_they_need_a_kernel(built_sites, site):
    checked = 0
    for stem in expected_pages(site):
        nb = ROOT / stem.with_suffix(".ipynb")
        if nb.is_file() and has_panels(nb):
            text = page_text(built_sites[site] / stem.with_suffix(".html"))
            assert "needs a running kernel" in text, stem
            checked += 1
    assert checked, "no page with panels found"


# ----------------------------------------------------------------------------- static scrubbing

def saved_panels(nb: dict) -> list[dict]:
    """The fleetcalc panels among a notebook's saved widget views, in page order: {cell, title,
    table (the readout HTML saved at execution), knobs (slider/dropdown descriptions)}. Read
    from the saved widget state (VBox[heading HTML, Box[knobs, VBox[table, message]], Image?])."""
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})

    def m(ref):
        return state.get(ref.replace("IPY_MODEL_", ""), {})

    def below(model):
        for ref in model.get("state", {}).get("children", []):
            child = m(ref)
            yield child
            yield from below(child)

    out = []
    for i, c in enumerate(nb["cells"]):
        for o in c.get("outputs", []) if c["cell_type"] == "code" else []:
            view = o.get("data", {}).get(WIDGET_VIEW)
            panel = state.get(view["model_id"], {}) if view else {}
            kids = panel.get("state", {}).get("children", [])
            if panel.get("model_name") != "VBoxModel" or len(kids) < 2:
                continue
            head, top = m(kids[0]), m(kids[1])
            title = re.search(r"<b>(.*?)</b>", head.get("state", {}).get("value", ""))
            right = m(top.get("state", {}).get("children", [""])[-1]) if top.get("state", {}).get("children") else {}
            if not title or len(right.get("state", {}).get("children", [])) != 2:
                continue
            table = m(right["state"]["children"][0])["state"]["value"]
            knobs = [w["state"]["description"] for w in below(top)
                     if w.get("model_name", "").endswith(("SliderModel", "DropdownModel"))]
            out.append({"cell": i, "title": html.unescape(title.group(1)), "table": table, "knobs": knobs})
    return out


def scrubs_in(page_html: str) -> list[dict]:
    """Each static-scrub block of a built page: its knob label, range attributes and frames."""
    out = []
    for block in re.findall(r"<div class='static-scrub'.*?</script></div>", page_html, re.S):
        rng = re.search(r"<input type='range' min='(\d+)' max='(\d+)' step='1' value='(\d+)'", block)
        frames = json.loads(re.search(r"class='static-scrub-frames'>(.*?)</script>", block, re.S).group(1))
        label = html.unescape(re.search(r"Move <b>(.*?)</b> here", block).group(1))
        out.append({"min": int(rng.group(1)), "max": int(rng.group(2)), "value": int(rng.group(3)),
                    "frames": frames, "label": label, "html": block})
    return out


def chapter_pages_with_panels() -> list[Path]:
    return [s for s in notebook_stems("chapters") if (ROOT / s.with_suffix(".ipynb")).is_file()
            and saved_panels(json.loads((ROOT / s.with_suffix(".ipynb")).read_text(encoding="utf-8")))]


@pytest.mark.parametrize("site", SITES)
def test_every_chapter_panel_scrubs_its_main_knob(built_sites, site):
    """Each chapter panel has a range (in a .static-scrub block, right after the panel) whose
    frames step one of the panel's own knobs; the starting frame is the saved state (its readout
    table equals the one the executed notebook saved), the frames' pictures exist, and moving the
    knob changes what the reader sees (the picture or the readouts)."""
    root = built_sites[site]
    n_panels = 0
    for stem in chapter_pages_with_panels():
        nb = json.loads((ROOT / stem.with_suffix(".ipynb")).read_text(encoding="utf-8"))
        panels = saved_panels(nb)
        page = (root / stem.with_suffix(".html")).read_text(encoding="utf-8")
        scrubs = scrubs_in(page)
        assert len(scrubs) == len(panels), f"{stem}: {len(panels)} panels, {len(scrubs)} scrub ranges"
        text = page_text(root / stem.with_suffix(".html"))
        assert "needs a running kernel" in text, stem
        for p, sc in zip(panels, scrubs):
            where = f"{stem} {p['title']!r}"
            assert sc["label"] in p["knobs"], f"{where}: scrubs {sc['label']!r}, not one of its knobs {p['knobs']}"
            assert sc["min"] == 0 and sc["max"] == len(sc["frames"]) - 1 and 0 <= sc["value"] <= sc["max"], where
            assert len(sc["frames"]) >= 2, where
            assert sc["frames"][sc["value"]]["table"] == p["table"], f"{where}: starting frame != saved readouts"
            shown = {(f["img"], f["table"]) for f in sc["frames"]}
            assert len(shown) >= 2, f"{where}: every frame looks the same"
            for f in sc["frames"]:
                if f["img"]:
                    img = (root / stem.parent / f["img"]).resolve()
                    assert img.is_file() and img.read_bytes()[8:12] == b"WEBP", f"{where}: {f['img']}"
            n_panels += 1
    assert n_panels >= 20, n_panels


@pytest.mark.parametrize("site", SITES)
def test_static_page_says_which_knob_moves(built_sites, site):
    """The page names the knob that moves without a kernel and says the rest need one (the note
    under the range, or the panel's own static-site note when the saved panel carries it)."""
    root = built_sites[site]
    for stem in chapter_pages_with_panels():
        for sc in scrubs_in((root / stem.with_suffix(".html")).read_text(encoding="utf-8")):
            note = re.sub(r"<[^>]+>", "", sc["html"])
            if "static-scrub-note" in sc["html"]:
                assert f"Only {sc['label']} moves on this page" in html.unescape(note), stem
                assert "need a running kernel" in note, stem


def test_student_site_size_budget(built_sites):
    """The student site, frames included, stays under 90 MB."""
    total = sum(f.stat().st_size for f in built_sites["student"].rglob("*") if f.is_file())
    frames = sum(f.stat().st_size for f in (built_sites["student"] / "_static" / "scrub").rglob("*") if f.is_file())
    assert total < 90e6, f"student site {total / 1e6:.1f} MB"
    assert 0 < frames < 30e6, f"frames {frames / 1e6:.1f} MB"


def test_panel_css_is_served(built_sites):
    for site in SITES:
        css = (built_sites[site] / "_static" / "fc-panels.css").read_text(encoding="utf-8")
        assert "@container" in css and ".fc-panel-top" in css
        assert "fc-panels.css" in (built_sites[site] / "chapters" / "ch28" / "28_5_collectives.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("site", SITES)
def test_widget_and_math_javascript_is_served_with_the_site(built_sites, site):
    root = built_sites[site]
    assert (root / "_static" / "wm" / "embed.js").is_file()
    assert (root / "_static" / "mathjax" / "tex-chtml-full.js").is_file()
    for page in root.rglob("*.html"):
        srcs = re.findall(r'<script[^>]+src="([^"]+)"', page.read_text(encoding="utf-8"))
        remote = [s for s in srcs if re.match(r"(https?:)?//", s)]
        assert not remote, f"{page} loads scripts from the internet: {remote}"
        assert len(srcs) == len(set(srcs)), f"{page} loads a script twice"


@pytest.mark.parametrize("site", SITES)
def test_ledger_counts_match_the_notebooks(built_sites, site):
    page = (built_sites[site] / "reference" / "ledger.html").read_text(encoding="utf-8")
    table = re.search(r'<table[^>]*id="ledger-summary".*?</table>', page, re.S)
    assert table, "ledger summary table missing"
    rows = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td.*?</td>", r, re.S)]
            for r in re.findall(r"<tr.*?</tr>", table.group(0), re.S)]
    rows = [r for r in rows if r]
    expected: dict[str, Counter] = {}
    for nb in ledger_sources(site):
        expected.setdefault(nb.parent.name, Counter()).update(r.kind for r in read_ledger(nb))
    titles = yaml_titles()
    got = {r[0]: [int(x) for x in r[2:3 + len(KINDS)]] for r in rows}
    total = Counter()
    for ch, c in expected.items():
        want = [c[k] for k in KINDS] + [sum(c.values())]
        assert got[titles.get(ch, ch)] == want, (ch, got[titles.get(ch, ch)], want)
        total += c
    assert got["all chapters"] == [total[k] for k in KINDS] + [sum(total.values())]
    # and every checked line appears in the ledger's detail tables
    text = page_text(built_sites[site] / "reference" / "ledger.html")
    assert text.count("✓ confirmed") == total["confirmed"]


@pytest.mark.parametrize("site", SITES)
def test_errata_page_lists_every_erratum(built_sites, site):
    text = page_text(built_sites[site] / "reference" / "errata.html")
    records = [r for nb in ledger_sources(site) for r in read_ledger(nb)]
    errata = [r for r in records if r.kind == "erratum"]
    for r in errata:
        assert r.reason in text and r.printed in text, r.line()
    if errata:
        assert f"{len(errata)} errata," in text
    for r in records:   # every other class has its own section and count
        if r.kind in ("caveat", "vendor", "reconstruction"):
            assert r.where in text, r.line()


def yaml_titles() -> dict:
    import yaml
    return yaml.safe_load((ROOT / "book.yml").read_text(encoding="utf-8")).get("chapter_titles", {})


def load_glossary() -> dict:
    with open(ROOT / "site" / "glossary.toml", "rb") as f:
        return tomllib.load(f)


def test_glossary_terms_come_from_their_source_lines():
    gloss = load_glossary()
    extract = {}
    for ln in (ROOT / "tests" / "data" / "glossary_source_lines.txt").read_text(encoding="utf-8").splitlines():
        if ln.startswith("#") or not ln.strip():
            continue
        src, term, excerpt = ln.split("\t", 2)
        extract[(src, term)] = excerpt
    assert len(gloss["term"]) >= 50
    for t in gloss["term"]:
        assert len(t["zh"]) == len(t["source"]), t
        for zh, src in zip(t["zh"], t["source"]):
            assert (src, zh) in extract, f"{t['en']}: {zh} ({src}) missing from the extract"
            assert zh in extract[(src, zh)], f"{t['en']}: {zh} is not in its source line {src}"
    # where the seed texts are available, the extract itself is checked against them
    if SEEDS.is_dir():
        files = {k: v["file"] for k, v in gloss["seeds"].items()}
        lines = {k: (SEEDS / f).read_text(encoding="utf-8").splitlines() for k, f in files.items() if (SEEDS / f).is_file()}
        for (src, zh), excerpt in extract.items():
            key, n = src.split(":")
            if key in lines:
                assert excerpt in lines[key][int(n) - 1], f"extract of {src} differs from the seed"


@pytest.mark.parametrize("site", SITES)
def test_glossary_and_notation_pages(built_sites, site):
    text = page_text(built_sites[site] / "reference" / "glossary.html")
    gloss = load_glossary()
    for t in gloss["term"]:
        for zh in t["zh"]:
            assert zh in text, zh
    assert f"{len(gloss['term'])} terms" in text
    from fleetcalc.core import notation
    ntext = page_text(built_sites[site] / "reference" / "notation.html")
    for s in notation.SYMBOLS:
        assert s.meaning.split(";")[0][:40] in ntext, s.symbol


# ----------------------------------------------------------------------------- JupyterLite

@pytest.fixture(scope="session")
def lite_site():
    res = _locked_run([sys.executable, "-m", "workbook.cli", "site", "lite"], ".site-lite.lock")
    assert res.returncode == 0, f"make lite failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return BUILD / "lite"


def test_lite_packages_the_notebooks_and_the_wheel(lite_site):
    assert (lite_site / "index.html").is_file()
    files = lite_site / "files"
    for nb in sorted((ROOT / "chapters").glob("*/*.ipynb")) + sorted((ROOT / "exercises").glob("*/*.ipynb")):
        staged = files / nb.relative_to(ROOT)
        assert staged.is_file(), f"{staged} missing from the JupyterLite contents"
        first = json.loads(staged.read_text(encoding="utf-8"))["cells"][0]
        assert "%pip install" in "".join(first["source"]), "lite notebooks start with the install cell"
    assert not list(files.glob("solutions/**/*.ipynb")), "solutions must not be in the student Lite build"
    wheels = list((lite_site / "pypi").glob("fleetcalc-*.whl"))
    assert len(wheels) == 1, list((lite_site / "pypi").glob("*"))
    index = json.loads((lite_site / "pypi" / "all.json").read_text(encoding="utf-8"))
    assert "fleetcalc" in index
    with zipfile.ZipFile(wheels[0]) as z:
        names = z.namelist()
    assert "fleetcalc/notebook.py" in names
    assert any(n.startswith("fleetcalc/core/data/catalog/") and n.endswith(".toml") for n in names)


def launch_config() -> dict:
    import yaml
    book = yaml.safe_load((ROOT / "book.yml").read_text(encoding="utf-8"))
    return {"launch": book["launch"], "lite_globs": book["lite"]["contents"]}


@pytest.mark.parametrize("site", SITES)
def test_launch_buttons_open_that_notebook(built_sites, lite_site, site):
    """Every notebook page carries the launch buttons. The JupyterLite link, resolved from the
    page, lands in the `make lite` build and names this very notebook, which that build holds;
    the Binder link builds the repository named in book.yml and opens this notebook."""
    from fnmatch import fnmatch
    from urllib.parse import parse_qs, urljoin, urlparse

    cfg = launch_config()
    repo = urlparse(cfg["launch"]["repository_url"]).path.strip("/")
    tops = ["chapters", "exercises"] + (["solutions"] if site == "instructor" else [])
    n = 0
    for top in tops:
        for nb in sorted((ROOT / top).glob("*/*.ipynb")):
            rel = nb.relative_to(ROOT).as_posix()
            page = built_sites[site] / nb.relative_to(ROOT).with_suffix(".html")
            text = page.read_text(encoding="utf-8")
            bar = re.search(r"<div class=.launch-buttons.>(.*?)</div>", text, re.S)
            in_lite = any(fnmatch(rel, g) for g in cfg["lite_globs"])
            if not repo and not in_lite:    # nothing to launch it in (solutions: not in the Lite build)
                assert not bar, f"{rel}: launch buttons that lead nowhere"
                continue
            assert bar, f"{rel}: no launch buttons"
            hrefs = {cls: html.unescape(h) for cls, h in re.findall(r"class='launch-button (launch-\w+)' href='([^']+)'", bar.group(1))}
            # both buttons open a new tab (the reader keeps this page)
            assert len(re.findall(r"target='_blank' rel='noopener'", bar.group(1))) == len(hrefs) >= 1, rel
            if repo:
                binder = urlparse(hrefs["launch-binder"])
                assert f"{binder.scheme}://{binder.netloc}" == cfg["launch"]["binderhub_url"]
                assert binder.path == f"/v2/gh/{repo}/{cfg['launch']['branch']}", binder.path
                assert parse_qs(binder.query)["urlpath"] == [f"lab/tree/{rel}"]
            else:   # no real repository named in book.yml: no Binder button pointing nowhere
                assert "launch-binder" not in hrefs, f"{rel}: a Binder button without a repository"
            if any(fnmatch(rel, g) for g in cfg["lite_globs"]):
                url = urlparse(urljoin(f"http://site/{site}/{rel}", hrefs["launch-lite"]))
                target = BUILD / url.path.lstrip("/")
                assert target == lite_site / "lab" / "index.html" and target.is_file(), url.path
                (path,) = parse_qs(url.query)["path"]
                assert path == rel and (lite_site / "files" / path).is_file(), path
            else:
                assert "launch-lite" not in hrefs, f"{rel}: JupyterLite link to a notebook the Lite build lacks"
            n += 1
    assert n >= 30
    # Binder builds from environment.yml (+ postBuild, which installs this package)
    assert (ROOT / "environment.yml").is_file() and "pip install" in (ROOT / "postBuild").read_text(encoding="utf-8")


def test_wheel_installs_in_a_clean_venv(lite_site, tmp_path):
    """The wheel installs into a fresh venv (no index, no dependencies fetched) and imports from
    there with its catalog data; numpy/pint come from the project's venv via PYTHONPATH."""
    wheel = next((lite_site / "pypi").glob("fleetcalc-*.whl"))
    venv = tmp_path / "clean"
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                          str(wheel)], capture_output=True, text=True, timeout=120)
    assert pip.returncode == 0, pip.stderr
    site_pkgs = next((venv / "lib").glob("python3*/site-packages"))
    code = ("import fleetcalc\nprint(fleetcalc.__file__)\n"
            "from fleetcalc.notebook import hw\nprint(hw('abstract_device.peak_flops'))\n")
    env = {**os.environ, "PYTHONPATH": str(site_pkgs)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert str(site_pkgs) in run.stdout.splitlines()[0], run.stdout


def test_ledger_pages_read_the_records(tmp_path):
    """The site's pages read the notebooks' ledger records (data, not text): a confirmation and an
    erratum stored in a notebook come back with the fields the ledger and errata tables show."""
    from workbook.site import reference_pages as rp
    ok = Record("confirmed", "Eq. 28.14", "t_ring", "0.01757 s", "0.01757 s", verdict="agrees")
    bad = Record("erratum", "Table 2.3", "ratio", "4.50", "9", verdict="differs", reason="GB vs GiB")
    outs = [{"output_type": "display_data", "metadata": {}, "data": {"text/plain": r.line(), MIME: r.to_json()}}
            for r in (ok, bad)]
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": outs}], "metadata": {},
          "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    e, f = rp.notebook_entries(path)
    assert (e.kind, e.where, e.name, e.shown, e.printed) == ("confirmed", "Eq. 28.14", "t_ring", "0.01757 s", "0.01757 s")
    assert (f.kind, f.value, f.printed, f.detail()) == ("erratum", "4.50", "9", "GB vs GiB")
    assert rp.notebook_entries(tmp_path / "missing.ipynb") == []


# ----------------------------------------------------------------------------- frame positions

def test_scrub_positions_cover_the_range_and_the_start():
    """lib/workbook/site/scrub.py: where a main knob is drawn. The ends of the slider, its starting value
    (the book's), every option of a dropdown, log spacing on a log slider, at most ~25 frames."""
    import ipywidgets as w
    from workbook.site import scrub

    s = w.IntSlider(value=7, min=1, max=1024, step=1)
    v = scrub.positions(s)
    assert v[0] == 1 and v[-1] == 1024 and 7 in v and v == sorted(set(v)) and len(v) <= scrub.FRAMES + 1
    small = scrub.positions(w.IntSlider(value=3, min=1, max=8, step=1))
    assert small == [1, 2, 3, 4, 5, 6, 7, 8]                       # few steps: every one
    f = scrub.positions(w.FloatSlider(value=2.0, min=0.5, max=10, step=0.1))
    assert f[0] == 0.5 and f[-1] == 10 and 2.0 in f
    lg = scrub.positions(w.FloatLogSlider(value=100, base=10, min=0, max=4, step=0.01))
    assert lg[0] == 1 and lg[-1] == 10000 and 100 in lg
    ratios = [b / a for a, b in zip(lg, lg[1:])]
    assert max(ratios) / min(ratios) < 1.2                          # evenly spaced in log
    d = w.Dropdown(options={"FP32 (4)": 4, "FP16 (2)": 2, "FP8 (1)": 1}, value=2)
    assert scrub.positions(d) == [4, 2, 1] and scrub.readout(d, 1) == "FP8 (1)"
    # handle positions as noUiSlider draws them (percent of the track)
    assert scrub.handle_position(s, 1) == 0 and scrub.handle_position(s, 1024) == 100
    assert scrub.handle_position(w.FloatLogSlider(value=100, min=0, max=4), 100) == 50
    assert scrub.handle_position(d, 2) is None


# ----------------------------------------------------------------------------- panels honest about what moves

def chapter_scrubs(site: str = "student"):
    """(page stem, saved panel, scrub block) for every chapter panel with a scrub range."""
    root = BUILD / site
    for stem in chapter_pages_with_panels():
        nb = json.loads((ROOT / stem.with_suffix(".ipynb")).read_text(encoding="utf-8"))
        page = (root / stem.with_suffix(".html")).read_text(encoding="utf-8")
        for p, sc in zip(saved_panels(nb), scrubs_in(page)):
            yield stem, p, sc


def _prompt_of(nb: dict, title: str) -> str:
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for m in state.values():
        v = m.get("state", {}).get("value", "")
        if isinstance(v, str) and "fc-prompt" in v and html.escape(title) in v:
            got = re.search(r"<div class='fc-prompt'>(.*?)</div>", v, re.S)
            return html.unescape(re.sub(r"<[^>]+>", "", got.group(1))) if got else ""
    return ""


def dead_main_knobs(site: str = "student") -> list[str]:
    """Panels whose main knob barely changes what the reader sees: over its frames fewer than
    min(3, frames) different views (picture and readouts together), or a picture that never
    changes. (§2.7's data-parallel replicas: 11 frames, 2 pictures, 1 readout table.)"""
    bad = []
    for stem, p, sc in chapter_scrubs(site):
        frames = sc["frames"]
        views = {(f["img"], f["table"]) for f in frames}
        imgs = {f["img"] for f in frames if f["img"]}
        where = f"{stem} {p['title']!r} (main knob {sc['label']!r})"
        if len(views) < min(3, len(frames)):
            bad.append(f"{where}: {len(frames)} frames show only {len(views)} different views")
        elif imgs and len(imgs) < 2:
            bad.append(f"{where}: the picture never changes over {len(frames)} frames")
    return bad


def test_every_main_knob_moves_what_the_reader_sees(built_sites):
    """Issue #27 item 1: a main knob that changes nothing (a 'dead knob') fails here, naming the
    panel. (Whether the prompt asks about that knob is for the chapter's author: the test cannot
    read a question's meaning.)"""
    bad = dead_main_knobs()
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("site", SITES)
def test_page_titles_are_unique(built_sites, site):
    titles = Counter()
    for page in built_sites[site].rglob("*.html"):
        if page.relative_to(built_sites[site]).parts[0].startswith("_"):
            continue
        m = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S)
        titles[html.unescape(m.group(1)).split(" \u2014 ")[0].strip()] += 1
    dup = {t: n for t, n in titles.items() if n > 1}
    assert not dup, f"{site}: titles used by more than one page: {dup}"


@pytest.mark.parametrize("site", SITES)
def test_one_name_per_chapter(built_sites, site):
    """A chapter's head page, its exercises part and the ledger use book.yml's one name for it."""
    names = yaml_titles()
    for folder, name in names.items():
        head = built_sites[site] / "chapters" / folder / "00_intro.html"
        if head.is_file():
            assert f"<title>{html.escape(name, quote=False)} " in head.read_text(encoding="utf-8").replace("&#39;", "'"), folder
        ex = built_sites[site] / "exercises" / folder / "index.html"
        if ex.is_file():
            assert f"Exercises: {name}" in page_text(ex), folder
    ledger = page_text(built_sites[site] / "reference" / "ledger.html")
    assert all(n in ledger for f, n in names.items() if (ROOT / "chapters" / f).is_dir())
    body = (built_sites[site] / "reference" / "ledger.html").read_text(encoding="utf-8").split('<main', 1)[1]
    assert not re.search(r"<h[23][^>]*>\s*chapters\s*<", body), "a stray 'chapters' section (the topic map)"


def test_front_page_starts_the_reader(built_sites):
    student = (built_sites["student"] / "index.html").read_text(encoding="utf-8")
    inst = (built_sites["instructor"] / "index.html").read_text(encoding="utf-8")
    for page in (student, inst):
        assert 'href="chapters/ch28/28_1_units.html"' in page and 'href="chapters/v2_ch1/00_intro.html"' in page
    text = page_text(built_sites["student"] / "index.html")
    for cmd in ("make book", "make variants", "make exercises", "make test", "make lite"):
        assert cmd not in text, f"student front page shows the maintainer command {cmd!r}"
    assert "make variants" in page_text(built_sites["instructor"] / "index.html")


def test_chapters_link_their_exercises_and_back(built_sites):
    """Chapter sections link the exercise sets that practise them, exercise pages their sections,
    as links (not file paths in code)."""
    root = built_sites["student"]
    linked = 0
    for page in sorted((root / "chapters").rglob("*.html")):
        t = page.read_text(encoding="utf-8")
        assert not re.search(r"<code[^>]*><span class=\"pre\">(chapters|exercises)/[^<]+\.ipynb</span></code>", t), \
            f"{page.relative_to(root)} names a notebook as a file path, not a link"
        if "Practise this section" in t:
            linked += 1
            assert re.search(r'href="\.\./\.\./exercises/[^"]+\.html"', t), page
    assert linked >= 20, linked
    for page in sorted((root / "exercises").rglob("ex*.html")):
        t = page.read_text(encoding="utf-8")
        if "Sections this practises" in t:
            assert re.search(r'href="\.\./\.\./chapters/[^"]+\.html"', t), page
