"""Drawing helpers of the table: palette, anti-aliased shapes, icons and caches.

Everything here draws; nothing reads or changes the game. Icons and sprites
are drawn once at a larger size and smooth-scaled down (cheap anti-aliasing)
and cached, so a frame is mostly blits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache

import pygame
import pygame.gfxdraw

Color = tuple[int, int, int]
Point = tuple[float, float]

# --- palette ---------------------------------------------------------------------------

TABLE_BG: Color = (22, 36, 52)  # behind the panels
TABLE_SHADOW: Color = (10, 16, 24)  # the drop shadow of a panel on TABLE_BG
SEA_TOP: Color = (34, 104, 150)
SEA_BOTTOM: Color = (22, 72, 116)
SAND: Color = (224, 204, 150)
SAND_DARK: Color = (186, 160, 104)
INK: Color = (34, 30, 26)
INK_SOFT: Color = (92, 84, 74)
CREAM: Color = (250, 243, 226)
CARD: Color = (255, 250, 238)
CARD_EDGE: Color = (168, 148, 112)
PANEL_BG: Color = (246, 238, 218)
PANEL_DARK: Color = (36, 52, 70)
PANEL_DARK_EDGE: Color = (70, 92, 118)
GOLD: Color = (232, 178, 48)
HIGHLIGHT: Color = (255, 236, 120)
GOOD: Color = (70, 160, 90)
BAD: Color = (200, 70, 60)
RED_NUMBER: Color = (196, 30, 36)
BTN: Color = (58, 98, 146)
BTN_HOVER: Color = (80, 126, 182)
BTN_PRIMARY: Color = (214, 120, 40)
BTN_PRIMARY_HOVER: Color = (236, 144, 60)
BTN_OFF: Color = (134, 138, 146)

TERRAIN_COLORS: tuple[Color, ...] = (
    (58, 120, 64),  # forest
    (194, 104, 62),  # hills
    (146, 196, 96),  # pasture
    (232, 196, 84),  # fields
    (136, 140, 150),  # mountains
    (226, 206, 156),  # desert
)
RESOURCE_COLORS: tuple[Color, ...] = (
    (44, 118, 62),  # lumber
    (196, 88, 50),  # brick
    (128, 194, 84),  # wool
    (236, 192, 58),  # grain
    (112, 118, 134),  # ore
)
DEV_COLORS: tuple[Color, ...] = (
    (150, 60, 60),  # knight
    (120, 90, 60),  # road building
    (70, 130, 80),  # year of plenty
    (110, 70, 140),  # monopoly
    (196, 150, 40),  # victory point
)

COSTS: dict[str, tuple[int, int, int, int, int]] = {
    "road": (1, 1, 0, 0, 0),
    "settlement": (1, 1, 1, 1, 0),
    "city": (0, 0, 0, 2, 3),
    "dev": (0, 0, 1, 1, 1),
}


def shade(c: Color, f: float) -> Color:
    """Lighter (f > 0) or darker (f < 0) version of ``c``."""
    if f >= 0:
        return (int(c[0] + (255 - c[0]) * f), int(c[1] + (255 - c[1]) * f),
                int(c[2] + (255 - c[2]) * f))
    return (int(c[0] * (1 + f)), int(c[1] * (1 + f)), int(c[2] * (1 + f)))


def text_on(c: Color) -> Color:
    """Dark or light text, whichever reads on background ``c``."""
    return INK if (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) > 150 else (250, 250, 250)


# --- anti-aliased primitives -------------------------------------------------------------


def aa_polygon(surface: pygame.Surface, color: Sequence[int], points: Sequence[Point]) -> None:
    pts = [(round(x), round(y)) for x, y in points]
    pygame.gfxdraw.filled_polygon(surface, pts, color)
    pygame.gfxdraw.aapolygon(surface, pts, color)


def aa_circle(surface: pygame.Surface, color: Sequence[int], center: Point, r: float) -> None:
    x, y, rr = round(center[0]), round(center[1]), max(1, round(r))
    pygame.gfxdraw.filled_circle(surface, x, y, rr, color)
    pygame.gfxdraw.aacircle(surface, x, y, rr, color)


def thick_line(surface: pygame.Surface, color: Sequence[int], a: Point, b: Point,
               width: float) -> None:
    """A line of ``width`` as an anti-aliased quad with round caps."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * width / 2, dx / length * width / 2
    aa_polygon(surface, color, [(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny),
                                (b[0] - nx, b[1] - ny), (a[0] - nx, a[1] - ny)])
    aa_circle(surface, color, a, width / 2)
    aa_circle(surface, color, b, width / 2)


