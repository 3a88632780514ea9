"""Board geometry and board generation (R-BOARD-1..5, R-COMP-1/2/6)."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pytest

from protocol.rules import Settings, new_game
from protocol.rules.board import (
    COASTAL_EDGES,
    COASTAL_NODES,
    DESERT,
    EDGE_HEXES,
    EDGE_NODES,
    EDGE_OTHER,
    EDGE_POS,
    GENERIC_HARBOR,
    HARBOR_EDGES,
    HARBOR_TYPES,
    HEX_COORDS,
    HEX_EDGES,
    HEX_NEIGHBORS,
    HEX_NODES,
    HEX_POS,
    NODE_EDGES,
    NODE_HEXES,
    NODE_NODES,
    NODE_POS,
    NUM_EDGES,
    NUM_HEXES,
    NUM_NODES,
    OUTER_CORNERS,
    TERRAIN_POOL,
    TOKEN_VALUES,
    Board,
    generate_board,
    numbers_for,
    spiral_order,
)
from protocol.rules.rng import Rng

EPS = 1e-9


def dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def hexes_adjacent(a: int, b: int) -> bool:
    (q1, r1), (q2, r2) = HEX_COORDS[a], HEX_COORDS[b]
    dq, dr = q2 - q1, r2 - r1
    return (dq, dr) in {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}


def ring(h: int) -> int:
    q, r = HEX_COORDS[h]
    return max(abs(q), abs(r), abs(q + r))


# --- topology -----------------------------------------------------------------


def test_counts_R_BOARD_1() -> None:
    assert (NUM_HEXES, NUM_NODES, NUM_EDGES) == (19, 54, 72)
    assert len(HEX_COORDS) == len(set(HEX_COORDS)) == 19
    rows = Counter(r for _, r in HEX_COORDS)
    assert [rows[r] for r in sorted(rows)] == [3, 4, 5, 4, 3]
    assert len(EDGE_NODES) == len(set(EDGE_NODES)) == 72
    assert len(NODE_POS) == 54 and len(EDGE_POS) == 72 and len(HEX_POS) == 19


def test_every_hex_has_6_nodes_and_6_edges() -> None:
    for h in range(NUM_HEXES):
        assert len(HEX_NODES[h]) == len(set(HEX_NODES[h])) == 6
        assert len(HEX_EDGES[h]) == len(set(HEX_EDGES[h])) == 6
        # The edges go round the hex: edge i joins corner i and corner i+1.
        for i, e in enumerate(HEX_EDGES[h]):
            assert set(EDGE_NODES[e]) == {HEX_NODES[h][i], HEX_NODES[h][(i + 1) % 6]}


def test_node_degrees_are_2_or_3() -> None:
    degrees = Counter(len(NODE_EDGES[v]) for v in range(NUM_NODES))
    assert set(degrees) == {2, 3}
    assert degrees == {3: 36, 2: 18}
    assert sum(len(NODE_EDGES[v]) for v in range(NUM_NODES)) == 2 * NUM_EDGES
    for v in range(NUM_NODES):
        assert len(NODE_NODES[v]) == len(NODE_EDGES[v])
        assert 1 <= len(NODE_HEXES[v]) <= 3


def test_edges_join_adjacent_nodes() -> None:
    for e, (a, b) in enumerate(EDGE_NODES):
        assert a != b and 0 <= a < NUM_NODES and 0 <= b < NUM_NODES
        assert b in NODE_NODES[a] and a in NODE_NODES[b]
        assert e in NODE_EDGES[a] and e in NODE_EDGES[b]
        assert EDGE_OTHER[e] == {a: b, b: a}
        assert abs(dist(NODE_POS[a], NODE_POS[b]) - 1.0) < EPS  # side = circumradius
    # ...and adjacent nodes are joined by exactly one edge.
    for a in range(NUM_NODES):
        for b in NODE_NODES[a]:
            assert sum(1 for e in NODE_EDGES[a] if b in EDGE_NODES[e]) == 1


def test_incidence_tables_are_consistent() -> None:
    for h in range(NUM_HEXES):
        for v in HEX_NODES[h]:
            assert h in NODE_HEXES[v]
        for e in HEX_EDGES[h]:
            assert h in EDGE_HEXES[e]
        for g in HEX_NEIGHBORS[h]:
            assert hexes_adjacent(h, g) and h in HEX_NEIGHBORS[g]
            # Neighbouring hexes share exactly one edge (two nodes).
            assert len(set(HEX_EDGES[h]) & set(HEX_EDGES[g])) == 1
            assert len(set(HEX_NODES[h]) & set(HEX_NODES[g])) == 2
    for v in range(NUM_NODES):
        assert all(v in HEX_NODES[h] for h in NODE_HEXES[v])
    for e in range(NUM_EDGES):
        assert 1 <= len(EDGE_HEXES[e]) <= 2
        assert all(e in HEX_EDGES[h] for h in EDGE_HEXES[e])
    assert sorted(len(HEX_NEIGHBORS[h]) for h in range(NUM_HEXES)) == (
        [3] * 6 + [4] * 6 + [6] * 7
    )


def test_30_coastal_edges() -> None:
    coastal = [e for e in range(NUM_EDGES) if len(EDGE_HEXES[e]) == 1]
    assert len(coastal) == 30
    assert sorted(COASTAL_EDGES) == coastal
    assert len(set(COASTAL_EDGES)) == 30
    # The coast is one closed loop: consecutive coastal edges share a node.
    for i in range(30):
        a, b = COASTAL_EDGES[i], COASTAL_EDGES[(i + 1) % 30]
        assert set(EDGE_NODES[a]) & set(EDGE_NODES[b])
    coastal_nodes = {v for e in COASTAL_EDGES for v in EDGE_NODES[e]}
    assert coastal_nodes == set(COASTAL_NODES)
    assert len(COASTAL_NODES) == 30


def test_coast_goes_clockwise_from_the_top_left_hex() -> None:
    assert COASTAL_EDGES[0] == HEX_EDGES[0][5]
    angles = [math.atan2(EDGE_POS[e][1], EDGE_POS[e][0]) for e in COASTAL_EDGES]
    # Clockwise on screen (y down) means the angle increases (mod 2 pi).
    turns = [(angles[(i + 1) % 30] - angles[i]) % (2 * math.pi) for i in range(30)]
    assert all(0 < t < math.pi for t in turns)
    assert abs(sum(turns) - 2 * math.pi) < 1e-6


def test_nine_harbors_R_COMP_6() -> None:
    assert len(HARBOR_EDGES) == len(set(HARBOR_EDGES)) == 9
    assert all(e in COASTAL_EDGES for e in HARBOR_EDGES)
    nodes = [v for e in HARBOR_EDGES for v in EDGE_NODES[e]]
    assert len(nodes) == len(set(nodes)) == 18  # distinct intersections
    assert all(v in COASTAL_NODES for v in nodes)
    # Nodes of different harbors are never adjacent.
    for e, f in combinations(HARBOR_EDGES, 2):
        for a in EDGE_NODES[e]:
            for b in EDGE_NODES[f]:
                assert b not in NODE_NODES[a], (e, f)
    # Gaps of 2, 2, 3 coastal edges, three times round.
    slots = [COASTAL_EDGES.index(e) for e in HARBOR_EDGES]
    gaps = [(slots[(i + 1) % 9] - slots[i]) % 30 - 1 for i in range(9)]
    assert gaps == [2, 2, 3] * 3


def test_harbor_types_R_COMP_6() -> None:
    kinds = Counter(HARBOR_TYPES)
    assert kinds[GENERIC_HARBOR] == 4
    assert all(kinds[r] == 1 for r in range(5))
    assert sum(kinds.values()) == 9


def test_node_harbors_of_a_board() -> None:
    b = generate_board(Rng(3))
    nh = b.node_harbors()
    assert len(nh) == NUM_NODES
    assert sum(1 for k in nh if k >= 0) == 18
    for e, kind in zip(HARBOR_EDGES, b.harbors, strict=True):
        assert all(nh[v] == kind for v in EDGE_NODES[e])


# --- positions ------------------------------------------------------------------


def test_positions_are_consistent() -> None:
    for e, (a, b) in enumerate(EDGE_NODES):
        mx = (NODE_POS[a][0] + NODE_POS[b][0]) / 2
        my = (NODE_POS[a][1] + NODE_POS[b][1]) / 2
        assert abs(EDGE_POS[e][0] - mx) < EPS and abs(EDGE_POS[e][1] - my) < EPS
    for h in range(NUM_HEXES):
        centre = HEX_POS[h]
        for v in HEX_NODES[h]:
            assert abs(dist(NODE_POS[v], centre) - 1.0) < EPS
        for e in HEX_EDGES[h]:
            assert abs(dist(EDGE_POS[e], centre) - math.sqrt(3) / 2) < EPS
        # Corner 0 is the top (smallest y), then clockwise on screen.
        ys = [NODE_POS[v][1] for v in HEX_NODES[h]]
        assert ys[0] == min(ys) and ys[3] == max(ys)
        assert NODE_POS[HEX_NODES[h][1]][0] > centre[0] > NODE_POS[HEX_NODES[h][5]][0]
    # Neighbouring hex centres are sqrt(3) apart; no two nodes coincide.
    for h in range(NUM_HEXES):
        for g in HEX_NEIGHBORS[h]:
            assert abs(dist(HEX_POS[h], HEX_POS[g]) - math.sqrt(3)) < EPS
    assert len({(round(x, 6), round(y, 6)) for x, y in NODE_POS}) == NUM_NODES


def test_ids_follow_the_documented_order() -> None:
    """Hexes by row then left to right; nodes and edge midpoints top to bottom,
    then left to right."""
    assert tuple(sorted(HEX_COORDS, key=lambda c: (c[1], c[0]))) == HEX_COORDS
    assert HEX_COORDS[:3] == ((0, -2), (1, -2), (2, -2))

    def key(p: tuple[float, float]) -> tuple[float, float]:
        return (round(p[1], 6), round(p[0], 6))

    assert [key(p) for p in NODE_POS] == sorted(key(p) for p in NODE_POS)
    assert [key(p) for p in EDGE_POS] == sorted(key(p) for p in EDGE_POS)


# --- the spiral and the numbers -------------------------------------------------------


def test_six_outer_corners() -> None:
    assert len(OUTER_CORNERS) == len(set(OUTER_CORNERS)) == 6
    assert all(ring(h) == 2 and len(HEX_NEIGHBORS[h]) == 3 for h in OUTER_CORNERS)


@pytest.mark.parametrize("corner", OUTER_CORNERS)
def test_spiral_from_each_corner_R_BOARD_2(corner: int) -> None:
    order = spiral_order(corner)
    assert order[0] == corner
    assert sorted(order) == list(range(NUM_HEXES))
    for a, b in zip(order, order[1:], strict=False):
        assert hexes_adjacent(a, b), (a, b)
    assert [ring(h) for h in order] == [2] * 12 + [1] * 6 + [0]
    # Counter-clockwise on screen (y down): the angle seen with y up increases.
    def ccw(h: int) -> float:
        return math.atan2(-HEX_POS[h][1], HEX_POS[h][0])

    for a, b in zip(order[:11], order[1:12], strict=True):
        assert 0 < (ccw(b) - ccw(a)) % (2 * math.pi) < math.pi
    for a, b in zip(order[12:17], order[13:18], strict=True):
        assert 0 < (ccw(b) - ccw(a)) % (2 * math.pi) < math.pi


def test_spiral_rejects_non_corners() -> None:
    for h in range(NUM_HEXES):
        if h not in OUTER_CORNERS:
            with pytest.raises(ValueError):
                spiral_order(h)


@pytest.mark.parametrize("corner", OUTER_CORNERS)
@pytest.mark.parametrize("desert", [0, 9, 18, 4])
def test_numbers_follow_the_spiral_skipping_the_desert(corner: int, desert: int) -> None:
    terrain = list(t for t in TERRAIN_POOL if t != DESERT)
    terrain.insert(desert, DESERT)
    numbers = numbers_for(tuple(terrain), corner)
    assert numbers[desert] == 0
    laid = [numbers[h] for h in spiral_order(corner) if h != desert]
    assert laid == list(TOKEN_VALUES)  # A..R in order
    Board(tuple(terrain), numbers)  # a valid board


def generated_matches_spiral(b: Board) -> bool:
    return any(numbers_for(b.terrain, c) == b.numbers for c in OUTER_CORNERS)


@pytest.mark.parametrize("seed", range(40))
def test_generated_board_R_BOARD_2(seed: int) -> None:
    b = generate_board(Rng(seed))
    assert sorted(b.terrain) == sorted(TERRAIN_POOL)  # R-COMP-1
    assert Counter(b.terrain) == {0: 4, 1: 3, 2: 4, 3: 4, 4: 3, 5: 1}
    assert b.numbers[b.desert] == 0 and b.terrain[b.desert] == DESERT
    assert sorted(n for n in b.numbers if n) == sorted(TOKEN_VALUES)
    assert all(n != 0 for h, n in enumerate(b.numbers) if h != b.desert)
    assert generated_matches_spiral(b)
    assert b.harbors == HARBOR_TYPES  # R-BOARD-4: printed arrangement by default
    assert Board.from_dict(b.to_dict()) == b


def test_same_seed_same_board_R_BOARD_5() -> None:
    for seed in (0, 1, 7, 2**40 + 3, 2**64 - 1):
        assert generate_board(Rng(seed)) == generate_board(Rng(seed))
        a = new_game(Settings(), seed)
        b = new_game(Settings(), seed)
        assert a.board == b.board == generate_board(Rng(seed))
        assert a.first_seat == b.first_seat


def test_different_seeds_different_boards() -> None:
    boards = {generate_board(Rng(seed)) for seed in range(200)}
    assert len(boards) == 200
    corners = Counter(
        next(c for c in OUTER_CORNERS if numbers_for(b.terrain, c) == b.numbers)
        for b in boards
    )
    assert set(corners) == set(OUTER_CORNERS)  # every spiral start occurs
    deserts = Counter(b.desert for b in boards)
    assert len(deserts) >= 15


@pytest.mark.parametrize("players", [3, 4])
def test_robber_starts_on_the_desert_R_BOARD_3(players: int) -> None:
    for seed in range(30):
        s = new_game(Settings(players=players), seed)
        assert s.robber == s.board.desert
        assert s.board.terrain[s.robber] == DESERT


def test_board_rejects_bad_layouts() -> None:
    good = generate_board(Rng(5))
    with pytest.raises(ValueError):
        Board(good.terrain[:-1], good.numbers[:-1])
    with pytest.raises(ValueError):  # two deserts
        t = list(good.terrain)
        t[(good.desert + 1) % 19] = DESERT
        Board(tuple(t), good.numbers)
    with pytest.raises(ValueError):  # a number on the desert
        nums = list(good.numbers)
        other = (good.desert + 1) % 19
        nums[good.desert], nums[other] = nums[other], nums[good.desert]
        Board(good.terrain, tuple(nums))
    with pytest.raises(ValueError):  # wrong tokens
        nums = [2 if n else 0 for n in good.numbers]
        Board(good.terrain, tuple(nums))
    with pytest.raises(ValueError):  # wrong harbors
        Board(good.terrain, good.numbers, (GENERIC_HARBOR,) * 9)


# --- options: balanced map and shuffled harbors (R-OPT-1/2) ---------------------------


@pytest.mark.parametrize("seed", range(60))
def test_balanced_board_R_OPT_1(seed: int) -> None:
    b = generate_board(Rng(seed), balanced=True)
    assert b == generate_board(Rng(seed), balanced=True)  # R-BOARD-5
    assert b.numbers[b.desert] == 0
    assert sorted(n for n in b.numbers if n) == sorted(TOKEN_VALUES)
    for h in range(NUM_HEXES):
        for g in HEX_NEIGHBORS[h]:
            a, c = b.numbers[h], b.numbers[g]
            if a and c:
                assert a != c, (seed, h, g)
                assert not (a in (6, 8) and c in (6, 8)), (seed, h, g)
    assert b.harbors == HARBOR_TYPES


def test_balanced_boards_vary() -> None:
    boards = {generate_board(Rng(seed), balanced=True) for seed in range(100)}
    assert len(boards) == 100
    # Not just the spiral: most balanced layouts are no spiral layout at all.
    assert sum(not generated_matches_spiral(b) for b in boards) >= 90


@pytest.mark.parametrize("seed", range(30))
def test_shuffled_harbors_R_OPT_2(seed: int) -> None:
    b = generate_board(Rng(seed), shuffle_harbors=True)
    assert sorted(b.harbors) == sorted(HARBOR_TYPES)
    assert b == generate_board(Rng(seed), shuffle_harbors=True)
    plain = generate_board(Rng(seed))
    assert b.terrain == plain.terrain and b.numbers == plain.numbers  # drawn first


def test_shuffled_harbors_vary() -> None:
    layouts = {generate_board(Rng(seed), shuffle_harbors=True).harbors for seed in range(50)}
    assert len(layouts) >= 40


@pytest.mark.parametrize("players", [2, 3, 4])
def test_new_game_uses_the_options(players: int) -> None:
    for seed in range(10):
        for balanced in (False, True):
            for shuffled in (False, True):
                s = new_game(Settings(players=players, balanced_map=balanced,
                                      shuffle_harbors=shuffled), seed)
                assert s.board == generate_board(Rng(seed), balanced=balanced,
                                                 shuffle_harbors=shuffled)
                assert s.robber == s.board.desert  # R-BOARD-3


def test_two_player_neutral_nodes_R_2P_1() -> None:
    from protocol.rules.state import NEUTRAL_NODES

    a, b = NEUTRAL_NODES
    for v in (a, b):
        assert len(NODE_HEXES[v]) == 3 and v not in COASTAL_NODES  # inland, 3 land hexes
    # Point-symmetric through the centre of the island (hex 9).
    cx, cy = HEX_POS[9]
    assert abs(NODE_POS[a][0] + NODE_POS[b][0] - 2 * cx) < EPS
    assert abs(NODE_POS[a][1] + NODE_POS[b][1] - 2 * cy) < EPS
    assert b not in NODE_NODES[a]
    s = new_game(Settings(players=2), 3)
    assert s.node_owner[a] == 2 and s.node_owner[b] == 3
    assert s.node_level[a] == s.node_level[b] == 1
