"""The live experience, end to end: JupyterLab from .venv, driven in Debian's headless Chromium.

What a student does, done by Playwright through the UI only:
1. open (a copy of) chapters/ch28/28_3_roofline.ipynb, Run > Run All Cells, move the batch slider
   of the Example 27.1 panel one step with the keyboard, and see its result table change to
   exactly what fleetcalc computes for the new batch (formatted as the panel formats it);
2. open (a copy of) exercises/ch28/ex28_02_03.ipynb, type an answer into the B_min cell, run it
   and get "✓ ... correct" for 52 and "✗ ... not right" for 51 (the sealed self-check) (Exercise 28.2: I(B) >= 50 FLOP/byte with
   d = n = 4096, s = 2 byte gives B >= 51.2, so 52; hand calculation in the solution notebook);
3. lecture mode with live panels (jupyterlab-slideshow): the roofline notebook with
   lib/workbook/notebooks/slides.py's metadata, the toolbar's deck button, the deck's arrows to the panel's slide,
   one slider step: the readouts and the picture change on the slide;
4. the reveal.js deck (jupyterlab-rise, Alt+R) has one slide per `##` heading and the panel's
   `###` subslide (panels inside that deck show as text with jupyterlab-rise 0.43.1 +
   ipywidgets 8: upstream jupyterlab-contrib/rise#119/#126; hence lecture mode is item 3).

Nothing in the repository changes: the notebooks are copied into a temporary root dir, and the
server's settings, workspaces and runtime files live there too. Screenshots go to
artifacts/screenshots/ (gitignored). Needs /usr/bin/chromium (tools/ensure_browser.sh; `make test`
runs it first) and the playwright package; never `playwright install`.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "screenshots"
ROOFLINE_NB = ROOT / "chapters" / "ch28" / "28_3_roofline.ipynb"
EXERCISE_NB = ROOT / "exercises" / "ch28" / "ex28_02_03.ipynb"
COLLECTIVES = ROOT / "chapters" / "ch28" / "28_5_collectives.md"   # its slide structure lives in the .md
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
KERNEL_IDLE = re.compile(r"Python 3 \(ipykernel\)\s*\|\s*Idle")

from playwright import sync_api  # noqa: E402  (the test extra; never `playwright install`)

expect = sync_api.expect
SLIDES_NB = "28_3_roofline_slides.ipynb"


def _slides():
    from workbook.notebooks import slides
    return slides
expect.set_options(timeout=45_000)   # Run All on a busy 2-core machine takes a while


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base: str, token: str, path: str, method: str = "GET", timeout: float = 2.0):
    req = urllib.request.Request(f"{base}{path}?token={token}", method=method,
                                 data=b"" if method == "POST" else None)
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, resp.read()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 with a random token and everything in a temp dir."""
    tmp = tmp_path_factory.mktemp("live_lab")
    root = tmp / "root"
    root.mkdir()
    for nb in (ROOFLINE_NB, EXERCISE_NB):
        shutil.copy(nb, root / nb.name)
    for path in (COLLECTIVES, COLLECTIVES.with_suffix(".ipynb")):   # the repository's own pair, .md and .ipynb
        shutil.copy(path, root / path.name)
    # lecture mode: the same notebook with its RISE slide metadata (lib/workbook/notebooks/slides.py)
    deck = _slides().add_slide_metadata(nbformat.read(ROOFLINE_NB, as_version=4))
    nbformat.write(deck, root / SLIDES_NB)
    settings = tmp / "settings"
    notif = settings / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True)
    # without this the "news" toast covers the page
    (notif / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               IPYTHONDIR=str(tmp / "ipython"), MPLCONFIGDIR=str(tmp / "mpl"), JUPYTER_PLATFORM_DIRS="1")
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [_python(), "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp / "server.log", "wb")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def wait_ready():
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyterlab exited with {proc.returncode}:\n{(tmp / 'server.log').read_text()[-3000:]}")
            try:
                if _api(base, token, "/api/status")[0] == 200:
                    _t("server ready")
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyterlab did not answer within 90 s:\n{(tmp / 'server.log').read_text()[-3000:]}")
            time.sleep(0.25)

    try:  # the caller waits (wait_ready) after launching the browser meanwhile
        yield {"base": base, "token": token, "root": root, "wait_ready": wait_ready}
    finally:
        try:  # a SIGTERM while a kernel starts can hang the server: ask it to stop instead
            _api(base, token, "/api/shutdown", method="POST", timeout=5)
        except Exception:
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run tools/ensure_browser.sh (make test does)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            yield b
        finally:
            b.close()


_T0 = time.monotonic()


def _t(msg):
    if os.environ.get("LIVE_LAB_TIMES"):
        print(f"[{time.monotonic() - _T0:6.1f} s] {msg}", flush=True)


@pytest.fixture(scope="module")
def page(lab, browser):
    """One JupyterLab page for both tests (loading the app is the slow part on a busy machine)."""
    lab["wait_ready"]()                                          # the server started before the browser
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    pg.set_default_timeout(45_000)
    pg.on("dialog", lambda d: d.accept())                        # "leave the page?" when a test reloads it
    pg.goto(f"{lab['base']}/lab/workspaces/live?reset&token={lab['token']}")
    expect(pg.locator(".jp-DirListing-item").first).to_be_visible(timeout=90_000)
    _t("lab loaded")
    yield pg
    pg.close()


@pytest.fixture(autouse=True)
def _fresh_workspace(request, lab):
    """Each test starts on a reset workspace (no tab another test left open), so the tests pass in
    any order: a panel found by its text is the one this test opened."""
    if "page" in request.fixturenames:
        pg = request.getfixturevalue("page")
        if pg.url and "/lab" in pg.url and getattr(pg, "_fc_used", False):
            pg.goto(f"{lab['base']}/lab/workspaces/live?reset&token={lab['token']}")
            expect(pg.locator(".jp-DirListing-item").first).to_be_visible(timeout=90_000)
        pg._fc_used = True
    yield


def _open(page, name: str):
    """Open ``name`` from the file browser, as a student would, and wait for its kernel."""
    page.locator(".jp-DirListing-item", has_text=name).dblclick()
    statusbar = page.locator(".jp-StatusBar-TextItem", has_text=name).first
    expect(statusbar).to_be_visible(timeout=60_000)          # the new tab is the active one
    expect(page.locator(".jp-StatusBar-TextItem", has_text=KERNEL_IDLE).first).to_be_visible(timeout=90_000)
    _t(f"{name}: kernel idle")


def _run_all(page):
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator("li[data-command='runmenu:run-all']").click()


def _shot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def _table_rows(table) -> list[tuple[str, str]]:
    rows = table.evaluate(
        "t => Array.from(t.querySelectorAll('tr')).map(r => Array.from(r.querySelectorAll('td')).map(c => c.innerText.trim()))")
    return [tuple(r) for r in rows]


def _expected_rows(B: int) -> list[tuple[str, str]]:
    """Example 27.1's result table for batch B at the panel's other starting inputs, computed here
    with fleetcalc and formatted with fmt(value, "auto", sig=n), as the panel's show= spec says."""
    from fleetcalc.physics import roofline
    from fleetcalc.core.units import Q_, fmt

    d, s = 4096, Q_(2, "byte")                                   # Example 27.1: d = n = 4096, FP16
    R_peak, beta_mem = Q_(100, "TFLOP/s"), Q_(2, "TB/s")        # the abstract device, Ch. 28 §28.3
    I = roofline.matmul_intensity(B, d, d, s)
    t = roofline.time_lower_bound(roofline.matmul_flops(B, d, d), roofline.matmul_bytes(B, d, d, s),
                                  R_peak, beta_mem)
    return [
        ("batch B", str(B)),
        ("intensity I (Eq. 28.4)", fmt(I, "auto", sig=4)),
        ("ridge I* (Eq. 28.3)", fmt(roofline.ridge_point(R_peak, beta_mem), "auto", sig=3)),
        ("attainable R (Eq. 28.2)", fmt(roofline.attainable_rate(I, R_peak, beta_mem), "auto", sig=3)),
        ("time bound t (Eq. 28.2)", fmt(t, "auto", sig=3)),
        ("bound", str(roofline.bound_kind(I, R_peak, beta_mem))),
    ]


# B is a whole-number log slider: its options are the distinct whole numbers of a 0.01-decade grid
# from 1 to 1024 (1, 2, 3, ..., 978, 1001, 1024), so one arrow press from B = 1 reaches B = 2
PRESSES_TO_B2 = 1


def test_roofline_panel_recomputes_when_the_batch_slider_moves(page):
    _open(page, ROOFLINE_NB.name)
    _run_all(page)
    out = page.locator(".jp-OutputArea-output", has_text="Example 27.1: Y = XW").first
    table = out.locator(".widget-html-content table").first
    expect(table).to_contain_text("intensity I (Eq. 28.4)")
    # the table starts at the book's inputs (B = 1); the first readout can come from the sliders'
    # first sync (a log slider rounds its value), so wait for the kernel's answer at the inputs
    expect(table).to_contain_text(_expected_rows(1)[2][1])
    start = _table_rows(table)
    assert start == _expected_rows(1)
    # and shows the book's own numbers there: Eq. 28.6 prints I = 0.9995 FLOP/byte, §28.3 after
    # Eq. 28.7 prints a 2 TFLOP/s bound, and Eq. 28.3 a 50 FLOP/byte ridge (Ch. 28, Example 27.1)
    assert dict(start)["intensity I (Eq. 28.4)"] == "0.9995 FLOP/B"
    assert dict(start)["attainable R (Eq. 28.2)"] == "2 TFLOP/s"
    assert dict(start)["ridge I* (Eq. 28.3)"] == "50 FLOP/B"
    slider = out.locator(".widget-slider").first
    expect(slider).to_contain_text("batch B")
    expect(slider.locator(".widget-readout")).to_have_text("1")
    image_before = out.locator("img").first.get_attribute("src")
    out.scroll_into_view_if_needed()
    _shot(page, "live_lab_roofline_B1")

    slider.locator(".noUi-handle").focus()
    for _ in range(PRESSES_TO_B2):
        page.keyboard.press("ArrowRight")
    expect(slider.locator(".widget-readout")).to_have_text("2")
    want = _expected_rows(2)
    expect(table).to_contain_text(want[1][1])               # waits for the kernel's answer
    assert _table_rows(table) == want
    assert want != _expected_rows(1)
    expect(out.locator("img").first).not_to_have_attribute("src", image_before)  # the plot moved too
    _shot(page, "live_lab_roofline_B2")
    # the panel's own layout rules (fleetcalc.ui.widgets.PANEL_CSS): side by side on a laptop, stacked
    # on a phone-sized screen, and the static-site note hidden in JupyterLab at either size
    panel = out.locator(".fc-panel").first

    def stacked() -> bool:
        return panel.evaluate("""p => { const [k, t] = Array.from(p.querySelector('.fc-panel-top').children)
            .map(c => c.getBoundingClientRect()); return t.top >= k.bottom - 1; }""")

    assert not stacked()
    expect(panel.locator(".fc-static-only")).to_be_hidden()
    browser_tab = page.locator(".lm-TabBar-tab[data-id='filebrowser']").first
    browser_tab.click()                                        # fold the side panel, as on a phone
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.wait_for_timeout(500)
        panel.scroll_into_view_if_needed()
        assert stacked(), "knobs and readouts side by side at 390 px"
        width = panel.evaluate("p => p.getBoundingClientRect().width")
        tracks = panel.evaluate("""p => Array.from(p.querySelectorAll('.widget-slider .slider-container'))
            .filter(e => e.offsetParent !== null).map(e => e.getBoundingClientRect().width)""")
        assert width > 250 and tracks and min(tracks) >= 0.5 * width, (width, tracks)
        expect(panel.locator(".fc-static-only")).to_be_hidden()
        _shot(page, "live_lab_roofline_390")
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
        browser_tab.click()
        expect(page.locator(".jp-DirListing-item").first).to_be_visible()
    _t("roofline done")


def _answer_and_run(page, cell, line: str):
    editor = cell.locator(".cm-content").first
    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+End")
    page.keyboard.type(line)                                    # no brackets: no auto-closing
    page.keyboard.press("Control+Enter")                        # run this cell, stay on it


def test_exercise_check_feedback(page):
    _open(page, EXERCISE_NB.name)
    _run_all(page)
    cells = page.locator(".jp-NotebookPanel", has_text="Exercises 28.2 and 28.3").locator(".jp-CodeCell")
    expect(cells.filter(has_text="B_min = ...")).to_have_count(1)
    index = next(i for i, text in enumerate(cells.all_inner_texts()) if "B_min = ..." in text)
    cell = cells.nth(index)                                  # stays put when its text changes
    output = cell.locator(".jp-OutputArea-output")
    expect(output).to_contain_text("not answered yet")       # the fresh notebook runs cleanly
    _answer_and_run(page, cell, "B_min = 52")
    expect(output).to_contain_text(re.compile(r"✓ Exercise 28\.2.*= 52: correct"))
    cell.scroll_into_view_if_needed()
    _shot(page, "live_lab_exercise_correct")

    _answer_and_run(page, cell, "B_min = 51")
    expect(output).to_contain_text(re.compile(r"✗ Exercise 28\.2.*= 51 is not right"))
    _shot(page, "live_lab_exercise_wrong")
    _t("exercise done")


def test_lecture_mode_panel_moves_on_a_slide(page):
    """Lecture mode with live panels: jupyterlab-slideshow's presentation mode (the notebook
    itself, one slide at a time, from lib/workbook/notebooks/slides.py's metadata) keeps each panel a live widget.
    Enter the deck (the notebook toolbar's deck button), step through it with the deck's own
    arrows to the slide with the Example 27.1 panel, move its batch slider: the readouts and the
    picture change, as in the notebook. The panel's static-site note stays hidden in JupyterLab."""
    _open(page, SLIDES_NB)
    _run_all(page)
    nbp = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)", has_text="28.3 The roofline model").last
    out = nbp.locator(".jp-OutputArea-output", has_text="Example 27.1: Y = XW").first
    table = out.locator(".widget-html-content table").first
    # the saved panel shows before Run All reaches it: wait until this cell has run in the kernel
    cell = nbp.locator(".jp-CodeCell", has=page.locator(".jp-OutputArea-output", has_text="Example 27.1: Y = XW")).first
    expect(cell.locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]"), timeout=90_000)
    expect(page.locator(".jp-StatusBar-TextItem", has_text=KERNEL_IDLE).first).to_be_visible(timeout=90_000)
    expect(table).to_contain_text("intensity I (Eq. 28.4)")
    assert _table_rows(table) == _expected_rows(1)
    nbp.locator(".jp-Cell").first.click()
    page.keyboard.press("Escape")
    nbp.locator("[data-command='deck:toggle']").first.click()
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(1, timeout=30_000)
    on_slide = "e => !!e.closest('.jp-deck-mod-onscreen')"
    assert not out.evaluate(on_slide), "the deck starts on the title slide"
    for _ in range(80):                      # next subslide/fragment when there is one, else next slide
        if out.evaluate(on_slide):
            break
        down = page.locator(".jp-deck-mod-direction-down").first
        fwd = page.locator(".jp-deck-mod-direction-forward").first
        step = down if "jp-mod-disabled" not in (down.get_attribute("class") or "") else fwd
        assert "jp-mod-disabled" not in (step.get_attribute("class") or ""), "end of the deck, no panel slide"
        step.click()
        page.wait_for_timeout(100)
    assert out.evaluate(on_slide), "the panel's slide was not reached"
    # the slide shows the panel's heading cell too (its ### subslide), not the whole notebook
    assert page.locator(".jp-deck-mod-onscreen", has_text="Two lower bounds on time").count() == 0
    slider = out.locator(".widget-slider", has_text="batch B").first
    slider.scroll_into_view_if_needed()
    expect(slider).to_be_in_viewport()
    expect(out.locator(".fc-static-only")).to_be_hidden()          # no "needs a kernel" note here
    image_before = out.locator("img").first.get_attribute("src")
    _shot(page, "live_lab_lecture_slide_B1")
    slider.locator(".noUi-handle").focus()
    for _ in range(PRESSES_TO_B2):
        page.keyboard.press("ArrowRight")
    expect(slider.locator(".widget-readout")).to_have_text("2")
    expect(table).to_contain_text(_expected_rows(2)[1][1])          # the kernel answered
    assert _table_rows(table) == _expected_rows(2)
    expect(out.locator("img").first).not_to_have_attribute("src", image_before)
    _shot(page, "live_lab_lecture_slide_B2")
    nbp.locator("[data-command='deck:toggle']").first.click()      # leave lecture mode
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(0)
    # the deck folds the side panels away; bring the file browser back for the next test
    if not page.locator(".jp-DirListing-item").first.is_visible():
        page.locator(".lm-TabBar-tab[data-id='filebrowser']").first.click()
    expect(page.locator(".jp-DirListing-item").first).to_be_visible()
    _t("lecture mode (jupyterlab-slideshow) done")


