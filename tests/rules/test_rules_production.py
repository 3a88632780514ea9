"""R-PROD-*: production on a roll other than 7."""

from __future__ import annotations

from protocol.rules import Phase, legal_actions, to_act
from protocol.rules.board import BRICK, GRAIN, LUMBER
from protocol.rules.events import Event, Produced

from .helpers import (
    BOARD,
    build,
    cards,
    check_conservation,
    of_type,
    roll,
    scenario,
    set_bank,
)

# On the fixed board: hex 3 is grain/2 (the only 2), hex 2 lumber/8 and hex 16
# brick/8, hexes 10 and 12 are both lumber/3.
assert BOARD.numbers[3] == 2 and BOARD.numbers[2] == BOARD.numbers[16] == 8
assert BOARD.numbers[10] == BOARD.numbers[12] == 3


def _produced(events: list[Event]) -> Produced:
    (ev,) = of_type(events, Produced)
    assert isinstance(ev, Produced)
    return ev


def test_settlement_earns_one_city_earns_two_R_PROD_1() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])  # on hex 3
    build(s, 1, cities=[17])  # on hex 3
    ev = _produced(roll(s, 2))
    assert s.hands[0] == list(cards(grain=1))
    assert s.hands[1] == list(cards(grain=2))
    assert ev.gains == (cards(grain=1), cards(grain=2), cards(), cards())
    assert ev.withheld == ()
    assert s.bank[GRAIN] == 16
    check_conservation(s)


def test_every_player_receives_not_only_the_roller_R_PROD_1() -> None:
    s = scenario(current=2, phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])
    build(s, 1, settlements=[17])
    build(s, 3, settlements=[16])
    ev = _produced(roll(s, 2))
    assert ev.gains == (cards(grain=1), cards(grain=1), cards(), cards(grain=1))
    assert s.hands[2] == [0] * 5
    assert [sum(h) for h in s.hands] == [1, 1, 0, 1]


def test_every_hex_with_the_number_produces_R_PROD_1() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[6], cities=[51])  # node 6: hex 2; node 51: hex 16
    ev = _produced(roll(s, 8))
    assert s.hands[0] == list(cards(lumber=1, brick=2))
    assert ev.gains[0] == cards(lumber=1, brick=2)


def test_a_building_on_several_matching_hexes_earns_from_each_R_PROD_1() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    # Node 34 touches hexes 8 (lumber 4), 12 (lumber 3) and 13 (ore 5);
    # node 24 touches hexes 5, 9, 10 (lumber 3).
    build(s, 0, cities=[34])
    build(s, 1, settlements=[24])
    roll(s, 3)
    assert s.hands[0] == list(cards(lumber=2))
    assert s.hands[1] == list(cards(lumber=1))


def test_robber_hex_produces_nothing_R_PROD_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[6])  # only on hex 2 (lumber 8)
    build(s, 1, settlements=[51])  # only on hex 16 (brick 8)
    s.robber = 2
    ev = _produced(roll(s, 8))
    assert s.hands[0] == [0] * 5
    assert s.hands[1] == list(cards(brick=1))  # same number, other hex: produces
    assert ev.gains[0] == cards()


def test_robber_does_not_block_other_hexes_of_the_same_resource_R_PROD_2() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[25])  # hexes 6, 10 (lumber 3), 11
    build(s, 1, settlements=[38])  # hex 12 only (lumber 3)
    s.robber = 12
    roll(s, 3)
    assert s.hands[0] == list(cards(lumber=1))
    assert s.hands[1] == [0] * 5


def test_bank_shortage_several_receivers_get_nothing_R_PROD_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])
    build(s, 1, cities=[17])  # 1 + 2 = 3 grain owed
    set_bank(s, GRAIN, 2, holder=3)
    ev = _produced(roll(s, 2))
    assert ev.withheld == (GRAIN,)
    assert ev.gains[0] == cards() and ev.gains[1] == cards()
    assert s.hands[0][GRAIN] == 0 and s.hands[1][GRAIN] == 0
    assert s.bank[GRAIN] == 2
    check_conservation(s)


def test_bank_shortage_single_receiver_takes_what_is_left_R_PROD_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 1, cities=[17])  # 2 grain owed
    set_bank(s, GRAIN, 1, holder=3)
    ev = _produced(roll(s, 2))
    assert s.hands[1][GRAIN] == 1
    assert s.bank[GRAIN] == 0
    assert ev.gains[1] == cards(grain=1)
    assert ev.withheld == ()
    check_conservation(s)


def test_bank_shortage_single_receiver_with_two_buildings_R_PROD_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 1, settlements=[7], cities=[17])  # one player owed 3 grain
    set_bank(s, GRAIN, 2, holder=3)
    roll(s, 2)
    assert s.hands[1][GRAIN] == 2
    assert s.bank[GRAIN] == 0


def test_bank_shortage_other_resources_paid_as_normal_R_PROD_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    # Roll 8: hex 2 (lumber) and hex 16 (brick).
    build(s, 0, settlements=[2])  # hex 2
    build(s, 1, cities=[10])  # hexes 2 and 6
    build(s, 2, settlements=[51])  # hex 16
    set_bank(s, LUMBER, 2, holder=3)  # 3 lumber owed to two players
    ev = _produced(roll(s, 8))
    assert ev.withheld == (LUMBER,)
    assert s.hands[0] == [0] * 5
    assert s.hands[1] == [0] * 5
    assert s.hands[2] == list(cards(brick=1))
    assert s.bank[LUMBER] == 2 and s.bank[BRICK] == 18


def test_bank_holding_exactly_enough_pays_everyone_R_PROD_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])
    build(s, 1, cities=[17])
    set_bank(s, GRAIN, 3, holder=3)
    ev = _produced(roll(s, 2))
    assert ev.withheld == ()
    assert s.hands[0][GRAIN] == 1 and s.hands[1][GRAIN] == 2
    assert s.bank[GRAIN] == 0


def test_receiving_is_mandatory_R_PROD_4() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 1, cities=[17], settlements=[7])
    roll(s, 2)
    # The cards are in the hand at once: nobody is asked, nothing can be refused.
    assert s.hands[1][GRAIN] == 3
    assert s.phase == Phase.MAIN
    assert to_act(s) == (0,)
    assert legal_actions(s, 1) == []
