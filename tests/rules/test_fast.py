"""The fast path (:mod:`protocol.rules.fast`) is exactly ``apply`` without events.

One example is one game played twice from the same seed, in lockstep: one copy
with :func:`protocol.rules.apply`, the other with :func:`protocol.rules.fast.step`.
The same random policy (over ``legal_actions``, plus random domestic offers,
counter-offers and proposals, and the enrichment of the engine's property
tests) picks each action from the ``apply`` copy; after every step the two
states must be identical — position, hands, deck, RNG state, log, and the
derived tables — and so must the two seats' legal actions. Chance comes from
each copy's own seeded RNG, and now and then from a recorded outcome passed
to both (dice, a development card draw, a stolen card), as a replay or a
rollout with fixed dice does. All variants: 4 and 3 players, the 2-player
variant, the sea3D options, a lower VP target.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given

from protocol.rules import (
    Action,
    BuyDevCard,
    CounterOffer,
    GameState,
    MoveRobber,
    OfferTrade,
    Phase,
    ProposeTrade,
    RollDice,
    RulesError,
    Settings,
    Steal,
    apply,
    legal_actions,
    new_game,
    to_act,
)
from protocol.rules.fast import forced, step

from .test_properties import FAST, SLOW, GameSpec, enrich, game_specs, random_terms, snapshot


def _recorded(s: GameState, a: Action, seat: int, rnd: random.Random) -> tuple[int, ...] | None:
    """A possible recorded outcome for ``a`` in ``s`` (as a log would hold it)."""
    if isinstance(a, RollDice):
        while True:
            d1, d2 = rnd.randint(1, 6), rnd.randint(1, 6)
            if not (s.rolls_done and d1 + d2 == s.first_sum):
                return (d1, d2)
    if isinstance(a, BuyDevCard):
        return (rnd.choice([c for c in range(5) if s.dev_deck[c] > 0]),)
    victim = -1
    if isinstance(a, Steal):
        victim = a.victim
    elif isinstance(a, MoveRobber):
        no = s.node_owner
        victims = {no[n] for n in s.info.hex_nodes[a.hex]
                   if 0 <= no[n] < s.settings.players and no[n] != seat}
        if len(victims) != 1:
            return None
        victim = victims.pop()
    if victim < 0:
        return None
    held = [r for r in range(5) if s.hands[victim][r] > 0]
    return (rnd.choice(held),) if held else (-1,)


def _trade_attempt(s: GameState, seat: int, rnd: random.Random) -> tuple[int, Action] | None:
    """A random domestic trade action (legal or not) for the seat to act, or a
    proposal by a random seat."""
    n = s.settings.players
    if rnd.random() < 0.3:
        actor = rnd.randrange(n)
        give, get = random_terms(rnd, s.hands[actor])
        return actor, ProposeTrade(give, get)
    give, get = random_terms(rnd, s.hands[seat])
    if s.phase == Phase.TRADE:
        return seat, CounterOffer(give, get)
    to = None if rnd.random() < 0.6 else rnd.randrange(-1, n + 1)
    return seat, OfferTrade(give, get, to)


def play_both(spec: GameSpec) -> int:
    """Play ``spec``'s game both ways in lockstep; the steps played."""
    slow = new_game(spec.settings, spec.seed)
    quick = new_game(spec.settings, spec.seed)
    rnd = random.Random(spec.policy_seed)
    assert snapshot(slow) == snapshot(quick)
    steps = 0
    while steps < spec.budget and slow.phase != Phase.GAME_OVER:
        if spec.enrich and slow.phase in (Phase.PRE_ROLL, Phase.MAIN) and rnd.random() < 0.03:
            state = rnd.getstate()
            enrich(slow, rnd)
            rnd.setstate(state)
            enrich(quick, rnd)
        seat = to_act(slow)[0]
        assert to_act(quick) == to_act(slow)
        acts = legal_actions(slow, seat)
        assert legal_actions(quick, seat) == acts
        only = forced(quick, seat)
        if only is not None:
            assert acts == [only], f"forced() gave {only!r}, legal is {acts!r}"
        if spec.trade_rate and rnd.random() < spec.trade_rate:
            actor, a = _trade_attempt(slow, seat, rnd)
            try:
                apply(slow, a, actor)
            except RulesError as exc:
                try:
                    step(quick, a, actor)
                except RulesError as exc2:
                    assert exc2.code == exc.code
                else:
                    pytest.fail(f"step allowed {a!r} by seat {actor}; apply refused it")
            else:
                step(quick, a, actor)
        else:
            if spec.builder and rnd.random() < 0.5:
                builds = [x for x in acts if x.name.startswith(("build", "buy", "play"))]
                a = rnd.choice(builds or acts)
            else:
                a = rnd.choice(acts)
            chance = _recorded(slow, a, seat, rnd) if rnd.random() < 0.3 else None
            out_slow = apply(slow, a, seat, chance)
            assert isinstance(out_slow, list)
            out_quick = step(quick, a, seat, chance)
            assert slow.log is not None and slow.log[-1] == (seat, a, out_quick)
        steps += 1
        assert snapshot(quick) == snapshot(slow), f"step {steps}: the states differ"
    return steps


def test_fast_path_matches_apply_in_every_variant() -> None:
    """A full game of every variant, random policy, recorded chance now and then."""
    total = 0
    variants = [Settings(players=4), Settings(players=3), Settings(players=2),
                Settings.sea3d(4), Settings.sea3d(3), Settings.sea3d(2),
                Settings(players=4, vp_target=6, harbor_delay=True)]
    for i, settings in enumerate(variants):
        spec = GameSpec(settings, seed=1000 + i, policy_seed=i, budget=10**6,
                        trade_rate=0.1, builder=True, enrich=i % 2 == 1)
        total += play_both(spec)
    assert total > 7 * 100  # whole games, not a few steps


@FAST
@given(game_specs(max_budget=2000))
def test_fast_path_property(spec: GameSpec) -> None:
    play_both(spec)


@pytest.mark.slow
@SLOW
@given(game_specs(max_budget=4000))
def test_fast_path_property_slow(spec: GameSpec) -> None:
    play_both(spec)