def test_lecture_mode_renders_the_slide_deck(page):
    """Alt+R (View > Render as Reveal Slideshow) on the notebook with lib/workbook/notebooks/slides.py metadata
    shows a reveal.js deck with one horizontal slide per slide cell and the panel's subslide."""
    _open(page, SLIDES_NB)
    kinds = _slides().slide_types(nbformat.read(ROOFLINE_NB, as_version=4))
    page.locator(".jp-NotebookPanel", has_text="28.3 The roofline model").last.locator(".jp-Cell").first.click()
    page.keyboard.press("Escape")                                 # command mode: the shortcut's selector
    page.keyboard.press("Alt+r")
    frame = page.frame_locator("iframe[src*='/rise/']").first
    top = frame.locator(".reveal .slides > section")
    expect(top).to_have_count(kinds.count("slide"), timeout=90_000)
    expect(frame.locator(".reveal .slides > section > section")).to_have_count(
        kinds.count("slide") + kinds.count("subslide"))          # reveal nests every slide's stack
    expect(frame.locator(".reveal .slides")).to_contain_text("Panel: move the operating point")
    _shot(page, "live_lab_lecture_mode")
    _t("lecture mode done")


def test_lecture_mode_from_the_md_pair_survives_a_save(page, lab):
    """The repository's own notebook with its .md pair (jupytext, as in `make lab`, takes the cells
    from the .md): the deck has its slides, a slider moves on a slide, and after Ctrl+S both files
    still carry the slide structure (`workbook slides --check` stays green)."""
    name = COLLECTIVES.with_suffix(".ipynb").name
    _open(page, name)
    _run_all(page)
    nbp = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)", has_text="28.5 Interconnect").last
    out = nbp.locator(".jp-OutputArea-output", has=page.locator(".fc-panel")).first
    cell = nbp.locator(".jp-CodeCell", has=page.locator(".fc-panel")).first
    expect(cell.locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]"), timeout=120_000)
    expect(page.locator(".jp-StatusBar-TextItem", has_text=KERNEL_IDLE).first).to_be_visible(timeout=120_000)
    nbp.locator(".jp-Cell").first.click()
    page.keyboard.press("Escape")
    nbp.locator("[data-command='deck:toggle']").first.click()
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(1, timeout=30_000)
    on_slide = "e => !!e.closest('.jp-deck-mod-onscreen')"
    assert not out.evaluate(on_slide), "one long page: the panel is on the title slide"
    for _ in range(120):
        if out.evaluate(on_slide):
            break
        down = page.locator(".jp-deck-mod-direction-down").first
        fwd = page.locator(".jp-deck-mod-direction-forward").first
        step = down if "jp-mod-disabled" not in (down.get_attribute("class") or "") else fwd
        assert "jp-mod-disabled" not in (step.get_attribute("class") or ""), "end of the deck, no panel slide"
        step.click()
        page.wait_for_timeout(100)
    assert out.evaluate(on_slide), "the panel's slide was not reached"
    table = out.locator(".fc-readouts").first
    before = table.inner_text()
    slider = out.locator(".widget-slider").first
    slider.scroll_into_view_if_needed()
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    expect(table).not_to_have_text(before)                      # the kernel answered on the slide
    _shot(page, "live_lab_lecture_from_md_pair")
    nbp.locator("[data-command='deck:toggle']").first.click()
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(0)
    md, ipynb = lab["root"] / COLLECTIVES.name, lab["root"] / name
    stamp = ipynb.stat().st_mtime   # jupytext rewrites the .md only when its text changes; the .ipynb always
    nbp.locator(".jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")                            # as a lecturer saves; the menu if the key missed
    page.wait_for_timeout(1500)
    if ipynb.stat().st_mtime == stamp:
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^File$")).click()
        page.locator("li[data-command='docmanager:save']").first.click()
    deadline = time.monotonic() + 30
    while ipynb.stat().st_mtime == stamp and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ipynb.stat().st_mtime != stamp, "the notebook was not saved"
    import jupytext
    slides = _slides()
    kinds = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in jupytext.read(md, fmt="md:myst").cells]
    assert kinds.count("slide") >= 5
    assert kinds == slides.slide_types(nbformat.read(ipynb, as_version=4))
    assert not slides.apply(ipynb, check=True) and not slides.apply_source(md, check=True)
    if not page.locator(".jp-DirListing-item").first.is_visible():
        page.locator(".lm-TabBar-tab[data-id='filebrowser']").first.click()
    _t("lecture mode from the .md pair done")
