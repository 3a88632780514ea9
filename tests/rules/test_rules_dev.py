"""R-DEV-*: development cards."""

from __future__ import annotations

from protocol.rules import (
    BuildNeutralRoad,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    GameState,
    MoveRobber,
    NotYourTurn,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
    Steal,
    StopRoadBuilding,
    apply,
    legal_actions,
    observe,
)
from protocol.rules.board import BRICK, GRAIN, LUMBER, ORE, WOOL
from protocol.rules.events import (
    DevCardPlayed,
    GameOver,
    MonopolyTaken,
    RoadBuildingStopped,
    RoadBuilt,
    RobberMoved,
    Stolen,
    YearOfPlentyTaken,
)

from .helpers import (
    DESERT_HEX,
    DEV_COST,
    KNIGHT,
    MONOPOLY,
    ROAD_BUILDING,
    VICTORY_POINT,
    YEAR_OF_PLENTY,
    assert_illegal,
    build,
    cards,
    check_conservation,
    edge,
    give,
    give_dev,
    of_type,
    path,
    roll,
    scenario,
    two_player,
)


def _next_own_turn(s: GameState) -> None:
    """End the current turn and let every other seat roll a 2 and pass."""
    me = s.current
    apply(s, EndTurn(), me)
    while s.current != me:
        apply(s, RollDice(), s.current, chance=(1, 1))
        apply(s, EndTurn(), s.current)


def test_card_bought_this_turn_cannot_be_played_R_DEV_1() -> None:
    s = scenario(3)
    give(s, 0, DEV_COST)
    apply(s, BuyDevCard(), 0, chance=(KNIGHT,))
    assert_illegal(s, PlayKnight(), 0, "no_card")
    assert PlayKnight() not in legal_actions(s, 0)
    _next_own_turn(s)
    assert s.phase == Phase.PRE_ROLL
    assert PlayKnight() in legal_actions(s, 0)
    apply(s, PlayKnight(), 0)
    assert s.knights[0] == 1


def test_every_kind_bought_this_turn_waits_R_DEV_1() -> None:
    s = scenario()
    give(s, 0, [3 * c for c in DEV_COST])
    for card in (ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY):
        apply(s, BuyDevCard(), 0, chance=(card,))
    assert_illegal(s, PlayRoadBuilding(), 0, "no_card")
    assert_illegal(s, PlayYearOfPlenty(LUMBER, BRICK), 0, "no_card")
    assert_illegal(s, PlayMonopoly(ORE), 0, "no_card")
    assert not [a for a in legal_actions(s, 0) if a.name.startswith("play_")]


def test_older_copy_of_a_new_card_may_be_played_R_DEV_1() -> None:
    s = scenario()
    give_dev(s, 0, KNIGHT)  # from an earlier turn
    give(s, 0, DEV_COST)
    apply(s, BuyDevCard(), 0, chance=(KNIGHT,))
    apply(s, PlayKnight(), 0)
    assert s.dev_hand[0][KNIGHT] == 1
    assert s.knights[0] == 1


def test_victory_point_card_bought_this_turn_counts_for_the_win_R_DEV_1() -> None:
    s = scenario()
    build(s, 0, cities=[3, 1, 6, 15], settlements=[26])  # 9 VP
    assert s.total_vp(0) == 9
    give(s, 0, DEV_COST)
    events = apply(s, BuyDevCard(), 0, chance=(VICTORY_POINT,))
    assert s.phase == Phase.GAME_OVER
    assert s.winner == 0
    (over,) = of_type(events, GameOver)
    assert over == GameOver(0, (10, 0, 0, 0), (1, 0, 0, 0))


def test_one_development_card_per_turn_R_DEV_2() -> None:
    s = scenario()
    give_dev(s, 0, KNIGHT, 2)
    give_dev(s, 0, MONOPOLY)
    apply(s, PlayKnight(), 0)
    apply(s, MoveRobber(0), 0)
    assert s.phase == Phase.MAIN
    assert_illegal(s, PlayMonopoly(WOOL), 0, "dev_card_limit")
    assert_illegal(s, PlayKnight(), 0, "dev_card_limit")
    assert not [a for a in legal_actions(s, 0) if a.name.startswith("play_")]
    apply(s, EndTurn(), 0)
    # The limit is per turn: it resets.
    assert s.dev_played is False


