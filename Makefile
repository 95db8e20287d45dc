# The workbook's commands. Each target sets up what it needs (a virtual environment in .venv).
#   make test      - install everything and run every test (what CI runs): tests/ and nbval over the
#                    chapter, solution and exercise notebooks, one file per worker at a time, the
#                    longest files first (tests/conftest.py: LONGEST_FIRST) so the workers end together
#   make test-fast - tests/ without the tests marked slow (no site builds, browsers or nbval); some of
#                    its tests still run notebooks' code: the panel-range sweep and the determinism
#                    check execute every notebook's cells, outside nbval
#   make book      - build the static sites (student and instructor, with the panels' scrub frames)
#                    and the JupyterLite build their launch buttons open, into _build/
#   make lab       - open JupyterLab on the workbook (lecture mode starts off; a notebook's slides are in its .md)
#   make notebooks - re-execute chapter and solution notebooks from their .md sources (NB=path to pick one;
#                    a notebook whose source and library are unchanged is skipped, RERUN=1 runs it anyway)
#   make exercises - regenerate exercises/ from solutions/ (never overwrites a student's edits)
#   make variants  - a seeded variant per student of a roster (ROSTER=roster.csv), and its answer key
#   make grade     - grade a folder of submitted notebooks (SUBMISSIONS=folder), each in a sandbox: grades.csv + feedback/
#   make lite      - JupyterLite build of the workbook
#   make serve     - serve the built sites and JupyterLite over http (http://127.0.0.1:8000/student/; PORT=...)
#   make bench     - the performance benchmark (figures go in the README)
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
JOBS ?= 2

.PHONY: test test-fast book lab notebooks exercises variants lite serve bench browser sandbox venv clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) (or run: make PY=python3 ...)"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[tools,test,book,lab]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	rm -f $(VENV)/.installed-*; touch $@

venv: $(STAMP)

browser:
	tools/ensure_browser.sh

sandbox:
	tools/ensure_sandbox.sh

test: $(STAMP) browser sandbox
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder --nbval --nbval-current-env tests chapters solutions exercises

test-fast: $(STAMP) sandbox
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile -m "not slow" tests

notebooks: $(STAMP)
	$(BIN)/workbook execute $(if $(RERUN),--rerun) $(NB)
	$(BIN)/workbook instructor

exercises: $(STAMP)
	$(BIN)/workbook exercises
	$(BIN)/workbook instructor

variants: $(STAMP)
	$(BIN)/workbook variants --roster $(or $(ROSTER),roster.csv) --seed $(or $(SEED),0) $(if $(SET),--set $(SET)) $(if $(OUT),--out $(OUT)) $(if $(SELF_CHECKS),--self-checks)

grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<folder> [SET=ch28/ex28_09_10] [TIMEOUT=60] [MEMORY=2] [OUT=folder] [ROSTER=roster.csv SEED=0] [LMS=canvas|gradescope|files] [BOOK_INPUTS=1] [AFTER_DEADLINE=1] [TRUSTED=1]"; exit 2; }
	$(if $(TRUSTED),,tools/ensure_sandbox.sh)
	$(BIN)/workbook grade $(SUBMISSIONS) --timeout $(or $(TIMEOUT),60) --memory $(or $(MEMORY),2) --jobs $(JOBS) $(if $(SET),--set $(SET)) $(if $(OUT),--out $(OUT)) $(if $(ROSTER),--roster $(ROSTER) --seed $(or $(SEED),0)) $(if $(LMS),--lms $(LMS)) $(if $(BOOK_INPUTS),--book-inputs) $(if $(AFTER_DEADLINE),--after-deadline) $(if $(TRUSTED),--trusted)

book: $(STAMP)
	$(BIN)/workbook site build
	$(BIN)/workbook site lite

lite: $(STAMP)
	$(BIN)/workbook site lite

serve:
	@test -d _build/student || { echo "no site yet: run make book first"; exit 1; }
	@echo "serving _build/ on http://127.0.0.1:$(or $(PORT),8000)/ : student/ instructor/ lite/ (Ctrl-C stops)"
	$(PY) -m http.server $(or $(PORT),8000) --bind 127.0.0.1 --directory _build

lab: $(STAMP)
	$(BIN)/python tools/deck_off.py
	$(BIN)/jupyter lab

bench: $(STAMP)
	$(BIN)/workbook bench

clean:
	rm -rf _build
