"""R-TRADE-*: domestic and maritime trade, harbors, public hand sizes."""

from __future__ import annotations

from protocol.rules import (
    AcceptTrade,
    BuildCity,
    BuildSettlement,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    GameState,
    IllegalAction,
    MaritimeTrade,
    NotYourTurn,
    OfferTrade,
    Phase,
    RejectTrade,
    apply,
    legal_actions,
    observe,
    to_act,
    validate,
)
from protocol.rules.board import BRICK, GRAIN, LUMBER, ORE, WOOL
from protocol.rules.events import (
    MaritimeTraded,
    TradeAnswered,
    TradeCancelled,
    TradeCompleted,
    TradeCountered,
    TradeOffered,
)

from .helpers import (
    CITY_COST,
    SETTLEMENT_COST,
    assert_illegal,
    build,
    cards,
    check_conservation,
    give,
    path,
    scenario,
)


def _traders() -> GameState:
    """Seat 0 on turn (MAIN) with 2 lumber, 2 brick; seats 1-3 with wool, grain, ore."""
    s = scenario()
    give(s, 0, cards(lumber=2, brick=2))
    give(s, 1, cards(wool=2))
    give(s, 2, cards(grain=2))
    give(s, 3, cards(ore=2))
    return s


def test_only_the_current_player_trades_R_TRADE_1() -> None:
    s = _traders()
    for seat in (1, 2, 3):
        err = assert_illegal(s, OfferTrade(cards(wool=1), cards(lumber=1)), seat)
        assert isinstance(err, NotYourTurn)
        assert isinstance(assert_illegal(s, MaritimeTrade(WOOL, ORE), seat), NotYourTurn)


def test_no_trade_before_the_roll_is_resolved_R_TRADE_1() -> None:
    s = _traders()
    s.phase = Phase.PRE_ROLL
    s.rolled = False
    assert_illegal(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0, "wrong_phase")
    give(s, 0, cards(lumber=2))
    assert_illegal(s, MaritimeTrade(LUMBER, WOOL), 0, "wrong_phase")


def test_any_number_of_trades_per_turn_R_TRADE_1() -> None:
    s = _traders()
    give(s, 0, cards(ore=8))
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    apply(s, AcceptTrade(), 1)
    apply(s, ConfirmTrade(1), 0)
    apply(s, OfferTrade(cards(brick=1), cards(grain=1)), 0)
    apply(s, AcceptTrade(), 2)
    apply(s, ConfirmTrade(2), 0)
    apply(s, MaritimeTrade(ORE, WOOL), 0)
    apply(s, MaritimeTrade(ORE, GRAIN), 0)
    assert s.hands[0] == list(cards(lumber=1, brick=1, wool=2, grain=2))
    assert s.phase == Phase.MAIN
    check_conservation(s)


def test_domestic_trade_exchanges_cards_R_TRADE_2() -> None:
    s = _traders()
    events = apply(s, OfferTrade(cards(lumber=1, brick=1), cards(grain=2)), 0)
    assert events == [TradeOffered(0, cards(lumber=1, brick=1), cards(grain=2), (1, 2, 3))]
    assert s.phase == Phase.TRADE
    assert set(to_act(s)) == {1, 2, 3}
    assert legal_actions(s, 1) == [RejectTrade()]  # seat 1 has no grain
    assert_illegal(s, AcceptTrade(), 1, "cannot_afford")
    apply(s, RejectTrade(), 1)
    assert apply(s, AcceptTrade(), 2) == [TradeAnswered(2, True)]
    apply(s, RejectTrade(), 3)
    assert to_act(s) == (0,)
    assert_illegal(s, ConfirmTrade(1), 0, "bad_trade")  # seat 1 rejected
    events = apply(s, ConfirmTrade(2), 0)
    assert events == [TradeCompleted(0, 2, cards(lumber=1, brick=1), cards(grain=2))]
    assert s.hands[0] == list(cards(lumber=1, brick=1, grain=2))
    assert s.hands[2] == list(cards(lumber=1, brick=1))
    assert s.phase == Phase.MAIN and s.trade is None
    check_conservation(s)


