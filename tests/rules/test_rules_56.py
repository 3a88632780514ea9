"""Five and six players: the official extension (R-56-1 … R-56-11).

Scenarios on the 30-hex board: a game past its set-up with pieces and cards
poked into the state (cards always moved from the bank or the deck, so the
24 of each resource and the 34 development cards stay whole), and games played
through ``apply`` where the order of events matters.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import pairwise

import pytest

from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndTurn,
    GameLog,
    GameState,
    MaritimeTrade,
    OfferTrade,
    Phase,
    PlayKnight,
    ProposeTrade,
    RollDice,
    RulesError,
    Settings,
    apply,
    legal_actions,
    longest_road,
    may_propose,
    new_game,
    observe,
    replay,
    to_act,
)
from protocol.rules.board import (
    BASE,
    DESERT,
    GENERIC_HARBOR,
    LARGE,
    ORE,
    WOOL,
    Board,
    generate_board,
    geometry_for,
    numbers_for,
)
from protocol.rules.events import GameOver, SpecialBuildStarted, TurnEnded, TurnStarted
from protocol.rules.position import from_text, to_text
from protocol.rules.rng import Rng
from protocol.rules.state import BoardInfo

from .helpers import (
    CITY_COST,
    DEV_COST,
    ROAD_COST,
    SETTLEMENT_COST,
    assert_illegal,
    cards,
    dice,
    of_type,
)

KNIGHT = 0


def large_game(players: int = 6, *, seed: int = 3, current: int = 0,
               **options: bool) -> GameState:
    """A 5–6 player game past its set-up with an empty board: ``current`` is in
    its main phase (the dice rolled, no 7) and every hand is empty."""
    s = new_game(Settings(players=players, **options), seed, first_seat=0)
    s.setup_step = 2 * players
    s.turn = 1
    s.current = current
    s.phase = Phase.MAIN.value
    s.rolled = True
    s.rolls_done = 1
    s.last_roll = (3, 5)
    return s


def poke(s: GameState, seat: int, *, settlements: tuple[int, ...] = (),
         cities: tuple[int, ...] = (), roads: tuple[int, ...] = ()) -> None:
    for v in settlements:
        s.node_owner[v], s.node_level[v] = seat, 1
    for v in cities:
        s.node_owner[v], s.node_level[v] = seat, 2
    for e in roads:
        s.edge_owner[e] = seat
    s.rebuild_derived()
    for q in range(s.settings.owners):
        s.road_len[q] = longest_road(s, q)


def hand(s: GameState, seat: int, held: tuple[int, ...]) -> None:
    """Set ``seat``'s hand to ``held``, moving cards between it and the bank."""
    for r in range(5):
        s.bank[r] += s.hands[seat][r] - held[r]
        s.hands[seat][r] = held[r]
        assert s.bank[r] >= 0


def conserved(s: GameState) -> None:
    for r in range(5):
        assert s.bank[r] + sum(h[r] for h in s.hands) == 24
    for k in range(5):
        assert (s.dev_deck[k] + sum(h[k] for h in s.dev_hand) + s.dev_out[k]
                == (20, 3, 3, 3, 5)[k])


def edge_between(a: int, b: int) -> int:
    for e in LARGE.node_edges[a]:
        if b in LARGE.edge_nodes[e]:
            return e
    raise ValueError(f"nodes {a} and {b} are not neighbours")


def spot(s: GameState, seat: int, avoid: set[int] | None = None) -> tuple[int, int, int]:
    """A free settlement spot ``t`` with a free neighbour ``m`` and a node ``x``
    two steps away: poking ``seat``'s settlement on ``x`` and roads x–m–t makes
    ``t`` a legal settlement for ``seat``."""
    avoid = avoid or set()
    no = s.node_owner
    for t in range(LARGE.num_nodes):
        if t in avoid or no[t] >= 0 or any(no[m] >= 0 for m in LARGE.node_nodes[t]):
            continue
        for m in LARGE.node_nodes[t]:
            for x in LARGE.node_nodes[m]:
                if x != t and x not in LARGE.node_nodes[t] and no[x] < 0 and all(
                        no[y] < 0 for y in LARGE.node_nodes[x]) and x not in avoid:
                    return t, m, x
    raise AssertionError("no free spot")


