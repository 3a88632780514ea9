"""R-BOARD-*: the island, the variable set-up, the robber's start, harbors, seeds."""

from __future__ import annotations

import math
from collections import Counter

from protocol.rules import BuildRoad, BuildSettlement, Settings, apply, new_game
from protocol.rules.board import (
    BRICK,
    COASTAL_EDGES,
    COASTAL_NODES,
    DESERT,
    EDGE_HEXES,
    EDGE_NODES,
    GENERIC_HARBOR,
    GRAIN,
    HARBOR_EDGES,
    HARBOR_TYPES,
    HEX_COORDS,
    HEX_EDGES,
    HEX_NEIGHBORS,
    HEX_NODES,
    HEX_POS,
    LUMBER,
    NODE_EDGES,
    NUM_EDGES,
    NUM_HEXES,
    NUM_NODES,
    ORE,
    OUTER_CORNERS,
    TOKEN_VALUES,
    WOOL,
    numbers_for,
    spiral_order,
)
from protocol.rules.events import SettlementBuilt

from .helpers import BOARD, DESERT_HEX, TERRAIN, new, of_type

SEEDS = range(30)


def _ring(h: int) -> int:
    q, r = HEX_COORDS[h]
    return max(abs(q), abs(r), abs(q + r))


def _ccw_angle(h: int) -> float:
    x, y = HEX_POS[h]
    return math.atan2(-y, x) % (2 * math.pi)  # y grows downwards on screen


def test_island_is_19_hexes_54_intersections_72_edges_R_BOARD_1() -> None:
    assert NUM_HEXES == 19
    assert NUM_NODES == 54
    assert NUM_EDGES == 72
    rows = Counter(r for _, r in HEX_COORDS)
    assert [rows[r] for r in sorted(rows)] == [3, 4, 5, 4, 3]
    assert all(len(set(ns)) == 6 for ns in HEX_NODES)
    assert all(len(set(es)) == 6 for es in HEX_EDGES)
    assert len(COASTAL_NODES) == 30
    assert len(COASTAL_EDGES) == 30
    assert all(len(EDGE_HEXES[e]) == 1 for e in COASTAL_EDGES)


def test_coastal_intersections_and_edges_are_usable_R_BOARD_1() -> None:
    s = new()
    node = 0  # a coastal corner of hex 0
    assert node in COASTAL_NODES
    coastal_edge = next(e for e in NODE_EDGES[node] if e in COASTAL_EDGES)
    events = apply(s, BuildSettlement(node), 0)
    assert of_type(events, SettlementBuilt) == [SettlementBuilt(0, node, True)]
    apply(s, BuildRoad(coastal_edge), 0)
    assert s.node_owner[node] == 0
    assert s.edge_owner[coastal_edge] == 0


def test_tokens_follow_a_spiral_from_an_outer_corner_R_BOARD_2() -> None:
    corners = set()
    for seed in SEEDS:
        board = new_game(Settings(), seed=seed).board
        matches = [c for c in OUTER_CORNERS if numbers_for(board.terrain, c) == board.numbers]
        assert matches, f"seed {seed}: tokens are not a spiral from an outer corner"
        corners.add(matches[0])
    assert len(corners) >= 2  # the start corner is chosen, not fixed


def test_terrain_is_shuffled_R_BOARD_2() -> None:
    layouts = {new_game(Settings(), seed=seed).board.terrain for seed in SEEDS}
    assert len(layouts) >= 10
    deserts = {new_game(Settings(), seed=seed).board.desert for seed in SEEDS}
    assert len(deserts) >= 3


def test_spiral_is_counter_clockwise_from_the_outside_in_R_BOARD_2() -> None:
    assert len(OUTER_CORNERS) == 6
    for corner in OUTER_CORNERS:
        order = spiral_order(corner)
        assert sorted(order) == list(range(19))
        assert order[0] == corner
        assert [_ring(h) for h in order] == [2] * 12 + [1] * 6 + [0]
        for a, b in zip(order, order[1:], strict=False):
            assert b in HEX_NEIGHBORS[a]  # a connected walk
        for ring in (order[:12], order[12:18]):
            for a, b in zip(ring, ring[1:], strict=False):
                step = (_ccw_angle(b) - _ccw_angle(a)) % (2 * math.pi)
                assert 0 < step < math.pi  # turning counter-clockwise


def test_token_letters_in_alphabetical_order_skipping_the_desert_R_BOARD_2() -> None:
    for corner in OUTER_CORNERS:
        numbers = numbers_for(TERRAIN, corner)
        assert numbers[DESERT_HEX] == 0
        laid = [numbers[h] for h in spiral_order(corner) if TERRAIN[h] != DESERT]
        assert tuple(laid) == TOKEN_VALUES


def test_robber_starts_on_the_desert_R_BOARD_3() -> None:
    for seed in SEEDS:
        s = new_game(Settings(), seed=seed)
        assert s.board.terrain[s.robber] == DESERT
    assert new().robber == DESERT_HEX


def test_harbors_keep_printed_positions_and_types_R_BOARD_4() -> None:
    # The printed arrangement, clockwise from the top-left (documented in board.py).
    assert HARBOR_TYPES == (
        GENERIC_HARBOR, GRAIN, ORE, GENERIC_HARBOR, WOOL,
        GENERIC_HARBOR, GENERIC_HARBOR, BRICK, LUMBER,
    )
    assert tuple(COASTAL_EDGES[i] for i in (0, 3, 6, 10, 13, 16, 20, 23, 26)) == HARBOR_EDGES
    for seed in SEEDS:
        board = new_game(Settings(), seed=seed).board
        assert board.harbors == HARBOR_TYPES
        kinds = board.node_harbors()
        for e, kind in zip(HARBOR_EDGES, HARBOR_TYPES, strict=True):
            assert all(kinds[n] == kind for n in EDGE_NODES[e])


def test_board_is_reproducible_from_the_seed_R_BOARD_5() -> None:
    for seed in (0, 7, 123456789):
        a = new_game(Settings(), seed=seed)
        b = new_game(Settings(), seed=seed)
        assert a.board == b.board
        assert a.first_seat == b.first_seat
        assert a.to_dict() == b.to_dict()
    boards = {new_game(Settings(), seed=seed).board for seed in SEEDS}
    assert len(boards) > 1


def test_fixed_board_override_does_not_change_the_rng_R_BOARD_5() -> None:
    a = new_game(Settings(), seed=5)
    b = new_game(Settings(), seed=5, board=BOARD)
    assert b.board == BOARD
    assert a.rng.state == b.rng.state
    assert a.first_seat == b.first_seat
