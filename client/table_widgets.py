"""Widgets of the table and its dialogs: the shared UI helper, buttons with
icons and cost chips, number steppers and the chat input line.

:class:`TableUI` is what the table scene and its dialogs share: the text
cache, the UI scale, what the player may send (:mod:`client.intents`) and
the guard that keeps a second click from sending twice while the server has
not answered yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import pygame

from protocol.rules import Action

from .intents import is_allowed
from .scene import Context
from .table_gfx import (
    BTN,
    BTN_HOVER,
    BTN_OFF,
    BTN_PRIMARY,
    BTN_PRIMARY_HOVER,
    CARD,
    CARD_EDGE,
    INK,
    INK_SOFT,
    Color,
    TextCache,
    glyph,
    resource_chip,
    shade,
)
from .widgets import Clickable

PENDING_TIMEOUT = 30.0
"""A last resort only: an action stays pending until the server answered it."""
"""Seconds an action may wait for the server's answer before the UI unlocks again."""


class TableUI:
    """Shared by the table scene and its dialogs."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.text = TextCache(ctx.font)
        self.scale = 1.0
        self._sent_version: int | None = None
        self._sent_at = 0.0
        self._expect = 0  # the model's result count once everything sent is answered
        self._session: str | None = None
        self.sent: list[Action] = []  # every action this UI sent (tests read it)
        self.dialog_area: pygame.Rect | None = None  # where dialogs centre (the table sets it)

    @property
    def model(self) -> Any:
        return self.ctx.model

    def tr(self, key: str, **fields: Any) -> str:
        return self.ctx.tr(key, **fields)

    def set_scale(self, scale: float) -> None:
        self.scale = scale
        self.text.set_scale(scale)

    def px(self, v: float) -> int:
        return round(v * self.scale)

    # -- sending ---------------------------------------------------------------------------

    def pending(self) -> bool:
        """An action was sent and the server's answer (accepted or refused) has not arrived."""
        if self._sent_version is None:
            return False
        m = self.ctx.model
        # The server answers every action, in order: pending until the answer to
        # the last one sent has arrived (not merely any answer or any new event,
        # else a slow answer would let the same decision go out twice). A new
        # session (after a reconnect) ends it too: the view is sent afresh.
        if (m.results >= self._expect or m.session != self._session
                or time.monotonic() - self._sent_at > PENDING_TIMEOUT):
            self._sent_version = None
            return False
        return True

    def may(self, action: Action) -> bool:
        return not self.pending() and is_allowed(self.ctx.model, action)

    def send(self, action: Action) -> bool:
        """Send ``action`` if the player may; True when it went out."""
        if not self.may(action):
            return False
        self.ctx.send_action(action)
        self.sent.append(action)
        m = self.ctx.model
        self._sent_version = m.version
        # Answers still owed on this session come before this one's (after a
        # reconnect, the old session's unanswered actions never will).
        owed = self._expect if m.session == self._session else 0
        self._expect = max(owed, m.results) + 1
        self._session = m.session
        self._sent_at = time.monotonic()
        return True

    # -- names and colours -------------------------------------------------------------------

    def seat_name(self, seat: int | None) -> str:
        from .describe import seat_name

        return seat_name(self.ctx.model, self.ctx.tr, seat)


