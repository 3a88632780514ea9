"""Built-in bots play whole games through the same interface remote bots get."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bots import GreedyBot, IllegalBotAction, LazyView, RandomBot, play_game
from bots.base import Bot
from protocol.rules import Action, Event, Settings, new_game, observe


def test_random_bots_finish_games_with_a_winner() -> None:
    for seed in range(5):
        result = play_game([RandomBot(seed * 4 + q) for q in range(4)], Settings(), seed)
        assert result.winner is not None
        assert result.scores[result.winner] >= 10
        assert result.decisions > 100


def test_same_seeds_give_the_same_game() -> None:
    a = play_game([RandomBot(q) for q in range(3)], Settings(players=3), 11)
    b = play_game([RandomBot(q) for q in range(3)], Settings(players=3), 11)
    assert a.state == b.state
    assert a.decisions == b.decisions


def test_greedy_beats_random_most_of_the_time() -> None:
    wins = 0
    games = 12
    for seed in range(games):
        bots: list[Bot] = [RandomBot(seed * 10 + q) for q in range(4)]
        seat = seed % 4
        bots[seat] = GreedyBot(seed)
        result = play_game(bots, Settings(turn_cap=1500), seed)
        wins += result.winner == seat
    assert wins >= games * 3 // 4


def test_lazy_view_is_the_seat_view() -> None:
    s = new_game(Settings(), 3)
    view = LazyView(s, 2)
    assert dict(view) == observe(s, 2)
    assert view["seat"] == 2


class _Recorder(Bot):
    """Records the events it is shown; plays like the random bot."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomBot(seed)
        self.events: list[Event] = []

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        return self.inner.act(view, legal)

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        self.events.extend(events)


def test_bots_only_see_redacted_events() -> None:
    bots = [_Recorder(q) for q in range(4)]
    play_game(bots, Settings(), 5)
    for seat, bot in enumerate(bots):
        for e in bot.events:
            if e.name == "dev_card_bought":
                assert (e.card is not None) == (e.seat == seat)  # type: ignore[attr-defined]
            if e.name == "stolen" and e.count:  # type: ignore[attr-defined]
                knows = seat in (e.thief, e.victim)  # type: ignore[attr-defined]
                assert (e.resource is not None) == knows  # type: ignore[attr-defined]


class _Cheater(Bot):
    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        from protocol.rules import EndTurn

        return EndTurn()


def test_an_illegal_bot_action_is_reported() -> None:
    with pytest.raises(IllegalBotAction, match="end_turn|EndTurn"):
        play_game([_Cheater() for _ in range(4)], Settings(), 1)
