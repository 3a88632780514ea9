"""The board's pixel geometry, hit-testing and caching (client/board_view.py)."""

from __future__ import annotations

import copy
import math

import pygame
import pytest

from client.board_view import (
    BoardLayout,
    BoardView,
    Highlights,
    LastMove,
    last_move,
    owner_color,
)
from client.fonts import Fonts
from client.palette import STANDARD
from protocol.rules import Settings, new_game, observe
from protocol.rules.board import NUM_EDGES, NUM_HEXES, NUM_NODES

RECTS = [
    pygame.Rect(0, 46, 896, 590),  # the table at 1280×800
    pygame.Rect(0, 0, 640, 400),
    pygame.Rect(10, 20, 1700, 1100),
    pygame.Rect(0, 0, 300, 900),  # tall and narrow
    pygame.Rect(0, 0, 420, 260),  # small
]


@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_every_spot_round_trips(rect: pygame.Rect) -> None:
    lay = BoardLayout(rect)
    for n in range(NUM_NODES):
        assert lay.hit_node(lay.node_xy[n]) == n
    for e in range(NUM_EDGES):
        assert lay.hit_edge(lay.edge_xy[e]) == e
    for h in range(NUM_HEXES):
        assert lay.hit_hex(lay.hex_xy[h]) == h


@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_spots_near_but_not_on_their_point_still_hit(rect: pygame.Rect) -> None:
    lay = BoardLayout(rect)
    d = lay.size * 0.15
    for n in range(NUM_NODES):
        x, y = lay.node_xy[n]
        assert lay.hit_node((x + d, y - d / 2)) == n
    for e in range(NUM_EDGES):
        (ax, ay), (bx, by) = lay.edge_ends[e]
        # a third of the way along the edge, slightly off it
        p = (ax + (bx - ax) / 3 + d / 2, ay + (by - ay) / 3)
        assert lay.hit_edge(p) == e


@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_the_island_and_harbors_fit_the_rect(rect: pygame.Rect) -> None:
    lay = BoardLayout(rect)
    inside = rect.inflate(2, 2)
    for x, y in lay.node_xy + lay.harbor_xy:
        assert inside.collidepoint(x, y)
    # centred
    xs = [x for x, _ in lay.node_xy]
    assert abs((min(xs) + max(xs)) / 2 - rect.centerx) < 2


def test_scaling_follows_the_rect() -> None:
    small = BoardLayout(pygame.Rect(0, 0, 400, 300))
    big = BoardLayout(pygame.Rect(0, 0, 800, 600))
    assert big.size == pytest.approx(2 * small.size)
    n0s, n0b = small.node_xy[0], big.node_xy[0]
    assert n0b == pytest.approx((2 * n0s[0], 2 * n0s[1]))


def test_fit_rect_places_the_island_inside_it() -> None:
    rect = pygame.Rect(0, 0, 900, 600)
    fit = pygame.Rect(0, 40, 900, 540)
    lay = BoardLayout(rect, fit)
    assert min(y for _, y in lay.node_xy) >= 40


def test_misses_and_candidates() -> None:
    lay = BoardLayout(pygame.Rect(0, 0, 900, 600))
    assert lay.hit_node((1, 1)) is None
    assert lay.hit_edge((1, 1)) is None
    assert lay.hit_hex((1, 1)) is None
    # only candidates can be hit: node 5's own spot with candidates {6} is a miss
    assert lay.hit_node(lay.node_xy[5], {6}) is None
    assert lay.hit_edge(lay.edge_xy[5], [6, 7]) is None
    assert lay.hit_hex(lay.hex_xy[9], {8}) is None
    assert lay.hit_hex(lay.hex_xy[9], {9}) == 9


def test_edge_angles() -> None:
    lay = BoardLayout(pygame.Rect(0, 0, 900, 600))
    angles = {lay.edge_angle(e) for e in range(NUM_EDGES)}
    assert angles == {30, 90, 150}


def test_owner_colours() -> None:
    assert owner_color(1, 4) == STANDARD.seats[1]
    assert owner_color(3, 4) == STANDARD.seats[3]
    assert owner_color(2, 2) == STANDARD.neutrals[0]
    assert owner_color(3, 2) == STANDARD.neutrals[1]


def _view() -> dict[str, object]:
    s = new_game(Settings(players=4), seed=3)
    return observe(s, 0)


