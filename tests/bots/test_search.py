"""The search bot: legal, blind to hidden facts, within its budget, over the network."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence

import pytest

import bots.search as search_module
from bots import BUILTIN_BOTS, HeuristicBot, SearchBot, make_bot, play_game
from bots.base import Bot
from bots.client import run_bot
from bots.search_policy import TraderBot
from protocol.rules import (
    Action,
    BuildCity,
    BuildSettlement,
    EndTurn,
    GameState,
    OfferTrade,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    sample_state,
    to_act,
)
from server.app import BOT_KINDS, Server

from .conftest import FakeClock, heuristic_game_until


def _search(seed: int, iterations: int = 1) -> SearchBot:
    bot = SearchBot(None, seed, iterations=iterations, top_k=3)
    bot.raise_errors = True  # internal errors fail the test instead of the fallback
    return bot


@pytest.mark.parametrize("settings", [Settings(players=4, turn_cap=400),
                                      Settings(players=2, turn_cap=400),
                                      Settings.sea3d(3, turn_cap=400)],
                         ids=["4p", "2p", "sea3d-3p"])
def test_full_games_without_an_illegal_action(settings: Settings) -> None:
    n = settings.players
    hero = _search(1)
    lineup: list[Bot] = [hero] + [HeuristicBot(10 + q) for q in range(1, n)]
    result = play_game(lineup, settings, 3, keep_log=False)  # raises on an illegal action
    assert result.decisions > 100
    assert hero.searched > 5  # it did search, not only play the heuristic's moves


def _midgame(seed: int) -> tuple[GameState, int]:
    """A heuristic game played until its current seat, in the main phase, has a
    real choice (the search bot would simulate)."""
    probe = _search(0)

    def choice(s: GameState, seat: int, legal: Sequence[Action]) -> bool:
        view = observe(s, seat)
        default = TraderBot(0).act(view, legal)  # the search bot's prior
        return not isinstance(default, OfferTrade) and len(
            probe._candidates(view, legal, default)) >= 3

    return heuristic_game_until(seed, 4, 20, choice)


def test_decisions_depend_only_on_the_view() -> None:
    s, seat = _midgame(5)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    # Another real state with the same view but other hidden facts: other hands,
    # other development cards, another deck order and RNG.
    other = sample_state(view, 99)
    assert observe(other, seat) == view
    assert (other.hands, other.dev_hand, other.dev_deck, other.rng.state) != (
        s.hands, s.dev_hand, s.dev_deck, s.rng.state)
    a = _search(7, iterations=3).act(view, legal)
    b = _search(7, iterations=3).act(observe(other, seat), legal_actions(other, seat))
    assert a == b
    bot = _search(7, iterations=3)
    assert bot.act(dict(view), legal) == a  # a plain dict: nothing to reach the state through
    assert bot.searched == 1


def test_the_budget_stops_the_search(fake_clock: FakeClock) -> None:
    """A fake clock advancing 1 ms per reading: the search stops in time whatever
    the machine's speed (the real timing is measured by ``kaitaku bench bots``)."""
    s, seat = _midgame(6)
    bot = SearchBot(0.1, 3)
    bot.raise_errors = True
    action = bot.act(observe(s, seat), legal_actions(s, seat))
    assert action in legal_actions(s, seat) or action.name == "offer_trade"
    assert bot.searched == 1
    assert fake_clock.now <= 0.1  # every clock reading, the last included, within the budget
    assert bot.samples >= 1


def test_iterations_mode_is_deterministic() -> None:
    s, seat = _midgame(8)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    first = [_search(4, iterations=2).act(view, legal) for _ in range(2)]
    assert first[0] == first[1]
    with pytest.raises(ValueError):
        SearchBot(None, 1)


def test_registered_everywhere() -> None:
    bot = BUILTIN_BOTS["search"](3)
    assert isinstance(bot, SearchBot) and bot.budget == 0.5
    assert make_bot("search", 1).name == "search"
    assert "search" in BOT_KINDS


