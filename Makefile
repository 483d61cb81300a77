# gpucost: two commands on a fresh machine (Python 3.11 and make).
#   make run    install, migrate and seed an SQLite database, serve on $(HOST):$(PORT)
#   make test   install and run the whole test suite (make test-fast: unit + API tests only)
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
export GPUCOST_DATABASE_URL ?= sqlite:///./gpucost.db

.PHONY: install db run test test-fast test-busy contract lint openapi lock bench bench-slack bench-compare bench-flood bench-propagation bench-ask clean check docs

$(BIN)/.installed: requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

install: $(BIN)/.installed

db: install
	$(BIN)/gpucost migrate
	$(BIN)/gpucost seed

run: db
	$(BIN)/gpucost serve --host $(HOST) --port $(PORT)

test: install
	$(BIN)/pytest --junitxml=reports/pytest.xml

# The edit-test loop: unit and in-process API tests on SQLite, in two processes (~26 s here).
test-fast: install
	$(BIN)/pytest -q -n 2 -p no:cacheprovider tests/unit tests/api

# The system tests (real servers, floods, faults) with two CPU-bound processes beside them:
# the suite must hold on a busy machine (.ci/run runs it once, before `make test`).
test-busy: install
	bash scripts/with_cpu_load.sh 2 $(BIN)/pytest -q -p no:cacheprovider tests/system

contract: install
	bash scripts/contract_ci.sh

openapi: install
	$(BIN)/python scripts/export_openapi.py

# The documentation site (mkdocs-material, mkdocs.yml): fails on a broken link or anchor.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lock: install
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 -c requirements.lock -o requirements.runtime.lock

bench: install
	bash scripts/ensure_wrk.sh
	$(BIN)/python scripts/bench.py

bench-slack: install
	$(BIN)/python scripts/bench_slack.py

bench-compare: install
	$(BIN)/python scripts/bench_compare.py

bench-flood: install
	$(BIN)/python scripts/bench_flood.py

bench-propagation: install
	$(BIN)/python scripts/bench_propagation.py

bench-ask: install
	$(BIN)/python scripts/bench_ask.py

lint: install
	$(BIN)/ruff check app tests scripts
	$(BIN)/hadolint Dockerfile

# What CI checks before any test: lint, formatting, strict types, the layers contract
# (import-linter, [tool.importlinter] in pyproject.toml), the Dockerfile.
check: install
	$(BIN)/ruff check app tests scripts migrations
	$(BIN)/ruff format --check app tests scripts migrations
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/hadolint Dockerfile

clean:
	rm -rf $(VENV) gpucost.db gpucost.db-wal gpucost.db-shm .pytest_cache site
