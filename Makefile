# Two commands for a newcomer: `make run` and `make test`. Each creates .venv and installs
# what it needs from pyproject.toml (pinned versions) before doing its job.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: run test test-slow bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/damiera pdn pi/samples/italian_sample.pdn

test: $(VENV)/.installed
	$(BIN)/python -m pytest

test-slow: $(VENV)/.installed
	$(BIN)/python -m pytest -m slow

bench: $(VENV)/.installed
	$(BIN)/damiera bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
