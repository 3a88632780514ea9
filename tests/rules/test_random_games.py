"""Whole random games: every seeded game ends (a winner, or the turn cap) without
an exception, and its end state is consistent.

Policy: uniform among ``legal_actions(s, to_act(s)[0])`` with a seeded
``random.Random``. 1000 four-player games take about 8 s on one core, so they
run by default (in chunks of 100 to keep failures readable); three-player games
run 500 by default and 1000 under ``-m slow``.
"""

from __future__ import annotations

import random

import pytest

from protocol.rules import (
    Event,
    GameState,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    replay,
    to_act,
)
from protocol.rules.events import GameOver, TurnStarted
from protocol.rules.log import GameLog

TURN_CAP = 500
MAX_STEPS = 20 * TURN_CAP * 4
"""Steps per game before the test calls it a livelock (normal games: ~3 per turn)."""
CHUNK = 100


def play_random_game(players: int, seed: int, turn_cap: int = TURN_CAP) -> tuple[
    GameState, list[Event]
]:
    """Play one game with uniform random legal actions; return the state and the
    events of the last step."""
    s = new_game(Settings(players=players, turn_cap=turn_cap), seed)
    rnd = random.Random(seed * 7919 + players)
    last: list[Event] = []
    steps = 0
    while s.phase != Phase.GAME_OVER:
        waiting = to_act(s)
        assert waiting, f"seed {seed}: nobody to act in phase {Phase(s.phase).name}"
        seat = waiting[0]
        acts = legal_actions(s, seat)
        assert acts, f"seed {seed} step {steps}: seat {seat} has no legal action"
        try:
            last = apply(s, rnd.choice(acts), seat)
        except Exception as exc:  # report the reproduction, then re-raise
            raise AssertionError(
                f"players={players} seed={seed} step={steps}: {exc!r}") from exc
        steps += 1
        assert steps < MAX_STEPS, f"seed {seed}: no end after {steps} steps"
    return s, last


def check_end(s: GameState, last: list[Event], seed: int) -> bool:
    """Check a finished game; True if somebody won."""
    over = [e for e in last if isinstance(e, GameOver)]
    assert len(over) == 1 and last[-1] == over[0], f"seed {seed}: no GameOver event"
    ev = over[0]
    n = s.settings.players
    assert ev.scores == tuple(s.total_vp(q) for q in range(n))
    assert ev.vp_cards == tuple(s.dev_hand[q][4] for q in range(n))
    if s.winner is not None:
        assert ev.winner == s.winner == s.current
        assert s.total_vp(s.winner) >= s.settings.vp_target  # R-WIN-1
        return True
    # The reported turn cap: the game stopped as turn cap + 1 would start.
    assert ev.winner is None
    assert s.turn == s.settings.turn_cap + 1
    assert any(isinstance(e, TurnStarted) for e in last)
    return False


def run_chunk(players: int, seeds: range) -> int:
    wins = 0
    for seed in seeds:
        s, last = play_random_game(players, seed)
        wins += check_end(s, last, seed)
        for r in range(5):
            assert s.bank[r] + sum(h[r] for h in s.hands) == 19
    return wins


@pytest.mark.parametrize("chunk", range(1000 // CHUNK))
def test_1000_four_player_games_end(chunk: int) -> None:
    seeds = range(chunk * CHUNK, (chunk + 1) * CHUNK)
    wins = run_chunk(4, seeds)
    # Uniform random play still finishes most games within the cap.
    assert wins >= CHUNK // 2


@pytest.mark.parametrize("chunk", range(500 // CHUNK))
def test_500_three_player_games_end(chunk: int) -> None:
    seeds = range(10_000 + chunk * CHUNK, 10_000 + (chunk + 1) * CHUNK)
    wins = run_chunk(3, seeds)
    assert wins >= CHUNK // 2


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(1000 // CHUNK))
def test_1000_three_player_games_end_slow(chunk: int) -> None:
    seeds = range(20_000 + chunk * CHUNK, 20_000 + (chunk + 1) * CHUNK)
    run_chunk(3, seeds)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_10000_games_end_slow(players: int) -> None:
    for chunk in range(100):
        run_chunk(players, range(100_000 + chunk * CHUNK, 100_000 + (chunk + 1) * CHUNK))


def test_a_small_turn_cap_ends_games_without_winner() -> None:
    for seed in range(20):
        s, last = play_random_game(4, seed, turn_cap=3)
        assert s.winner is None
        check_end(s, last, seed)


def test_games_are_reproducible_from_seed_and_log() -> None:
    for seed in range(10):
        a, _ = play_random_game(4, seed)
        b, _ = play_random_game(4, seed)
        assert a == b
        assert replay(GameLog.of(a)) == a