def test_no_gifts_both_sides_give_a_card_R_TRADE_2() -> None:
    s = _traders()
    assert_illegal(s, OfferTrade(cards(lumber=1), cards()), 0, "bad_trade")
    assert_illegal(s, OfferTrade(cards(), cards(wool=1)), 0, "bad_trade")
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    assert_illegal(s, CounterOffer(cards(), cards(lumber=1)), 1, "bad_trade")
    assert_illegal(s, CounterOffer(cards(wool=1), cards()), 1, "bad_trade")


def test_no_promise_of_cards_not_held_R_TRADE_2() -> None:
    s = _traders()
    assert_illegal(s, OfferTrade(cards(ore=1), cards(wool=1)), 0, "cannot_afford")
    assert_illegal(s, OfferTrade(cards(lumber=3), cards(wool=1)), 0, "cannot_afford")
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    assert_illegal(s, CounterOffer(cards(wool=3), cards(lumber=1)), 1, "cannot_afford")


def test_players_off_turn_cannot_trade_with_each_other_R_TRADE_2() -> None:
    s = _traders()
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    apply(s, AcceptTrade(), 1)
    # Seat 1 cannot close a deal, with seat 0 or anyone else.
    assert isinstance(assert_illegal(s, ConfirmTrade(2), 1), NotYourTurn)
    assert isinstance(assert_illegal(s, OfferTrade(cards(wool=1), cards(grain=1)), 1),
                      IllegalAction)


def test_offer_to_one_seat_only_R_TRADE_2() -> None:
    s = _traders()
    events = apply(s, OfferTrade(cards(lumber=1), cards(ore=1), to=3), 0)
    assert events == [TradeOffered(0, cards(lumber=1), cards(ore=1), (3,))]
    assert to_act(s) == (3,)
    assert isinstance(assert_illegal(s, AcceptTrade(), 2), NotYourTurn)
    assert_illegal(s, OfferTrade(cards(lumber=1), cards(ore=1), to=0), 0)
    apply(s, AcceptTrade(), 3)
    apply(s, ConfirmTrade(3), 0)
    assert s.hands[3] == list(cards(lumber=1, ore=1))


def test_counter_offer_to_the_current_player_R_TRADE_2() -> None:
    s = _traders()
    apply(s, OfferTrade(cards(lumber=1), cards(ore=1)), 0)
    # Seat 3 wants more: 2 ore for 1 lumber and 1 brick (from seat 3's side).
    events = apply(s, CounterOffer(cards(ore=2), cards(lumber=1, brick=1)), 3)
    assert events == [TradeCountered(3, cards(ore=2), cards(lumber=1, brick=1))]
    apply(s, RejectTrade(), 1)
    apply(s, RejectTrade(), 2)
    assert ConfirmTrade(3) in legal_actions(s, 0)
    events = apply(s, ConfirmTrade(3), 0)
    assert events == [TradeCompleted(0, 3, cards(lumber=1, brick=1), cards(ore=2))]
    assert s.hands[0] == list(cards(lumber=1, brick=1, ore=2))
    assert s.hands[3] == list(cards(lumber=1, brick=1))


def test_current_player_may_decline_every_answer_R_TRADE_2() -> None:
    s = _traders()
    before = [h[:] for h in s.hands]
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    apply(s, AcceptTrade(), 1)
    assert apply(s, CancelTrade(), 0) == [TradeCancelled(0)]
    assert s.hands == before
    assert s.phase == Phase.MAIN
    assert isinstance(assert_illegal(s, CancelTrade(), 1), NotYourTurn)


def test_maritime_four_to_one_without_harbor_R_TRADE_3() -> None:
    s = scenario()
    build(s, 0, settlements=[4])  # next to harbor nodes 0 and 1, but not on one
    assert s.ratios[0] == [4] * 5
    give(s, 0, cards(ore=3))
    assert_illegal(s, MaritimeTrade(ORE, WOOL), 0, "cannot_afford")
    give(s, 0, cards(ore=2))
    events = apply(s, MaritimeTrade(ORE, WOOL), 0)
    assert events == [MaritimeTraded(0, ORE, 4, WOOL)]
    assert s.hands[0] == list(cards(wool=1, ore=1))
    assert s.bank[ORE] == 19 - 1 and s.bank[WOOL] == 18


def test_maritime_three_to_one_on_a_generic_harbor_R_TRADE_3() -> None:
    s = scenario()
    build(s, 0, settlements=[0])  # generic harbor
    assert s.ratios[0] == [3] * 5
    give(s, 0, cards(lumber=3, grain=2))
    assert_illegal(s, MaritimeTrade(GRAIN, ORE), 0, "cannot_afford")
    apply(s, MaritimeTrade(LUMBER, ORE), 0)
    assert s.hands[0] == list(cards(grain=2, ore=1))


