"""R-2P-*: the official two-player variant ("Catan for Two").

Seats 0 and 1 are the players; owners 2 and 3 are the neutral players, whose
settlements start on ``NEUTRAL_NODES`` = (22, 31) of the fixed board (node 22
touches hexes 3, 7, 8; node 31 hexes 10, 11, 15; the desert is hex 9).
"""

from __future__ import annotations

import random

from protocol.rules import (
    Board,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    Discard,
    DiscardKnight,
    EndTurn,
    GameState,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    NotYourTurn,
    Phase,
    PlayKnight,
    PlayRoadBuilding,
    RollDice,
    RulesError,
    Settings,
    TokenForcedTrade,
    TokenRobberHome,
    apply,
    legal_actions,
    new_game,
    observe,
    redact,
    setup_seat,
    to_act,
    token_cost,
)
from protocol.rules.board import (
    BRICK,
    COASTAL_NODES,
    DESERT,
    GRAIN,
    HEX_NODES,
    LUMBER,
    NODE_EDGES,
    NODE_HEXES,
    NODE_NODES,
    NODE_POS,
    NUM_NODES,
    ORE,
    WOOL,
    numbers_for,
)
from protocol.rules.events import (
    CityBuilt,
    DevCardBought,
    DiceRolled,
    DiscardsOwed,
    Event,
    ForcedTradeDrawn,
    GameOver,
    GaveBack,
    KnightDiscarded,
    LargestArmyChanged,
    LongestRoadChanged,
    Produced,
    RoadBuilt,
    RobberMoved,
    SettlementBuilt,
    SetupIncome,
    Stolen,
    TokensGained,
    TokensSpent,
)
from protocol.rules.state import NEUTRAL_NODES, ROADS, SETTLEMENTS

from .helpers import (
    CITY_COST,
    DESERT_HEX,
    DEV_COST,
    KNIGHT,
    ROAD_BUILDING,
    ROAD_COST,
    SETTLEMENT_COST,
    TERRAIN,
    VICTORY_POINT,
    assert_illegal,
    build,
    build_any,
    cards,
    check_conservation,
    check_tokens,
    dice,
    edge,
    give,
    give_dev,
    new,
    new_with,
    of_type,
    path,
    play_setup,
    refresh_owners,
    roll,
    scenario,
    set_tokens,
    two_player,
)

NEUTRAL_EDGES = (*NODE_EDGES[22], *NODE_EDGES[31])
"""The road spots of the neutral players at the start: around their settlements."""


def _all_neutral_roads() -> list[BuildNeutralRoad]:
    return [BuildNeutralRoad(2, e) for e in NODE_EDGES[22]] + [
        BuildNeutralRoad(3, e) for e in NODE_EDGES[31]
    ]


def _end_turn(s: GameState) -> None:
    """End the current turn; the next seat is left before its first roll."""
    apply(s, EndTurn(), s.current)
    assert s.phase == Phase.PRE_ROLL


def _both_rolls(s: GameState, first: int = 12, second: int = 11) -> None:
    roll(s, first)
    roll(s, second)
    assert s.phase == Phase.MAIN


def _next_own_turn(s: GameState) -> None:
    """Pass the turn to the opponent and back; the original seat is in MAIN."""
    _end_turn(s)
    _both_rolls(s)
    _end_turn(s)
    _both_rolls(s)


# --- R-2P-1: neutral players, set-up -----------------------------------------


def test_neutral_settlements_stand_before_the_setup_R_2P_1() -> None:
    s = new(2)
    assert s.settings.owners == 4
    assert s.phase == Phase.SETUP_SETTLEMENT and s.setup_step == 0
    assert NEUTRAL_NODES == (22, 31)
    owners = {n: s.node_owner[n] for n in range(NUM_NODES) if s.node_owner[n] >= 0}
    assert owners == {22: 2, 31: 3}
    assert s.node_level[22] == s.node_level[31] == 1
    # No roads for anyone, neutral players included.
    assert all(o < 0 for o in s.edge_owner)
    assert s.roads == [[], [], [], []]
    # Pieces and points are counted for four owners; cards for two players only.
    assert s.pieces == [[15, 5, 4], [15, 5, 4], [15, 4, 4], [15, 4, 4]]
    assert s.vp == [0, 0, 1, 1]
    assert len(s.hands) == 2 and len(s.dev_hand) == 2 and len(s.knights) == 2
    view = observe(s, 0)
    assert len(view["seats"]) == 2
    assert [x["owner"] for x in view["neutrals"]] == [2, 3]
    assert sorted(view["buildings"]) == [[22, 2, 1], [31, 3, 1]]
    assert view["roads"] == []


def test_neutral_nodes_are_symmetric_inland_intersections_R_2P_1() -> None:
    a, b = NEUTRAL_NODES
    cx = sum(x for x, _ in NODE_POS) / NUM_NODES
    cy = sum(y for _, y in NODE_POS) / NUM_NODES
    (ax, ay), (bx, by) = NODE_POS[a], NODE_POS[b]
    # Point-symmetric through the centre of the island.
    assert abs((ax + bx) / 2 - cx) < 1e-9 and abs((ay + by) / 2 - cy) < 1e-9
    for n in NEUTRAL_NODES:
        assert n not in COASTAL_NODES
        assert len(NODE_HEXES[n]) == 3
    assert b not in NODE_NODES[a]
    # The same two nodes on every board: they are fixed, not drawn.
    for seed in range(5):
        s = new_with(Settings(players=2), seed=seed)
        assert s.node_owner[22] == 2 and s.node_owner[31] == 3


def test_setup_order_is_a_b_b_a_R_2P_1() -> None:
    for first in (0, 1):
        s = new(2, first_seat=first)
        other = 1 - first
        assert [setup_seat(s, i) for i in range(4)] == [first, other, other, first]
    s = new(2, first_seat=1)
    seats = []
    picks = [(0, edge(0, 3)), (23, edge(23, 18)), (40, edge(40, 45)), (49, edge(49, 52))]
    for node, e in picks:
        seats.append(s.current)
        apply(s, BuildSettlement(node), s.current)
        apply(s, BuildRoad(e), s.current)
    assert seats == [1, 0, 0, 1]
    assert s.setup_step == 4
    assert s.phase == Phase.PRE_ROLL and s.current == 1 and s.turn == 1


