"""Domestic trade between bots: the heuristic's limit on what it gives away, and
the search bot's prior (:class:`bots.search_policy.TraderBot`), which bargains
up to that limit with offers of two for one and counter-offers."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bots import HeuristicBot, play_game
from bots.base import Bot
from bots.heuristic import MAX_OVERPAY
from bots.search_policy import TraderBot
from protocol.rules import (
    AcceptTrade,
    Action,
    CancelTrade,
    Cards,
    ConfirmTrade,
    CounterOffer,
    Event,
    GameState,
    OfferTrade,
    Phase,
    RejectTrade,
    RollDice,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)
from protocol.rules.board import WOOL
from protocol.rules.events import TradeCompleted
from tests.rules.helpers import cards


def _main_phase(seed: int = 3) -> GameState:
    """A 4-player game set up by heuristic bots, just after its first roll
    (forced to 5: no robber in these scenarios)."""
    s = new_game(Settings(players=4), seed)
    bot = HeuristicBot(0)
    while True:
        seat = to_act(s)[0]
        if s.phase == Phase.MAIN:
            return s
        legal = legal_actions(s, seat)
        action = bot.act(observe(s, seat), legal)
        if isinstance(action, RollDice) and s.phase == Phase.PRE_ROLL:
            apply(s, action, seat, (2, 3))
        else:
            apply(s, action, seat)


def _offer(s: GameState, give: Cards, get: Cards) -> None:
    """The current player offers ``give`` for ``get`` to everyone."""
    apply(s, OfferTrade(give, get, None), s.current)


def _answer(bot: HeuristicBot, s: GameState, seat: int) -> Action:
    bot.raise_errors = True
    return bot.act(observe(s, seat), legal_actions(s, seat))


# -- the heuristic's limit ----------------------------------------------------------


def test_heuristic_accepts_one_for_one_but_not_three_for_one() -> None:
    """A card that completes its city is worth one spare card, not three: the
    heuristic never gives more than MAX_OVERPAY cards beyond what it gets."""
    for asked, expected in ((1, AcceptTrade()), (1 + MAX_OVERPAY + 1, RejectTrade())):
        s = _main_phase()
        p, q = s.current, (s.current + 1) % 4
        s.hands[p] = [2, 2, 0, 2, 2]
        s.hands[q] = [4, 0, 4, 2, 2]  # one ore short of a city, wool to spare
        _offer(s, cards(ore=1), cards(wool=asked))
        assert _answer(HeuristicBot(1), s, q) == expected, asked


def test_heuristic_offerer_confirms_a_counter_within_the_limit_only() -> None:
    for asked, take in ((1 + MAX_OVERPAY, True), (2 + MAX_OVERPAY, False)):
        s = _main_phase()
        p, q = s.current, (s.current + 1) % 4
        s.hands[p] = [4, 0, 4, 2, 2]  # one ore short of a city
        s.hands[q] = [2, 2, 0, 2, 2]
        _offer(s, cards(wool=1), cards(ore=1))
        # q gives the ore but asks for more wool than was offered
        apply(s, CounterOffer(cards(ore=1), cards(wool=asked)), q)
        for other in range(4):
            if other not in (p, q):
                apply(s, RejectTrade(), other)
        action = _answer(HeuristicBot(1), s, p)
        assert action == (ConfirmTrade(q) if take else CancelTrade()), asked


# -- the trader ------------------------------------------------------------------------


def test_trader_counters_a_one_for_one_offer_with_one_more_card() -> None:
    s = _main_phase()
    p, q = s.current, (s.current + 1) % 4
    s.hands[p] = [3, 3, 0, 3, 3]
    s.hands[q] = [4, 0, 4, 2, 2]  # the heuristic would accept ore for wool
    _offer(s, cards(ore=1), cards(wool=1))
    assert _answer(HeuristicBot(1), s, q) == AcceptTrade()
    action = _answer(TraderBot(1), s, q)
    assert isinstance(action, CounterOffer)
    assert action.give == cards(wool=1)  # what the offerer asked for
    extra = [action.get[r] - cards(ore=1)[r] for r in range(5)]
    assert sorted(extra) == [0, 0, 0, 0, 1] and extra[WOOL] == 0
    apply(s, action, q)  # a legal counter-offer


def test_trader_does_not_counter_an_offer_already_at_the_limit() -> None:
    s = _main_phase()
    p, q = s.current, (s.current + 1) % 4
    s.hands[p] = [3, 3, 0, 3, 3]
    s.hands[q] = [4, 0, 4, 2, 2]
    _offer(s, cards(ore=1, lumber=1), cards(wool=1))  # two for one already
    assert _answer(TraderBot(1), s, q) == _answer(HeuristicBot(1), s, q) == AcceptTrade()


def test_trader_asks_two_for_one_first() -> None:
    """Its first offer of a turn asks two cards for one spare card."""
    firsts: dict[tuple[int, int], OfferTrade] = {}  # (game, turn) -> first offer
    for seed in range(3):
        bots: list[Bot] = [HeuristicBot(seed * 4 + q) for q in range(4)]
        bots[0] = TraderBot(seed)

        def hook(s: GameState, seat: int, action: Action, events: list[Event],
                 seed: int = seed) -> None:
            if seat == 0 and isinstance(action, OfferTrade):
                firsts.setdefault((seed, s.turn), action)

        play_game(bots, Settings(turn_cap=1000), seed, keep_log=False, on_step=hook)
    assert len(firsts) >= 10
    assert all(sum(a.give) == 1 and sum(a.get) == 2 for a in firsts.values())


def test_trades_in_full_games_respect_the_heuristics_limit() -> None:
    """One trader and three heuristic bots: the trader counter-offers and its
    bargains go through, but no heuristic seat ever gives more than
    MAX_OVERPAY cards beyond what it gets."""
    counts: Counter[str] = Counter()
    for seed in range(4):
        trader = seed % 4
        bots: list[Bot] = [HeuristicBot(seed * 4 + q) for q in range(4)]
        bots[trader] = TraderBot(seed)

        def hook(s: GameState, seat: int, action: Action, events: list[Event],
                 trader: int = trader) -> None:
            counts[action.name] += seat == trader
            for e in events:
                if not isinstance(e, TradeCompleted):
                    continue
                counts["completed"] += 1
                if e.seat != trader:  # a heuristic offerer: gave, got
                    assert sum(e.gave) - sum(e.got) <= MAX_OVERPAY
                if e.partner != trader:  # a heuristic partner gives what the offerer got
                    assert sum(e.got) - sum(e.gave) <= MAX_OVERPAY
                if trader in (e.seat, e.partner):
                    counts["trader_completed"] += 1

        play_game(bots, Settings(turn_cap=1000), seed, keep_log=False, on_step=hook)
    assert counts["counter_offer"] > 0
    assert counts["trader_completed"] > 0
    assert counts["completed"] > counts["trader_completed"]  # heuristic bots trade too


# -- people at the table ------------------------------------------------------------------


class _Recording(TraderBot):
    """A trader that notes the offers it opens (not counters to a proposal)."""

    def __init__(self, seed: int, game: int, log: list[tuple[int, int, int | None]]) -> None:
        super().__init__(seed)
        self.game, self.log = game, log

    def act(self, view: Any, legal: Any) -> Action:
        action = super().act(view, legal)
        proposers = {q for q, p in enumerate(view.get("proposals") or []) if p}
        if isinstance(action, OfferTrade) and action.to not in proposers:
            self.log.append((self.game, view["turn"], action.to))
        return action


def _offers(humans: frozenset[int], games: int = 6) -> list[tuple[int, int, int]]:
    """(game, turn, to: -1 for everyone) of each offer seat 0 (a trader told
    which seats people play) opens over a few games against heuristic bots."""
    log: list[tuple[int, int, int | None]] = []
    for seed in range(games):
        trader = _Recording(seed, seed, log)
        trader.humans = humans
        bots: list[Bot] = [trader] + [HeuristicBot(seed * 10 + q) for q in range(1, 4)]
        play_game(bots, Settings(players=4, turn_cap=200), seed)
    return [(g, t, -1 if to is None else to) for g, t, to in log]


def _to_people_per_turn(log: list[tuple[int, int, int]], people: set[int]) -> Counter[Any]:
    return Counter((g, t) for g, t, to in log if to == -1 or to in people)


def test_bots_ask_bots_first_and_people_at_most_once_a_turn() -> None:
    """Issue 17: a bot's offers prompt people far less than bots. With people in
    seats 1 and 2 the trader addresses its offers to the bot in seat 3 (to
    everyone at most once a turn, when seat 3 cannot answer); with people
    everywhere it makes at most one offer a turn; without people it offers to
    everyone, several times a turn."""
    free = _offers(frozenset())
    assert {to for _, _, to in free} == {-1}
    assert max(Counter((g, t) for g, t, _ in free).values()) > 1
    mixed = _offers(frozenset({1, 2}))
    assert {to for _, _, to in mixed} <= {3, -1} and any(to == 3 for _, _, to in mixed)
    assert max(_to_people_per_turn(mixed, {1, 2}).values()) == 1
    people = _offers(frozenset({1, 2, 3}))
    assert people and max(_to_people_per_turn(people, {1, 2, 3}).values()) == 1
    assert len(_to_people_per_turn(people, {1, 2, 3})) == len(people)
    assert len(people) < len(free) / 2


def test_a_stand_in_never_opens_a_trade() -> None:
    """Issue 17: a bot playing a missing person's seat answers and plays, but
    never offers or proposes with that person's cards."""
    opened: list[Action] = []

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        if seat == 0 and type(action).__name__ in ("OfferTrade", "ProposeTrade"):
            opened.append(action)

    for seed in range(4):
        stand_in = HeuristicBot(seed)
        stand_in.offers = False
        bots: list[Bot] = [stand_in] + [TraderBot(seed * 10 + q) for q in range(1, 4)]
        play_game(bots, Settings(players=4, turn_cap=200), seed, on_step=hook)
    assert opened == []


