"""R-LR-*: Longest Road."""

from __future__ import annotations

from protocol.rules import (
    BuildRoad,
    BuildSettlement,
    GameState,
    PlayRoadBuilding,
    apply,
    longest_road,
)
from protocol.rules.events import LongestRoadChanged

from .helpers import (
    ROAD_BUILDING,
    ROAD_COST,
    SETTLEMENT_COST,
    build,
    edge,
    give,
    give_dev,
    of_type,
    path,
    refresh,
    scenario,
)

# Seat 0's long road along the top coast: 3-0-4-1-5-2-6-10-15-20 (9 edges).
# Opponents can break it at node 5 (reached from 9) or node 10 (reached from 14).
TOP = (3, 0, 4, 1, 5, 2, 6, 10, 15, 20)
BOTTOM = (47, 51, 48, 52, 49, 53, 50)  # up to 6 edges
LEFT = (11, 16, 21, 27, 33, 38, 43)  # up to 6 edges


def _lr_scenario(top: int, bottom: int = 0, left: int = 0, *, at: int = 5) -> GameState:
    """Seat 0 holds Longest Road with a ``top``-edge road; seat 1 has a ``bottom``-edge
    road and seat 3 a ``left``-edge one. Seat 2 is on turn with the cards for a
    settlement and a 2-edge road up to node ``at`` (5 or 10) on seat 0's road."""
    s = scenario(current=2)
    build(s, 0, settlements=[3], roads=path(*TOP[: top + 1]))
    if bottom:
        build(s, 1, settlements=[47], roads=path(*BOTTOM[: bottom + 1]))
    if left:
        build(s, 3, settlements=[11], roads=path(*LEFT[: left + 1]))
    if at == 5:
        build(s, 2, settlements=[13], roads=path(13, 9, 5))
    else:
        build(s, 2, settlements=[19], roads=path(19, 14, 10))
    s.lr_holder = 0
    refresh(s)
    give(s, 2, SETTLEMENT_COST)
    return s


def test_simple_road_length_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1, 5, 2))
    assert longest_road(s, 0) == 5
    assert s.road_len[0] == 5


def test_loops_count_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[8], roads=path(8, 13, 18, 23, 17, 12, 8))  # round hex 4
    assert longest_road(s, 0) == 6
    build(s, 0, roads=path(4, 8))  # a tail into the loop
    assert longest_road(s, 0) == 7
    build(s, 0, roads=path(0, 4))
    assert longest_road(s, 0) == 8


def test_branches_do_not_add_up_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[13],
          roads=path(13, 8, 4, 0) + path(13, 9, 5) + path(13, 18, 24))
    assert len(s.roads[0]) == 7
    assert longest_road(s, 0) == 5  # 0-4-8-13 then one 2-edge branch


def test_opponent_building_breaks_the_road_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1, 5, 2))
    build(s, 1, settlements=[1])
    assert longest_road(s, 0) == 3  # 3-0-4-1 | 1-5-2


def test_own_building_does_not_break_the_road_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[3, 1, 6], roads=path(3, 0, 4, 1, 5, 2, 6))
    assert longest_road(s, 0) == 6


def test_joining_two_roads_adds_them_up_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[3, 6], roads=path(3, 0, 4, 1) + path(5, 2, 6, 10))
    assert s.road_len[0] == 3
    give(s, 0, ROAD_COST)
    events = apply(s, BuildRoad(edge(1, 5)), 0)
    assert s.road_len[0] == 7
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(0, 7)]


def test_closing_a_loop_by_building_counts_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[8], roads=path(8, 13, 18, 23, 17, 12))
    assert s.road_len[0] == 5
    give(s, 0, [2 * c for c in ROAD_COST])
    apply(s, BuildRoad(edge(12, 8)), 0)
    assert s.road_len[0] == 6
    apply(s, BuildRoad(edge(18, 24)), 0)  # a tail off the loop
    assert s.road_len[0] == 7


def test_branch_built_by_the_player_does_not_add_R_LR_1() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1))
    give(s, 0, [2 * c for c in ROAD_COST])
    apply(s, BuildRoad(edge(4, 8)), 0)  # a branch at node 4
    assert s.road_len[0] == 3
    apply(s, BuildRoad(edge(8, 12)), 0)
    assert s.road_len[0] == 4  # 3-0-4-8-12


def test_opponent_settlement_built_on_the_road_recounts_R_LR_1() -> None:
    s = _lr_scenario(8)
    assert s.road_len[0] == 8
    apply(s, BuildSettlement(5), 2)
    assert s.road_len[0] == 4
    assert longest_road(s, 0) == 4