def test_setup_distance_rule_counts_neutral_settlements_R_2P_1() -> None:
    s = new(2)
    spots = {a.node for a in legal_actions(s, 0) if isinstance(a, BuildSettlement)}
    for n in NEUTRAL_NODES:
        assert n not in spots
        for m in NODE_NODES[n]:
            assert m not in spots
        assert_illegal(s, BuildSettlement(n), 0, "illegal_placement")
        assert_illegal(s, BuildSettlement(NODE_NODES[n][0]), 0, "illegal_placement")
    assert len(spots) == NUM_NODES - 8


def test_setup_income_and_no_neutral_building_R_2P_1() -> None:
    s = new(2, first_seat=0)
    picks = [(8, edge(8, 4)), (14, edge(14, 19)), (40, edge(40, 45)), (34, edge(34, 39))]
    out: list[list[Event]] = []
    for node, e in picks:
        seat = s.current
        out.append(apply(s, BuildSettlement(node), seat))
        assert s.phase == Phase.SETUP_ROAD
        out.append(apply(s, BuildRoad(e), seat))
        # Set-up placements never call for neutral pieces (R-2P-4).
        assert s.phase in (Phase.SETUP_SETTLEMENT, Phase.PRE_ROLL)
    assert all(s.edge_owner[e] < 0 for e in NEUTRAL_EDGES)
    assert s.roads[2] == [] and s.roads[3] == []
    # Second settlements pay as in the base game (R-SETUP-4): seat 1 on 40 (ore 5,
    # grain 6, grain 10), seat 0 on 34 (lumber 4, lumber 3, ore 5).
    assert of_type(out[4], SetupIncome) == [SetupIncome(1, cards(grain=2, ore=1))]
    assert of_type(out[6], SetupIncome) == [SetupIncome(0, cards(lumber=2, ore=1))]
    assert s.phase == Phase.PRE_ROLL and s.current == 0 and s.turn == 1


# --- R-2P-2: trade tokens ------------------------------------------------------


def test_twenty_tokens_five_each_R_2P_2() -> None:
    s = new(2)
    assert s.tokens == [5, 5]
    assert s.token_stock == 10
    check_tokens(s)
    view = observe(s, 1)
    assert [x["tokens"] for x in view["seats"]] == [5, 5]
    assert view["token_stock"] == 10
    assert observe(s, None)["token_stock"] == 10


def test_no_tokens_in_the_base_game_R_2P_2() -> None:
    for players in (3, 4):
        s = new(players)
        assert s.tokens == [0] * players
        assert s.token_stock == 0
    s = scenario()
    build(s, 0, settlements=[8], roads=path(8, 4))
    s.knights[0] = 1
    assert_illegal(s, TokenRobberHome(), 0, "no_tokens")
    assert_illegal(s, TokenForcedTrade(), 0, "no_tokens")
    assert_illegal(s, DiscardKnight(), 0, "no_tokens")
    names = {a.name for a in legal_actions(s, 0)}
    assert not names & {"token_forced_trade", "token_robber_home", "discard_knight"}


def test_tokens_are_conserved_in_random_games_R_2P_2() -> None:
    for seed in (3, 11):
        s = new_game(Settings(players=2), seed=seed)
        pick = random.Random(seed)
        for _ in range(1200):
            if s.phase == Phase.GAME_OVER:
                break
            seat = to_act(s)[0]
            options = legal_actions(s, seat)
            apply(s, options[pick.randrange(len(options))], seat)
            check_tokens(s)
            check_conservation(s)
            assert len(s.hands) == 2
            assert all(-1 <= o <= 3 for o in s.node_owner)
        assert s.turn > 5


# --- R-2P-3: double roll -------------------------------------------------------


def test_two_rolls_per_turn_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    events = roll(s, 5)
    assert of_type(events, DiceRolled) == [DiceRolled(0, dice(5))]
    assert s.phase == Phase.PRE_ROLL
    assert s.rolls_done == 1 and s.first_sum == 5 and not s.rolled
    assert legal_actions(s, 0) == [RollDice()]
    give(s, 0, ROAD_COST)
    assert_illegal(s, EndTurn(), 0, "wrong_phase")
    assert_illegal(s, BuildRoad(edge(22, 17)), 0, "wrong_phase")
    roll(s, 9)
    assert s.phase == Phase.MAIN
    assert s.rolls_done == 2 and s.rolled
    assert s.last_roll == dice(9)
    assert_illegal(s, RollDice(), 0, "wrong_phase")
    assert RollDice() not in legal_actions(s, 0)


def test_each_roll_produces_right_after_it_is_made_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[34])  # hexes 8 lumber 4, 12 lumber 3, 13 ore 5
    build(s, 1, settlements=[40])  # hexes 13 ore 5, 14 grain 6, 17 grain 10
    events = roll(s, 5)
    assert of_type(events, Produced) == [Produced((cards(ore=1), cards(ore=1)), ())]
    assert s.hands == [list(cards(ore=1)), list(cards(ore=1))]
    events = roll(s, 6)
    assert of_type(events, Produced) == [Produced((cards(), cards(grain=1)), ())]
    assert s.hands == [list(cards(ore=1)), list(cards(ore=1, grain=1))]
    check_conservation(s)


def test_second_roll_must_differ_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    roll(s, 8)
    for same in ((2, 6), (4, 4), (6, 2), (3, 5)):
        before = s.to_dict()
        try:
            apply(s, RollDice(), 0, chance=same)
        except RulesError as err:
            assert err.code == "invalid_log"
        else:
            raise AssertionError(f"a recorded second roll {same} equal to the first passed")
        assert s.to_dict() == before
    apply(s, RollDice(), 0, chance=(4, 5))
    assert s.phase == Phase.MAIN


def test_second_roll_is_rerolled_until_it_differs_R_2P_3() -> None:
    for seed in range(40):
        s = two_player(phase=Phase.PRE_ROLL, seed=seed)
        # Find the sum the RNG would draw for the second roll, and force it as the first.
        peek = s.rng.copy()
        peek.below(36)  # the first roll draws too, even with forced dice
        x = peek.below(36)
        would = x // 6 + x % 6 + 2
        apply(s, RollDice(), 0, chance=dice(would))
        assert s.first_sum == would
        if would == 7:
            apply(s, MoveRobber(0), 0)  # nobody to rob: no draw
        after_one_draw = s.rng.copy()
        after_one_draw.below(36)
        events = apply(s, RollDice(), 0)
        (rolled,) = of_type(events, DiceRolled)
        assert isinstance(rolled, DiceRolled)
        assert sum(rolled.dice) != would
        assert s.rng.state != after_one_draw.state  # it drew again