def claim(s: GameState, seat: int, avoid: set[int] | None = None) -> int:
    """Give ``seat`` a settlement with roads leading to a free spot; the spot."""
    t, m, x = spot(s, seat, avoid)
    poke(s, seat, settlements=(x,), roads=(edge_between(x, m), edge_between(m, t)))
    return t


# --- R-56-1 … R-56-4: the board ------------------------------------------------------------


def test_board_shape_R_56_1() -> None:
    g = LARGE
    assert (g.num_hexes, g.num_nodes, g.num_edges) == (30, 80, 109)
    rows = Counter(r for _, r in g.hex_coords)
    assert [rows[r] for r in sorted(rows)] == [3, 4, 5, 6, 5, 4, 3]
    assert all(-3 <= r <= 3 and -3 <= q <= 2 and -3 <= q + r <= 2 for q, r in g.hex_coords)
    assert len(set(g.hex_coords)) == 30
    # The documented ordering rule: hexes by row then left to right; nodes and
    # edge midpoints top to bottom, then left to right.
    assert list(g.hex_coords) == sorted(g.hex_coords, key=lambda c: (c[1], c[0]))
    key = [(round(y, 6), round(x, 6)) for x, y in g.node_pos]
    assert key == sorted(key)
    key = [(round(y, 6), round(x, 6)) for x, y in g.edge_pos]
    assert key == sorted(key)
    for h in range(30):
        nodes = g.hex_nodes[h]
        assert len(set(nodes)) == 6
        cx, cy = g.hex_pos[h]
        for v in nodes:  # every corner is one unit from the centre
            assert math.isclose(math.dist(g.node_pos[v], (cx, cy)), 1.0)
        for i, e in enumerate(g.hex_edges[h]):
            assert set(g.edge_nodes[e]) == {nodes[i], nodes[(i + 1) % 6]}
    # Euler: V - E + F = 2 for the planar map of the island (F: hexes + the sea).
    assert g.num_nodes - g.num_edges + 31 == 2
    # The coast is one closed ring of 38 edges, clockwise from hex 0's upper-left side.
    ring = g.coastal_edges
    assert len(ring) == len(set(ring)) == 38 and ring[0] == g.hex_edges[0][5]
    for a, b in pairwise((*ring, ring[0])):
        assert set(g.edge_nodes[a]) & set(g.edge_nodes[b])
    # The players choose the board: 5 and 6 play on the large one, 2–4 on the base one.
    assert [geometry_for(n) for n in range(2, 7)] == [BASE, BASE, BASE, LARGE, LARGE]
    for n in (5, 6):
        assert new_game(Settings(players=n), 1).info.geo is LARGE
        assert len(new_game(Settings(players=n), 1).node_owner) == 80
    with pytest.raises(RulesError):  # a 19-hex board does not fit a 6-player game
        BoardInfo(new_game(Settings(players=4), 1).board, Settings(players=6))


def test_base_board_ids_unchanged_R_56_1() -> None:
    """The 19-hex board keeps its ids: its tables are what they always were."""
    assert (BASE.num_hexes, BASE.num_nodes, BASE.num_edges) == (19, 54, 72)
    assert BASE.hex_coords[:3] == ((0, -2), (1, -2), (2, -2))
    assert BASE.edge_nodes[:4] == ((0, 3), (0, 4), (1, 4), (1, 5))
    assert BASE.harbor_slots == (0, 3, 6, 10, 13, 16, 20, 23, 26)
    four = new_game(Settings(players=4), 7)
    assert four.to_dict() == new_game(Settings(), 7).to_dict()
    # Snapshots and views of 2–4 player games keep their form (no 5–6 player keys).
    assert "special_from" not in four.to_dict() and "special_from" not in observe(four, 0)
    assert observe(new_game(Settings(players=5), 7), 0)["special_from"] is None


