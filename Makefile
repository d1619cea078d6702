# Asteroid Mining — developer commands.
#
#   make play    set up (if needed), build the browser client and play: the server starts and the browser
#                opens on a new hot-seat game (PORT=8000 by default; the address is printed without a browser)
#   make cluster the same on a throwaway cluster: PostgreSQL, Redis, three server nodes and HAProxy on PORT
#                (Debian's postgresql, redis-server and haproxy; docs/deploy.md)
#   make web     build the browser client (npm ci when package-lock.json changed, a build when web/ changed)
#   make test    set up (if needed), build the browser client, run the checks (make lint), the TypeScript unit
#                tests and every pytest (then the engine's tests once more on the pure engine: make test-pure)
#   make compiled  compile the rules engine and the bots' search with mypyc, and the batched environment's C loop
#                (rl/_batch.c) (run by setup; without a C compiler the pure modules and the numpy path run)
#   make lint    ruff check, mypy (strict: the package and the tests), tsc --noEmit on the browser client
#   make protocol  write web/src/protocol.ts (the protocol's TypeScript types), web/src/generated/actions.ts (the
#                  client's action slots and keys) and web/src/generated/protocol.schema.json from the server's schemas
#   make bench   run every benchmarks/bench_*.py
#   make fuzz    the protocol fuzzer's long profile: random examples for FUZZ_MINUTES (30) minutes, then its counts
#   make soak    a real server, 200 games, bots and misbehaving clients, kill -9 every minute (SOAK_MINUTES=10)
#   make clean   remove caches and build output (make distclean also removes .venv)
#
# Setting up is idempotent: the virtualenv is created only when it is missing or broken, and pip runs only when
# pyproject.toml's content changed since the last install of that set (its checksum is kept in a stamp file inside
# .venv, one per set). There are two sets: `make play` installs the game's own packages and mypy (which compiles
# the engine: the `compile` extra), nothing else; `make test`, `make lint` and the other developer commands
# (`make setup`) install the dev tools too (the `dev` extra: pytest, Playwright, Ray, ruff...).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VENV   := .venv
PY     := $(VENV)/bin/python
# The two install sets (pyproject.toml's extras) and their stamps: what playing needs, and that plus the dev tools.
PLAY_EXTRAS := compile
DEV_EXTRAS  := compile,dev
PLAY_STAMP  := $(VENV)/.installed-play
DEV_STAMP   := $(VENV)/.installed-dev
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
PYTEST_ARGS ?=
PORT   ?= 8000
FUZZ_MINUTES ?= 30
SOAK_MINUTES ?= 10

# The browser client: web/ (TypeScript, PixiJS, esbuild) is built into the server's static folder.
WEB         := web
STATIC      := src/asteroid_mining/server/static
NPM_STAMP   := $(WEB)/node_modules/.installed
WEB_STAMP   := $(STATIC)/.built
# `make web` type-checks the client before bundling it (tsc); `make play` does not wait for that (WEB_TYPECHECK=no)
WEB_TYPECHECK ?= yes
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/static -type f 2>/dev/null) $(WEB)/build.mjs $(WEB)/tsconfig.json

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1

