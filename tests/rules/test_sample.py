"""Determinization: states sampled from a view look exactly like the view."""

from __future__ import annotations

import random

import pytest

from protocol.rules import (
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    sample_state,
    to_act,
)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_sampled_state_has_the_same_view_and_legal_actions(players: int) -> None:
    checked = 0
    for seed in range(6):
        s = new_game(Settings(players=players, turn_cap=300), seed)
        pick = random.Random(seed).random
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            apply(s, legal[int(pick() * len(legal))], seat)
            if pick() < 0.05 and s.phase != Phase.GAME_OVER:
                view = observe(s, seat)
                t = sample_state(view, seed)
                assert observe(t, seat) == view
                assert legal_actions(t, seat) == legal_actions(s, seat)
                full, deck = s.settings.bank_per_resource, sum(s.settings.dev_deck)  # R-56-5
                for r in range(5):
                    assert t.bank[r] + sum(h[r] for h in t.hands) == full
                assert sum(map(sum, t.dev_hand)) + sum(t.dev_deck) + sum(t.dev_out) == deck
                checked += 1
    assert checked > 20


def test_hidden_facts_are_sampled_not_copied() -> None:
    s = new_game(Settings(), 3)
    pick = random.Random(3).random
    while s.turn < 40:
        seat = to_act(s)[0]
        legal = legal_actions(s, seat)
        apply(s, legal[int(pick() * len(legal))], seat)
    seat = to_act(s)[0]
    view = observe(s, seat)
    others = [q for q in range(4) if q != seat and sum(s.hands[q]) >= 3]
    assert others
    samples = [sample_state(view, k) for k in range(30)]
    # The viewer's own hand is always right; another hand varies across samples
    # (same size), so it was not read from the real state.
    assert all(t.hands[seat] == s.hands[seat] for t in samples)
    q = others[0]
    assert all(sum(t.hands[q]) == sum(s.hands[q]) for t in samples)
    assert len({tuple(t.hands[q]) for t in samples}) > 1
