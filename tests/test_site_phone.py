"""Every student page on a phone (issue #27), 390 x 844 in Debian's headless Chromium: no page
scrolls sideways, every picture has alt text in words, chart text >= 10 px, no fixed element
covers the content, a wide equation scrolls in a visible box. Its own file so that this pass over
every page runs beside the desktop pass (test_site_pages.py) on another worker."""
from __future__ import annotations

from test_site import ROOT, built_sites  # noqa: F401  (fixtures)
from test_site_browser import block_the_internet, browser, server  # noqa: F401  (fixtures)
from test_site_reader import wait_panels

PHONE = r"""() => {
  const vw = document.documentElement.clientWidth;
  const imgs = [...document.querySelectorAll('.bd-article img')].filter(i => i.offsetParent !== null);
  const noAlt = imgs.filter(i => !i.alt || /\.(png|svg|jpe?g|webp)$/i.test(i.alt)).map(i => i.src.split('/').pop());
  const small = [];
  document.querySelectorAll('.static-scrub').forEach(b => {
    const p = document.querySelector('.' + b.dataset.panel), img = p && p.querySelector('img.fc-picture');
    if (!img || !img.naturalWidth) return;
    const narrow = img.src.indexOf(b.closest('.fc-panel') ? '' : '') >= 0 && b.dataset.pxNarrow &&
                   Math.abs(img.naturalWidth - +b.dataset.pxNarrow) < 2;
    const pt = +(narrow ? b.dataset.fontPtNarrow : b.dataset.fontPt);
    const px = pt * (+b.dataset.dpi || 90) / 72 * img.getBoundingClientRect().width / img.naturalWidth;
    if (px < 10) small.push({knob: b.dataset.knob, px: Math.round(px * 10) / 10, narrow});
  });
  const fixed = [...document.querySelectorAll('body *')].filter(e => { const cs = getComputedStyle(e);
    const r = e.getBoundingClientRect(); return cs.position === 'fixed' && cs.display !== 'none' && cs.visibility !== 'hidden' && r.height > 0
      && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth && !e.matches('.skip-link, #pst-skip-link')
      && !e.closest('.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, dialog, .search-button__wrapper'); })
    .map(e => e.id || e.className.toString().slice(0, 40));
  const wideMath = [...document.querySelectorAll("mjx-container[display='true']")]
    .filter(m => m.scrollWidth > m.clientWidth + 1 && !m.classList.contains('fc-scrolls')).length;
  return {scroll: document.documentElement.scrollWidth, vw, noAlt, small, fixed, wideMath};
}"""


def test_every_page_on_a_phone(built_sites, server, browser):
    """Every student page at 390 x 844: no sideways scroll, every picture has alt text in words,
    chart text >= 10 px, no fixed element over the content, wide equations in a visible box."""
    root = ROOT / "_build" / "student"
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                  if not p.relative_to(root).parts[0].startswith(("_", ".")) and p.name not in ("genindex.html", "search.html"))
    problems = {}
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    block_the_internet(page, server.rstrip("/"), lambda r: r.abort())
    try:
        for rel in rels:
            page.goto(f"{server}student/{rel}", wait_until="load", timeout=90_000)
            try:
                wait_panels(page, settle_ms=150)
            except Exception as exc:  # noqa: BLE001 - say which page
                problems[rel] = {"panels did not render": str(exc)[:200]}
                continue
            if page.evaluate("!!window.MathJax && !!MathJax.startup"):
                page.evaluate("MathJax.startup.promise")
                page.wait_for_timeout(150)
                page.evaluate("window.dispatchEvent(new Event('resize'))")
            m = page.evaluate(PHONE)
            bad = {}
            if m["scroll"] > m["vw"] + 1:
                bad["scrolls sideways"] = m["scroll"] - m["vw"]
            for k in ("noAlt", "small", "fixed"):
                if m[k]:
                    bad[k] = m[k][:4]
            if m["wideMath"]:
                bad["wide equations without a box"] = m["wideMath"]
            if bad:
                problems[rel] = bad
    finally:
        ctx.close()
    assert not problems, f"{len(problems)} of {len(rels)} pages: {problems}"
