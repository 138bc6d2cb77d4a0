# Two commands for a newcomer: `make run` and `make test` (`make test-slow`: the long tests). Each
# creates .venv and installs what it needs from pyproject.toml (pinned versions) first: `make run`
# the daemon's own dependencies (stamp .installed-run), `make test` the test tools as well
# (stamp .installed, which counts for `make run` too).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: run sample hall test test-slow test-pi bench clean system-deps catalogs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

# The main job: the daemon on the simulated board, its pages served on http://127.0.0.1:8080/
# (HTTP=HOST:PORT for another address; the address is printed; play on /simulator; Ctrl-C stops
# it), with a clock: TIME_CONTROL, a PDN TimeControl (default 3600: an hour each; 300+3 a blitz,
# 3600:1/30 then mosse lampo, '-' none). Its game is kept in .state/games/ and resumed by the next
# `make run` (the simulated board keeps its pieces where they stood). `make sample` plays the
# bundled sample game by itself at 4x (SPEED=max: as fast as possible), the terminal showing what
# the OLED would, in a state directory of its own (SAMPLE_STATE, .sample): never in the game
# `make run` left. CONFIG: a damiera.toml for both (e.g. `language = "it"`: the OLED and the
# terminal in Italian; [speech]: the board's voice, docs/speech.md).
SPEED ?= 4
TIME_CONTROL ?= 3600
CONFIG ?=
HTTP ?=
SAMPLE_STATE ?= .sample
run: $(VENV)/.installed-run
	$(BIN)/damiera run --simulate --state-dir .state --time-control '$(TIME_CONTROL)' --quiet \
		$(if $(HTTP),--http '$(HTTP)') $(if $(CONFIG),--config '$(CONFIG)')

sample: $(VENV)/.installed-run
	$(BIN)/damiera run --simulate --trace pi/samples/italian_sample.jsonl --speed $(SPEED) \
		--state-dir '$(SAMPLE_STATE)' --quiet $(if $(HTTP),--http '$(HTTP)') \
		$(if $(CONFIG),--config '$(CONFIG)')

# A hall on this PC: `damiera hub demo` makes it in .hall/ with `hub init`, starts Mosquitto on
# .hall/mosquitto.conf as docs/organiser.md says, the hub (the hall page on HTTP, default
# 127.0.0.1:8090) and BOARDS simulated boards playing at SPEED; Ctrl-C stops them all. The
# broker's port: BROKER_PORT for a new hall (default 8883, or a free one); its port taken by
# another program stops it in one line. Needs Debian's mosquitto and openssl (`make system-deps`).
BOARDS ?= 8
BROKER_PORT ?=
hall: $(VENV)/.installed
	$(BIN)/damiera hub demo --boards $(BOARDS) --dir .hall --http $(or $(HTTP),127.0.0.1:8090) \
		--speed $(SPEED) $(if $(BROKER_PORT),--broker-port $(BROKER_PORT))

# Debian packages the tests use for real: systemd-analyze (the unit's checks), chromium (the
# pages in a real browser, tests/web/test_pages.py), mosquitto (the hall's broker, tests/hall/),
# openssl (the hall's TLS certificates, tests/hall/test_hub_init.py), espeak-ng (the board's voice,
# tests/pi/test_speech*.py), nginx and its nchan module (the spectators' nginx in front of the hub,
# tests/hall/test_hall_nginx.py; a module is named by its file).
SYSTEM_DEPS = systemd-analyze:systemd chromium:chromium mosquitto:mosquitto openssl:openssl \
	espeak-ng:espeak-ng nginx:nginx \
	/usr/lib/nginx/modules/ngx_nchan_module.so:libnginx-mod-nchan

# Installed as root; another apt process's lock is waited for (APT_LOCK_WAIT s, default 120);
# not root or no network: said in plain words (.ci/system-deps).
system-deps:
	@.ci/system-deps $(SYSTEM_DEPS)