def test_victory_point_cards_are_not_played_R_DEV_2() -> None:
    s = scenario()
    give_dev(s, 0, VICTORY_POINT, 2)
    give_dev(s, 0, KNIGHT)
    plays = [a for a in legal_actions(s, 0) if a.name.startswith("play_")]
    assert plays == [PlayKnight()]
    apply(s, PlayKnight(), 0)
    assert s.dev_hand[0][VICTORY_POINT] == 2
    assert s.total_vp(0) == 2


def test_card_may_be_played_before_the_roll_R_DEV_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give_dev(s, 0, YEAR_OF_PLENTY)
    give_dev(s, 0, MONOPOLY)
    apply(s, PlayYearOfPlenty(ORE, ORE), 0)
    assert s.phase == Phase.PRE_ROLL
    assert s.hands[0] == list(cards(ore=2))
    apply(s, RollDice(), 0, chance=(1, 1))
    # Then no second card that turn.
    assert_illegal(s, PlayMonopoly(ORE), 0, "dev_card_limit")


def test_knight_before_the_roll_returns_to_the_roll_R_DEV_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give_dev(s, 0, KNIGHT)
    apply(s, PlayKnight(), 0)
    apply(s, MoveRobber(4), 0)
    assert s.phase == Phase.PRE_ROLL and not s.rolled
    assert legal_actions(s, 0) == [RollDice()]


def test_card_may_be_played_after_the_roll_R_DEV_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    give_dev(s, 0, MONOPOLY)
    give(s, 1, cards(wool=2))
    apply(s, RollDice(), 0, chance=(1, 1))
    apply(s, PlayMonopoly(WOOL), 0)
    assert s.hands[0] == list(cards(wool=2))


def test_card_only_in_its_owners_turn_R_DEV_3() -> None:
    s = scenario(current=0)
    give_dev(s, 1, KNIGHT)
    give_dev(s, 1, MONOPOLY)
    assert isinstance(assert_illegal(s, PlayKnight(), 1), NotYourTurn)
    assert isinstance(assert_illegal(s, PlayMonopoly(ORE), 1), NotYourTurn)
    assert legal_actions(s, 1) == []


def test_knight_moves_robber_and_steals_R_DEV_4() -> None:
    s = scenario()
    build(s, 1, settlements=[8])  # hex 4
    give(s, 1, cards(brick=1))
    give_dev(s, 0, KNIGHT)
    events = apply(s, PlayKnight(), 0)
    assert DevCardPlayed(0, KNIGHT) in events
    assert s.phase == Phase.MOVE_ROBBER
    assert_illegal(s, MoveRobber(DESERT_HEX), 0, "illegal_placement")
    events = apply(s, MoveRobber(4), 0, chance=(BRICK,))
    assert events == [RobberMoved(0, 4), Stolen(0, 1, 1, BRICK)]
    assert s.hands[0] == list(cards(brick=1))
    assert s.phase == Phase.MAIN


def test_knight_before_the_roll_with_a_choice_of_victims_R_DEV_4() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 1, settlements=[8])
    build(s, 2, settlements=[18])
    give(s, 2, cards(grain=1))
    give_dev(s, 0, KNIGHT)
    apply(s, PlayKnight(), 0)
    apply(s, MoveRobber(4), 0)
    assert s.phase == Phase.STEAL
    assert legal_actions(s, 0) == [Steal(1), Steal(2)]
    assert apply(s, Steal(2), 0) == [Stolen(0, 2, 1, GRAIN)]
    assert s.phase == Phase.PRE_ROLL
    assert legal_actions(s, 0) == [RollDice()]


def test_knight_has_no_discard_step_R_DEV_4() -> None:
    s = scenario()
    give(s, 1, cards(ore=12))
    give(s, 0, cards(wool=10))
    give_dev(s, 0, KNIGHT)
    apply(s, PlayKnight(), 0)
    assert s.phase == Phase.MOVE_ROBBER
    assert s.discard_owed == [0, 0, 0, 0]
    apply(s, MoveRobber(0), 0)
    assert sum(s.hands[1]) == 12 and sum(s.hands[0]) == 10


