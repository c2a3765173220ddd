# The two commands a newcomer runs: `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench bench-dask schema release clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.base: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	$(BIN)/python -m compileall -q src solutions  # as pip does for an installed package
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.base
	$(BIN)/qkv demo --out demo-out

test: $(VENV)/.test
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q

lint: $(VENV)/.test
	$(BIN)/ruff check src tests scripts solutions
	$(BIN)/ruff format --check src tests scripts solutions

bench: $(VENV)/.base
	$(BIN)/python scripts/bench.py

bench-dask: $(VENV)/.test
	$(BIN)/python scripts/bench_dask.py

schema: $(VENV)/.base
	$(BIN)/python -m qkv.course.config > course.schema.json

release: $(VENV)/.base
	$(BIN)/qkv release

clean:
	rm -rf $(VENV) demo-out dist