# The code compiled by mypyc: extension modules beside the sources, remade when a source changes (each package
# checks a hash of every source and runs the pure modules while its build is stale). What each build compiles is
# listed in one build file, tools/builds.toml: the rules engine, the bots' search in ai/, the generator's walks in
# maps/. Any source of those packages may be one (the script compiles only what changed among those listed).
BUILD_FILE    := tools/builds.toml
RULES         := src/asteroid_mining/rules
ENGINE_STAMP  := $(RULES)/_compiled.json
RULES_SOURCES := $(shell find $(RULES) -name '*.py')
AI            := src/asteroid_mining/ai
AI_STAMP      := $(AI)/_compiled.json
AI_SOURCES    := $(wildcard $(AI)/*.py)
MAPS          := src/asteroid_mining/maps
MAPS_STAMP    := $(MAPS)/_compiled.json
MAPS_SOURCES  := $(wildcard $(MAPS)/*.py)
# the batched environment's C loop (plain C, no mypyc), built by the same script, recorded in rl/_native.json
NATIVE_SOURCE := $(wildcard src/asteroid_mining/rl/_batch.c)
# Tests that run once more against the pure modules (ASTEROID_MINING_ENGINE=pure), so that both builds are tested.
PURE_TESTS    := tests/rules tests/script tests/ai/test_rl.py tests/ai/test_rl_vector.py tests/ai/test_planner.py \
                 tests/ai/test_planner_pinned.py tests/ai/test_planner_gates.py tests/ai/test_observation.py \
                 tests/ai/test_compiled_ai.py tests/ai/test_search.py tests/ai/test_playout.py tests/ai/test_random_bot.py \
                 tests/maps/test_walks.py tests/maps/test_generator_pinned.py tests/maps/test_generator_draws.py \
                 tests/test_collector.py tests/test_texts.py

.PHONY: help setup setup-play compiled web test test-pure lint protocol bench play cluster clean distclean fuzz soak

help:
	@echo "make play    - set up, build the browser client, start the server and open the game (PORT=8000)"
	@echo "make cluster - the same on a throwaway cluster: PostgreSQL, Redis, 3 nodes, HAProxy on PORT"
	@echo "make web     - build the browser client (web/ into $(STATIC))"
	@echo "make test    - set up and run all tests"
	@echo "make compiled - compile the rules engine and the bots' search with mypyc (part of setup)"
	@echo "make lint    - ruff check, mypy (strict) and tsc --noEmit"
	@echo "make protocol - write web/src/protocol.ts, web/src/generated/ (actions, JSON Schema) from the server's schemas"
	@echo "make bench   - run the benchmarks"
	@echo "make fuzz    - the protocol fuzzer's long profile (FUZZ_MINUTES=30)"
	@echo "make soak    - the soak test against a real server (SOAK_MINUTES=10)"
	@echo "make clean   - remove caches and build output (distclean: also .venv)"

# A venv whose interpreter no longer runs (moved, or its Python removed) is rebuilt whatever the stamps say.
# `setup` (tests, lint, CI) installs the dev tools too and waits for the compiled engine; `setup-play` installs
# what playing needs, and `make play` compiles the engine meanwhile (tools/compile_engine.py --background).
setup:
	@$(PY) -c '' >/dev/null 2>&1 || rm -f $(PLAY_STAMP) $(DEV_STAMP)
	@$(MAKE) --no-print-directory -s $(DEV_STAMP)
	@$(MAKE) --no-print-directory -s compiled

setup-play:
	@$(PY) -c '' >/dev/null 2>&1 || rm -f $(PLAY_STAMP) $(DEV_STAMP)
	@$(MAKE) --no-print-directory -s $(PLAY_STAMP)

# Without a C compiler (or Python's headers) the script says so and the pure engine is used.
compiled: $(ENGINE_STAMP) $(AI_STAMP) $(MAPS_STAMP)

$(ENGINE_STAMP) $(AI_STAMP) $(MAPS_STAMP) &: $(RULES_SOURCES) $(AI_SOURCES) $(MAPS_SOURCES) $(NATIVE_SOURCE) $(BUILD_FILE) tools/compile_engine.py $(PLAY_STAMP)
	@$(PY) tools/compile_engine.py

# Creates the virtualenv when it has no Python 3.11 (or newer) that runs.
define MAKE_VENV
	@if ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then \
		if [ -z "$(PYTHON)" ]; then echo "error: python3.11 or python3 is needed to set up" >&2; exit 1; fi; \
		echo "creating $(VENV) with $(PYTHON)"; \
		rm -rf $(VENV); \
		$(PYTHON) -m venv $(VENV); \
	fi
endef

# $(call INSTALL,extras,what is installed,about how long,the stamps written,a program the set installs): installs
# the project editable with `extras` unless the stamp records pyproject.toml's current checksum (and the program
# is there), saying what it does, about how long it takes on an idle machine (README) and how long it took.
define INSTALL
	@sum=$$(sha256sum pyproject.toml | cut -d' ' -f1); \
	if [ -f $@ ] && [ "$$(cat $@)" = "$$sum" ] && [ -x $(VENV)/bin/$(5) ]; then \
		touch $@; \
	else \
		start=$$SECONDS; \
		echo "installing $(2) into $(VENV) (about $(3) on an idle machine)..."; \
		$(PY) -m pip install --quiet -e '.[$(1)]' </dev/null; \
		for stamp in $(4); do echo "$$sum" > $$stamp; done; \
		echo "  installed in $$((SECONDS - start)) s"; \
	fi
endef

# A stamp is remade when pyproject.toml is newer than it; the recipe then compares checksums so that a
# touched-but-unchanged pyproject.toml (a fresh checkout, a branch switch) does not reinstall. The dev set holds
# the play set, so installing it stamps both.
$(PLAY_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(call INSTALL,$(PLAY_EXTRAS),the game's packages,30 s,$(PLAY_STAMP),asteroid-mining)

$(DEV_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(call INSTALL,$(DEV_EXTRAS),the game and its dev tools,2 minutes,$(DEV_STAMP) $(PLAY_STAMP),pytest)

# npm ci runs only when the lock file (or package.json) is newer than the last install; the build only when a
# source of the client is newer than the last build.
web: $(WEB_STAMP)

$(NPM_STAMP): $(WEB)/package-lock.json $(WEB)/package.json
	@command -v npm >/dev/null 2>&1 || { echo "error: Node.js (20 or newer) and npm are needed to build the browser client" >&2; exit 1; }
	@start=$$SECONDS; echo "installing the browser client's npm packages (npm ci, about 10 s on an idle machine)..."; \
	(cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error); \
	echo "  installed in $$((SECONDS - start)) s"
	@touch $@

$(WEB_STAMP): $(NPM_STAMP) $(WEB_SOURCES)
	@start=$$SECONDS; echo "building the browser client into $(STATIC) (about 5 s on an idle machine)..."; \
	(cd $(WEB) && if [ "$(WEB_TYPECHECK)" != no ]; then npm run --silent typecheck; fi && npm run --silent build); \
	echo "  built in $$((SECONDS - start)) s"
	@touch $@

test: setup web lint
	cd $(WEB) && npm run --silent test
	$(VENV)/bin/pytest -q $(PYTEST_ARGS)
	@$(MAKE) --no-print-directory test-pure

# The engine's tests once more on the pure modules (the run above used the compiled ones when built).
test-pure: setup
	ASTEROID_MINING_ENGINE=pure $(VENV)/bin/pytest -q $(PYTEST_ARGS) $(PURE_TESTS)

lint: setup $(NPM_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	cd $(WEB) && npm run --silent typecheck

# The protocol's TypeScript types, the client's action table and the JSON Schema, generated from the server's
# pydantic models and the engine's action specs (tests/server/test_protocol.py fails when a committed one is stale).
protocol: setup $(NPM_STAMP)
	$(PY) -m asteroid_mining.server.protocol | (cd $(WEB) && node protocol.mjs)

bench: setup
	@shopt -s nullglob; files=(benchmarks/bench_*.py); \
	if [ $${#files[@]} -eq 0 ]; then echo "no benchmarks yet (benchmarks/bench_*.py)"; exit 0; fi; \
	for f in "$${files[@]}"; do echo "== $$f"; $(PY) "$$f"; done

# The fuzzer's long profile: rounds of tests/fuzz with fresh random seeds until the time is up; every round's
# examples and failures are added up at the end (a failure prints its example, and the exit status is 1).
fuzz: setup
	@end=$$(( $$(date +%s) + 60 * $(FUZZ_MINUTES) )); counts=$$(mktemp); failed=0; \
	while [ $$(date +%s) -lt $$end ]; do \
		FUZZ_PROFILE=long FUZZ_COUNTS=$$counts $(VENV)/bin/pytest -q -p no:cacheprovider tests/fuzz || failed=1; \
	done; \
	awk '{e += $$1; f += $$2} END {printf "fuzz: %d rounds, %d examples, %d failing tests\n", NR, e, f}' $$counts; \
	rm -f $$counts; exit $$failed

soak: setup
	$(PY) -m tests.soak --minutes $(SOAK_MINUTES)

# The game starts as soon as its packages and the browser client are there: the Python packages and the npm ones
# are installed at the same time; when the compiled engine is missing or stale, it is compiled in the background
# (at a lower priority) while the game runs on the pure engine, and the next start runs the compiled one; the
# client is bundled without its type check (make lint and make test run it). README: Play and test.
play:
	@$(MAKE) --no-print-directory -s -j2 setup-play $(NPM_STAMP)
	@$(PY) tools/compile_engine.py --background
	@$(MAKE) --no-print-directory -s web WEB_TYPECHECK=no
	@echo "starting the game server on port $(PORT)..."
	@$(VENV)/bin/asteroid-mining serve --port $(PORT) --open

cluster: setup web
	$(PY) tools/cluster.py --port $(PORT) --open

clean:
	$(PY) tools/compile_engine.py --clean 2>/dev/null || { find $(RULES) $(AI) $(MAPS) -name '*.so' -delete; rm -f $(ENGINE_STAMP) $(AI_STAMP) $(MAPS_STAMP); }
	rm -rf build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis src/*.egg-info $(STATIC)
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -print0 | xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV) $(WEB)/node_modules
