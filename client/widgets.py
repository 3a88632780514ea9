"""Small drawing helpers and widgets shared by every scene."""

from __future__ import annotations

from collections.abc import Callable

import pygame

Color = tuple[int, int, int]

BG = (24, 58, 92)  # the sea around the table
PANEL = (245, 238, 220)
PANEL_EDGE = (120, 96, 64)
TEXT = (30, 30, 30)
TEXT_LIGHT = (250, 250, 250)
BUTTON = (70, 110, 160)
BUTTON_HOVER = (95, 140, 195)
BUTTON_OFF = (150, 150, 150)
SEAT_COLORS: tuple[Color, ...] = ((214, 48, 49), (38, 99, 214), (240, 240, 240), (235, 140, 20))
NEUTRAL_COLORS: tuple[Color, ...] = ((120, 120, 120), (80, 160, 80))


def draw_text(surface: pygame.Surface, font: pygame.font.Font, text: str, pos: tuple[int, int],
              color: Color = TEXT, anchor: str = "topleft") -> pygame.Rect:
    """Draw one line; ``anchor`` is a pygame.Rect attribute (topleft, center, ...)."""
    img = font.render(text, True, color)
    rect = img.get_rect(**{anchor: pos})
    surface.blit(img, rect)
    return rect


def wrap(font: pygame.font.Font, text: str, width: int) -> list[str]:
    """Split ``text`` into lines that fit ``width`` (words, or characters for CJK)."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for ch in _tokens(para):
            if font.size(line + ch)[0] <= width or not line:
                line += ch
            else:
                lines.append(line.rstrip())
                line = ch.lstrip()
        lines.append(line)
    return lines


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    word = ""
    for ch in text:
        if ch == " " or ord(ch) > 0x2E80:  # a space or a CJK character ends a token
            if word:
                out.append(word)
            out.append(ch)
            word = ""
        else:
            word += ch
    if word:
        out.append(word)
    return out


class Button:
    """A clickable rectangle with a label; ``enabled`` False draws it greyed out."""

    def __init__(self, rect: pygame.Rect, label: str, on_click: Callable[[], None],
                 enabled: bool = True) -> None:
        self.rect = pygame.Rect(rect)
        self.label = label
        self.on_click = on_click
        self.enabled = enabled
        self.hover = False

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEMOTION:
            self.hover = self.rect.collidepoint(event.pos)
        elif (event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
              and self.rect.collidepoint(event.pos)):
            if self.enabled:
                self.on_click()
            return True
        return False

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        color = BUTTON_OFF if not self.enabled else BUTTON_HOVER if self.hover else BUTTON
        pygame.draw.rect(surface, color, self.rect, border_radius=6)
        pygame.draw.rect(surface, PANEL_EDGE, self.rect, 1, border_radius=6)
        draw_text(surface, font, self.label, self.rect.center, TEXT_LIGHT, "center")
