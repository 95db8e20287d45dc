"""Every page of the instructor site that differs from the student's (landing, solutions,
instructor guides, reference pages; see test_site_browser.pages_to_visit), checked as
test_site_pages.py checks the student site. Its own file so that it runs on another worker."""
from __future__ import annotations

from test_site import built_sites  # noqa: F401  (fixtures)
from test_site_browser import browser, server  # noqa: F401  (fixtures)
from test_site_pages import every_page


def test_every_page_of_the_instructor_site(built_sites, server, browser):
    every_page(server, browser, "instructor")
