"""The search bot's evaluation: the weights file it loads, and the script that writes it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bots import search_eval
from bots.search_eval import (
    FEATURE_NAMES,
    SETUP_FEATURE_NAMES,
    SETUP_WEIGHTS,
    WEIGHTS,
    WEIGHTS_FILE,
    WEIGHTS_FORMAT,
    load_weights,
    setup_win_probabilities,
    win_probabilities,
)
from bots.search_fit import main as fit_main
from protocol.rules import Settings, new_game

SHIPPED = Path(search_eval.__file__).with_name(WEIGHTS_FILE)


def test_the_shipped_file_holds_the_weights_the_bot_uses() -> None:
    doc = json.loads(SHIPPED.read_text("utf-8"))
    assert doc["format"] == WEIGHTS_FORMAT
    win, setup = doc["models"]["win"], doc["models"]["setup"]
    assert tuple(win["weights"]) == WEIGHTS and win["features"] == list(FEATURE_NAMES)
    assert tuple(setup["weights"]) == SETUP_WEIGHTS
    assert setup["features"] == list(SETUP_FEATURE_NAMES)
    for entry in (win, setup):  # how to make it again
        assert entry["fitted_by"].startswith("python -m bots.search_fit ")
        assert f"--seed {entry['seed']}" in entry["fitted_by"]
        assert entry["heldout_log_loss"] < entry["uniform_log_loss"]


def _doc(**win: object) -> str:
    entry = {"features": list(FEATURE_NAMES), "weights": [0.5] * len(FEATURE_NAMES)}
    entry.update(win)
    return json.dumps({"format": WEIGHTS_FORMAT, "models": {"win": entry}})


@pytest.mark.parametrize(("text", "says"), [
    ("{not json", "not JSON"),
    (json.dumps([1, 2]), "not a kaitaku-search-weights/1 file"),
    (json.dumps({"format": "other/1", "models": {}}), "not a kaitaku-search-weights/1"),
    (json.dumps({"format": WEIGHTS_FORMAT, "models": {}}), "no 'win' model"),
    (json.dumps({"format": WEIGHTS_FORMAT, "models": []}), "no 'win' model"),
    (_doc(features=list(reversed(FEATURE_NAMES))), "features are not"),
    (_doc(weights=[0.5] * (len(FEATURE_NAMES) - 1)), "finite numbers"),
    (_doc(weights=[float("nan")] * len(FEATURE_NAMES)), "finite numbers"),
    (_doc(weights=["0.5"] * len(FEATURE_NAMES)), "finite numbers"),
    (_doc(weights=[True] * len(FEATURE_NAMES)), "finite numbers"),
    (_doc(weights=None), "finite numbers"),
])
def test_a_bad_weights_file_is_refused_with_the_reason(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        load_weights(text, "win", FEATURE_NAMES)


def test_a_good_weights_file_loads() -> None:
    assert load_weights(_doc(), "win", FEATURE_NAMES) == (0.5,) * len(FEATURE_NAMES)
    ints = _doc(weights=[1] * len(FEATURE_NAMES))
    assert load_weights(ints, "win", FEATURE_NAMES) == (1.0,) * len(FEATURE_NAMES)


def test_win_probabilities_are_a_distribution() -> None:
    for players in (2, 3, 4):
        s = new_game(Settings(players=players), 7)
        p = win_probabilities(s)
        assert len(p) == players and math.isclose(sum(p), 1.0)
        assert all(0.0 < x < 1.0 for x in p)


def test_the_fit_is_reproducible_from_its_seed_and_keeps_the_other_model(
        tmp_path: Path) -> None:
    """Same command, same weights file; the model it does not fit is kept."""
    files = []
    for k in range(2):
        path = tmp_path / f"w{k}.json"
        path.write_text(SHIPPED.read_text("utf-8"), "utf-8")
        assert fit_main(["--games", "6", "--seed", "3", "--file", str(path)]) == 0
        files.append(path.read_text("utf-8"))
    assert files[0] == files[1]
    doc = json.loads(files[0])
    win = doc["models"]["win"]
    assert win["fitted_by"] == "python -m bots.search_fit --games 6 --seed 3 --write"
    assert win["games"] == 6 and win["seed"] == 3 and win["positions"] > 0
    fitted = load_weights(files[0], "win", FEATURE_NAMES)
    assert fitted != WEIGHTS and all(math.isfinite(x) for x in fitted)
    assert load_weights(files[0], "setup", SETUP_FEATURE_NAMES) == SETUP_WEIGHTS
    s = new_game(Settings(players=4), 11)
    assert math.isclose(sum(setup_win_probabilities(s)), 1.0)