# -- the first acceptable answer ------------------------------------------------------------


def test_the_offerer_takes_the_first_acceptable_answer_at_once() -> None:
    """Issue 17: an offerer need not wait for every answer. As soon as one seat
    accepts, the heuristic confirms (act_early) while the others still think;
    an answer it would not take leaves it waiting (None)."""
    s = _main_phase()
    p, q = s.current, (s.current + 1) % 4
    s.hands[p] = [4, 0, 4, 2, 2]  # one ore short of a city
    s.hands[q] = [2, 2, 0, 2, 2]
    _offer(s, cards(wool=1), cards(ore=1))
    apply(s, AcceptTrade(), q)
    assert p not in to_act(s) and len(to_act(s)) == 2  # two seats still deciding
    bot = HeuristicBot(1)
    bot.raise_errors = True
    assert bot.act_early(observe(s, p), legal_actions(s, p)) == ConfirmTrade(q)
    # a counter asking too much: keep waiting for the others
    s = _main_phase()
    s.hands[p] = [4, 0, 4, 2, 2]
    s.hands[q] = [2, 2, 0, 2, 2]
    _offer(s, cards(wool=1), cards(ore=1))
    apply(s, CounterOffer(cards(ore=1), cards(wool=2 + MAX_OVERPAY)), q)
    assert bot.act_early(observe(s, p), legal_actions(s, p)) is None


def test_in_process_games_confirm_before_everyone_answered() -> None:
    early: list[int] = []

    class Recording(HeuristicBot):
        def act_early(self, view: Any, legal: Any) -> Action | None:
            action = super().act_early(view, legal)
            if action is not None:
                early.append(len(view["to_act"]))
            return action

    for seed in range(4):
        bots: list[Bot] = [Recording(seed * 4 + q) for q in range(4)]
        play_game(bots, Settings(players=4, turn_cap=200), seed)
    assert early and all(n >= 1 for n in early)  # confirmed while seats were deciding