@pytest.mark.parametrize("seed", range(20))
def test_terrain_R_56_2(seed: int) -> None:
    s = new_game(Settings(players=6), seed)
    assert Counter(s.board.terrain) == {0: 6, 1: 5, 2: 6, 3: 6, 4: 5, DESERT: 2}


def test_number_tokens_R_56_3() -> None:
    g = LARGE
    assert g.token_letters == (*"ABCDEFGHIJKLMNOPQRSTUVWXY", "Za", "Zb", "Zc")
    assert g.token_values == (2, 5, 4, 6, 3, 9, 8, 11, 11, 10, 6, 3, 8, 4, 8, 10, 11, 12, 10,
                              5, 4, 9, 5, 9, 12, 3, 2, 6)
    counts = Counter(g.token_values)
    assert counts[2] == counts[12] == 2 and all(counts[v] == 3 for v in (3, 4, 5, 6, 8, 9, 10, 11))
    assert len(g.outer_corners) == 6
    assert all(len(g.hex_neighbors[h]) == 3 for h in g.outer_corners)
    for corner in g.outer_corners:
        order = g.spiral_order(corner)
        assert sorted(order) == list(range(30)) and order[0] == corner
        # Rings of 16, 10 and 4 hexes, each walked one neighbour at a time.
        for ring in (order[:16], order[16:26], order[26:]):
            for a, b in pairwise(ring):
                assert b in g.hex_neighbors[a], (corner, a, b)
        assert order[16] in g.hex_neighbors[corner]  # the inner ring starts next to it
        # Counter-clockwise on screen: the angle round the centre increases.
        cx, cy = g.centre
        angles = [math.atan2(-(g.hex_pos[h][1] - cy), g.hex_pos[h][0] - cx) for h in order[:16]]
        steps = [(b - a) % (2 * math.pi) for a, b in pairwise(angles)]
        assert all(0 < x < math.pi for x in steps)
    # Tokens in letter order along the spiral, skipping both deserts.
    terrain = tuple(DESERT if h in (5, 20) else h % 5 for h in range(30))
    counts_t = Counter(terrain)
    pool = Counter(LARGE.terrain_pool)
    assert counts_t[DESERT] == pool[DESERT]
    start = g.outer_corners[2]
    numbers = numbers_for(terrain, start)
    laid = [numbers[h] for h in g.spiral_order(start) if terrain[h] != DESERT]
    assert laid == list(g.token_values)
    assert numbers[5] == numbers[20] == 0


def test_generated_boards_follow_a_spiral_R_56_3() -> None:
    for seed in range(10):
        s = new_game(Settings(players=5), seed)
        b = s.board
        assert any(b.numbers == numbers_for(b.terrain, c) for c in LARGE.outer_corners)


def test_robber_starts_on_a_desert_chosen_by_the_seed_R_56_4() -> None:
    chosen = set()
    for seed in range(30):
        s = new_game(Settings(players=6), seed)
        deserts = s.board.deserts
        assert len(deserts) == 2 and s.robber in deserts
        chosen.add(deserts.index(s.robber))
        assert new_game(Settings(players=6), seed).robber == s.robber  # reproducible
    assert chosen == {0, 1}


# --- R-56-5 … R-56-7: components and set-up -----------------------------------------------


@pytest.mark.parametrize("players", [5, 6])
def test_bank_and_deck_R_56_5(players: int) -> None:
    s = new_game(Settings(players=players), 2)
    assert s.bank == [24] * 5
    assert s.dev_deck == [20, 3, 3, 3, 5] and sum(s.dev_deck) == 34
    assert new_game(Settings(players=4), 2).bank == [19] * 5  # the base game's 19


