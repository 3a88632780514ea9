"""Helpers shared by the bot tests: positions from heuristic games, a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

import bots.search as search_module
from bots import HeuristicBot
from protocol.rules import (
    Action,
    GameState,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)


def heuristic_game_until(seed: int, players: int, turn: int,
                         stop: Callable[[GameState, int, Sequence[Action]], bool] | None = None,
                         ) -> tuple[GameState, int]:
    """A game of heuristic bots played to the first main-phase decision after
    ``turn`` (and, if given, for which ``stop(state, seat, legal)`` holds): the
    state and the seat to act."""
    s = new_game(Settings(players=players), seed)
    bots = [HeuristicBot(seed + q) for q in range(players)]
    while s.phase != Phase.GAME_OVER:
        seat = to_act(s)[0]
        legal = legal_actions(s, seat)
        if s.phase == Phase.MAIN and s.turn > turn and (stop is None or stop(s, seat, legal)):
            return s, seat
        apply(s, bots[seat].act(observe(s, seat), legal), seat)
    raise AssertionError("the game ended first")


class FakeClock:
    """The search's ``time.perf_counter``, advancing 1 ms per reading, so a
    test of the budget does not depend on the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A :class:`FakeClock` in place of the search's clock."""
    clock = FakeClock()
    monkeypatch.setattr(search_module.time, "perf_counter", clock)
    return clock
