"""The replay viewer: a finished game on the table, step by step, with every
seat's hand shown (the game is over).

:class:`ReplayScene` is the table scene (:class:`client.table_scene.TableScene`)
watching a :class:`client.replay.Replay` instead of a server: it fills the
window's model with the messages a spectator would have received up to the
shown step (so the board, the log, the dice, the animations and the final
statistics are those of the table) and draws, in place of the hand, every
seat's cards and the controls: to the start, a step back, play or pause, a
step on, to the end, the speed (half a step to 64 steps a second) and a
slider to seek anywhere. Nothing is sent anywhere.

Keys: ← / → a step, Shift+← / Shift+→ (or Page Up / Page Down) a turn,
Space plays or pauses, Home / End the start and the end, [ and ] slower and
faster; the board zooms and pans as at the table; Esc closes the viewer.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from protocol.rules import apply

from .board_view import owner_color
from .focus import Stop
from .replay import Replay
from .scene import Context
from .table_gfx import (
    CREAM,
    GOLD,
    PANEL_DARK,
    PANEL_DARK_EDGE,
    dev_icon,
    resource_chip,
    shade,
)
from .table_scene import TableScene
from .table_widgets import TButton

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
"""Steps a second the viewer can play at."""
QUIET_SPEED = 4.0
"""Faster than this the replay plays without sounds."""


class ReplayScene(TableScene):
    """See the module docstring."""

    has_chat = False  # a stored game keeps no chat: the log takes its room

    def __init__(self, ctx: Context, replay: Replay) -> None:
        self.replay = replay
        self.shown = 0  # the step shown: the state after this many steps
        self.playing = False
        self.speed = SPEEDS.index(2.0)
        self._clock = 0.0
        self._state = replay.state_at(0)
        self.hands: list[dict[str, Any]] = []
        self.controls: dict[str, TButton] = {}
        self.slider = pygame.Rect(0, 0, 0, 0)
        self._sliding = False
        super().__init__(ctx)
        self._make_controls()
        self._layout()
        self.seek(0)

    # -- the step shown ----------------------------------------------------------------

    def seek(self, step: int) -> None:
        """Show the state after ``step`` steps (the model is filled afresh)."""
        step = max(0, min(self.replay.steps, step))
        m = self.ctx.model
        m.reset()
        self._state = self.replay.state_at(step)
        for msg in self.replay.messages(step, self._state):
            m.apply(msg)
        self._full_check()
        self.shown = step
        self.hands = self.replay.hands(self._state)
        if step < self.replay.steps:
            self._over_shown = False  # the scores open again at the end
        self.win_wait = 0.0
        self._derived_key = None

    def _full_check(self) -> None:
        """At the end: the whole record checked (every card and steal too), not
        only what a spectator saw."""
        m = self.ctx.model
        if m.game_over is not None and self.replay.verdict is not None:
            m.chance.verdict = self.replay.verdict

    def forward(self) -> bool:
        """One step on (the model gets that step's events as news)."""
        if self.shown >= self.replay.steps:
            return False
        seat, action, outcome = self.replay.log.steps[self.shown]
        apply(self._state, action, seat, outcome)
        m = self.ctx.model
        m.apply(self.replay.batch(self.shown))
        self.shown += 1
        for msg in self.replay.after(self.shown, self._state):
            m.apply(msg)
        self._full_check()
        self.hands = self.replay.hands(self._state)
        return True

    def back(self) -> None:
        self.seek(self.shown - 1)

    def turn_step(self, delta: int) -> None:
        """To the start of the next (``delta`` 1) or this or the previous (-1) turn."""
        starts = self.replay.turn_starts()
        if delta > 0:
            ahead = [s for s in starts if s > self.shown]
            self.seek(ahead[0] if ahead else self.replay.steps)
        else:
            behind = [s for s in starts if s < self.shown]
            self.seek(behind[-1] if behind else 0)

    def toggle_play(self) -> None:
        if self.shown >= self.replay.steps:
            self.seek(0)
        self.playing = not self.playing
        self._clock = 0.0

    def faster(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))

    # -- the scene ---------------------------------------------------------------------

    def _cue(self, name: str) -> None:
        if not self.playing or SPEEDS[self.speed] <= QUIET_SPEED:
            super()._cue(name)

    def update(self, dt: float) -> None:
        if self.playing:
            self._clock += dt
            interval = 1.0 / SPEEDS[self.speed]
            moved = 0
            while self._clock >= interval and moved < 64:
                self._clock -= interval
                moved += 1
                if not self.forward():
                    self.playing = False
                    break
        super().update(dt)
        self.controls["play"].icon = "pause" if self.playing else "play"

    def next_frame(self) -> float | None:
        wait = super().next_frame()
        if self.playing:
            step = max(0.0, 1.0 / SPEEDS[self.speed] - self._clock)
            wait = step if wait is None else min(wait, step)
        return wait

    def _leave(self) -> None:
        self.ctx.quit()  # the viewer's Leave closes it: there is nothing to lose

    def _make_controls(self) -> None:
        tr = self.ctx.tr
        c = self.controls
        c["first"] = TButton("first", "", partial(self.seek, 0), icon="first")
        c["prev"] = TButton("prev", "", self.back, icon="prev")
        c["play"] = TButton("play", "", self.toggle_play, icon="play", primary=True)
        c["next"] = TButton("next", "", self.forward, icon="next")
        c["last"] = TButton("last", "", lambda: self.seek(self.replay.steps), icon="last")
        c["slower"] = TButton("slower", "−", partial(self.faster, -1))
        c["faster"] = TButton("faster", "+", partial(self.faster, 1))
        self.buttons["leave"].label = tr("replay.close")

    def _check_lang(self) -> None:
        changed = self.ctx.tr is not self._tr
        super()._check_lang()
        if changed:
            self.buttons["leave"].label = self.ctx.tr("replay.close")

    def _layout(self) -> None:
        super()._layout()
        if not getattr(self, "controls", None):
            return
        px = self.ui.px
        b = self.rects["bottom"]
        y = b.bottom - px(48)
        x = b.x + px(10)
        size = px(40)
        for name in ("first", "prev", "play", "next", "last"):
            w = px(54) if name == "play" else size
            self.controls[name].rect = pygame.Rect(x, y, w, size)
            x += w + px(6)
        x += px(10)
        self.controls["slower"].rect = pygame.Rect(x, y + px(4), px(32), px(32))
        self.rects["speed"] = pygame.Rect(x + px(34), y, px(62), size)
        self.controls["faster"].rect = pygame.Rect(x + px(98), y + px(4), px(32), px(32))
        x += px(142)
        status_w = px(190)
        self.slider = pygame.Rect(x, y + px(12), max(px(60), b.right - px(14) - status_w - x),
                                  px(16))
        self.rects["status"] = pygame.Rect(self.slider.right + px(12), y, status_w, size)
        self.rects["hands"] = pygame.Rect(b.x + px(8), b.y + px(8), b.w - px(16),
                                          y - b.y - px(14))

    def focus_stops(self) -> list[Stop]:
        stops = [Stop(("replay", name), btn.rect, btn.on_click)
                 for name, btn in self.controls.items()]
        return stops + super().focus_stops()

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEMOTION:
            for btn in self.controls.values():
                btn.handle(event)
            if self._sliding:
                self._seek_to(event.pos[0])
                return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._sliding:
            self._sliding = False
            return True
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for btn in self.controls.values():
                if btn.handle(event):
                    self.focus.visible = False
                    return True
            if self.slider.inflate(0, self.ui.px(16)).collidepoint(event.pos):
                self._sliding = True
                self.playing = False
                self._seek_to(event.pos[0])
                return True
        if event.type == pygame.KEYDOWN and self._replay_key(event):
            return True
        return super().handle(event)

    def _replay_key(self, event: pygame.event.Event) -> bool:
        shift = bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT)
        k = event.key
        if k == pygame.K_RIGHT:
            self.playing = False
            if shift:
                self.turn_step(1)
            else:
                self.forward()
        elif k == pygame.K_LEFT:
            self.playing = False
            if shift:
                self.turn_step(-1)
            else:
                self.back()
        elif k == pygame.K_PAGEDOWN:
            self.turn_step(1)
        elif k == pygame.K_PAGEUP:
            self.turn_step(-1)
        elif k == pygame.K_SPACE and not self.focus.visible:
            self.toggle_play()
        elif k == pygame.K_HOME:
            self.seek(0)
        elif k == pygame.K_END:
            self.seek(self.replay.steps)
        elif k in (pygame.K_LEFTBRACKET, pygame.K_COMMA):
            self.faster(-1)
        elif k in (pygame.K_RIGHTBRACKET, pygame.K_PERIOD):
            self.faster(1)
        elif k == pygame.K_ESCAPE:
            self.ctx.quit()
        else:
            return False
        return True

    def _seek_to(self, x: int) -> None:
        r = self.slider
        frac = 0.0 if r.w <= 0 else (x - r.x) / r.w
        self.seek(round(max(0.0, min(1.0, frac)) * self.replay.steps))

    # -- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        if self.ctx.model.view is None:
            return
        b = self.rects["bottom"]
        pygame.draw.rect(surface, PANEL_DARK, b)
        pygame.draw.line(surface, PANEL_DARK_EDGE, b.topleft, b.topright, 2)
        self._draw_hands(surface)
        self._draw_controls(surface)
        if self.focus.visible and self.ctx.stack.top is self:
            self.focus.draw(surface, self.focus_stops(), self.ui.scale)

    def _draw_hands(self, surface: pygame.Surface) -> None:
        """Every seat's resource and development cards."""
        t = self.ui.text
        px = self.ui.px
        area = self.rects["hands"]
        players = self.replay.players
        gap = px(8)
        w = (area.w - gap * (players - 1)) // players
        chip = min(px(22), max(px(12), (w - px(16)) // 5 - px(18)))
        for q in range(players):
            cell = pygame.Rect(area.x + q * (w + gap), area.y, w, area.h)
            col = owner_color(q, players)
            pygame.draw.rect(surface, shade(PANEL_DARK, 0.12), cell, border_radius=px(8))
            if self._state.current == q:
                pygame.draw.rect(surface, col, cell, px(2), border_radius=px(8))
            pygame.draw.circle(surface, col, (cell.x + px(12), cell.y + px(12)), px(6))
            name = self.ui.seat_name(q)
            t.draw(surface, t.fit(name, 12, cell.w - px(30), True),
                   (cell.x + px(24), cell.y + px(12)), 12, CREAM, True, "midleft")
            you = self.hands[q] if q < len(self.hands) else {}
            hand = list(you.get("hand") or [0] * 5)
            devs = list(you.get("dev_cards") or [0] * 5)
            x = cell.x + px(8)
            y = cell.y + px(26)
            step = (cell.w - px(16)) // 5
            for res in range(5):
                surface.blit(resource_chip(res, chip), (x + res * step, y))
                t.draw(surface, str(hand[res]), (x + res * step + chip + px(3), y + chip // 2),
                       13, CREAM if hand[res] else (130, 140, 150), True, "midleft")
            y += chip + px(6)
            for card in range(5):
                surface.blit(dev_icon(card, chip), (x + card * step, y))
                t.draw(surface, str(devs[card]), (x + card * step + chip + px(3),
                                                  y + chip // 2), 13,
                       CREAM if devs[card] else (130, 140, 150), True, "midleft")

    def _draw_controls(self, surface: pygame.Surface) -> None:
        t = self.ui.text
        px = self.ui.px
        for btn in self.controls.values():
            btn.draw(surface, self.ui, 16)
        speed = SPEEDS[self.speed]
        label = self.ctx.tr("replay.speed", n=f"{speed:g}")
        t.draw(surface, t.fit(label, 12, self.rects["speed"].w, True), self.rects["speed"].center,
               12, CREAM, True, "center")
        r = self.slider
        pygame.draw.rect(surface, (70, 86, 106), r, border_radius=r.h // 2)
        total = max(1, self.replay.steps)
        done = round(r.w * self.shown / total)
        if done:
            pygame.draw.rect(surface, GOLD, (r.x, r.y, done, r.h), border_radius=r.h // 2)
        for start in self.replay.turn_starts()[:: max(1, len(self.replay.turn_starts()) // 40)]:
            tx = r.x + round(r.w * start / total)
            pygame.draw.line(surface, (40, 52, 66), (tx, r.y + px(3)), (tx, r.bottom - px(4)))
        knob = (r.x + done, r.centery)
        pygame.draw.circle(surface, (20, 26, 34), knob, px(10))
        pygame.draw.circle(surface, CREAM, knob, px(8))
        status = self.ctx.tr("replay.status", step=self.shown, steps=self.replay.steps,
                             turn=self.replay.turn_at(self.shown))
        verdict = self.replay.verdict
        if verdict is not None:
            status += " · " + self.ctx.tr("table.chance.verified" if verdict.ok
                                          else "table.chance.failed")
        t.draw(surface, t.fit(status, 12, self.rects["status"].w, True),
               self.rects["status"].midleft, 12, CREAM, True, "midleft")