def test_random_second_rolls_differ_R_2P_3() -> None:
    for seed in range(60):
        s = two_player(phase=Phase.PRE_ROLL, seed=seed)
        first = of_type(apply(s, RollDice(), 0), DiceRolled)[0]
        assert isinstance(first, DiceRolled)
        while s.phase != Phase.PRE_ROLL:  # a 7: resolve it
            apply(s, legal_actions(s, to_act(s)[0])[0], to_act(s)[0])
        second = of_type(apply(s, RollDice(), 0), DiceRolled)[0]
        assert isinstance(second, DiceRolled)
        assert sum(first.dice) != sum(second.dice)


def test_seven_on_the_first_roll_is_resolved_before_the_second_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    build(s, 1, settlements=[23])  # hexes 4, 8, 9
    give(s, 1, cards(lumber=6, ore=3))  # 9 cards: discards 4
    give(s, 0, cards(wool=8))  # 8 cards: discards 4
    events = roll(s, 7)
    assert of_type(events, DiscardsOwed) == [DiscardsOwed((4, 4))]
    assert s.phase == Phase.DISCARD
    assert_illegal(s, RollDice(), 0, "wrong_phase")
    apply(s, Discard(cards(wool=4)), 0)
    apply(s, Discard(cards(lumber=4)), 1)
    assert s.phase == Phase.MOVE_ROBBER
    events = apply(s, MoveRobber(8), 0, chance=(ORE,))
    assert of_type(events, Stolen) == [Stolen(0, 1, 1, ORE)]
    # Back before the second roll: no trading yet.
    assert s.phase == Phase.PRE_ROLL and s.rolls_done == 1 and not s.rolled
    assert_illegal(s, MaritimeTrade(WOOL, ORE), 0, "wrong_phase")
    assert legal_actions(s, 0) == [RollDice()]
    roll(s, 4)
    assert s.phase == Phase.MAIN


def test_seven_on_the_second_roll_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    roll(s, 5)
    roll(s, 7)
    assert s.phase == Phase.MOVE_ROBBER
    apply(s, MoveRobber(0), 0)
    assert s.phase == Phase.MAIN and s.rolled


def test_knight_between_the_two_rolls_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    give_dev(s, 0, KNIGHT)
    roll(s, 5)
    assert PlayKnight() in legal_actions(s, 0)
    apply(s, PlayKnight(), 0)
    apply(s, MoveRobber(3), 0)
    assert s.phase == Phase.PRE_ROLL and s.rolls_done == 1
    roll(s, 6)
    assert s.phase == Phase.MAIN


def test_rolls_reset_every_turn_R_2P_3() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    _both_rolls(s, 8, 6)
    _end_turn(s)
    assert s.current == 1 and s.rolls_done == 0 and s.first_sum == 0
    roll(s, 8)  # the same sums as the last turn are fine
    roll(s, 6)
    assert s.phase == Phase.MAIN


def test_base_game_rolls_once_R_2P_3() -> None:
    s = scenario(phase=Phase.PRE_ROLL)
    roll(s, 5)
    assert s.phase == Phase.MAIN and s.rolled


# --- R-2P-4: neutral building ----------------------------------------------------


def test_road_triggers_a_neutral_road_R_2P_4() -> None:
    s = two_player()
    build(s, 0, settlements=[8])
    give(s, 0, ROAD_COST)
    e = edge(8, 4)
    events = apply(s, BuildRoad(e), 0)
    assert events == [RoadBuilt(0, e, False)]
    assert s.phase == Phase.NEUTRAL_ROAD
    assert to_act(s) == (0,)
    assert legal_actions(s, 0) == _all_neutral_roads()
    assert legal_actions(s, 1) == []
    events = apply(s, BuildNeutralRoad(3, edge(31, 36)), 0)
    assert events == [RoadBuilt(3, edge(31, 36), True)]
    assert s.edge_owner[edge(31, 36)] == 3
    assert s.pieces[3][ROADS] == 14
    assert s.road_len[3] == 1
    assert s.phase == Phase.MAIN
    assert s.hands == [[0] * 5, [0] * 5]


def test_neutral_road_must_connect_to_that_neutral_R_2P_4() -> None:
    s = two_player()
    build(s, 0, settlements=[8])
    give(s, 0, ROAD_COST)
    apply(s, BuildRoad(edge(8, 4)), 0)
    assert_illegal(s, BuildNeutralRoad(3, edge(22, 17)), 0, "illegal_placement")
    assert_illegal(s, BuildNeutralRoad(2, edge(31, 36)), 0, "illegal_placement")
    assert_illegal(s, BuildNeutralRoad(2, edge(0, 3)), 0, "illegal_placement")
    assert_illegal(s, BuildNeutralRoad(2, edge(8, 4)), 0, "illegal_placement")  # taken
    assert_illegal(s, BuildNeutralRoad(1, edge(22, 17)), 0, "bad_neutral")
    assert_illegal(s, BuildNeutralRoad(0, edge(22, 17)), 0, "bad_neutral")
    assert_illegal(s, BuildNeutralRoad(2, 999), 0, "bad_location")
    assert isinstance(assert_illegal(s, BuildNeutralRoad(2, edge(22, 17)), 1), NotYourTurn)
    # Nothing else until the neutral road is built.
    give(s, 0, ROAD_COST)
    assert_illegal(s, BuildRoad(edge(4, 0)), 0, "wrong_phase")
    assert_illegal(s, EndTurn(), 0, "wrong_phase")
    assert_illegal(s, BuildNeutralSettlement(2, 12), 0, "wrong_phase")


def test_neutral_road_extends_its_own_network_R_2P_4() -> None:
    s = two_player()
    build_any(s, 2, roads=path(22, 17, 12))
    build(s, 1, settlements=[12])  # the opponent blocks the neutral's road at 12
    build(s, 0, settlements=[0])
    give(s, 0, ROAD_COST)
    apply(s, BuildRoad(edge(0, 3)), 0)
    spots = {a.edge for a in legal_actions(s, 0) if isinstance(a, BuildNeutralRoad)
             and a.neutral == 2}
    assert spots == {edge(22, 16), edge(22, 28), edge(17, 23)}
    assert_illegal(s, BuildNeutralRoad(2, edge(12, 7)), 0, "illegal_placement")
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    assert s.road_len[2] == 3  # 16-22-17-12


