"""Every page of both static sites in Debian's headless Chromium (issue #27): each loads with no
console error and no request to the internet, its saved panels render (an exercise's closed, as
its reveal button), every checked book number is on the page (folded ones in the DOM), a page's
static scrub range steps its panel and the panels keep their size through every frame, and
every internal link and anchor resolves. The student site's pages are checked in three parts, each
in its own file (this one: Ch. 28, the capstone, the notation and the front and reference pages;
test_site_pages_vol2.py: Vol. 2 Chs 1-3; test_site_pages_exercises.py: the exercises), so that the
parts and the phone pass (test_site_phone.py) run side by side on the workers; screenshots of a few
pages go to artifacts/screenshots."""
from __future__ import annotations

from test_site import built_sites, expected_pages  # noqa: F401  (fixtures)
from test_site_browser import SHOTS, browser, check_links, check_page, pages_to_visit, server  # noqa: F401

SCREENSHOTS = {
    ("student", "index.html"): "student_landing.png",
    ("student", "chapters/ch28/28_3_roofline.html"): "student_roofline.png",
    ("student", "reference/ledger.html"): "student_ledger.png",
    ("student", "reference/glossary.html"): "student_glossary.png",
    ("instructor", "index.html"): "instructor_landing.png",
}


PARTS = {"vol2": ("chapters/v2_ch1/", "chapters/v2_ch2/", "chapters/v2_ch3/"), "exercises": ("exercises/",)}


def part_of(rel: str) -> str:
    """Which part of the student pass checks a page ("rest" for everything the others leave)."""
    return next((name for name, prefixes in PARTS.items() if rel.startswith(prefixes)), "rest")


def every_page(server, browser, site, part: str | None = None):
    """Check every page of ``site`` (of one part of the student site when ``part`` is given)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    visited, broken = 0, {}
    shot_solution = site == "instructor"
    pages = [r for r in pages_to_visit(site) if part is None or part_of(r) == part]
    for rel in pages:
        page, hrefs = check_page(browser, server, site, rel)
        try:
            name = SCREENSHOTS.get((site, rel))
            if name is None and shot_solution and rel.startswith("solutions/"):
                name, shot_solution = "instructor_solution.png", False
            if name:
                page.screenshot(path=str(SHOTS / name))
        finally:
            page.close()
        b = check_links(site, rel, hrefs, server)
        if b:
            broken[rel] = b
        visited += 1
    assert visited == len(pages) and visited >= (5 if site == "instructor" or part == "rest" else 10)
    assert not broken, f"broken internal links: {broken}"


def test_the_parts_cover_every_student_page(built_sites):
    pages = pages_to_visit("student")
    parts = {name: [r for r in pages if part_of(r) == name] for name in (*PARTS, "rest")}
    assert sum(map(len, parts.values())) == len(pages) >= len(expected_pages("student"))
    assert all(parts.values()), {k: len(v) for k, v in parts.items()}


def test_every_page_in_the_browser(built_sites, server, browser):
    every_page(server, browser, "student", part="rest")
