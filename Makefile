# The two commands a newcomer runs: `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench bench-dask venv clean schema

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/qkv demo --out demo-out

test: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

bench-dask: $(STAMP)
	$(BIN)/python scripts/bench_dask.py

schema: $(STAMP)
	$(BIN)/python -m autograder.config > course.schema.json

clean:
	rm -rf $(VENV) demo-out bench-out dist
