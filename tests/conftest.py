"""Shared test set-up: the `slow` marker that `make test-fast` leaves out.

Slow tests build the static sites, drive a browser or a live JupyterLab, grade submissions in
fresh kernels or execute notebooks; everything else (unit, property, fuzz, catalog and pipeline checks) is fast.
"""
import pytest

SLOW_FILES = {"test_site.py", "test_site_browser.py", "test_site_reader.py", "test_site_pages.py",
              "test_site_pages_vol2.py", "test_site_pages_exercises.py", "test_site_pages_instructor.py", "test_site_phone.py", "test_live_lab.py", "test_determinism.py",
              "test_slides.py", "test_reference_layout.py", "test_grade.py", "test_measure_notebook.py",
              "test_grade_hostile.py", "test_grade_neighbours.py", "test_variants_roster.py"}

# The longest files first, so that `make test`'s workers (pytest-xdist, one file per worker at a
# time, --no-loadscope-reorder) start them at once and finish together, instead of one worker
# running a long browser pass alone at the end. Measured on 2 cores (seconds, one clean-clone run):
# the site build ~250 (the first site test pays it, the others reuse it), every student page ~500
# (now in three files), the instructor pages ~210, every page on a phone ~200, the live JupyterLab
# ~90. The site build comes first; the files that need no site run beside it.
LONGEST_FIRST = ("test_site.py", "test_live_lab.py", "test_exercise_run_all.py", "test_site_pages_vol2.py",
                 "test_site_pages.py", "test_site_pages_instructor.py", "test_site_phone.py",
                 "test_site_pages_exercises.py", "test_site_browser.py", "test_site_reader.py",
                 "test_reference_layout.py", "test_grade_hostile.py", "test_grade_neighbours.py",
                 "test_grade.py", "test_variants_roster.py", "test_determinism.py", "test_slides.py")


@pytest.fixture(autouse=True)
def _own_exercise_session():
    """Every test works on an exercise session of its own (key, cards, passes, panels, openers):
    what one test or notebook registered never reaches the next, in any order."""
    from fleetcalc.ui import exercises

    with exercises.session() as s:
        yield s


@pytest.fixture
def key_session(_own_exercise_session):
    """The test's session holding the whole answer key (as a solution notebook's key cells leave it)."""
    from workbook.classroom import answer_key

    _own_exercise_session.key.update(answer_key.all_exercises())
    return _own_exercise_session


def pytest_configure(config):
    # the grader's instructor secret: the tests sign and verify with one of their own, never the
    # instructor's (~/.config/...); a test that needs another sets WORKBOOK_SECRET_FILE itself
    import os
    import tempfile

    os.environ.setdefault("WORKBOOK_SECRET_FILE", os.path.join(tempfile.mkdtemp(prefix="wb-secret-"), "secret"))
    config.addinivalue_line("markers", "slow: builds a site, drives a browser or executes notebooks (left out of make test-fast)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # a stable sort: the listed files first, in that order; every other item keeps its place
    items.sort(key=lambda it: rank.get(it.path.name, len(rank)) if it.path.parent.name == "tests" else len(rank))
