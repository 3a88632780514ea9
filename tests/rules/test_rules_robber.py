"""R-ROBBER-*: sevens, discards, moving the robber and stealing."""

from __future__ import annotations

from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    Discard,
    EndTurn,
    GameState,
    MaritimeTrade,
    MoveRobber,
    NotYourTurn,
    OfferTrade,
    Phase,
    RollDice,
    Steal,
    apply,
    legal_actions,
    redact,
    to_act,
)
from protocol.rules.board import BRICK, GRAIN, LUMBER, ORE, WOOL
from protocol.rules.events import (
    Discarded,
    DiscardsOwed,
    Event,
    MaritimeTraded,
    Produced,
    RobberMoved,
    Stolen,
)

from .helpers import (
    CITY_COST,
    DESERT_HEX,
    ROAD_COST,
    SETTLEMENT_COST,
    assert_illegal,
    build,
    cards,
    check_conservation,
    edge,
    give,
    give_dev,
    of_type,
    path,
    scenario,
)

SEVEN = (3, 4)


def _seven(current: int = 0, seed: int = 1) -> tuple[GameState, list[Event]]:
    s = scenario(current=current, phase=Phase.PRE_ROLL, seed=seed)
    return s, apply(s, RollDice(), current, chance=SEVEN)


def test_seven_produces_nothing_R_ROBBER_1() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, cities=[7, 28])  # on hexes 0, 3 (grain 2), 7, 8, 12
    build(s, 1, settlements=[40, 19])
    events = apply(s, RollDice(), 0, chance=SEVEN)
    assert not of_type(events, Produced)
    assert s.hands == [[0] * 5 for _ in range(4)]
    assert s.bank == [19] * 5
    assert s.phase == Phase.MOVE_ROBBER


def test_discard_half_rounded_down_R_ROBBER_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give(s, 0, cards(lumber=5, brick=5))  # 10 -> 5
    give(s, 1, cards(wool=9))  # 9 -> 4
    give(s, 2, cards(grain=4, ore=4))  # 8 -> 4
    give(s, 3, cards(ore=7))  # 7 -> keeps all
    events = apply(s, RollDice(), 0, chance=SEVEN)
    assert of_type(events, DiscardsOwed) == [DiscardsOwed((5, 4, 4, 0))]
    assert s.phase == Phase.DISCARD
    assert set(to_act(s)) == {0, 1, 2}
    apply(s, Discard(cards(wool=4)), 1)
    apply(s, Discard(cards(lumber=5)), 0)
    assert s.phase == Phase.DISCARD
    events = apply(s, Discard(cards(grain=1, ore=3)), 2)
    assert events == [Discarded(2, cards(grain=1, ore=3))]
    assert [sum(h) for h in s.hands] == [5, 5, 4, 7]
    assert s.hands[2] == list(cards(grain=3, ore=1))
    assert s.phase == Phase.MOVE_ROBBER
    check_conservation(s)  # the discards went back to the bank


def test_discard_chosen_by_the_player_R_ROBBER_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give(s, 1, cards(lumber=2, brick=2, wool=2, grain=2))
    apply(s, RollDice(), 0, chance=SEVEN)
    options = legal_actions(s, 1)
    assert Discard(cards(lumber=2, brick=2)) in options
    assert Discard(cards(wool=1, grain=2, brick=1)) in options
    assert all(isinstance(a, Discard) and sum(a.cards) == 4 for a in options)
    apply(s, Discard(cards(wool=2, grain=2)), 1)
    assert s.hands[1] == list(cards(lumber=2, brick=2))


def test_discard_must_be_exactly_half_of_held_cards_R_ROBBER_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give(s, 1, cards(wool=9))
    apply(s, RollDice(), 0, chance=SEVEN)
    assert_illegal(s, Discard(cards(wool=3)), 1, "wrong_count")
    assert_illegal(s, Discard(cards(wool=5)), 1, "wrong_count")
    assert_illegal(s, Discard(cards(ore=4)), 1, "cannot_afford")
    assert isinstance(assert_illegal(s, Discard(cards(wool=4)), 2), NotYourTurn)
    # The robber waits for the discards.
    assert_illegal(s, MoveRobber(0), 0, "wrong_phase")


def test_development_cards_do_not_count_for_discards_R_ROBBER_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give(s, 1, cards(ore=7))
    give_dev(s, 1, 0, 3)
    give_dev(s, 1, 4, 2)
    apply(s, RollDice(), 0, chance=SEVEN)
    assert s.phase == Phase.MOVE_ROBBER
    assert s.discard_owed == [0, 0, 0, 0]
    assert s.hands[1] == list(cards(ore=7))