def test_settlement_triggers_a_neutral_settlement_R_2P_4() -> None:
    s = two_player()
    build_any(s, 2, roads=path(11, 16, 22, 17, 23))
    build(s, 0, settlements=[40], roads=path(40, 45, 41))
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(41), 0)
    assert events == [SettlementBuilt(0, 41, False)]  # interior, not on the desert
    assert s.phase == Phase.NEUTRAL_SETTLEMENT
    # Touching the neutral's own road, distance rule: 11 and 23 (16, 17 touch node 22).
    assert legal_actions(s, 0) == [BuildNeutralSettlement(2, 11), BuildNeutralSettlement(2, 23)]
    tokens = (s.tokens[:], s.token_stock)
    events = apply(s, BuildNeutralSettlement(2, 23), 0)
    assert events == [SettlementBuilt(2, 23, True)]
    assert s.node_owner[23] == 2
    assert s.vp[2] == 2 and s.pieces[2][SETTLEMENTS] == 3
    # A neutral settlement next to the desert gives no tokens to anyone (R-2P-6).
    assert (s.tokens, s.token_stock) == tokens
    assert s.phase == Phase.MAIN


def test_neutral_settlement_follows_placement_rules_R_2P_4() -> None:
    s = two_player()
    build_any(s, 2, roads=path(22, 17, 12))
    build_any(s, 3, roads=path(31, 36, 41))
    build(s, 0, settlements=[0], roads=path(0, 4, 1))
    give(s, 0, SETTLEMENT_COST)
    apply(s, BuildSettlement(1), 0)
    assert s.phase == Phase.NEUTRAL_SETTLEMENT
    # Either neutral, as the player chooses.
    assert legal_actions(s, 0) == [BuildNeutralSettlement(2, 12), BuildNeutralSettlement(3, 41)]
    assert_illegal(s, BuildNeutralSettlement(2, 17), 0, "illegal_placement")  # next to 22
    assert_illegal(s, BuildNeutralSettlement(3, 12), 0, "illegal_placement")  # not its road
    assert_illegal(s, BuildNeutralSettlement(2, 40), 0, "illegal_placement")  # no road there
    assert_illegal(s, BuildNeutralSettlement(2, 22), 0, "illegal_placement")  # taken
    assert_illegal(s, BuildNeutralSettlement(1, 12), 0, "bad_neutral")
    assert_illegal(s, BuildNeutralSettlement(2, 99), 0, "bad_location")
    assert_illegal(s, BuildNeutralRoad(2, edge(12, 7)), 0, "wrong_phase")
    assert isinstance(assert_illegal(s, BuildNeutralSettlement(2, 12), 1), NotYourTurn)
    apply(s, BuildNeutralSettlement(3, 41), 0)
    assert s.node_owner[41] == 3 and s.phase == Phase.MAIN


def test_neutral_settlement_falls_back_to_road_R_2P_4() -> None:
    s = two_player()  # the neutral players have no roads yet: no settlement fits
    build(s, 0, settlements=[8], roads=path(8, 4, 1))
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(1), 0)
    assert of_type(events, SettlementBuilt) == [SettlementBuilt(0, 1, False)]
    assert s.phase == Phase.NEUTRAL_ROAD
    assert legal_actions(s, 0) == _all_neutral_roads()
    assert_illegal(s, BuildNeutralSettlement(2, 12), 0, "wrong_phase")
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    assert s.phase == Phase.MAIN
    assert all(s.node_owner[n] < 0 for n in range(NUM_NODES) if n not in (1, 8, 22, 31))


def test_nothing_is_built_when_no_neutral_piece_fits_R_2P_4() -> None:
    s = two_player()
    build(s, 1, roads=NEUTRAL_EDGES)  # every road spot of both neutrals is taken
    build(s, 0, settlements=[0], roads=path(0, 3, 7))
    give(s, 0, ROAD_COST)
    events = apply(s, BuildRoad(edge(0, 4)), 0)
    assert events == [RoadBuilt(0, edge(0, 4), False)]
    assert s.phase == Phase.MAIN
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(7), 0)
    assert of_type(events, SettlementBuilt) == [SettlementBuilt(0, 7, False)]
    assert s.phase == Phase.MAIN
    assert s.roads[2] == [] and s.roads[3] == []


def test_neutral_settlement_needs_a_piece_left_R_2P_4() -> None:
    s = two_player()
    build_any(s, 2, roads=path(22, 17, 12))
    build(s, 0, settlements=[0], roads=path(0, 4, 1))
    s.pieces[2][SETTLEMENTS] = 0  # poked: neutral 2 has no settlement left
    give(s, 0, SETTLEMENT_COST)
    apply(s, BuildSettlement(1), 0)
    assert s.phase == Phase.NEUTRAL_ROAD


def test_road_building_card_gives_a_neutral_road_per_road_R_2P_4() -> None:
    s = two_player()
    build(s, 0, settlements=[0])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    assert s.phase == Phase.ROAD_BUILDING
    events = apply(s, BuildRoad(edge(0, 3)), 0)
    assert events == [RoadBuilt(0, edge(0, 3), True)]
    assert s.phase == Phase.NEUTRAL_ROAD and s.neutral_return == Phase.ROAD_BUILDING
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    assert s.phase == Phase.ROAD_BUILDING and s.free_roads == 1
    apply(s, BuildRoad(edge(3, 7)), 0)
    assert s.phase == Phase.NEUTRAL_ROAD
    apply(s, BuildNeutralRoad(2, edge(16, 11)), 0)
    assert s.phase == Phase.MAIN and s.free_roads == 0
    assert s.roads[2] == [edge(22, 16), edge(16, 11)]
    assert s.hands == [[0] * 5, [0] * 5]


def test_road_building_before_the_rolls_returns_to_the_roll_R_2P_4() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[0])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(0, 3)), 0)
    apply(s, BuildNeutralRoad(3, edge(31, 37)), 0)
    apply(s, BuildRoad(edge(0, 4)), 0)
    apply(s, BuildNeutralRoad(3, edge(37, 32)), 0)
    assert s.phase == Phase.PRE_ROLL
    assert legal_actions(s, 0) == [RollDice()]


def test_cities_and_development_cards_trigger_nothing_R_2P_4() -> None:
    s = two_player()
    build(s, 0, settlements=[8])
    give(s, 0, CITY_COST)
    give(s, 0, DEV_COST)
    events = apply(s, BuildCity(8), 0)
    assert events == [CityBuilt(0, 8)]
    assert s.phase == Phase.MAIN
    events = apply(s, BuyDevCard(), 0, chance=(KNIGHT,))
    assert events == [DevCardBought(0, KNIGHT)]
    assert s.phase == Phase.MAIN
    assert s.roads[2] == [] and s.roads[3] == []


