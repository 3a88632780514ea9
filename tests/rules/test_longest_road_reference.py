"""The fast longest-road search against a brute-force reference (R-LR-1)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.rules import GameState, Settings, longest_road, new_game
from protocol.rules.board import EDGE_OTHER, HEX_EDGES, NODE_EDGES, NUM_EDGES, NUM_NODES


def brute_force(s: GameState, p: int) -> int:
    """Longest trail from every node: slow and obviously right."""
    eo, no = s.edge_owner, s.node_owner
    best = 0

    def dfs(node: int, used: frozenset[int], length: int) -> None:
        nonlocal best
        best = max(best, length)
        if length and no[node] >= 0 and no[node] != p:
            return
        for e in NODE_EDGES[node]:
            if eo[e] == p and e not in used:
                dfs(EDGE_OTHER[e][node], used | {e}, length + 1)

    for n in range(NUM_NODES):
        dfs(n, frozenset(), 0)
    return best


def _position(seed: int, hexes: int, extra: int, buildings: int) -> GameState:
    r = random.Random(seed)
    s = new_game(Settings(), seed)
    for h in r.sample(range(19), hexes):
        for e in HEX_EDGES[h]:
            s.edge_owner[e] = 0
    for e in r.sample(range(NUM_EDGES), extra):
        s.edge_owner[e] = r.choice([0, 0, 1, -1])
    for n in r.sample(range(NUM_NODES), buildings):
        s.node_owner[n] = r.choice([0, 1, 2])
        s.node_level[n] = 1
    s.rebuild_derived()
    return s


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    hexes=st.integers(0, 4),
    extra=st.integers(0, 30),
    buildings=st.integers(0, 8),
)
def test_longest_road_matches_brute_force_R_LR_1(
    seed: int, hexes: int, extra: int, buildings: int
) -> None:
    s = _position(seed, hexes, extra, buildings)
    for p in (0, 1):
        assert longest_road(s, p) == brute_force(s, p)


def test_single_loop_counts_every_edge_R_LR_1() -> None:
    s = new_game(Settings(), 0)
    for e in HEX_EDGES[9]:
        s.edge_owner[e] = 2
    s.rebuild_derived()
    assert longest_road(s, 2) == 6
