"""The table: the island, the players, the hand and every decision of a game.

Laid out like sea3D's table: the island on the left, the players on the
right, the bank and deck counts along the top, the hand, the action buttons
and the build buttons (with their costs) along the bottom, the log, chat and
dice histogram under the players.

The scene only reads ``ctx.model``; what the player wants goes out through
:meth:`TableUI.send` (which sends only what the rules allow, see
:mod:`client.intents`). Board placements (set-up, build modes, the robber,
free and neutral roads) are clicks on lit-up spots; every other decision is
a dialog (:mod:`client.dialogs`) that the scene opens when the legal actions
call for it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import pygame

from protocol.rules import (
    Action,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    Discard,
    DiscardKnight,
    EndTurn,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
    Steal,
    StopRoadBuilding,
    TokenForcedTrade,
    TokenRobberHome,
)

from . import dialogs, palette
from .board_view import (
    BoardView,
    Highlights,
    LastMove,
    last_move,
    owner_color,
    owner_mark,
    piece_edge,
)
from .celebration import WIN_SECONDS, Celebrations
from .describe import cards_text, describe
from .focus import FocusRing, Stop, reading_order
from .intents import may_offer, may_propose, proposals
from .model import OFFLINE, ONLINE, RECONNECTING
from .scene import Context, Scene
from .table_gfx import (
    BAD,
    CARD,
    CARD_EDGE,
    COSTS,
    CREAM,
    DEV_COLORS,
    GOLD,
    GOOD,
    INK,
    INK_SOFT,
    PANEL_BG,
    PANEL_DARK,
    PANEL_DARK_EDGE,
    RED_NUMBER,
    RESOURCE_COLORS,
    TABLE_BG,
    TABLE_SHADOW,
    Color,
    dev_icon,
    die_face,
    draw_mark,
    glyph,
    mark_on,
    panel,
    resource_chip,
    resource_icon,
    shade,
    text_on,
)
from .table_widgets import TableUI, TButton, TextInput
from .trade_panel import TradePanel

_PLAY_ACTIONS: dict[int, type[Action]] = {
    0: PlayKnight, 1: PlayRoadBuilding, 2: PlayYearOfPlenty, 3: PlayMonopoly,
}
_DEV_KEYS = ("knight", "road_building", "year_of_plenty", "monopoly", "victory_point")
DICE_SECONDS = 0.6
"""How long the dice tumble before they settle on the roll."""
ROBBER_SECONDS = 0.7
"""How long the robber flashes after a 7."""
PIECE_SECONDS = 0.25
"""How long a new road, settlement or city takes to appear."""
GAIN_SECONDS = 1.2
"""How long a hand card shows the cards just gained."""
LOG_RETURN_SECONDS = 20.0
"""The log scrolled up goes back to its newest line after this long without scrolling."""
CATCH_UP = 24
"""More new events than this at once are a catch-up (after a reconnect), not news."""
QUIET_SECONDS = 1.0
"""No animations this long after the connection came (back) online."""
_UNSEEN = object()

ZOOM_STEP = 1.25
"""One notch of the mouse wheel (or + / -) zooms the board this much."""
DRAG_SLOP = 5
"""Pixels the mouse moves with a button down before it counts as a drag (a pan)."""

_FOCUS_BUTTONS = ("roll", "end", "road", "settlement", "city", "buy", "cards", "trade", "bank",
                  "tokens", "results", "leave")
"""The table's buttons in keyboard (Tab) order, after the board and the cards."""

_CUES = {"dice_rolled": "roll", "road_built": "build", "settlement_built": "build",
         "city_built": "build", "trade_completed": "trade", "maritime_traded": "trade",
         "robber_moved": "robber", "longest_road_changed": "award",
         "largest_army_changed": "award", "game_over": "win"}
"""The sound cue (:mod:`client.sound`) of each event that arrives as news."""

_PLACEMENT_PHASES = frozenset({"setup_settlement", "setup_road", "road_building", "move_robber",
                               "neutral_road", "neutral_settlement"})


BUTTON_LABELS = {"roll": "table.btn.roll", "end": "table.btn.end_turn",
                 "road": "table.btn.road", "settlement": "table.btn.settlement",
                 "city": "table.btn.city", "buy": "table.btn.buy_dev",
                 "cards": "table.btn.cards", "trade": "table.btn.trade", "bank": "table.btn.bank",
                 "tokens": "table.btn.tokens", "leave": "table.btn.leave",
                 "results": "table.btn.results"}
"""The translation key of each button's label."""


