# The workbook's commands. Each target sets up what it needs (a virtual environment in .venv).
#   make test      - install everything and run every test (what CI runs)
#   make test-fast - unit, property, fuzz and pipeline tests only (no site, browser or notebook runs)
#   make book      - build the static sites (student and instructor) into _build/
#   make lab       - open JupyterLab on the workbook
#   make notebooks - re-execute chapter and solution notebooks from their .md sources (NB=path to pick one)
#   make exercises - regenerate exercises/ from solutions/ (never overwrites a student's edits)
#   make variants  - seeded exercise variants and answer keys for homework/exams
#   make lite      - JupyterLite build of the workbook
#   make bench     - the performance benchmark (figures go in the README)
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
JOBS ?= 2

.PHONY: test test-fast book lab notebooks exercises variants lite bench browser venv clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) (or run: make PY=python3 ...)"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test,book,lab]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	rm -f $(VENV)/.installed-*; touch $@

venv: $(STAMP)

browser:
	tools/ensure_browser.sh

test: $(STAMP) browser
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval --nbval-current-env tests chapters solutions exercises

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) -m "not slow" tests

notebooks: $(STAMP)
	$(BIN)/python tools/nb.py execute $(NB)
	$(BIN)/python tools/instructor.py

exercises: $(STAMP)
	$(BIN)/python tools/nb.py exercises
	$(BIN)/python tools/instructor.py

variants: $(STAMP)
	$(BIN)/python tools/variants.py

book: $(STAMP)
	$(BIN)/python tools/site.py build

lite: $(STAMP)
	$(BIN)/python tools/site.py lite

lab: $(STAMP)
	$(BIN)/jupyter lab

bench: $(STAMP)
	$(BIN)/python tools/bench.py

clean:
	rm -rf _build
