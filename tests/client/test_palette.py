"""Accessibility of the board's colours: the colour-blind palette keeps every two
seats apart under protanopia and deuteranopia (Machado et al. 2009 simulation,
CIEDE2000 distance), pieces carry a seat mark, and the lit spots have 3:1
contrast (WCAG) on every terrain."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pygame
import pytest

from client import palette
from client.board_view import MARK, PULSE_ALPHA, BoardView, highlight_alpha
from client.colour import (
    VISIONS,
    ciede2000,
    contrast_ratio,
    delta_e2000,
    min_distance,
    simulate,
)
from client.table_gfx import SAND, SEA_TOP, TERRAIN_COLORS

MIN_SEAT_DISTANCE = 25.0
"""CIEDE2000 between any two seat colours: far beyond "just noticeable" (about 2)."""
MIN_SIX_DISTANCE = 20.0
"""The same with six seats (5–6 players), where every piece and disc also
carries one of six marks; still ten times "just noticeable"."""


@pytest.fixture(autouse=True)
def standard_palette() -> Iterator[None]:
    yield
    palette.use("standard")


def test_ciede2000_matches_the_published_test_data() -> None:
    """Pairs from Sharma, Wu and Dalal (2005), table 1."""
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
             ((50, 0, 0), (50, -1, 2), 2.3669),
             ((50, 2.5, 0), (73, 25, -18), 27.1492),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
             ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
             ((50, 2.5, 0), (50, 0, -2.5), 4.3065)]
    for a, b, expected in pairs:
        assert ciede2000(a, b) == pytest.approx(expected, abs=1e-4)
        assert ciede2000(b, a) == pytest.approx(expected, abs=1e-4)


def test_the_simulation_confuses_what_it_should() -> None:
    """Sanity: the classic red/green pair collapses under deuteranopia and protanopia,
    greys stay grey, and WCAG's black on white is 21:1."""
    red, green = (220, 70, 40), (100, 130, 40)
    assert delta_e2000(red, green) > 40
    for vision in ("protanopia", "deuteranopia"):
        assert delta_e2000(simulate(red, vision), simulate(green, vision)) < 15
    for v in VISIONS:
        grey = simulate((128, 128, 128), v)
        assert max(grey) - min(grey) <= 2
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)


@pytest.mark.parametrize("vision", ["normal", "protanopia", "deuteranopia", "tritanopia"])
def test_the_colour_blind_palette_keeps_every_seat_apart(vision: str) -> None:
    cb = palette.COLORBLIND
    four = cb.seats[:4]
    two = (cb.seats[0], cb.seats[1], *cb.neutrals)  # the 2-player game with its neutrals
    assert min_distance(four, vision) >= MIN_SEAT_DISTANCE
    assert min_distance(two, vision) >= MIN_SEAT_DISTANCE
    assert len(cb.seats) == 6
    assert min_distance(cb.seats, vision) >= MIN_SIX_DISTANCE  # five and six players


def test_six_seats_have_six_marks() -> None:
    assert len(set(palette.MARKS)) == 6
    assert [palette.mark(q) for q in range(6)] == list(palette.MARKS)
    from client.table_gfx import mark_points

    for shape in palette.MARKS[1:]:
        pts = mark_points(shape, 0.0, 0.0, 10.0)
        assert pts is not None and len(pts) >= 3
    outlines = {tuple((round(x, 3), round(y, 3)) for x, y in mark_points(m, 0, 0, 10) or ())
                for m in palette.MARKS}
    assert len(outlines) == 6  # six different shapes


def test_the_standard_palette_is_the_one_that_needs_the_option() -> None:
    """Red and orange come close under deuteranopia; the option does better."""
    std, cb = palette.STANDARD.seats[:4], palette.COLORBLIND.seats[:4]
    assert min_distance(std, "deuteranopia") < MIN_SEAT_DISTANCE
    assert all(min_distance(cb, v) > min_distance(std, v) for v in ("protanopia",
                                                                     "deuteranopia"))


