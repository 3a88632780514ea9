"""How the bots of every level answer a person's trade offers: fair ones that
help them are taken, a leader's refused, each answer with a reason for the
window (``Bot.reason``, sent with the answer)."""

from __future__ import annotations

from bots import GreedyBot, HeuristicBot, SearchBot
from bots.base import Bot
from bots.search_policy import TraderBot
from kaitaku.bench_trades import bench_trades
from protocol.rules import (
    AcceptProposal,
    AcceptTrade,
    CounterOffer,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    apply,
    legal_actions,
    observe,
)
from protocol.wire import TRADE_REASONS
from tests.bots.test_trading import _main_phase, _offer
from tests.rules.helpers import cards


def _ask(bot: Bot, person: int | None, seat: int, s: object) -> tuple[object, str | None]:
    bot.humans = frozenset() if person is None else frozenset({person})
    legal = legal_actions(s, seat)  # type: ignore[arg-type]
    action = bot.act(observe(s, seat, legal), legal)  # type: ignore[arg-type]
    return action, bot.reason


def _city_position() -> tuple[object, int, int]:
    """Seat q is one ore short of a city and holds wool it can spare; the
    person p on turn offers one ore for one wool."""
    s = _main_phase()
    p, q = s.current, (s.current + 1) % 4
    s.hands[p] = [3, 3, 0, 3, 3]
    s.hands[q] = [4, 0, 4, 2, 2]
    _offer(s, cards(ore=1), cards(wool=1))
    return s, p, q


def test_every_level_takes_a_persons_offer_that_completes_its_city() -> None:
    for bot in (GreedyBot(1), HeuristicBot(1), SearchBot(budget=0.05, seed=1)):
        s, p, q = _city_position()
        action, why = _ask(bot, p, q, s)
        assert action == AcceptTrade(), bot.name
        assert why == "completes", bot.name
        apply(s, action, q)  # type: ignore[arg-type]


def test_the_hard_bot_still_bargains_with_bots() -> None:
    """Between bots the search bot's prior counter-offers as before (its edge)."""
    s, p, q = _city_position()
    action, why = _ask(TraderBot(1), None, q, s)
    assert isinstance(action, CounterOffer) and why == "counter"
    s, p, q = _city_position()
    action, why = _ask(TraderBot(1), p, q, s)
    assert action == AcceptTrade() and why == "completes"


def test_no_level_trades_with_a_seat_about_to_win() -> None:
    for bot in (GreedyBot(1), HeuristicBot(1), TraderBot(1)):
        s, p, q = _city_position()
        s.vp[p] = s.settings.vp_target - 2
        action, why = _ask(bot, p, q, s)
        assert action == RejectTrade() and why == "leader", bot.name


def _wool_for(give: tuple[int, ...], wool: int) -> tuple[object, int, int]:
    s = _main_phase()
    p, q = s.current, (s.current + 1) % 4
    s.hands[p] = [3, 3, 0, 3, 3]
    s.hands[q] = [4, 0, 4, 2, 2]
    _offer(s, give, cards(wool=wool))
    return s, p, q


def test_refusals_say_why() -> None:
    for bot in (GreedyBot(1), HeuristicBot(1)):
        s, p, q = _wool_for(cards(ore=1), 3)  # asks for more than it gives
        action, why = _ask(bot, p, q, s)
        assert action == RejectTrade() and why == "too_much", bot.name
        s, p, q = _wool_for(cards(lumber=1), 1)  # lumber: it has plenty
        action, why = _ask(bot, p, q, s)
        assert action == RejectTrade() and why == "no_use", bot.name
    assert {"completes", "closer", "leader", "no_use", "keeps", "too_much",
            "counter"} == set(TRADE_REASONS)


def test_the_easy_bot_answers_a_persons_proposal_on_its_turn() -> None:
    s = _main_phase()
    cur = s.current
    q = (cur + 1) % 4
    s.hands[cur] = [4, 0, 4, 2, 2]  # one ore short of a city
    s.hands[q] = [3, 3, 0, 3, 3]
    apply(s, ProposeTrade(cards(ore=1), cards(wool=1)), q)
    action, why = _ask(GreedyBot(1), q, cur, s)
    assert action == AcceptProposal(q) and why == "completes"
    s.vp[q] = s.settings.vp_target - 2
    action, why = _ask(GreedyBot(1), q, cur, s)
    assert action == RejectProposal(q) and why == "leader"


def test_the_measure_most_fair_offers_accepted_at_every_level() -> None:
    """``kaitaku bench trades`` on a few seeded positions: at every level most
    offers that complete a build are taken, none from a seat about to win."""
    result = bench_trades(12, seed=5)
    for level, row in result["levels"].items():
        done = row["completes"]
        assert done["offers"] == 12
        assert done["accept"] > done["offers"] // 2, level
        assert row["closer"]["accept"] >= row["closer"]["offers"] // 2, level
        assert row["leader"]["accept"] == 0, level
