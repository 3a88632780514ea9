"""Every built-in bot plays 5- and 6-player games (the 30-hex board, the
Special Building Phase of R-56-8), and the heuristic builds in that phase
when it can."""

from __future__ import annotations

from collections import Counter

import pytest

from bots import BUILTIN_BOTS, HeuristicBot, play_game
from bots.base import Bot
from bots.search import SearchBot
from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)


def _strict(bot: Bot) -> Bot:
    if hasattr(bot, "raise_errors"):
        bot.raise_errors = True  # internal errors fail the test, not the safe fallback
    return bot


def _make(name: str, seed: int) -> Bot:
    if name == "search":  # the searcher at a small budget: the test checks legality
        return _strict(SearchBot(budget=0.01, seed=seed))
    return _strict(BUILTIN_BOTS[name](seed))


@pytest.mark.parametrize("players", [5, 6])
@pytest.mark.parametrize("name", sorted(BUILTIN_BOTS))
def test_every_builtin_bot_plays_a_large_game(name: str, players: int) -> None:
    """Each built-in in a seat of a whole game (play_game applies every action
    through the engine: an illegal one fails), against heuristic bots."""
    for seed in range(2 if name != "search" else 1):
        bots: list[Bot] = [_make(name, seed * 10 + q) if q == seed % players
                           else _strict(HeuristicBot(seed * 10 + q)) for q in range(players)]
        result = play_game(bots, Settings(players=players, turn_cap=400), 40 + seed)
        assert result.winner is not None


def test_the_heuristic_builds_in_the_special_building_phase_R_56_8() -> None:
    """Whenever a settlement or a city is affordable and placeable in the phase
    the heuristic builds (one of them); it never passes with a victory point
    build on offer, and it builds roads and buys cards there too."""
    chosen: Counter[str] = Counter()
    for seed in range(3):
        bots = [HeuristicBot(seed * 10 + q) for q in range(6)]
        for b in bots:
            b.raise_errors = True
        s = new_game(Settings(players=6, turn_cap=400), seed)
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            a = bots[seat].act(observe(s, seat, legal), legal)
            if s.phase == Phase.SPECIAL_BUILD:
                assert isinstance(a, BuildRoad | BuildSettlement | BuildCity | BuyDevCard
                                  | EndTurn)
                if any(isinstance(x, BuildSettlement | BuildCity) for x in legal):
                    assert isinstance(a, BuildSettlement | BuildCity), (legal, a)
                chosen[a.name] += 1
            apply(s, a, seat)
    assert chosen["build_settlement"] and chosen["build_city"]
    assert chosen["build_road"] and chosen["buy_dev_card"] and chosen["end_turn"]