def test_neutral_players_never_produce_R_2P_4() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    build_any(s, 2, settlements=[12], roads=path(22, 17, 12))  # hexes 0 ore 5, 3, 4
    events = roll(s, 6)  # hex 7 (grain 6) touches neutral 22 only
    assert not of_type(events, Produced)
    events = roll(s, 5)  # hex 0 (ore 5) touches neutral 12, hex 13 nobody
    assert not of_type(events, Produced)
    assert s.bank == [19] * 5
    assert s.hands == [[0] * 5, [0] * 5]
    # A player on the same hex still receives.
    s = two_player(phase=Phase.PRE_ROLL)
    build(s, 0, settlements=[33])  # hexes 7 grain 6, 12 lumber 3
    events = roll(s, 6)
    assert of_type(events, Produced) == [Produced((cards(grain=1), cards()), ())]


def test_neutral_players_cannot_be_robbed_R_2P_4() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    roll(s, 7)
    events = apply(s, MoveRobber(7), 0)  # hex 7: only neutral 22
    assert events == [RobberMoved(0, 7)]
    assert s.phase == Phase.PRE_ROLL
    s = two_player(phase=Phase.PRE_ROLL)
    build(s, 1, settlements=[23])  # hex 8 holds neutral 22 and seat 1
    give(s, 1, cards(brick=2))
    roll(s, 7)
    events = apply(s, MoveRobber(8), 0)  # a single victim: no choice of the neutral
    assert of_type(events, Stolen) == [Stolen(0, 1, 1, BRICK)]
    assert s.phase == Phase.PRE_ROLL
    assert_illegal(s, MoveRobber(8), 0, "wrong_phase")


def test_neutral_player_never_wins_R_2P_4() -> None:
    s = two_player(vp_target=4)
    build_any(s, 2, settlements=[12, 43], roads=path(22, 28, 34, 39, 43, 47))
    s.lr_holder = 2
    refresh_owners(s)
    assert s.vp[2] == 5  # 3 settlements + Longest Road
    build(s, 0, settlements=[0])
    give(s, 0, ROAD_COST)
    apply(s, BuildRoad(edge(0, 3)), 0)
    apply(s, BuildNeutralRoad(2, edge(47, 51)), 0)
    assert s.phase == Phase.MAIN
    _end_turn(s)
    _both_rolls(s)
    assert s.winner is None
    assert s.phase == Phase.MAIN


def test_neutral_player_can_hold_longest_road_R_2P_4() -> None:
    s = two_player()
    build_any(s, 2, roads=path(22, 28, 34, 39, 43))  # 4 roads
    build(s, 0, settlements=[0])
    give(s, 0, ROAD_COST)
    apply(s, BuildRoad(edge(0, 3)), 0)
    events = apply(s, BuildNeutralRoad(2, edge(43, 47)), 0)
    assert events == [RoadBuilt(2, edge(43, 47), True), LongestRoadChanged(2, 5)]
    assert s.lr_holder == 2 and s.road_len[2] == 5
    assert s.vp[2] == 3
    assert observe(s, 1)["longest_road"] == 2
    # A player takes it only by being strictly longer (R-LR-2).
    build(s, 1, roads=path(2, 6, 10, 15, 20, 26))  # 5 roads: a tie
    s.road_len[1] = 5
    _end_turn(s)
    _both_rolls(s)
    give(s, 1, ROAD_COST)
    events = apply(s, BuildRoad(edge(26, 32)), 1)
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(1, 6)]
    assert s.lr_holder == 1 and s.vp[2] == 1 and s.vp[1] == 2
    assert s.phase == Phase.NEUTRAL_ROAD


def test_player_settlement_breaks_a_neutral_road_R_2P_4() -> None:
    s = two_player(current=1)
    build_any(s, 2, roads=path(22, 28, 34, 39, 43, 47))
    s.lr_holder = 2
    refresh_owners(s)
    build(s, 1, settlements=[40], roads=path(40, 35, 29, 34))
    assert s.vp[2] == 3
    give(s, 1, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(34), 1)
    assert events[0] == SettlementBuilt(1, 34, False)
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(None, 3)]
    assert s.road_len[2] == 3
    assert s.lr_holder == -1 and s.vp[2] == 1
    assert s.phase == Phase.NEUTRAL_SETTLEMENT
    assert legal_actions(s, 1) == [BuildNeutralSettlement(2, 43), BuildNeutralSettlement(2, 47)]


def test_neutral_settlement_breaks_a_player_road_R_2P_4() -> None:
    s = two_player()
    build(s, 1, roads=path(38, 43, 47, 51, 48, 52))
    s.lr_holder = 1
    refresh_owners(s)
    build_any(s, 2, roads=path(22, 28, 34, 39, 43))
    build(s, 0, settlements=[13], roads=path(13, 8, 12))
    assert s.vp[1] == 2 and s.road_len[1] == 5
    give(s, 0, SETTLEMENT_COST)
    apply(s, BuildSettlement(12), 0)
    assert s.phase == Phase.NEUTRAL_SETTLEMENT
    assert BuildNeutralSettlement(2, 43) in legal_actions(s, 0)
    events = apply(s, BuildNeutralSettlement(2, 43), 0)
    assert events == [SettlementBuilt(2, 43, True), LongestRoadChanged(None, 4)]
    assert s.road_len[1] == 4 and s.road_len[2] == 4
    assert s.lr_holder == -1 and s.vp[1] == 0
    assert s.phase == Phase.MAIN


def test_winning_build_ends_the_game_before_the_neutral_piece_R_2P_4() -> None:
    s = two_player(vp_target=5)
    build(s, 0, settlements=[13, 49], cities=[0], roads=path(13, 8, 12))
    assert s.vp[0] == 4
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(12), 0)
    assert of_type(events, GameOver) == [GameOver(0, (5, 0), (0, 0))]
    assert s.phase == Phase.GAME_OVER and s.winner == 0
    assert legal_actions(s, 0) == []


# --- R-2P-5: trade-token actions --------------------------------------------------


def _forced_trade_scene() -> GameState:
    s = two_player()
    give(s, 0, cards(lumber=2))
    give(s, 1, cards(wool=1, ore=2))
    return s