def test_static_layer_is_cached_and_drawing_changes_nothing(surface: pygame.Surface,
                                                            fonts: Fonts) -> None:
    view = _view()
    before = copy.deepcopy(view)
    bv = BoardView(fonts.get)
    bv.set_rect(pygame.Rect(0, 46, 896, 590))
    hl = Highlights(nodes=range(10), edges=range(5), hexes=[1, 2], color=(200, 40, 40),
                    ghost="settlement")
    for i in range(5):
        bv.draw(surface, view, hl, hover=(400 + i, 300), pulse=i / 5)
    assert bv.static_builds == 1
    assert view == before
    bv.set_rect(pygame.Rect(0, 0, 700, 500))
    bv.draw(surface, view)
    assert bv.static_builds == 2
    assert bv.last_static_ms > 0


def test_hover_finds_the_lit_spot_only(fonts: Fonts) -> None:
    bv = BoardView(fonts.get)
    lay = bv.set_rect(pygame.Rect(0, 0, 900, 600))
    hl = Highlights(nodes=[12], edges=[30])
    assert bv.hovered(hl, lay.node_xy[12]) == ("node", 12)
    assert bv.hovered(hl, lay.edge_xy[30]) == ("edge", 30)
    assert bv.hovered(hl, lay.node_xy[13]) is None
    assert bv.hovered(hl, None) is None


def test_pieces_are_drawn_in_seat_colours(surface: pygame.Surface, fonts: Fonts) -> None:
    view = dict(_view())
    view["roads"] = [[30, 1]]
    view["buildings"] = [[12, 0, 1], [40, 2, 2]]
    bv = BoardView(fonts.get)
    lay = bv.set_rect(surface.get_rect())
    surface.fill((0, 0, 0))
    bv.draw(surface, view)
    def near(pos: tuple[float, float], color: tuple[int, int, int], radius: int) -> float:
        return min(math.dist(surface.get_at((round(pos[0]) + dx, round(pos[1]) + dy))[:3], color)
                   for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1))

    assert near(lay.edge_xy[30], STANDARD.seats[1], 3) < 30
    assert near(lay.node_xy[12], STANDARD.seats[0], 4) < 30
    assert near(lay.node_xy[40], STANDARD.seats[2], 4) < 30
    assert near(lay.node_xy[20], STANDARD.seats[1], 4) > 60  # nothing blue elsewhere


# --- the last move ----------------------------------------------------------------------


def test_last_move_takes_the_latest_build_and_this_turns_roll() -> None:
    assert last_move([]) == LastMove()
    events = [
        {"type": "settlement_built", "seat": 0, "node": 12, "free": True},
        {"type": "road_built", "seat": 0, "edge": 30, "free": True},
        {"type": "turn_started", "seat": 1, "turn": 1},
        {"type": "dice_rolled", "seat": 1, "dice": [3, 5]},
        {"type": "produced", "gains": [], "withheld": []},
    ]
    assert last_move(events) == LastMove(("edge", 30), 8)
    events.append({"type": "city_built", "seat": 1, "node": 40})
    assert last_move(events) == LastMove(("node", 40), 8)
    # the next turn: the roll is forgotten until the next one, the build stays
    events += [{"type": "turn_ended", "seat": 1}, {"type": "turn_started", "seat": 2, "turn": 2}]
    assert last_move(events) == LastMove(("node", 40), None)
    events.append({"type": "dice_rolled", "seat": 2, "dice": [3, 4]})  # a 7 produces nothing
    assert last_move(events) == LastMove(("node", 40), None)
    events.append({"type": "road_built", "seat": 2, "edge": 5, "free": False})
    assert last_move(events).piece == ("edge", 5)


def test_last_move_is_drawn_under_the_piece_and_around_the_tokens(surface: pygame.Surface,
                                                                  fonts: Fonts) -> None:
    view = dict(_view())
    view["buildings"] = [[12, 0, 1]]
    board = view["board"]
    assert isinstance(board, dict)
    numbers = board["numbers"]
    rolled = next(n for h, n in enumerate(numbers) if n and h != view["robber"])
    bv = BoardView(fonts.get)
    lay = bv.set_rect(surface.get_rect())
    size = lay.size

    def pixels(last: LastMove | None) -> tuple[list[object], list[object]]:
        surface.fill((0, 0, 0))
        bv.draw(surface, view, last=last)
        x, y = lay.node_xy[12]
        near_piece = [surface.get_at((round(x + size * dx), round(y + size * 0.3)))
                      for dx in (-0.3, 0.0, 0.3)]
        rings = [surface.get_at((round(hx + size * 0.33), round(hy)))
                 for (hx, hy), n in zip(lay.hex_xy, numbers, strict=True) if n == rolled]
        return near_piece, rings

    plain_piece, plain_rings = pixels(None)
    lit_piece, lit_rings = pixels(LastMove(("node", 12), rolled))
    assert plain_piece != lit_piece
    assert all(a != b for a, b in zip(plain_rings, lit_rings, strict=True))
    assert bv.static_builds == 1  # the marks are not part of the static layer
