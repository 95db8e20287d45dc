"""For every pytest run in this checkout (tests/ and nbval over the notebooks): nbval's items are
a notebook's cells, which must run top to bottom. pytest-randomly shuffles the test files and the
tests inside each file; the cells of each notebook are put back in order here (the notebooks keep
their shuffled places). tests/conftest.py has the rest of the test set-up."""


def _notebook_cells_in_order(items):
    """nbval's items are a notebook's cells, which must run top to bottom: pytest-randomly shuffles
    the test files and the tests inside each file, so the cells of each notebook are put back in
    order (the notebooks themselves keep their shuffled places)."""
    cells = [it for it in items if hasattr(it, "cell_num") and type(it).__name__ == "IPyNbCell"]
    by_nb: dict = {}
    for it in cells:
        by_nb.setdefault(it.parent.nodeid, []).append(it)
    for group in by_nb.values():
        group.sort(key=lambda it: it.cell_num)
    ordered = iter([c for nb in dict.fromkeys(it.parent.nodeid for it in cells) for c in by_nb[nb]])
    items[:] = [next(ordered) if it in by_nb.get(getattr(it.parent, "nodeid", None), ()) else it for it in items]


def pytest_collection_modifyitems(config, items):
    _notebook_cells_in_order(items)
