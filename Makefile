# bandit-budget-study: every output is a real file target under out/, rebuilt only when its config
# or the code it depends on changes. `make help` lists the targets.

PYTHON ?= python3.11
# Two targets at a time: studies' simulations and analyses overlap, so `make all` keeps both
# cores busy (measured: 24 min against 28.5 one target at a time, from empty caches; the runs,
# tables and report byte for byte the same).
MAKEFLAGS += --jobs=2
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# numba's compiled kernels go to the per-user cache (study/core/jit.py), not beside the code.

# `make all SEEDS=200` runs every study with 200 seeds into out/seeds-200/, for a fast look.
SEEDS ?=
OUT := out$(if $(SEEDS),/seeds-$(SEEDS))
SEEDS_FLAG := $(if $(SEEDS),--seeds $(SEEDS))
# `make all BACKEND=dask` computes shards on a dask LocalCluster; add SCHEDULER=tcp://HOST:PORT
# to use a running cluster instead.
BACKEND ?= local
SCHEDULER ?=
BACKEND_FLAGS := --backend $(BACKEND) $(if $(SCHEDULER),--scheduler $(SCHEDULER))

CONFIGS := $(wildcard study/configs/*.toml)
STUDIES := $(patsubst study/configs/%.toml,%,$(CONFIGS))
STUDY_RUNS := $(STUDIES:%=$(OUT)/%/runs.parquet)
STUDY_TABLES := $(STUDIES:%=$(OUT)/tables/%/index.json)
STUDY_STAMPS := $(STUDIES:%=$(OUT)/%/simulation.json)
# Kept: a stamp make deleted as an intermediate file would be written again, newer than the runs.
.SECONDARY: $(STUDY_STAMPS)
# The simulation's code (the entry points in bandit_study/ only call it, so changing them re-runs
# nothing).
SIMULATION_CODE := $(wildcard study/*.py study/*/*.py)
ANALYSIS_CODE := $(wildcard analysis/*.py analysis/*/*.py analysis/*/*/*.py)
# With the sections that follow from a study's tables and their templates (figures/sections/,
# figures/templates/), which the figures, the report and the paper all read.
FIGURE_CODE := $(filter-out figures/report.py figures/paper.py,$(wildcard figures/*.py)) \
	$(wildcard figures/*/*.py figures/templates/*)
PAPER_SOURCES := $(wildcard figures/typst/*)

.DEFAULT_GOAL := help
.PHONY: help all runs report paper quick sutton-barto test test-fast lint docs bench clean distclean venv lock

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

# The exact versions of requirements.lock, then the package itself without resolving again.
$(INSTALLED): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

venv: $(INSTALLED) ## create .venv and install the exact versions of requirements.lock

# Pins kept where pyproject.toml still allows them; `make lock UPGRADE=1` takes the newest releases.
UPGRADE ?=
lock: $(INSTALLED) ## write requirements.lock again from pyproject.toml (uv pip compile)
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		--quiet --no-header $(if $(UPGRADE),--upgrade) --output-file requirements.lock

# A study's runs depend on the simulation its config describes, not on the TOML: the stamp holds
# the config without its [analysis] table and is rewritten only when that changes, so editing a
# margin or the compared budgets re-runs the analysis and nothing before it.
$(OUT)/%/simulation.json: study/configs/%.toml $(SIMULATION_CODE) $(INSTALLED)
	$(PY) -m bandit_study stamp $< --out $@ $(SEEDS_FLAG)

$(OUT)/%/runs.parquet: $(OUT)/%/simulation.json $(SIMULATION_CODE) $(INSTALLED)
	$(PY) -m bandit_study run study/configs/$*.toml --out $(OUT)/$* --cache $(OUT)/cache/$* \
		$(SEEDS_FLAG) $(BACKEND_FLAGS)

$(OUT)/tables/%/index.json: $(OUT)/%/runs.parquet study/configs/%.toml $(ANALYSIS_CODE)
	$(PY) -m analysis $(OUT)/$* --config study/configs/$*.toml --out $(OUT)/tables/$*

$(OUT)/figures/index.json: $(STUDY_TABLES) $(FIGURE_CODE)
	$(PY) -m figures $(OUT)/tables --out $(OUT)/figures

$(OUT)/report.md: $(OUT)/figures/index.json $(STUDY_TABLES) figures/report.py figures/cite.py
	$(PY) -m figures.report --tables $(OUT)/tables --figures $(OUT)/figures --runs $(OUT) --out $@

$(OUT)/paper.pdf: $(OUT)/report.md $(PAPER_SOURCES) figures/paper.py figures/cite.py
	$(PY) -m figures.paper --tables $(OUT)/tables --figures $(OUT)/figures --runs $(OUT) --out $@

all: $(OUT)/report.md $(OUT)/paper.pdf ## regenerate every output: runs, tables, figures, report.md, numbers.tex, paper.pdf

runs: $(STUDY_RUNS) ## simulate every study in study/configs/ (one folder per config)

report: $(OUT)/report.md ## the report (and everything it needs)

paper: $(OUT)/paper.pdf ## the write-up, typeset by Typst from figures/typst/ (and everything it needs)

quick: $(OUT)/quick/runs.parquet ## the seed exercise: accuracy at 50/200/1000/5000 rollouts, 40 seeds
	@$(PY) -m bandit_study summarize $(OUT)/quick

TEXTBOOK := sutton_barto_fig2_5
$(OUT)/figures/$(TEXTBOOK)_book_layout.png: $(OUT)/tables/$(TEXTBOOK)/index.json $(FIGURE_CODE)
	$(PY) -m figures.curves $(OUT)/tables/$(TEXTBOOK) --out $(OUT)/figures

sutton-barto: $(OUT)/figures/$(TEXTBOOK)_book_layout.png ## the textbook check: Sutton and Barto's Figure 2.5, reproduced
	@echo "$(OUT)/figures/$(TEXTBOOK)_book_layout.png and .pdf; the curves at steps 1 to 1000:"
	@cat $(OUT)/tables/$(TEXTBOOK)/curve_points.md

# Two pytest workers, one per core of these machines; a test file runs whole on one worker, so a
# module's fixture (the whole pipeline of test_report.py) is built once.
TEST_WORKERS ?= 2
test: $(INSTALLED) ## run the test suite (pytest with hypothesis), the slow tests included
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

test-fast: $(INSTALLED) ## the test suite without the tests marked slow
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not slow"

lint: $(INSTALLED) ## ruff, and import-linter's layer contracts (pyproject.toml)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

# mkdocs.yml: the pages of docs/ and the API's docstrings (mkdocstrings), built strictly (a
# warning, a broken link or anchor, fails it) into out/site/ only. NO_MKDOCS_2_WARNING quiets
# the banner Material for MkDocs prints at every build.
docs: $(INSTALLED) ## the documentation site, into out/site/ (mkdocs build --strict)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

clean: ## remove every generated file (out/)
	rm -rf out

distclean: clean ## also remove the virtual environment
	rm -rf $(VENV)

bench: $(INSTALLED) ## benchmark the kernel against its references (out/bench/bench.md); BENCH_BASE=<revision> adds a row per commit since it
	$(PY) -m benchmarks.run
