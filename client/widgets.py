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


class Clickable:
    """A rectangle with a label that runs ``on_click`` on a left click while
    ``enabled``; subclasses draw it."""

    def __init__(self, rect: pygame.Rect, label: str, on_click: Callable[[], object],
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


class Button(Clickable):
    """The plain button; ``enabled`` False draws it greyed out."""

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        color = BUTTON_OFF if not self.enabled else BUTTON_HOVER if self.hover else BUTTON
        pygame.draw.rect(surface, color, self.rect, border_radius=6)
        pygame.draw.rect(surface, PANEL_EDGE, self.rect, 1, border_radius=6)
        draw_text(surface, font, self.label, self.rect.center, TEXT_LIGHT, "center")


# --- more colours -------------------------------------------------------------------

TEXT_DIM = (110, 104, 92)  # secondary text on panels
FIELD = (255, 252, 244)  # the inside of a text field
FIELD_FOCUS = (70, 110, 160)  # the edge of the focused field
SELECTED = (214, 196, 150)  # a selected row
HOVER_ROW = (236, 226, 200)
GOOD = (46, 139, 87)
WARN = (214, 140, 20)
BAD = (190, 52, 52)
SHADOW = (0, 0, 0, 90)


def draw_panel(surface: pygame.Surface, rect: pygame.Rect, font: pygame.font.Font | None = None,
               title: str | None = None, color: Color = PANEL) -> pygame.Rect:
    """A rounded panel with a soft shadow and an optional title; returns the
    area below the title (inside a 12 px margin)."""
    rect = pygame.Rect(rect)
    shadow = pygame.Surface((rect.w + 8, rect.h + 8), pygame.SRCALPHA)
    pygame.draw.rect(shadow, SHADOW, shadow.get_rect().move(0, 0), border_radius=12)
    surface.blit(shadow, (rect.x + 3, rect.y + 5))
    pygame.draw.rect(surface, color, rect, border_radius=10)
    pygame.draw.rect(surface, PANEL_EDGE, rect, 2, border_radius=10)
    inner = rect.inflate(-24, -24)
    if title and font is not None:
        r = draw_text(surface, font, title, (inner.x, inner.y))
        pygame.draw.line(surface, PANEL_EDGE, (inner.x, r.bottom + 6), (inner.right, r.bottom + 6))
        inner = pygame.Rect(inner.x, r.bottom + 14, inner.w, inner.bottom - r.bottom - 14)
    return inner


def ellipsis_for(text: str) -> str:
    """The ellipsis a cut ``text`` ends with: "…" in Japanese text (the CJK font
    centres it, as Japanese typesetting does), "..." in Latin text."""
    return "…" if any(ord(ch) >= 0x3000 for ch in text) else "..."


def fit_text(font: pygame.font.Font, text: str, width: int, ellipsis: str | None = None) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` pixels."""
    if font.size(text)[0] <= width:
        return text
    if ellipsis is None:
        ellipsis = ellipsis_for(text)
    while text and font.size(text + ellipsis)[0] > width:
        text = text[:-1]
    return text + ellipsis


def _triangle(surface: pygame.Surface, rect: pygame.Rect, left: bool, color: Color) -> None:
    cx, cy, s = rect.centerx, rect.centery, max(4, min(rect.w, rect.h) // 4)
    if left:
        points = [(cx - s, cy), (cx + s // 2 + 1, cy - s), (cx + s // 2 + 1, cy + s)]
    else:
        points = [(cx + s, cy), (cx - s // 2 - 1, cy - s), (cx - s // 2 - 1, cy + s)]
    pygame.draw.polygon(surface, color, points)


def _clicked(event: pygame.event.Event, rect: pygame.Rect) -> bool:
    return bool(event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
                and rect.collidepoint(event.pos))


class TextInput:
    """A one-line text field: click to focus, type (IME text too), Backspace,
    Delete, arrows, Home/End, Ctrl+V, Enter submits. ``allowed``: a predicate
    on each typed character."""

    def __init__(self, rect: pygame.Rect, text: str = "", placeholder: str = "",
                 max_len: int = 64, on_submit: Callable[[str], None] | None = None,
                 on_change: Callable[[str], None] | None = None,
                 allowed: Callable[[str], bool] | None = None) -> None:
        self.rect = pygame.Rect(rect)
        self.text = text
        self.placeholder = placeholder
        self.max_len = max_len
        self.on_submit = on_submit
        self.on_change = on_change
        self.allowed = allowed
        self.focused = False
        self.enabled = True
        self.caret = len(text)
        self.composing = ""  # IME text being composed (not yet committed)
        self.blink = 0.0

    def focus(self, on: bool = True) -> None:
        if on == self.focused:
            return
        self.focused = on
        self.blink = 0.0
        self.composing = ""
        if on:
            self.caret = len(self.text)
            try:
                pygame.key.start_text_input()
                pygame.key.set_text_input_rect(self.rect)
            except pygame.error:
                pass

    def set_text(self, text: str) -> None:
        self.text = text[: self.max_len]
        self.caret = len(self.text)

    def _insert(self, s: str) -> None:
        if self.allowed is not None:
            s = "".join(ch for ch in s if self.allowed(ch))
        s = "".join(ch for ch in s if ch.isprintable())
        room = self.max_len - len(self.text)
        if not s or room <= 0:
            return
        s = s[:room]
        self.text = self.text[: self.caret] + s + self.text[self.caret:]
        self.caret += len(s)
        self._changed()

    def _changed(self) -> None:
        self.blink = 0.0
        if self.on_change is not None:
            self.on_change(self.text)

    def handle(self, event: pygame.event.Event) -> bool:
        if not self.enabled:
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            inside = self.rect.collidepoint(event.pos)
            self.focus(inside)
            return bool(inside)
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            self.composing = ""
            self._insert(event.text)
            return True
        if event.type == pygame.TEXTEDITING:
            self.composing = event.text
            return True
        if event.type != pygame.KEYDOWN:
            return False
        key, mod = event.key, getattr(event, "mod", 0)
        if key == pygame.K_BACKSPACE:
            if self.caret > 0:
                self.text = self.text[: self.caret - 1] + self.text[self.caret:]
                self.caret -= 1
                self._changed()
        elif key == pygame.K_DELETE:
            if self.caret < len(self.text):
                self.text = self.text[: self.caret] + self.text[self.caret + 1:]
                self._changed()
        elif key == pygame.K_LEFT:
            self.caret = max(0, self.caret - 1)
        elif key == pygame.K_RIGHT:
            self.caret = min(len(self.text), self.caret + 1)
        elif key == pygame.K_HOME:
            self.caret = 0
        elif key == pygame.K_END:
            self.caret = len(self.text)
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            if self.on_submit is not None:
                self.on_submit(self.text)
        elif key == pygame.K_v and mod & (pygame.KMOD_CTRL | pygame.KMOD_META):
            self._insert(_clipboard())
        elif key == pygame.K_ESCAPE:
            self.focus(False)
        elif key == pygame.K_TAB:
            return False  # the owner moves the focus
        else:
            return bool(getattr(event, "unicode", ""))  # typed text comes as TEXTINPUT
        return True

    def update(self, dt: float) -> None:
        self.blink = (self.blink + dt) % 1.0

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        pygame.draw.rect(surface, FIELD if self.enabled else PANEL, self.rect, border_radius=5)
        edge = FIELD_FOCUS if self.focused else PANEL_EDGE
        pygame.draw.rect(surface, edge, self.rect, 2 if self.focused else 1, border_radius=5)
        inner = self.rect.inflate(-16, -4)
        clip = surface.get_clip()
        surface.set_clip(inner.clip(clip) if clip else inner)
        try:
            if not self.text and not self.composing and not self.focused:
                draw_text(surface, font, self.placeholder, (inner.x, inner.centery), TEXT_DIM,
                          "midleft")
                return
            before = self.text[: self.caret] + self.composing
            shown = self.text[: self.caret] + self.composing + self.text[self.caret:]
            caret_x = font.size(before)[0]
            offset = max(0, caret_x - inner.w + 4)
            draw_text(surface, font, shown, (inner.x - offset, inner.centery), TEXT, "midleft")
            if self.composing:
                start = font.size(self.text[: self.caret])[0]
                y = inner.centery + font.get_height() // 2 - 1
                pygame.draw.line(surface, TEXT, (inner.x - offset + start, y),
                                 (inner.x - offset + caret_x, y))
            if self.focused and self.blink < 0.55:
                x = inner.x - offset + caret_x
                half = font.get_height() // 2
                pygame.draw.line(surface, TEXT, (x, inner.centery - half),
                                 (x, inner.centery + half), 2)
        finally:
            surface.set_clip(clip)


def _clipboard() -> str:
    """The clipboard's text ('' when there is none or no clipboard support)."""
    try:
        if not pygame.scrap.get_init():
            pygame.scrap.init()
        data = pygame.scrap.get(pygame.SCRAP_TEXT)
    except (pygame.error, AttributeError, NotImplementedError):
        return ""
    if not data:
        return ""
    text = data.decode("utf-8", errors="ignore") if isinstance(data, bytes) else str(data)
    return text.replace("\x00", "").splitlines()[0] if text.strip() else ""


class Checkbox:
    """A box and a label; click either to toggle."""

    def __init__(self, rect: pygame.Rect, label: str, checked: bool = False,
                 on_change: Callable[[bool], None] | None = None) -> None:
        self.rect = pygame.Rect(rect)
        self.label = label
        self.checked = checked
        self.on_change = on_change
        self.enabled = True
        self.hover = False

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEMOTION:
            self.hover = self.rect.collidepoint(event.pos)
        elif _clicked(event, self.rect) and self.enabled:
            self.checked = not self.checked
            if self.on_change is not None:
                self.on_change(self.checked)
            return True
        return False

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        size = min(self.rect.h - 4, 22)
        box = pygame.Rect(self.rect.x, self.rect.centery - size // 2, size, size)
        pygame.draw.rect(surface, FIELD, box, border_radius=4)
        edge = FIELD_FOCUS if self.hover and self.enabled else PANEL_EDGE
        pygame.draw.rect(surface, edge, box, 2, border_radius=4)
        if self.checked:
            inner = box.inflate(-8, -8)
            pygame.draw.lines(surface, BUTTON if self.enabled else BUTTON_OFF, False, [
                (inner.x, inner.centery), (inner.x + inner.w // 3, inner.bottom),
                (inner.right, inner.y)], 3)
        draw_text(surface, font, fit_text(font, self.label, self.rect.w - size - 10),
                  (box.right + 10, self.rect.centery), TEXT if self.enabled else TEXT_DIM,
                  "midleft")


class Selector:
    """◀ value ▶: step through ``options`` (value, label) pairs with the arrows
    (or the mouse wheel over it). ``wrap``: past the end comes the start."""

    def __init__(self, rect: pygame.Rect, options: list[tuple[object, str]], index: int = 0,
                 on_change: Callable[[object], None] | None = None, wrap: bool = False) -> None:
        if not options:
            raise ValueError("a Selector needs options")
        self.rect = pygame.Rect(rect)
        self.options = options
        self.index = max(0, min(index, len(options) - 1))
        self.on_change = on_change
        self.wrap = wrap
        self.enabled = True

    @property
    def value(self) -> object:
        return self.options[self.index][0]

    def select(self, value: object) -> None:
        for i, (v, _) in enumerate(self.options):
            if v == value:
                self.index = i
                return

    @property
    def _left(self) -> pygame.Rect:
        return pygame.Rect(self.rect.x, self.rect.y, self.rect.h, self.rect.h)

    @property
    def _right(self) -> pygame.Rect:
        return pygame.Rect(self.rect.right - self.rect.h, self.rect.y, self.rect.h, self.rect.h)

    def step(self, delta: int) -> None:
        n = len(self.options)
        new = (self.index + delta) % n if self.wrap else max(0, min(n - 1, self.index + delta))
        if new != self.index:
            self.index = new
            if self.on_change is not None:
                self.on_change(self.value)

    def handle(self, event: pygame.event.Event) -> bool:
        if not self.enabled:
            return False
        if _clicked(event, self._left):
            self.step(-1)
            return True
        if _clicked(event, self._right) or _clicked(event, self.rect):
            self.step(1)
            return True
        if event.type == pygame.MOUSEWHEEL and self.rect.collidepoint(pygame.mouse.get_pos()):
            self.step(-1 if event.y > 0 else 1)
            return True
        return False

    def _can(self, delta: int) -> bool:
        if self.wrap:
            return len(self.options) > 1
        return 0 <= self.index + delta < len(self.options)

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        pygame.draw.rect(surface, FIELD, self.rect, border_radius=5)
        pygame.draw.rect(surface, PANEL_EDGE, self.rect, 1, border_radius=5)
        for rect, delta in ((self._left, -1), (self._right, 1)):
            on = self.enabled and self._can(delta)
            _triangle(surface, rect.inflate(-6, -6), delta < 0, BUTTON if on else BUTTON_OFF)
        label = self.options[self.index][1]
        width = self.rect.w - 2 * self.rect.h
        draw_text(surface, font, fit_text(font, label, width), self.rect.center,
                  TEXT if self.enabled else TEXT_DIM, "center")


class Stepper(Selector):
    """A number between ``lo`` and ``hi`` in steps; ``fmt`` labels the values."""

    def __init__(self, rect: pygame.Rect, value: int, lo: int, hi: int, step: int = 1,
                 fmt: Callable[[int], str] = str,
                 on_change: Callable[[int], None] | None = None) -> None:
        self.numbers = list(range(lo, hi + 1, step))
        self.fmt = fmt
        self.on_number = on_change
        super().__init__(rect, [(v, fmt(v)) for v in self.numbers], 0, self._changed)
        self.select(value)

    def _changed(self, _value: object) -> None:
        if self.on_number is not None:
            self.on_number(self.number)

    @property
    def number(self) -> int:
        return self.numbers[self.index]


class Segmented:
    """A row of mutually exclusive buttons (e.g. 日本語 | English)."""

    def __init__(self, rect: pygame.Rect, options: list[tuple[str, str]], value: str,
                 on_change: Callable[[str], None] | None = None) -> None:
        self.rect = pygame.Rect(rect)
        self.options = options
        self.value = value
        self.on_change = on_change
        self.hover: int | None = None

    def _cells(self) -> list[pygame.Rect]:
        n = len(self.options)
        w = self.rect.w // n
        return [pygame.Rect(self.rect.x + i * w, self.rect.y, w if i < n - 1 else
                            self.rect.w - w * (n - 1), self.rect.h) for i in range(n)]

    def handle(self, event: pygame.event.Event) -> bool:
        cells = self._cells()
        if event.type == pygame.MOUSEMOTION:
            self.hover = next((i for i, c in enumerate(cells) if c.collidepoint(event.pos)), None)
            return False
        for (value, _), cell in zip(self.options, cells, strict=True):
            if _clicked(event, cell):
                if value != self.value:
                    self.value = value
                    if self.on_change is not None:
                        self.on_change(value)
                return True
        return False

    def draw(self, surface: pygame.Surface, font: pygame.font.Font) -> None:
        cells = self._cells()
        for i, ((value, label), cell) in enumerate(zip(self.options, cells, strict=True)):
            on = value == self.value
            color = BUTTON if on else BUTTON_HOVER if self.hover == i else FIELD
            pygame.draw.rect(surface, color, cell)
            draw_text(surface, font, label, cell.center, TEXT_LIGHT if on else TEXT, "center")
        pygame.draw.rect(surface, PANEL_EDGE, self.rect, 1, border_radius=5)
        for cell in cells[1:]:
            pygame.draw.line(surface, PANEL_EDGE, cell.topleft, (cell.x, cell.bottom - 1))


class ListView:
    """A scrolling list of rows. ``draw_row(surface, rect, item, selected, hover)``
    draws one row; a click selects a row (``on_select(index)``), a double
    click (or Enter) activates it (``on_activate(index)``). The wheel scrolls."""

    DOUBLE_CLICK = 0.4

    def __init__(self, rect: pygame.Rect, row_height: int,
                 draw_row: Callable[[pygame.Surface, pygame.Rect, object, bool, bool], None],
                 on_select: Callable[[int], None] | None = None,
                 on_activate: Callable[[int], None] | None = None) -> None:
        self.rect = pygame.Rect(rect)
        self.row_height = row_height
        self.draw_row = draw_row
        self.on_select = on_select
        self.on_activate = on_activate
        self.items: list[object] = []
        self.selected: int | None = None
        self.hover: int | None = None
        self.scroll = 0  # pixels
        self._last_click: tuple[int, float] | None = None
        self.clock: Callable[[], float] = _now

    def set_items(self, items: list[object], keep: Callable[[object], object] | None = None
                  ) -> None:
        """Replace the rows; with ``keep`` (a key function) the selection follows
        the same item, else it is cleared when out of range."""
        old = self.items[self.selected] if self.selected is not None and \
            self.selected < len(self.items) else None
        self.items = list(items)
        if keep is not None and old is not None:
            key = keep(old)
            self.selected = next((i for i, it in enumerate(self.items) if keep(it) == key), None)
        elif self.selected is not None and self.selected >= len(self.items):
            self.selected = None
        self.scroll = max(0, min(self.scroll, self._max_scroll()))

    def _max_scroll(self) -> int:
        return max(0, len(self.items) * self.row_height - self.rect.h)

    def row_rect(self, i: int) -> pygame.Rect:
        return pygame.Rect(self.rect.x, self.rect.y + i * self.row_height - self.scroll,
                           self.rect.w, self.row_height)

    def index_at(self, pos: tuple[int, int]) -> int | None:
        if not self.rect.collidepoint(pos):
            return None
        i = (pos[1] - self.rect.y + self.scroll) // self.row_height
        return i if 0 <= i < len(self.items) else None

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEMOTION:
            self.hover = self.index_at(event.pos)
            return False
        if event.type == pygame.MOUSEWHEEL:
            if self.rect.collidepoint(pygame.mouse.get_pos()):
                self.scroll = max(0, min(self._max_scroll(),
                                         self.scroll - event.y * self.row_height))
                return True
            return False
        if _clicked(event, self.rect):
            i = self.index_at(event.pos)
            if i is None:
                return True
            now = self.clock()
            double = (self._last_click is not None and self._last_click[0] == i
                      and now - self._last_click[1] <= self.DOUBLE_CLICK)
            self._last_click = (i, now)
            self.selected = i
            if self.on_select is not None:
                self.on_select(i)
            if double and self.on_activate is not None:
                self.on_activate(i)
            return True
        if (event.type == pygame.KEYDOWN and self.selected is not None
                and event.key in (pygame.K_UP, pygame.K_DOWN)):
            step = -1 if event.key == pygame.K_UP else 1
            self.selected = max(0, min(len(self.items) - 1, self.selected + step))
            if self.on_select is not None:
                self.on_select(self.selected)
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        clip = surface.get_clip()
        surface.set_clip(self.rect.clip(clip) if clip else self.rect)
        try:
            first = self.scroll // self.row_height
            last = min(len(self.items), first + self.rect.h // self.row_height + 2)
            for i in range(first, last):
                r = self.row_rect(i)
                sel, hov = i == self.selected, i == self.hover
                if sel or hov:
                    pygame.draw.rect(surface, SELECTED if sel else HOVER_ROW, r, border_radius=4)
                self.draw_row(surface, r, self.items[i], sel, hov)
        finally:
            surface.set_clip(clip)
        if self._max_scroll() > 0:  # a scroll bar
            track = pygame.Rect(self.rect.right - 5, self.rect.y, 4, self.rect.h)
            total = len(self.items) * self.row_height
            h = max(20, self.rect.h * self.rect.h // total)
            y = self.rect.y + (self.rect.h - h) * self.scroll // self._max_scroll()
            pygame.draw.rect(surface, PANEL_EDGE, (track.x, y, track.w, h), border_radius=2)


def _now() -> float:
    import time

    return time.monotonic()
