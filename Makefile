# Two commands for a newcomer: `make run` and `make test`. Each creates .venv and installs
# what it needs from pyproject.toml (pinned versions) before doing its job.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: run test test-slow bench clean system-deps

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The daemon on the simulated board plays the bundled sample game at 4x (the terminal shows what
# the OLED would: moves, clocks, flags); the transcript is left in .state/games/.
SPEED ?= 4
run: $(VENV)/.installed
	$(BIN)/damiera run --simulate --trace pi/samples/italian_sample.jsonl --speed $(SPEED) \
		--state-dir .state --quiet

# Debian packages the tests use for real: systemd-analyze (the unit's checks), chromium (the
# pages in a real browser, tests/web/test_pages.py).
SYSTEM_DEPS = systemd-analyze:systemd chromium:chromium

system-deps:
	@for dep in $(SYSTEM_DEPS); do \
		command -v $${dep%%:*} >/dev/null 2>&1 || missing="$$missing $${dep#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

test: $(VENV)/.installed system-deps
	$(BIN)/python -m pytest

test-slow: $(VENV)/.installed
	$(BIN)/python -m pytest -m slow

bench: $(VENV)/.installed
	$(BIN)/damiera bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
