# The workbook's commands. Each target sets up what it needs (a virtual environment in .venv).
#   make test   - install everything and run every test (what CI runs)
#   make book   - build the static site (student and instructor) into _build/site
#   make lab    - open JupyterLab on the workbook
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
JOBS ?= 2

.PHONY: test book lab notebooks exercises venv bench clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) (set PY=python3 to use another 3.11+)"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test,book]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	rm -f $(VENV)/.installed-*; touch $@

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile tests chapters solutions exercises

notebooks: $(STAMP)
	$(BIN)/python tools/nb.py execute $(NB)

exercises: $(STAMP)
	$(BIN)/python tools/nb.py exercises

book: $(STAMP)
	$(BIN)/python tools/site.py build

lab: $(STAMP)
	$(BIN)/jupyter lab chapters

bench: $(STAMP)
	$(BIN)/python tools/bench.py

clean:
	rm -rf _build
