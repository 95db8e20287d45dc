"""Quizzes: one right option per question, every option explained, and HTML that needs no script.

The browser test (tests/test_site_browser.py) clicks a wrong and a right option on the site."""
from __future__ import annotations

import re

import pytest

from fleetcalc.ui.quiz import question, quiz


def _q():
    return question("The ring's transfer term when p goes from 8 to 64?",
                    ("grows about 8 times", "That is the start-up term: 2(p-1) grows with p."),
                    ("hardly moves", "2(p-1)/p climbs from 1.75 towards 2.", True))


def test_html_has_one_details_per_option_and_no_script():
    html = quiz(_q(), title="Quiz: collectives")._repr_html_()
    assert html.count("<details") == 2 and "<script" not in html
    assert html.count('data-verdict="right"') == 1 and html.count('data-verdict="wrong"') == 1
    assert all(c.startswith("fc-quiz") or c in ("tex2jax_process", "mathjax_process")
               for c in re.findall(r'class="([^"]+)"', html) for c in c.split())
    assert "(click an option" in html and "Not quite." in html and "Right." in html


@pytest.mark.parametrize("options,msg", [
    ((("a", "because of this"), ("b", "because of that")), "exactly one right"),
    ((("a", "because of this", True), ("b", "because of that", True)), "exactly one right"),
    ((("a", "why", True), ("b", "because of that")), "needs an explanation"),
    ((("a", "because of this", True),), "2 to 6 options"),
])
def test_bad_questions_are_refused(options, msg):
    with pytest.raises(ValueError, match=msg):
        question("Q?", *options)


def test_text_is_escaped_but_maths_kept():
    html = quiz(question("Is $a<b$ **always**?", ("<yes>", "no reason given here", True), ("no", "it is a test only")))._repr_html_()
    assert "$a&lt;b$" in html and "<strong>always</strong>" in html and "&lt;yes&gt;" in html
