"""Proposals to the current player (R-TRADE-2) in bots: when the runner asks, how
the heuristic proposes and answers, and that a stream of proposals cannot drain
it; the search bot's card tracker."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bots import HeuristicBot, RandomBot, SearchBot, play_game
from bots.base import Bot
from bots.heuristic import MAX_OVERPAY
from bots.search_policy import TraderBot
from protocol.rules import (
    AcceptProposal,
    Action,
    Event,
    GameState,
    OfferTrade,
    ProposeTrade,
    RejectProposal,
    Settings,
    apply,
    legal_actions,
    may_propose,
    observe,
)
from protocol.rules.events import TradeCompleted, TradeProposed
from protocol.rules.position import describe
from tests.rules.helpers import cards


class Asker(RandomBot):
    """A random bot that records when it is asked and proposes 1 of its cards
    for 1 of another kind."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked: list[Mapping[str, Any]] = []

    def propose(self, view: Mapping[str, Any]) -> Action | None:
        you = view["you"]
        self.asked.append({"turn": view["turn"], "current": view["current"],
                           "seat": view["seat"], "may": you["may_propose"],
                           "phase": view["phase"]})
        hand = you["hand"]
        have = [r for r in range(5) if hand[r]]
        if not have:
            return None
        give = tuple(1 if r == have[0] else 0 for r in range(5))
        get = tuple(1 if r == (have[0] + 1) % 5 else 0 for r in range(5))
        return ProposeTrade(give, get)  # type: ignore[arg-type]


def test_the_runner_asks_a_seat_when_it_may_propose() -> None:
    bots: list[Bot] = [Asker(q) for q in range(4)]
    proposed: Counter[int] = Counter()

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, TradeProposed):
                assert seat == e.seat and seat != s.current
                proposed[s.turn] += 1

    play_game(bots, Settings(players=4, turn_cap=80), 3, on_step=hook)
    asks = [a for b in bots if isinstance(b, Asker) for a in b.asked]
    assert asks and all(a["may"] and a["phase"] == "main" and a["seat"] != a["current"]
                        for a in asks)
    assert sum(proposed.values()) > 20
    assert max(proposed.values()) <= 3 * 3  # three seats, MAX_PROPOSALS each


def _current(hand: tuple[int, int, int, int, int]) -> GameState:
    """Seat 0 on turn with ``hand``; seat 1 holds 3 wool and 2 ore, seat 2 2 wool
    and 2 grain. With lumber, brick and grain, seat 0 lacks only a wool for its
    best goal, a settlement."""
    return describe(
        settings=Settings(players=3), seed=7, current=0, turn=12, dice=(3, 4),
        seats=[dict(settlements=(3, 45), roads=(0, 1, 58, 59), hand=hand),
               dict(settlements=(48,), cities=(20,), roads=(22, 63),
                    hand=cards(wool=3, ore=2)),
               dict(settlements=(32,), cities=(29,), roads=(38, 43),
                    hand=cards(wool=2, grain=2))])


NEEDS_WOOL = cards(lumber=1, brick=1, grain=1, ore=4)


def _act(bot: HeuristicBot, s: GameState, seat: int) -> Action:
    bot.raise_errors = True
    return bot.act(observe(s, seat), legal_actions(s, seat))


def test_heuristic_accepts_a_good_proposal_and_rejects_a_bad_one() -> None:
    s = _current(NEEDS_WOOL)
    apply(s, ProposeTrade(cards(wool=1), cards(ore=1)), 1)  # the missing wool
    assert _act(HeuristicBot(1), s, 0) == AcceptProposal(1)
    s = _current(NEEDS_WOOL)
    apply(s, ProposeTrade(cards(grain=1), cards(lumber=1)), 2)  # takes what it needs
    assert _act(HeuristicBot(1), s, 0) == RejectProposal(2)


def _stream(bot: HeuristicBot) -> tuple[int, int]:
    """Seats 1 and 2 keep proposing the wool and the grain seat 0 lacks, each for
    two of its plenty of ore; return (trades accepted, cards given beyond got)."""
    s = _current(cards(lumber=1, brick=1, ore=6))
    accepted = net = 0
    for _round in range(3):
        for q, give in ((1, cards(wool=1)), (2, cards(grain=1))):
            if may_propose(s, q) and all(s.hands[q][r] >= give[r] for r in range(5)):
                apply(s, ProposeTrade(give, cards(ore=2)), q)
        while s.proposals:
            answer = _act(bot, s, 0)
            assert isinstance(answer, AcceptProposal | RejectProposal)
            for e in apply(s, answer, 0):
                if isinstance(e, TradeCompleted):
                    accepted += 1
                    net += sum(e.gave) - sum(e.got)
    return accepted, net