class _Fast(SearchBot):
    """The search bot with a short budget (the SDK test must stay quick)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(0.02, seed)


async def test_plays_over_tcp_through_the_sdk() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        hero = _Fast(1)
        creator = asyncio.ensure_future(run_bot(
            hero, "127.0.0.1", srv.port, name="search", budget=0.5,
            create={"settings": {"players": 3, "turn_cap": 400}}))
        while not srv.tables:
            await asyncio.sleep(0.01)
        (tid,) = srv.tables
        others = [asyncio.ensure_future(run_bot(HeuristicBot(i), "127.0.0.1", srv.port,
                                                name=f"h{i}", table=tid))
                  for i in (1, 2)]
        outcomes = await asyncio.wait_for(asyncio.gather(creator, *others), 120)
        assert all(o.finished and o.rejected == 0 for o in outcomes)
        assert outcomes[0].fallbacks == 0
        assert hero.searched > 5
    finally:
        await srv.close()



def test_bench_bots_measures_one_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    from kaitaku.cli import main

    rc = main(["bench", "bots", "--games", "2", "--bots", "search", "--opponents", "heuristic",
               "--budget", "0.005", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    (pairing,) = out["pairings"]
    assert pairing["bot"] == "search" and pairing["opponents"] == ["heuristic"] * 3
    assert pairing["games"] == 2 and 0 <= pairing["wins"] <= 2
    assert set(out["decision_ms"]) == {"search", "heuristic"}


def test_the_trader_prior_plays_legal_games_and_trades_with_players() -> None:
    """The search bot's prior asks the other players more than the heuristic
    does, and every offer it makes is legal (play_game refuses illegal ones)."""
    offers = {"trader": 0, "heuristic": 0}
    for seed in range(3):
        for kind in offers:
            bots: list[Bot] = [HeuristicBot(seed * 4 + q) for q in range(4)]
            bots[seed % 4] = TraderBot(seed) if kind == "trader" else HeuristicBot(seed)
            result = play_game(bots, Settings(turn_cap=1000), seed)
            assert result.state.log is not None
            offers[kind] += sum(1 for seat, action, _ in result.state.log
                                if seat == seed % 4 and isinstance(action, OfferTrade))
    assert offers["trader"] > offers["heuristic"]


def test_trade_answers_are_the_priors_and_a_point_competes_only_with_points() -> None:
    """The search keeps the prior's answer to an offer (its bargaining is the
    prior's edge), and when the prior builds a settlement or a city it only
    compares other settlements and cities with it."""
    probe = _search(0)
    points = answers = 0
    for seed in range(2):
        s = new_game(Settings(players=4), seed)
        bots = [HeuristicBot(seed * 4 + q) for q in range(4)]
        prior = TraderBot(seed)
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            if seat == 0 and s.phase in (Phase.MAIN, Phase.TRADE) and len(legal) > 1:
                view = observe(s, seat)
                default = prior.act(view, legal)
                cands = probe._candidates(view, legal, default)
                assert cands[0] == default
                if s.phase == Phase.TRADE:
                    assert cands == [default]
                    answers += 1
                elif isinstance(default, BuildSettlement | BuildCity):
                    assert all(isinstance(a, BuildSettlement | BuildCity) for a in cands)
                    points += 1
            apply(s, bots[seat].act(observe(s, seat), legal), seat)
    assert points > 0 and answers > 0


def test_rollouts_on_the_fast_path_equal_rollouts_with_apply(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's simulations (fast path, bots deciding from the state) give
    exactly the values the checked engine with the bots on their views gives:
    the same positions, seeds and dice, rolled out both ways."""
    s, seat = _midgame(5)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    bot = _search(3)
    default = bot.prior.act(view, legal)
    cands = bot._candidates(view, legal, default)
    assert len(cands) >= 3

    def values() -> list[float]:
        out = []
        for k in range(3):
            base = sample_state(view, bot.tracker(view), 40 + k)
            dice = list(range(k, 36)) + list(range(k))
            for a in cands:
                v = bot._simulate(base, a, seat, 5, dice, 40 + k, float("inf"))
                assert v is not None
                out.append(v)
        return out

    fast = values()

    def checked(state: GameState, action: object, who: int, chance: object = None) -> object:
        return apply(state, action, who, chance)  # type: ignore[arg-type]

    def on_view(self: HeuristicBot, state: GameState, who: int,
                legal: Sequence[Action]) -> Action:
        return self.act(observe(state, who), legal)

    monkeypatch.setattr(search_module, "step", checked)
    monkeypatch.setattr(search_module, "forced", lambda state, who: None)
    monkeypatch.setattr(HeuristicBot, "act_state", on_view)
    assert values() == fast
    assert len(set(fast)) > 1  # real rollouts: the candidates differ