def test_harbors_R_56_6() -> None:
    g = LARGE
    assert len(g.harbor_edges) == 11
    assert Counter(g.harbor_types) == {GENERIC_HARBOR: 5, WOOL: 2, 0: 1, 1: 1, 3: 1, ORE: 1}
    assert g.harbor_slots == (0, 3, 7, 10, 14, 17, 21, 24, 28, 31, 34)
    gaps = [(b - a) % 38 for a, b in pairwise((*g.harbor_slots, g.harbor_slots[0]))]
    assert set(gaps) == {3, 4}  # spread evenly round the 38 coastal edges
    assert all(len(g.edge_hexes[e]) == 1 for e in g.harbor_edges)
    s = new_game(Settings(players=6), 4)
    assert s.board.harbors == g.harbor_types  # the printed order unless shuffled
    ends = [v for e in g.harbor_edges for v in g.edge_nodes[e]]
    assert len(set(ends)) == 22  # no two harbors share an intersection
    kinds = s.info.node_harbor
    for e, kind in zip(g.harbor_edges, g.harbor_types, strict=True):
        for v in g.edge_nodes[e]:
            assert kinds[v] == kind
    assert sum(1 for k in kinds if k >= 0) == 22
    # A settlement on a 2:1 wool harbor trades wool 2:1.
    s = large_game(6)
    wool_edge = g.harbor_edges[g.harbor_types.index(WOOL)]
    poke(s, 0, settlements=(g.edge_nodes[wool_edge][0],))
    assert s.ratios[0] == [4, 4, 2, 4, 4]


@pytest.mark.parametrize("players", [5, 6])
def test_pieces_target_and_snake_order_R_56_7(players: int) -> None:
    s = new_game(Settings(players=players), 8, first_seat=1)
    assert all(p == [15, 5, 4] for p in s.pieces) and s.settings.vp_target == 10
    order = []
    rnd = random.Random(players)
    while s.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        if s.phase == Phase.SETUP_SETTLEMENT:
            order.append(s.current)
        apply(s, rnd.choice(legal_actions(s)), s.current)
    seats = [(1 + i) % players for i in range(players)]
    assert order == seats + seats[::-1]
    assert s.phase == Phase.PRE_ROLL and s.current == 1 and s.turn == 1


# --- R-56-8: the Special Building Phase ----------------------------------------------------


def test_each_other_seat_builds_in_turn_from_the_left_R_56_8() -> None:
    s = large_game(6, current=3)
    for q in range(6):
        hand(s, q, cards(wool=2))
    events = apply(s, EndTurn(), 3)
    assert [type(e) for e in events] == [TurnEnded, SpecialBuildStarted]
    builders = [s.current]
    while s.phase == Phase.SPECIAL_BUILD:
        assert to_act(s) == (s.current,) and s.special_from == 3
        ev = apply(s, EndTurn(), s.current)  # pass
        if s.phase == Phase.SPECIAL_BUILD:
            assert ev == [SpecialBuildStarted(s.current)]
            builders.append(s.current)
    assert builders == [4, 5, 0, 1, 2]
    assert s.phase == Phase.PRE_ROLL and s.current == 4 and s.special_from == -1
    assert of_type(ev, TurnStarted) == [TurnStarted(4, 2)]


def test_a_seat_that_can_pay_for_nothing_is_skipped_R_56_8() -> None:
    """Skipped on a public fact only: fewer than two cards (a road costs two)."""
    s = large_game(5, current=0)
    hand(s, 1, cards(ore=1))
    hand(s, 2, cards(ore=2))  # two cards that pay for nothing: still asked (a public rule)
    hand(s, 3, cards())
    hand(s, 4, cards(grain=1))
    apply(s, EndTurn(), 0)
    assert s.phase == Phase.SPECIAL_BUILD and s.current == 2
    assert legal_actions(s, 2) == [EndTurn()]
    ev = apply(s, EndTurn(), 2)
    assert s.phase == Phase.PRE_ROLL and s.current == 1
    assert not of_type(ev, SpecialBuildStarted)
    # Nobody with two cards: the next turn starts at once.
    s = large_game(6, current=5)
    ev = apply(s, EndTurn(), 5)
    assert [type(e) for e in ev] == [TurnEnded, TurnStarted] and s.current == 0


