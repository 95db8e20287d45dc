"""Every page of both static sites in Debian's headless Chromium (issue #27): each loads with no
console error and no request to the internet, its saved panels render (an exercise's closed, as
its reveal button), every checked book number is on the page (folded ones in the DOM), a page's
static scrub range steps its panel and the panels keep their size through every frame, and
every internal link and anchor resolves. Its own file so that this pass runs beside the phone
pass (test_site_phone.py) on another worker; screenshots of a few pages go to _build/screens."""
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


def every_page(server, browser, site):
    SHOTS.mkdir(parents=True, exist_ok=True)
    visited, broken = 0, {}
    shot_solution = site == "instructor"
    for rel in pages_to_visit(site):
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
    assert visited >= (len(expected_pages("student")) if site == "student" else 5)
    assert not broken, f"broken internal links: {broken}"


def test_every_page_in_the_browser(built_sites, server, browser):
    every_page(server, browser, "student")
