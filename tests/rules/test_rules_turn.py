"""R-TURN-*: the shape of a turn."""

from __future__ import annotations

from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlayKnight,
    RollDice,
    apply,
    legal_actions,
)
from protocol.rules.board import BRICK, ORE
from protocol.rules.events import (
    DiceRolled,
    MaritimeTraded,
    Produced,
    RoadBuilt,
    TurnEnded,
    TurnStarted,
)

from .helpers import (
    KNIGHT,
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


def test_roll_then_trade_and_build_in_any_order_then_end_R_TURN_1() -> None:
    s = scenario(current=0, phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7], roads=path(7, 3))
    build(s, 1, settlements=[40])
    give(s, 0, cards(lumber=2, brick=1, ore=4))
    events = apply(s, RollDice(), 0, chance=(1, 1))  # 2: hex 3 (grain)
    assert of_type(events, DiceRolled) == [DiceRolled(0, (1, 1))]
    assert of_type(events, Produced)
    assert s.phase == Phase.MAIN and s.rolled
    assert s.hands[0] == list(cards(lumber=2, brick=1, grain=1, ore=4))
    # build, trade, build: freely interleaved.
    apply(s, BuildRoad(edge(7, 12)), 0)
    assert of_type(apply(s, MaritimeTrade(ORE, BRICK), 0), MaritimeTraded)
    assert of_type(apply(s, BuildRoad(edge(12, 8)), 0), RoadBuilt)
    assert s.hands[0] == list(cards(grain=1))
    turn = s.turn
    events = apply(s, EndTurn(), 0)
    assert events[:2] == [TurnEnded(0), TurnStarted(1, turn + 1)]
    assert s.current == 1
    assert s.phase == Phase.PRE_ROLL
    assert not s.rolled
    check_conservation(s)


def test_turn_cannot_end_before_the_roll_R_TURN_1() -> None:
    s = scenario(current=2, phase=Phase.PRE_ROLL)
    assert_illegal(s, EndTurn(), 2, "wrong_phase")
    assert EndTurn() not in legal_actions(s, 2)


def test_next_seat_takes_over_and_wraps_around_R_TURN_1() -> None:
    s = scenario(3, current=2)
    apply(s, EndTurn(), 2)
    assert s.current == 0
    assert_illegal(s, RollDice(), 2)
    apply(s, RollDice(), 0, chance=(2, 2))
    assert s.phase == Phase.MAIN


def test_only_dev_card_or_roll_before_the_roll_R_TURN_2() -> None:
    s = scenario(current=0, phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7], roads=path(7, 3))
    give(s, 0, cards(lumber=5, brick=5, wool=5, grain=5, ore=5))
    for action in (
        BuildRoad(edge(7, 12)),
        BuildSettlement(0),
        BuildCity(7),
        BuyDevCard(),
        MaritimeTrade(ORE, BRICK),
        OfferTrade(cards(ore=1), cards(brick=1)),
        EndTurn(),
    ):
        assert_illegal(s, action, 0, "wrong_phase")
    assert legal_actions(s, 0) == [RollDice()]
    give_dev(s, 0, KNIGHT)
    assert legal_actions(s, 0) == [RollDice(), PlayKnight()]


def test_dev_card_may_be_played_before_the_roll_R_TURN_2() -> None:
    s = scenario(current=0, phase=Phase.PRE_ROLL)
    give_dev(s, 0, KNIGHT)
    apply(s, PlayKnight(), 0)
    assert s.phase == Phase.MOVE_ROBBER
    apply(s, MoveRobber(0), 0)
    assert s.phase == Phase.PRE_ROLL  # back to the roll, trading still closed
    assert_illegal(s, MaritimeTrade(ORE, BRICK), 0, "wrong_phase")
    apply(s, RollDice(), 0, chance=(2, 3))
    assert s.phase == Phase.MAIN
