"""R-SETUP-*: seat order, snake order, placement, set-up income, first turn."""

from __future__ import annotations

from protocol.rules import (
    BuildRoad,
    BuildSettlement,
    EndTurn,
    NotYourTurn,
    Phase,
    RollDice,
    Settings,
    apply,
    legal_actions,
    new_game,
    setup_seat,
    to_act,
)
from protocol.rules.board import NODE_EDGES, NODE_NODES
from protocol.rules.events import SettlementBuilt, SetupIncome, TurnEnded, TurnStarted

from .helpers import (
    assert_illegal,
    cards,
    check_conservation,
    edge,
    new,
    of_type,
    play_setup,
    scenario,
)

# Eight pairwise non-adjacent intersections, in placement order.
NODES = (0, 2, 11, 15, 29, 33, 37, 45)
PICKS = [(n, NODE_EDGES[n][0]) for n in NODES]


def _placing_order(s_players: int, first_seat: int) -> list[int]:
    s = new(s_players, first_seat=first_seat)
    order = []
    for node, e in PICKS[: 2 * s_players]:
        assert to_act(s) == (s.current,)
        order.append(s.current)
        apply(s, BuildSettlement(node), s.current)
        apply(s, BuildRoad(e), s.current)
    return order


def test_first_seat_is_random_and_reproducible_R_SETUP_1() -> None:
    firsts = [new_game(Settings(), seed=seed).first_seat for seed in range(40)]
    assert set(firsts) == {0, 1, 2, 3}
    assert firsts == [new_game(Settings(), seed=seed).first_seat for seed in range(40)]
    s = new_game(Settings(), seed=3)
    assert s.current == s.first_seat
    assert s.phase == Phase.SETUP_SETTLEMENT


def test_play_passes_in_increasing_seat_order_R_SETUP_1() -> None:
    for players in (3, 4):
        for seat in range(players):
            s = scenario(players, current=seat)
            events = apply(s, EndTurn(), seat)
            nxt = (seat + 1) % players
            assert s.current == nxt
            assert events[0] == TurnEnded(seat)
            assert of_type(events, TurnStarted) == [TurnStarted(nxt, 2)]


def test_snake_order_four_players_R_SETUP_2() -> None:
    assert _placing_order(4, 0) == [0, 1, 2, 3, 3, 2, 1, 0]
    assert _placing_order(4, 1) == [1, 2, 3, 0, 0, 3, 2, 1]
    s = new(4, first_seat=2)
    assert [setup_seat(s, i) for i in range(8)] == [2, 3, 0, 1, 1, 0, 3, 2]


def test_snake_order_three_players_R_SETUP_2() -> None:
    assert _placing_order(3, 2) == [2, 0, 1, 1, 0, 2]


def test_settlement_then_road_each_step_R_SETUP_2() -> None:
    s = new(first_seat=0)
    apply(s, BuildSettlement(0), 0)
    assert s.phase == Phase.SETUP_ROAD
    assert s.current == 0
    # No second settlement before the road.
    assert_illegal(s, BuildSettlement(2), 0)
    # Nobody else places meanwhile.
    assert_illegal(s, BuildRoad(NODE_EDGES[2][0]), 1)


def test_only_the_placing_seat_may_place_R_SETUP_2() -> None:
    s = new(first_seat=1)
    err = assert_illegal(s, BuildSettlement(0), 0)
    assert isinstance(err, NotYourTurn)
    assert legal_actions(s, 0) == []
    assert legal_actions(s, 1)


def test_distance_rule_in_set_up_R_SETUP_3() -> None:
    s = new(first_seat=0)
    play_setup(s, [(0, edge(0, 4))])
    assert s.current == 1
    assert_illegal(s, BuildSettlement(0), 1, "illegal_placement")  # taken
    for n in NODE_NODES[0]:  # adjacent to a settlement
        assert_illegal(s, BuildSettlement(n), 1, "illegal_placement")
    legal = {a.node for a in legal_actions(s, 1) if isinstance(a, BuildSettlement)}
    assert 0 not in legal and not legal & set(NODE_NODES[0])
    # Next to a road (not a building) is fine: node 8 touches seat 0's road end 4.
    assert 8 in legal
    apply(s, BuildSettlement(8), 1)
    assert s.node_owner[8] == 1


