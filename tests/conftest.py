"""Shared test set-up: the `slow` marker that `make test-fast` leaves out.

Slow tests build the static sites, drive a browser or a live JupyterLab, grade submissions in
fresh kernels or execute notebooks; everything else (unit, property, fuzz, catalog and pipeline checks) is fast.
"""
import pytest

SLOW_FILES = {"test_site.py", "test_site_browser.py", "test_live_lab.py", "test_determinism.py",
              "test_slides.py", "test_reference_layout.py", "test_grade.py", "test_measure_notebook.py"}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: builds a site, drives a browser or executes notebooks (left out of make test-fast)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
