"""The Hard bot: its learned model (view-only encoding, a checked weights file),
the self-play and training pipeline (resumable, reproducible), and the bot
(legal, blind to hidden facts, within its budget, refusing to help a leader)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bots import BUILTIN_BOTS, HardBot, HeuristicBot, make_bot, play_game
from bots.base import Bot
from bots.hard_model import (
    FEATURE_NAMES,
    WEIGHTS_FILE,
    encode,
    load_model,
    parse_model,
)
from bots.hard_train import load_data, play_chunk
from bots.hard_train import main as train_main
from protocol.rules import (
    AcceptTrade,
    GameState,
    OfferTrade,
    RejectTrade,
    Settings,
    apply,
    legal_actions,
    observe,
    sample_state,
)

from .conftest import FakeClock, heuristic_game_until


def _hard(seed: int, iterations: int = 2, **kw: object) -> HardBot:
    bot = HardBot(None, seed, iterations=iterations, top_k=3, **kw)  # type: ignore[arg-type]
    bot.raise_errors = True
    return bot


def _midgame(seed: int, players: int = 4, turn: int = 20) -> tuple[GameState, int]:
    """A heuristic game played to a main phase after ``turn``."""
    return heuristic_game_until(seed, players, turn)


# --- the model ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_encoding_reads_only_what_the_seat_sees(players: int) -> None:
    """Two states with the same view for a seat (other hands, development cards,
    deck and RNG sampled differently) encode the same for that seat."""
    s, seat = _midgame(3, players)
    for me in range(players):
        view = observe(s, me)
        a = sample_state(view, 1)
        b = sample_state(view, 2)
        assert encode(a, me) == encode(b, me) == encode(s, me)
    assert len(encode(s, 0)) == players
    assert all(len(row) == len(FEATURE_NAMES) for row in encode(s, 0))


def test_the_shipped_model_loads_and_gives_a_distribution() -> None:
    model = load_model()
    s, seat = _midgame(4)
    p = model.win_probabilities(s, seat)
    assert len(p) == 4 and math.isclose(sum(p), 1.0) and all(0 < x < 1 for x in p)
    assert model.values([s, s], seat) == pytest.approx([p[seat], p[seat]])
    facts = model.facts
    assert facts["trained_by"].startswith("python -m bots.hard_train train")
    assert set(facts["heldout_log_loss"]) >= {"2", "3", "4"}
    for n, loss in facts["heldout_log_loss"].items():
        assert loss < facts["uniform_log_loss"][n]  # it learned something


def _doc() -> dict[str, object]:
    text = (Path(__file__).parents[2] / "bots" / WEIGHTS_FILE).read_text("utf-8")
    doc = json.loads(text)
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize("change, says", [
    (lambda d: d.update(format="other"), "not a kaitaku-hard-model/1 file"),
    (lambda d: d.update(features=d["features"][:-1]), "features are not"),
    (lambda d: d.update(mean=d["mean"][:-1]), "'mean' must be"),
    (lambda d: d.update(scale=[0.0] * len(d["scale"])), "'scale' must be positive"),
    (lambda d: d["layers"][0]["w"].pop(), "layer 0: 'w' must have"),
    (lambda d: d["layers"][0]["b"].__setitem__(0, "x"), "layer 0: 'b' must be"),
    (lambda d: d["layers"][-1]["b"].append(0.0), "'b' must be"),
    (lambda d: d.update(layers=[]), "'layers' must be a list of 1 to 8"),
])
def test_a_bad_weights_file_is_refused_with_the_reason(change, says) -> None:  # type: ignore[no-untyped-def]
    doc = _doc()
    change(doc)
    with pytest.raises(ValueError, match=says):
        parse_model(json.dumps(doc))
    with pytest.raises(ValueError, match="not JSON"):
        parse_model("{")
    bad = json.dumps(_doc()).replace("]]", ", NaN]]", 1)
    with pytest.raises(ValueError, match="finite numbers"):
        parse_model(bad)


def test_a_model_round_trips_through_its_file() -> None:
    model = load_model()
    again = parse_model(json.dumps(model.to_doc()))
    rows = np.asarray(encode(_midgame(5)[0], 1))
    assert np.allclose(model.probabilities(rows), again.probabilities(rows), atol=1e-6)


# --- the pipeline ------------------------------------------------------------------------


def test_self_play_runs_in_parts_and_continues(tmp_path: Path) -> None:
    out = tmp_path / "data"
    args = ["play", "--out", str(out), "--games", "2", "--chunk", "1", "--players", "3",
            "--seed", "5"]
    assert train_main(args) == 0
    files = sorted(out.glob("p3-*.npz"))
    assert [f.name for f in files] == ["p3-000000.npz", "p3-000001.npz"]
    stamp = [f.stat().st_mtime_ns for f in files]
    assert train_main([*args[:4], "3", *args[5:]]) == 0  # extends: only game 2 is new
    assert [f.stat().st_mtime_ns for f in files] == stamp
    assert (out / "p3-000002.npz").exists()
    data, digest = load_data([out])
    assert set(data) == {3} and data[3]["x"].shape[1:] == (3, len(FEATURE_NAMES))
    assert set(np.unique(data[3]["game"])) <= {0, 1, 2}
    # The same games again: the same positions.
    again = play_chunk("mixed", 3, 0, 1, 5)
    with np.load(out / "p3-000000.npz") as z:
        assert np.array_equal(z["x"], again["x"]) and np.array_equal(z["y"], again["y"])
    # Another run's games are not mixed into this directory.
    assert train_main([*args[:-1], "6"]) == 2
    shipped = Path(__file__).parents[2] / "bots" / WEIGHTS_FILE
    assert train_main(["eval", "--data", str(out), "--model", str(shipped)]) == 0


@pytest.mark.parametrize("argv", [
    ["play", "--games", "0"], ["play", "--games", "4", "--chunk", "0"],
    ["play", "--games", "4", "--first", "-1"], ["play", "--games", "4", "--iterations", "0"],
    ["train", "--epochs", "0"], ["train", "--lr", "0"], ["train", "--l2", "-1"],
    ["train", "--batch", "0"],
])
def test_training_commands_refuse_counts_out_of_range(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = ["--out", str(tmp_path / "data")] if argv[0] == "play" else [
        "--data", str(tmp_path / "data"), "--out", str(tmp_path / "w.json")]
    with pytest.raises(SystemExit) as exit_:
        train_main([argv[0], *where, *argv[1:]])
    assert exit_.value.code == 2
    assert "must be at least" in capsys.readouterr().err
    assert not (tmp_path / "data").exists() and not (tmp_path / "w.json").exists()


def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="training needs the train extra (PyTorch)")
    data = tmp_path / "data"
    assert train_main(["play", "--out", str(data), "--games", "10", "--chunk", "5",
                       "--players", "4", "--seed", "2"]) == 0
    outs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        assert train_main(["train", "--data", str(data), "--epochs", "2", "--hidden", "8",
                           "--seed", "3", "--out", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    model = parse_model(outs[0].decode())
    assert model.facts["epochs"] == 2
    # A stopped run resumes from its checkpoint and ends with the same file.
    out = tmp_path / "c.json"
    assert train_main(["train", "--data", str(data), "--epochs", "1", "--hidden", "8",
                       "--seed", "3", "--out", str(out)]) == 0
    assert train_main(["train", "--data", str(data), "--epochs", "2", "--hidden", "8",
                       "--seed", "3", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["layers"] == json.loads(outs[0])["layers"]


# --- the bot -----------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [Settings(players=4, turn_cap=60),
                                      Settings(players=3, turn_cap=60),
                                      Settings(players=2, turn_cap=60)],
                         ids=["4p", "3p", "2p"])
def test_full_games_without_an_illegal_action(settings: Settings) -> None:
    n = settings.players
    hero = _hard(1)
    lineup: list[Bot] = [hero] + [HeuristicBot(10 + q) for q in range(1, n)]
    result = play_game(lineup, settings, 3, keep_log=False)  # raises on an illegal action
    assert result.decisions > 50
    assert hero.searched > 3


def test_decisions_depend_only_on_the_view() -> None:
    s, seat = _midgame(5, turn=25)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    other = sample_state(view, 99)
    assert observe(other, seat) == view
    a = _hard(7, iterations=3).act(view, legal)
    b = _hard(7, iterations=3).act(observe(other, seat), legal_actions(other, seat))
    assert a == b


def test_the_budget_stops_the_search(fake_clock: FakeClock) -> None:
    """A fake clock advancing 1 ms per reading: the search stops in time."""
    s, seat = _midgame(6, turn=25)
    bot = HardBot(0.1, 3)
    bot.raise_errors = True
    bot.act(observe(s, seat), legal_actions(s, seat))
    assert fake_clock.now <= 0.1


def test_the_look_ahead_is_a_round_unless_set() -> None:
    assert HardBot(0.5, 1).depth_for(4) == 4 and HardBot(2.0, 1).depth_for(3) == 3
    assert HardBot(0.5, 1)._turns(4) == 5  # scored when a turn starts, a round on
    assert HardBot(0.5, 1, depth=0)._turns(4) == 1  # when the next player's turn starts


def test_the_dice_of_the_look_ahead_are_stratified() -> None:
    bot = _hard(1)
    firsts = [bot._dice(1000 + i, i)[0] for i in range(36)]
    assert sorted(firsts) == list(range(36))  # every outcome once in 36 samples


def test_registered_and_budget_in_a_spec() -> None:
    bot = BUILTIN_BOTS["hard"](3)
    assert isinstance(bot, HardBot) and bot.budget == 0.5
    fast = make_bot("hard@2", 1)
    assert isinstance(fast, HardBot) and fast.budget == 2.0
    with pytest.raises(ValueError, match="takes no budget"):
        make_bot("heuristic@2", 1)
    with pytest.raises(ValueError, match="not seconds"):
        make_bot("hard@fast", 1)


def _offer_from(s: GameState, offerer: int, to: int) -> None:
    """Make ``offerer`` (on turn, main phase) offer ``to`` a card it holds for one
    ``to`` holds."""
    give_r = next(r for r in range(5) if s.hands[offerer][r])
    get_r = next(r for r in range(5) if s.hands[to][r] and r != give_r)
    give = tuple(int(r == give_r) for r in range(5))
    get = tuple(int(r == get_r) for r in range(5))
    apply(s, OfferTrade(give, get, to), offerer)


def test_never_trades_with_a_seat_two_points_from_the_win() -> None:
    for seed in range(40):
        s, seat = _midgame(seed, turn=30)
        me = (seat + 1) % 4
        if not (sum(s.hands[seat]) and sum(s.hands[me]) >= 2):
            continue
        try:
            _offer_from(s, seat, me)
        except Exception:
            continue
        s.vp[seat] = s.settings.vp_target - 2  # the offerer is about to win
        view = observe(s, me)
        legal = legal_actions(s, me)
        bot = _hard(1)
        assert bot._leader(view) == seat
        assert bot._judge_trade(view, legal, AcceptTrade()) == RejectTrade()
        return
    pytest.skip("no position for the offer")  # pragma: no cover