def test_set_up_settlement_need_not_connect_to_a_road_R_SETUP_3() -> None:
    s = new(first_seat=0)
    play_setup(s, PICKS[:4])
    # Seat 3's second settlement is far from any of its roads.
    events = apply(s, BuildSettlement(29), 3)
    assert of_type(events, SettlementBuilt) == [SettlementBuilt(3, 29, True)]
    assert all(s.edge_owner[e] < 0 for e in NODE_EDGES[29])


def test_set_up_road_must_touch_the_new_settlement_R_SETUP_3() -> None:
    s = new(first_seat=0)
    apply(s, BuildSettlement(0), 0)
    assert_illegal(s, BuildRoad(edge(1, 5)), 0, "illegal_placement")
    roads = {a.edge for a in legal_actions(s, 0) if isinstance(a, BuildRoad)}
    assert roads == set(NODE_EDGES[0])
    apply(s, BuildRoad(edge(0, 4)), 0)
    # In the second round, the road must touch the second settlement, not the first.
    play_setup(s, PICKS[1:4])
    apply(s, BuildSettlement(29), 3)
    apply(s, BuildRoad(edge(29, 35)), 3)
    apply(s, BuildSettlement(33), 2)
    apply(s, BuildRoad(edge(33, 38)), 2)
    apply(s, BuildSettlement(37), 1)
    apply(s, BuildRoad(edge(37, 42)), 1)
    apply(s, BuildSettlement(45), 0)
    assert_illegal(s, BuildRoad(edge(0, 3)), 0, "illegal_placement")


def test_set_up_costs_nothing_R_SETUP_4() -> None:
    s = new(first_seat=0)
    play_setup(s, PICKS[:4])
    assert s.hands == [[0] * 5 for _ in range(4)]
    assert s.bank == [19] * 5
    assert s.vp == [1, 1, 1, 1]
    assert [p[:2] for p in s.pieces] == [[14, 4]] * 4


def test_second_settlement_takes_one_card_per_land_hex_R_SETUP_4() -> None:
    s = new(first_seat=1)
    steps = play_setup(s, PICKS)
    # First round (steps 0-3): no income at all.
    for events in steps[:8]:
        assert not of_type(events, SetupIncome)
    incomes = [e for events in steps for e in of_type(events, SetupIncome)]
    assert incomes == [
        SetupIncome(0, cards(lumber=1, ore=1)),  # node 29: lumber, desert, ore
        SetupIncome(3, cards(lumber=1, grain=1)),  # node 33: grain, lumber (coast)
        SetupIncome(2, cards(wool=1, ore=1)),  # node 37: ore, wool (coast)
        SetupIncome(1, cards(wool=1, grain=2)),  # node 45: grain, grain, wool
    ]
    assert s.hands == [
        list(cards(lumber=1, ore=1)),
        list(cards(wool=1, grain=2)),
        list(cards(wool=1, ore=1)),
        list(cards(lumber=1, grain=1)),
    ]
    check_conservation(s)


def test_single_hex_coastal_node_takes_one_card_R_SETUP_4() -> None:
    s = new(first_seat=0)
    play_setup(s, PICKS[:4])
    events = apply(s, BuildSettlement(50), 3)  # node 50 touches only hex 18 (wool)
    assert of_type(events, SetupIncome) == [SetupIncome(3, cards(wool=1))]


def test_first_player_starts_the_first_turn_R_SETUP_5() -> None:
    for first in (0, 2):
        s = new(first_seat=first)
        steps = play_setup(s, PICKS)
        assert s.phase == Phase.PRE_ROLL
        assert s.current == first
        assert of_type(steps[-1], TurnStarted) == [TurnStarted(first, 1)]
        assert legal_actions(s, first) == [RollDice()]
        assert to_act(s) == (first,)
