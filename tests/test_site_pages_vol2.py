"""The student site's pages of Vol. 2 Chs 1-3, checked as test_site_pages.py checks the others.
Its own file so that it runs on another worker beside them."""
from __future__ import annotations

from test_site import built_sites  # noqa: F401  (fixtures)
from test_site_browser import browser, server  # noqa: F401  (fixtures)
from test_site_pages import every_page


def test_every_vol2_chapter_page_in_the_browser(built_sites, server, browser):
    every_page(server, browser, "student", part="vol2")