class TButton(Clickable):
    """A button with an optional pictogram and resource-cost chips under the label."""

    def __init__(self, name: str, label: str, on_click: Callable[[], object], *,
                 icon: str | None = None, cost: Sequence[int] | None = None,
                 primary: bool = False, hotkey: str | None = None) -> None:
        super().__init__(pygame.Rect(0, 0, 0, 0), label, on_click)
        self.name = name
        self.icon = icon
        self.cost = cost
        self.primary = primary
        self.hotkey = hotkey
        self.visible = True
        self.active = False  # a toggled mode (e.g. build road) is on
        self.reason = ""  # why it is disabled (shown when the mouse is over it)
        self._sprite: pygame.Surface | None = None
        self._sprite_key: tuple[Any, ...] = ()

    def handle(self, event: pygame.event.Event) -> bool:
        return self.visible and super().handle(event)

    def draw(self, surface: pygame.Surface, ui: TableUI, size: int = 15) -> None:
        if not self.visible or self.rect.w <= 0:
            return
        key = (self.rect.size, self.label, self.enabled, self.hover, self.active, self.primary,
               size, ui.scale, self.icon)
        if self._sprite is None or self._sprite_key != key:
            self._sprite = self._render(ui, size)
            self._sprite_key = key
        surface.blit(self._sprite, self.rect.topleft)

    def _render(self, ui: TableUI, size: int) -> pygame.Surface:
        out = pygame.Surface((self.rect.w, self.rect.h + ui.px(2)), pygame.SRCALPHA)
        r = pygame.Rect(0, 0, self.rect.w, self.rect.h)
        if not self.enabled:
            base: Color = BTN_OFF
        elif self.primary:
            base = BTN_PRIMARY_HOVER if self.hover else BTN_PRIMARY
        else:
            base = BTN_HOVER if self.hover else BTN
        if self.active:
            base = shade(base, 0.25)
        radius = max(4, ui.px(8))
        pygame.draw.rect(out, shade(base, -0.45), r.move(0, ui.px(2)), border_radius=radius)
        pygame.draw.rect(out, base, r, border_radius=radius)
        pygame.draw.rect(out, shade(base, 0.18), (r.x + 2, r.y + 2, r.w - 4, r.h // 2 - 2),
                         border_radius=radius)
        pygame.draw.rect(out, base, (r.x + 2, r.y + r.h // 3, r.w - 4, r.h // 2))
        if self.active:
            pygame.draw.rect(out, (255, 236, 120), r, max(2, ui.px(3)), border_radius=radius)
        fg: Color = (250, 250, 250) if self.enabled else (226, 226, 226)
        icon_px = ui.px(22 if self.cost is None else 18)
        has_cost = self.cost is not None and r.h >= ui.px(44)
        label_y = r.centery if not has_cost else r.y + r.h * 0.32
        text_w = r.w - ui.px(12) - (icon_px + ui.px(4) if self.icon else 0)
        while size > 11 and ui.text.font(size, True).size(self.label)[0] > text_w:
            size -= 1  # a smaller label before a cut one
        label = ui.text.fit(self.label, size, max(10, text_w), True)
        img = ui.text.render(label, size, fg, True)
        total = img.get_width() + (icon_px + ui.px(5) if self.icon else 0)
        x = r.centerx - total / 2
        if self.icon:
            ic = glyph(self.icon, icon_px, fg)
            out.blit(ic, (round(x), round(label_y - icon_px / 2)))
            x += icon_px + ui.px(5)
        out.blit(img, (round(x), round(label_y - img.get_height() / 2)))
        if has_cost and self.cost is not None:
            chip = ui.px(16)
            chips = [res for res, n in enumerate(self.cost) for _ in range(n)]
            gap = ui.px(2)
            width = len(chips) * (chip + gap) - gap
            cx = r.centerx - width / 2
            cy = r.y + r.h * 0.7 - chip / 2
            for res in chips:
                out.blit(resource_chip(res, chip), (round(cx), round(cy)))
                cx += chip + gap
        return out


class Stepper:
    """A count with − and + buttons (a resource row of the discard and trade dialogs)."""

    def __init__(self, res: int, maximum: int, on_change: Callable[[], None]) -> None:
        self.res = res
        self.value = 0
        self.maximum = maximum
        self.on_change = on_change
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.minus = pygame.Rect(0, 0, 0, 0)
        self.plus = pygame.Rect(0, 0, 0, 0)
        self.enabled = True

    def layout(self, rect: pygame.Rect, ui: TableUI) -> None:
        self.rect = pygame.Rect(rect)
        b = min(ui.px(26), rect.h)
        self.minus = pygame.Rect(rect.x, rect.bottom - b, b, b)
        self.plus = pygame.Rect(rect.right - b, rect.bottom - b, b, b)

    def set(self, value: int) -> None:
        self.value = max(0, min(self.maximum, value))

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type != pygame.MOUSEBUTTONDOWN or not self.enabled:
            return False
        if event.button == 1 and self.minus.collidepoint(event.pos):
            if self.value > 0:
                self.value -= 1
                self.on_change()
            return True
        if event.button == 1 and self.plus.collidepoint(event.pos):
            if self.value < self.maximum:
                self.value += 1
                self.on_change()
            return True
        if self.rect.collidepoint(event.pos) and event.button in (1, 4, 5):
            delta = -1 if event.button == 5 else 1
            new = max(0, min(self.maximum, self.value + delta))
            if new != self.value:
                self.value = new
                self.on_change()
            return True
        return False

    def draw(self, surface: pygame.Surface, ui: TableUI, note: str | None = None) -> None:
        r = self.rect
        chip = ui.px(30)
        cx = r.centerx - chip // 2
        surface.blit(resource_chip(self.res, chip), (cx, r.y))
        if note:
            ui.text.draw(surface, note, (r.centerx, r.y + chip + ui.px(1)), 11, INK_SOFT,
                         anchor="midtop")
        for rect, sign, ok in ((self.minus, "−", self.value > 0),
                               (self.plus, "+", self.value < self.maximum)):
            col = BTN if ok and self.enabled else BTN_OFF
            pygame.draw.rect(surface, col, rect, border_radius=ui.px(6))
            ui.text.draw(surface, sign, rect.center, 18, (255, 255, 255), True, "center")
        mid = pygame.Rect(self.minus.right + 2, self.minus.y, self.plus.x - self.minus.right - 4,
                          self.minus.h)
        pygame.draw.rect(surface, CARD, mid, border_radius=ui.px(5))
        pygame.draw.rect(surface, CARD_EDGE, mid, 1, border_radius=ui.px(5))
        ui.text.draw(surface, str(self.value), mid.center, 16, INK, True, "center")


class TextInput:
    """A one-line text box (the chat): focus by click or Enter, IME composition shown."""

    def __init__(self, on_submit: Callable[[str], None], max_len: int = 300) -> None:
        self.on_submit = on_submit
        self.max_len = max_len
        self.text = ""
        self.composing = ""
        self.focused = False
        self.rect = pygame.Rect(0, 0, 0, 0)

    def focus(self, on: bool = True) -> None:
        self.focused = on
        if not on:
            self.composing = ""

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            inside = self.rect.collidepoint(event.pos)
            self.focus(inside)
            return inside
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            self.text = (self.text + event.text)[: self.max_len]
            self.composing = ""
            return True
        if event.type == pygame.TEXTEDITING:
            self.composing = event.text
            return True
        if event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                if self.composing:
                    return True
                text = self.text.strip()
                self.text = ""
                if text:
                    self.on_submit(text)
                self.focus(False)  # the keys typed next are the table's again (R, E, 1-3)
                return True
            if event.key == pygame.K_ESCAPE:
                self.text = ""  # Esc gives up the draft
                self.focus(False)
                return True
            if event.key == pygame.K_BACKSPACE:
                if not self.composing:
                    self.text = self.text[:-1]
                return True
            return True  # typing keys belong to the box while it has focus
        return False

    def draw(self, surface: pygame.Surface, ui: TableUI, placeholder: str) -> None:
        r = self.rect
        pygame.draw.rect(surface, (255, 255, 255) if self.focused else (236, 230, 214), r,
                         border_radius=ui.px(6))
        pygame.draw.rect(surface, (232, 178, 48) if self.focused else CARD_EDGE, r,
                         2 if self.focused else 1, border_radius=ui.px(6))
        shown = self.text + self.composing
        pad = ui.px(8)
        if not shown and not self.focused:
            ui.text.draw(surface, placeholder, (r.x + pad, r.centery), 13, INK_SOFT,
                         anchor="midleft")
            return
        font = ui.text.font(14)
        while shown and font.size(shown)[0] > r.w - 2 * pad - 4:
            shown = shown[1:]
        img = ui.text.render(shown, 14, INK) if shown else None
        x = r.x + pad
        if img is not None:
            surface.blit(img, (x, r.centery - img.get_height() // 2))
            x += img.get_width()
        if self.focused and int(time.monotonic() * 2) % 2 == 0:
            pygame.draw.line(surface, INK, (x + 1, r.y + ui.px(6)), (x + 1, r.bottom - ui.px(6)), 2)
