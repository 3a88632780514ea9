"""Celebration toasts over the island: Longest Road and Largest Army changing
hands, and the win (with confetti).

The table scene starts one for each such event that arrives as news (never
for the history a join or reconnect brings). A cheer slides in, stays a few
seconds and fades; while any runs the scene asks for frames, afterwards it
asks for none.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import pygame

from .table_gfx import Color, TextCache, shade

CHEER_SECONDS = 3.2
WIN_SECONDS = 2.8
"""How long the win is celebrated on the board before the final scores open."""
CONFETTI = ((230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (213, 94, 0),
            (204, 121, 167), (250, 250, 250))


@dataclass
class Cheer:
    text: str
    color: Color
    kind: str  # longest_road, largest_army, win
    seconds: float = CHEER_SECONDS
    left: float = CHEER_SECONDS
    confetti: list[tuple[float, float, float, float, int]] = field(default_factory=list)


class Celebrations:
    """The cheers on screen."""

    def __init__(self) -> None:
        self.cheers: list[Cheer] = []
        self.shown: list[str] = []  # every text ever started (tests read it)
        self._rng = random.Random(17)

    @property
    def running(self) -> bool:
        return bool(self.cheers)

    def start(self, text: str, color: Color, kind: str) -> Cheer:
        seconds = WIN_SECONDS if kind == "win" else CHEER_SECONDS
        cheer = Cheer(text, color, kind, seconds, seconds)
        if kind == "win":  # (x, y-delay, speed, sway phase, colour) per scrap
            cheer.confetti = [(self._rng.random(), self._rng.uniform(0, 0.6),
                               self._rng.uniform(0.5, 1.0), self._rng.uniform(0, 6.3),
                               self._rng.randrange(len(CONFETTI))) for _ in range(90)]
        self.cheers = [c for c in self.cheers if c.kind != kind] + [cheer]
        del self.cheers[:-3]
        self.shown.append(text)
        return cheer

    def update(self, dt: float) -> None:
        for c in self.cheers:
            c.left -= dt
        self.cheers = [c for c in self.cheers if c.left > 0]

    def clear(self) -> None:
        self.cheers = []

    def draw(self, surface: pygame.Surface, area: pygame.Rect, text: TextCache,
             px: float) -> None:
        """Draw the cheers in ``area`` (the island); ``px``: the UI scale."""
        y = area.y + round(area.h * 0.3)
        for c in self.cheers:
            age = c.seconds - c.left
            if c.confetti:
                self._confetti(surface, area, c, age, px)
            appear = min(1.0, age / 0.25)
            fade = min(1.0, c.left / 0.5)
            alpha = round(255 * min(appear, fade))
            size = 30 if c.kind == "win" else 22
            img = text.render(c.text, size, (255, 255, 255), True)
            pad_x, pad_y = round(28 * px), round(12 * px)
            box = pygame.Rect(0, 0, img.get_width() + 2 * pad_x, img.get_height() + 2 * pad_y)
            slide = round((1 - appear) ** 2 * 40 * px)
            box.center = (area.centerx, y - slide)
            plate = pygame.Surface(box.size, pygame.SRCALPHA)
            pygame.draw.rect(plate, (*shade(c.color, -0.35), 235), plate.get_rect(),
                             border_radius=box.h // 2)
            pygame.draw.rect(plate, (*c.color, 255), plate.get_rect().inflate(-6, -6),
                             border_radius=box.h // 2)
            pygame.draw.rect(plate, (255, 236, 150, 255), plate.get_rect(),
                             max(2, round(3 * px)), border_radius=box.h // 2)
            # a glint running across the plate
            gx = round((age * 1.4 % 1.6 - 0.3) * box.w)
            pygame.draw.line(plate, (255, 255, 255, 90), (gx, 4), (gx - box.h // 2, box.h - 4),
                             max(3, round(8 * px)))
            plate.blit(img, (pad_x, pad_y))
            plate.set_alpha(alpha)
            surface.blit(plate, box)
            y = box.bottom + round(14 * px)

    @staticmethod
    def _confetti(surface: pygame.Surface, area: pygame.Rect, c: Cheer, age: float,
                  px: float) -> None:
        w = max(3, round(7 * px))
        h = max(2, round(4 * px))
        for x0, delay, speed, phase, col in c.confetti:
            t = age - delay
            if t <= 0:
                continue
            x = area.x + x0 * area.w + math.sin(phase + t * 5) * 14 * px
            y = area.y + t * speed * area.h * 0.55
            if y > area.bottom:
                continue
            flat = abs(math.cos(phase + t * 9))
            rect = pygame.Rect(0, 0, w, max(1, round(h * flat) + 1))
            rect.center = (round(x), round(y))
            pygame.draw.rect(surface, CONFETTI[col], rect)
