"""The island on screen: pixel layout, the cached static board, pieces, hit-testing.

:class:`BoardLayout` maps the board geometry of :mod:`protocol.rules.board`
(hex circumradius as unit, y down) into a pixel rect and finds the node,
edge or hex under the mouse. :class:`BoardView` draws: the static layer
(sea, terrain, number tokens, harbors) is rendered once per board and size
into a surface, so a frame blits it and draws the few dynamic things
(robber, roads, buildings, highlights) from cached sprites.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Collection, Reversible, Sequence
from dataclasses import dataclass
from typing import Any

import pygame

from protocol.rules.board import (
    BASE,
    DESERT,
    GENERIC_HARBOR,
    Geometry,
    geometry_of,
    pips,
)

from . import palette
from .table_gfx import (
    CREAM,
    INK,
    RED_NUMBER,
    RESOURCE_COLORS,
    SAND,
    SAND_DARK,
    SEA_BOTTOM,
    SEA_TOP,
    TERRAIN_COLORS,
    Color,
    Point,
    aa_circle,
    aa_polygon,
    draw_mark,
    hex_points,
    mark_on,
    resource_icon,
    shade,
    supersampled,
    thick_line,
)

MARK: Color = (255, 240, 150)
"""The colour legal spots light up in (the piece under the mouse shows the seat's colour)."""
MARK_RIM: Color = (22, 20, 18)
"""The dark rims around a lit spot: on pale terrain the rim, on dark terrain the light
band has 3:1 contrast (tests/client/test_palette.py)."""
PULSE_ALPHA = (205, 255)
"""The lit spots pulse between these opacities."""


def highlight_alpha(pulse: float) -> int:
    """The opacity of the lit spots at ``pulse`` (0-1, a cycle)."""
    lo, hi = PULSE_ALPHA
    return round(lo + (hi - lo) * (0.5 + 0.5 * math.sin(pulse * 2 * math.pi)))


def _stroke(sz: float) -> tuple[float, float]:
    """(dark rim, light band) widths in pixels of a lit spot at hex size ``sz``:
    never under two pixels each."""
    return max(3.0, sz * 0.055), max(3.0, sz * 0.05)
HARBOR_OUT = 0.78
"""Distance (hex units) from a harbor edge's midpoint to its badge, seawards."""
_BADGE_HALF = (0.44, 0.2)  # half width, half height of a harbor badge (hex units)
MAX_ZOOM = 2.5
"""The closest the board zooms in (2.5 times the whole island's size)."""
NODE_TOLERANCE = 0.36
EDGE_TOLERANCE = 0.26
HEX_TOLERANCE = 0.98


def owner_color(owner: int, players: int) -> Color:
    """The colour of a seat, or of a neutral player (owners 2 and 3 of a 2-player game)."""
    if players == 2 and owner >= 2:
        return palette.neutral_color(owner - 2)
    return palette.seat_color(owner)


def piece_edge(color: Color, f: float = -0.55) -> Color:
    """The outline of a piece: darker than its colour, or light for a dark piece
    (so a black piece stands out on the forest)."""
    if 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2] < 70:
        return (196, 196, 200)
    return shade(color, f)


def owner_mark(owner: int) -> str | None:
    """The mark on ``owner``'s pieces (None: the palette has no marks)."""
    return palette.mark(owner) if palette.marks_on() else None


@dataclass(frozen=True)
class _Shape:
    """What a layout needs of a geometry, in hex units relative to its centre."""

    harbors: tuple[tuple[Point, Point], ...]
    """(edge midpoint, outward unit vector) of each harbor position."""
    half_w: float
    half_h: float
    """Half the width and height round the centre that hold the island and its
    harbor badges (the larger side each way: harbors are not symmetric)."""


def _shape_of(geo: Geometry) -> _Shape:
    cx, cy = geo.centre
    harbors = []
    for e in geo.harbor_edges:
        mx, my = geo.edge_pos[e]
        hx, hy = geo.hex_pos[geo.edge_hexes[e][0]]
        dx, dy = mx - hx, my - hy
        n = math.hypot(dx, dy) or 1.0
        harbors.append(((mx - cx, my - cy), (dx / n, dy / n)))
    xs = [x - cx for x, _ in geo.node_pos]
    ys = [y - cy for _, y in geo.node_pos]
    for (mx, my), (ox, oy) in harbors:
        bx, by = mx + ox * HARBOR_OUT, my + oy * HARBOR_OUT
        xs += [bx - _BADGE_HALF[0], bx + _BADGE_HALF[0]]
        ys += [by - _BADGE_HALF[1], by + _BADGE_HALF[1]]
    return _Shape(tuple(harbors), max(-min(xs), max(xs)), max(-min(ys), max(ys)))


_SHAPES: dict[str, _Shape] = {}
_PAD = 0.12  # hex units of sea around everything


def _shape(geo: Geometry) -> _Shape:
    shape = _SHAPES.get(geo.name)
    if shape is None:
        shape = _SHAPES[geo.name] = _shape_of(geo)
    return shape