def test_discard_happens_once_per_seven_R_ROBBER_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give(s, 1, cards(lumber=9, ore=8))  # 17 cards: discard 8, 9 remain
    apply(s, RollDice(), 0, chance=SEVEN)
    assert s.discard_owed == [0, 8, 0, 0]
    apply(s, Discard(cards(lumber=8)), 1)
    assert sum(s.hands[1]) == 9
    assert s.discard_owed == [0, 0, 0, 0]
    assert s.phase == Phase.MOVE_ROBBER
    assert legal_actions(s, 1) == []


def test_robber_must_move_to_a_different_hex_R_ROBBER_3() -> None:
    s, _ = _seven()
    assert s.robber == DESERT_HEX
    assert_illegal(s, MoveRobber(DESERT_HEX), 0, "illegal_placement")
    assert_illegal(s, MoveRobber(19), 0, "bad_location")  # not a land hex
    moves = legal_actions(s, 0)
    assert len(moves) == 18
    assert MoveRobber(DESERT_HEX) not in moves
    events = apply(s, MoveRobber(5), 0)
    assert events == [RobberMoved(0, 5)]
    assert s.robber == 5
    assert s.phase == Phase.MAIN


def test_robber_may_go_back_to_the_desert_R_ROBBER_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    s.robber = 4
    apply(s, RollDice(), 0, chance=SEVEN)
    apply(s, MoveRobber(DESERT_HEX), 0)
    assert s.robber == DESERT_HEX


def test_only_the_roller_moves_the_robber_R_ROBBER_3() -> None:
    s, _ = _seven(current=2)
    for seat in (0, 1, 3):
        assert isinstance(assert_illegal(s, MoveRobber(0), seat), NotYourTurn)
    assert to_act(s) == (2,)


def test_single_victim_is_robbed_automatically_R_ROBBER_4() -> None:
    s, _ = _seven()
    build(s, 1, settlements=[8])  # on hex 4
    give(s, 1, cards(wool=1, ore=2))
    events = apply(s, MoveRobber(4), 0, chance=(ORE,))
    assert of_type(events, Stolen) == [Stolen(0, 1, 1, ORE)]
    assert s.hands[0] == list(cards(ore=1))
    assert s.hands[1] == list(cards(wool=1, ore=1))
    assert s.phase == Phase.MAIN
    check_conservation(s)


def test_roller_chooses_among_several_victims_R_ROBBER_4() -> None:
    s, _ = _seven()
    build(s, 1, settlements=[8])  # hex 4
    build(s, 2, cities=[18])  # hex 4
    build(s, 3, settlements=[34])  # not on hex 4
    give(s, 1, cards(lumber=1))
    give(s, 2, cards(grain=2))
    give(s, 3, cards(brick=3))
    events = apply(s, MoveRobber(4), 0)
    assert not of_type(events, Stolen)
    assert s.phase == Phase.STEAL
    assert legal_actions(s, 0) == [Steal(1), Steal(2)]
    assert_illegal(s, Steal(3), 0, "bad_victim")
    assert_illegal(s, Steal(0), 0, "bad_victim")
    events = apply(s, Steal(2), 0, chance=(GRAIN,))
    assert events == [Stolen(0, 2, 1, GRAIN)]
    assert s.hands[0] == list(cards(grain=1))
    assert s.hands[2] == list(cards(grain=1))
    assert s.hands[1] == list(cards(lumber=1))
    assert s.phase == Phase.MAIN


def test_stolen_card_is_random_from_the_victims_hand_R_ROBBER_4() -> None:
    seen = set()
    for seed in range(30):
        s, _ = _seven(seed=seed)
        build(s, 1, settlements=[8])
        give(s, 1, cards(lumber=1, ore=1))
        (ev,) = of_type(apply(s, MoveRobber(4), 0), Stolen)
        assert isinstance(ev, Stolen)
        assert ev.resource in (LUMBER, ORE)
        assert s.hands[0][ev.resource] == 1
        seen.add(ev.resource)
    assert seen == {LUMBER, ORE}