def test_forced_trade_draws_two_and_gives_back_two_R_2P_5() -> None:
    s = _forced_trade_scene()
    assert TokenForcedTrade() in legal_actions(s, 0)
    events = apply(s, TokenForcedTrade(), 0, chance=(WOOL, ORE))
    assert events == [TokensSpent(0, 1, "forced_trade"),
                      ForcedTradeDrawn(0, 1, 2, cards(wool=1, ore=1))]
    assert s.tokens == [4, 5] and s.token_stock == 11
    assert s.token_used
    assert s.hands == [list(cards(lumber=2, wool=1, ore=1)), list(cards(ore=1))]
    assert s.phase == Phase.GIVE_BACK and s.give_back == 2
    assert to_act(s) == (0,)
    options = legal_actions(s, 0)
    assert all(isinstance(a, GiveBack) and sum(a.cards) == 2 for a in options)
    assert GiveBack(cards(lumber=2)) in options and GiveBack(cards(wool=1, ore=1)) in options
    assert len(options) == 4  # LL, LW, LO, WO
    assert_illegal(s, GiveBack(cards(lumber=1)), 0, "wrong_count")
    assert_illegal(s, GiveBack(cards(lumber=3)), 0, "wrong_count")
    assert_illegal(s, GiveBack(cards(grain=2)), 0, "cannot_afford")
    assert isinstance(assert_illegal(s, GiveBack(cards(lumber=2)), 1), NotYourTurn)
    assert_illegal(s, EndTurn(), 0, "wrong_phase")
    events = apply(s, GiveBack(cards(lumber=2)), 0)
    assert events == [GaveBack(0, 1, 2, cards(lumber=2))]
    assert s.hands == [list(cards(wool=1, ore=1)), list(cards(lumber=2, ore=1))]
    assert s.phase == Phase.MAIN and s.give_back == 0
    check_conservation(s)
    check_tokens(s)


def test_forced_trade_may_give_back_the_drawn_cards_R_2P_5() -> None:
    s = two_player()
    give(s, 1, cards(grain=3))
    apply(s, TokenForcedTrade(), 0, chance=(GRAIN, GRAIN))
    assert s.hands[0] == list(cards(grain=2))
    assert legal_actions(s, 0) == [GiveBack(cards(grain=2))]
    apply(s, GiveBack(cards(grain=2)), 0)
    assert s.hands == [[0] * 5, list(cards(grain=3))]


def test_forced_trade_with_a_single_card_R_2P_5() -> None:
    s = two_player()
    give(s, 0, cards(brick=1))
    give(s, 1, cards(ore=1))
    before = s.to_dict()
    try:
        apply(s, TokenForcedTrade(), 0, chance=(ORE, ORE))
    except RulesError as err:
        assert err.code == "invalid_log"
    else:
        raise AssertionError("a recorded draw of 2 from a 1-card hand passed")
    assert s.to_dict() == before
    events = apply(s, TokenForcedTrade(), 0)
    assert events[1] == ForcedTradeDrawn(0, 1, 1, cards(ore=1))
    assert s.give_back == 1
    assert set(legal_actions(s, 0)) == {GiveBack(cards(brick=1)), GiveBack(cards(ore=1))}
    assert_illegal(s, GiveBack(cards(brick=1, ore=1)), 0, "wrong_count")
    apply(s, GiveBack(cards(brick=1)), 0)
    assert s.hands == [list(cards(ore=1)), list(cards(brick=1))]


def test_forced_trade_needs_cards_in_the_opponents_hand_R_2P_5() -> None:
    s = two_player()
    give(s, 0, cards(ore=5))
    assert TokenForcedTrade() not in legal_actions(s, 0)
    assert_illegal(s, TokenForcedTrade(), 0, "nothing_to_draw")


def test_forced_trade_with_an_empty_own_hand_R_2P_5() -> None:
    s = two_player()
    give(s, 1, cards(lumber=1, brick=1))
    apply(s, TokenForcedTrade(), 0, chance=(BRICK, LUMBER))
    assert legal_actions(s, 0) == [GiveBack(cards(lumber=1, brick=1))]
    apply(s, GiveBack(cards(lumber=1, brick=1)), 0)
    assert s.hands == [[0] * 5, list(cards(lumber=1, brick=1))]


def test_forced_trade_cards_are_private_R_2P_5() -> None:
    s = two_player()
    give(s, 0, cards(wool=2))
    give(s, 1, cards(lumber=1, brick=1, grain=1, ore=1))
    events = apply(s, TokenForcedTrade(), 0)  # drawn at random
    drawn = of_type(events, ForcedTradeDrawn)[0]
    assert isinstance(drawn, ForcedTradeDrawn) and drawn.cards is not None
    assert sum(drawn.cards) == 2 and max(drawn.cards) == 1 and drawn.cards[WOOL] == 0
    assert [a + b for a, b in zip(s.hands[0], s.hands[1], strict=True)] == list(
        cards(lumber=1, brick=1, wool=2, grain=1, ore=1))
    assert redact(events, 0) == events and redact(events, 1) == events
    public = redact(events, None)
    assert public[0] == events[0]  # the tokens spent are public
    assert public[1] == ForcedTradeDrawn(0, 1, 2, None)
    back = apply(s, GiveBack(cards(wool=2)), 0)
    assert redact(back, 1) == back
    assert redact(back, None) == [GaveBack(0, 1, 2, None)]


def test_robber_home_R_2P_5() -> None:
    s = two_player()
    assert TokenRobberHome() not in legal_actions(s, 0)
    assert_illegal(s, TokenRobberHome(), 0, "illegal_placement")  # already there
    s.robber = 4
    build(s, 1, settlements=[8])
    give(s, 1, cards(ore=3))
    assert TokenRobberHome() in legal_actions(s, 0)
    events = apply(s, TokenRobberHome(), 0)
    assert events == [TokensSpent(0, 1, "robber_home"), RobberMoved(0, DESERT_HEX)]
    assert s.robber == DESERT_HEX
    assert s.tokens == [4, 5] and s.token_stock == 11
    assert s.hands[1] == list(cards(ore=3))  # no steal
    assert s.phase == Phase.MAIN


def test_token_actions_once_per_turn_R_2P_5() -> None:
    s = _forced_trade_scene()
    s.robber = 4
    apply(s, TokenRobberHome(), 0)
    names = {a.name for a in legal_actions(s, 0)}
    assert "token_forced_trade" not in names and "token_robber_home" not in names
    assert_illegal(s, TokenForcedTrade(), 0, "token_limit")
    s.robber = 5
    assert_illegal(s, TokenRobberHome(), 0, "token_limit")
    # The opponent's turn: a fresh allowance.
    _end_turn(s)
    assert not s.token_used
    _both_rolls(s)
    apply(s, TokenRobberHome(), 1)
    assert_illegal(s, TokenForcedTrade(), 1, "token_limit")
    _end_turn(s)
    _both_rolls(s)
    apply(s, TokenForcedTrade(), 0, chance=(WOOL, ORE))
    apply(s, GiveBack(cards(wool=1, ore=1)), 0)
    s.robber = 3
    assert_illegal(s, TokenRobberHome(), 0, "token_limit")
    check_tokens(s)