class TableScene(Scene):
    """The game table for a seat, or for a spectator (``model.seat`` None)."""

    has_chat = True
    """A chat panel under the log (the replay viewer has nobody to talk to)."""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.ui = TableUI(ctx)
        self.board = BoardView(lambda size, bold=False: self.ui.text.font(
            max(6, round(size / self.ui.scale)), bold))
        self.size = (1280, 800)
        surf = pygame.display.get_surface() if pygame.display.get_init() else None
        if surf is not None:
            self.size = surf.get_size()
        self.mode: str | None = None  # build mode in the main phase: road, settlement, city
        self.neutral = 2  # the neutral player the 2-player neutral builds go to
        self.hover: tuple[int, int] | None = None
        self.pulse = 0.0
        self.log_scroll = 0
        self.log_new = 0  # lines that came in while the log was scrolled up
        self._log_scrolled_at = 0.0
        self.log_cue = pygame.Rect(0, 0, 0, 0)  # "n new ▼": back to the newest line
        self.chat_scroll = 0
        self.chat = TextInput(self._send_chat)
        self._over_shown = False
        self._log_cache: dict[int, tuple[object, list[tuple[str, int | None]]]] = {}
        self._log_lines: list[tuple[str, int | None]] = []  # a line, the seat it is about
        self._log_key: tuple[Any, ...] = ()
        self._chat_lines: list[tuple[str, Color | None, str]] = []
        self._chat_key: tuple[Any, ...] = ()
        self._derived_key: tuple[Any, ...] | None = None
        self._last_move = LastMove()
        self._last_move_key: tuple[Any, ...] = ()
        self.spots: dict[tuple[str, int], Action] = {}  # (kind, id) -> the action a click sends
        self.highlights: Highlights | None = None
        self.prompt = ""
        self.prompt_mine = False
        self.rects: dict[str, pygame.Rect] = {}
        self.hand_rects: dict[int, pygame.Rect] = {}
        self.dev_rects: dict[int, pygame.Rect] = {}
        self.neutral_rects: dict[int, pygame.Rect] = {}
        self._neutral_choice: list[int] = []
        self._layout_players = 0
        self._chrome: pygame.Surface | None = None
        self._chrome_keys: dict[str, tuple[Any, ...]] = {}
        self._chrome_base: tuple[Any, ...] = ()
        self.chrome_builds = 0
        self.region_builds: dict[str, int] = {}
        self._sprites: dict[tuple[Any, ...], pygame.Surface] = {}
        self._timer_slot = pygame.Rect(0, 0, 0, 0)
        self._banner: pygame.Surface | None = None
        self._banner_key: tuple[Any, ...] = ()
        self._banner_spots: dict[int, pygame.Rect] = {}
        self.buttons: dict[str, TButton] = {}
        self.notes: list[tuple[object, str]] = []  # the client's own log lines (after an event)
        self._presence: list[tuple[bool, bool]] | None = None  # (connected, auto) per seat
        self.trade_panel = TradePanel(self.ui, self._send, self._open_counter, self.note,
                                      self._open_counter_proposal)
        self._tr = ctx.tr  # the translator the labels come from
        # animations: presentation only, started by events that arrive while the table shows
        self._seen_event: object = _UNSEEN  # the newest event already looked at
        self._had_view = False  # the model had a view at the last look
        self._connection = ctx.model.connection
        self._quiet = 0.0  # seconds left without animations (a reconnect's catch-up)
        self._rng = random.Random()
        self.dice_anim = 0.0  # seconds left of the tumble
        self.dice_rolled: tuple[int, ...] = ()  # what the tumble settles on
        self._dice_faces: tuple[int, int] = (1, 1)
        self._dice_flip = 0.0
        self.robber_anim = 0.0
        self.piece_anim = 0.0
        self.piece_new: tuple[str, int] | None = None  # hidden in the chrome while it appears
        self.gains: dict[int, tuple[int, float]] = {}  # resource -> (cards gained, seconds left)
        self._drag: tuple[int, tuple[int, int], tuple[int, int], bool] | None = None
        self.focus = FocusRing()  # Tab / arrows / Enter (client.focus)
        self.cheers = Celebrations()  # Longest Road, Largest Army, the win
        self.win_wait = 0.0  # seconds the win is celebrated before the final scores open
        self._make_buttons()
        self._layout()

    # -- set-up ---------------------------------------------------------------------------

    def _make_buttons(self) -> None:
        tr = self.ctx.tr
        b = self.buttons
        b["roll"] = TButton("roll", "", self._roll, icon="dice", primary=True, hotkey="R")
        b["end"] = TButton("end", "", self._end_turn, icon="flag", primary=True, hotkey="E")
        b["road"] = TButton("road", "", lambda: self._toggle_mode("road"), cost=COSTS["road"])
        b["settlement"] = TButton("settlement", "", lambda: self._toggle_mode("settlement"),
                                  cost=COSTS["settlement"])
        b["city"] = TButton("city", "", lambda: self._toggle_mode("city"), cost=COSTS["city"])
        b["buy"] = TButton("buy", "", self._buy, cost=COSTS["dev"])
        b["cards"] = TButton("cards", "", self._open_cards, icon="dev")
        b["trade"] = TButton("trade", "", self._open_trade, icon="trade")
        b["bank"] = TButton("bank", "", self._open_bank, icon="bank")
        b["tokens"] = TButton("tokens", "", self._open_tokens, icon="token")
        b["leave"] = TButton("leave", "", self._leave)
        b["results"] = TButton("results", "", self.show_results)  # at game over
        for name, btn in b.items():
            btn.label = tr(BUTTON_LABELS[name])
        self._tr = tr

    def _check_lang(self) -> None:
        """After a language switch (``App.set_lang`` puts a new Translator in the
        context): new button labels, prompt, log and chat lines. The chrome notices
        by itself (its key holds the translator)."""
        tr = self.ctx.tr
        if tr is self._tr:
            return
        self._tr = tr
        for name, btn in self.buttons.items():
            btn.label = tr(BUTTON_LABELS[name])
        self._derived_key = None  # the prompt
        self._log_cache = {}
        self._log_key = ()
        self._chat_key = ()
        self._banner_key = ()
        self._layout()  # button widths follow their labels

    # -- Scene API ----------------------------------------------------------------------------

    def resized(self, size: tuple[int, int]) -> None:
        self.size = (max(320, size[0]), max(240, size[1]))
        self._layout()

    def enter(self) -> None:
        self._derived_key = None

    def next_frame(self) -> float | None:
        """Animations need every frame; lit spots pulse (30 frames a second), the
        chat caret blinks, the turn timer counts down by the second."""
        if self.animating:
            return 0.0
        waits = []
        if self.highlights is not None:
            waits.append(1 / 30)
        if self.chat.focused:
            waits.append(0.5)
        left = self.ctx.model.time_left()
        if left is not None:
            waits.append((left % 1.0) or 1.0)
        return min(waits) if waits else None

    def banner_area(self) -> pygame.Rect:
        """The connection banner goes over the island, below the prompt."""
        return self.rects["island"]

    def toast_area(self) -> pygame.Rect:
        """Notices go over the island, never over the player panels."""
        return self.rects["left"]

    def note(self, text: str) -> None:
        """A line of the client's own in the log, after the newest event."""
        events = self.ctx.model.events
        self.notes.append((events[-1] if events else None, text))
        del self.notes[:-40]

    def _watch_presence(self) -> None:
        """A line in the log when a player drops, comes back, or a bot stands in."""
        m = self.ctx.model
        now = [(bool(s.get("connected", True)), bool(s.get("auto")))
               for s in m.table_seats if s.get("kind") == "human"]
        seats = [q for q, s in enumerate(m.table_seats) if s.get("kind") == "human"]
        before, self._presence = self._presence, now
        if before is None or len(before) != len(now) or m.view is None:
            return
        tr = self.ctx.tr
        for q, (old, new) in zip(seats, zip(before, now, strict=True), strict=True):
            name = self.ui.seat_name(q)
            if old[0] and not new[0]:
                self.note(tr("table.presence.dropped", name=name))
            elif not old[0] and new[0]:
                self.note(tr("table.presence.back", name=name))
            if new[1] and not old[1]:
                self.note(tr("table.presence.stand_in_you") if q == m.seat
                          else tr("table.presence.stand_in", name=name))

    def update(self, dt: float) -> None:
        self.pulse = (self.pulse + dt * 0.8) % 1.0
        self._watch_presence()
        if self.log_scroll and time.monotonic() - self._log_scrolled_at > LOG_RETURN_SECONDS:
            self.log_scroll = self.log_new = 0  # back to the newest line by itself
        self._derive()
        self._animate(dt)  # news first: a win is celebrated before the scores open
        self._auto_dialogs()
        self.trade_panel.update()
        self.trade_panel.auto_decline()

    # -- animations ------------------------------------------------------------------------

    @property
    def animating(self) -> bool:
        return bool(self.dice_anim or self.robber_anim or self.piece_anim or self.gains
                    or self.cheers.running or self.win_wait)

    def _cue(self, name: str) -> None:
        """Play a sound cue (when the window has sound)."""
        sound = self.ctx.options.get("sound")
        if sound is not None:
            sound.play(name)

    def _fresh_events(self) -> list[dict[str, Any]]:
        """The events that arrived since the last update, when they are news: none on
        the first look or before the first view (the history a join brings), after the
        events were cleared or pushed out (a reset), in a big catch-up batch, or while
        and shortly after the connection was lost."""
        m = self.ctx.model
        events = m.events
        newest: object = events[-1] if events else None
        previous = self._seen_event
        self._seen_event = newest
        had_view, self._had_view = self._had_view, m.view is not None
        if m.connection != self._connection:
            self._connection = m.connection
            self._quiet = QUIET_SECONDS
        if (newest is previous or previous is _UNSEEN or not had_view
                or m.connection in (RECONNECTING, OFFLINE)):
            return []
        fresh: list[dict[str, Any]] = []
        for event in reversed(events):
            if event is previous:
                break
            fresh.append(event)
            if len(fresh) > CATCH_UP:
                return []
        else:
            if previous is not None:  # the one we saw is gone: a reset, not news
                return []
        if self._quiet > 0:
            return []
        fresh.reverse()
        return fresh

    def _animate(self, dt: float) -> None:
        self._quiet = max(0.0, self._quiet - dt)
        self.dice_anim = max(0.0, self.dice_anim - dt)
        self.robber_anim = max(0.0, self.robber_anim - dt)
        self.piece_anim = max(0.0, self.piece_anim - dt)
        if not self.piece_anim:
            self.piece_new = None
        self.gains = {res: (n, left - dt) for res, (n, left) in self.gains.items() if left > dt}
        self.cheers.update(dt)
        self.win_wait = max(0.0, self.win_wait - dt)
        if self.dice_anim:
            self._dice_flip -= dt
            if self._dice_flip <= 0:
                self._dice_flip = 0.06
                self._dice_faces = (self._rng.randint(1, 6), self._rng.randint(1, 6))
        elif self.dice_rolled and sum(self.dice_rolled) == 7 and self._dice_flip > -1:
            self._dice_flip = -2.0  # settled on a 7: the robber's turn to flash
            self.robber_anim = ROBBER_SECONDS
        fresh = self._fresh_events()
        seat = self.ctx.model.seat
        built = False
        cues: list[str] = []
        for event in fresh:
            kind = event.get("type")
            if kind in _CUES:
                cues.append(_CUES[kind])
            if kind in ("longest_road_changed", "largest_army_changed", "game_over"):
                self._cheer(event)
            if kind == "dice_rolled" and len(event.get("dice") or ()) == 2:
                self.dice_rolled = tuple(int(v) for v in event["dice"])
                self.dice_anim = DICE_SECONDS
                self._dice_flip = 0.06
                self._dice_faces = (self._rng.randint(1, 6), self._rng.randint(1, 6))
                self.robber_anim = 0.0
            elif kind in ("road_built", "settlement_built", "city_built"):
                built = True
            elif seat is not None and kind in ("produced", "setup_income"):
                if kind == "produced":
                    gains = event.get("gains") or []
                    cards = gains[seat] if seat < len(gains) else []
                else:
                    cards = event.get("cards") or [] if event.get("seat") == seat else []
                for res, n in enumerate(cards[:5]):
                    if n > 0:
                        had = self.gains.get(res, (0, 0.0))[0]
                        self.gains[res] = (had + n, GAIN_SECONDS)
        if built:
            piece = self.last_move().piece  # the marker's information: the newest piece
            if piece is not None:
                self.piece_new = piece
                self.piece_anim = PIECE_SECONDS
        for name in dict.fromkeys(cues):  # each cue once per batch
            self._cue(name)

    def _cheer(self, event: dict[str, Any]) -> None:
        """A celebration toast for Longest Road, Largest Army or the win."""
        tr = self.ctx.tr
        kind = event.get("type")
        m = self.ctx.model
        if kind == "game_over":
            winner = event.get("winner")
            if not isinstance(winner, int):
                return
            text = tr("table.cheer.you_win") if winner == m.seat else \
                tr("table.cheer.win", name=self.ui.seat_name(winner))
            self.cheers.start(text, (196, 136, 24), "win")
            self.win_wait = WIN_SECONDS
            return
        holder = event.get("holder")
        if kind == "longest_road_changed":
            what, color, n = "longest_road", (176, 112, 40), event.get("length")
        else:
            what, color, n = "largest_army", (150, 60, 60), event.get("knights")
        if isinstance(holder, int):
            key = f"table.cheer.{what}_you" if holder == m.seat else f"table.cheer.{what}"
            text = tr(key, name=self.ui.seat_name(holder), n=n)
        else:
            text = tr(f"table.cheer.{what}_open")
        self.cheers.start(text, color, what)

    def dice_shown(self) -> tuple[int, ...]:
        """The faces the dice display shows now (tumbling, or the last roll)."""
        if self.dice_anim:
            return self._dice_faces
        view = self.ctx.model.view
        roll = view.get("last_roll") if view is not None else None
        return tuple(int(v) for v in roll) if roll else ()

    def handle(self, event: pygame.event.Event) -> bool:
        self._derive()
        if self.win_wait and event.type in (pygame.MOUSEBUTTONDOWN, pygame.KEYDOWN):
            self.win_wait = 0.0  # to the final scores at once
            return True
        if event.type == pygame.VIDEORESIZE:
            self.resized((event.w, event.h))
            return False
        if self.has_chat and not self._chat_covered() and self.chat.handle(event):
            return True
        if self.trade_panel.handle(event):
            return True
        if event.type == pygame.MOUSEMOTION:
            self.hover = event.pos
            self._drag_to(event.pos)
            for btn in self.buttons.values():
                btn.handle(event)
            return False
        if event.type == pygame.MOUSEWHEEL:
            return self._scroll(event.y)
        if event.type == pygame.KEYDOWN:
            return self._key(event)
        if event.type == pygame.MOUSEBUTTONUP:
            return self._drop(event.button)
        if event.type != pygame.MOUSEBUTTONDOWN:
            return False
        self.focus.visible = False  # the mouse again: no ring
        on_board = self.rects["board"].collidepoint(event.pos)
        if event.button in (2, 3) and on_board:  # a drag pans; a right click cancels
            self._drag = (event.button, event.pos, event.pos, False)
            return True
        if event.button == 3:
            if self.mode is not None:
                self.mode = None
                self._derived_key = None
                return True
            return False
        if event.button != 1:  # (the wheel arrives as MOUSEWHEEL too: handled above)
            return False
        for btn in self.buttons.values():
            if btn.handle(event):
                return True
        if self.log_cue.collidepoint(event.pos):
            self.log_scroll = self.log_new = 0
            return True
        for owner, rect in self.neutral_rects.items():
            if rect.collidepoint(event.pos):
                self.neutral = owner
                self._derived_key = None
                return True
        for card, rect in self.dev_rects.items():
            if rect.collidepoint(event.pos):
                self._play_card(card)
                return True
        if on_board:
            if not self._click_board(event.pos):  # not on a lit spot: a drag pans
                self._drag = (1, event.pos, event.pos, False)
            return True
        return False

    # -- zoom and pan ------------------------------------------------------------------

    def _drag_to(self, pos: tuple[int, int]) -> None:
        if self._drag is None:
            return
        button, start, last, moved = self._drag
        if not moved and math.hypot(pos[0] - start[0], pos[1] - start[1]) < DRAG_SLOP:
            return
        self.board.pan_by(pos[0] - last[0], pos[1] - last[1])
        self._drag = (button, start, pos, True)

    def _drop(self, button: int) -> bool:
        drag, self._drag = self._drag, None
        if drag is None or drag[0] != button:
            self._drag = drag if drag is not None and drag[0] != button else None
            return False
        if button == 3 and not drag[3] and self.mode is not None:  # a right click
            self.mode = None
            self._derived_key = None
        return True

    def zoom(self, factor: float, at: tuple[float, float] | None = None) -> bool:
        """Zoom the board by ``factor`` around ``at`` (default: the island's middle)."""
        if at is None:
            at = self.rects["island"].center
        return self.board.zoom_at(at, factor)

    def draw(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.size:
            self.resized(surface.get_size())
        self._derive()
        view = self.ctx.model.view
        if view is None:
            surface.fill(TABLE_BG)
            self._draw_waiting(surface)
            return
        surface.blit(self._chrome_surface(view), (0, 0))
        clip = surface.get_clip()
        surface.set_clip(self.rects["board"].clip(clip))  # a zoomed island stays in its place
        if self.piece_new is not None:
            self.board.draw_piece(surface, view, self.piece_new,
                                  1 - self.piece_anim / PIECE_SECONDS)
        if self.robber_anim:
            self.board.draw_robber_flash(surface, view, self.robber_anim / ROBBER_SECONDS)
        surface.set_clip(clip)
        self._draw_dice(surface, view)
        if self.gains:
            self._draw_gains(surface)
        self.trade_panel.draw(surface)
        if self.highlights is not None:
            surface.set_clip(self.rects["board"].clip(clip))
            self.board.draw_highlights(surface, self.highlights, self.hover, self.pulse)
            surface.set_clip(clip)
        self._draw_banner(surface)
        if self.cheers.running:
            self.cheers.draw(surface, self.rects["board"], self.ui.text, self.ui.scale)
        self._draw_timer(surface)
        self._draw_hand_hover(surface, view)
        for btn in self.buttons.values():
            btn.draw(surface, self.ui, 17 if btn.primary else 13)
        self._draw_reason(surface)  # over the buttons: a tip may reach the row above
        if self.has_chat and not self._chat_covered():
            self.chat.draw(surface, self.ui, self.ctx.tr("table.chat_placeholder"))
        if self.focus.visible and self.ctx.stack.top is self:
            self.focus.draw(surface, self.focus_stops(), self.ui.scale)

    def _chrome_surface(self, view: dict[str, Any]) -> pygame.Surface:
        """Everything that changes only with the model, drawn once per change: each
        region of the screen is redrawn only when what it shows changed."""
        m = self.ctx.model
        base = (self.size, self.ui.scale, id(self.ctx.tr), palette.name())
        events, chat = m.events, m.chat
        you = view.get("you") or {}
        keys: dict[str, tuple[Any, ...]] = {
            "board": (*self._pieces_key(view), self.last_move(), self.piece_new,
                      self.board.view_key()),
            "top": (tuple(view["bank"]), view["dev_deck"], view.get("turn"), view.get("phase"),
                    m.connection, m.game_over is not None),
            "players": (repr(view["seats"]), view.get("current"), view.get("turn"),
                        tuple(view.get("to_act", ())),
                        view.get("phase"), view.get("longest_road"), view.get("largest_army"),
                        you.get("vp_total"), repr(m.table_seats), m.seat,
                        repr((m.game_over or {}).get("scores"))),
            "histogram": (tuple(m.dice), tuple(view.get("last_roll") or ())),
            "log": (len(events), id(events[-1]) if events else 0, self.log_scroll, self.log_new,
                    id(m.table_seats), len(self.notes), bool(self.dice_anim),
                    tuple(self.log_area())),
            "chat": (len(chat), id(chat[-1]) if chat else 0, self.chat_scroll,
                     id(m.table_seats)),
            "bottom": (repr(you), tuple(sorted({type(a).__name__ for a in m.legal})), m.seat),
        }
        full = self._chrome is None or self._chrome_base != base
        if not full and keys == self._chrome_keys:
            assert self._chrome is not None
            return self._chrome
        if full or self._chrome is None:
            self._chrome = pygame.Surface(self.size)
            self._chrome.fill(TABLE_BG)
        chrome = self._chrome
        px = self.ui.px
        r = self.rects
        regions: dict[str, pygame.Rect] = {
            "board": r["board"], "top": r["top"], "bottom": r["bottom"],
            "players": r["players"].inflate(px(8), px(8)),
            "histogram": r["histogram"].inflate(px(8), px(8)),
            "log": r["log"].inflate(px(8), px(8)), "chat": r["chat"].inflate(px(8), px(8)),
        }
        for name, key in keys.items():
            if not full and self._chrome_keys.get(name) == key:
                continue
            chrome.set_clip(regions[name])
            chrome.fill(TABLE_BG)
            if name == "board":
                self.board.use_board(view["board"])
                self.board.set_rect(r["board"], r["island"])
                self.board.draw_base(chrome, view, self._last_move, self.piece_new)
            elif name == "top":
                self._draw_top(chrome, view)
            elif name == "players":
                self._draw_players(chrome, view)
            elif name == "histogram":
                self._draw_histogram(chrome)
            elif name == "log":
                self._draw_log(chrome)
            elif name == "chat":
                if self.has_chat:
                    self._draw_chat(chrome)
            else:
                self._draw_bottom(chrome, view)
            chrome.set_clip(None)
            self.region_builds[name] = self.region_builds.get(name, 0) + 1
        self._chrome_keys = keys
        self._chrome_base = base
        self.chrome_builds += 1
        return chrome

    def last_move(self) -> LastMove:
        """The latest piece built and this turn's roll (from the model's events;
        worked out again only when new events arrived)."""
        events = self.ctx.model.events
        key = (len(events), id(events[-1]) if events else 0)
        if key != self._last_move_key:
            self._last_move = last_move(events)
            self._last_move_key = key
        return self._last_move

    @staticmethod
    def _pieces_key(view: dict[str, Any]) -> tuple[Any, ...]:
        board = view["board"]
        return (tuple(board["terrain"]), tuple(board["numbers"]), tuple(board["harbors"]),
                view["robber"], tuple(map(tuple, view.get("buildings", ()))),
                tuple(map(tuple, view.get("roads", ()))))

    # -- layout ----------------------------------------------------------------------------------

    def _layout(self) -> None:
        w, h = self.size
        s = max(0.7, min(w / 1280, h / 800, 1.6))
        self.ui.set_scale(s)
        px = self.ui.px
        rw = min(max(round(w * 0.3), px(300)), px(460))
        top, bottom = px(46), px(164)
        r: dict[str, pygame.Rect] = {}
        r["left"] = pygame.Rect(0, 0, w - rw, h)
        r["top"] = pygame.Rect(0, 0, w - rw, top)
        r["board"] = pygame.Rect(0, top, w - rw, max(50, h - top - bottom))
        r["island"] = pygame.Rect(r["board"].x, r["board"].y + px(40), r["board"].w,
                                  max(40, r["board"].h - px(46)))
        r["bottom"] = pygame.Rect(0, h - bottom, w - rw, bottom)
        r["right"] = pygame.Rect(w - rw, 0, rw, h)
        pad = px(8)
        x0, inner = w - rw + pad, rw - 2 * pad
        players = self._players()
        self._layout_players = players
        # Five or six seats: lower seat panels and dice chart; where the
        # window is too short for the log as well, the chart gives way.
        big = players >= 5
        ph = px(66) if big else px(74)
        gap_p = px(4) if big else px(6)
        r["players"] = pygame.Rect(x0, pad, inner, players * (ph + gap_p) - gap_p)
        for q in range(players):
            r[f"player{q}"] = pygame.Rect(x0, pad + q * (ph + gap_p), inner, ph)
        y = r["players"].bottom + px(8)
        hist_h = px(72) if big else px(92)
        if big and h - pad - (y + hist_h + px(8)) < px(200):
            hist_h = 0
        r["histogram"] = pygame.Rect(x0, y, inner, hist_h)
        y = r["histogram"].bottom + (px(8) if hist_h else 0)
        rest = h - pad - y
        chat_h = max(px(110), round(rest * 0.36)) if self.has_chat else 0
        r["log"] = pygame.Rect(x0, y, inner, rest - chat_h - (px(8) if chat_h else 0))
        r["chat"] = pygame.Rect(x0, r["log"].bottom + px(8), inner, chat_h)
        self.chat.rect = pygame.Rect(r["chat"].x + px(8), r["chat"].bottom - px(36),
                                     r["chat"].w - px(16), px(28))
        # the trade panel grows over the dice chart and the log; with six seats in a
        # short window (no dice chart) it may cover the chat too, while it is open
        trade_bottom = (h - pad) if big and not hist_h else r["chat"].y - px(8)
        self.trade_panel.layout(pygame.Rect(x0, r["histogram"].y, inner,
                                            trade_bottom - r["histogram"].y))
        # bottom: hand and the two big buttons above, build and action buttons below
        b = r["bottom"]
        row_a = pygame.Rect(b.x + pad, b.y + pad, b.w - 2 * pad, px(86))
        row_b = pygame.Rect(b.x + pad, row_a.bottom + px(8), b.w - 2 * pad,
                            b.bottom - row_a.bottom - px(8) - pad)
        r["hand"] = row_a
        gap = px(6)
        # ten cards, then Roll and End turn; the cards narrow before a button covers one
        big_w = min(px(150), round(row_a.w * 0.17))
        card_w = px(50)
        need = 10 * (card_w + gap) + px(18) + 2 * big_w + pad
        if need > row_a.w:
            big_w = max(px(84), big_w - (need - row_a.w) // 2)
            card_w = max(px(30), (row_a.w - px(18) - 2 * big_w - pad) // 10 - gap)
        self.buttons["end"].rect = pygame.Rect(row_a.right - big_w, row_a.y + px(8), big_w,
                                               row_a.h - px(16))
        self.buttons["roll"].rect = self.buttons["end"].rect.move(-big_w - pad, 0)
        self.hand_rects = {}
        self.dev_rects = {}
        cx = row_a.x + px(4)
        cy = row_a.y + px(18)
        ch = row_a.h - px(20)
        for res in range(5):
            self.hand_rects[res] = pygame.Rect(cx, cy, card_w, ch)
            cx += card_w + gap
        cx += px(14)
        for card in range(5):
            self.dev_rects[card] = pygame.Rect(cx, cy, card_w, ch)
            cx += card_w + gap
        r["hand_res"] = pygame.Rect(self.hand_rects[0].x, row_a.y, 5 * (card_w + gap), row_a.h)
        r["hand_dev"] = pygame.Rect(self.dev_rects[0].x, row_a.y, 5 * (card_w + gap), row_a.h)
        names = ["road", "settlement", "city", "buy", "cards", "trade", "bank"]
        if players == 2:
            names.append("tokens")
        self.buttons["tokens"].visible = players == 2
        n = len(names)
        bw = (row_b.w - (n - 1) * gap - px(10)) / n
        x = float(row_b.x)
        for i, name in enumerate(names):
            if i == 4:
                x += px(10)  # a little space between building and the other actions
            self.buttons[name].rect = pygame.Rect(round(x), row_b.y, round(bw), row_b.h)
            x += bw + gap
        lw = px(86)
        self.buttons["leave"].rect = pygame.Rect(r["top"].right - lw - pad, px(8), lw, top - px(16))
        rw_ = max(lw, self.ui.text.font(13, True).size(self.buttons["results"].label)[0] + px(24))
        self.buttons["results"].rect = pygame.Rect(self.buttons["leave"].rect.x - rw_ - pad, px(8),
                                                   rw_, top - px(16))
        self.rects = r
        self.ui.dialog_area = r["left"]
        if self.ctx.model.view is not None:
            self.board.use_board(self.ctx.model.view["board"])
        self.board.set_rect(r["board"], r["island"])
        self._derived_key = None

    def _chat_covered(self) -> bool:
        """The open trade panel covers the chat line (six seats in a short window):
        the chat waits until the trade is over."""
        return self.trade_panel.visible and self.trade_panel.rect.colliderect(self.chat.rect)

    def _players(self) -> int:
        view = self.ctx.model.view
        if view is not None:
            return int(view.get("players", 4))
        settings = self.ctx.model.settings or {}
        return int(settings.get("players", 4))

    # -- what the model asks for ---------------------------------------------------------------

    def _derive(self) -> None:
        """Recompute highlights, prompt and button states when the model changed."""
        self._check_lang()
        m = self.ctx.model
        pending = self.ui.pending()
        key = (m.changes, m.version, m.legal_version, self.mode, self.neutral, pending,
               self.size, self._players())
        if key == self._derived_key:
            return
        if self._players() != self._layout_players:
            self._layout()
        self._derived_key = key
        view = m.view
        me = m.seat
        legal = [] if pending else m.legal
        phase = view.get("phase") if view else None
        spots: dict[tuple[str, int], Action] = {}
        ghost = None
        color: Color = owner_color(me, self._players()) if me is not None else (255, 255, 255)
        owner = me
        building = phase in ("main", "special_build")  # R-56-8: after another's turn too
        if self.mode is not None and (not building or not any(
                type(a) is {"road": BuildRoad, "settlement": BuildSettlement,
                            "city": BuildCity}[self.mode] for a in legal)):
            self.mode = None
        if building:
            if self.mode == "road":
                spots = {("edge", a.edge): a for a in legal if isinstance(a, BuildRoad)}
                ghost = "road"
            elif self.mode == "settlement":
                spots = {("node", a.node): a for a in legal if isinstance(a, BuildSettlement)}
                ghost = "settlement"
            elif self.mode == "city":
                spots = {("node", a.node): a for a in legal if isinstance(a, BuildCity)}
                ghost = "city"
        elif phase in _PLACEMENT_PHASES:
            neutrals = {a.neutral for a in legal
                        if isinstance(a, BuildNeutralRoad | BuildNeutralSettlement)}
            if neutrals and self.neutral not in neutrals:
                self.neutral = min(neutrals)
            for a in legal:
                if isinstance(a, BuildSettlement):
                    spots[("node", a.node)] = a
                    ghost = "settlement"
                elif isinstance(a, BuildRoad):
                    spots[("edge", a.edge)] = a
                    ghost = "road"
                elif isinstance(a, MoveRobber):
                    spots[("hex", a.hex)] = a
                    ghost = "robber"
                    color = (255, 255, 255)
                    owner = None
                elif isinstance(a, BuildNeutralRoad) and a.neutral == self.neutral:
                    spots[("edge", a.edge)] = a
                    ghost = "road"
                    color = owner_color(a.neutral, self._players())
                    owner = a.neutral
                elif isinstance(a, BuildNeutralSettlement) and a.neutral == self.neutral:
                    spots[("node", a.node)] = a
                    ghost = "settlement"
                    color = owner_color(a.neutral, self._players())
                    owner = a.neutral
        self.spots = spots
        self.highlights = None
        if spots:
            self.highlights = Highlights(
                nodes=[i for k, i in spots if k == "node"],
                edges=[i for k, i in spots if k == "edge"],
                hexes=[i for k, i in spots if k == "hex"], color=color, ghost=ghost,
                owner=owner)
        self._set_buttons(legal, view, pending)
        self.prompt, self.prompt_mine = self._prompt(view, legal, pending)
        neutral_choice = {a.neutral for a in legal
                          if isinstance(a, BuildNeutralRoad | BuildNeutralSettlement)}
        self._neutral_choice = sorted(neutral_choice) if len(neutral_choice) > 1 else []

    def _set_buttons(self, legal: list[Action], view: dict[str, Any] | None,
                     pending: bool) -> None:
        types = {type(a) for a in legal}
        b = self.buttons
        seated = self.ctx.model.seat is not None and view is not None
        phase = view.get("phase") if view is not None else None
        main = phase in ("main", "special_build")  # R-56-8: building, in a turn or after one
        b["roll"].enabled = RollDice in types
        b["end"].enabled = EndTurn in types or StopRoadBuilding in types
        end_label = ("table.btn.stop_roads" if StopRoadBuilding in types
                     else "table.btn.pass" if phase == "special_build"
                     else BUTTON_LABELS["end"])
        if b["end"].label != self.ctx.tr(end_label):
            b["end"].label = self.ctx.tr(end_label)
        b["road"].enabled = main and BuildRoad in types
        b["settlement"].enabled = main and BuildSettlement in types
        b["city"].enabled = main and BuildCity in types
        b["buy"].enabled = BuyDevCard in types
        b["cards"].enabled = any(self._playable(card, view) for card in _PLAY_ACTIONS) \
            if view is not None else False
        b["trade"].enabled = not pending and (may_offer(self.ctx.model)
                                              or self._may_propose_now())
        b["bank"].enabled = MaritimeTrade in types
        b["tokens"].enabled = bool(types & {TokenForcedTrade, TokenRobberHome, DiscardKnight})
        for name in ("road", "settlement", "city"):
            b[name].active = self.mode == name
        self._set_reasons(types, view, pending)
        for name, btn in b.items():
            if name not in ("leave", "results"):
                btn.visible = seated and (name != "tokens" or self._players() == 2)
        b["results"].visible = self.ctx.model.game_over is not None

    def _set_reasons(self, types: set[type[Action]], view: dict[str, Any] | None,
                     pending: bool) -> None:
        """Why each disabled button is disabled, in the player's words."""
        tr = self.ctx.tr
        m = self.ctx.model
        b = self.buttons
        for btn in b.values():
            btn.reason = ""
        if view is None or m.seat is None:
            return
        you = view.get("you") or {}
        hand = list(you.get("hand") or [0] * 5)
        phase = view.get("phase")
        mine = view.get("current") == m.seat
        if pending:
            general = tr("table.why.sending")
        elif m.game_over is not None or phase == "game_over":
            general = tr("table.why.game_over")
        elif not mine:
            general = tr("table.why.not_your_turn", name=self.ui.seat_name(view.get("current")))
        elif phase == "pre_roll":
            general = tr("table.why.roll_first")
        elif phase not in ("main", "special_build"):
            general = tr("table.why.finish_first")
        else:
            general = ""
        pieces = list(view["seats"][m.seat].get("pieces") or []) if view.get("seats") else []
        costs = {"road": COSTS["road"], "settlement": COSTS["settlement"],
                 "city": COSTS["city"], "buy": COSTS["dev"]}
        for name, btn in b.items():
            if btn.enabled or name == "leave":
                continue
            if general and (name != "end" or not mine):
                btn.reason = general
                continue
            if name == "roll":
                btn.reason = tr("table.why.rolled")
            elif name == "end":
                btn.reason = tr("table.why.finish_first")
            elif name in costs:
                cost = costs[name]
                short = [max(0, c - h) for c, h in zip(cost, hand, strict=True)]
                kind = {"road": 0, "settlement": 1, "city": 2}.get(name)  # ROADS, ...
                if kind is not None and kind < len(pieces) and pieces[kind] == 0:
                    btn.reason = tr("table.why.no_pieces")
                elif any(short):
                    btn.reason = tr("table.why.cannot_afford", cards=cards_text(tr, short))
                elif name == "buy":
                    btn.reason = tr("table.why.deck_empty")
                else:
                    btn.reason = tr("table.why.no_spot")
            elif name == "cards":
                cards = you.get("dev_cards") or [0] * 5
                new = you.get("dev_new") or [0] * 5
                if not any(cards[:4]):
                    btn.reason = tr("table.why.no_cards")
                elif view.get("dev_played"):
                    btn.reason = tr("table.why.one_card")
                elif all(n >= c for n, c in zip(new[:4], cards[:4], strict=True)):
                    btn.reason = tr("table.why.bought_this_turn")
                else:
                    btn.reason = tr("table.why.no_card_now")
            elif name == "trade":
                strict = bool((view.get("settings") or {}).get("strict_phases"))
                btn.reason = tr("table.why.trade_closed" if strict and view.get("built")
                                else "table.why.no_cards_to_trade")
            elif name == "bank":
                ratios = you.get("ratios") or [4] * 5
                btn.reason = tr("table.why.bank", n=min(ratios))
            elif name == "tokens":
                btn.reason = tr("table.why.no_token_action")

    def _draw_reason(self, surface: pygame.Surface) -> None:
        """The reason a disabled button under the mouse is disabled, above it."""
        if self.hover is None or self.ctx.stack.top is not self:
            return
        for btn in self.buttons.values():
            if btn.visible and not btn.enabled and btn.reason and \
                    btn.rect.collidepoint(self.hover):
                px = self.ui.px
                text = self.ui.text.fit(btn.reason, 13, self.rects["left"].w - px(30))
                img = self.ui.text.render(text, 13, (255, 255, 255), True)
                tip = pygame.Rect(0, 0, img.get_width() + px(14), img.get_height() + px(8))
                tip.midbottom = (btn.rect.centerx, btn.rect.y - px(6))
                tip.clamp_ip(self.rects["left"])
                pygame.draw.rect(surface, (20, 26, 34), tip, border_radius=px(5))
                surface.blit(img, (tip.x + px(7), tip.y + px(4)))
                return

    def _prompt(self, view: dict[str, Any] | None, legal: list[Action],
                pending: bool) -> tuple[str, bool]:
        tr = self.ctx.tr
        m = self.ctx.model
        if view is None:
            return "", False
        if m.game_over is not None or view.get("phase") == "game_over":
            return tr("table.prompt.game_over"), False
        phase = view["phase"]
        if pending:
            return tr("table.prompt.sending"), True
        seats = m.table_seats
        if m.seat is not None and 0 <= m.seat < len(seats) and seats[m.seat].get("auto") \
                and not seats[m.seat].get("forfeited"):
            return tr("table.prompt.stand_in"), True  # the seat comes back by acting
        if legal:
            if phase == "trade":
                trade = view.get("trade") or {}
                if trade.get("offerer") == m.seat:
                    return tr("table.prompt.trade"), True
                return tr("table.prompt.trade_answer",
                          name=self.ui.seat_name(trade.get("offerer"))), True
            if self.mode is not None:
                return tr(f"table.prompt.mode_{self.mode}"), True
            if phase == "road_building":
                left = view.get("free_roads", 0)  # what the card allows; pieces may limit it
                if m.seat is not None:
                    left = min(left, view["seats"][m.seat]["pieces"][0])
                if any(type(a) is StopRoadBuilding for a in legal):
                    return tr("table.prompt.road_building_more", n=left), True
                return tr("table.prompt.road_building", n=left), True
            if phase == "discard":
                n = m.discard_count or view["seats"][m.seat]["discard_owed"]
                return tr("table.prompt.discard", n=n), True
            if phase == "give_back":
                return tr("table.prompt.give_back", n=view.get("give_back", 0)), True
            if phase == "pre_roll" and self._players() == 2 and view.get("rolls_done"):
                return tr("table.prompt.pre_roll_second"), True
            return tr(f"table.prompt.{phase}"), True
        waiting = [q for q in view.get("to_act", []) if q != m.seat]
        if phase == "discard":
            names = tr("table.list_sep").join(self.ui.seat_name(q) for q in waiting)
            return tr("table.prompt.wait_discard", names=names), False
        if phase == "trade":
            trade = view.get("trade") or {}
            if trade.get("offerer") == m.seat:
                return tr("table.prompt.wait_answers"), True
            offerer = self.ui.seat_name(trade.get("offerer"))
            return tr("table.prompt.wait_trade", name=offerer), False
        if waiting:
            return tr(f"table.wait.{phase}", name=self.ui.seat_name(waiting[0])), False
        return tr("table.prompt.wait", name=self.ui.seat_name(view.get("current"))), False

    def _auto_dialogs(self) -> None:
        """Open the dialog a pending decision needs (and the game-over screen)."""
        m = self.ctx.model
        if m.game_over is not None:
            if not self._over_shown and not self.win_wait:
                self._over_shown = True
                self._close_dialogs()
                self.ctx.stack.push(dialogs.GameOverDialog(self.ctx, self.ui))
            return
        if m.view is None or m.seat is None or self.ui.pending():
            return
        types = {type(a) for a in m.legal}
        want: str | None = None
        if Discard in types:
            want = "discard"
        elif GiveBack in types:
            want = "give_back"
        elif Steal in types:
            want = "steal"
        if want is None:
            return
        open_kinds = {getattr(s, "kind", None) for s in self.ctx.stack.scenes}
        if want in open_kinds:
            return
        self._close_dialogs()
        self.mode = None
        factory: dict[str, Callable[[], Scene]] = {
            "discard": lambda: dialogs.DiscardDialog(self.ctx, self.ui, give_back=False),
            "give_back": lambda: dialogs.DiscardDialog(self.ctx, self.ui, give_back=True),
            "steal": lambda: dialogs.StealDialog(self.ctx, self.ui),
        }
        self.ctx.stack.push(factory[want]())

    def _close_dialogs(self) -> None:
        for scene in list(self.ctx.stack.scenes):
            if isinstance(scene, dialogs.Dialog):
                self.ctx.stack.pop(scene)
                break

    def _open(self, dialog: Scene) -> None:
        self._close_dialogs()
        self.mode = None
        self.ctx.stack.push(dialog)

    # -- intents ------------------------------------------------------------------------------

    def _send(self, action: Action) -> bool:
        ok = self.ui.send(action)
        if ok:
            self.mode = None
            self._derived_key = None
        return ok

    def _first(self, kind: type[Action]) -> Action | None:
        for a in self.ctx.model.legal:
            if type(a) is kind:
                return a
        return None

    def _roll(self) -> None:
        a = self._first(RollDice)
        if a is not None:
            self._send(a)

    def _end_turn(self) -> None:
        """End the turn; during Road Building (after the first free road), build no
        more free roads (R-DEV-5: "up to" two) — the same button."""
        a = self._first(EndTurn) or self._first(StopRoadBuilding)
        if a is not None:
            self._send(a)

    def _buy(self) -> None:
        a = self._first(BuyDevCard)
        if a is not None:
            self._send(a)

    def _toggle_mode(self, mode: str) -> None:
        self.mode = None if self.mode == mode else mode
        self._derived_key = None

    def _open_cards(self) -> None:
        self._open(dialogs.DevCardDialog(self.ctx, self.ui))

    def _may_propose_now(self) -> bool:
        """Off turn: a trade may be proposed to the current player (one open at a time)."""
        m = self.ctx.model
        return may_propose(m) and m.seat not in proposals(m)

    def _open_trade(self) -> None:
        if self._may_propose_now():
            self._open(dialogs.TradeComposeDialog(self.ctx, self.ui, propose=True))
            return
        self._open(dialogs.TradeComposeDialog(self.ctx, self.ui))

    def _open_counter_proposal(self, seat: int) -> None:
        """Answer ``seat``'s proposal with other terms: an offer to that seat,
        starting from the proposal seen from this side."""
        open_ = proposals(self.ctx.model)
        if seat in open_ and not self.ui.pending():
            give, get = open_[seat]
            self._open(dialogs.TradeComposeDialog(self.ctx, self.ui, to=seat,
                                                  terms=(get, give)))

    def _open_counter(self) -> None:
        if not self.ui.pending() and self.trade_panel.answering():
            self._open(dialogs.TradeComposeDialog(self.ctx, self.ui, counter=True))

    def _open_bank(self) -> None:
        self._open(dialogs.MaritimeDialog(self.ctx, self.ui))

    def _open_tokens(self) -> None:
        self._open(dialogs.TokenDialog(self.ctx, self.ui))

    def _leave(self) -> None:
        if self.ctx.model.game_over is not None:  # nothing is lost any more: no question
            self.ctx.send({"type": "leave"})
            return
        self._open(dialogs.ConfirmLeaveDialog(self.ctx, self.ui))

    def show_results(self) -> None:
        """The final scores and statistics again (after *View board*)."""
        if self.ctx.model.game_over is not None:
            self.win_wait = 0.0
            self._open(dialogs.GameOverDialog(self.ctx, self.ui))

    def ask_quit(self, saved: bool = False) -> None:
        """The window's close button in a running game: ask first."""
        self._open(dialogs.ConfirmQuitDialog(self.ctx, self.ui, saved=saved))

    def _play_card(self, card: int) -> None:
        kind = _PLAY_ACTIONS.get(card)
        if kind is None:
            return
        legal = [a for a in self.ctx.model.legal if type(a) is kind]
        if not legal or self.ui.pending():
            return
        if kind is PlayYearOfPlenty:
            self._open(dialogs.ResourcePickDialog(self.ctx, self.ui, "year_of_plenty"))
        elif kind is PlayMonopoly:
            self._open(dialogs.ResourcePickDialog(self.ctx, self.ui, "monopoly"))
        else:
            self._send(legal[0])

    def _click_board(self, pos: tuple[int, int]) -> bool:
        """A left click on the island: on a lit spot it sends the spot's action (True);
        beside the lit spots it does nothing (False: the press may start a pan)."""
        if not self.spots or self.highlights is None:
            return False
        hit = self.board.hovered(self.highlights, pos)
        if hit is None:
            return False
        action = self.spots.get(hit)
        if action is not None:
            self._send(action)
        return True

    def _send_chat(self, text: str) -> None:
        self.ctx.send({"type": "chat", "text": text[:300]})

    # -- keyboard focus ------------------------------------------------------------------

    def focus_stops(self) -> list[Stop]:
        """Every choice on the table in keyboard order: the lit spots (in reading
        order), the neutral player chips, the trade panel's buttons, the playable
        development cards, then the buttons."""
        px = self.ui.px
        lay = self.board.layout
        stops: list[Stop] = []
        if self.spots and lay is not None and self.highlights is not None:
            spots = []
            for (kind, i) in self.spots:
                x, y = {"node": lay.node_xy, "edge": lay.edge_xy, "hex": lay.hex_xy}[kind][i]
                r = px(26) if kind == "hex" else px(12)
                spots.append(Stop(("spot", (kind, i)), pygame.Rect(round(x) - r, round(y) - r,
                                                                  2 * r, 2 * r),
                                  partial(self._choose_spot, (kind, i)), round=True))
            stops += reading_order(spots)
        for owner, rect in sorted(self.neutral_rects.items()):
            stops.append(Stop(("neutral", owner), rect, partial(self._pick_neutral, owner)))
        for name, btn in self.trade_panel.buttons.items():
            if btn.visible and btn.enabled:
                stops.append(Stop(("trade", name), btn.rect, btn.on_click))
        view = self.ctx.model.view
        if view is not None:
            for card, rect in self.dev_rects.items():
                if self._playable(card, view):
                    stops.append(Stop(("dev", card), rect, partial(self._play_card, card)))
        for name in _FOCUS_BUTTONS:
            btn = self.buttons[name]
            if btn.visible and btn.enabled and btn.rect.w > 0:
                stops.append(Stop(("button", name), btn.rect, btn.on_click))
        return stops

    def _choose_spot(self, spot: tuple[str, int]) -> None:
        action = self.spots.get(spot)
        if action is not None:
            self._send(action)

    def _pick_neutral(self, owner: int) -> None:
        self.neutral = owner
        self._derived_key = None

    def _focus_moved(self) -> None:
        """The focus is on a lit spot: show the piece there (as under the mouse) and
        keep it in view on a zoomed island."""
        stop = self.focus.current(self.focus_stops())
        if stop is None or not isinstance(stop.key, tuple) or stop.key[0] != "spot":
            return
        if self.board.show(stop.rect.center):
            stop = self.focus.current(self.focus_stops()) or stop
        self.hover = stop.rect.center

    def _key(self, event: pygame.event.Event) -> bool:
        focusing = event.key in (pygame.K_TAB, pygame.K_LEFT, pygame.K_RIGHT, pygame.K_UP,
                                 pygame.K_DOWN)
        if focusing or (self.focus.visible and event.key in (pygame.K_RETURN,
                                                              pygame.K_KP_ENTER,
                                                              pygame.K_SPACE)):
            stops = self.focus_stops()
            if self.focus.handle(event, stops):
                if focusing:
                    self._focus_moved()
                return True
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            if self.ctx.model.table is not None and self.has_chat:
                self.chat.focus(True)
                return True
            return False
        if event.key == pygame.K_ESCAPE and self.mode is not None:
            self.mode = None
            self._derived_key = None
            return True
        if event.key == pygame.K_ESCAPE and self.trade_panel.visible:
            return self.trade_panel.escape()
        if event.key == pygame.K_ESCAPE and self.ctx.model.table is not None:
            self._leave()  # nothing else to cancel: leave the table? (asks first)
            return True
        if event.key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            return self.zoom(ZOOM_STEP) or True
        if event.key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            return self.zoom(1 / ZOOM_STEP) or True
        if event.key in (pygame.K_0, pygame.K_KP0, pygame.K_HOME):
            return self.board.reset_view() or True
        if event.key == pygame.K_m:  # sound off / on
            app = self.ctx.options.get("app")
            if app is not None:
                app.toggle_mute()
                return True
            sound = self.ctx.options.get("sound")
            if sound is not None:
                sound.toggle_mute()
                return True
            return False
        if event.key == pygame.K_F2:  # switch 日本語 / English (everything relabels)
            app = self.ctx.options.get("app")
            if app is not None:
                app.set_lang("en" if self.ctx.tr.lang == "ja" else "ja")
                return True
            return False
        shortcuts = {pygame.K_r: "roll", pygame.K_e: "end", pygame.K_1: "road",
                     pygame.K_2: "settlement", pygame.K_3: "city"}
        name = shortcuts.get(event.key)
        if name is not None and self.buttons[name].enabled and self.buttons[name].visible:
            self.buttons[name].on_click()
            return True
        return False

    def _scroll(self, dy: int) -> bool:
        if self.hover is None:
            return False
        if self.rects["board"].collidepoint(self.hover) and dy:
            self.zoom(ZOOM_STEP ** dy, self.hover)
            return True
        if self.log_area().collidepoint(self.hover):
            self.log_scroll = max(0, self.log_scroll + dy)
            self._log_scrolled_at = time.monotonic()
            if self.log_scroll == 0:
                self.log_new = 0
            return True
        if self.rects["chat"].collidepoint(self.hover):
            self.chat_scroll = max(0, self.chat_scroll + dy)
            return True
        return False

    # -- drawing: board overlays -------------------------------------------------------------

    def _draw_waiting(self, surface: pygame.Surface) -> None:
        t = self.ui.text
        r = self.rects["board"]
        t.draw(surface, self.ctx.tr("table.waiting_start"), r.center, 22, CREAM, True, "center")
        self._draw_players(surface, None)
        if self.has_chat:
            self._draw_chat(surface)
            self.chat.draw(surface, self.ui, self.ctx.tr("table.chat_placeholder"))
        self.buttons["leave"].draw(surface, self.ui, 13)

    def _draw_dice(self, surface: pygame.Surface, view: dict[str, Any]) -> None:
        px = self.ui.px
        size = px(38)
        r = self.rects["board"]
        pos = (r.x + px(14), r.bottom - size - px(14))
        if self.dice_anim:  # tumbling: random faces, turned and hopping, no total yet
            left = self.dice_anim / DICE_SECONDS
            for i, v in enumerate(self._dice_faces):
                face = die_face(v, size)
                angle = (left * 540 + i * 70) % 360
                face = pygame.transform.rotate(face, angle)
                hop = abs(math.sin(left * math.pi * 3 + i)) * px(10) * left
                cx = pos[0] + i * (size + px(6)) + size // 2
                cy = pos[1] + size // 2 - hop
                surface.blit(face, (round(cx - face.get_width() / 2),
                                    round(cy - face.get_height() / 2)))
            return
        roll = view.get("last_roll")
        if not roll:
            return
        key = ("dice", tuple(roll), size)
        img = self._sprites.get(key)
        if img is None:
            img = pygame.Surface((2 * (size + px(6)) + px(40), size), pygame.SRCALPHA)
            for i, v in enumerate(roll):
                img.blit(die_face(int(v), size), (i * (size + px(6)), 0))
            total = sum(roll)
            col = RED_NUMBER if total == 7 else CREAM
            self.ui.text.draw(img, str(total), (2 * (size + px(6)) + px(2), size // 2), 26, col,
                              True, "midleft")
            self._sprites[key] = img
        surface.blit(img, pos)

    def _draw_gains(self, surface: pygame.Surface) -> None:
        """The hand cards that just got cards: a pulsing ring and "+n" rising above."""
        px = self.ui.px
        t = self.ui.text
        for res, (n, left) in self.gains.items():
            rect = self.hand_rects.get(res)
            if rect is None:
                continue
            age = 1 - left / GAIN_SECONDS  # 0 → 1
            glow = 0.5 + 0.5 * math.cos(age * math.pi * 4)
            width = max(2, round(px(4) * (1 - age) * glow) + 1)
            pygame.draw.rect(surface, (255, 226, 110), rect.inflate(px(6), px(6)), width,
                             border_radius=px(9))
            img = t.render(f"+{n}", 16, (255, 255, 255), True)
            pill = pygame.Rect(0, 0, img.get_width() + px(10), img.get_height() + px(2))
            pill.midbottom = (rect.centerx, round(rect.y - px(2) - px(16) * min(1.0, age * 3)))
            pygame.draw.rect(surface, GOOD, pill, border_radius=pill.h // 2)
            surface.blit(img, (pill.x + px(5), pill.y + px(1)))

    def _draw_banner(self, surface: pygame.Surface) -> None:
        if not self.prompt:
            return
        px = self.ui.px
        r = self.rects["board"]
        choices = tuple(self._neutral_choice)
        key = (self.prompt, self.prompt_mine, choices, self.neutral, r.w, self.ui.scale)
        if self._banner is None or self._banner_key != key:
            self._banner = self._render_banner(r.w, choices)
            self._banner_key = key
        box = self._banner.get_rect(midtop=(r.centerx, r.y + px(6)))
        surface.blit(self._banner, box)
        self.neutral_rects = {o: rr.move(box.topleft) for o, rr in self._banner_spots.items()}

    def _render_banner(self, width: int, choices: tuple[int, ...]) -> pygame.Surface:
        t = self.ui.text
        px = self.ui.px
        text = t.fit(self.prompt, 16, width - px(60), True)
        img = t.render(text, 16, INK if self.prompt_mine else CREAM, True)
        extra = len(choices) * px(30) + px(8) if choices else 0
        pad = px(6)
        box = pygame.Rect(pad, pad, img.get_width() + px(32) + extra, img.get_height() + px(14))
        out = pygame.Surface((box.w + 2 * pad, box.h + 2 * pad), pygame.SRCALPHA)
        fill = (255, 226, 120) if self.prompt_mine else (30, 44, 60)
        panel(out, box, fill, shade(fill, -0.4), radius=box.h // 2)
        out.blit(img, (box.x + px(16), box.centery - img.get_height() // 2))
        self._banner_spots = {}
        x = box.x + px(16) + img.get_width() + px(10)
        for owner in choices:
            rr = pygame.Rect(x, box.centery - px(11), px(22), px(22))
            col = owner_color(owner, self._players())
            pygame.draw.rect(out, col, rr, border_radius=px(5))
            pygame.draw.rect(out, INK if owner == self.neutral else shade(col, -0.4), rr,
                             3 if owner == self.neutral else 1, border_radius=px(5))
            self._banner_spots[owner] = rr
            x += px(30)
        return out

    # -- drawing: panels ----------------------------------------------------------------------

    def _draw_top(self, surface: pygame.Surface, view: dict[str, Any]) -> None:
        t = self.ui.text
        px = self.ui.px
        r = self.rects["top"]
        pygame.draw.rect(surface, PANEL_DARK, r)
        pygame.draw.line(surface, PANEL_DARK_EDGE, r.bottomleft, r.bottomright, 2)
        x = r.x + px(10)
        cy = r.centery
        lab = t.draw(surface, self.ctx.tr("table.bank"), (x, cy), 13, (200, 210, 222), True,
                     "midleft")
        x = lab.right + px(8)
        chip = px(24)
        for res, n in enumerate(view["bank"]):
            surface.blit(resource_chip(res, chip), (x, cy - chip // 2))
            col = (255, 140, 120) if n == 0 else CREAM
            t.draw(surface, str(n), (x + chip + px(3), cy), 15, col, True, "midleft")
            x += chip + px(32)
        surface.blit(glyph("dev", chip, CREAM), (x, cy - chip // 2))
        t.draw(surface, str(view["dev_deck"]), (x + chip + px(3), cy), 15, CREAM, True, "midleft")
        x += chip + px(40)
        # connection, timer (drawn every frame in its slot), turn
        right = self.buttons["leave"].rect.x - px(12)
        if self.ctx.model.game_over is not None:
            right = self.buttons["results"].rect.x - px(12)
        label = self.ctx.tr("table.turn", n=view.get("turn", 0))
        if str(view.get("phase", "")).startswith("setup"):
            label = self.ctx.tr("table.setup")
        elif view.get("special_from") is not None:  # R-56-8: after whose turn
            label = self.ctx.tr("table.turn_special", n=view.get("turn", 0),
                                name=self.ui.seat_name(view["special_from"]))
        turn = t.render(label, 14, (200, 210, 222), True)
        surface.blit(turn, (right - turn.get_width(), cy - turn.get_height() // 2))
        right -= turn.get_width() + px(12)
        self._timer_slot = pygame.Rect(right - px(74), r.y, px(74), r.h)
        right -= px(74) + px(8)
        m = self.ctx.model
        if m.connection != ONLINE:
            label = self.ctx.tr(f"table.conn.{m.connection}")
            img = t.render(label, 13, (255, 170, 120), True)
            if right - img.get_width() > x:
                surface.blit(img, (right - img.get_width(), cy - img.get_height() // 2))

    def _draw_timer(self, surface: pygame.Surface) -> None:
        left = self.ctx.model.time_left()
        slot = self._timer_slot
        if left is None or slot.w <= 0:
            return
        t = self.ui.text
        px = self.ui.px
        secs = int(math.ceil(left))
        col = (255, 120, 100) if secs <= 10 else CREAM
        img = t.render(f"{secs // 60}:{secs % 60:02d}", 16, col, True)
        surface.blit(img, (slot.right - img.get_width(), slot.centery - img.get_height() // 2))
        ic = glyph("clock", px(20), col)
        surface.blit(ic, (slot.right - img.get_width() - px(4) - ic.get_width(),
                          slot.centery - ic.get_height() // 2))

    def first_seat(self) -> int | None:
        """The seat that plays first each round (the turn order starts there)."""
        view = self.ctx.model.view
        if view is None:
            return None
        n = int(view.get("players", 4))
        turn, current = int(view.get("turn") or 0), view.get("current")
        if not isinstance(current, int):
            return None
        if turn >= 1:
            return (current - (turn - 1)) % n
        for ev in self.ctx.model.events:  # set-up: the first settlement placed
            if ev.get("type") == "settlement_built" and isinstance(ev.get("seat"), int):
                return int(ev["seat"])
        return current

    def _draw_players(self, surface: pygame.Surface, view: dict[str, Any] | None) -> None:
        m = self.ctx.model
        n = self._players()
        for q in range(n):
            rect = self.rects.get(f"player{q}")
            if rect is not None:
                self._draw_player(surface, rect, q, view, m)

    def _draw_player(self, surface: pygame.Surface, rect: pygame.Rect, q: int,
                     view: dict[str, Any] | None, m: Any) -> None:
        t = self.ui.text
        px = self.ui.px
        col = owner_color(q, self._players())
        current = view is not None and view.get("current") == q and view.get("phase") != "game_over"
        panel(surface, rect, CARD if q != m.seat else (255, 248, 222), CARD_EDGE, px(10),
              solid_shadow=TABLE_SHADOW)
        if current:
            pygame.draw.rect(surface, col if col != (240, 240, 240) else GOLD, rect, px(3),
                             border_radius=px(10))
        # colour tab and avatar
        av = (rect.x + px(26), rect.y + px(26))
        pygame.draw.circle(surface, shade(col, -0.5), av, px(18))
        pygame.draw.circle(surface, col, av, px(16))
        if palette.marks_on():  # the seat's mark, as on its pieces
            mx, my = av[0] + px(14), av[1] - px(13)
            draw_mark(surface, palette.mark(q), (mx, my), px(5), mark_on(col), piece_edge(col))
        seats = m.table_seats
        info = seats[q] if q < len(seats) else {}
        kind = info.get("kind", "human")
        if kind == "bot" or info.get("auto"):
            ic = glyph("bot", px(20), text_on(col))
            surface.blit(ic, (av[0] - ic.get_width() // 2, av[1] - ic.get_height() // 2))
        else:
            initial = (self.ui.seat_name(q) or "?")[:1].upper()
            t.draw(surface, initial, av, 17, text_on(col), True, "center")
        connected = info.get("connected", True) if info else True
        dot = GOOD if connected else BAD
        if kind == "empty":
            dot = INK_SOFT
        pygame.draw.circle(surface, (255, 255, 255), (av[0] + px(13), av[1] + px(13)), px(6))
        pygame.draw.circle(surface, dot, (av[0] + px(13), av[1] + px(13)), px(4))
        first = self.first_seat()
        if first is not None:  # the turn order: 1 plays first each round
            order = (q - first) % self._players() + 1
            badge = (av[0] - px(15), av[1] - px(15))
            pygame.draw.circle(surface, INK, badge, px(8))
            t.draw(surface, str(order), badge, 10, (255, 255, 255), True, "center")
        # name line
        x = rect.x + px(52)
        name = self.ui.seat_name(q)
        if q == m.seat:
            name = self.ctx.tr("table.you_suffix", name=name)
        vp_w = px(64)
        name = t.fit(name, 15, rect.right - x - vp_w - px(70), True)
        nr = t.draw(surface, name, (x, rect.y + px(7)), 15, INK, True)
        tx = nr.right + px(6)
        tags: list[tuple[str, Color]] = []
        if info.get("auto"):
            tags.append((self.ctx.tr("table.tag.auto"), (200, 130, 20)))
        elif kind == "bot":
            tags.append((self.ctx.tr("table.tag.bot"), (90, 110, 140)))
        if not connected and kind == "human":
            tags.append((self.ctx.tr("table.tag.offline"), BAD))
        if view is not None and q in view.get("to_act", []) and view.get("phase") != "game_over":
            ic = glyph("clock", px(16), (60, 130, 90))
            surface.blit(ic, (tx, rect.y + px(9)))
            tx += ic.get_width() + px(4)
        for label, tc in tags:
            img = t.render(label, 10, (255, 255, 255), True)
            pill = pygame.Rect(tx, rect.y + px(9), img.get_width() + px(10),
                               img.get_height() + px(2))
            if pill.right > rect.right - vp_w:
                break
            pygame.draw.rect(surface, tc, pill, border_radius=pill.h // 2)
            surface.blit(img, (pill.x + px(5), pill.y + px(1)))
            tx = pill.right + px(4)
        if view is None:
            return
        seat = view["seats"][q]
        # victory points (at the end: the final scores, hidden points included)
        vp = seat["vp"]
        scores = (m.game_over or {}).get("scores") or []
        if q < len(scores) and isinstance(scores[q], int):
            vp = scores[q]
        vp_img = t.render(str(vp), 24 if rect.h >= px(74) else 20, INK, True)
        vx = rect.right - px(12) - vp_img.get_width()
        surface.blit(vp_img, (vx, rect.y + px(4)))
        vp_y = rect.y + (px(34) if rect.h >= px(74) else px(30))  # lower panels: 5-6 seats
        t.draw(surface, self.ctx.tr("table.vp"), (rect.right - px(12), vp_y), 10,
               INK_SOFT, True, "topright")
        you = view.get("you")
        if q == m.seat and you is not None and you["vp_total"] != vp and not scores:
            t.draw(surface, f"({you['vp_total']})", (vx - px(4), rect.y + px(12)), 13,
                   (150, 110, 20), True, "topright")
        # stats
        y = rect.y + px(44)
        x = rect.x + px(52)
        stats: list[tuple[str, str]] = [("cards", str(seat["cards"])),
                                        ("dev", str(seat["dev_cards"])),
                                        ("knight", str(seat["knights"])),
                                        ("road", str(seat["road_length"]))]
        if self._players() == 2:
            stats.append(("token", str(seat.get("tokens", 0))))
        for icon, value in stats:
            surface.blit(glyph(icon, px(18), INK_SOFT if icon != "road" else col), (x, y))
            img = t.render(value, 14, INK, True)
            surface.blit(img, (x + px(20), y + px(9) - img.get_height() // 2))
            x += px(20) + img.get_width() + px(10)
        badges: list[tuple[str, Color]] = []
        if view.get("longest_road") == q:
            badges.append((self.ctx.tr("table.longest_road_short"), (176, 112, 40)))
        if view.get("largest_army") == q:
            badges.append((self.ctx.tr("table.largest_army_short"), (150, 60, 60)))
        if seat.get("discard_owed"):
            badges.append((self.ctx.tr("table.discard_owed", n=seat["discard_owed"]), BAD))
        bx = rect.right - px(8)
        for label, bc in badges:
            img = t.render(label, 10, (255, 255, 255), True)
            pill = pygame.Rect(0, 0, img.get_width() + px(10), img.get_height() + px(4))
            # (lower in the lower panels of five and six seats: clear of "VP")
            pill.bottomright = (bx, rect.bottom - (px(6) if rect.h >= px(74) else px(2)))
            if pill.x < x:
                break
            pygame.draw.rect(surface, bc, pill, border_radius=px(4))
            surface.blit(img, (pill.x + px(5), pill.y + px(2)))
            bx = pill.x - px(4)

    def _draw_histogram(self, surface: pygame.Surface) -> None:
        t = self.ui.text
        px = self.ui.px
        r = self.rects["histogram"]
        if r.h <= 0:  # no room for it (six seats in a small window)
            return
        panel(surface, r, PANEL_BG, CARD_EDGE, px(10), solid_shadow=TABLE_SHADOW)
        m = self.ctx.model
        total = sum(m.dice)
        t.draw(surface, self.ctx.tr("table.dice_title", n=total), (r.x + px(10), r.y + px(5)), 12,
               INK_SOFT, True)
        view = m.view
        last = sum(view["last_roll"]) if view and view.get("last_roll") else None
        top = max(1, max(m.dice[2:13]))
        # the tallest bar's count sits above it, below the title
        label = px(11)
        inner = pygame.Rect(r.x + px(10), r.y + px(22) + label, r.w - px(20),
                            r.h - px(40) - label)
        bw = inner.w / 11
        for i, v in enumerate(range(2, 13)):
            n = m.dice[v]
            x = inner.x + i * bw
            # the expected share as a faint outline
            exp = (6 - abs(7 - v)) / 36 * total
            eh = min(inner.h, exp / top * inner.h) if total else 0
            if eh:
                pygame.draw.rect(surface, (222, 210, 184),
                                 (round(x + bw * 0.15), round(inner.bottom - eh), round(bw * 0.7),
                                  round(eh)), border_radius=px(2))
            h = n / top * inner.h
            col = GOLD if v == last else (RED_NUMBER if v in (6, 8) else (84, 110, 150))
            if v == 7:
                col = GOLD if v == last else (60, 60, 66)
            if h:
                pygame.draw.rect(surface, col, (round(x + bw * 0.22), round(inner.bottom - h),
                                                round(bw * 0.56), round(h)), border_radius=px(2))
                if n:
                    t.draw(surface, str(n), (x + bw / 2, inner.bottom - h - px(1)), 9, INK_SOFT,
                           False, "midbottom")
            t.draw(surface, str(v), (x + bw / 2, inner.bottom + px(2)), 11,
                   RED_NUMBER if v in (6, 8) else INK, True, "midtop")

    def _refresh_log(self) -> None:
        m = self.ctx.model
        events = m.events
        last = events[-1] if events else None
        notes = self.notes
        tumbling = bool(self.dice_anim)
        key = (len(events), id(last), m.changes if not events else 0, len(m.table_seats),
               len(notes), id(notes[-1]) if notes else 0, tumbling)
        if key == self._log_key:
            return
        self._log_key = key
        lines: list[tuple[str, int | None]] = []
        view = m.view
        width = self.rects["log"].w - self.ui.px(34)
        cache = self._log_cache
        fresh: dict[int, tuple[object, list[tuple[str, int | None]]]] = {}
        shown = list(events)[-120:]
        if tumbling:  # the roll (and what it brought) shows once the dice settle
            for i in range(len(shown) - 1, -1, -1):
                if shown[i].get("type") == "dice_rolled":
                    del shown[i:]
                    break
        added = 0
        for ev in shown:
            hit = cache.get(id(ev))
            if hit is not None and hit[0] is ev:
                ev_lines = hit[1]
            else:
                ev_lines = []
                for text, about in describe(ev, self.ctx.tr, self.ui.seat_name, view):
                    for i, part in enumerate(self.ui.text.wrap(text, 12, width)):
                        ev_lines.append((part, about if i == 0 else None))
            if hit is None or hit[0] is not ev:
                added += len(ev_lines) if cache else 0  # news (not the first look)
            fresh[id(ev)] = (ev, ev_lines)
            lines.extend(ev_lines)
            for anchor, note in notes:
                if anchor is ev:
                    lines.extend((part, None) for part in self.ui.text.wrap(note, 12, width))
        lines = [(part, None) for anchor, note in notes if anchor is None
                 for part in self.ui.text.wrap(note, 12, width)] + lines
        self._log_cache = fresh
        if self.log_scroll > 0 and added > 0:  # scrolled up: the view stays where it is
            self.log_scroll += added
            self.log_new += added
        elif self.log_scroll == 0:
            self.log_new = 0
        self._log_lines = lines

    def log_area(self) -> pygame.Rect:
        """The log's panel: all of its place, or what an open trade's panel leaves
        of it (the trade panel takes the histogram's place and the log's top)."""
        r = self.rects["log"]
        if not self.trade_panel.visible:
            return r
        top = self.trade_panel.rect.bottom + self.ui.px(8)
        return pygame.Rect(r.x, max(r.y, top), r.w, r.bottom - max(r.y, top))

    def _draw_log(self, surface: pygame.Surface) -> None:
        self._refresh_log()
        t = self.ui.text
        px = self.ui.px
        r = self.log_area()
        if r.h < px(44):
            self.log_cue = pygame.Rect(0, 0, 0, 0)
            return  # the open trade takes it all
        panel(surface, r, PANEL_BG, CARD_EDGE, px(10), solid_shadow=TABLE_SHADOW)
        t.draw(surface, self.ctx.tr("table.log_title"), (r.x + px(10), r.y + px(5)), 12, INK_SOFT,
               True)
        line_h = px(16)
        area = pygame.Rect(r.x + px(8), r.y + px(24), r.w - px(16), r.h - px(30))
        shown, self.log_scroll = _last_rows(self._log_lines, self.log_scroll,
                                            max(1, area.h // line_h))
        y = area.bottom - len(shown) * line_h
        for text, about in shown:
            if about is not None:
                self._bullet(surface, about, (area.x + px(6), y + line_h // 2))
            t.draw(surface, text, (area.x + px(16), y + line_h // 2), 12, INK, False, "midleft")
            y += line_h
        self.log_cue = pygame.Rect(0, 0, 0, 0)
        if self.log_scroll > 0:  # not at the newest line: say so, a click goes back
            label = self.ctx.tr("table.log_new", n=self.log_new) if self.log_new \
                else self.ctx.tr("table.log_newest")
            img = t.render(label, 11, (255, 255, 255), True)
            cue = pygame.Rect(0, 0, img.get_width() + px(14), img.get_height() + px(6))
            cue.bottomright = (r.right - px(8), r.bottom - px(6))
            pygame.draw.rect(surface, (40, 140, 200) if self.log_new else (110, 118, 130), cue,
                             border_radius=cue.h // 2)
            surface.blit(img, (cue.x + px(7), cue.y + px(3)))
            self.log_cue = cue

    def _bullet(self, surface: pygame.Surface, owner: int, center: tuple[int, int]) -> None:
        """A seat's bullet in the log and the chat, in the palette's colour (and,
        with the colour-blind palette, in its mark's shape)."""
        px = self.ui.px
        col = owner_color(owner, self._players())
        mark = owner_mark(owner)
        if mark is not None:
            draw_mark(surface, mark, center, px(5), col, shade(col, -0.45))
            return
        pygame.draw.circle(surface, shade(col, -0.45), center, px(5))
        pygame.draw.circle(surface, col, center, px(4))

    def _refresh_chat(self) -> None:
        m = self.ctx.model
        chat = m.chat
        last = chat[-1] if chat else None
        key = (len(chat), id(last), len(m.table_seats), palette.name())
        if key == self._chat_key:
            return
        self._chat_key = key
        width = self.rects["chat"].w - self.ui.px(24)
        out: list[tuple[str, Color | None, str]] = []
        for msg in list(chat)[-60:]:
            seat = msg.get("seat")
            name = (self.ui.seat_name(seat) if isinstance(seat, int)
                    else str(msg.get("name") or self.ctx.tr("table.spectator")))
            col = owner_color(seat, self._players()) if isinstance(seat, int) else None
            text = f"{name}: {msg.get('text', '')}"
            for i, part in enumerate(self.ui.text.wrap(text, 12, width)):
                out.append((part, col if i == 0 else None, name if i == 0 else ""))
        self._chat_lines = out

    def _draw_chat(self, surface: pygame.Surface) -> None:
        self._refresh_chat()
        t = self.ui.text
        px = self.ui.px
        r = self.rects["chat"]
        panel(surface, r, PANEL_BG, CARD_EDGE, px(10), solid_shadow=TABLE_SHADOW)
        t.draw(surface, self.ctx.tr("table.chat_title"), (r.x + px(10), r.y + px(5)), 12, INK_SOFT,
               True)
        line_h = px(17)
        area = pygame.Rect(r.x + px(10), r.y + px(24), r.w - px(20),
                           self.chat.rect.y - r.y - px(28))
        shown, self.chat_scroll = _last_rows(self._chat_lines, self.chat_scroll,
                                             max(1, area.h // line_h))
        y = area.bottom - len(shown) * line_h
        for text, col, name in shown:
            if col is not None and name and text.startswith(name):
                nr = t.draw(surface, name, (area.x, y + line_h // 2), 12, shade(col, -0.35)
                            if col != (240, 240, 240) else INK_SOFT, True, "midleft")
                t.draw(surface, text[len(name):], (nr.right, y + line_h // 2), 12, INK, False,
                       "midleft")
            else:
                t.draw(surface, text, (area.x, y + line_h // 2), 12, INK, False, "midleft")
            y += line_h

    def _draw_bottom(self, surface: pygame.Surface, view: dict[str, Any]) -> None:
        t = self.ui.text
        px = self.ui.px
        r = self.rects["bottom"]
        pygame.draw.rect(surface, PANEL_DARK, r)
        pygame.draw.line(surface, PANEL_DARK_EDGE, r.topleft, r.topright, 2)
        you = view.get("you")
        if you is None or self.ctx.model.seat is None:
            t.draw(surface, self.ctx.tr("table.spectating"), r.center, 18, CREAM, True, "center")
            return
        hand = you["hand"]
        t.draw(surface, self.ctx.tr("table.hand", n=sum(hand)),
               (self.rects["hand_res"].x, self.rects["hand"].y), 12, (200, 210, 222), True)
        for res, rect in self.hand_rects.items():
            self._draw_card(surface, rect, RESOURCE_COLORS[res], hand[res],
                            resource_icon(res, px(34)))
        t.draw(surface, self.ctx.tr("table.dev_cards"),
               (self.rects["hand_dev"].x, self.rects["hand"].y), 12, (200, 210, 222), True)
        playable = set(you.get("dev_playable", []))
        legal_types = {type(a) for a in self.ctx.model.legal}
        for card, rect in self.dev_rects.items():
            n = you["dev_cards"][card]
            new = you["dev_new"][card]
            kind = _PLAY_ACTIONS.get(card)
            can = (kind is not None and kind in legal_types and _DEV_KEYS[card] in playable)
            self._draw_card(surface, rect, DEV_COLORS[card], n, dev_icon(card, px(32)),
                            glow=can, new=new)

    def _draw_hand_hover(self, surface: pygame.Surface, view: dict[str, Any]) -> None:
        """The card under the mouse: its name above it, and a ring when it can be played."""
        if self.hover is None or view.get("you") is None or self.ctx.model.seat is None:
            return
        px = self.ui.px
        for kind, rects in (("res", self.hand_rects), ("dev", self.dev_rects)):
            for i, rect in rects.items():
                if not rect.collidepoint(self.hover):
                    continue
                if kind == "res":
                    label = self.ctx.tr(f"table.res.{_res(i)}")
                else:
                    label = self.ctx.tr(f"table.dev.{_DEV_KEYS[i]}")
                    if self._playable(i, view):
                        pygame.draw.rect(surface, (255, 255, 255), rect.inflate(px(6), px(6)),
                                         px(3), border_radius=px(9))
                img = self.ui.text.render(label, 12, (255, 255, 255), True)
                tip = pygame.Rect(0, 0, img.get_width() + px(12), img.get_height() + px(6))
                tip.midbottom = (rect.centerx, rect.y - px(6))
                tip.clamp_ip(self.rects["bottom"].inflate(0, px(40)))
                pygame.draw.rect(surface, (20, 26, 34), tip, border_radius=px(5))
                surface.blit(img, (tip.x + px(6), tip.y + px(3)))
                return

    def _playable(self, card: int, view: dict[str, Any]) -> bool:
        kind = _PLAY_ACTIONS.get(card)
        you = view.get("you") or {}
        return (kind is not None and any(type(a) is kind for a in self.ctx.model.legal)
                and _DEV_KEYS[card] in you.get("dev_playable", []))

    def _draw_card(self, surface: pygame.Surface, rect: pygame.Rect, color: Color, count: int,
                   icon: pygame.Surface, glow: bool = False, new: int = 0) -> None:
        t = self.ui.text
        px = self.ui.px
        dim = count == 0
        fill = shade(color, 0.62) if not dim else (120, 126, 136)
        edge = shade(color, -0.35) if not dim else (96, 100, 110)
        if glow:  # playable now
            pygame.draw.rect(surface, (255, 226, 110), rect.inflate(px(6), px(6)),
                             border_radius=px(9))
        pygame.draw.rect(surface, edge, rect, border_radius=px(7))
        pygame.draw.rect(surface, fill, rect.inflate(-px(4), -px(4)), border_radius=px(6))
        ix = rect.centerx - icon.get_width() // 2
        iy = rect.y + px(4)
        if dim:
            icon = icon.copy()
            icon.set_alpha(110)
        surface.blit(icon, (ix, iy))
        t.draw(surface, str(count), (rect.centerx, rect.bottom - px(3)), 17,
               INK if not dim else (60, 60, 66), True, "midbottom")
        if new:
            img = t.render(self.ctx.tr("table.new", n=new), 9, (255, 255, 255), True)
            pill = pygame.Rect(0, 0, img.get_width() + px(6), img.get_height() + px(2))
            pill.topright = (rect.right + px(3), rect.y - px(5))
            pygame.draw.rect(surface, (40, 140, 200), pill, border_radius=px(4))
            surface.blit(img, (pill.x + px(3), pill.y + px(1)))


def _res(res: int) -> str:
    return ("lumber", "brick", "wool", "grain", "ore")[res]


_Row = TypeVar("_Row")


def _last_rows(lines: list[_Row], scroll: int, rows: int) -> tuple[list[_Row], int]:
    """The ``rows`` lines shown by a panel that sticks to its bottom, ``scroll``
    lines up from the end (clamped); returns them and the clamped scroll."""
    scroll = min(scroll, max(0, len(lines) - rows))
    end = len(lines) - scroll
    return lines[max(0, end - rows):end], scroll