class BoardLayout:
    """Pixel positions of every hex, node and edge, fitted into ``rect``.

    ``fit``: the part of ``rect`` the whole island fits into at ``zoom`` 1. With
    ``zoom`` > 1 the island is that much larger (a "world" of ``rect``'s size
    times ``zoom``) and ``pan`` (world pixels) says which part of it ``rect``
    shows; every position (and so every hit test) is in screen pixels.
    ``geo``: the board's geometry (the 30-hex board of 5–6 players is drawn
    with its rows across, like the 19-hex one)."""

    def __init__(self, rect: pygame.Rect, fit: pygame.Rect | None = None, zoom: float = 1.0,
                 pan: tuple[float, float] = (0.0, 0.0), geo: Geometry = BASE) -> None:
        self.rect = pygame.Rect(rect)
        self.fit = pygame.Rect(fit) if fit is not None else pygame.Rect(rect)
        self.zoom = zoom
        self.pan = pan
        self.geo = geo
        shape = _shape(geo)
        # the island is centred (harbors are not symmetric, so fit the larger side twice)
        w_units = 2 * (shape.half_w + _PAD)
        h_units = 2 * (shape.half_h + _PAD)
        self.base_size = max(4.0, min(self.fit.w / w_units, self.fit.h / h_units))
        self.size = self.base_size * zoom
        cx, cy = geo.centre
        self.origin = (self.rect.x + (self.fit.centerx - self.rect.x) * zoom - pan[0]
                       - cx * self.size,
                       self.rect.y + (self.fit.centery - self.rect.y) * zoom - pan[1]
                       - cy * self.size)
        self.hex_xy = [self.to_px(p) for p in geo.hex_pos]
        self.node_xy = [self.to_px(p) for p in geo.node_pos]
        self.edge_xy = [self.to_px(p) for p in geo.edge_pos]
        self.edge_ends = [(self.node_xy[a], self.node_xy[b]) for a, b in geo.edge_nodes]
        self.harbor_xy = [self.to_px((m[0] + cx + o[0] * HARBOR_OUT, m[1] + cy + o[1] * HARBOR_OUT))
                          for m, o in shape.harbors]

    def world(self) -> BoardLayout:
        """The same island on the whole zoomed world (its own pixels, no pan): what the
        cached static layer is drawn in."""
        z = self.zoom
        w, h = round(self.rect.w * z), round(self.rect.h * z)
        fit = pygame.Rect(round((self.fit.x - self.rect.x) * z),
                          round((self.fit.y - self.rect.y) * z),
                          round(self.fit.w * z), round(self.fit.h * z))
        return BoardLayout(pygame.Rect(0, 0, w, h), fit, geo=self.geo)

    def to_px(self, p: Point) -> Point:
        return (self.origin[0] + p[0] * self.size, self.origin[1] + p[1] * self.size)

    def edge_angle(self, e: int) -> int:
        """The edge's direction in degrees, one of 30, 90, 150."""
        (ax, ay), (bx, by) = self.edge_ends[e]
        deg = math.degrees(math.atan2(-(by - ay), bx - ax)) % 180
        return min((30, 90, 150), key=lambda a: abs(a - deg))

    # -- hit-testing ---------------------------------------------------------------------

    def hit_node(self, pos: Point, candidates: Collection[int] | None = None) -> int | None:
        """The node within tolerance of ``pos`` (nearest), among ``candidates``."""
        best, best_d = None, NODE_TOLERANCE * self.size
        for n in (range(self.geo.num_nodes) if candidates is None else candidates):
            x, y = self.node_xy[n]
            d = math.hypot(pos[0] - x, pos[1] - y)
            if d <= best_d:
                best, best_d = n, d
        return best

    def hit_edge(self, pos: Point, candidates: Collection[int] | None = None) -> int | None:
        """The edge whose segment passes within tolerance of ``pos`` (nearest)."""
        best, best_d = None, EDGE_TOLERANCE * self.size
        best_mid = math.inf
        for e in (range(self.geo.num_edges) if candidates is None else candidates):
            (ax, ay), (bx, by) = self.edge_ends[e]
            d = _segment_distance(pos, (ax, ay), (bx, by), 0.12)
            mid = math.hypot(pos[0] - self.edge_xy[e][0], pos[1] - self.edge_xy[e][1])
            if d < best_d or (d == best_d and mid < best_mid):
                best, best_d, best_mid = e, d, mid
        return best

    def hit_hex(self, pos: Point, candidates: Collection[int] | None = None) -> int | None:
        """The hex under ``pos`` (the nearest centre, inside its hexagon)."""
        best, best_d = None, math.inf
        for h in range(self.geo.num_hexes):
            x, y = self.hex_xy[h]
            d = math.hypot(pos[0] - x, pos[1] - y)
            if d < best_d:
                best, best_d = h, d
        if best is None or best_d > HEX_TOLERANCE * self.size:
            return None
        if candidates is not None and best not in candidates:
            return None
        return best


def _segment_distance(p: Point, a: Point, b: Point, trim: float) -> float:
    """Distance from ``p`` to segment ``ab`` shortened by ``trim`` of its length at each end."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy or 1.0
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = max(trim, min(1 - trim, t))
    cx, cy = a[0] + t * dx, a[1] + t * dy
    return math.hypot(p[0] - cx, p[1] - cy)


@dataclass(frozen=True)
class LastMove:
    """The latest move shown on the board: the most recently built piece
    (``("node", n)`` for a settlement or city, ``("edge", e)`` for a road) and the
    number rolled in the current turn (None before the roll, and on a 7)."""

    piece: tuple[str, int] | None = None
    rolled: int | None = None


BUILD_EVENTS = {"road_built": ("edge", "edge"), "settlement_built": ("node", "node"),
                "city_built": ("node", "node")}


def last_move(events: Reversible[dict[str, Any]]) -> LastMove:
    """The latest build and this turn's roll, from the events received (oldest first)."""
    piece: tuple[str, int] | None = None
    rolled: int | None = None
    turn_over = False  # seen (going backwards) the start of the current turn
    for event in reversed(events):
        kind = event.get("type")
        if piece is None and kind in BUILD_EVENTS:
            what, field = BUILD_EVENTS[kind]
            where = event.get(field)
            if isinstance(where, int):
                piece = (what, where)
        elif kind in ("turn_started", "turn_ended"):
            turn_over = True
        elif kind == "dice_rolled" and not turn_over and rolled is None:
            total = sum(event.get("dice") or ())
            rolled = total if 2 <= total <= 12 and total != 7 else None
            turn_over = True  # an earlier roll is not this turn's
        if piece is not None and turn_over:
            break
    return LastMove(piece, rolled)


@dataclass
class Highlights:
    """What to light up on the board (legal spots), and in which colour."""

    nodes: Collection[int] = ()
    edges: Collection[int] = ()
    hexes: Collection[int] = ()
    color: Color = (255, 255, 255)
    ghost: str | None = None  # piece shown under the mouse: road, settlement, city, robber
    owner: int | None = None  # whose piece the ghost is (for its mark)


FontFn = Callable[..., pygame.font.Font]