def test_no_steal_from_a_victim_without_cards_R_ROBBER_4() -> None:
    s, _ = _seven()
    build(s, 1, settlements=[8])
    give_dev(s, 1, 0)  # development cards cannot be stolen
    events = apply(s, MoveRobber(4), 0)
    assert of_type(events, Stolen) == [Stolen(0, 1, 0, None)]
    assert s.hands[0] == [0] * 5
    assert s.dev_hand[1][0] == 1
    assert s.phase == Phase.MAIN


def test_no_steal_without_an_opponent_on_the_hex_R_ROBBER_4() -> None:
    s, _ = _seven()
    build(s, 0, settlements=[8])  # only the roller's own building
    build(s, 1, settlements=[34])  # elsewhere
    give(s, 1, cards(wool=3))
    events = apply(s, MoveRobber(4), 0)
    assert events == [RobberMoved(0, 4)]
    assert s.hands[1] == list(cards(wool=3))
    assert s.phase == Phase.MAIN


def test_only_thief_and_victim_learn_the_card_R_ROBBER_4() -> None:
    s, _ = _seven()
    build(s, 1, settlements=[8])
    give(s, 1, cards(brick=2))
    events = apply(s, MoveRobber(4), 0, chance=(BRICK,))
    assert Stolen(0, 1, 1, BRICK) in redact(events, 0)
    assert Stolen(0, 1, 1, BRICK) in redact(events, 1)
    assert Stolen(0, 1, 1, None) in redact(events, 2)
    assert Stolen(0, 1, 1, None) in redact(events, None)
    assert RobberMoved(0, 4) in redact(events, 3)  # the move itself is public


def test_turn_goes_on_after_a_seven_R_ROBBER_5() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[8])
    give(s, 0, ROAD_COST)
    give(s, 1, cards(wool=1))
    apply(s, RollDice(), 0, chance=SEVEN)
    apply(s, MoveRobber(4), 0, chance=(WOOL,))
    assert s.phase == Phase.MAIN and s.current == 0
    apply(s, BuildRoad(edge(12, 17)), 0)
    apply(s, OfferTrade(cards(wool=1), cards(brick=1)), 0)
    assert s.phase == Phase.TRADE


def test_no_trade_between_the_seven_and_the_steal_R_ROBBER_5() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[8])
    build(s, 2, settlements=[18])
    give(s, 0, cards(ore=4, lumber=1, brick=1))
    give(s, 1, cards(wool=9))
    give(s, 2, cards(grain=1))
    blocked = (
        MaritimeTrade(ORE, BRICK),
        OfferTrade(cards(ore=1), cards(wool=1)),
        BuildRoad(edge(12, 17)),
        EndTurn(),
    )
    apply(s, RollDice(), 0, chance=SEVEN)
    assert s.phase == Phase.DISCARD
    for action in blocked:
        assert_illegal(s, action, 0)
    apply(s, Discard(cards(wool=4)), 1)
    assert s.phase == Phase.MOVE_ROBBER
    for action in blocked:
        assert_illegal(s, action, 0)
    apply(s, MoveRobber(4), 0)
    assert s.phase == Phase.STEAL
    for action in blocked:
        assert_illegal(s, action, 0)
    apply(s, Steal(1), 0, chance=(WOOL,))
    assert s.phase == Phase.MAIN
    assert of_type(apply(s, MaritimeTrade(ORE, BRICK), 0), MaritimeTraded)


def test_building_next_to_the_robber_is_allowed_R_ROBBER_6() -> None:
    s = scenario()
    s.robber = 4
    build(s, 0, settlements=[8], roads=path(8, 12))  # node 8 and 12, 17 touch hex 4
    give(s, 0, [a + b + c for a, b, c in zip(ROAD_COST, SETTLEMENT_COST, CITY_COST, strict=True)])
    apply(s, BuildRoad(edge(12, 17)), 0)
    apply(s, BuildSettlement(17), 0)
    apply(s, BuildCity(8), 0)
    assert s.node_owner[17] == 0 and s.node_level[8] == 2
    assert s.hands[0] == [0] * 5  # paid in full: road, settlement and city
    assert s.bank == [19] * 5


def test_harbor_next_to_the_robber_is_usable_R_ROBBER_6() -> None:
    s = scenario()
    build(s, 0, settlements=[3])  # generic 3:1 harbor, on hex 0
    s.robber = 0
    give(s, 0, cards(ore=3))
    events = apply(s, MaritimeTrade(ORE, LUMBER), 0)
    assert events == [MaritimeTraded(0, ORE, 3, LUMBER)]
    assert s.hands[0] == list(cards(lumber=1))