def test_played_knight_stays_face_up_R_DEV_4() -> None:
    s = scenario()
    give_dev(s, 0, KNIGHT, 2)
    apply(s, PlayKnight(), 0)
    assert s.knights[0] == 1
    assert s.dev_hand[0][KNIGHT] == 1
    assert observe(s, 2)["seats"][0]["knights"] == 1
    assert observe(s, 2)["seats"][0]["dev_cards"] == 1


def test_road_building_places_two_free_roads_R_DEV_5() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert s.phase == Phase.ROAD_BUILDING
    assert_illegal(s, EndTurn(), 0, "wrong_phase")
    assert apply(s, BuildRoad(edge(7, 12)), 0) == [RoadBuilt(0, edge(7, 12), True)]
    assert s.phase == Phase.ROAD_BUILDING
    apply(s, BuildRoad(edge(12, 17)), 0)
    assert s.phase == Phase.MAIN
    assert s.hands[0] == [0] * 5
    assert s.bank == [19] * 5
    assert s.pieces[0][0] == 13


def test_road_building_may_stop_after_the_first_road_R_DEV_5() -> None:
    # 「道を2本まで造れます」: up to two roads; the second may be declined.
    s = scenario()
    build(s, 0, settlements=[7], roads=[edge(7, 3)])
    give_dev(s, 0, ROAD_BUILDING)
    give(s, 0, cards(lumber=2, brick=2, wool=1, grain=1))
    apply(s, PlayRoadBuilding(), 0)
    assert StopRoadBuilding() not in legal_actions(s, 0)  # the first road comes first
    assert_illegal(s, StopRoadBuilding(), 0, "wrong_phase")
    assert observe(s, 0)["free_roads"] == 2
    apply(s, BuildRoad(edge(7, 12)), 0)
    assert observe(s, 0)["free_roads"] == 1
    legal = legal_actions(s, 0)
    assert legal[-1] == StopRoadBuilding()
    assert all(isinstance(a, BuildRoad) for a in legal[:-1])
    assert isinstance(assert_illegal(s, StopRoadBuilding(), 1), NotYourTurn)
    assert apply(s, StopRoadBuilding(), 0) == [RoadBuildingStopped(0)]
    assert s.phase == Phase.MAIN and s.free_roads == 0
    assert s.pieces[0][0] == 13
    # The turn goes on as usual: a paid road, a settlement on the new road, the end.
    apply(s, BuildRoad(edge(12, 17)), 0)
    apply(s, BuildSettlement(17), 0)
    assert s.hands[0] == [0, 0, 0, 0, 0]
    assert_illegal(s, StopRoadBuilding(), 0, "wrong_phase")
    apply(s, EndTurn(), 0)


def test_road_building_stopped_before_the_roll_R_DEV_5() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(7, 12)), 0)
    apply(s, StopRoadBuilding(), 0)
    assert s.phase == Phase.PRE_ROLL
    assert legal_actions(s, 0) == [RollDice()]  # one card a turn (R-DEV-2)
    roll(s, 6)
    assert s.phase == Phase.MAIN


def test_road_building_stop_in_the_two_player_game_R_DEV_5() -> None:
    s = two_player()
    build(s, 0, settlements=[8])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(8, 12)), 0)
    assert s.phase == Phase.NEUTRAL_ROAD  # R-2P-4: a neutral road after each road
    assert StopRoadBuilding() not in legal_actions(s, 0)
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    assert s.phase == Phase.ROAD_BUILDING
    assert StopRoadBuilding() in legal_actions(s, 0)
    apply(s, StopRoadBuilding(), 0)
    assert s.phase == Phase.MAIN


def test_road_building_follows_the_road_rules_R_DEV_5() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    build(s, 1, settlements=[17])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert_illegal(s, BuildRoad(edge(18, 13)), 0, "illegal_placement")  # not connected
    apply(s, BuildRoad(edge(7, 12)), 0)
    apply(s, BuildRoad(edge(12, 17)), 0)
    assert s.phase == Phase.MAIN
    roads = [a for a in legal_actions(s, 0) if isinstance(a, BuildRoad)]
    assert roads == []  # no lumber or brick: the free roads are used up