def test_first_to_five_takes_longest_road_R_LR_2() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1))
    give(s, 0, [2 * c for c in ROAD_COST])
    events = apply(s, BuildRoad(edge(1, 5)), 0)  # 4: not yet
    assert not of_type(events, LongestRoadChanged)
    assert s.lr_holder == -1
    vp = s.vp[0]
    events = apply(s, BuildRoad(edge(5, 2)), 0)
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(0, 5)]
    assert s.lr_holder == 0
    assert s.vp[0] == vp + 2


def test_tie_leaves_longest_road_with_the_holder_R_LR_2() -> None:
    s = scenario(current=1)
    build(s, 0, settlements=[3], roads=path(*TOP[:6]))  # 5
    build(s, 1, settlements=[47], roads=path(*BOTTOM[:5]))  # 4
    s.lr_holder = 0
    refresh(s)
    give(s, 1, [2 * c for c in ROAD_COST])
    events = apply(s, BuildRoad(edge(49, 53)), 1)  # 5: a tie
    assert not of_type(events, LongestRoadChanged)
    assert s.lr_holder == 0
    events = apply(s, BuildRoad(edge(53, 50)), 1)  # 6: strictly longer
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(1, 6)]
    assert s.lr_holder == 1
    assert s.vp == [1 + 0, 1 + 2, 0, 0]


def test_road_building_card_can_take_longest_road_R_LR_2() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1))
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(1, 5)), 0)
    events = apply(s, BuildRoad(edge(5, 2)), 0)
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(0, 5)]


def test_holder_keeps_on_a_tie_after_a_break_R_LR_3() -> None:
    s = _lr_scenario(9, bottom=5)
    events = apply(s, BuildSettlement(5), 2)  # 3-0-4-1-5 | 5-2-6-10-15-20
    assert s.road_len[0] == 5 and s.road_len[1] == 5
    assert not of_type(events, LongestRoadChanged)
    assert s.lr_holder == 0


def test_holder_still_longest_keeps_after_a_break_R_LR_3() -> None:
    s = _lr_scenario(8, bottom=6, at=10)
    events = apply(s, BuildSettlement(10), 2)  # 3-0-4-1-5-2-6-10 | 10-15
    assert s.road_len[:2] == [7, 6]
    assert not of_type(events, LongestRoadChanged)
    assert s.lr_holder == 0


def test_unique_longest_takes_it_after_a_break_R_LR_3() -> None:
    s = _lr_scenario(8, bottom=5, left=4)
    vp0, vp1 = s.vp[0], s.vp[1]
    events = apply(s, BuildSettlement(5), 2)  # seat 0: 4 | 4
    assert s.road_len[:2] == [4, 5]
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(1, 5)]
    assert s.lr_holder == 1
    assert s.vp[0] == vp0 - 2 and s.vp[1] == vp1 + 2


def test_unique_longest_takes_it_from_a_holder_still_at_five_R_LR_3() -> None:
    s = _lr_scenario(9, bottom=6)
    apply(s, BuildSettlement(5), 2)  # seat 0: 4 | 5
    assert s.road_len[:2] == [5, 6]
    assert s.lr_holder == 1


def test_card_goes_aside_on_a_tie_after_a_break_R_LR_3() -> None:
    s = _lr_scenario(8, bottom=5, left=5)
    vp = s.vp[:]
    events = apply(s, BuildSettlement(5), 2)
    assert s.road_len == [4, 5, 2, 5]
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(None, 5)]
    assert s.lr_holder == -1
    assert s.vp == [vp[0] - 2, vp[1], vp[2] + 1, vp[3]]


def test_card_goes_aside_when_nobody_has_five_after_a_break_R_LR_3() -> None:
    s = _lr_scenario(8, bottom=3)
    events = apply(s, BuildSettlement(5), 2)  # seat 0 is still longest, but at 4
    assert s.road_len[:2] == [4, 3]
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(None, 4)]
    assert s.lr_holder == -1


def test_card_aside_until_exactly_one_longest_with_five_R_LR_3() -> None:
    s = _lr_scenario(8, bottom=5, left=5)
    apply(s, BuildSettlement(5), 2)
    assert s.lr_holder == -1
    # Seat 0 re-grows to 5: a three-way tie, still aside.
    s.current = 0
    give(s, 0, [2 * c for c in ROAD_COST])
    apply(s, BuildRoad(edge(15, 20)), 0)
    assert s.road_len[0] == 5
    assert s.lr_holder == -1
    # Seat 3 becomes the only longest: it takes the card.
    s.current = 3
    give(s, 3, ROAD_COST)
    events = apply(s, BuildRoad(edge(38, 43)), 3)
    assert s.road_len[3] == 6
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(3, 6)]
    assert s.lr_holder == 3