def test_build_and_buy_in_the_special_building_phase_R_56_8() -> None:
    s = large_game(6, current=0)
    t = claim(s, 1)
    city_at = next(v for v in range(80) if s.node_owner[v] == 1)
    hand(s, 1, tuple(a + b + c + d for a, b, c, d in zip(
        ROAD_COST, SETTLEMENT_COST, CITY_COST, DEV_COST, strict=True)))
    apply(s, EndTurn(), 0)
    assert s.phase == Phase.SPECIAL_BUILD and s.current == 1
    legal = legal_actions(s, 1)
    assert BuildSettlement(t) in legal and BuildCity(city_at) in legal
    assert BuyDevCard() in legal and EndTurn() in legal
    assert any(isinstance(a, BuildRoad) for a in legal)
    assert set(type(a) for a in legal) == {BuildRoad, BuildSettlement, BuildCity, BuyDevCard,
                                          EndTurn}
    apply(s, BuildSettlement(t), 1)
    apply(s, BuildCity(city_at), 1)
    apply(s, BuyDevCard(), 1, chance=(KNIGHT,))
    road = next(a for a in legal_actions(s, 1) if isinstance(a, BuildRoad))
    apply(s, road, 1)
    assert s.hands[1] == [0] * 5 and s.vp[1] == 3
    assert s.dev_hand[1][KNIGHT] == 1
    conserved(s)
    # Somebody else may not act for the builder.
    assert_illegal(s, EndTurn(), 2)
    apply(s, EndTurn(), 1)


def test_no_trade_and_no_development_card_R_56_8() -> None:
    s = large_game(6, current=0)
    poke(s, 1, settlements=(LARGE.edge_nodes[LARGE.harbor_edges[0]][0],))  # a 3:1 harbor
    hand(s, 1, cards(ore=4, wool=3))
    s.dev_deck[KNIGHT] -= 1
    s.dev_hand[1][KNIGHT] += 1  # an old knight: playable on seat 1's own turn
    hand(s, 2, cards(grain=3))
    hand(s, 1, cards(ore=4, wool=3, grain=1))
    apply(s, EndTurn(), 0)
    assert s.phase == Phase.SPECIAL_BUILD and s.current == 1
    legal = legal_actions(s, 1)
    assert not any(isinstance(a, MaritimeTrade | PlayKnight) for a in legal)
    assert legal == [BuyDevCard(), EndTurn()]
    assert_illegal(s, MaritimeTrade(ORE, 0), 1, code="wrong_phase")
    assert_illegal(s, PlayKnight(), 1, code="wrong_phase")
    before = s.to_dict()
    for action, seat in ((OfferTrade(cards(ore=1), cards(grain=1)), 1),
                         (ProposeTrade(cards(grain=1), cards(ore=1)), 2)):
        with pytest.raises(RulesError):
            apply(s, action, seat)
        assert s.to_dict() == before
    assert not may_propose(s, 2) and not may_propose(s, 0)
    assert observe(s, 1)["you"]["dev_playable"] == []


def test_harbor_settled_in_the_phase_is_usable_next_turn_R_56_8() -> None:
    """With harbor_delay (R-OPT-3) a harbor settled in the phase does not wait."""
    s = large_game(6, current=0, harbor_delay=True)
    e = LARGE.harbor_edges[0]
    a, b = LARGE.edge_nodes[e]
    m, x = next((m, x) for m in LARGE.node_nodes[a] if m != b for x in LARGE.node_nodes[m]
                if x != a and s.info.node_harbor[x] < 0)
    poke(s, 1, settlements=(x,), roads=(edge_between(x, m), edge_between(m, a)))
    hand(s, 1, tuple(c + o for c, o in zip(SETTLEMENT_COST, cards(ore=3), strict=True)))
    apply(s, EndTurn(), 0)
    assert s.current == 1
    apply(s, BuildSettlement(a), 1)
    assert s.pending_harbors == [] and s.ratios[1] == [3, 3, 3, 3, 3]
    apply(s, EndTurn(), 1)
    assert s.phase == Phase.PRE_ROLL and s.current == 1
    apply(s, RollDice(), 1, chance=dice(8))
    assert MaritimeTrade(ORE, 0) in legal_actions(s, 1)
    # In its own main phase the same harbor would wait (R-OPT-3).
    s = large_game(6, current=1, harbor_delay=True)
    poke(s, 1, settlements=(x,), roads=(edge_between(x, m), edge_between(m, a)))
    hand(s, 1, SETTLEMENT_COST)
    apply(s, BuildSettlement(a), 1)
    assert s.pending_harbors == [(1, a)] and s.ratios[1] == [4] * 5