# The suite on every core (pytest-xdist), one test file per worker at a time (--dist loadfile:
# a file's tests share its module-level rigs); servers take free ports and files live in each
# test's own temporary directory, so the files run side by side. The 15 slowest are printed.
# `make test-slow`: the deep perft, the hall soak, … (pyproject.toml deselects them otherwise);
# the modules marked heavy run first (tests/conftest.py). Two workers per core (TEST_WORKERS):
# much of a test's time is spent waiting (a daemon's or a broker's start, a browser, a
# reconnect's timer), which another worker fills; here (2 cores, quiet) about 175 s, against
# 293 s with one per core before the suite's fixed waits became waits for conditions
# (docs/developer.md "Tests and CI"). The suite's waits give 30 s to what takes well under one.
# Many tests run `damiera`, the hub and the benchmarks as subprocesses: with PYTHONDONTWRITEBYTECODE
# set (some shells and sandboxes do) each of them compiled the package again, and pytest rewrote
# every test module's asserts in each worker; unset here, they are compiled once into the
# checkout's __pycache__ (ignored by git).
# `make test-slow` keeps one worker per core (SLOW_WORKERS): its tests measure CPU and load.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))
SLOW_WORKERS ?= auto
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest --dist loadfile --durations=15

test: $(VENV)/.installed system-deps
	$(PYTEST) -n $(TEST_WORKERS)

# `make test-slow` also boots a Debian trixie container with systemd as PID 1 and installs the
# board and the hub in it as the guides say (tests/system/test_container.py): debootstrap makes
# its root once (cached in /var/cache/damiera-tests/), systemd-nspawn boots it.
SLOW_DEPS = debootstrap:debootstrap systemd-nspawn:systemd-container

test-slow: $(VENV)/.installed
	@.ci/system-deps $(SYSTEM_DEPS) $(SLOW_DEPS)
	$(PYTEST) -n $(SLOW_WORKERS) -m slow

# The step before a release (docs/developer.md): install-pi.sh verbatim on a Debian trixie
# arm64 root under qemu-user, then the sample game played by the installed command
# (tests/system/test_pi_arm64.py, ~20 min; its figures printed). qemu-user-static runs the
# root's binaries through binfmt_misc (binfmt-support registers them).
PI_DEPS = debootstrap:debootstrap qemu-aarch64-static:qemu-user-static \
	update-binfmts:binfmt-support

test-pi: $(VENV)/.installed
	@.ci/system-deps $(PI_DEPS)
	$(BIN)/python -m pytest -n 0 -s -m arm64 tests/system/test_pi_arm64.py

# The gettext catalogs (engine/locale/<lang>/LC_MESSAGES/damiera.po, see engine/i18n.py): Babel
# extracts every marked message (babel.cfg) into a template, merges it into each language's .po
# (new messages come in untranslated, removed ones go) and compiles the .mo beside it. Translate
# the new entries of engine/locale/it/LC_MESSAGES/damiera.po, then run it again to compile.
LOCALES = engine/locale
catalogs: | $(VENV)/.installed-run
	$(BIN)/pybabel -q extract -F babel.cfg --sort-output --no-location --omit-header \
		-o $(LOCALES)/damiera.pot .
	for lang in en it; do \
		test -f $(LOCALES)/$$lang/LC_MESSAGES/damiera.po || \
			$(BIN)/pybabel -q init -i $(LOCALES)/damiera.pot -d $(LOCALES) -D damiera -l $$lang; \
	done
	$(BIN)/pybabel -q update -i $(LOCALES)/damiera.pot -d $(LOCALES) -D damiera \
		--ignore-obsolete --no-fuzzy-matching --ignore-pot-creation-date
	$(BIN)/pybabel -q compile -d $(LOCALES) -D damiera
	rm -f $(LOCALES)/damiera.pot

bench: $(VENV)/.installed
	$(BIN)/damiera bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