def test_a_stream_of_proposals_cannot_drain_the_heuristic(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each proposal alone is worth taking, but all accepted in a turn together
    give at most MAX_OVERPAY cards beyond those the bot gets."""
    assert _stream(HeuristicBot(2)) == (1, MAX_OVERPAY)
    monkeypatch.setattr("bots.heuristic.MAX_OVERPAY", 5)
    assert _stream(HeuristicBot(2)) == (2, 2)  # without the limit it takes both


def test_heuristic_proposes_only_with_a_real_need() -> None:
    base = dict(settings=Settings(players=3), seed=7, current=1, turn=12, dice=(3, 4))
    seats = [dict(settlements=(3, 45), roads=(0, 1, 58, 59),
                  hand=cards(lumber=1, brick=1, wool=1, ore=2)),  # a grain short of a settlement
             dict(settlements=(48,), cities=(20,), roads=(22, 63), hand=cards(grain=3)),
             dict(settlements=(32,), cities=(29,), roads=(38, 43))]
    s = describe(**base, seats=seats)  # type: ignore[arg-type]
    bot = HeuristicBot(3)
    bot.raise_errors = True
    bot._est = {1: [0.0, 0.0, 0.0, 3.0, 0.0]}  # seat 1 is known to hold grain
    proposal = bot.propose(observe(s, 0))
    assert isinstance(proposal, ProposeTrade)
    assert proposal.get == cards(grain=1) and sum(proposal.give) == 1
    apply(s, proposal, 0)
    # At most one a turn (the heuristic's own limit; the engine allows three).
    apply(s, RejectProposal(0), 1)
    assert bot.propose(observe(s, 0)) is None
    # Nothing needed: no proposal.
    rich = [dict(seats[0], hand=cards(lumber=1, brick=1, wool=1, grain=1, ore=2)), *seats[1:]]
    assert HeuristicBot(4).propose(observe(describe(**base, seats=rich), 0)) is None  # type: ignore[arg-type]
    # Never to a seat about to win.
    close = describe(**{**base, "settings": Settings(players=3, vp_target=5)},  # type: ignore[arg-type]
                     seats=seats)
    fresh = HeuristicBot(5)
    fresh._est = {1: [0.0, 0.0, 0.0, 3.0, 0.0]}
    assert fresh.propose(observe(close, 0)) is None


def test_trader_counters_a_proposal_it_would_not_accept() -> None:
    s = _current(NEEDS_WOOL)
    # One wool for three ore is too dear (MAX_OVERPAY), but with one card more
    # from seat 1 it is worth it: the trader counters with an offer to seat 1.
    apply(s, ProposeTrade(cards(wool=1), cards(ore=3)), 1)
    assert _act(HeuristicBot(6), s, 0) == RejectProposal(1)
    answer = _act(TraderBot(6), s, 0)
    assert isinstance(answer, OfferTrade)
    assert answer.to == 1 and answer.give == cards(ore=3)
    assert answer.get[2] == 1 and sum(answer.get) == 2  # the wool and one card more
    apply(s, answer, 0)
    assert s.proposals == {}  # the offer answers the proposal


def test_proposals_in_full_heuristic_games_respect_the_limit() -> None:
    counts: Counter[str] = Counter()

    overpaid: Counter[tuple[int, int]] = Counter()  # (game, turn): cards given beyond got

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        counts[action.name] += 1
        if isinstance(action, AcceptProposal):
            for e in events:
                assert isinstance(e, TradeCompleted)
                counts["accepted"] += 1
                overpaid[(s.seed, s.turn)] += max(0, sum(e.gave) - sum(e.got))
                assert overpaid[(s.seed, s.turn)] <= MAX_OVERPAY  # in all, in a turn

    for seed in range(3):
        play_game([HeuristicBot(seed * 4 + q) for q in range(4)], Settings(turn_cap=600),
                  seed, keep_log=False, on_step=hook)
    assert counts["propose_trade"] > 0 and counts["accepted"] > 0
    assert counts["propose_trade"] <= counts["end_turn"] * 3  # at most one per seat a turn


class _Watch(Bot):
    """Wraps a search bot; checks its card tracker against the truth each decision."""

    def __init__(self, bot: SearchBot, truth: list[GameState]) -> None:
        self.bot = bot
        self.truth = truth
        self.checked = 0

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        t = self.bot.tracker(view)
        assert t.matches(view)
        if self.truth:
            assert t.is_possible(self.truth[0].hands)
            self.checked += 1
        return self.bot.act(view, legal)

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        self.bot.on_events(seat, events)

    def on_game_over(self, view: Mapping[str, Any]) -> None:
        self.bot.on_game_over(view)


def test_search_bot_keeps_a_sound_card_tracker() -> None:
    truth: list[GameState] = []
    search = SearchBot(None, 1, iterations=1, top_k=2, phases=("move_robber",))
    watch = _Watch(search, truth)
    bots: list[Bot] = [watch, HeuristicBot(2), HeuristicBot(3)]

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        if not truth:
            truth.append(s)

    play_game(bots, Settings(players=3, turn_cap=60), 4, on_step=hook)
    assert watch.checked > 50
    assert search._tracker is None  # forgotten at the end of the game