def test_road_building_with_one_road_left_R_DEV_5() -> None:
    coast = (3, 0, 4, 1, 5, 2, 6, 10, 15, 20, 26, 32, 37, 42, 46)  # 14 roads
    s = scenario()
    build(s, 0, settlements=[3], roads=path(*coast))
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert s.phase == Phase.ROAD_BUILDING
    apply(s, BuildRoad(edge(46, 50)), 0)
    assert s.phase == Phase.MAIN
    assert s.pieces[0][0] == 0


def test_road_building_with_no_road_left_R_DEV_5() -> None:
    coast = (3, 0, 4, 1, 5, 2, 6, 10, 15, 20, 26, 32, 37, 42, 46, 50)  # 15 roads
    s = scenario()
    build(s, 0, settlements=[3], roads=path(*coast))
    give_dev(s, 0, ROAD_BUILDING)
    events = apply(s, PlayRoadBuilding(), 0)
    assert events == [DevCardPlayed(0, ROAD_BUILDING)]
    assert s.phase == Phase.MAIN
    assert s.dev_hand[0][ROAD_BUILDING] == 0


def test_road_building_with_a_single_free_spot_R_DEV_5() -> None:
    s = scenario()
    build(s, 0, settlements=[0])  # edges 0-3 and 0-4
    build(s, 1, settlements=[7, 8], roads=[edge(8, 4), edge(4, 0), edge(7, 3)])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert legal_actions(s, 0) == [BuildRoad(edge(0, 3))]
    apply(s, BuildRoad(edge(0, 3)), 0)
    assert s.phase == Phase.MAIN  # nothing else fits: one road only
    assert s.pieces[0][0] == 14


def test_road_building_with_no_free_spot_R_DEV_5() -> None:
    s = scenario()
    build(s, 0, settlements=[0])
    build(s, 1, settlements=[7, 8], roads=[edge(8, 4), edge(4, 0), edge(0, 3)])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert s.phase == Phase.MAIN
    assert s.pieces[0][0] == 15


def test_road_building_before_the_roll_R_DEV_5() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[7])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(7, 12)), 0)
    apply(s, BuildRoad(edge(7, 3)), 0)
    assert s.phase == Phase.PRE_ROLL


def test_year_of_plenty_takes_two_resources_R_DEV_6() -> None:
    s = scenario()
    give_dev(s, 0, YEAR_OF_PLENTY, 2)
    events = apply(s, PlayYearOfPlenty(LUMBER, ORE), 0)
    assert YearOfPlentyTaken(0, cards(lumber=1, ore=1)) in events
    assert s.hands[0] == list(cards(lumber=1, ore=1))
    check_conservation(s)


def test_year_of_plenty_two_of_one_kind_R_DEV_6() -> None:
    s = scenario()
    give_dev(s, 0, YEAR_OF_PLENTY)
    apply(s, PlayYearOfPlenty(GRAIN, GRAIN), 0)
    assert s.hands[0] == list(cards(grain=2))
    assert s.bank[GRAIN] == 17


def test_year_of_plenty_only_from_what_the_bank_holds_R_DEV_6() -> None:
    s = scenario()
    give_dev(s, 0, YEAR_OF_PLENTY)
    give(s, 1, cards(ore=19, grain=18))
    assert_illegal(s, PlayYearOfPlenty(ORE, WOOL), 0, "bank_short")
    assert_illegal(s, PlayYearOfPlenty(GRAIN, GRAIN), 0, "bank_short")
    assert_illegal(s, PlayYearOfPlenty(WOOL, None), 0, "bank_short")  # two are there
    assert s.dev_hand[0][YEAR_OF_PLENTY] == 1 and not s.dev_played
    apply(s, PlayYearOfPlenty(GRAIN, WOOL), 0)
    assert s.hands[0] == list(cards(wool=1, grain=1))