def test_rollouts_make_no_domestic_offer_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default rollout policy trades with the bank only; with
    ``rollout_trade`` the rollout bots offer as in a game."""
    s, seat = _midgame(5)
    view = observe(s, seat)
    offered: list[bool] = []
    real = search_module.apply

    def watch(state: GameState, action: Action, who: int, chance: object = None) -> object:
        offered.append(isinstance(action, OfferTrade))
        return real(state, action, who, chance)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "apply", watch)
    for trade in (False, True):
        offered.clear()
        bot = SearchBot(None, 1, iterations=1, rollout_trade=trade)
        bot.raise_errors = True
        for k in range(8):
            base = sample_state(view, bot.tracker(view), 60 + k)
            v = bot._simulate(base, EndTurn(), seat, 9, list(range(36)), 60 + k, float("inf"))
            assert v is not None and 0.0 <= v <= 1.0
        assert any(offered) == trade


def test_the_rollout_horizon_is_one_round_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """One round after the current turn at every budget (and without a
    clock); ``rounds`` sets it, and the rollouts play that many turn changes."""
    assert [SearchBot(b).horizon() for b in (0.1, 0.5, 0.99, 1.0, 2.0)] == [1, 1, 1, 1, 1]
    assert SearchBot(None, iterations=2).horizon() == 1
    assert SearchBot(2.0, rounds=1).horizon() == 1 and SearchBot(0.5, rounds=3).horizon() == 3
    s, seat = _midgame(5)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    for budget, rounds, turns in ((0.5, None, 4 + 1), (2.0, None, 4 + 1), (2.0, 2, 2 * 4 + 1)):
        bot = SearchBot(budget, 1, iterations=3, rounds=rounds)
        bot.raise_errors = True
        seen: list[int] = []

        def record(base: GameState, first: Action, me: int, t: int, *rest: object,
                   seen: list[int] = seen) -> float:
            seen.append(t)
            return 0.5

        monkeypatch.setattr(bot, "_simulate", record)
        default = bot.prior.act(view, legal)
        bot._search(view, bot._candidates(view, legal, default), time.perf_counter(),
                    float("inf"))
        assert seen and set(seen) == {turns}  # turn changes to play out


@pytest.mark.parametrize("longer", [0.4, 0.6], ids=["vetoed", "confirmed"])
def test_an_override_stands_only_if_the_longer_look_agrees(
        monkeypatch: pytest.MonkeyPatch, longer: float) -> None:
    """From a budget of 1 s, an alternative the one-round look prefers is
    compared with the prior's move again over two rounds; it is played only
    if that look finds it better too."""
    assert [SearchBot(b).verification() for b in (0.5, 0.99, 1.0, 2.0)] == [None, None, 2, 2]
    assert SearchBot(2.0, verify=0).verification() is None
    assert SearchBot(0.5, verify=3).verification() == 3
    s, seat = _midgame(5)
    view = observe(s, seat)
    legal = legal_actions(s, seat)
    bot = SearchBot(None, 1, iterations=8, verify=2)
    bot.raise_errors = True
    default = bot.prior.act(view, legal)
    cands = bot._candidates(view, legal, default)
    assert len(cands) >= 2
    seen: list[tuple[int, int]] = []

    def judge(base: GameState, first: Action, me: int, t: int, *rest: object) -> float:
        i = cands.index(first)
        seen.append((t, i))
        if i == 0:
            return 0.5
        return (0.6 if i == 1 else 0.55) if t == 4 + 1 else longer

    monkeypatch.setattr(bot, "_simulate", judge)
    chosen = bot._search(view, cands, 0.0, float("inf"))
    assert {i for t, i in seen if t == 2 * 4 + 1} == {0, 1}  # the best alternative, verified
    assert chosen == (cands[1] if longer > 0.5 else cands[0])
    assert (bot.overridden, bot.vetoed) == ((1, 0) if longer > 0.5 else (0, 1))


def test_bench_rollouts_against_an_older_checkout(capsys: pytest.CaptureFixture[str]) -> None:
    """``--against`` runs the reference in another checkout (here this one) in
    turn with this checkout's paths: the fast path ends where apply does."""
    from pathlib import Path

    from kaitaku.cli import main

    root = Path(search_module.__file__).resolve().parent.parent
    rc = main(["bench", "rollouts", "--against", str(root), "--repeat", "1", "--rollouts", "8",
               "--playouts", "1", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fast_identical"] is True and out["old_identical"] is True
    row = out["rollout_1round"]
    assert set(row) == {"old", "apply", "fast", "search"}
    assert all(r["median"] > 0 for r in row.values())


def test_no_trade_switches_off_every_domestic_offer_and_proposal() -> None:
    """``bench bots --no-trade``: with the switch off, a table of search, trader
    and heuristic bots makes no offer, counter-offer or proposal (the same
    table with it on trades with the players)."""
    from kaitaku.bench import _no_trade
    from protocol.rules.events import TradeCountered, TradeOffered, TradeProposed

    domestic = (TradeOffered, TradeCountered, TradeProposed)
    counts = []
    for trade in (True, False):
        table: list[Bot] = [_search(1), TraderBot(2), HeuristicBot(3), HeuristicBot(4)]
        if not trade:
            for b in table:
                _no_trade(b)
        seen: list[object] = []

        def watch(s: GameState, seat: int, action: Action, events: Sequence[object],
                  seen: list[object] = seen) -> None:
            seen.extend(e for e in events if isinstance(e, domestic))

        play_game(table, Settings(turn_cap=400), 5, keep_log=False, on_step=watch)
        counts.append(len(seen))
    assert counts[0] > 0 and counts[1] == 0
    off = _search(1)
    _no_trade(off)
    assert not off.offers and not off.prior.offers and not off.rollout_trade
