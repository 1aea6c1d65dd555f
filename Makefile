# Two commands: `make run` serves the site, `make test` checks it.
# Both create the virtual environment in .venv on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: run test lint migrate bench clean messages

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $@

migrate: $(STAMP)
	$(BIN)/python -m app.manage migrate

# X-Forwarded-For and X-Forwarded-Proto are trusted only when FORWARDED_ALLOW_IPS names
# the proxy's address(es) (make run FORWARDED_ALLOW_IPS=127.0.0.1 behind a local proxy).
# Unset, no header is trusted: uvicorn would otherwise trust them from 127.0.0.1, and any
# local program could choose the address its rate limits are counted under.
PROXY_FLAGS = $(if $(FORWARDED_ALLOW_IPS),--proxy-headers --forwarded-allow-ips '$(FORWARDED_ALLOW_IPS)',--no-proxy-headers)

run: migrate
	@echo "Tablero is at http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	$(BIN)/uvicorn --factory app.main:create_app --host $(HOST) --port $(PORT) $(PROXY_FLAGS) --timeout-graceful-shutdown 5 \
		--timeout-keep-alive 75 --limit-concurrency 1000 --backlog 128 --http app.slow_clients:GuardedH11Protocol

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# Re-extract translatable texts and list those the Spanish catalogue lacks (add them by
# hand at the end of app/translations/es.po; pybabel update would drop the data files' texts).
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k _ -k N_ --no-location --omit-header -o /tmp/tablero.pot .
	$(BIN)/python -m app.manage messages /tmp/tablero.pot
