"""The static sites (make book) and the JupyterLite build (make lite).

Both sites are built once per test session (tools/site.py build, incremental, into _build/;
a file lock keeps parallel pytest workers from building at the same time). The expectations are
derived here from the repository's files, independently of tools/site.py's own plan:
* no warnings (Sphinx -W: a broken cross-reference or a missing page fails the build);
* every notebook of chapters/, exercises/ (and solutions/ on the instructor site) has its page;
* solutions are absent from the student site and present, folded, on the instructor site;
* the generated reference pages exist and their counts match the notebooks' outputs;
* every Chinese glossary term occurs in the source line it is said to come from.
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

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
SITES = ("student", "instructor")
SEEDS = Path(os.environ.get("WORKBOOK_SEEDS", "/work/shared/seeds"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MARKERS = {"[✓ book]": "confirmed", "[erratum]": "erratum", "[caveat]": "caveat", "[vendor note]": "vendor",
           "[reconstructed]": "reconstruction", "[assumed]": "assumed"}   # fleetcalc.book.MARKERS
KINDS = ("confirmed", "erratum", "caveat", "vendor", "reconstruction", "assumed")   # the ledger's columns


# ----------------------------------------------------------------------------- shared build

def _locked_run(cmd: list[str], lock_name: str, timeout: int = 900) -> subprocess.CompletedProcess:
    BUILD.mkdir(exist_ok=True)
    with open(BUILD / lock_name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
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
        res = _locked_run([sys.executable, "tools/site.py", "build"], ".site-build.lock")
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


def outputs_text(nb_path: Path) -> list[str]:
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    lines = []
    for c in nb["cells"]:
        for o in c.get("outputs", []) if c["cell_type"] == "code" else []:
            if o.get("output_type") == "stream" and o.get("name") == "stdout":
                t = o["text"]
                lines += ("".join(t) if isinstance(t, list) else t).splitlines()
    return lines


def ledger_lines(nb_path: Path) -> list[str]:
    return [ln.strip() for ln in outputs_text(nb_path) if ln.startswith(tuple(MARKERS))]


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
            assert "Moving a slider needs a running kernel" in text, stem
            checked += 1
    assert checked, "no page with panels found"


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
        c = expected.setdefault(nb.parent.name, Counter())
        for ln in ledger_lines(nb):
            c[next(v for k, v in MARKERS.items() if ln.startswith(k))] += 1
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
    errata = [ln for nb in ledger_sources(site) for ln in ledger_lines(nb) if ln.startswith("[erratum]")]
    for ln in errata:
        cause = ln.split("| cause: ", 1)[1].strip()
        book = re.search(r"\| book: (.*?) \|", ln).group(1)
        assert cause in text and book in text, ln
    if errata:
        assert f"{len(errata)} errata," in text
    for marker, kind in MARKERS.items():   # every other class has its own section and count
        if kind in ("confirmed", "assumed", "erratum"):
            continue
        lines = [ln for nb in ledger_sources(site) for ln in ledger_lines(nb) if ln.startswith(marker)]
        for ln in lines:
            assert ln[len(marker):].split(" | ")[0].strip() in text, ln


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
    sys.path.insert(0, str(ROOT / "lib"))
    from fleetcalc import notation
    ntext = page_text(built_sites[site] / "reference" / "notation.html")
    for s in notation.SYMBOLS:
        assert s.meaning.split(";")[0][:40] in ntext, s.symbol


# ----------------------------------------------------------------------------- JupyterLite

@pytest.fixture(scope="session")
def lite_site():
    res = _locked_run([sys.executable, "tools/site.py", "lite"], ".site-lite.lock")
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
    assert any(n.startswith("fleetcalc/data/catalog/") and n.endswith(".toml") for n in names)


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


def test_ledger_line_parser():
    """The three line shapes of lib/fleetcalc/book.py's docstring."""
    sys.path.insert(0, str(ROOT / "tools"))
    import reference_pages as rp
    e = rp.parse_line("[✓ book] Eq. 28.14 | t_ring = 0.01757 s | book: 0.01757 s")
    assert (e.status, e.where, e.name, e.value, e.printed) == ("confirmed", "Eq. 28.14", "t_ring", "0.01757 s", "0.01757 s")
    e = rp.parse_line("[erratum] Table 2.3 | ratio = 4.50 | book: 9 | cause: GB vs GiB")
    assert (e.status, e.value, e.printed, e.note) == ("erratum", "4.50", "9", "GB vs GiB")
    e = rp.parse_line("[assumed] Ch. 1 §1.4 | t_step = 1 s | why: the text gives none")
    assert (e.status, e.where, e.name, e.value, e.note) == ("assumed", "Ch. 1 §1.4", "t_step", "1 s", "the text gives none")
    assert rp.parse_line("something else") is None