def hex_points(cx: float, cy: float, r: float) -> list[Point]:
    """Corners of a pointy-top hexagon, clockwise from the top."""
    return [(cx + r * math.cos(math.radians(-90 + 60 * i)),
             cy + r * math.sin(math.radians(-90 + 60 * i))) for i in range(6)]


def mark_points(shape: str, cx: float, cy: float, r: float) -> list[Point] | None:
    """The outline of a seat mark (:data:`client.palette.MARKS`) of radius ``r``;
    None for the circle (drawn as a circle)."""
    if shape == "triangle":
        return [(cx, cy - r * 1.1), (cx + r * 1.05, cy + r * 0.75), (cx - r * 1.05, cy + r * 0.75)]
    if shape == "square":
        k = r * 0.86
        return [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    if shape == "diamond":
        k = r * 1.2
        return [(cx, cy - k), (cx + k, cy), (cx, cy + k), (cx - k, cy)]
    if shape == "pentagon":
        k = r * 1.08
        return [(cx + k * math.cos(math.radians(-90 + 72 * i)),
                 cy + k * math.sin(math.radians(-90 + 72 * i))) for i in range(5)]
    if shape == "star":  # a five-pointed star
        return [(cx + (r * 1.25 if i % 2 == 0 else r * 0.55) * math.cos(math.radians(-90 + 36 * i)),
                 cy + (r * 1.25 if i % 2 == 0 else r * 0.55) * math.sin(math.radians(-90 + 36 * i)))
                for i in range(10)]
    return None


def draw_mark(surface: pygame.Surface, shape: str, center: Point, r: float,
              color: Sequence[int], edge: Sequence[int] | None = None) -> None:
    """A seat's mark (circle, triangle, square, diamond, pentagon or star),
    ``edge``: an outline."""
    cx, cy = center
    if edge is not None:
        pts = mark_points(shape, cx, cy, r + max(1.0, r * 0.3))
        if pts is None:
            aa_circle(surface, edge, center, r + max(1.0, r * 0.3))
        else:
            aa_polygon(surface, edge, pts)
    pts = mark_points(shape, cx, cy, r)
    if pts is None:
        aa_circle(surface, color, center, r)
    else:
        aa_polygon(surface, color, pts)


def mark_on(c: Color) -> Color:
    """The colour of a mark drawn on a piece of colour ``c``."""
    return (24, 24, 28) if (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) > 140 else (250, 250, 250)


def supersampled(size: tuple[int, int], draw: Callable[[pygame.Surface, float], None],
                 factor: int = 3) -> pygame.Surface:
    """Draw with ``draw(big_surface, factor)`` at ``factor`` times the size and
    smooth-scale down: anti-aliased edges for any shape."""
    w, h = max(1, size[0]), max(1, size[1])
    big = pygame.Surface((w * factor, h * factor), pygame.SRCALPHA)
    draw(big, float(factor))
    return pygame.transform.smoothscale(big, (w, h))


def shadow_rect(surface: pygame.Surface, rect: pygame.Rect, radius: int, offset: int = 3,
                alpha: int = 70) -> None:
    """A soft drop shadow under ``rect``."""
    sh = _shadow(rect.w, rect.h, radius, alpha)
    surface.blit(sh, (rect.x - 4 + offset, rect.y - 4 + offset))


@cache
def _shadow(w: int, h: int, radius: int, alpha: int) -> pygame.Surface:
    pad = 4
    small = pygame.Surface(((w + 2 * pad) // 4 + 1, (h + 2 * pad) // 4 + 1), pygame.SRCALPHA)
    pygame.draw.rect(small, (0, 0, 0, alpha), small.get_rect().inflate(-2, -2),
                     border_radius=max(1, radius // 4))
    return pygame.transform.smoothscale(small, (w + 2 * pad, h + 2 * pad))


def panel(surface: pygame.Surface, rect: pygame.Rect, fill: Color = PANEL_BG,
          edge: Color | None = CARD_EDGE, radius: int = 10, shadow: bool = True,
          width: int = 1, solid_shadow: Color | None = None) -> None:
    """A rounded panel. ``solid_shadow``: a cheap 2 px drop shadow of that colour
    instead of the soft one (for panels on a plain background)."""
    if solid_shadow is not None:
        pygame.draw.rect(surface, solid_shadow, rect.move(0, 2).inflate(2, 0),
                         border_radius=radius)
    elif shadow:
        shadow_rect(surface, rect, radius)
    pygame.draw.rect(surface, fill, rect, border_radius=radius)
    if edge is not None:
        pygame.draw.rect(surface, edge, rect, width, border_radius=radius)


# --- text -------------------------------------------------------------------------------


class TextCache:
    """Rendered lines by (size, bold, text, colour); a frame blits, never renders twice.

    ``seen`` keeps every string ever rendered (tests use it to check what the
    screen could show)."""

    def __init__(self, font: Callable[..., pygame.font.Font], scale: float = 1.0) -> None:
        self._font_fn = font
        self.scale = scale
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}
        self._cache: dict[tuple[int, bool, str, Color], pygame.Surface] = {}
        self.seen: set[str] = set()

    def font(self, size: int, bold: bool = False) -> pygame.font.Font:
        px = max(8, round(size * self.scale))
        key = (px, bold)
        f = self._fonts.get(key)
        if f is None:
            f = self._font_fn(px, bold) if bold else self._font_fn(px)
            self._fonts[key] = f
        return f

    def set_scale(self, scale: float) -> None:
        if abs(scale - self.scale) > 1e-3:
            self.scale = scale
            self._fonts.clear()
            self._cache.clear()

    def render(self, text: str, size: int, color: Color = INK, bold: bool = False
               ) -> pygame.Surface:
        key = (size, bold, text, color)
        img = self._cache.get(key)
        if img is None:
            if len(self._cache) > 4000:
                self._cache.clear()
            self.seen.add(text)
            img = self.font(size, bold).render(text, True, color)
            self._cache[key] = img
        return img

    def draw(self, surface: pygame.Surface, text: str, pos: tuple[float, float], size: int,
             color: Color = INK, bold: bool = False, anchor: str = "topleft") -> pygame.Rect:
        img = self.render(text, size, color, bold)
        rect = img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
        surface.blit(img, rect)
        return rect

    def fit(self, text: str, size: int, width: int, bold: bool = False) -> str:
        """``text`` cut with an ellipsis to fit ``width`` pixels."""
        from .widgets import fit_text

        return fit_text(self.font(size, bold), text, width)

    def wrap(self, text: str, size: int, width: int, bold: bool = False) -> list[str]:
        from .widgets import wrap

        return wrap(self.font(size, bold), text, width)


# --- icons ------------------------------------------------------------------------------


def _icon_lumber(s: pygame.Surface, w: float, col: Color) -> None:
    trunk = shade(col, -0.5)
    pygame.draw.rect(s, (110, 72, 40), (w * 0.44, w * 0.62, w * 0.12, w * 0.26))
    for i, (top, bot, half) in enumerate(((0.10, 0.44, 0.22), (0.26, 0.62, 0.30),
                                          (0.42, 0.74, 0.36))):
        c = shade(col, 0.25 - 0.12 * i)
        aa_polygon(s, trunk, [(w / 2, w * top - 1), (w / 2 + w * half + 1, w * bot + 1),
                              (w / 2 - w * half - 1, w * bot + 1)])
        aa_polygon(s, c, [(w / 2, w * top), (w / 2 + w * half, w * bot),
                          (w / 2 - w * half, w * bot)])


def _icon_brick(s: pygame.Surface, w: float, col: Color) -> None:
    mortar = (236, 222, 200)
    bw, bh = w * 0.34, w * 0.16
    rows = ((0.22, 0.16), (0.40, 0.0), (0.58, 0.16))
    for y, off in rows:
        x = w * 0.08 + off * w
        for _ in range(3 if off else 3):
            if x + bw > w * 0.96:
                break
            r = pygame.Rect(round(x), round(y * w), round(bw - w * 0.03), round(bh))
            pygame.draw.rect(s, shade(col, 0.1), r, border_radius=max(1, round(w * 0.02)))
            pygame.draw.rect(s, mortar, r, max(1, round(w * 0.015)),
                             border_radius=max(1, round(w * 0.02)))
            x += bw
    _ = (col, mortar)


def _icon_wool(s: pygame.Surface, w: float, col: Color) -> None:
    body = (250, 250, 246)
    edge = (160, 160, 150)
    blobs = ((0.36, 0.46, 0.16), (0.52, 0.40, 0.17), (0.66, 0.48, 0.15), (0.46, 0.58, 0.16),
             (0.60, 0.60, 0.15))
    pygame.draw.rect(s, (60, 50, 46), (w * 0.38, w * 0.64, w * 0.06, w * 0.2))
    pygame.draw.rect(s, (60, 50, 46), (w * 0.58, w * 0.64, w * 0.06, w * 0.2))
    for x, y, r in blobs:
        aa_circle(s, edge, (x * w, y * w), r * w + w * 0.02)
    for x, y, r in blobs:
        aa_circle(s, body, (x * w, y * w), r * w)
    aa_polygon(s, (60, 50, 46), [(w * 0.14, w * 0.42), (w * 0.30, w * 0.36),
                                 (w * 0.32, w * 0.52), (w * 0.18, w * 0.56)])
    _ = col


def _icon_grain(s: pygame.Surface, w: float, col: Color) -> None:
    stalk = (150, 110, 30)
    for dx, lean in ((-0.16, -0.08), (0.0, 0.0), (0.16, 0.08)):
        x0 = w * (0.5 + dx)
        thick_line(s, stalk, (x0 - lean * w * 0.5, w * 0.90), (x0 + lean * w, w * 0.30), w * 0.04)
        for k in range(4):
            y = w * (0.18 + 0.12 * k)
            cx = x0 + lean * w * (1 - k * 0.2)
            for side in (-1, 1):
                pts = _ellipse_pts(cx + side * w * 0.045, y, w * 0.05, w * 0.085, side * 25)
                aa_polygon(s, shade(col, -0.15), pts)
        aa_polygon(s, shade(col, -0.1), _ellipse_pts(x0 + lean * w, w * 0.12, w * 0.04, w * 0.08,
                                                     0))


def _ellipse_pts(cx: float, cy: float, rx: float, ry: float, rot_deg: float) -> list[Point]:
    a = math.radians(rot_deg)
    out = []
    for i in range(16):
        t = 2 * math.pi * i / 16
        x, y = rx * math.cos(t), ry * math.sin(t)
        out.append((cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)))
    return out


def _icon_ore(s: pygame.Surface, w: float, col: Color) -> None:
    rock = shade(col, 0.15)
    dark = shade(col, -0.35)
    aa_polygon(s, dark, [(w * 0.10, w * 0.80), (w * 0.36, w * 0.30), (w * 0.52, w * 0.50),
                         (w * 0.66, w * 0.22), (w * 0.92, w * 0.80)])
    aa_polygon(s, rock, [(w * 0.14, w * 0.78), (w * 0.36, w * 0.34), (w * 0.50, w * 0.55),
                         (w * 0.66, w * 0.26), (w * 0.88, w * 0.78)])
    snow = (240, 244, 250)
    aa_polygon(s, snow, [(w * 0.66, w * 0.26), (w * 0.73, w * 0.38), (w * 0.66, w * 0.35),
                         (w * 0.60, w * 0.38)])
    aa_polygon(s, snow, [(w * 0.36, w * 0.34), (w * 0.42, w * 0.44), (w * 0.36, w * 0.42),
                         (w * 0.31, w * 0.44)])


_RESOURCE_ICONS = (_icon_lumber, _icon_brick, _icon_wool, _icon_grain, _icon_ore)


@cache
def resource_icon(res: int, px: int) -> pygame.Surface:
    """A pictogram of resource ``res`` (transparent background), ``px`` square."""
    col = RESOURCE_COLORS[res]
    return supersampled((px, px), lambda s, f: _RESOURCE_ICONS[res](s, px * f, col), 4)


@cache
def resource_chip(res: int, px: int) -> pygame.Surface:
    """A small rounded tile of the resource's colour with its pictogram (costs, bank)."""
    col = RESOURCE_COLORS[res]

    def draw(s: pygame.Surface, f: float) -> None:
        w = px * f
        pygame.draw.rect(s, shade(col, -0.35), (0, 0, w, w), border_radius=round(w * 0.22))
        pygame.draw.rect(s, shade(col, 0.55), (w * 0.06, w * 0.06, w * 0.88, w * 0.88),
                         border_radius=round(w * 0.18))
        icon = pygame.Surface((round(w * 0.84), round(w * 0.84)), pygame.SRCALPHA)
        _RESOURCE_ICONS[res](icon, w * 0.84, col)
        s.blit(icon, (w * 0.08, w * 0.08))

    return supersampled((px, px), draw, 4)


def _icon_knight(s: pygame.Surface, w: float, col: Color) -> None:
    aa_polygon(s, shade(col, -0.3), [(w * 0.2, w * 0.18), (w * 0.8, w * 0.18), (w * 0.8, w * 0.5),
                                     (w * 0.5, w * 0.9), (w * 0.2, w * 0.5)])
    aa_polygon(s, shade(col, 0.2), [(w * 0.26, w * 0.24), (w * 0.74, w * 0.24), (w * 0.74, w * 0.5),
                                    (w * 0.5, w * 0.82), (w * 0.26, w * 0.5)])
    thick_line(s, (250, 240, 220), (w * 0.5, w * 0.3), (w * 0.5, w * 0.7), w * 0.07)
    thick_line(s, (250, 240, 220), (w * 0.36, w * 0.44), (w * 0.64, w * 0.44), w * 0.07)


def _icon_road_building(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, shade(col, -0.3), (w * 0.18, w * 0.78), (w * 0.5, w * 0.22), w * 0.16)
    thick_line(s, shade(col, 0.35), (w * 0.18, w * 0.78), (w * 0.5, w * 0.22), w * 0.10)
    thick_line(s, shade(col, -0.3), (w * 0.5, w * 0.22), (w * 0.82, w * 0.78), w * 0.16)
    thick_line(s, shade(col, 0.35), (w * 0.5, w * 0.22), (w * 0.82, w * 0.78), w * 0.10)


def _icon_plenty(s: pygame.Surface, w: float, col: Color) -> None:
    for i, res in enumerate((3, 0)):
        x = w * (0.16 + 0.30 * i)
        r = pygame.Rect(round(x), round(w * (0.16 + 0.12 * i)), round(w * 0.42), round(w * 0.6))
        pygame.draw.rect(s, shade(RESOURCE_COLORS[res], -0.3), r, border_radius=round(w * 0.06))
        pygame.draw.rect(s, shade(RESOURCE_COLORS[res], 0.3), r.inflate(-w * 0.08, -w * 0.08),
                         border_radius=round(w * 0.05))
    thick_line(s, (255, 255, 255), (w * 0.72, w * 0.12), (w * 0.72, w * 0.36), w * 0.07)
    thick_line(s, (255, 255, 255), (w * 0.60, w * 0.24), (w * 0.84, w * 0.24), w * 0.07)
    _ = col


def _icon_monopoly(s: pygame.Surface, w: float, col: Color) -> None:
    base = shade(col, 0.1)
    dark = shade(col, -0.35)
    aa_polygon(s, dark, [(w * 0.14, w * 0.74), (w * 0.14, w * 0.30), (w * 0.32, w * 0.50),
                         (w * 0.5, w * 0.22), (w * 0.68, w * 0.50), (w * 0.86, w * 0.30),
                         (w * 0.86, w * 0.74)])
    aa_polygon(s, base, [(w * 0.19, w * 0.70), (w * 0.19, w * 0.40), (w * 0.32, w * 0.56),
                         (w * 0.5, w * 0.32), (w * 0.68, w * 0.56), (w * 0.81, w * 0.40),
                         (w * 0.81, w * 0.70)])
    for x in (0.14, 0.5, 0.86):
        aa_circle(s, GOLD, (w * x, w * (0.27 if x != 0.5 else 0.19)), w * 0.06)


def _icon_vp(s: pygame.Surface, w: float, col: Color) -> None:
    pts = []
    for i in range(10):
        r = w * (0.40 if i % 2 == 0 else 0.17)
        a = math.radians(-90 + 36 * i)
        pts.append((w / 2 + r * math.cos(a), w * 0.53 + r * math.sin(a)))
    aa_polygon(s, shade(col, -0.35), [(x + w * 0.015, y + w * 0.02) for x, y in pts])
    aa_polygon(s, shade(col, 0.25), pts)


_DEV_ICONS = (_icon_knight, _icon_road_building, _icon_plenty, _icon_monopoly, _icon_vp)


@cache
def dev_icon(card: int, px: int) -> pygame.Surface:
    col = DEV_COLORS[card]
    return supersampled((px, px), lambda s, f: _DEV_ICONS[card](s, px * f, col), 4)


def _glyph_cards(s: pygame.Surface, w: float, col: Color) -> None:
    for i in range(2):
        r = pygame.Rect(round(w * (0.14 + 0.22 * i)), round(w * (0.14 + 0.08 * (1 - i))),
                        round(w * 0.5), round(w * 0.7))
        pygame.draw.rect(s, shade(col, -0.4), r, border_radius=round(w * 0.08))
        pygame.draw.rect(s, (252, 248, 236), r.inflate(-w * 0.1, -w * 0.1),
                         border_radius=round(w * 0.06))


def _glyph_dev(s: pygame.Surface, w: float, col: Color) -> None:
    for i in range(2):
        r = pygame.Rect(round(w * (0.14 + 0.22 * i)), round(w * (0.14 + 0.08 * (1 - i))),
                        round(w * 0.5), round(w * 0.7))
        pygame.draw.rect(s, (40, 40, 70), r, border_radius=round(w * 0.08))
        pygame.draw.rect(s, (96, 80, 150), r.inflate(-w * 0.1, -w * 0.1),
                         border_radius=round(w * 0.06))
    _ = col


def _glyph_road(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, shade(col, -0.4), (w * 0.15, w * 0.8), (w * 0.85, w * 0.2), w * 0.24)
    thick_line(s, col, (w * 0.15, w * 0.8), (w * 0.85, w * 0.2), w * 0.15)


def _glyph_house(s: pygame.Surface, w: float, col: Color) -> None:
    pts = [(w * 0.5, w * 0.12), (w * 0.88, w * 0.44), (w * 0.88, w * 0.88), (w * 0.12, w * 0.88),
           (w * 0.12, w * 0.44)]
    aa_polygon(s, shade(col, -0.5), pts)
    inner = [(w * 0.5, w * 0.2), (w * 0.8, w * 0.47), (w * 0.8, w * 0.8), (w * 0.2, w * 0.8),
             (w * 0.2, w * 0.47)]
    aa_polygon(s, col, inner)


def _glyph_city(s: pygame.Surface, w: float, col: Color) -> None:
    pts = [(w * 0.08, w * 0.9), (w * 0.08, w * 0.5), (w * 0.3, w * 0.3), (w * 0.52, w * 0.5),
           (w * 0.52, w * 0.36), (w * 0.66, w * 0.14), (w * 0.92, w * 0.36), (w * 0.92, w * 0.9)]
    aa_polygon(s, shade(col, -0.5), pts)
    inner = [(w * 0.15, w * 0.83), (w * 0.15, w * 0.53), (w * 0.3, w * 0.39), (w * 0.45, w * 0.53),
             (w * 0.59, w * 0.53), (w * 0.59, w * 0.39), (w * 0.66, w * 0.25), (w * 0.85, w * 0.4),
             (w * 0.85, w * 0.83)]
    aa_polygon(s, col, inner)


def _glyph_dice(s: pygame.Surface, w: float, col: Color) -> None:
    r = pygame.Rect(round(w * 0.1), round(w * 0.1), round(w * 0.8), round(w * 0.8))
    pygame.draw.rect(s, shade(col, -0.5), r, border_radius=round(w * 0.16))
    pygame.draw.rect(s, (252, 250, 244), r.inflate(-w * 0.1, -w * 0.1),
                     border_radius=round(w * 0.12))
    for x, y in ((0.32, 0.32), (0.5, 0.5), (0.68, 0.68)):
        aa_circle(s, INK, (w * x, w * y), w * 0.07)


def _glyph_trade(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, col, (w * 0.15, w * 0.35), (w * 0.8, w * 0.35), w * 0.1)
    aa_polygon(s, col, [(w * 0.9, w * 0.35), (w * 0.7, w * 0.18), (w * 0.7, w * 0.52)])
    thick_line(s, col, (w * 0.85, w * 0.68), (w * 0.2, w * 0.68), w * 0.1)
    aa_polygon(s, col, [(w * 0.1, w * 0.68), (w * 0.3, w * 0.51), (w * 0.3, w * 0.85)])


def _glyph_anchor(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, col, (w * 0.5, w * 0.2), (w * 0.5, w * 0.85), w * 0.1)
    thick_line(s, col, (w * 0.3, w * 0.32), (w * 0.7, w * 0.32), w * 0.09)
    pygame.draw.circle(s, col, (round(w * 0.5), round(w * 0.14)), round(w * 0.08),
                       max(1, round(w * 0.05)))
    pygame.draw.arc(s, col, (w * 0.16, w * 0.4, w * 0.68, w * 0.5), math.pi * 1.05,
                    math.pi * 1.95, max(1, round(w * 0.09)))


def _glyph_flag(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, col, (w * 0.25, w * 0.12), (w * 0.25, w * 0.9), w * 0.08)
    aa_polygon(s, col, [(w * 0.28, w * 0.14), (w * 0.82, w * 0.3), (w * 0.28, w * 0.48)])


def _glyph_token(s: pygame.Surface, w: float, col: Color) -> None:
    aa_circle(s, shade(col, -0.4), (w / 2, w / 2), w * 0.42)
    aa_circle(s, col, (w / 2, w / 2), w * 0.34)
    aa_circle(s, shade(col, 0.4), (w / 2, w / 2), w * 0.16)


def _glyph_sword(s: pygame.Surface, w: float, col: Color) -> None:
    thick_line(s, col, (w * 0.2, w * 0.8), (w * 0.78, w * 0.22), w * 0.1)
    thick_line(s, col, (w * 0.22, w * 0.56), (w * 0.44, w * 0.78), w * 0.1)


def _glyph_bot(s: pygame.Surface, w: float, col: Color) -> None:
    r = pygame.Rect(round(w * 0.18), round(w * 0.3), round(w * 0.64), round(w * 0.52))
    pygame.draw.rect(s, col, r, border_radius=round(w * 0.12))
    aa_circle(s, (255, 255, 255), (w * 0.38, w * 0.54), w * 0.08)
    aa_circle(s, (255, 255, 255), (w * 0.62, w * 0.54), w * 0.08)
    thick_line(s, col, (w * 0.5, w * 0.3), (w * 0.5, w * 0.14), w * 0.06)
    aa_circle(s, col, (w * 0.5, w * 0.12), w * 0.07)


def _glyph_clock(s: pygame.Surface, w: float, col: Color) -> None:
    aa_circle(s, col, (w / 2, w / 2), w * 0.42)
    aa_circle(s, (255, 255, 255), (w / 2, w / 2), w * 0.34)
    thick_line(s, col, (w / 2, w / 2), (w / 2, w * 0.24), w * 0.07)
    thick_line(s, col, (w / 2, w / 2), (w * 0.7, w * 0.58), w * 0.07)


def _tri(s: pygame.Surface, w: float, col: Color, x0: float, x1: float) -> None:
    """A play triangle pointing right (x0 < x1) or left (x0 > x1)."""
    aa_polygon(s, col, [(w * x0, w * 0.22), (w * x1, w * 0.5), (w * x0, w * 0.78)])


def _bar(s: pygame.Surface, w: float, col: Color, x: float) -> None:
    pygame.draw.rect(s, col, (round(w * x), round(w * 0.22), max(1, round(w * 0.1)),
                              round(w * 0.56)))


def _glyph_play(s: pygame.Surface, w: float, col: Color) -> None:
    _tri(s, w, col, 0.3, 0.78)


def _glyph_pause(s: pygame.Surface, w: float, col: Color) -> None:
    pygame.draw.rect(s, col, (round(w * 0.28), round(w * 0.22), round(w * 0.15), round(w * 0.56)))
    pygame.draw.rect(s, col, (round(w * 0.57), round(w * 0.22), round(w * 0.15), round(w * 0.56)))


def _glyph_next(s: pygame.Surface, w: float, col: Color) -> None:
    _tri(s, w, col, 0.22, 0.66)
    _bar(s, w, col, 0.68)


def _glyph_prev(s: pygame.Surface, w: float, col: Color) -> None:
    _tri(s, w, col, 0.78, 0.34)
    _bar(s, w, col, 0.22)


def _glyph_last(s: pygame.Surface, w: float, col: Color) -> None:
    _tri(s, w, col, 0.12, 0.46)
    _tri(s, w, col, 0.42, 0.76)
    _bar(s, w, col, 0.78)


def _glyph_first(s: pygame.Surface, w: float, col: Color) -> None:
    _tri(s, w, col, 0.88, 0.54)
    _tri(s, w, col, 0.58, 0.24)
    _bar(s, w, col, 0.12)


_GLYPHS: dict[str, Callable[[pygame.Surface, float, Color], None]] = {
    "cards": _glyph_cards, "dev": _glyph_dev, "road": _glyph_road, "settlement": _glyph_house,
    "city": _glyph_city, "dice": _glyph_dice, "trade": _glyph_trade, "bank": _glyph_anchor,
    "flag": _glyph_flag, "token": _glyph_token, "knight": _glyph_sword, "bot": _glyph_bot,
    "clock": _glyph_clock, "play": _glyph_play, "pause": _glyph_pause, "next": _glyph_next,
    "prev": _glyph_prev, "first": _glyph_first, "last": _glyph_last,
}


@cache
def glyph(name: str, px: int, color: Color = INK) -> pygame.Surface:
    """Small UI pictograms: cards, dev, road, settlement, city, dice, trade, bank, ..."""
    fn = _GLYPHS[name]
    return supersampled((px, px), lambda s, f: fn(s, px * f, color), 4)


@cache
def die_face(value: int, px: int) -> pygame.Surface:
    """A die showing ``value`` (1–6)."""

    def draw(s: pygame.Surface, f: float) -> None:
        w = px * f
        pygame.draw.rect(s, (60, 50, 40), (0, 0, w, w), border_radius=round(w * 0.2))
        pygame.draw.rect(s, (252, 248, 238), (w * 0.05, w * 0.04, w * 0.9, w * 0.88),
                         border_radius=round(w * 0.17))
        spots = {1: [(0.5, 0.5)], 2: [(0.28, 0.28), (0.72, 0.72)],
                 3: [(0.26, 0.26), (0.5, 0.5), (0.74, 0.74)],
                 4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
                 5: [(0.26, 0.26), (0.74, 0.26), (0.5, 0.5), (0.26, 0.74), (0.74, 0.74)],
                 6: [(0.28, 0.24), (0.72, 0.24), (0.28, 0.5), (0.72, 0.5), (0.28, 0.76),
                     (0.72, 0.76)]}[max(1, min(6, value))]
        for x, y in spots:
            aa_circle(s, RED_NUMBER if value == 1 else INK, (w * x, w * y), w * 0.085)

    return supersampled((px, px), draw, 3)