def test_token_actions_only_after_the_rolls_R_2P_5() -> None:
    s = two_player(phase=Phase.PRE_ROLL)
    give(s, 1, cards(ore=2))
    s.robber = 4
    assert_illegal(s, TokenForcedTrade(), 0, "wrong_phase")
    assert_illegal(s, TokenRobberHome(), 0, "wrong_phase")
    roll(s, 5)
    assert_illegal(s, TokenRobberHome(), 0, "wrong_phase")
    assert isinstance(assert_illegal(s, TokenRobberHome(), 1), NotYourTurn)


def test_token_cost_one_when_not_ahead_R_2P_5() -> None:
    s = two_player()
    s.robber = 4
    assert token_cost(s, 0) == token_cost(s, 1) == 1  # 0 VP each
    build(s, 1, settlements=[0])
    assert token_cost(s, 0) == 1  # behind
    set_tokens(s, 0, 1)
    events = apply(s, TokenRobberHome(), 0)
    assert events[0] == TokensSpent(0, 1, "robber_home")
    assert s.tokens[0] == 0
    check_tokens(s)


def test_token_cost_two_when_ahead_R_2P_5() -> None:
    s = _forced_trade_scene()
    build(s, 0, settlements=[0, 13])
    build(s, 1, settlements=[40])
    assert token_cost(s, 0) == 2 and token_cost(s, 1) == 1
    events = apply(s, TokenForcedTrade(), 0, chance=(ORE, ORE))
    assert events[0] == TokensSpent(0, 2, "forced_trade")
    assert s.tokens == [3, 5] and s.token_stock == 12
    check_tokens(s)


def test_token_cost_two_needs_two_tokens_R_2P_5() -> None:
    s = _forced_trade_scene()
    s.robber = 4
    build(s, 0, settlements=[0])
    set_tokens(s, 0, 1)
    names = {a.name for a in legal_actions(s, 0)}
    assert "token_forced_trade" not in names and "token_robber_home" not in names
    assert_illegal(s, TokenForcedTrade(), 0, "cannot_afford")
    assert_illegal(s, TokenRobberHome(), 0, "cannot_afford")
    set_tokens(s, 0, 0)
    build(s, 1, settlements=[40])  # equal VP: 1 token, still none held
    assert_illegal(s, TokenRobberHome(), 0, "cannot_afford")


def test_token_cost_counts_public_points_only_R_2P_5() -> None:
    s = two_player()
    s.robber = 4
    give_dev(s, 0, VICTORY_POINT, 2)  # hidden points do not count
    assert token_cost(s, 0) == 1
    s.lr_holder = 0  # Longest Road is public: 2 VP
    refresh_owners(s)
    assert s.vp[:2] == [2, 0]
    assert token_cost(s, 0) == 2
    # Neutral players' points do not matter either.
    s2 = two_player()
    s2.lr_holder = 2
    refresh_owners(s2)
    assert token_cost(s2, 0) == token_cost(s2, 1) == 1


# --- R-2P-6: gaining tokens -------------------------------------------------------


def test_discard_knight_for_two_tokens_R_2P_6() -> None:
    s = two_player()
    s.knights[0] = 2
    give_dev(s, 0, KNIGHT)  # an unplayed knight is not discarded
    assert DiscardKnight() in legal_actions(s, 0)
    events = apply(s, DiscardKnight(), 0)
    assert events == [KnightDiscarded(0, 1), TokensGained(0, 2, "knight")]
    assert s.knights == [1, 0] and s.dev_hand[0][KNIGHT] == 1
    assert s.tokens == [7, 5] and s.token_stock == 8
    assert s.knight_discarded
    assert DiscardKnight() not in legal_actions(s, 0)
    assert_illegal(s, DiscardKnight(), 0, "token_limit")
    # Independent of the once-per-turn token action.
    s.robber = 4
    apply(s, TokenRobberHome(), 0)
    _next_own_turn(s)
    assert not s.knight_discarded
    apply(s, DiscardKnight(), 0)
    assert s.knights == [0, 0] and s.tokens[0] == 8
    check_tokens(s)


def test_discard_knight_needs_a_played_knight_R_2P_6() -> None:
    s = two_player()
    give_dev(s, 0, KNIGHT, 2)
    assert DiscardKnight() not in legal_actions(s, 0)
    assert_illegal(s, DiscardKnight(), 0, "no_card")
    s.knights[0] = 1
    s.phase = Phase.PRE_ROLL
    assert_illegal(s, DiscardKnight(), 0, "wrong_phase")
    assert isinstance(assert_illegal(s, DiscardKnight(), 1), NotYourTurn)


def test_discard_knight_with_a_short_stock_R_2P_6() -> None:
    s = two_player()
    s.knights[0] = 2
    set_tokens(s, 1, 14)  # stock 1
    assert s.token_stock == 1
    events = apply(s, DiscardKnight(), 0)
    assert events == [KnightDiscarded(0, 1), TokensGained(0, 1, "knight")]
    assert s.token_stock == 0 and s.tokens == [6, 14]
    _next_own_turn(s)
    events = apply(s, DiscardKnight(), 0)
    assert events == [KnightDiscarded(0, 0)]
    assert s.tokens == [6, 14] and s.knights[0] == 0


def test_knight_discard_loses_largest_army_below_three_R_2P_6() -> None:
    s = two_player()
    s.knights[:] = [3, 0]
    s.la_holder = 0
    refresh_owners(s)
    assert s.vp[0] == 2
    events = apply(s, DiscardKnight(), 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(None, 2)]
    assert s.la_holder == -1 and s.vp[0] == 0


def test_knight_discard_loses_largest_army_on_tie_R_2P_6() -> None:
    s = two_player()
    s.knights[:] = [4, 3]
    s.la_holder = 0
    refresh_owners(s)
    events = apply(s, DiscardKnight(), 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(None, 3)]
    assert s.la_holder == -1 and s.vp[:2] == [0, 0]
    # Whoever then plays more knights (3+) takes it.
    _end_turn(s)
    give_dev(s, 1, KNIGHT)
    events = apply(s, PlayKnight(), 1)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(1, 4)]
    assert s.la_holder == 1 and s.vp[1] == 2


