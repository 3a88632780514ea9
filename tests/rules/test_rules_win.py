"""R-WIN-* (and R-OPT-5, the VP target setting): winning."""

from __future__ import annotations

import pytest

from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    EndTurn,
    GameState,
    MoveRobber,
    Phase,
    PlayKnight,
    RollDice,
    RulesError,
    Settings,
    apply,
    legal_actions,
    observe,
    to_act,
)
from protocol.rules.events import Event, GameOver, LongestRoadChanged, TurnEnded, TurnStarted

from .helpers import (
    CITY_COST,
    KNIGHT,
    ROAD_COST,
    SETTLEMENT_COST,
    VICTORY_POINT,
    assert_illegal,
    build,
    edge,
    give,
    give_dev,
    of_type,
    path,
    refresh,
    scenario,
)


def test_ten_points_in_own_turn_wins_at_once_R_WIN_1() -> None:
    s = scenario(current=1)
    build(s, 1, cities=[3, 1, 6, 15], settlements=[26], roads=path(26, 32, 37))  # 9 VP
    give(s, 1, SETTLEMENT_COST)
    give(s, 1, ROAD_COST)
    events = apply(s, BuildSettlement(37), 1)
    assert of_type(events, GameOver) == [GameOver(1, (0, 10, 0, 0), (0, 0, 0, 0))]
    assert s.phase == Phase.GAME_OVER
    assert s.winner == 1
    # The game ends there, without finishing the round.
    assert to_act(s) == ()
    assert legal_actions(s, 1) == [] and legal_actions(s, 2) == []
    assert_illegal(s, EndTurn(), 1, "game_over")
    assert_illegal(s, BuildRoad(edge(37, 42)), 1, "game_over")
    assert observe(s, 3)["winner"] == 1


def test_nine_points_do_not_win_R_WIN_1() -> None:
    s = scenario()
    build(s, 0, cities=[3, 1, 6, 15], roads=path(15, 20, 26))  # 8 VP
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(26), 0)
    assert s.total_vp(0) == 9
    assert not of_type(events, GameOver)
    assert s.phase == Phase.MAIN and s.winner is None


def test_every_source_of_points_counts_R_WIN_1() -> None:
    s = scenario()
    # 2 cities (4) + 1 settlement (1) + Longest Road (2) + 1 VP card (1) = 8.
    build(s, 0, cities=[3, 6], settlements=[1], roads=path(3, 0, 4, 1, 5, 2, 6))
    s.lr_holder = 0
    give_dev(s, 0, VICTORY_POINT)
    give_dev(s, 0, KNIGHT, 3)
    s.dev_hand[0][KNIGHT] -= 2
    s.knights[0] = 2
    refresh(s)
    assert s.total_vp(0) == 8
    give(s, 0, CITY_COST)
    apply(s, BuildCity(1), 0)  # 9
    assert s.phase == Phase.MAIN
    events = apply(s, PlayKnight(), 0)  # Largest Army: 11
    (over,) = of_type(events, GameOver)
    assert over == GameOver(0, (11, 0, 0, 0), (1, 0, 0, 0))
    assert s.winner == 0


def test_win_before_the_roll_by_a_knight_R_WIN_1() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, cities=[3, 1, 6, 15])  # 8 VP
    give_dev(s, 0, KNIGHT, 3)
    s.dev_hand[0][KNIGHT] -= 2
    s.knights[0] = 2
    events = apply(s, PlayKnight(), 0)
    assert of_type(events, GameOver)
    assert s.winner == 0
    assert s.last_roll is None
    assert_illegal(s, MoveRobber(0), 0, "game_over")


def test_only_the_player_on_turn_wins_during_the_turn_R_WIN_1() -> None:
    s = scenario(current=0)
    build(s, 2, cities=[3, 1, 6, 15], settlements=[26])  # 9 VP
    give_dev(s, 2, VICTORY_POINT)  # 10 VP, but not on turn
    build(s, 0, settlements=[40], roads=path(40, 44))
    give(s, 0, ROAD_COST)
    events = apply(s, BuildRoad(edge(44, 48)), 0)
    assert not of_type(events, GameOver)
    assert s.phase == Phase.MAIN and s.winner is None


def _win2_scenario() -> tuple[GameState, list[Event]]:
    """Seat 2 holds Longest Road (8); seat 1 has a 6-edge road and 8 VP; seat 0 is
    on turn and about to break seat 2's road."""
    s = scenario(current=0)
    build(s, 2, settlements=[3], roads=path(3, 0, 4, 1, 5, 2, 6, 10, 15))
    build(s, 1, cities=[47, 49, 40, 30], roads=path(47, 51, 48, 52, 49, 53, 50))
    build(s, 0, settlements=[13], roads=path(13, 9, 5))
    s.lr_holder = 2
    refresh(s)
    assert s.vp == [1, 8, 3, 0]
    give(s, 0, SETTLEMENT_COST)
    return s, apply(s, BuildSettlement(5), 0)


def test_ten_points_in_another_players_turn_wins_at_own_next_turn_R_WIN_2() -> None:
    s, events = _win2_scenario()
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(1, 6)]
    assert s.total_vp(1) == 10
    # Not yet: it is seat 0's turn, which goes on.
    assert s.phase == Phase.MAIN and s.current == 0 and s.winner is None
    events = apply(s, EndTurn(), 0)
    assert events[:2] == [TurnEnded(0), TurnStarted(1, s.turn)]
    assert of_type(events, GameOver) == [GameOver(1, (2, 10, 1, 0), (0, 0, 0, 0))]
    assert s.winner == 1
    assert s.phase == Phase.GAME_OVER
    assert s.last_roll is None  # before rolling
    assert_illegal(s, RollDice(), 1, "game_over")


def test_win_waits_for_own_turn_not_the_next_seat_R_WIN_2() -> None:
    s = scenario(current=3)
    build(s, 1, cities=[3, 1, 6, 15], settlements=[26])  # 9 VP
    give_dev(s, 1, VICTORY_POINT)  # 10 VP, outside seat 1's turn
    events = apply(s, EndTurn(), 3)  # seat 0's turn: nothing happens
    assert not of_type(events, GameOver)
    assert s.current == 0 and s.phase == Phase.PRE_ROLL
    apply(s, RollDice(), 0, chance=(1, 1))
    events = apply(s, EndTurn(), 0)
    assert of_type(events, GameOver) == [GameOver(1, (0, 10, 0, 0), (0, 1, 0, 0))]
    assert s.winner == 1


def test_victory_point_target_setting_R_OPT_5() -> None:
    s = scenario(vp_target=5)
    build(s, 0, cities=[3], settlements=[6, 15], roads=path(15, 20, 26))  # 4 VP
    assert observe(s, 0)["vp_target"] == 5
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(26), 0)
    assert of_type(events, GameOver) == [GameOver(0, (5, 0, 0, 0), (0, 0, 0, 0))]
    assert s.winner == 0


def test_victory_point_target_range_R_OPT_5() -> None:
    assert Settings(vp_target=3).vp_target == 3
    assert Settings(vp_target=20).vp_target == 20
    assert Settings().vp_target == 10
    for bad in (2, 21):
        with pytest.raises(RulesError):
            Settings(vp_target=bad)