def test_year_of_plenty_one_card_when_the_bank_holds_one_R_DEV_6() -> None:
    s = scenario()
    give_dev(s, 0, YEAR_OF_PLENTY)
    give(s, 1, cards(lumber=19, brick=19, wool=19, grain=19, ore=18))
    plays = [a for a in legal_actions(s, 0) if isinstance(a, PlayYearOfPlenty)]
    assert plays == [PlayYearOfPlenty(ORE, None)]
    assert_illegal(s, PlayYearOfPlenty(ORE, ORE), 0, "bank_short")
    apply(s, PlayYearOfPlenty(ORE, None), 0)
    assert s.hands[0] == list(cards(ore=1))
    assert s.bank == [0] * 5


def test_monopoly_takes_all_of_one_resource_R_DEV_7() -> None:
    s = scenario(current=1)
    give_dev(s, 1, MONOPOLY)
    give(s, 0, cards(wool=3, ore=2))
    give(s, 1, cards(wool=1))
    give(s, 2, cards(brick=4))
    give(s, 3, cards(wool=5, grain=1))
    events = apply(s, PlayMonopoly(WOOL), 1)
    assert MonopolyTaken(1, WOOL, (3, 0, 0, 5)) in events
    assert s.hands == [
        list(cards(ore=2)),
        list(cards(wool=9)),
        list(cards(brick=4)),
        list(cards(grain=1)),
    ]
    check_conservation(s)


def test_monopoly_when_nobody_has_any_R_DEV_7() -> None:
    s = scenario()
    give_dev(s, 0, MONOPOLY)
    give(s, 1, cards(ore=2))
    events = apply(s, PlayMonopoly(LUMBER), 0)
    assert MonopolyTaken(0, LUMBER, (0, 0, 0, 0)) in events
    assert s.hands[1] == list(cards(ore=2))
    assert s.dev_hand[0][MONOPOLY] == 0


def test_victory_point_card_worth_one_and_hidden_R_DEV_8() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    give_dev(s, 0, VICTORY_POINT, 2)
    assert s.vp[0] == 1
    assert s.total_vp(0) == 3
    assert observe(s, 1)["seats"][0]["vp"] == 1
    assert observe(s, 1)["seats"][0]["dev_cards"] == 2
    assert observe(s, 1)["you"]["vp_total"] == 0
    assert observe(s, 0)["you"]["vp_total"] == 3
    assert observe(s, 0)["you"]["vp_cards"] == 2


def test_victory_point_cards_revealed_at_the_win_R_DEV_8() -> None:
    s = scenario(vp_target=5)
    build(s, 0, cities=[7], settlements=[29])  # 3 VP
    build(s, 2, settlements=[40])
    give_dev(s, 0, VICTORY_POINT, 1)
    give_dev(s, 2, VICTORY_POINT, 1)
    give(s, 0, DEV_COST)
    events = apply(s, BuyDevCard(), 0, chance=(VICTORY_POINT,))
    assert of_type(events, GameOver) == [GameOver(0, (5, 0, 2, 0), (2, 0, 1, 0))]
    assert observe(s, 1)["final_scores"] == [5, 0, 2, 0]


def test_played_cards_are_discarded_not_reshuffled_R_DEV_9() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    for card, count in enumerate(list(s.dev_deck)):
        give_dev(s, 1, card, count)
    s.dev_hand[1] = [0] * 5  # the deck is used up
    s.dev_hand[0] = [1, 1, 1, 1, 0]
    assert sum(s.dev_deck) == 0
    give(s, 0, DEV_COST)
    for play, rest in (
        (PlayYearOfPlenty(LUMBER, BRICK), [1, 1, 0, 1, 0]),
        (PlayMonopoly(ORE), [1, 1, 0, 0, 0]),
        (PlayRoadBuilding(), [1, 0, 0, 0, 0]),
    ):
        apply(s, play, 0)
        if s.phase == Phase.ROAD_BUILDING:
            apply(s, BuildRoad(edge(7, 12)), 0)
            apply(s, BuildRoad(edge(7, 3)), 0)
        assert s.dev_hand[0] == rest
        assert sum(s.dev_deck) == 0
        assert_illegal(s, BuyDevCard(), 0, "deck_empty")
        s.dev_played = False  # as if on a later turn