class BoardView:
    """Draws one board into a rect. The static layer is cached per (board, size)."""

    def __init__(self, font: FontFn) -> None:
        self._font_fn = font
        self.layout: BoardLayout | None = None
        self._static: pygame.Surface | None = None
        self._static_key: tuple[Any, ...] | None = None
        self._sprites: dict[tuple[Any, ...], pygame.Surface] = {}
        self.zoom = 1.0
        self.pan: tuple[float, float] = (0.0, 0.0)
        self.static_builds = 0
        self.last_static_ms = 0.0
        self.geo: Geometry = BASE

    def use_board(self, board: dict[str, Any]) -> None:
        """Lay out the geometry of ``board`` (a view's: 19 hexes, or 30 with 5–6
        players) from now on."""
        try:
            geo = geometry_of(len(board["terrain"]))
        except ValueError:
            return  # not a board we know: keep the current one
        if geo is not self.geo:
            self.geo = geo
            lay = self.layout
            if lay is not None:
                self.layout = None
                self.zoom, self.pan = 1.0, (0.0, 0.0)
                self._sprites.clear()
                self.set_rect(lay.rect, lay.fit)

    def set_rect(self, rect: pygame.Rect, fit: pygame.Rect | None = None) -> BoardLayout:
        """Draw into ``rect``, the island fitted into ``fit`` (default: all of ``rect``)."""
        fit = rect if fit is None else fit
        lay = self.layout
        if (lay is None or lay.rect != rect or lay.fit != fit or lay.zoom != self.zoom
                or lay.pan != self.pan or lay.geo is not self.geo):
            if lay is not None and (lay.rect != rect or lay.fit != fit):
                self.zoom, self.pan = 1.0, (0.0, 0.0)  # a new size: the whole island again
            self.pan = self._clamp(self.pan, rect, self.zoom)
            self.layout = BoardLayout(rect, fit, self.zoom, self.pan, self.geo)
            if lay is None or abs(lay.size - self.layout.size) > 1e-9:
                self._sprites.clear()  # (panning keeps the sprites: same sizes)
        assert self.layout is not None
        return self.layout

    # -- zoom and pan ----------------------------------------------------------------------

    @staticmethod
    def _clamp(pan: tuple[float, float], rect: pygame.Rect,
               zoom: float) -> tuple[float, float]:
        """Keep the view inside the zoomed world."""
        return (max(0.0, min(rect.w * (zoom - 1), pan[0])),
                max(0.0, min(rect.h * (zoom - 1), pan[1])))

    def zoom_at(self, pos: Point, factor: float) -> bool:
        """Zoom by ``factor`` keeping the point under ``pos`` (screen pixels) where it
        is; returns whether the view changed."""
        lay = self.layout
        if lay is None:
            return False
        new = max(1.0, min(MAX_ZOOM, round(self.zoom * factor, 4)))
        if abs(new - 1.0) < 0.02:
            new = 1.0
        if new == self.zoom:
            return False
        sx, sy = pos[0] - lay.rect.x, pos[1] - lay.rect.y
        ux, uy = (sx + self.pan[0]) / self.zoom, (sy + self.pan[1]) / self.zoom
        self.pan = self._clamp((ux * new - sx, uy * new - sy), lay.rect, new)
        self.zoom = new
        self.set_rect(lay.rect, lay.fit)
        return True

    def pan_by(self, dx: float, dy: float) -> bool:
        """Move the view with the mouse (the island follows it)."""
        lay = self.layout
        if lay is None:
            return False
        pan = self._clamp((self.pan[0] - dx, self.pan[1] - dy), lay.rect, self.zoom)
        if pan == self.pan:
            return False
        self.pan = pan
        self.set_rect(lay.rect, lay.fit)
        return True

    def reset_view(self) -> bool:
        lay = self.layout
        if lay is None or (self.zoom == 1.0 and self.pan == (0.0, 0.0)):
            return False
        self.zoom, self.pan = 1.0, (0.0, 0.0)
        self.set_rect(lay.rect, lay.fit)
        return True

    def show(self, pos: Point, margin: float = 40.0) -> bool:
        """Pan so that screen point ``pos`` is inside the view (keyboard focus)."""
        lay = self.layout
        if lay is None or self.zoom == 1.0:
            return False
        r = lay.rect.inflate(-2 * margin, -2 * margin)
        dx = (r.x - pos[0]) if pos[0] < r.x else (r.right - pos[0]) if pos[0] > r.right else 0
        dy = (r.y - pos[1]) if pos[1] < r.y else (r.bottom - pos[1]) if pos[1] > r.bottom else 0
        return bool(dx or dy) and self.pan_by(dx, dy)

    def view_key(self) -> tuple[float, float, float]:
        return (self.zoom, *self.pan)

    # -- static layer --------------------------------------------------------------------

    def static_surface(self, board: dict[str, Any]) -> pygame.Surface:
        """The sea, the terrain, the numbers and the harbors of the whole (zoomed)
        island, drawn once per board, size and zoom (panning only moves it)."""
        assert self.layout is not None
        lay = self.layout
        key = (tuple(board["terrain"]), tuple(board["numbers"]), tuple(board["harbors"]),
               tuple(lay.rect.size), tuple(lay.fit.move(-lay.rect.x, -lay.rect.y)), lay.zoom)
        if self._static is None or self._static_key != key:
            t0 = time.perf_counter()
            self._static = None  # let the old one go before drawing a big new one
            self._static = self._render_static(board, lay.world())
            self._static_key = key
            self.static_builds += 1
            self.last_static_ms = (time.perf_counter() - t0) * 1000
        return self._static

    def _render_static(self, board: dict[str, Any], lay: BoardLayout) -> pygame.Surface:
        rect = lay.rect
        f = 2 if rect.w * rect.h <= 2_000_000 else 1  # supersampling (big zooms need none)
        big = pygame.Surface((rect.w * f, rect.h * f))
        ox, oy = rect.x, rect.y
        sz = lay.size * f

        def P(p: Point) -> Point:  # noqa: N802 - a tiny local transform
            return ((p[0] - ox) * f, (p[1] - oy) * f)

        # sea: a vertical gradient with a few wave strokes
        h = big.get_height()
        for y in range(0, h, 4):
            t = y / max(1, h - 1)
            c = tuple(round(SEA_TOP[i] * (1 - t) + SEA_BOTTOM[i] * t) for i in range(3))
            pygame.draw.rect(big, c, (0, y, big.get_width(), 4))
        rng = random.Random(7)
        wave = shade(SEA_TOP, 0.12)
        for _ in range(int(big.get_width() * h / 9000)):
            wx, wy = rng.uniform(0, big.get_width()), rng.uniform(0, h)
            r = rng.uniform(0.12, 0.22) * sz
            pygame.draw.arc(big, wave, (wx - r, wy - r / 2, 2 * r, r), 0.3, math.pi - 0.3,
                            max(1, round(f * 1.2)))
        # harbor piers under the island's beach
        geo = lay.geo
        for i in range(len(board["harbors"])):
            bx, by = P(lay.harbor_xy[i])
            for n in geo.edge_nodes[geo.harbor_edges[i]]:
                nx, ny = P(lay.node_xy[n])
                thick_line(big, (96, 66, 40), (nx, ny), (bx, by), sz * 0.085)
                thick_line(big, (150, 108, 66), (nx, ny), (bx, by), sz * 0.05)
        # the beach: every hex a little larger, in sand
        for h_id in range(geo.num_hexes):
            cx, cy = P(lay.hex_xy[h_id])
            aa_polygon(big, SAND_DARK, hex_points(cx, cy, sz * 1.13))
        for h_id in range(geo.num_hexes):
            cx, cy = P(lay.hex_xy[h_id])
            aa_polygon(big, SAND, hex_points(cx, cy, sz * 1.08))
        # terrain tiles
        for h_id in range(geo.num_hexes):
            cx, cy = P(lay.hex_xy[h_id])
            tile = _terrain_tile(board["terrain"][h_id], sz, h_id)
            big.blit(tile, (round(cx - tile.get_width() / 2), round(cy - tile.get_height() / 2)))
        # number token discs and pips (text comes after the downscale)
        for h_id in range(geo.num_hexes):
            num = board["numbers"][h_id]
            if not num:
                continue
            cx, cy = P(lay.hex_xy[h_id])
            r = sz * 0.3
            aa_circle(big, (0, 0, 0, 60), (cx + sz * 0.03, cy + sz * 0.04), r)
            aa_circle(big, shade(CREAM, -0.25), (cx, cy), r)
            aa_circle(big, CREAM, (cx, cy), r * 0.92)
            n_pips = pips(num)
            red = num in (6, 8)
            for k in range(n_pips):
                px = cx + (k - (n_pips - 1) / 2) * sz * 0.075
                aa_circle(big, RED_NUMBER if red else INK, (px, cy + r * 0.55), sz * 0.024)
        # harbor badges
        for i, kind in enumerate(board["harbors"]):
            bx, by = P(lay.harbor_xy[i])
            w, hh = _BADGE_HALF[0] * sz, _BADGE_HALF[1] * sz
            badge = pygame.Rect(0, 0, round(2 * w), round(2 * hh))
            badge.center = (round(bx), round(by))
            fill = CREAM if kind == GENERIC_HARBOR else shade(RESOURCE_COLORS[kind], 0.55)
            pygame.draw.rect(big, (70, 50, 30), badge.inflate(f * 3, f * 3),
                             border_radius=round(hh + f * 1.5))
            pygame.draw.rect(big, fill, badge, border_radius=round(hh))
        surf = pygame.transform.smoothscale(big, rect.size)
        # text at the final size (already anti-aliased by the font renderer)
        num_font = self._font_fn(max(9, round(lay.size * 0.3)), True)
        for h_id in range(geo.num_hexes):
            num = board["numbers"][h_id]
            if not num:
                continue
            cx, cy = lay.hex_xy[h_id]
            img = num_font.render(str(num), True, RED_NUMBER if num in (6, 8) else INK)
            surf.blit(img, img.get_rect(center=(round(cx - ox), round(cy - oy - lay.size * 0.05))))
        ratio_font = self._font_fn(max(8, round(lay.size * 0.24)), True)
        icon_px = max(8, round(lay.size * 0.3))
        for i, kind in enumerate(board["harbors"]):
            bx, by = lay.harbor_xy[i]
            label = "3:1" if kind == GENERIC_HARBOR else "2:1"
            img = ratio_font.render(label, True, INK)
            if kind == GENERIC_HARBOR:
                surf.blit(img, img.get_rect(center=(round(bx - ox), round(by - oy))))
            else:
                icon = resource_icon(kind, icon_px)
                total = icon.get_width() + 2 + img.get_width()
                x0 = bx - ox - total / 2
                surf.blit(icon, (round(x0), round(by - oy - icon.get_height() / 2)))
                surf.blit(img, img.get_rect(midleft=(round(x0 + icon.get_width() + 2),
                                                     round(by - oy))))
        return surf

    # -- dynamic layer -------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, view: dict[str, Any],
             highlights: Highlights | None = None, hover: Point | None = None,
             pulse: float = 0.0, last: LastMove | None = None) -> None:
        """Blit the static board and draw robber, pieces and highlights."""
        self.draw_base(surface, view, last)
        if highlights is not None:
            self.draw_highlights(surface, highlights, hover, pulse)

    def draw_base(self, surface: pygame.Surface, view: dict[str, Any],
                  last: LastMove | None = None, hide: tuple[str, int] | None = None) -> None:
        """The static board, the roads, the robber and the buildings; with ``last``,
        a glow around the number tokens that produced on this turn's roll and a halo
        under the latest piece built. ``hide``: a piece (``("edge", e)`` or
        ``("node", n)``) left out, because :meth:`draw_piece` fades it in."""
        self.use_board(view["board"])
        lay = self.layout
        assert lay is not None
        surface.blit(self.static_surface(view["board"]), lay.rect.topleft,
                     pygame.Rect(round(lay.pan[0]), round(lay.pan[1]), lay.rect.w, lay.rect.h))
        players = int(view.get("players", 4))
        piece = last.piece if last is not None else None
        if last is not None and last.rolled is not None:
            glow = self._token_glow_sprite()
            numbers = view["board"]["numbers"]
            for h_id, num in enumerate(numbers):
                if num == last.rolled and h_id != view["robber"]:
                    x, y = lay.hex_xy[h_id]
                    surface.blit(glow, (round(x - glow.get_width() / 2),
                                        round(y - glow.get_height() / 2)))
        if piece is not None and piece[0] == "edge" and 0 <= piece[1] < lay.geo.num_edges:
            halo = self._edge_halo_sprite(lay.edge_angle(piece[1]))
            x, y = lay.edge_xy[piece[1]]
            surface.blit(halo, (round(x - halo.get_width() / 2), round(y - halo.get_height() / 2)))
        if piece is not None and piece[0] == "node" and 0 <= piece[1] < lay.geo.num_nodes:
            halo = self._halo_sprite()
            x, y = lay.node_xy[piece[1]]
            surface.blit(halo, (round(x - halo.get_width() / 2), round(y - halo.get_height() / 2)))
        for edge, owner in view.get("roads", ()):
            if hide is not None and hide == ("edge", edge):
                continue
            spr = self._road_sprite(owner_color(owner, players), lay.edge_angle(edge),
                                    owner_mark(owner))
            x, y = lay.edge_xy[edge]
            surface.blit(spr, (round(x - spr.get_width() / 2), round(y - spr.get_height() / 2)))
        rx, ry = lay.hex_xy[view["robber"]]
        robber = self._robber_sprite()
        surface.blit(robber, (round(rx - lay.size * 0.58 - robber.get_width() / 2),
                              round(ry - robber.get_height() * 0.62)))
        for node, owner, level in view.get("buildings", ()):
            if hide is not None and hide == ("node", node):
                continue
            spr = self._building_sprite(owner_color(owner, players), level, owner_mark(owner))
            x, y = lay.node_xy[node]
            surface.blit(spr, (round(x - spr.get_width() / 2), round(y - spr.get_height() / 2)))

    def draw_piece(self, surface: pygame.Surface, view: dict[str, Any], piece: tuple[str, int],
                   progress: float) -> None:
        """One road (``("edge", e)``) or building (``("node", n)``) of ``view``, appearing:
        ``progress`` 0 → 1 grows it from 40 % with a small overshoot and fades it in
        (nothing is drawn when the view does not hold the piece yet)."""
        lay = self.layout
        if lay is None:
            return
        players = int(view.get("players", 4))
        what, where = piece
        spr: pygame.Surface | None = None
        if what == "edge":
            for edge, owner in view.get("roads", ()):
                if edge == where:
                    spr = self._road_sprite(owner_color(owner, players), lay.edge_angle(edge),
                                            owner_mark(owner))
                    x, y = lay.edge_xy[edge]
        else:
            for node, owner, level in view.get("buildings", ()):
                if node == where:
                    spr = self._building_sprite(owner_color(owner, players), level,
                                                owner_mark(owner))
                    x, y = lay.node_xy[node]
        if spr is None:
            return
        p = max(0.0, min(1.0, progress))
        scale = 0.4 + 0.6 * p + 0.25 * math.sin(math.pi * p)  # overshoots a little
        if p < 1.0:
            w, h = spr.get_size()
            spr = pygame.transform.smoothscale(spr, (max(1, round(w * scale)),
                                                     max(1, round(h * scale))))
            spr.set_alpha(round(255 * min(1.0, 0.25 + p * 1.5)))
        surface.blit(spr, (round(x - spr.get_width() / 2), round(y - spr.get_height() / 2)))

    def draw_robber_flash(self, surface: pygame.Surface, view: dict[str, Any],
                          strength: float) -> None:
        """A glow around the robber (a 7 was rolled); ``strength`` 0 → 1."""
        lay = self.layout
        if lay is None or strength <= 0:
            return
        glow = self._glow_sprite(0.9)
        rx, ry = lay.hex_xy[view["robber"]]
        cx = rx - lay.size * 0.58
        glow = glow.copy()
        glow.set_alpha(round(255 * max(0.0, min(1.0, strength))))
        surface.blit(glow, (round(cx - glow.get_width() / 2), round(ry - glow.get_height() / 2)))
        ring = self._ring_sprite((220, 60, 50), 0.4)
        surface.blit(ring, (round(cx - ring.get_width() / 2), round(ry - ring.get_height() / 2)))
        robber = self._robber_sprite()  # again, over the glow
        surface.blit(robber, (round(cx - robber.get_width() / 2),
                              round(ry - robber.get_height() * 0.62)))

    def hovered(self, hl: Highlights, hover: Point | None) -> tuple[str, int] | None:
        """The highlighted spot under the mouse: ("node"|"edge"|"hex", id)."""
        lay = self.layout
        if lay is None or hover is None:
            return None
        if hl.nodes:
            n = lay.hit_node(hover, hl.nodes)
            if n is not None:
                return ("node", n)
        if hl.edges:
            e = lay.hit_edge(hover, hl.edges)
            if e is not None:
                return ("edge", e)
        if hl.hexes:
            h = lay.hit_hex(hover, hl.hexes)
            if h is not None:
                return ("hex", h)
        return None

    def draw_highlights(self, surface: pygame.Surface, hl: Highlights, hover: Point | None,
                        pulse: float = 0.0) -> None:
        """Light up the legal spots; the one under ``hover`` shows the piece to be placed."""
        lay = self.layout
        assert lay is not None
        under = self.hovered(hl, hover)
        alpha = highlight_alpha(pulse)
        ring = self._ring_sprite(MARK, 0.2)
        ring.set_alpha(alpha)
        for n in hl.nodes:
            if under == ("node", n):
                continue
            x, y = lay.node_xy[n]
            surface.blit(ring, (round(x - ring.get_width() / 2), round(y - ring.get_height() / 2)))
        if hl.edges:
            for e in hl.edges:
                if under == ("edge", e):
                    continue
                spr = self._edge_glow_sprite(MARK, lay.edge_angle(e))
                spr.set_alpha(alpha)
                x, y = lay.edge_xy[e]
                surface.blit(spr, (round(x - spr.get_width() / 2),
                                   round(y - spr.get_height() / 2)))
        if hl.hexes:
            big = self._ring_sprite(MARK, 0.42)
            big.set_alpha(alpha)
            for h in hl.hexes:
                if under == ("hex", h):
                    continue
                x, y = lay.hex_xy[h]
                surface.blit(big, (round(x - big.get_width() / 2), round(y - big.get_height() / 2)))
        if under is None:
            return
        kind, i = under
        if kind == "node":
            x, y = lay.node_xy[i]
            glow = self._glow_sprite(0.3)
            surface.blit(glow, (round(x - glow.get_width() / 2), round(y - glow.get_height() / 2)))
            mark = owner_mark(hl.owner) if hl.owner is not None else None
            spr = self._building_sprite(hl.color, 2 if hl.ghost == "city" else 1, mark)
            surface.blit(spr, (round(x - spr.get_width() / 2), round(y - spr.get_height() / 2)))
        elif kind == "edge":
            x, y = lay.edge_xy[i]
            glow = self._edge_glow_sprite((255, 255, 255), lay.edge_angle(i))
            glow.set_alpha(255)
            surface.blit(glow, (round(x - glow.get_width() / 2), round(y - glow.get_height() / 2)))
            mark = owner_mark(hl.owner) if hl.owner is not None else None
            spr = self._road_sprite(hl.color, lay.edge_angle(i), mark)
            surface.blit(spr, (round(x - spr.get_width() / 2), round(y - spr.get_height() / 2)))
        else:
            x, y = lay.hex_xy[i]
            glow = self._ring_sprite((255, 255, 255), 0.46)
            glow.set_alpha(255)
            surface.blit(glow, (round(x - glow.get_width() / 2), round(y - glow.get_height() / 2)))
            robber = self._robber_sprite()
            surface.blit(robber, (round(x - lay.size * 0.58 - robber.get_width() / 2),
                                  round(y - robber.get_height() * 0.62)))

    # -- sprites (cached per size) ---------------------------------------------------------

    def _sprite(self, key: tuple[Any, ...], make: Callable[[], pygame.Surface]) -> pygame.Surface:
        spr = self._sprites.get(key)
        if spr is None:
            spr = make()
            self._sprites[key] = spr
        return spr

    def _road_sprite(self, color: Color, angle: int, mark: str | None = None) -> pygame.Surface:
        sz = self._size()

        def make() -> pygame.Surface:
            length, thick = sz * 0.66, sz * 0.15
            side = round(length + thick + 4)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                a = math.radians(angle)
                dx, dy = math.cos(a) * length * f / 2, -math.sin(a) * length * f / 2
                thick_line(s, (0, 0, 0, 90), (c - dx + f, c - dy + 2 * f),
                           (c + dx + f, c + dy + 2 * f), thick * f * 1.1)
                thick_line(s, piece_edge(color), (c - dx, c - dy), (c + dx, c + dy), thick * f)
                thick_line(s, color, (c - dx, c - dy), (c + dx, c + dy), thick * f * 0.66)
                hx, hy = -math.sin(a) * thick * f * 0.12, -math.cos(a) * thick * f * 0.12
                thick_line(s, shade(color, 0.35), (c - dx * 0.8 + hx, c - dy * 0.8 + hy),
                           (c + dx * 0.8 + hx, c + dy * 0.8 + hy), thick * f * 0.18)
                if mark is not None:  # the seat's mark, twice along the road
                    for k in (-0.3, 0.3):
                        draw_mark(s, mark, (c + dx * k * 2, c + dy * k * 2), thick * f * 0.42,
                                  mark_on(color), piece_edge(color))

            return supersampled((side, side), draw, 3)

        return self._sprite(("road", color, angle, mark), make)

    def _building_sprite(self, color: Color, level: int,
                         mark: str | None = None) -> pygame.Surface:
        sz = self._size()

        def make() -> pygame.Surface:
            w = sz * (0.38 if level == 1 else 0.54)
            side = round(w * 1.3 + 4)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                W = w * f  # noqa: N806
                if level == 1:
                    pts = [(0.0, -0.55), (0.5, -0.12), (0.5, 0.45), (-0.5, 0.45), (-0.5, -0.12)]
                else:
                    pts = [(-0.5, 0.42), (-0.5, -0.08), (-0.22, -0.3), (0.06, -0.08),
                           (0.06, -0.24), (0.24, -0.54), (0.5, -0.24), (0.5, 0.42)]
                poly = [(c + x * W, c + y * W) for x, y in pts]
                aa_polygon(s, (0, 0, 0, 80), [(x + 1.5 * f, y + 2.5 * f) for x, y in poly])
                aa_polygon(s, piece_edge(color, -0.6), _grow(poly, (c, c), W * 0.07))
                aa_polygon(s, color, poly)
                # a lighter roof / facade side for depth
                if level == 1:
                    roof = [(c, c - 0.55 * W), (c + 0.5 * W, c - 0.12 * W), (c, c - 0.12 * W)]
                    aa_polygon(s, shade(color, 0.3), roof)
                    if mark is not None:
                        draw_mark(s, mark, (c, c + 0.17 * W), 0.17 * W, mark_on(color))
                    else:
                        door = pygame.Rect(0, 0, round(0.16 * W), round(0.26 * W))
                        door.midbottom = (round(c), round(c + 0.45 * W))
                        pygame.draw.rect(s, shade(color, -0.45), door)
                else:
                    aa_polygon(s, shade(color, 0.3), [(c + 0.24 * W, c - 0.54 * W),
                                                      (c + 0.5 * W, c - 0.24 * W),
                                                      (c + 0.24 * W, c - 0.24 * W)])
                    for wx in ((0.28,) if mark is not None else (-0.34, -0.12, 0.28)):
                        win = pygame.Rect(0, 0, round(0.1 * W), round(0.12 * W))
                        win.center = (round(c + wx * W), round(c + 0.1 * W))
                        pygame.draw.rect(s, shade(color, -0.45), win)
                    if mark is not None:
                        draw_mark(s, mark, (c - 0.22 * W, c + 0.14 * W), 0.15 * W,
                                  mark_on(color))

            return supersampled((side, side), draw, 3)

        return self._sprite(("building", color, level, mark), make)

    def _robber_sprite(self) -> pygame.Surface:
        sz = self._size()

        def make() -> pygame.Surface:
            w, h = round(sz * 0.36), round(sz * 0.62)

            def draw(s: pygame.Surface, f: float) -> None:
                W, H = w * f, h * f  # noqa: N806
                body = (52, 52, 58)
                aa_polygon(s, (0, 0, 0, 70), [(W * 0.1, H * 0.98), (W * 0.95, H * 0.98),
                                              (W * 0.85, H * 0.9), (W * 0.2, H * 0.9)])
                aa_polygon(s, body, [(W * 0.5, H * 0.28), (W * 0.9, H * 0.92), (W * 0.1, H * 0.92)])
                aa_circle(s, body, (W * 0.5, H * 0.26), W * 0.28)
                aa_circle(s, (96, 96, 106), (W * 0.42, H * 0.2), W * 0.09)
                pygame.draw.rect(s, body, (W * 0.08, H * 0.86, W * 0.84, H * 0.1),
                                 border_radius=round(W * 0.05))

            return supersampled((w, h), draw, 3)

        return self._sprite(("robber",), make)

    def _ring_sprite(self, color: Color, radius: float) -> pygame.Surface:
        """A ring of ``color`` between two dark rims (so it shows on pale and dark
        ground alike), over a faint disc of the colour."""
        sz = self._size()

        def make() -> pygame.Surface:
            r = sz * radius
            rim, core = _stroke(sz)
            side = round(2 * (r + rim) + 8)

            def draw(s: pygame.Surface, f: float) -> None:
                c = round(side * f / 2)
                aa_circle(s, (*color, 70), (c, c), r * f)
                outer = round((r + rim) * f)
                pygame.draw.circle(s, (*MARK_RIM, 255), (c, c), outer,
                                   max(1, round((2 * rim + core) * f)))
                pygame.draw.circle(s, (*color, 255), (c, c), round(r * f),
                                   max(1, round(core * f)))

            return supersampled((side, side), draw, 3)

        return self._sprite(("ring", color, radius), make)

    def _glow_sprite(self, radius: float) -> pygame.Surface:
        sz = self._size()

        def make() -> pygame.Surface:
            r = sz * radius
            side = round(2 * r + 4)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                for k in range(8, 0, -1):
                    aa_circle(s, (255, 255, 220, 26), (c, c), r * f * k / 8)

            return supersampled((side, side), draw, 2)

        return self._sprite(("glow", radius), make)

    def _edge_glow_sprite(self, color: Color, angle: int) -> pygame.Surface:
        """A lit edge: a band of ``color`` inside a dark rim, a white line down its middle."""
        sz = self._size()

        def make() -> pygame.Surface:
            length = sz * 0.5
            rim, core = _stroke(sz)
            core = max(core, sz * 0.13)
            thick = core + 2 * rim
            side = round(length + thick + 6)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                a = math.radians(angle)
                dx, dy = math.cos(a) * length * f / 2, -math.sin(a) * length * f / 2
                # no anti-aliased edges inside the band (they would let the ground
                # show through on an alpha surface): the downscale smooths them
                _solid_line(s, (*MARK_RIM, 255), (c - dx, c - dy), (c + dx, c + dy), thick * f)
                _solid_line(s, (*color, 255), (c - dx, c - dy), (c + dx, c + dy), core * f)
                _solid_line(s, (255, 255, 255, 255), (c - dx * 0.7, c - dy * 0.7),
                            (c + dx * 0.7, c + dy * 0.7), core * f * 0.3)

            return supersampled((side, side), draw, 3)

        return self._sprite(("edge_glow", color, angle), make)

    def _token_glow_sprite(self) -> pygame.Surface:
        """A soft warm ring around a number token (the hexes that produced)."""
        sz = self._size()

        def make() -> pygame.Surface:
            r0, r1 = sz * 0.3, sz * 0.46
            side = round(2 * r1 + 4)

            def draw(s: pygame.Surface, f: float) -> None:
                c = round(side * f / 2)
                steps = 7
                width = max(1, round((r1 - r0) * f / steps) + 1)
                for k in range(steps):
                    r = (r0 + (r1 - r0) * k / steps) * f
                    alpha = round(210 * (1 - k / steps) ** 1.4)
                    pygame.draw.circle(s, (255, 248, 214, alpha), (c, c), round(r + width), width)
                # a crisp rim, so the glow shows on the pale grain and pasture tiles too
                rim = max(1, round(sz * f * 0.035))
                pygame.draw.circle(s, (120, 84, 20, 150), (c, c), round(r0 * f) + 2 * rim, rim)
                pygame.draw.circle(s, (255, 255, 245, 255), (c, c), round(r0 * f) + rim, rim)

            return supersampled((side, side), draw, 2)

        return self._sprite(("token_glow",), make)

    def _halo_sprite(self) -> pygame.Surface:
        """A soft light under the latest settlement or city, with a thin ring."""
        sz = self._size()

        def make() -> pygame.Surface:
            r = sz * 0.42
            side = round(2 * r + 4)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                for k in range(8, 0, -1):
                    aa_circle(s, (255, 246, 200, 30), (c, c), r * f * k / 8)
                pygame.draw.circle(s, (255, 250, 225, 210), (round(c), round(c)),
                                   round(r * f * 0.9), max(1, round(sz * f * 0.025)))

            return supersampled((side, side), draw, 2)

        return self._sprite(("halo",), make)

    def _edge_halo_sprite(self, angle: int) -> pygame.Surface:
        """A soft light under the latest road."""
        sz = self._size()

        def make() -> pygame.Surface:
            length, thick = sz * 0.62, sz * 0.34
            side = round(length + thick + 6)

            def draw(s: pygame.Surface, f: float) -> None:
                c = side * f / 2
                a = math.radians(angle)
                dx, dy = math.cos(a) * length * f / 2, -math.sin(a) * length * f / 2
                for k in range(6, 0, -1):
                    thick_line(s, (255, 246, 200, 40), (c - dx, c - dy), (c + dx, c + dy),
                               thick * f * k / 6)

            return supersampled((side, side), draw, 2)

        return self._sprite(("edge_halo", angle), make)

    def _size(self) -> float:
        assert self.layout is not None
        return self.layout.size


