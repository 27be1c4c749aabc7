VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint typecheck demo bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check store lambdas tests bench
	$(VENV)/bin/ruff format --check store lambdas tests bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: lint typecheck
	$(PY) -m pytest

demo: $(STAMP)
	$(PY) -m langgraph.store.dynamodb.demo

bench: $(STAMP)
	$(PY) -m bench.request_counts
	$(PY) -m bench.bench_search_vectors

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
