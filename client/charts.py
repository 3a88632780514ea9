"""Small charts for the end-of-game statistics: points over time and the dice.

Drawing only (pygame); the numbers come from :mod:`client.stats`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from .stats import expected_rolls
from .table_gfx import (
    CARD,
    CARD_EDGE,
    GOLD,
    INK,
    INK_SOFT,
    RED_NUMBER,
    Color,
    TextCache,
    draw_mark,
    mark_on,
    shade,
    thick_line,
)

GRID: Color = (226, 216, 194)


def line_chart(surface: pygame.Surface, rect: pygame.Rect, text: TextCache, px: float,
               series: Sequence[Sequence[tuple[int, int]]], colors: Sequence[Color],
               marks: Sequence[str | None], target: int | None = None,
               x_label: str = "") -> None:
    """Lines of (x, y) points, one per series, on a grid; ``target``: a dashed line."""
    pygame.draw.rect(surface, CARD, rect, border_radius=round(8 * px))
    pygame.draw.rect(surface, CARD_EDGE, rect, 1, border_radius=round(8 * px))
    pts = [p for s in series for p in s]
    if not pts:
        return
    x0 = min(x for x, _ in pts)
    x1 = max(max(x for x, _ in pts), x0 + 1)
    top = max(max(y for _, y in pts), target or 0, 1)
    top = top + (top % 2)
    inner = pygame.Rect(rect.x + round(34 * px), rect.y + round(12 * px),
                        rect.w - round(48 * px), rect.h - round(40 * px))

    def at(x: float, y: float) -> tuple[float, float]:
        return (inner.x + (x - x0) / (x1 - x0) * inner.w, inner.bottom - y / top * inner.h)

    step = 2 if top <= 12 else 5
    for y in range(0, top + 1, step):
        _, yy = at(x0, y)
        pygame.draw.line(surface, GRID, (inner.x, round(yy)), (inner.right, round(yy)))
        text.draw(surface, str(y), (inner.x - round(6 * px), yy), 10, INK_SOFT, False,
                  "midright")
    if target:
        _, yy = at(x0, target)
        dash = round(8 * px)
        for x in range(inner.x, inner.right, 2 * dash):
            pygame.draw.line(surface, GOLD, (x, round(yy)), (min(inner.right, x + dash),
                                                             round(yy)), max(2, round(2 * px)))
    label = text.render(x_label, 10, INK_SOFT) if x_label else None
    room = inner.right - (label.get_width() + round(24 * px) if label is not None else 0)
    for x in _ticks(x0, x1, max(2, inner.w // round(60 * px))):
        xx, _ = at(x, 0)
        if xx <= room:
            text.draw(surface, str(x), (xx, inner.bottom + round(4 * px)), 10, INK_SOFT, False,
                      "midtop")
    if label is not None:
        surface.blit(label, (inner.right - label.get_width(), inner.bottom + round(4 * px)))
    width = max(2.0, 3 * px)
    n = len(series)
    for k, (s, col) in enumerate(zip(series, colors, strict=True)):
        # seats level on points would hide each other: a small offset each
        off = (k - (n - 1) / 2) * max(1.0, 1.6 * px)
        line = [(at(x, y)[0], at(x, y)[1] + off) for x, y in _steps(s)]
        light = 0.299 * col[0] + 0.587 * col[1] + 0.114 * col[2] > 170
        edge = (70, 70, 76) if light else shade(col, -0.5) if sum(col) > 150 \
            else (200, 200, 204)
        for a, b in zip(line, line[1:], strict=False):
            thick_line(surface, edge, a, b, width + (3 if light else 2))
        for a, b in zip(line, line[1:], strict=False):
            thick_line(surface, col, a, b, width)
        if line:
            end = line[-1]
            mark = marks[k]
            draw_mark(surface, mark or "circle", end, 5 * px, col, edge)
            if mark:
                draw_mark(surface, mark, end, 2.4 * px, mark_on(col))


def _steps(points: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Points joined as steps (points change at a turn, not between turns)."""
    out: list[tuple[int, int]] = []
    for x, y in points:
        if out and out[-1][1] != y:
            out.append((x, out[-1][1]))
        out.append((x, y))
    return out


def _ticks(x0: int, x1: int, most: int) -> list[int]:
    span = x1 - x0
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500):
        if span / step <= most:
            break
    first = -(-x0 // step) * step
    return list(range(first, x1 + 1, step))


def dice_chart(surface: pygame.Surface, rect: pygame.Rect, text: TextCache, px: float,
               counts: Sequence[int], expected_label: str) -> None:
    """How often each total was rolled (bars) against the odds (gold ticks)."""
    pygame.draw.rect(surface, CARD, rect, border_radius=round(8 * px))
    pygame.draw.rect(surface, CARD_EDGE, rect, 1, border_radius=round(8 * px))
    rolls = sum(counts[2:13])
    inner = pygame.Rect(rect.x + round(12 * px), rect.y + round(22 * px),
                        rect.w - round(24 * px), rect.h - round(44 * px))
    top = max(1.0, max(counts[2:13]), max(expected_rolls(t, rolls) for t in range(2, 13)))
    bw = inner.w / 11
    for i, total in enumerate(range(2, 13)):
        x = inner.x + i * bw
        n = counts[total]
        h = n / top * inner.h
        col = RED_NUMBER if total in (6, 8) else (60, 60, 66) if total == 7 else (84, 110, 150)
        if h:
            pygame.draw.rect(surface, col, (round(x + bw * 0.2), round(inner.bottom - h),
                                            round(bw * 0.6), round(h)),
                             border_radius=round(2 * px))
        text.draw(surface, str(n), (x + bw / 2, inner.bottom - h - round(1 * px)), 10, INK_SOFT,
                  False, "midbottom")
        e = expected_rolls(total, rolls) / top * inner.h
        ey = round(inner.bottom - e)
        pygame.draw.line(surface, GOLD, (round(x + bw * 0.08), ey), (round(x + bw * 0.92), ey),
                         max(2, round(3 * px)))
        text.draw(surface, str(total), (x + bw / 2, inner.bottom + round(3 * px)), 11,
                  RED_NUMBER if total in (6, 8) else INK, True, "midtop")
    # the legend: what the gold ticks are
    lx = rect.right - round(12 * px)
    label = text.render(expected_label, 10, INK_SOFT)
    surface.blit(label, (lx - label.get_width(), rect.y + round(5 * px)))
    pygame.draw.line(surface, GOLD, (lx - label.get_width() - round(26 * px),
                                     rect.y + round(5 * px) + label.get_height() // 2),
                     (lx - label.get_width() - round(6 * px),
                      rect.y + round(5 * px) + label.get_height() // 2), max(2, round(3 * px)))
