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
    assert r"\(a&lt;b\)" in html and "<strong>always</strong>" in html and "&lt;yes&gt;" in html


def test_a_price_never_opens_maths_and_maths_is_typeset_on_the_site():
    """The site's MathJax typesets \\( \\) only (myst's setting) and JupyterLab's $ too: maths goes out
    as \\(...\\), a price as \\$ (both print $). Hand case: two prices in one option."""
    html = quiz(question("At $3 per GPU-hour, what does a 5 % gap on a $50M run cost, with $p = 0.05$?",
                         ("$2.5M", "5 % of the $50M run.", True), ("$150k", "That is 5 % of $3M, not of the run.")))._repr_html_()
    assert r"At \$3 per GPU-hour" in html and r"a \$50M run" in html and r"\(p = 0.05\)" in html
    assert "$2.5M" not in html.replace(r"\$", "")


def _saved_quizzes():
    """(notebook, the right option's position, the number of options) of every quiz question the
    executed chapter notebooks show, read from their saved HTML."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = []
    for nb in sorted((root / "chapters").rglob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8")).get("cells", []):
            for o in cell.get("outputs", []):
                page = o.get("data", {}).get("text/html", "")
                page = "".join(page) if isinstance(page, list) else page
                for q in page.split('<div class="fc-quiz-question">')[1:]:
                    verdicts = re.findall(r'data-verdict="(right|wrong)"', q)
                    if verdicts:
                        out.append((nb.name, verdicts.index("right"), len(verdicts)))
    return out


def test_the_right_option_is_not_where_a_guess_would_look():
    """Over the book, no position holds the right option much more often than chance: a student who
    always picks (b) scores about what guessing does (the options are placed by quiz._placed)."""
    found = _saved_quizzes()
    assert len(found) >= 100, len(found)
    chance = sum(1 / n for _, _, n in found)          # expected right answers for "always the same letter"
    for pos in range(3):
        hits = sum(1 for _, p, _ in found if p == pos)
        assert hits <= 1.5 * chance + 5, (pos, hits, round(chance, 1))
    middle = sum(1 for _, p, n in found if n == 3 and p == 1) / max(1, sum(1 for *_, n in found if n == 3))
    assert middle < 0.5, middle


def test_feedback_says_its_verdict_once():
    q = question("A question long enough?", ("a", "Right: because it is.", True), ("b", "Not quite. It is not b."))
    html = quiz(q)._repr_html_()
    assert "Right.</strong> Because it is." in html and "Right: " not in html and "Not quite.</strong> It is not b." in html


def test_the_order_shown_is_the_questions_own_and_stable():
    opts = [("p", "why p is wrong"), ("q", "why q is right", True), ("r", "why r is wrong"), ("s", "why s is wrong")]
    a, b = question("Same text?", *opts), question("Same text?", *opts)
    assert [o.text for o in a.options] == [o.text for o in b.options]
    spots = {[o.correct for o in question(f"Question number {i}?", *opts).options].index(True) for i in range(40)}
    assert spots == {0, 1, 2, 3}