def test_pieces_carry_a_mark_in_the_colour_blind_palette(surface: pygame.Surface,
                                                          fonts: object) -> None:
    """Each seat's mark differs in shape; marks are drawn on pieces only with the
    colour-blind palette (the standard pieces stay as they were)."""
    assert len(set(palette.MARKS)) == 6  # one per seat, six with the 5–6 player game
    view = BoardView(lambda size, bold=False: pygame.font.Font(None, size))
    view.set_rect(pygame.Rect(0, 0, 600, 500))
    plain = [view._building_sprite(palette.seat_color(q), 1, None) for q in range(6)]
    palette.use("colorblind")
    from client.board_view import owner_mark

    marks = [owner_mark(q) for q in range(6)]
    assert marks == list(palette.MARKS)
    marked = [view._building_sprite(palette.seat_color(q), 1, marks[q]) for q in range(6)]
    for q in range(6):
        # the same colour with and without the mark differ; two marks differ in shape
        bare = view._building_sprite(palette.seat_color(q), 1, None)
        assert pygame.image.tobytes(bare, "RGBA") != pygame.image.tobytes(marked[q], "RGBA")
    masks = [pygame.mask.from_threshold(view._building_sprite((240, 240, 240), 1, m),
                                        (24, 24, 28, 255), (40, 40, 40, 255)) for m in marks]
    counts = [m.count() for m in masks]
    assert all(c > 4 for c in counts) and len(set(counts)) == 6, counts
    palette.use("standard")
    assert owner_mark(0) is None
    assert plain  # drawn before the switch


def _terrains() -> list[tuple[int, int, int]]:
    return [*TERRAIN_COLORS, SAND, SEA_TOP]


def _alpha_min() -> int:
    """The lit spots pulse; this is their faintest moment."""
    faintest = min(highlight_alpha(k / 100) for k in range(100))
    assert faintest == PULSE_ALPHA[0]
    return faintest


def _bands(sprite: pygame.Surface, bg: tuple[int, int, int], rays: list[list[tuple[int, int]]]
           ) -> list[int]:
    """For each ray (a list of pixels), the longest run of pixels that contrast
    3:1 or more with ``bg`` once ``sprite`` is drawn over it."""
    canvas = pygame.Surface(sprite.get_size())
    canvas.fill(bg)
    canvas.blit(sprite, (0, 0))
    out = []
    for ray in rays:
        best = run = 0
        for x, y in dict.fromkeys(ray):  # each pixel once
            c = canvas.get_at((x, y))
            if contrast_ratio((c.r, c.g, c.b), bg) >= 3.0:
                run += 1
                best = max(best, run)
            else:
                run = 0
        out.append(best)
    return out


@pytest.mark.parametrize("size", [40.0, 70.0])
def test_lit_spots_have_three_to_one_contrast_on_every_terrain(size: float,
                                                                surface: pygame.Surface
                                                                ) -> None:
    """Every lit node ring and every lit edge shows, all the way round (along it),
    a stroke at least 2 pixels wide with WCAG contrast of 3:1 or more against the
    terrain, the beach and the sea under it, even at the faintest of its pulse."""
    view = BoardView(lambda s, bold=False: pygame.font.Font(None, s))
    view.set_rect(pygame.Rect(0, 0, 900, 700))
    assert view.layout is not None
    view.layout.size = size  # the sprites' scale
    view._sprites.clear()
    ring = view._ring_sprite(MARK, 0.2).copy()
    ring.set_alpha(_alpha_min())
    w, h = ring.get_size()
    c = (w / 2, h / 2)
    radius = w / 2
    rays = []
    for k in range(36):  # from the centre outwards
        a = 2 * math.pi * k / 36
        rays.append([(round(c[0] + r * math.cos(a)), round(c[1] + r * math.sin(a)))
                     for r in (i * 0.5 for i in range(int(radius * 2) - 1))
                     if 0 <= round(c[0] + r * math.cos(a)) < w
                     and 0 <= round(c[1] + r * math.sin(a)) < h])
    for angle in (30, 90, 150):
        edge = view._edge_glow_sprite(MARK, angle).copy()
        edge.set_alpha(_alpha_min())
        ew, eh = edge.get_size()
        a = math.radians(angle)
        ux, uy = math.cos(a), -math.sin(a)  # along the edge
        nx, ny = -uy, ux  # across it
        across = []
        for t in (-0.3, -0.15, 0.0, 0.15, 0.3):  # cross-sections along the edge
            cx, cy = ew / 2 + ux * t * size * 0.5, eh / 2 + uy * t * size * 0.5
            across.append([(round(cx + nx * d), round(cy + ny * d))
                           for d in (i * 0.5 - size * 0.2 for i in range(int(size * 0.8)))
                           if 0 <= round(cx + nx * d) < ew and 0 <= round(cy + ny * d) < eh])
        for bg in _terrains():
            assert min(_bands(edge, bg, across)) >= 2, (angle, bg)
    for bg in _terrains():
        assert min(_bands(ring, bg, rays)) >= 2, bg
