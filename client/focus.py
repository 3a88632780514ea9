"""Keyboard focus: every choice on the table and in its dialogs is a stop that
Tab, Shift+Tab and the arrow keys move between, and Enter or Space choose.

A scene lists its stops (:class:`Stop`: a stable key, where it is, what
choosing it does) in reading order each time it is asked; :class:`FocusRing`
remembers the focused stop by its key, so the focus survives the list being
built again (and is simply gone when that choice is). The ring is drawn only
after a focus key was pressed, and hides again on a mouse click.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import pygame

RING_DARK = (16, 16, 20)
RING_LIGHT = (255, 214, 0)


@dataclass(frozen=True)
class Stop:
    key: Hashable
    rect: pygame.Rect
    choose: Callable[[], object]
    round: bool = False  # drawn as a circle (a spot on the board)
    adjust: Callable[[int], object] | None = None  # ← / → (or ↑ / ↓: ``vertical``) change it
    vertical: bool = False


class FocusRing:
    """Which stop has the keyboard focus (see the module docstring)."""

    def __init__(self) -> None:
        self.key: Hashable | None = None
        self.visible = False

    def current(self, stops: Sequence[Stop]) -> Stop | None:
        if self.key is None:
            return None
        for stop in stops:
            if stop.key == self.key:
                return stop
        return None

    def index(self, stops: Sequence[Stop]) -> int | None:
        for i, stop in enumerate(stops):
            if stop.key == self.key:
                return i
        return None

    def step(self, stops: Sequence[Stop], delta: int) -> Stop | None:
        """Tab (+1) or Shift+Tab (-1): the next stop in reading order, round."""
        if not stops:
            return None
        here = self.index(stops)
        start = 0 if delta > 0 else len(stops) - 1
        i = start if here is None else (here + delta) % len(stops)
        self.key = stops[i].key
        self.visible = True
        return stops[i]

    def toward(self, stops: Sequence[Stop], dx: int, dy: int) -> Stop | None:
        """An arrow key: the nearest stop in that direction (within 60 degrees of it)."""
        here = self.current(stops)
        if here is None:
            return self.step(stops, 1)
        cx, cy = here.rect.center
        best, best_score = None, math.inf
        for stop in stops:
            if stop.key == here.key:
                continue
            vx, vy = stop.rect.centerx - cx, stop.rect.centery - cy
            along = vx * dx + vy * dy
            if along <= 0:
                continue
            across = abs(vx * dy - vy * dx)
            if across > along * math.tan(math.radians(60)):
                continue
            score = along + 2.5 * across
            if score < best_score:
                best, best_score = stop, score
        if best is not None:
            self.key = best.key
        self.visible = True
        return best if best is not None else here

    def choose(self, stops: Sequence[Stop]) -> bool:
        """Enter / Space: choose the focused stop (False: no focus shown)."""
        stop = self.current(stops) if self.visible else None
        if stop is None:
            return False
        stop.choose()
        return True

    def handle(self, event: pygame.event.Event, stops: Sequence[Stop],
               enter: bool = True) -> bool:
        """Tab, Shift+Tab, the arrows, and (``enter``) Enter and Space; True when used.
        A mouse click hides the ring."""
        if event.type == pygame.MOUSEBUTTONDOWN:
            self.visible = False
            return False
        if event.type != pygame.KEYDOWN:
            return False
        key = event.key
        if key == pygame.K_TAB:
            back = bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT)
            self.step(stops, -1 if back else 1)
            return True
        arrows = {pygame.K_LEFT: (-1, 0), pygame.K_RIGHT: (1, 0), pygame.K_UP: (0, -1),
                  pygame.K_DOWN: (0, 1)}
        if key in arrows and not getattr(event, "mod", 0) & (pygame.KMOD_CTRL | pygame.KMOD_ALT):
            dx, dy = arrows[key]
            here = self.current(stops) if self.visible else None
            if here is not None and here.adjust is not None and (dy if here.vertical else dx):
                here.adjust(dy if here.vertical else dx)  # a value or a list row, not the focus
                return True
            self.toward(stops, dx, dy)
            return True
        if enter and key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            return self.choose(stops)
        return False

    def draw(self, surface: pygame.Surface, stops: Sequence[Stop], scale: float = 1.0) -> None:
        """The ring around the focused stop: dark outside, yellow inside (it shows on
        light and dark backgrounds alike)."""
        stop = self.current(stops) if self.visible else None
        if stop is None:
            return
        pad = max(3, round(4 * scale))
        width = max(2, round(2 * scale))
        if stop.round:
            r = max(stop.rect.w, stop.rect.h) // 2 + pad
            pygame.draw.circle(surface, RING_DARK, stop.rect.center, r + width, 2 * width)
            pygame.draw.circle(surface, RING_LIGHT, stop.rect.center, r, width)
            return
        outer = stop.rect.inflate(2 * pad + 2 * width, 2 * pad + 2 * width)
        radius = max(4, round(9 * scale))
        pygame.draw.rect(surface, RING_DARK, outer, 2 * width, border_radius=radius + width)
        pygame.draw.rect(surface, RING_LIGHT, outer.inflate(-2 * width, -2 * width), width,
                         border_radius=radius)


def widget_stops(widgets: Iterable[Any]) -> list[Stop]:
    """Stops for the lobby's widgets (:mod:`client.widgets`): a button or a checkbox
    is clicked; a selector or stepper steps (← / → too); a language switch takes the
    next language; a list moves its selection with ↑ / ↓ and Enter opens the row; a
    text field takes the typing."""
    from .widgets import ListView, Segmented, Selector, TextInput

    out: list[Stop] = []
    for w in widgets:
        rect = getattr(w, "rect", None)
        if rect is None or rect.w <= 0 or not getattr(w, "enabled", True):
            continue
        key = ("widget", type(w).__name__, tuple(rect))  # (rebuilt widgets keep their place)
        if isinstance(w, Selector):
            out.append(Stop(key, w.rect, partial(w.step, 1), adjust=w.step))
        elif isinstance(w, ListView):
            if w.items:
                out.append(Stop(key, w.rect, partial(_open_row, w),
                                adjust=partial(_move_row, w), vertical=True))
        elif isinstance(w, Segmented):
            out.append(Stop(key, w.rect, partial(_next_segment, w, 1),
                            adjust=partial(_next_segment, w)))
        elif isinstance(w, TextInput):
            out.append(Stop(key, w.rect, partial(w.focus, True)))
        else:  # a button, a checkbox: a click in its middle
            event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=w.rect.center, button=1)
            out.append(Stop(key, w.rect, partial(w.handle, event)))
    return out


def _move_row(view: Any, delta: int) -> None:
    n = len(view.items)
    if not n:
        return
    view.selected = 0 if view.selected is None else max(0, min(n - 1, view.selected + delta))
    if view.on_select is not None:
        view.on_select(view.selected)


def _open_row(view: Any) -> None:
    if view.selected is None:
        _move_row(view, 1)
    elif view.on_activate is not None:
        view.on_activate(view.selected)


def _next_segment(seg: Any, delta: int) -> None:
    values = [v for v, _ in seg.options]
    i = (values.index(seg.value) + delta) % len(values) if seg.value in values else 0
    if values[i] != seg.value:
        seg.value = values[i]
        if seg.on_change is not None:
            seg.on_change(seg.value)


def reading_order(stops: list[Stop]) -> list[Stop]:
    """Top to bottom, then left to right (rows a few pixels apart count as one)."""
    return sorted(stops, key=lambda s: (s.rect.centery // 12, s.rect.centerx))
