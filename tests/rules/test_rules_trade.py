"""R-TRADE-*: domestic and maritime trade, harbors, public hand sizes."""

from __future__ import annotations

from protocol.rules import (
    MAX_OFFERS,
    MAX_PROPOSALS,
    AcceptProposal,
    AcceptTrade,
    BuildCity,
    BuildSettlement,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    EndTurn,
    GameState,
    IllegalAction,
    MaritimeTrade,
    NotYourTurn,
    OfferTrade,
    Phase,
    PlayKnight,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    WithdrawProposal,
    apply,
    legal_actions,
    may_propose,
    observe,
    to_act,
    validate,
)
from protocol.rules.board import BRICK, GRAIN, LUMBER, ORE, WOOL
from protocol.rules.events import (
    MaritimeTraded,
    ProposalRejected,
    ProposalWithdrawn,
    TradeAnswered,
    TradeCancelled,
    TradeCompleted,
    TradeCountered,
    TradeOffered,
    TradeProposed,
)

from .helpers import (
    CITY_COST,
    KNIGHT,
    SETTLEMENT_COST,
    assert_illegal,
    build,
    cards,
    check_conservation,
    give,
    give_dev,
    path,
    roll,
    scenario,
    two_player,
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


# --- proposals to the current player (R-TRADE-2: "either side may propose") ---------


def test_seat_off_turn_proposes_to_the_current_player_R_TRADE_2() -> None:
    s = _traders()
    assert may_propose(s, 1) and not may_propose(s, 0)
    # From seat 1's side: 1 wool for 1 brick.
    events = apply(s, ProposeTrade(cards(wool=1), cards(brick=1)), 1)
    assert events == [TradeProposed(1, cards(wool=1), cards(brick=1))]
    assert s.phase == Phase.MAIN and to_act(s) == (0,)
    assert observe(s, 2)["proposals"] == [None, [list(cards(wool=1)), list(cards(brick=1))],
                                          None, None]
    assert observe(s, 2)["seats"][1]["proposals_made"] == 1
    legal = legal_actions(s, 0)
    assert AcceptProposal(1) in legal and RejectProposal(1) in legal
    assert legal[-1] == EndTurn()
    events = apply(s, AcceptProposal(1), 0)
    assert events == [TradeCompleted(0, 1, cards(brick=1), cards(wool=1))]
    assert s.hands[0] == list(cards(lumber=2, brick=1, wool=1))
    assert s.hands[1] == list(cards(wool=1, brick=1))
    assert s.proposals == {}
    check_conservation(s)


def test_current_player_rejects_a_proposal_R_TRADE_2() -> None:
    s = _traders()
    apply(s, ProposeTrade(cards(ore=1), cards(lumber=1)), 3)
    assert not may_propose(s, 3)  # one open proposal per seat
    assert_illegal(s, ProposeTrade(cards(ore=2), cards(lumber=1)), 3, "proposal_limit")
    assert apply(s, RejectProposal(3), 0) == [ProposalRejected(3)]
    assert s.proposals == {} and may_propose(s, 3)
    assert_illegal(s, RejectProposal(3), 0, "bad_trade")  # nothing open any more
    assert_illegal(s, AcceptProposal(3), 0, "bad_trade")
    # The proposer may try again with other terms.
    apply(s, ProposeTrade(cards(ore=2), cards(lumber=1)), 3)
    assert s.proposals[3] == (cards(ore=2), cards(lumber=1))


def test_only_the_current_player_answers_a_proposal_R_TRADE_2() -> None:
    s = _traders()
    apply(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1)
    for seat in (1, 2):
        assert isinstance(assert_illegal(s, AcceptProposal(1), seat), NotYourTurn)
        assert isinstance(assert_illegal(s, RejectProposal(1), seat), NotYourTurn)
    assert legal_actions(s, 2) == []


def test_proposer_withdraws_its_proposal_R_TRADE_2() -> None:
    s = _traders()
    apply(s, ProposeTrade(cards(grain=1), cards(brick=1)), 2)
    assert legal_actions(s, 2) == [WithdrawProposal()]
    assert legal_actions(s, 1) == []
    assert isinstance(assert_illegal(s, WithdrawProposal(), 1), NotYourTurn)
    assert apply(s, WithdrawProposal(), 2) == [ProposalWithdrawn(2)]
    assert s.proposals == {} and legal_actions(s, 2) == []
    assert not any(isinstance(a, AcceptProposal) for a in legal_actions(s, 0))


def test_proposals_are_limited_per_turn_R_TRADE_2() -> None:
    assert MAX_PROPOSALS == 3
    s = _traders()
    for _ in range(MAX_PROPOSALS):
        apply(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1)
        apply(s, RejectProposal(1), 0)
    assert not may_propose(s, 1)
    assert_illegal(s, ProposeTrade(cards(wool=1), cards(brick=1)), 1, "proposal_limit")
    assert observe(s, 0)["seats"][1]["proposals_made"] == MAX_PROPOSALS
    # Other seats have their own allowance; the next turn starts afresh.
    apply(s, ProposeTrade(cards(ore=1), cards(brick=1)), 3)
    apply(s, EndTurn(), 0)
    assert s.proposals == {} and s.proposals_made == [0, 0, 0, 0]
    roll(s, 6)
    assert s.current == 1
    apply(s, ProposeTrade(cards(lumber=1), cards(wool=1)), 0)


def test_offers_are_limited_per_turn_R_TRADE_2() -> None:
    """A player opens at most MAX_OFFERS domestic offers a turn (offer_limit), so
    that nobody can hold a game for ever with offers; answers, confirms,
    maritime trade and proposals are not counted, and the next turn starts afresh."""
    assert MAX_OFFERS == 10
    s = _traders()
    for k in range(MAX_OFFERS):
        assert observe(s, 1)["seats"][0]["offers_made"] == k
        apply(s, OfferTrade(cards(lumber=1), cards(wool=1), None), 0)
        apply(s, CounterOffer(cards(wool=1), cards(brick=1)), 1)
        apply(s, CancelTrade(), 0)
    assert observe(s, 2)["seats"][0]["offers_made"] == MAX_OFFERS
    err = assert_illegal(s, OfferTrade(cards(brick=1), cards(ore=1), 3), 0, "offer_limit")
    assert str(MAX_OFFERS) in str(err)
    assert s.phase == Phase.MAIN and s.trade is None
    apply(s, ProposeTrade(cards(ore=1), cards(lumber=1)), 3)  # proposals are not offers
    apply(s, AcceptProposal(3), 0)
    apply(s, EndTurn(), 0)
    assert s.offers_made == [0, 0, 0, 0]
    roll(s, 6)
    assert s.current == 1
    apply(s, OfferTrade(cards(wool=1), cards(ore=1), 3), 1)
    assert s.offers_made == [0, 1, 0, 0]


def test_proposals_only_while_the_current_player_may_trade_R_TRADE_2() -> None:
    s = _traders()
    s.phase = Phase.PRE_ROLL
    s.rolled = False
    assert not may_propose(s, 1)
    assert_illegal(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1, "wrong_phase")
    s.phase = Phase.MAIN
    s.rolled = True
    # The current player offers, it does not propose to itself.
    assert_illegal(s, ProposeTrade(cards(lumber=1), cards(wool=1)), 0, "bad_trade")
    # While an offer of the current player is open, nobody proposes.
    apply(s, OfferTrade(cards(lumber=1), cards(ore=1), to=3), 0)
    assert not may_propose(s, 1)
    assert_illegal(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1, "wrong_phase")


def test_proposal_terms_R_TRADE_2() -> None:
    s = _traders()
    assert_illegal(s, ProposeTrade(cards(), cards(lumber=1)), 1, "bad_trade")  # no gifts
    assert_illegal(s, ProposeTrade(cards(wool=1), cards()), 1, "bad_trade")
    assert_illegal(s, ProposeTrade(cards(wool=1), cards(wool=1, lumber=1)), 1, "bad_trade")
    assert_illegal(s, ProposeTrade(cards(wool=3), cards(lumber=1)), 1, "cannot_afford")
    assert_illegal(s, ProposeTrade(cards(ore=1), cards(lumber=1)), 1, "cannot_afford")
    # The current player's hand is not checked (it is hidden from the proposer):
    # asking for ore that seat 0 lacks is a valid proposal it cannot accept.
    apply(s, ProposeTrade(cards(wool=1), cards(ore=1)), 1)
    assert AcceptProposal(1) not in legal_actions(s, 0)
    assert RejectProposal(1) in legal_actions(s, 0)
    assert_illegal(s, AcceptProposal(1), 0, "cannot_afford")


def test_offer_answers_the_proposals_it_addresses_R_TRADE_2() -> None:
    s = _traders()
    apply(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1)
    apply(s, ProposeTrade(cards(ore=1), cards(lumber=1)), 3)
    # A counter to seat 3's proposal: an ordinary offer to seat 3.
    events = apply(s, OfferTrade(cards(lumber=1), cards(ore=2), to=3), 0)
    assert events == [TradeOffered(0, cards(lumber=1), cards(ore=2), (3,))]
    assert set(s.proposals) == {1}  # seat 1's proposal waits for the offer to end
    assert observe(s, 0)["proposals"][3] is None
    assert legal_actions(s, 1) == [WithdrawProposal()]
    apply(s, AcceptTrade(), 3)
    apply(s, ConfirmTrade(3), 0)
    assert s.hands[3] == list(cards(lumber=1))
    assert AcceptProposal(1) in legal_actions(s, 0)
    # An offer to everyone answers every proposal.
    apply(s, OfferTrade(cards(lumber=1), cards(grain=1)), 0)
    assert s.proposals == {}


def test_proposals_wait_while_a_card_is_played_R_TRADE_2() -> None:
    s = _traders()
    give_dev(s, 0, KNIGHT)
    apply(s, ProposeTrade(cards(grain=1), cards(brick=1)), 2)
    apply(s, PlayKnight(), 0)
    assert s.phase == Phase.MOVE_ROBBER and set(s.proposals) == {2}
    assert not may_propose(s, 1)
    assert legal_actions(s, 2) == [WithdrawProposal()]
    s.phase = Phase.MAIN  # the robber moved and nobody was robbed
    apply(s, AcceptProposal(2), 0)
    assert s.hands[2] == list(cards(grain=1, brick=1))


def test_accept_needs_the_proposer_to_still_hold_the_cards_R_TRADE_2() -> None:
    s = _traders()
    apply(s, ProposeTrade(cards(ore=2), cards(brick=1)), 3)
    s.hands[3][ORE] = 1  # (as if the robber of the current player took one)
    s.hands[0][ORE] += 1
    assert AcceptProposal(3) not in legal_actions(s, 0)
    assert_illegal(s, AcceptProposal(3), 0, "bad_trade")


def test_proposals_in_the_two_player_game_R_TRADE_2() -> None:
    s = two_player()
    give(s, 0, cards(lumber=1))
    give(s, 1, cards(ore=1))
    assert may_propose(s, 1)
    apply(s, ProposeTrade(cards(ore=1), cards(lumber=1)), 1)
    apply(s, AcceptProposal(1), 0)
    assert s.hands == [list(cards(ore=1)), list(cards(lumber=1))]


def test_proposal_needs_a_card_to_give_R_TRADE_2() -> None:
    s = _traders()
    s.bank[WOOL] += 2
    s.hands[1] = [0, 0, 0, 0, 0]
    assert not may_propose(s, 1)
    assert_illegal(s, ProposeTrade(cards(wool=1), cards(lumber=1)), 1, "cannot_afford")
    validate(s, ProposeTrade(cards(grain=1), cards(lumber=1)), 2)