def test_knight_discard_passes_largest_army_R_2P_6() -> None:
    s = two_player()
    s.knights[:] = [4, 4]  # a tie: the holder keeps it (R-LA-1)
    s.la_holder = 0
    refresh_owners(s)
    events = apply(s, DiscardKnight(), 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(1, 4)]
    assert s.la_holder == 1 and s.vp[:2] == [0, 2]


def test_knight_discard_keeps_largest_army_when_still_ahead_R_2P_6() -> None:
    s = two_player()
    s.knights[:] = [5, 3]
    s.la_holder = 0
    refresh_owners(s)
    events = apply(s, DiscardKnight(), 0)
    assert not of_type(events, LargestArmyChanged)
    assert s.la_holder == 0 and s.vp[0] == 2
    # The other player discarding changes nothing for the holder.
    s2 = two_player()
    s2.knights[:] = [3, 3]
    s2.la_holder = 1
    refresh_owners(s2)
    events = apply(s2, DiscardKnight(), 0)
    assert not of_type(events, LargestArmyChanged)
    assert s2.la_holder == 1


def test_knight_discard_gives_set_aside_army_to_the_leader_R_2P_6() -> None:
    s = two_player()
    s.knights[:] = [4, 3]
    s.la_holder = 0
    refresh_owners(s)
    apply(s, DiscardKnight(), 0)  # 3 : 3, the card goes aside
    assert s.la_holder == -1
    _next_own_turn(s)
    events = apply(s, DiscardKnight(), 0)  # 2 : 3, seat 1 has 3+ and strictly more
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(1, 3)]
    assert s.la_holder == 1 and s.vp[1] == 2


def _desert_on_the_coast() -> Board:
    """The fixed board with the desert and the ore of hex 0 swapped."""
    terrain = list(TERRAIN)
    terrain[0], terrain[DESERT_HEX] = terrain[DESERT_HEX], terrain[0]
    t = tuple(terrain)
    return Board(t, numbers_for(t, 0))


def test_settlement_tokens_at_setup_R_2P_6() -> None:
    s = new(2, first_seat=1)
    out = play_setup(s, [(0, edge(0, 3)), (23, edge(23, 18)), (40, edge(40, 45)),
                         (49, edge(49, 52))])
    assert of_type(out[0], TokensGained) == [TokensGained(1, 1, "settlement")]  # coast
    assert of_type(out[2], TokensGained) == [TokensGained(0, 2, "settlement")]  # desert
    assert of_type(out[4], TokensGained) == []  # inland
    assert of_type(out[6], TokensGained) == [TokensGained(1, 1, "settlement")]  # coast
    assert out[6][0] == SettlementBuilt(1, 49, True)
    assert s.tokens == [7, 7] and s.token_stock == 6
    check_tokens(s)


def test_settlement_on_desert_and_coast_gives_three_R_2P_6() -> None:
    board = _desert_on_the_coast()
    assert board.terrain[0] == DESERT and 0 in HEX_NODES[0]
    assert 0 in COASTAL_NODES
    s = new_with(Settings(players=2), board=board)
    events = apply(s, BuildSettlement(0), 0)
    assert events == [SettlementBuilt(0, 0, True), TokensGained(0, 3, "settlement")]
    assert s.tokens == [8, 5] and s.token_stock == 7


def test_built_settlement_tokens_R_2P_6() -> None:
    s = two_player()
    build(s, 0, settlements=[14, 13], roads=path(14, 19, 24) + path(13, 8, 4, 0))
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(24), 0)  # next to the desert (hex 9)
    assert of_type(events, TokensGained) == [TokensGained(0, 2, "settlement")]
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(0), 0)  # on the coast
    assert of_type(events, TokensGained) == [TokensGained(0, 1, "settlement")]
    assert s.tokens == [8, 5] and s.token_stock == 7


def test_settlement_tokens_limited_by_the_stock_R_2P_6() -> None:
    s = two_player()
    build(s, 0, settlements=[14, 13], roads=path(14, 19, 24) + path(13, 8, 4, 0))
    set_tokens(s, 1, 14)  # stock 1
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(24), 0)
    assert of_type(events, TokensGained) == [TokensGained(0, 1, "settlement")]
    assert s.token_stock == 0
    apply(s, BuildNeutralRoad(2, edge(22, 16)), 0)
    give(s, 0, SETTLEMENT_COST)
    events = apply(s, BuildSettlement(0), 0)
    assert not of_type(events, TokensGained)
    assert s.tokens == [6, 14]
    check_tokens(s)


def test_no_settlement_tokens_in_the_base_game_R_2P_6() -> None:
    s = new(4)
    events = apply(s, BuildSettlement(23), 0)
    assert events == [SettlementBuilt(0, 23, True)]
    assert s.tokens == [0, 0, 0, 0]


def test_city_on_the_coast_gives_no_tokens_R_2P_6() -> None:
    s = two_player()
    build(s, 0, settlements=[0])
    give(s, 0, CITY_COST)
    events = apply(s, BuildCity(0), 0)
    assert not of_type(events, TokensGained)
    assert s.tokens == [5, 5]


# --- mid-step snapshots -------------------------------------------------------------


def test_neutral_step_survives_a_snapshot_R_2P_4() -> None:
    s = two_player()
    build(s, 0, settlements=[0])
    give_dev(s, 0, ROAD_BUILDING)
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(edge(0, 3)), 0)
    restored = GameState.from_dict(s.to_dict())
    assert restored == s
    assert restored.phase == Phase.NEUTRAL_ROAD
    assert restored.neutral_return == Phase.ROAD_BUILDING
    assert legal_actions(restored, 0) == legal_actions(s, 0)
    apply(restored, BuildNeutralRoad(2, edge(22, 16)), 0)
    assert restored.phase == Phase.ROAD_BUILDING


def test_give_back_survives_a_snapshot_R_2P_5() -> None:
    s = _forced_trade_scene()
    apply(s, TokenForcedTrade(), 0, chance=(ORE, ORE))
    restored = GameState.from_dict(s.to_dict())
    assert restored == s
    assert restored.phase == Phase.GIVE_BACK and restored.give_back == 2
    assert restored.token_used and restored.tokens == [4, 5]
    apply(restored, GiveBack(cards(ore=2)), 0)
    assert restored.hands == [list(cards(lumber=2)), list(cards(wool=1, ore=2))]