def _solid_line(surface: pygame.Surface, color: Sequence[int], a: Point, b: Point,
                width: float) -> None:
    """A line of ``width`` with round caps, without anti-aliasing."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * width / 2, dx / length * width / 2
    pygame.draw.polygon(surface, color, [(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny),
                                         (b[0] - nx, b[1] - ny), (a[0] - nx, a[1] - ny)])
    for p in (a, b):
        pygame.draw.circle(surface, color, (round(p[0]), round(p[1])), round(width / 2))


def _grow(poly: Sequence[Point], centre: Point, d: float) -> list[Point]:
    """``poly`` pushed outwards from ``centre`` by about ``d`` (an outline)."""
    out = []
    for x, y in poly:
        vx, vy = x - centre[0], y - centre[1]
        n = math.hypot(vx, vy) or 1.0
        out.append((x + vx / n * d, y + vy / n * d))
    return out


# --- terrain tiles (static layer only) ------------------------------------------------------


def _terrain_tile(terrain: int, sz: float, seed: int) -> pygame.Surface:
    """One terrain hexagon with texture and bevel, ``sz`` circumradius (supersampled units)."""
    w, h = math.ceil(math.sqrt(3) * sz) + 2, math.ceil(2 * sz) + 2
    tile = pygame.Surface((w, h), pygame.SRCALPHA)
    cx, cy = w / 2, h / 2
    base = TERRAIN_COLORS[terrain]
    r = sz * 0.985
    aa_polygon(tile, shade(base, -0.3), hex_points(cx, cy, r))
    aa_polygon(tile, base, hex_points(cx, cy, r * 0.95))
    # soft light from the top-left: a lighter inner hex shifted up-left
    aa_polygon(tile, shade(base, 0.07), [(x - sz * 0.03, y - sz * 0.04)
                                         for x, y in hex_points(cx, cy, r * 0.8)])
    aa_polygon(tile, base, [(x + sz * 0.02, y + sz * 0.03)
                            for x, y in hex_points(cx, cy, r * 0.72)])
    rng = random.Random(terrain * 100 + seed)
    spots = _scatter(rng, cx, cy, sz, 11 if terrain in (0, 4) else 9)
    if terrain == 0:  # forest: little conifers
        for x, y in sorted(spots, key=lambda p: p[1]):
            k = rng.uniform(0.8, 1.15) * sz
            aa_polygon(tile, (46, 82, 40), [(x, y - 0.2 * k), (x + 0.11 * k, y + 0.05 * k),
                                            (x - 0.11 * k, y + 0.05 * k)])
            aa_polygon(tile, (74, 134, 70), [(x, y - 0.17 * k), (x + 0.075 * k, y + 0.0),
                                             (x - 0.075 * k, y)])
            pygame.draw.rect(tile, (96, 64, 40), (x - 0.015 * k, y + 0.05 * k, 0.03 * k, 0.05 * k))
    elif terrain == 1:  # hills: mounds with brick stacks
        for x, y in spots[:6]:
            k = rng.uniform(0.8, 1.1) * sz
            pygame.draw.ellipse(tile, shade(base, -0.18), (x - 0.16 * k, y - 0.06 * k, 0.32 * k,
                                                           0.16 * k))
            for j in range(2):
                pygame.draw.rect(tile, (150, 62, 40),
                                 (x - 0.08 * k + j * 0.085 * k, y - 0.1 * k, 0.075 * k, 0.045 * k))
    elif terrain == 2:  # pasture: grass tufts and a few sheep
        for i, (x, y) in enumerate(spots):
            if i % 3 == 0:
                aa_circle(tile, (250, 250, 244), (x, y), sz * 0.05)
                aa_circle(tile, (60, 50, 46), (x - sz * 0.05, y - sz * 0.01), sz * 0.022)
            else:
                for dx in (-0.03, 0.0, 0.03):
                    pygame.draw.line(tile, shade(base, -0.25), (x + dx * sz, y),
                                     (x + dx * sz * 1.6, y - 0.06 * sz), max(1, round(sz * 0.012)))
    elif terrain == 3:  # fields: rows of grain
        stripe = shade(base, -0.14)
        for k in range(-6, 7):
            off = k * sz * 0.17
            pygame.draw.line(tile, stripe, (cx + off - sz, cy + sz * 0.58),
                             (cx + off + sz * 0.3, cy - sz * 0.75), max(1, round(sz * 0.035)))
    elif terrain == 4:  # mountains: peaks with snow
        for x, y in sorted(spots[:7], key=lambda p: p[1]):
            k = rng.uniform(0.85, 1.2) * sz
            aa_polygon(tile, (96, 98, 110), [(x, y - 0.2 * k), (x + 0.17 * k, y + 0.08 * k),
                                             (x - 0.17 * k, y + 0.08 * k)])
            aa_polygon(tile, (156, 160, 172), [(x, y - 0.2 * k), (x + 0.17 * k, y + 0.08 * k),
                                               (x + 0.02 * k, y + 0.08 * k)])
            aa_polygon(tile, (244, 246, 250), [(x, y - 0.2 * k), (x + 0.055 * k, y - 0.11 * k),
                                               (x - 0.055 * k, y - 0.11 * k)])
    elif terrain == DESERT:  # desert: dunes and a cactus
        for x, y in spots[:6]:
            k = rng.uniform(0.8, 1.2) * sz
            pygame.draw.arc(tile, shade(base, -0.18), (x - 0.15 * k, y - 0.05 * k, 0.3 * k,
                                                       0.14 * k), 0.3, math.pi - 0.3,
                            max(1, round(sz * 0.02)))
        thick_line(tile, (90, 140, 80), (cx, cy + sz * 0.25), (cx, cy - sz * 0.12), sz * 0.06)
        thick_line(tile, (90, 140, 80), (cx - sz * 0.09, cy), (cx - sz * 0.09, cy - sz * 0.08),
                   sz * 0.04)
        thick_line(tile, (90, 140, 80), (cx - sz * 0.09, cy), (cx, cy), sz * 0.04)
        thick_line(tile, (90, 140, 80), (cx + sz * 0.09, cy + sz * 0.06),
                   (cx + sz * 0.09, cy - sz * 0.03), sz * 0.04)
        thick_line(tile, (90, 140, 80), (cx + sz * 0.09, cy + sz * 0.06),
                   (cx, cy + sz * 0.06), sz * 0.04)
    # cut the texture to the hexagon
    mask = pygame.Surface((w, h), pygame.SRCALPHA)
    aa_polygon(mask, (255, 255, 255, 255), hex_points(cx, cy, r))
    tile.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    # re-draw the bevel rim so the cut edge stays crisp
    pts = hex_points(cx, cy, r)
    for i in range(6):  # edge i runs from corner i to i + 1, clockwise from the top
        col = shade(base, 0.22) if i in (4, 5) else shade(base, -0.3) if i in (2, 3) else None
        if col is not None:
            pygame.draw.line(tile, col, pts[i], pts[(i + 1) % 6], max(1, round(sz * 0.03)))
    return tile


def _scatter(rng: random.Random, cx: float, cy: float, sz: float, n: int) -> list[Point]:
    """``n`` points inside the hex, away from the number token in the middle."""
    out: list[Point] = []
    tries = 0
    while len(out) < n and tries < 400:
        tries += 1
        x, y = rng.uniform(-0.75, 0.75) * sz, rng.uniform(-0.72, 0.72) * sz
        if abs(x) > 0.8 * sz * 0.866 or abs(y) + abs(x) * 0.577 > 0.78 * sz:
            continue
        if math.hypot(x, y) < 0.42 * sz:
            continue
        if any(math.hypot(x - ox + cx, y - oy + cy) < 0.2 * sz for ox, oy in out):
            continue
        out.append((cx + x, cy + y))
    return out