# --- R-56-9, R-56-10 ------------------------------------------------------------------------


def nine_points(s: GameState, seat: int) -> int:
    """Give ``seat`` four cities and a settlement (9 VP) and a free spot; the spot."""
    taken: set[int] = set()
    spot_at = claim(s, seat)
    taken.add(spot_at)
    for _ in range(4):
        t, m, x = spot(s, seat, taken)
        poke(s, seat, cities=(t,))
        taken.add(t)
    assert s.vp[seat] == 9
    return spot_at


def test_nobody_wins_in_the_special_building_phase_R_56_9() -> None:
    s = large_game(6, current=4)
    t = nine_points(s, 2)
    hand(s, 2, SETTLEMENT_COST)
    hand(s, 3, cards(wool=2))
    apply(s, EndTurn(), 4)  # seats 5, 0 and 1 hold no cards: seat 2 builds first
    assert s.current == 2 and s.phase == Phase.SPECIAL_BUILD
    ev = apply(s, BuildSettlement(t), 2)
    assert s.vp[2] == 10 and not of_type(ev, GameOver)
    assert s.phase == Phase.SPECIAL_BUILD and s.winner is None
    apply(s, EndTurn(), 2)
    assert s.current == 3 and s.phase == Phase.SPECIAL_BUILD  # the phase goes on
    apply(s, EndTurn(), 3)
    assert s.current == 5 and s.phase == Phase.PRE_ROLL and s.winner is None
    # Seats 5, 0 and 1 play their turns (everyone passing in the phases after
    # them); seat 2 wins at the start of its own next turn.
    ev = []
    while s.phase != Phase.GAME_OVER:
        assert s.winner is None and s.current != 2 or s.phase == Phase.SPECIAL_BUILD
        if s.phase == Phase.PRE_ROLL:
            apply(s, RollDice(), s.current, chance=dice(12))
        ev = apply(s, EndTurn(), s.current)
    assert of_type(ev, TurnStarted) == [TurnStarted(2, s.turn)]
    assert of_type(ev, GameOver) and s.winner == 2 and s.turn == 5


def test_win_at_once_when_the_next_turn_is_the_builders_R_56_9() -> None:
    s = large_game(5, current=1)
    t = nine_points(s, 2)
    hand(s, 2, SETTLEMENT_COST)
    apply(s, EndTurn(), 1)
    apply(s, BuildSettlement(t), 2)
    assert s.winner is None
    ev = apply(s, EndTurn(), 2)
    assert [type(e) for e in ev] == [TurnStarted, GameOver] and s.winner == 2


def test_card_bought_in_the_phase_plays_next_own_turn_R_56_10() -> None:
    s = large_game(6, current=0)
    hand(s, 1, DEV_COST)
    apply(s, EndTurn(), 0)
    assert s.current == 1
    apply(s, BuyDevCard(), 1, chance=(KNIGHT,))
    assert s.dev_new[1][KNIGHT] == 1
    apply(s, EndTurn(), 1)  # the phase ends; seat 1's own turn comes right after
    assert s.phase == Phase.PRE_ROLL and s.current == 1
    assert s.dev_new[1] == [0] * 5
    assert PlayKnight() in legal_actions(s, 1)
    assert observe(s, 1)["you"]["dev_playable"] == ["knight"]


