"""R-LA-*: Largest Army, and losing special cards."""

from __future__ import annotations

from protocol.rules import BuildSettlement, GameState, MoveRobber, PlayKnight, apply, observe
from protocol.rules.events import Event, LargestArmyChanged, LongestRoadChanged

from .helpers import (
    KNIGHT,
    SETTLEMENT_COST,
    build,
    give,
    give_dev,
    of_type,
    path,
    refresh,
    scenario,
)


def _played(s: GameState, seat: int, knights: int) -> None:
    """``seat`` played ``knights`` knights on earlier turns."""
    give_dev(s, seat, KNIGHT, knights)
    s.dev_hand[seat][KNIGHT] -= knights
    s.knights[seat] = knights


def _knight(s: GameState, seat: int) -> list[Event]:
    s.current = seat
    s.dev_played = False
    give_dev(s, seat, KNIGHT)
    events = apply(s, PlayKnight(), seat)
    apply(s, MoveRobber(0 if s.robber != 0 else 1), seat)
    return events


def test_first_to_three_knights_takes_largest_army_R_LA_1() -> None:
    s = scenario()
    events = _knight(s, 0)
    events += _knight(s, 0)
    assert s.knights[0] == 2
    assert not of_type(events, LargestArmyChanged)
    assert s.la_holder == -1
    events = _knight(s, 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(0, 3)]
    assert s.la_holder == 0
    assert s.vp[0] == 2
    assert observe(s, 1)["largest_army"] == 0


def test_another_takes_it_only_with_strictly_more_R_LA_1() -> None:
    s = scenario()
    _played(s, 0, 2)
    _knight(s, 0)
    assert s.la_holder == 0
    _played(s, 1, 2)
    events = _knight(s, 1)  # 3 against 3: a tie
    assert not of_type(events, LargestArmyChanged)
    assert s.la_holder == 0
    events = _knight(s, 1)  # 4 against 3
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(1, 4)]
    assert s.la_holder == 1
    assert s.vp[:2] == [0, 2]


def test_unplayed_knights_do_not_count_R_LA_1() -> None:
    s = scenario()
    give_dev(s, 1, KNIGHT, 5)  # held, not played
    _played(s, 0, 2)
    events = _knight(s, 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(0, 3)]
    assert s.la_holder == 0
    assert s.knights[1] == 0


def test_losing_largest_army_loses_2_vp_at_once_R_LA_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    build(s, 1, settlements=[40])
    _played(s, 0, 3)
    s.la_holder = 0
    _played(s, 1, 3)
    refresh(s)
    assert s.vp[:2] == [3, 1]
    _knight(s, 1)
    assert s.la_holder == 1
    assert s.vp[:2] == [1, 3]
    assert observe(s, 2)["seats"][0]["vp"] == 1


def test_losing_longest_road_loses_2_vp_at_once_R_LA_2() -> None:
    s = scenario(current=2)
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1, 5, 2, 6))  # 6
    build(s, 2, settlements=[13], roads=path(13, 9, 5))
    s.lr_holder = 0
    refresh(s)
    assert s.vp[0] == 3
    give(s, 2, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(5), 2)  # breaks seat 0's road: 4 | 2
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(None, 4)]
    assert s.vp[0] == 1


def test_points_always_counted_from_what_is_held_R_LA_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7], cities=[29])
    _played(s, 0, 2)
    _knight(s, 0)
    _played(s, 1, 3)
    _knight(s, 1)
    c = s.copy()
    c.rebuild_derived()  # VP recomputed from scratch
    assert c.vp == s.vp == [3, 2, 0, 0]
