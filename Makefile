# bandit-budget-study: every output is a real file target under out/, rebuilt only when its config
# or the code it depends on changes. `make help` lists the targets.

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# numba's compiled-kernel cache lives with the other generated files, not beside the code.
export NUMBA_CACHE_DIR := $(CURDIR)/out/numba-cache

CONFIGS := $(wildcard study/configs/*.toml)
STUDY_RUNS := $(patsubst study/configs/%.toml,out/%/runs.parquet,$(CONFIGS))
SIMULATION_CODE := $(wildcard study/*.py)

.DEFAULT_GOAL := help
.PHONY: help all quick test lint bench clean distclean venv

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(INSTALLED) ## create .venv and install the pinned dependencies from pyproject.toml

out/%/runs.parquet: study/configs/%.toml $(SIMULATION_CODE) $(INSTALLED)
	$(PY) -m study run $< --out out/$*

all: $(STUDY_RUNS) ## regenerate every study's outputs under out/ (one folder per config)

quick: out/quick/runs.parquet ## the seed exercise: accuracy at 50/200/1000/5000 rollouts, 40 seeds
	@$(PY) -m study summarize out/quick

test: $(INSTALLED) ## run the test suite (pytest with hypothesis)
	$(PY) -m pytest

lint: $(INSTALLED) ## ruff
	$(PY) -m ruff check .

clean: ## remove every generated file (out/)
	rm -rf out

distclean: clean ## also remove the virtual environment
	rm -rf $(VENV)

bench: $(INSTALLED) ## benchmark the kernel against its references (out/bench/bench.md)
	$(PY) -m benchmarks.run