def test_maritime_two_to_one_only_for_the_harbor_resource_R_TRADE_3() -> None:
    s = scenario()
    build(s, 0, settlements=[5])  # 2:1 grain harbor
    assert s.ratios[0] == [4, 4, 4, 2, 4]
    give(s, 0, cards(grain=2, wool=3))
    assert_illegal(s, MaritimeTrade(WOOL, ORE), 0, "cannot_afford")
    apply(s, MaritimeTrade(GRAIN, ORE), 0)
    assert s.hands[0] == list(cards(wool=3, ore=1))


def test_city_on_a_harbor_and_several_harbors_R_TRADE_3() -> None:
    s = scenario()
    build(s, 0, cities=[6], settlements=[3])  # 2:1 ore and generic 3:1
    assert s.ratios[0] == [3, 3, 3, 3, 2]
    give(s, 0, cards(ore=2, brick=3))
    apply(s, MaritimeTrade(ORE, LUMBER), 0)
    apply(s, MaritimeTrade(BRICK, LUMBER), 0)
    assert s.hands[0] == list(cards(lumber=2))


def test_maritime_no_mixed_lots_R_TRADE_3() -> None:
    s = scenario()
    give(s, 0, cards(lumber=2, brick=2, wool=1, grain=1))
    assert_illegal(s, MaritimeTrade(LUMBER, ORE), 0, "cannot_afford")
    assert_illegal(s, MaritimeTrade(BRICK, ORE), 0, "cannot_afford")
    assert not [a for a in legal_actions(s, 0) if isinstance(a, MaritimeTrade)]
    give(s, 0, cards(lumber=2))
    assert_illegal(s, MaritimeTrade(LUMBER, LUMBER), 0, "bad_trade")


def test_maritime_bank_must_hold_the_card_R_TRADE_3() -> None:
    s = scenario()
    give(s, 0, cards(lumber=4))
    give(s, 1, cards(ore=19))
    assert_illegal(s, MaritimeTrade(LUMBER, ORE), 0, "bank_short")
    trades = [a for a in legal_actions(s, 0) if isinstance(a, MaritimeTrade)]
    assert trades == [MaritimeTrade(LUMBER, r) for r in (BRICK, WOOL, GRAIN)]


def test_harbor_usable_on_the_turn_it_was_built_R_TRADE_4() -> None:
    s = scenario()
    build(s, 0, settlements=[11], roads=path(11, 7, 3))
    give(s, 0, SETTLEMENT_COST)
    give(s, 0, cards(ore=3))
    apply(s, BuildSettlement(3), 0)  # generic harbor
    assert s.ratios[0] == [3] * 5
    apply(s, MaritimeTrade(ORE, GRAIN), 0)
    assert s.hands[0] == list(cards(grain=1))


def test_harbor_from_a_new_city_usable_at_once_R_TRADE_4() -> None:
    s = scenario()
    build(s, 0, settlements=[10])  # ore harbor: 2:1 already
    give(s, 0, CITY_COST)
    give(s, 0, cards(ore=2))
    apply(s, BuildCity(10), 0)
    apply(s, MaritimeTrade(ORE, WOOL), 0)
    assert s.hands[0] == list(cards(wool=1))


def test_hand_sizes_public_contents_private_R_TRADE_5() -> None:
    s = _traders()
    give(s, 1, cards(ore=3))
    for seat in range(4):
        view = observe(s, seat)
        assert [v["cards"] for v in view["seats"]] == [4, 5, 2, 2]
        assert view["you"]["hand"] == s.hands[seat]
        assert all("hand" not in v for v in view["seats"])
    spectator = observe(s, None)
    assert spectator["you"] is None
    assert [v["cards"] for v in spectator["seats"]] == [4, 5, 2, 2]
    # An offer's terms are public, but not the answering seats' hands.
    apply(s, OfferTrade(cards(lumber=1), cards(wool=1)), 0)
    assert observe(s, 2)["trade"]["give"] == [1, 0, 0, 0, 0]
    assert "hands" not in observe(s, 2)
    validate(s, AcceptTrade(), 1)
