# benchvote: the two promised commands are `make book` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.md)
JB_FLAGS := -W --keep-going
# the chapters' long computations are cached beside the checkout (benchvote.cache; git-ignored)
export BENCHVOTE_CACHE ?= $(CURDIR)/.benchvote-cache
# Compiled bytecode goes to one folder under _build, written once and read by every later process. uv installs no
# .pyc files, and where PYTHONDONTWRITEBYTECODE is set (it was on the machine measured) every Python process
# compiled every module it imported, the venv's included: importing the audit's stack cost 4.6 CPU s a process
# instead of 1.7, and make test starts many processes (audits, kernels, test workers, JupyterLab). With the prefix the
# checkout and the venv stay free of __pycache__ folders.
export PYTHONPYCACHEPREFIX ?= $(CURDIR)/_build/pycache
export PYTHONDONTWRITEBYTECODE :=

.PHONY: warm book book-cached test test-site test-unbuilt test-corpus test-fast lint binder-env env assets sync lock bench clean help

help:
	@echo "make book         build the static book in _build/html (creates .venv, executes every notebook)"
	@echo "make test         build the book beside the tests that need no book, then the site tests (Chromium)"
	@echo "make test-unbuilt every test that needs no built book (what make test runs beside the book build)"
	@echo "make test-site    build the book, then its site and live tests (Chromium, JupyterLab; part of make test)"
	@echo "make book-cached  local rebuild that reuses executed notebooks (cache ignores lib/ edits)"
	@echo "make test-corpus  the command-line audit of every table of data/corpus/ (also part of make test)"
	@echo "make test-fast    library and notebook-pairing tests only: no build, browser, live JupyterLab or slow test"
	@echo "make lint         ruff (lint and format) on the code and, through jupytext, the chapters; mypy on lib/"
	@echo "make sync         refresh the .ipynb twins from the .md notebooks"
	@echo "make bench        speed and agreement tables against the reference implementations (bench/)"

# uv installs the pinned requirements (scripts/uv_install.py: parallel downloads; 19-25 s on a clean clone, pip 144 s)
UV := uv==0.13.9
$(STAMP): requirements.txt requirements-data.txt pyproject.toml scripts/usable_requirements.py scripts/uv_install.py
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: Python 3.11 is required"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet $(UV) || echo "uv was not installed: scripts/uv_install.py uses pip instead"
	@mkdir -p _build
	$(PYTHON) scripts/usable_requirements.py requirements.txt > _build/requirements.txt
	$(BIN)/python scripts/uv_install.py $(BIN)/python pip -r _build/requirements.txt
	$(BIN)/python scripts/uv_install.py $(BIN)/python --no-deps -r requirements-data.txt
	$(BIN)/python scripts/uv_install.py $(BIN)/python --no-deps -e .
	touch $@

env: $(STAMP)

assets: $(STAMP)
	$(BIN)/python scripts/fetch_web_assets.py

# compile the numba kernels once before several processes need them (scripts/warm_kernels.py)
warm: env
	$(BIN)/python scripts/warm_kernels.py

book: env assets warm
	rm -rf _build/html _build/.doctrees _build/jupyter_execute
	$(BIN)/python scripts/build_book.py . --all $(JB_FLAGS)
	$(BIN)/python scripts/handouts.py
	@echo "The book is in $(CURDIR)/_build/html/index.html, its PDF edition and hand-outs in _build/html/handouts/"

book-cached: env assets
	sed -e 's/execute_notebooks: force/execute_notebooks: cache/' -e 's|: book/_ext$$|: ../book/_ext|' _config.yml > _build/_config_cached.yml
	$(BIN)/python scripts/build_book.py . $(JB_FLAGS) --config _build/_config_cached.yml
	$(BIN)/python scripts/handouts.py
	@echo "The book is in $(CURDIR)/_build/html/index.html, its PDF edition and hand-outs in _build/html/handouts/"

# LOW: a prefix for the lanes off the critical path (make test passes `nice -n 10`)
LOW ?=
lint: env
	$(LOW) $(BIN)/ruff check .
	$(LOW) $(BIN)/ruff format --check .
	$(LOW) $(BIN)/python scripts/lint_length.py lib
	$(LOW) $(BIN)/python scripts/lint_notebooks.py $(NOTEBOOKS)
	$(LOW) $(BIN)/mypy

# the venv of the live Binder tests (tests/test_binder.py), built from environment.yml unless up to date
binder-env: env
	$(LOW) $(BIN)/python scripts/binder_env.py

# Three lanes share the two cores: lint; the tests that need no book; the book build (Sphinx reads the pages in two
# processes, so the trade-off chapter runs beside the others: scripts/build_book.py) with the
# Binder venv beside it (four job slots: with three, the Binder venv's install took the third and the book waited
# for it), then the site and live tests. The other two lanes and the Binder venv run under `nice`, but where the
# kernel has autogroups (sched_autogroup_enabled=1) each notebook kernel is a scheduling group of its own (Jupyter
# starts it in a new session), so nice ranks them only against the book's Sphinx process: measured on a clean run,
# the two kernels got about 137 % of the two cores and the tests about 60 %. The cores are busy from the book's start
# to the end, so the total work, not this order, decides when make test ends. The site and live tests start as soon as the book is built, in two
# workers spread test by test except the live JupyterLab tests, which share one server (tests/conftest.py:
# TestByTestScheduling). Four site workers were slower on 2 cores (18.7 min against about 15).
SITE_WORKERS ?= 2
test: env
	@test -x /usr/bin/chromium || { echo "The site tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)"; exit 1; }
	$(MAKE) -j4 --output-sync=target LOW="nice -n 10" lint test-unbuilt test-site

# the site and live tests (Chromium, live JupyterLab) on a freshly built book
test-site: book binder-env
	$(BIN)/python -m pytest -n $(SITE_WORKERS) --dist loadscope --durations=30 -m "site or live"

# every test that needs no built book (library, command line, notebooks' pairing, report in Chromium)
# (two workers, a test file each: a file's module fixtures are computed once)
test-unbuilt: env assets warm
	$(LOW) $(BIN)/python -m pytest -n 2 --dist loadfile --durations=40 -m "not site and not live"

# the command-line audit of every table of data/corpus/, some twice (a few minutes on 2 cores; make test runs it too)
test-corpus: env
	$(BIN)/python -m pytest --durations=10 tests/test_corpus.py

test-fast: env
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not site and not live and not browser and not slow"

sync: env
	$(BIN)/jupytext --sync $(NOTEBOOKS)

lock:
	$(PYTHON) scripts/lock.py requirements.in requirements.txt
	$(PYTHON) scripts/lock.py requirements-binder.in requirements-binder.txt

bench: env
	$(BIN)/python bench/run_all.py

clean:
	rm -rf _build web_assets .benchvote-cache