def test_card_bought_on_own_turn_still_waits_R_56_10() -> None:
    s = large_game(6, current=1)
    hand(s, 1, DEV_COST)
    apply(s, BuyDevCard(), 1, chance=(KNIGHT,))
    assert PlayKnight() not in legal_actions(s, 1)  # R-DEV-1 holds on one's own turn


# --- R-56-11: the options on the large board -------------------------------------------------


@pytest.mark.parametrize("seed", range(15))
def test_balanced_map_on_the_large_board_R_56_11(seed: int) -> None:
    b = generate_board(Rng(seed), balanced=True, geometry=LARGE)
    for h in range(30):
        for m in LARGE.hex_neighbors[h]:
            x, y = b.numbers[h], b.numbers[m]
            if x and y:
                assert x != y and not (x in (6, 8) and y in (6, 8)), (seed, h, m)
    s = new_game(Settings.sea3d(players=6), seed)
    assert Counter(s.board.numbers) == Counter((0, 0, *LARGE.token_values))


def test_shuffled_harbors_on_the_large_board_R_56_11() -> None:
    seen = set()
    for seed in range(10):
        s = new_game(Settings(players=6, shuffle_harbors=True), seed)
        assert sorted(s.board.harbors) == sorted(LARGE.harbor_types)
        seen.add(s.board.harbors)
    assert len(seen) > 5


def test_strict_phases_on_the_large_board_R_56_11() -> None:
    s = large_game(6, current=0, strict_phases=True)
    claim(s, 0)
    hand(s, 0, cards(lumber=2, brick=2, ore=1))
    hand(s, 1, cards(grain=2))
    assert may_propose(s, 1)
    road = next(a for a in legal_actions(s, 0) if isinstance(a, BuildRoad))
    apply(s, road, 0)
    assert not may_propose(s, 1)
    assert_illegal(s, OfferTrade(cards(ore=1), cards(grain=1)), 0, code="trade_closed")


# --- whole games -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [5, 6])
def test_random_games_replay_and_round_trip_R_56_8(players: int) -> None:
    for seed in range(3):
        s = new_game(Settings(players=players, turn_cap=300), seed)
        rnd = random.Random(seed)
        phases = set()
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            apply(s, rnd.choice(legal_actions(s, seat)), seat)
            phases.add(s.phase)
            if s.phase == Phase.SPECIAL_BUILD and rnd.random() < 0.05:
                assert from_text(to_text(s)).to_dict(include_log=False) == s.to_dict(
                    include_log=False)
                assert GameState.from_dict(s.to_dict()).to_dict() == s.to_dict()
        assert Phase.SPECIAL_BUILD in phases
        log = GameLog.from_dict(GameLog.of(s).to_dict())
        assert replay(log).to_dict() == s.to_dict()


def test_large_board_text_form_R_56_1() -> None:
    s = new_game(Settings(players=6), 5)
    rnd = random.Random(5)
    while s.phase != Phase.SPECIAL_BUILD:
        apply(s, rnd.choice(legal_actions(s)), to_act(s)[0])
    text = to_text(s)
    assert "p=6" in text and "phase=special_build" in text and f"from={s.special_from}" in text
    back = from_text(text)
    assert back.info.geo is LARGE and back.special_from == s.special_from
    assert back.to_dict(include_log=False) == s.to_dict(include_log=False)
    with pytest.raises(RulesError):
        from_text(text.replace(f" from={s.special_from}", ""))
    with pytest.raises(RulesError):
        from_text(text.replace("phase=special_build", "phase=main"))


def test_board_of_the_wrong_size_is_refused_R_56_1() -> None:
    with pytest.raises(ValueError):
        Board(LARGE.terrain_pool[:19], (0,) * 19)
    s = new_game(Settings(players=6), 1)
    with pytest.raises(RulesError):
        new_game(Settings(players=4), 1, board=s.board)
