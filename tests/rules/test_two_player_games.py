"""Whole random games of the 2-player variant and with the sea3D options."""

from __future__ import annotations

import random

import pytest

from protocol.rules import (
    GameLog,
    GameState,
    Phase,
    Settings,
    apply,
    legal_actions,
    longest_road,
    new_game,
    replay,
    to_act,
)


def _play(settings: Settings, seed: int) -> GameState:
    s = new_game(settings, seed)
    pick = random.Random(seed).random
    while s.phase != Phase.GAME_OVER:
        seat = to_act(s)[0]
        legal = legal_actions(s, seat)
        assert legal, f"seat {seat} has nothing to do in phase {Phase(s.phase).name}"
        apply(s, legal[int(pick() * len(legal))], seat)
    return s


def _check_end(s: GameState) -> None:
    assert s.winner is not None or s.turn > s.settings.turn_cap
    if s.winner is not None:
        assert s.total_vp(s.winner) >= s.settings.vp_target
        assert s.winner < s.settings.players  # neutral players never win (R-2P-4)
    for r in range(5):
        assert s.bank[r] + sum(h[r] for h in s.hands) == 19
    if s.settings.two_player:
        assert s.token_stock + sum(s.tokens) == 20
        assert all(t >= 0 for t in s.tokens)
    for q in range(s.settings.owners):
        assert s.road_len[q] == longest_road(s, q)


def test_1000_random_two_player_games_finish_R_2P() -> None:
    settings = Settings(players=2, turn_cap=1000)
    finished = 0
    for seed in range(1000):
        s = _play(settings, seed)
        _check_end(s)
        finished += s.winner is not None
    assert finished >= 990


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sea3d_games_finish_and_replay_R_OPT(players: int) -> None:
    settings = Settings.sea3d(players, turn_cap=1000)
    for seed in range(40):
        s = _play(settings, seed)
        _check_end(s)
        if seed % 8 == 0:
            assert replay(GameLog.of(s)) == s
