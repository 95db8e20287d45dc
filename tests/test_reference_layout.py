"""The generated errata page and number ledger are readable in a real browser (Debian's headless
Chromium via Playwright, as in test_site_browser.py): at a desktop width (1300 px) and a phone
width (390 px) no cell of their tables is cut or pushed past the text column, so every column,
the *cause* included, can be read in full (site/_static/reference.css)."""
from __future__ import annotations

import pytest

from test_site import built_sites  # noqa: F401  (fixture)
from test_site_browser import browser, server, visit  # noqa: F401  (fixtures)

PAGES = ("reference/errata.html", "reference/ledger.html")
WIDTHS = (1300, 390)

MEASURE = """() => {
  const main = document.querySelector('.bd-article') || document.body;
  const limit = Math.min(main.getBoundingClientRect().right, document.documentElement.clientWidth) + 1;
  const bad = [];
  let cells = 0;
  for (const t of document.querySelectorAll('table.reference-cards')) {
    if (t.scrollWidth > t.clientWidth + 1) bad.push(`table ${t.id || t.className}: scrolls (${t.scrollWidth} > ${t.clientWidth})`);
    for (const c of t.querySelectorAll('th, td')) {
      const st = getComputedStyle(c);
      if (st.display === 'none' || st.visibility === 'hidden') continue;
      cells += 1;
      const r = c.getBoundingClientRect();
      if (c.scrollWidth > c.clientWidth + 1) bad.push(`cut: "${c.innerText.slice(0, 60)}" (${c.scrollWidth} > ${c.clientWidth})`);
      else if (r.right > limit) bad.push(`past the column: "${c.innerText.slice(0, 60)}" (right ${Math.round(r.right)} > ${Math.round(limit)})`);
    }
  }
  return {cells, bad: bad.slice(0, 20), nbad: bad.length, page: document.documentElement.scrollWidth,
          view: document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rel", PAGES)
def test_reference_tables_fit(built_sites, server, browser, rel, width):
    page, errors, external = visit(browser, f"{server}instructor/{rel}")
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(200)
        m = page.evaluate(MEASURE)
        assert m["cells"] > 20, f"{rel}: no reference tables found ({m})"
        assert m["nbad"] == 0, f"{rel} at {width}px: {m['nbad']} cells cut or past the column: {m['bad']}"
        assert m["page"] <= m["view"] + 1, f"{rel} at {width}px: the page scrolls sideways ({m['page']} > {m['view']})"
    finally:
        page.close()
