# Kaitaku — the two commands: `make play` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PLAY_STAMP := $(VENV)/.installed-client

.PHONY: play test lint bench clean

# An editable install of this flat layout makes setuptools print a boxed warning
# about folders named like the package; it is about this very checkout, so it is
# not shown (UserWarning covers setuptools' own warning classes).
QUIET_BUILD := PYTHONWARNINGS=ignore::UserWarning

# Everything: the client, the league, the developer tools (`make test`, `make lint`).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(QUIET_BUILD) $(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP) $(PLAY_STAMP)

# Only what playing needs: the game and its window (the client extra).
$(PLAY_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(QUIET_BUILD) $(BIN)/python -m pip install -q -e '.[client]'
	touch $(PLAY_STAMP)

## Play a game: you against three heuristic bots in the game window (a local
## server starts by itself; `kaitaku play --terminal` watches bots in the terminal).
play: $(PLAY_STAMP)
	$(BIN)/kaitaku play

## Run the test suite (fast by default; `make test ARGS='-m slow'` for the long runs).
test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

## Style, types, and the layer contract (import-linter, configured in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check protocol bots league kaitaku server client tests docs/protocol
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/kaitaku bench engine --games 200 --players 4 --seed 1

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
