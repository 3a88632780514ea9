"""R-COMP-*: the game's components."""

from __future__ import annotations

from collections import Counter

import pytest

from protocol.rules import (
    Board,
    BuildRoad,
    BuyDevCard,
    PlayKnight,
    Settings,
    apply,
    new_game,
    observe,
)
from protocol.rules.board import (
    BRICK,
    COASTAL_NODES,
    DESERT,
    EDGE_HEXES,
    EDGE_NODES,
    GENERIC_HARBOR,
    GRAIN,
    HARBOR_EDGES,
    HARBOR_TYPES,
    LUMBER,
    ORE,
    TOKEN_VALUES,
    WOOL,
)
from protocol.rules.events import DevCardBought, LargestArmyChanged, LongestRoadChanged

from .helpers import (
    BOARD,
    KNIGHT,
    MONOPOLY,
    ROAD_BUILDING,
    ROAD_COST,
    TERRAIN,
    VICTORY_POINT,
    YEAR_OF_PLENTY,
    build,
    give,
    give_dev,
    new,
    of_type,
    path,
    scenario,
)

SEEDS = range(25)


def test_terrain_counts_R_COMP_1() -> None:
    for seed in SEEDS:
        terrain = new_game(Settings(), seed=seed).board.terrain
        assert len(terrain) == 19
        assert Counter(terrain) == {
            LUMBER: 4, WOOL: 4, GRAIN: 4, BRICK: 3, ORE: 3, DESERT: 1,
        }


def test_board_rejects_other_terrain_R_COMP_1() -> None:
    bad = list(TERRAIN)
    bad[bad.index(ORE)] = LUMBER  # 5 forests, 2 mountains
    with pytest.raises(ValueError):
        Board(tuple(bad), BOARD.numbers)


def test_number_token_values_R_COMP_2() -> None:
    assert TOKEN_VALUES == (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)


def test_every_board_has_the_18_tokens_and_a_bare_desert_R_COMP_2() -> None:
    for seed in SEEDS:
        board = new_game(Settings(), seed=seed).board
        assert board.numbers[board.desert] == 0
        nonzero = [n for n in board.numbers if n]
        assert len(nonzero) == 18
        assert sorted(nonzero) == sorted(TOKEN_VALUES)
        counts = Counter(nonzero)
        assert counts[6] == 2 and counts[8] == 2  # the red numbers
        assert 7 not in counts


def test_board_rejects_a_number_on_the_desert_R_COMP_2() -> None:
    numbers = list(BOARD.numbers)
    desert = BOARD.desert
    other = 0 if desert else 1
    numbers[desert], numbers[other] = numbers[other], numbers[desert]
    with pytest.raises(ValueError):
        Board(BOARD.terrain, tuple(numbers))


@pytest.mark.parametrize("players", [3, 4])
def test_bank_holds_19_of_each_resource_R_COMP_3(players: int) -> None:
    s = new(players)
    assert s.bank == [19] * 5
    assert sum(s.bank) == 95
    assert all(h == [0] * 5 for h in s.hands)
    assert observe(s, None)["bank"] == [19] * 5


def test_development_deck_composition_R_COMP_4() -> None:
    s = new()
    deck = s.dev_deck
    assert sum(deck) == 25
    assert deck[KNIGHT] == 14
    assert deck[VICTORY_POINT] == 5
    assert deck[ROAD_BUILDING] == 2
    assert deck[YEAR_OF_PLENTY] == 2
    assert deck[MONOPOLY] == 2


def test_development_deck_is_shuffled_and_face_down_R_COMP_4() -> None:
    drawn = set()
    for seed in SEEDS:
        s = scenario(seed=seed)
        give(s, 0, (0, 0, 1, 1, 1))
        (ev,) = of_type(apply(s, BuyDevCard(), 0), DevCardBought)
        assert isinstance(ev, DevCardBought)
        assert ev.card is not None
        drawn.add(ev.card)
        # Face down: only the deck's size is public.
        assert observe(s, 1)["dev_deck"] == 24
        assert ev.for_seat(1) == DevCardBought(0, None)
    assert len(drawn) >= 2


@pytest.mark.parametrize("players", [3, 4])
def test_each_player_has_15_roads_5_settlements_4_cities_R_COMP_5(players: int) -> None:
    s = new(players)
    assert s.pieces == [[15, 5, 4] for _ in range(players)]
    assert [v["pieces"] for v in observe(s, None)["seats"]] == [[15, 5, 4]] * players


def test_nine_harbors_on_the_coast_R_COMP_6() -> None:
    assert len(HARBOR_EDGES) == 9
    assert len(set(HARBOR_EDGES)) == 9
    nodes = [n for e in HARBOR_EDGES for n in EDGE_NODES[e]]
    assert len(set(nodes)) == 18  # two distinct intersections each
    for e in HARBOR_EDGES:
        assert len(EDGE_HEXES[e]) == 1  # a coastal edge
        assert all(n in COASTAL_NODES for n in EDGE_NODES[e])


def test_harbor_kinds_four_generic_and_one_per_resource_R_COMP_6() -> None:
    assert Counter(HARBOR_TYPES) == {
        GENERIC_HARBOR: 4, LUMBER: 1, BRICK: 1, WOOL: 1, GRAIN: 1, ORE: 1,
    }
    node_harbors = BOARD.node_harbors()
    assert sum(1 for k in node_harbors if k >= 0) == 18
    assert Counter(k for k in node_harbors if k >= 0) == {
        GENERIC_HARBOR: 8, LUMBER: 2, BRICK: 2, WOOL: 2, GRAIN: 2, ORE: 2,
    }


def test_longest_road_card_is_worth_2_vp_R_COMP_7() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(3, 0, 4, 1, 5))
    give(s, 0, ROAD_COST)
    vp = s.vp[0]
    events = apply(s, BuildRoad(path(5, 2)[0]), 0)
    assert of_type(events, LongestRoadChanged) == [LongestRoadChanged(0, 5)]
    assert s.lr_holder == 0
    assert s.vp[0] == vp + 2


def test_largest_army_card_is_worth_2_vp_R_COMP_7() -> None:
    s = scenario()
    build(s, 0, settlements=[3])
    give_dev(s, 0, KNIGHT, 3)
    s.dev_hand[0][KNIGHT] -= 2  # two of them already played
    s.knights[0] = 2
    vp = s.vp[0]
    events = apply(s, PlayKnight(), 0)
    assert of_type(events, LargestArmyChanged) == [LargestArmyChanged(0, 3)]
    assert s.la_holder == 0
    assert s.vp[0] == vp + 2
