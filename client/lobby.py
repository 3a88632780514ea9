"""The lobby: connect to a server, find servers on the LAN, list, create, join
and watch tables, and wait at a table until its game starts.

The lobby reads ``ctx.model`` and sends intents with ``ctx.send``; it never
changes the model. Connecting (which makes a new network client) and
switching the language are the App's business: the lobby calls the hooks it
was given (``on_connect``, ``on_disconnect``, ``on_lang``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pygame

from . import palette
from .describe import kind_label, player_name
from .focus import FocusRing, Stop, reading_order, widget_stops
from .model import CONNECTING, OFFLINE
from .net import parse_address
from .scene import Context, Scene
from .widgets import (
    BG,
    BUTTON_OFF,
    GOOD,
    PANEL,
    PANEL_EDGE,
    TEXT,
    TEXT_DIM,
    TEXT_LIGHT,
    WARN,
    Button,
    Checkbox,
    ListView,
    Segmented,
    Selector,
    Stepper,
    TextInput,
    draw_panel,
    draw_text,
    fit_text,
)

Message = dict[str, Any]

OPTIONS = ("balanced_map", "shuffle_harbors", "harbor_delay", "strict_phases", "balanced_dice")
TIMER_CHOICES = (0, 15, 30, 45, 60, 90, 120, 180, 300)
REFRESH_EVERY = 3.0
"""Seconds between table-list refreshes while the lobby is shown."""
LANGUAGES = (("ja", "日本語"), ("en", "English"))
LAN_OFF = "off"
"""``discovery_note`` for discovery turned off by the user (``--no-discovery``)."""


def bot_kinds() -> list[str]:
    """The bots a new table may seat: one per level, weakest first (``bots.levels``)."""
    from bots.levels import LEVELS

    return list(LEVELS.values())


def bot_label(ctx: Context, kind: str) -> str:
    """A bot kind by its level ("Bot (Normal)")."""
    return ctx.tr("bot.name_plain", level=kind_label(kind, ctx.tr))


def settings_text(ctx: Context, settings: dict[str, Any], timer: int | None = None) -> str:
    """One line: players, VP target and the options that are on."""
    tr = ctx.tr
    parts = [tr("lobby.settings.line", players=settings.get("players", 4),
                vp=settings.get("vp_target", 10))]
    if settings.get("players") == 2:
        parts.append(tr("lobby.opt.two_player"))
    parts += [tr(f"lobby.opt.{o}") for o in OPTIONS if settings.get(o)]
    if timer:
        parts.append(tr("lobby.timer", seconds=timer))
    return " · ".join(parts)


class LobbyScene(Scene):
    """See the module docstring. ``servers``: the LAN browser's list (a callable);
    ``discovery_note``: why LAN discovery is off, if it is."""

    def __init__(self, ctx: Context, *, name: str = "", address: str = "",
                 on_connect: Callable[..., None] | None = None,
                 on_disconnect: Callable[[], None] | None = None,
                 on_lang: Callable[[str], str] | None = None,
                 servers: Callable[[], list[Any]] | None = None,
                 discovery_note: str | None = None, play: Any = None) -> None:
        super().__init__(ctx)
        self.play = play  # kaitaku play's App: the kept game to continue, a new game
        self.on_connect = on_connect
        self.on_disconnect = on_disconnect
        self.on_lang = on_lang
        self.servers = servers or (lambda: [])
        self.tls_address: str | None = None  # the picked LAN server's address, if it wants TLS
        self.discovery_note = discovery_note
        self.message: str | None = None  # a local problem (bad address, ...)
        self.address_text = address
        self.focus = FocusRing()  # Tab / arrows / Enter once connected (client.focus)
        self.creator_of: str | None = None  # the table this client created
        self.created: Message | None = None  # the create_table message it was created with
        self._create_msg: Message | None = None
        self._create_pending = False
        self._errors_seen = 0
        self._refresh_in = 0.0
        self._last_table: str | None = None
        self._last_mode = ""
        w, h = ctx.options.get("size", (1280, 800))
        self.size = (int(w), int(h))
        # widgets (placed by _layout)
        self.address_input = TextInput(pygame.Rect(0, 0, 10, 10), address, "127.0.0.1:7878",
                                       max_len=100, on_submit=lambda _t: self.connect())
        self.name_input = TextInput(pygame.Rect(0, 0, 10, 10), name, "Player", max_len=32,
                                    on_submit=lambda _t: self.connect())
        self.lang_toggle = Segmented(pygame.Rect(0, 0, 10, 10), list(LANGUAGES), ctx.tr.lang,
                                     self._set_lang)
        self.connect_button = Button(pygame.Rect(0, 0, 10, 10), "", self._connect_clicked)
        self.server_list = ListView(pygame.Rect(0, 0, 10, 10), 52, self._draw_server_row,
                                    on_select=self._server_selected,
                                    on_activate=self._server_activated)
        self.table_list = ListView(pygame.Rect(0, 0, 10, 10), 44, self._draw_table_row,
                                   on_activate=lambda _i: self.join_selected())
        self.refresh_button = Button(pygame.Rect(0, 0, 10, 10), "", self.refresh)
        self.new_button = Button(pygame.Rect(0, 0, 10, 10), "", self.open_create)
        self.join_button = Button(pygame.Rect(0, 0, 10, 10), "", self.join_selected)
        self.spectate_button = Button(pygame.Rect(0, 0, 10, 10), "", self.spectate_selected)
        self.start_button = Button(pygame.Rect(0, 0, 10, 10), "", self.start)
        self.leave_button = Button(pygame.Rect(0, 0, 10, 10), "", self.leave)
        self.seat_buttons: list[Button] = []
        self.continue_button = Button(pygame.Rect(0, 0, 10, 10), "", self._continue)
        self.new_game_button = Button(pygame.Rect(0, 0, 10, 10), "", self._new_game)
        self.solo = play is not None
        """kaitaku play: a simple screen (continue, or a new game) instead of the
        whole lobby, until "Show the lobby" asks for it."""
        self.show_lobby_button = Button(pygame.Rect(0, 0, 10, 10), "", self._show_lobby)
        self.play_text_rect = pygame.Rect(0, 0, 0, 0)  # where the kept game's line was drawn
        self.inputs = [self.address_input, self.name_input]
        self._layout()
        self._relabel()

    # -- what the lobby shows ------------------------------------------------------------

    @property
    def mode(self) -> str:
        """offline, connecting, lobby (online, no table) or waiting (at a table)."""
        model = self.ctx.model
        if model.connection == OFFLINE:
            return "offline"
        if model.connection == CONNECTING:
            return "connecting"
        if model.table is not None:
            return "waiting"
        return "lobby"

    def selected_table(self) -> dict[str, Any] | None:
        i = self.table_list.selected
        if i is None or i >= len(self.table_list.items):
            return None
        item = self.table_list.items[i]
        return item if isinstance(item, dict) else None

    def current_table(self) -> dict[str, Any] | None:
        """The summary of the table we are at (from the last table list)."""
        tid = self.ctx.model.table
        return next((t for t in self.ctx.model.tables if t.get("id") == tid), None)

    # -- intents -------------------------------------------------------------------------

    def connect(self) -> None:
        """Connect to the address typed (the App makes the network client)."""
        try:
            host, port = parse_address(self.address_input.text or "127.0.0.1:7878")
        except ValueError:
            self.message = self.ctx.tr("lobby.bad_address")
            return
        name = self.name_input.text.strip()
        if not 1 <= len(name) <= 32:
            self.message = self.ctx.tr("lobby.bad_name")
            self.name_input.focus()
            return
        self.message = None
        self.address_text = f"{host}:{port}"
        for inp in self.inputs:
            inp.focus(False)
        if self.on_connect is not None:
            if self.tls_address is not None and self.tls_address == self.address_text:
                self.on_connect(host, port, name, tls=True)
            else:
                self.on_connect(host, port, name)

    def disconnect(self) -> None:
        if self.on_disconnect is not None:
            self.on_disconnect()

    def refresh(self) -> None:
        self._refresh_in = REFRESH_EVERY
        self.ctx.send({"type": "list_tables"})

    def create_table(self, settings: dict[str, Any], bots: list[str] | None = None,
                     name: str | None = None, turn_timer: int = 0) -> None:
        msg: Message = {"type": "create_table", "settings": dict(settings)}
        if name:
            msg["name"] = name[:32]
        if bots:
            msg["bots"] = list(bots)
        if turn_timer:
            msg["turn_timer"] = int(turn_timer)
        self._create_pending = True
        self._create_msg = msg
        self._errors_seen = self.ctx.model.error_count
        self.ctx.send(msg)

    def track_created(self) -> None:
        """Remember the table this client created, and with what (the App calls
        this every frame: a table full of bots starts before the lobby updates)."""
        model = self.ctx.model
        if model.table != self._last_table:
            if model.table is not None and self._create_pending:
                self.creator_of = model.table
                self.created = self._create_msg
            self._create_pending = False
            self._last_table = model.table
        if self._create_pending and model.error_count > self._errors_seen:
            self._create_pending = False  # the server refused the table

    def join(self, table: str, seat: int | None = None) -> None:
        msg: Message = {"type": "join", "table": table}
        if seat is not None:
            msg["seat"] = seat
        self.ctx.send(msg)

    def spectate(self, table: str) -> None:
        self.ctx.send({"type": "spectate", "table": table})

    def join_selected(self) -> None:
        t = self.selected_table()
        if t is not None and self._joinable(t):
            self.join(t["id"])

    def spectate_selected(self) -> None:
        t = self.selected_table()
        if t is not None:
            self.spectate(t["id"])

    def start(self) -> None:
        self.ctx.send({"type": "start"})

    def leave(self) -> None:
        self.ctx.send({"type": "leave"})

    def open_create(self) -> None:
        if self.mode == "lobby":
            self.ctx.stack.push(CreateTableDialog(self.ctx, self))

    # -- callbacks ---------------------------------------------------------------------

    def solo_screen(self) -> bool:
        """Whether the simple screen of kaitaku play shows (online to its server,
        at no table, the lobby not asked for)."""
        return self.solo and self.play is not None and self.mode == "lobby"

    def _show_lobby(self) -> None:
        self.solo = False
        self.focus.visible = False

    def _continue(self) -> None:
        if self.play is not None:
            self.play.continue_game()

    def _new_game(self) -> None:
        if self.play is not None:
            self.play.new_game()

    def play_offer(self) -> dict[str, Any] | None:
        """The kept game ``kaitaku play`` offers to continue (None: none)."""
        return getattr(self.play, "offer", None) if self.play is not None else None

    def _connect_clicked(self) -> None:
        if self.mode == "offline":
            self.connect()
        else:
            self.disconnect()

    def _set_lang(self, lang: str) -> None:
        if self.on_lang is not None:
            shown = self.on_lang(lang)
            self.lang_toggle.value = shown
        self._relabel()

    def _server_selected(self, i: int) -> None:
        server = self.server_list.items[i]
        address = getattr(server, "address", None)
        if isinstance(address, str):
            self.address_input.set_text(address)
            # a server that announced TLS is spoken to with TLS (at that address)
            self.tls_address = address if getattr(server, "tls", False) is True else None

    def _server_activated(self, i: int) -> None:
        self._server_selected(i)
        if self.mode == "offline":
            self.connect()

    @staticmethod
    def _joinable(t: dict[str, Any]) -> bool:
        return t.get("status") == "waiting" and any(
            s.get("kind") == "empty" for s in t.get("seats", []))

    # -- Scene ---------------------------------------------------------------------------

    def resized(self, size: tuple[int, int]) -> None:
        self.size = (int(size[0]), int(size[1]))
        self._layout()

    def enter(self) -> None:
        self._refresh_in = 0.0

    def focus_stops(self) -> list[Stop]:
        """The lobby's choices for the keyboard (connected: its buttons and lists)."""
        return reading_order(widget_stops(self._widgets(self.mode)))

    def handle(self, event: pygame.event.Event) -> bool:
        mode = self.mode
        if mode != "offline" and self._for_ring(event) \
                and self.focus.handle(event, self.focus_stops()):
            return True
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            self._tab(-1 if getattr(event, "mod", 0) & pygame.KMOD_SHIFT else 1)
            return True
        widgets = self._widgets(mode)
        used = False
        for w in widgets:
            if w.handle(event):
                used = True
                if event.type != pygame.MOUSEMOTION:
                    break
        if event.type == pygame.KEYDOWN and not used:
            if event.key == pygame.K_F5 and mode == "lobby":
                self.refresh()
                return True
            if event.key == pygame.K_n and getattr(event, "mod", 0) & pygame.KMOD_CTRL:
                self.open_create()
                return True
        return used

    def _for_ring(self, event: pygame.event.Event) -> bool:
        """Events the focus ring looks at: a click (it hides the ring), Tab, and the
        arrows, Enter and Space while the ring shows (else a list's own arrows)."""
        if event.type == pygame.MOUSEBUTTONDOWN:
            return True
        if event.type != pygame.KEYDOWN:
            return False
        if event.key == pygame.K_TAB:
            return True
        return self.focus.visible and event.key in (
            pygame.K_LEFT, pygame.K_RIGHT, pygame.K_UP, pygame.K_DOWN, pygame.K_RETURN,
            pygame.K_KP_ENTER, pygame.K_SPACE)

    def _widgets(self, mode: str) -> list[Any]:
        """The widgets that take input in ``mode``."""
        if mode == "lobby" and self.solo_screen():
            solo: list[Any] = [self.lang_toggle]
            if self.play_offer() is not None:
                solo.append(self.continue_button)
            return [*solo, self.new_game_button, self.show_lobby_button]
        widgets: list[Any] = [self.lang_toggle, self.connect_button]
        if self.play is None:  # kaitaku play shows its game there instead
            widgets.append(self.server_list)
        if mode == "offline":
            widgets += self.inputs
        if mode == "lobby":
            widgets += [self.refresh_button, self.new_button, self.join_button,
                        self.spectate_button, self.table_list, *self.seat_buttons]
            if self.play is not None:
                widgets.append(self.new_game_button)
                if self.play_offer() is not None:
                    widgets.append(self.continue_button)
        if mode == "waiting":
            widgets += [self.start_button, self.leave_button]
        return widgets

    def next_frame(self) -> float | None:
        """A focused field's caret blinks (servers found on the LAN and the table
        list come in between, at the App's idle pace or as news)."""
        return 0.5 if any(w.focused for w in self.inputs) else None

    def _tab(self, step: int) -> None:
        if self.mode != "offline":
            return
        focused = next((i for i, w in enumerate(self.inputs) if w.focused), -1)
        for w in self.inputs:
            w.focus(False)
        self.inputs[(focused + step) % len(self.inputs)].focus()

    def update(self, dt: float) -> None:
        model = self.ctx.model
        mode = self.mode
        for inp in self.inputs:
            inp.update(dt)
            inp.enabled = mode == "offline"
        self.track_created()
        # refresh the table list now and then while online
        online = mode in ("lobby", "waiting")
        if mode != self._last_mode:  # connected, joined, left: a fresh list
            self._refresh_in = 0.0
        self._last_mode = mode
        if online and self.ctx.stack.top is self:
            self._refresh_in -= dt
            if self._refresh_in <= 0:
                self.refresh()
        self.server_list.set_items(list(self.servers()), keep=lambda s: getattr(s, "service", s))
        self.table_list.set_items(list(model.tables), keep=_table_id)
        self._update_seat_buttons()
        self._place_play_buttons()
        self._relabel()

    def _update_seat_buttons(self) -> None:
        t = self.selected_table()
        self.seat_buttons = []
        if t is None or t.get("status") != "waiting":
            return
        area = self._detail_rect()
        for i, seat in enumerate(t.get("seats", [])):
            if seat.get("kind") != "empty":
                continue
            row = self._seat_row(area, i)
            if row.bottom > area.bottom + 4:  # not shown (a small window)
                break
            rect = pygame.Rect(row.right - 130, row.y + 3, 130, row.h - 6)
            self.seat_buttons.append(Button(rect, self.ctx.tr("lobby.sit"),
                                            partial(self.join, str(t["id"]), i)))

    def _relabel(self) -> None:
        tr, mode = self.ctx.tr, self.mode
        self.connect_button.label = tr("lobby.connect" if mode == "offline" else
                                       "lobby.cancel_connect" if mode == "connecting" else
                                       "lobby.disconnect")
        self.refresh_button.label = tr("lobby.tables.refresh")
        self.new_button.label = tr("lobby.tables.new")
        self.join_button.label = tr("lobby.join")
        self.spectate_button.label = tr("lobby.spectate")
        self.start_button.label = tr("lobby.wait.start")
        self.leave_button.label = tr("lobby.leave")
        t = self.selected_table()
        self.join_button.enabled = t is not None and self._joinable(t)
        self.spectate_button.enabled = t is not None
        at = self.ctx.model.table
        may_start = self.ctx.model.can_start  # said by a 1.2 server
        if may_start is None:
            may_start = at is not None and at == self.creator_of
        self.start_button.enabled = (at is not None and may_start
                                     and self.ctx.model.table_status in (None, "waiting"))
        self.address_input.placeholder = "127.0.0.1:7878"
        self.name_input.placeholder = tr("lobby.name")
        self.lang_toggle.value = self.ctx.tr.lang

    # -- layout --------------------------------------------------------------------------

    def _layout(self) -> None:
        w, h = self.size
        margin, header = 24, 76
        left_w = max(300, min(400, w // 3))
        self.left = pygame.Rect(margin, header, left_w, h - header - margin)
        self.right = pygame.Rect(self.left.right + margin, header,
                                 w - self.left.right - 2 * margin, h - header - margin)
        self.lang_toggle.rect = pygame.Rect(w - margin - 220, 20, 220, 36)
        # connect panel
        self.connect_panel = pygame.Rect(self.left.x, self.left.y, self.left.w, 300)
        inner = self.connect_panel.inflate(-24, -24)
        y = inner.y + 44
        self.address_label_pos = (inner.x, y)
        self.address_input.rect = pygame.Rect(inner.x, y + 22, inner.w, 36)
        y += 66
        self.name_label_pos = (inner.x, y)
        self.name_input.rect = pygame.Rect(inner.x, y + 22, inner.w, 36)
        y += 70
        self.connect_button.rect = pygame.Rect(inner.x, y, 150, 38)
        self.status_pos = (inner.x, y + 46)  # up to two lines under the button
        # LAN panel
        self.lan_panel = pygame.Rect(self.left.x, self.connect_panel.bottom + 16, self.left.w,
                                     self.left.bottom - self.connect_panel.bottom - 16)
        inner = self.lan_panel.inflate(-24, -24)
        self.server_list.rect = pygame.Rect(inner.x, inner.y + 44, inner.w,
                                            max(52, inner.h - 44 - 26))
        # kaitaku play: continue the kept game, or a new one (in place of the LAN list),
        # or on its own simple screen (a card in the middle of the window)
        self.solo_panel = pygame.Rect(0, 0, min(620, w - 2 * margin), 330)
        self.solo_panel.center = (w // 2, (h + header) // 2 - 20)
        self._place_play_buttons()
        # tables panel
        inner = self.right.inflate(-24, -24)
        bw = 130
        self.new_button.rect = pygame.Rect(inner.right - bw, inner.y - 4, bw, 34)
        self.refresh_button.rect = pygame.Rect(self.new_button.rect.x - bw - 10, inner.y - 4,
                                               bw, 34)
        list_h = max(120, int(inner.h * 0.44))
        self.header_y = inner.y + 44
        self.table_list.rect = pygame.Rect(inner.x, self.header_y + 26, inner.w, list_h - 26)
        bottom = inner.bottom
        self.join_button.rect = pygame.Rect(inner.right - 2 * bw - 10, bottom - 38, bw, 38)
        self.spectate_button.rect = pygame.Rect(inner.right - bw, bottom - 38, bw, 38)
        # waiting room
        self.start_button.rect = pygame.Rect(inner.x, bottom - 42, 320, 42)
        self.leave_button.rect = pygame.Rect(inner.right - bw, bottom - 42, bw, 42)

    def _place_play_buttons(self) -> None:
        """kaitaku play's buttons: on its simple screen, or in the lobby's left panel
        (below the title and two lines of text)."""
        if self.solo_screen():
            inner = self.solo_panel.inflate(-48, -24)
            self.continue_button.rect = pygame.Rect(inner.x, self.solo_panel.y + 150,
                                                    inner.w, 56)
            self.new_game_button.rect = pygame.Rect(inner.x, self.solo_panel.y + 218,
                                                    inner.w, 44)
            self.show_lobby_button.rect = pygame.Rect(inner.right - 220,
                                                      self.solo_panel.bottom - 50, 220, 34)
            return
        inner = self.lan_panel.inflate(-24, -24)
        self.continue_button.rect = pygame.Rect(inner.x, inner.y + 96, inner.w, 44)
        self.new_game_button.rect = pygame.Rect(inner.x, inner.y + 150, inner.w, 40)

    def _detail_rect(self) -> pygame.Rect:
        top = self.table_list.rect.bottom + 16
        return pygame.Rect(self.table_list.rect.x, top, self.table_list.rect.w,
                           self.join_button.rect.y - 10 - top)

    @staticmethod
    def _seat_row(area: pygame.Rect, i: int, first: int = 52) -> pygame.Rect:
        return pygame.Rect(area.x, area.y + first + i * 36, area.w, 32)

    # -- drawing -------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        surface.fill(BG)
        _draw_waves(surface)
        draw_text(surface, font(34, True), tr("app.title"), (24, 14), TEXT_LIGHT)
        title_w = font(34, True).size(tr("app.title"))[0]
        draw_text(surface, font(18), tr("lobby.subtitle"), (24 + title_w + 16, 34),
                  (200, 220, 240))
        draw_text(surface, font(15), tr("lobby.language"),
                  (self.lang_toggle.rect.x - 10, self.lang_toggle.rect.centery), TEXT_LIGHT,
                  "midright")
        self.lang_toggle.draw(surface, font(18))
        if self.solo_screen():
            self._draw_solo(surface)
            if self.focus.visible and self.ctx.stack.top is self:
                self.focus.draw(surface, self.focus_stops())
            return
        self._draw_connect(surface)
        if self.play is not None:
            self._draw_play(surface)
        else:
            self._draw_lan(surface)
        if self.mode == "waiting":
            self._draw_waiting(surface)
        else:
            self._draw_tables(surface)
        if self.focus.visible and self.ctx.stack.top is self:
            self.focus.draw(surface, self.focus_stops())

    def _draw_connect(self, surface: pygame.Surface) -> None:
        tr, font, model = self.ctx.tr, self.ctx.font, self.ctx.model
        draw_panel(surface, self.connect_panel, font(22, True), tr("lobby.connect.title"))
        draw_text(surface, font(15), tr("lobby.address"), self.address_label_pos, TEXT_DIM)
        self.address_input.draw(surface, font(18))
        draw_text(surface, font(15), tr("lobby.name"), self.name_label_pos, TEXT_DIM)
        self.name_input.draw(surface, font(18))
        self.connect_button.draw(surface, font(18, True))
        mode = self.mode
        width = self.connect_panel.right - 12 - self.status_pos[0]
        small = font(15)
        if self.message:
            text, color = self.message, (190, 52, 52)
        elif mode == "connecting":
            text, color = tr("lobby.connecting", address=self.address_text), WARN
        elif mode == "offline":
            detail = model.connection_detail
            text = detail if detail and detail != "closed" else tr("lobby.not_connected")
            color = (190, 52, 52) if detail and detail != "closed" else TEXT_DIM
        else:
            text = tr("lobby.connected", server=model.server_name or "?",
                      address=self.address_text)
            color = GOOD
        lines = _wrap_lines(small, text, width, 2)
        y = self.status_pos[1]
        for line in lines:
            draw_text(surface, small, line, (self.status_pos[0], y), color)
            y += small.get_linesize()

    def _play_text(self) -> str:
        """What kaitaku play keeps (and labels its buttons to match)."""
        tr = self.ctx.tr
        offer = self.play_offer()
        self.continue_button.label = tr("play.continue")
        self.show_lobby_button.label = tr("play.show_lobby")
        if offer is not None:
            self.new_game_button.label = tr("play.new_game_instead")
            return tr("play.kept", turn=offer.get("turn", 0),
                      bots=int(offer.get("players", 4)) - 1)
        self.new_game_button.label = tr("play.new_game")
        return tr("play.nothing_kept")

    def _draw_solo(self, surface: pygame.Surface) -> None:
        """kaitaku play's own screen: the kept game, continue it or start anew."""
        tr, font = self.ctx.tr, self.ctx.font
        text = self._play_text()
        inner = draw_panel(surface, self.solo_panel, font(24, True), tr("play.title"))
        body = font(18)
        y = inner.y + 8
        self.play_text_rect = pygame.Rect(inner.x, y, 0, 0)
        for line in _wrap_lines(body, text, inner.w, 3):
            self.play_text_rect.union_ip(draw_text(surface, body, line, (inner.x, y), TEXT))
            y += body.get_linesize()
        if self.play_offer() is not None:
            self.continue_button.draw(surface, font(20, True))
        self.new_game_button.draw(surface, font(17))
        self.show_lobby_button.draw(surface, font(15))

    def _draw_play(self, surface: pygame.Surface) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        inner = draw_panel(surface, self.lan_panel, font(22, True), tr("play.title"))
        if self.mode != "lobby":
            return
        offer = self.play_offer()
        small = font(15)
        text = self._play_text()
        y = inner.y  # under the title, above the buttons (they are placed below two lines)
        self.play_text_rect = pygame.Rect(inner.x, y, 0, 0)
        for line in _wrap_lines(small, text, inner.w, 2):
            self.play_text_rect.union_ip(draw_text(surface, small, line, (inner.x, y), TEXT))
            y += small.get_linesize()
        if offer is not None:
            self.continue_button.draw(surface, font(18, True))
        self.new_game_button.draw(surface, font(16))

    def _draw_lan(self, surface: pygame.Surface) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        inner = draw_panel(surface, self.lan_panel, font(22, True), tr("lobby.lan.title"))
        if not self.server_list.items:
            if self.discovery_note == LAN_OFF:
                note = tr("lobby.lan.off")
            elif self.discovery_note:
                note = tr("lobby.lan.unavailable", reason=self.discovery_note)
            else:
                note = tr("lobby.lan.searching")
            y = inner.y
            for line in _wrap_lines(font(15), note, inner.w, 6):
                draw_text(surface, font(15), line, (inner.x, y), TEXT_DIM)
                y += font(15).get_linesize()
        else:
            self.server_list.draw(surface)
            draw_text(surface, font(13), tr("lobby.lan.hint"),
                      (inner.x, self.lan_panel.bottom - 14), TEXT_DIM, "bottomleft")

    def _draw_server_row(self, surface: pygame.Surface, rect: pygame.Rect, item: object,
                         selected: bool, hover: bool) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        name = str(getattr(item, "name", "?"))
        address = str(getattr(item, "address", ""))
        tables = getattr(item, "tables", None)
        compatible = bool(getattr(item, "compatible", True))
        pygame.draw.circle(surface, GOOD if compatible else BUTTON_OFF,
                           (rect.x + 14, rect.y + 17), 6)
        draw_text(surface, font(17, True), fit_text(font(17, True), name, rect.w - 40),
                  (rect.x + 28, rect.y + 6))
        info = address + (" · " + tr("lobby.lan.tls") if getattr(item, "tls", False) else "")
        if not compatible:
            info += " · " + tr("lobby.lan.incompatible", version=getattr(item, "version", "?"))
        elif tables is not None:
            info += " · " + tr("lobby.lan.tables", count=tables)
        draw_text(surface, font(14), fit_text(font(14), info, rect.w - 40),
                  (rect.x + 28, rect.y + 29), TEXT_DIM)

    def _columns(self) -> list[tuple[str, int, int]]:
        """(title key, x, width) of the table list's columns."""
        r = self.table_list.rect
        spec = (("lobby.col.name", 0.36), ("lobby.col.players", 0.12),
                ("lobby.col.seats", 0.24), ("lobby.col.status", 0.16),
                ("lobby.col.watching", 0.12))
        out, x = [], r.x + 10
        for key, frac in spec:
            width = int((r.w - 20) * frac)
            out.append((key, x, width))
            x += width
        return out

    def _draw_tables(self, surface: pygame.Surface) -> None:
        tr, font, mode = self.ctx.tr, self.ctx.font, self.mode
        inner = draw_panel(surface, self.right, font(22, True), tr("lobby.tables.title"))
        if mode != "lobby":
            draw_text(surface, font(17), tr("lobby.tables.offline"), (inner.x, inner.y + 10),
                      TEXT_DIM)
            return
        self.refresh_button.draw(surface, font(16))
        self.new_button.draw(surface, font(16, True))
        for key, x, width in self._columns():
            draw_text(surface, font(14, True), fit_text(font(14, True), tr(key), width - 6),
                      (x, self.header_y), TEXT_DIM)
        pygame.draw.line(surface, PANEL_EDGE, (inner.x, self.table_list.rect.y - 3),
                         (inner.right, self.table_list.rect.y - 3))
        if self.table_list.items:
            self.table_list.draw(surface)
        else:
            draw_text(surface, font(17), tr("lobby.tables.none"),
                      (self.table_list.rect.x + 10, self.table_list.rect.y + 14), TEXT_DIM)
        self._draw_detail(surface)
        self.join_button.draw(surface, font(17, True))
        self.spectate_button.draw(surface, font(17))

    def _draw_table_row(self, surface: pygame.Surface, rect: pygame.Rect, item: object,
                        selected: bool, hover: bool) -> None:
        if not isinstance(item, dict):
            return
        tr, font = self.ctx.tr, self.ctx.font
        cols = self._columns()
        cy = rect.centery
        settings = item.get("settings", {})
        seats = item.get("seats", [])
        taken = sum(1 for s in seats if s.get("kind") != "empty")
        f = font(16)
        draw_text(surface, font(16, True),
                  fit_text(font(16, True), str(item.get("name", "?")), cols[0][2] - 8),
                  (cols[0][1], cy - 9), TEXT, "midleft")
        draw_text(surface, font(12), fit_text(font(12), settings_text(self.ctx, settings),
                                              cols[0][2] + cols[1][2] - 8),
                  (cols[0][1], cy + 11), TEXT_DIM, "midleft")
        draw_text(surface, f, f"{taken}/{len(seats)}", (cols[1][1], cy - 9), TEXT, "midleft")
        x = cols[2][1]
        for i, seat in enumerate(seats):
            _seat_chip(surface, (x + 11 + i * 28, cy), i, seat, f)
        status = str(item.get("status", ""))
        color = GOOD if status == "waiting" else WARN if status == "playing" else TEXT_DIM
        draw_text(surface, f, tr(f"lobby.status.{status}") if status else "",
                  (cols[3][1], cy), color, "midleft")
        draw_text(surface, f, str(item.get("spectators", 0)), (cols[4][1] + 12, cy), TEXT,
                  "midleft")

    def _draw_detail(self, surface: pygame.Surface) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        area = self._detail_rect()
        t = self.selected_table()
        if t is None:
            if self.table_list.items:
                draw_text(surface, font(16), tr("lobby.select_table"), (area.x + 4, area.y + 6),
                          TEXT_DIM)
            return
        draw_text(surface, font(20, True), fit_text(font(20, True), str(t.get("name")), area.w),
                  (area.x + 4, area.y))
        draw_text(surface, font(15),
                  fit_text(font(15), settings_text(self.ctx, t.get("settings", {})), area.w),
                  (area.x + 4, area.y + 28), TEXT_DIM)
        self._draw_seats(surface, area, t.get("seats", []), None,
                         waiting=t.get("status") == "waiting")
        for b in self.seat_buttons:
            b.draw(surface, font(15))

    def _draw_seats(self, surface: pygame.Surface, area: pygame.Rect,
                    seats: list[dict[str, Any]], mine: int | None, first: int = 52,
                    waiting: bool = True) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        f = font(16)
        for i, seat in enumerate(seats):
            row = self._seat_row(area, i, first)
            if row.bottom > area.bottom + 4:
                break
            pygame.draw.rect(surface, (238, 229, 206), row, border_radius=6)
            _seat_chip(surface, (row.x + 20, row.centery), i, seat, f)
            draw_text(surface, f, tr("lobby.seat", n=i + 1), (row.x + 40, row.centery), TEXT_DIM,
                      "midleft")
            kind = seat.get("kind", "empty")
            name = (player_name(str(seat["name"]), kind, tr) if seat.get("name")
                    else tr("lobby.seat.empty"))
            if i == mine:
                name = f"{name} ({tr('lobby.seat.you')})"
            draw_text(surface, font(16, kind != "empty"), fit_text(f, name, row.w // 2 - 60),
                      (row.x + 120, row.centery), TEXT if kind != "empty" else TEXT_DIM,
                      "midleft")
            notes = [tr(f"lobby.kind.{kind}")] if kind != "empty" else []
            if kind != "empty" and not seat.get("connected", True):
                notes.append(tr("lobby.seat.starting" if kind == "bot" and waiting
                                else "lobby.seat.offline"))
            if seat.get("auto"):
                notes.append(tr("lobby.seat.stand_in"))
            draw_text(surface, font(14), " · ".join(notes), (row.x + row.w // 2 + 80, row.centery),
                      TEXT_DIM, "midleft")

    def _draw_waiting(self, surface: pygame.Surface) -> None:
        tr, font, model = self.ctx.tr, self.ctx.font, self.ctx.model
        summary = self.current_table()
        name = (summary or {}).get("name") or model.table or ""
        inner = draw_panel(surface, self.right, font(22, True), tr("lobby.wait.title", name=name))
        settings = model.settings or (summary or {}).get("settings", {})
        draw_text(surface, font(16), fit_text(font(16), settings_text(self.ctx, settings),
                                              inner.w), (inner.x, inner.y), TEXT_DIM)
        seats = model.table_seats or (summary or {}).get("seats", [])
        area = pygame.Rect(inner.x, inner.y + 36, inner.w, inner.h - 100)
        self._draw_seats(surface, area, seats, model.seat, first=0)
        y = area.y + len(seats) * 36 + 16
        spectating = model.seat is None
        note = tr("lobby.wait.spectating") if spectating else tr("lobby.wait.waiting")
        for line in _wrap_lines(font(16), note, inner.w, 3):
            draw_text(surface, font(16), line, (inner.x, y), TEXT)
            y += font(16).get_linesize()
        if self.start_button.enabled:
            self.start_button.draw(surface, font(17, True))
        else:
            draw_text(surface, font(15), tr("lobby.wait.creator_only"),
                      (inner.x, self.start_button.rect.centery), TEXT_DIM, "midleft")
        self.leave_button.draw(surface, font(17))


class CreateTableDialog(Scene):
    """The settings of a new table (a modal dialog over the lobby)."""

    opaque = False

    def __init__(self, ctx: Context, lobby: LobbyScene) -> None:
        super().__init__(ctx)
        self.focus = FocusRing()
        self.lobby = lobby
        tr = ctx.tr
        self.kinds = ["human", *bot_kinds()]
        self.players = 4
        self.rect = pygame.Rect(0, 0, 720, 620)
        self.name_input = TextInput(pygame.Rect(0, 0, 10, 10), "",
                                    tr("lobby.create.name_default",
                                       name=lobby.name_input.text or "?"), max_len=32)
        self.players_stepper = Stepper(pygame.Rect(0, 0, 10, 10), 4, 2, 6,
                                       fmt=lambda n: str(n), on_change=self._players)
        self.vp_stepper = Stepper(pygame.Rect(0, 0, 10, 10), 10, 3, 20)
        self.timer_selector = Selector(pygame.Rect(0, 0, 10, 10), [
            (s, tr("lobby.create.seconds", seconds=s) if s else tr("lobby.create.off"))
            for s in TIMER_CHOICES])
        self.checks = {o: Checkbox(pygame.Rect(0, 0, 10, 10), tr(f"lobby.opt.{o}"))
                       for o in OPTIONS}
        # at kaitaku play's local server nobody else can sit down: bots by default
        first = self.kinds.index("heuristic") if lobby.play is not None else 0
        self.seat_selectors = [
            Selector(pygame.Rect(0, 0, 10, 10), self._kind_options(), first, wrap=True)
            for _ in range(5)]  # seats 2 to 6 (five and six players: R-56)
        self.create_button = Button(pygame.Rect(0, 0, 10, 10), tr("lobby.create.create"),
                                    self.submit)
        self.cancel_button = Button(pygame.Rect(0, 0, 10, 10), tr("common.cancel"), self.cancel)
        self._layout(ctx.options.get("size", (1280, 800)))

    def _kind_options(self) -> list[tuple[object, str]]:
        tr = self.ctx.tr
        return [(k, tr("lobby.kind.open") if k == "human" else bot_label(self.ctx, k))
                for k in self.kinds]

    def _players(self, n: int) -> None:
        self.players = n
        self._layout(self.ctx.options.get("size", (1280, 800)))

    def seat_kinds(self) -> list[str]:
        """The chosen kind of seats 2..players (seat 1 is the creator's)."""
        return [str(s.value) for s in self.seat_selectors[: self.players - 1]]

    def message(self) -> Message:
        """The create_table message for the current choices."""
        settings: dict[str, Any] = {"players": self.players_stepper.number,
                                    "vp_target": self.vp_stepper.number}
        for o, box in self.checks.items():
            settings[o] = box.checked
        kinds = self.seat_kinds()
        bots = [k for k in reversed(kinds) if k != "human"]  # the server seats bots from the last
        msg: Message = {"type": "create_table", "settings": settings}
        name = self.name_input.text.strip() or self.name_input.placeholder
        if name:
            msg["name"] = name[:32]
        if bots:
            msg["bots"] = bots
        timer = int(self.timer_selector.value)  # type: ignore[call-overload]
        if timer:
            msg["turn_timer"] = timer
        return msg

    def submit(self) -> None:
        msg = self.message()
        self.lobby.create_table(msg["settings"], msg.get("bots"), msg.get("name"),
                                msg.get("turn_timer", 0))
        self.ctx.stack.pop(self)

    def cancel(self) -> None:
        self.ctx.stack.pop(self)

    def resized(self, size: tuple[int, int]) -> None:
        self._layout(size)

    def _layout(self, size: tuple[int, int]) -> None:
        w, h = int(size[0]), int(size[1])
        self.rect = pygame.Rect(0, 0, min(720, w - 40), min(640, h - 40))
        self.rect.center = (w // 2, h // 2)
        inner = self.rect.inflate(-48, -48)
        label_w = 210
        field_w = inner.w - label_w
        # Five or six players need five seat rows: in a short window the
        # rows close up, and the seats take two columns.
        seats = max(4, self.players)
        checks = (len(self.checks) + 1) // 2 * 34 + 12
        tall_need = 50 + 4 * 46 + checks + seats * 40 + 8 + 26 + 42
        compact = tall_need > inner.h
        two_cols = compact and self.players > 4
        row_h, row_gap = (30, 4) if compact else (36, 10)
        x, y = inner.x, inner.y + (44 if compact else 50)
        self.rows: list[tuple[str, int]] = []

        def row(key: str, height: int = row_h) -> pygame.Rect:
            nonlocal y
            self.rows.append((key, y + height // 2))
            r = pygame.Rect(x + label_w, y, field_w, height)
            y += height + row_gap
            return r

        self.name_input.rect = row("lobby.create.name")
        self.players_stepper.rect = row("lobby.create.players").clip(
            pygame.Rect(x + label_w, 0, 200, h))
        self.vp_stepper.rect = row("lobby.create.vp").clip(pygame.Rect(x + label_w, 0, 200, h))
        self.timer_selector.rect = row("lobby.create.timer").clip(
            pygame.Rect(x + label_w, 0, 200, h))
        self.rules_y = y + 4
        self.rows.append(("lobby.create.rules", y + 16))
        col_w = field_w // 2
        check_step = 30 if compact else 34
        for i, box in enumerate(self.checks.values()):
            box.rect = pygame.Rect(x + label_w + (i % 2) * col_w, y + (i // 2) * check_step,
                                   col_w - 8, check_step - 4)
        y += (len(self.checks) + 1) // 2 * check_step + (6 if compact else 12)
        self.seats_y = y
        self.create_button.rect = pygame.Rect(inner.right - 150, inner.bottom - 42, 150, 42)
        self.cancel_button.rect = pygame.Rect(inner.right - 310, inner.bottom - 42, 150, 42)
        self.note_w = self.rect.right - 24 - (x + label_w)
        if two_cols:
            # seats 1-3 on the left, 4-6 on the right (their labels say "seat n": no
            # heading row), the note beside the buttons
            half = (inner.w - 12) // 2
            step = max(30, min(40, (self.create_button.rect.y - 4 - y) // 3))
            for i, sel in enumerate(self.seat_selectors):
                col, line = (i + 1) // 3, (i + 1) % 3
                sel.rect = pygame.Rect(x + col * (half + 12) + 110, y + step * line,
                                       half - 110, step - 5)
            self.you_pos = (x, y + (step - 5) // 2)
            self.note_pos = (x, self.create_button.rect.y + 12)
            self.note_w = self.cancel_button.rect.x - 12 - x
            return
        self.rows.append(("lobby.create.seats", y + 16))
        step = 36 if compact else 40
        tall = step - 6
        for i, sel in enumerate(self.seat_selectors):
            sel.rect = pygame.Rect(x + label_w + 110, y + step * (i + 1), field_w - 110, tall)
        self.you_pos = (x + label_w, y + 16)
        self.note_pos = (x + label_w, y + step * seats + 8)

    def next_frame(self) -> float | None:
        return 0.5 if self.name_input.focused else None

    def _widgets(self) -> list[Any]:
        return [self.name_input, self.players_stepper, self.vp_stepper, self.timer_selector,
                *self.checks.values(), *self.seat_selectors[: self.players - 1],
                self.create_button, self.cancel_button]

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.cancel()
            return True
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            self.name_input.focus(False)  # the ring moves on from the name too
        typing = self.name_input.focused
        if event.type == pygame.MOUSEBUTTONDOWN or (event.type == pygame.KEYDOWN and not typing):
            stops = reading_order(widget_stops(self._widgets()))
            if self.focus.handle(event, stops):
                return True
        if (event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER)
                and not self.name_input.focused):
            self.submit()
            return True
        for w in self._widgets():
            if w.handle(event) and event.type != pygame.MOUSEMOTION:
                return True
        return True  # modal: nothing reaches the lobby

    def update(self, dt: float) -> None:
        self.name_input.update(dt)
        if self.lobby.mode != "lobby":  # disconnected meanwhile
            self.ctx.stack.pop(self)

    def draw(self, surface: pygame.Surface) -> None:
        tr, font = self.ctx.tr, self.ctx.font
        veil = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        veil.fill((0, 0, 0, 120))
        surface.blit(veil, (0, 0))
        inner = draw_panel(surface, self.rect.inflate(24, 24), font(24, True),
                           tr("lobby.create.title"), PANEL)
        del inner
        f = font(17)
        for key, cy in self.rows:
            draw_text(surface, f, tr(key), (self.rect.x + 24, cy), TEXT, "midleft")
        self.name_input.draw(surface, f)
        self.players_stepper.draw(surface, font(18, True))
        self.vp_stepper.draw(surface, font(18, True))
        self.timer_selector.draw(surface, f)
        for box in self.checks.values():
            box.draw(surface, font(15))
        sx = self.you_pos[0]
        draw_text(surface, f, tr("lobby.seat", n=1), (sx, self.you_pos[1]), TEXT_DIM, "midleft")
        pygame.draw.circle(surface, palette.seat_color(0), (sx + 90, self.you_pos[1]), 8)
        pygame.draw.circle(surface, PANEL_EDGE, (sx + 90, self.you_pos[1]), 8, 1)
        draw_text(surface, font(17, True), tr("lobby.create.seat_you"),
                  (sx + 110, self.you_pos[1]), TEXT, "midleft")
        for i, sel in enumerate(self.seat_selectors[: self.players - 1]):
            sx = sel.rect.x - 110
            draw_text(surface, f, tr("lobby.seat", n=i + 2), (sx, sel.rect.centery), TEXT_DIM,
                      "midleft")
            pygame.draw.circle(surface, palette.seat_color(i + 1), (sx + 90, sel.rect.centery), 8)
            pygame.draw.circle(surface, PANEL_EDGE, (sx + 90, sel.rect.centery), 8, 1)
            sel.draw(surface, f)
        draw_text(surface, font(14), fit_text(font(14), tr("lobby.create.bots_last"),
                                              self.note_w),
                  self.note_pos, TEXT_DIM)
        self.cancel_button.draw(surface, font(18))
        self.create_button.draw(surface, font(18, True))
        if self.focus.visible:
            self.focus.draw(surface, reading_order(widget_stops(self._widgets())))


# -- drawing helpers ---------------------------------------------------------------------


def _seat_chip(surface: pygame.Surface, center: tuple[int, int], seat_no: int,
               seat: dict[str, Any], font: pygame.font.Font) -> None:
    """A seat's colour: a filled disc (human), a filled square (bot) or a ring (empty)."""
    color = palette.seat_color(seat_no)
    kind = seat.get("kind", "empty")
    x, y = center
    if kind == "bot":
        rect = pygame.Rect(x - 10, y - 10, 20, 20)
        pygame.draw.rect(surface, color, rect, border_radius=4)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 1, border_radius=4)
    elif kind == "human":
        pygame.draw.circle(surface, color, center, 10)
        pygame.draw.circle(surface, PANEL_EDGE, center, 10, 1)
    else:
        pygame.draw.circle(surface, PANEL_EDGE, center, 10, 1)
        pygame.draw.circle(surface, color, center, 9, 3)
    if kind != "empty" and not seat.get("connected", True):
        pygame.draw.line(surface, (60, 60, 60), (x - 8, y + 8), (x + 8, y - 8), 2)


def _table_id(item: object) -> object:
    return item.get("id") if isinstance(item, dict) else None


def _wrap_lines(font: pygame.font.Font, text: str, width: int, most: int) -> list[str]:
    from .widgets import wrap

    lines = wrap(font, text, max(20, width))
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = fit_text(font, lines[-1] + "...", width)
    return lines


_WAVES: dict[tuple[int, int], pygame.Surface] = {}


def _draw_waves(surface: pygame.Surface) -> None:
    """A quiet pattern of waves on the sea (cached per window size)."""
    size = surface.get_size()
    img = _WAVES.get(size)
    if img is None:
        img = pygame.Surface(size, pygame.SRCALPHA)
        color = (255, 255, 255, 14)
        for row, y in enumerate(range(20, size[1], 46)):
            shift = 40 if row % 2 else 0
            for x in range(-80 + shift, size[0], 80):
                pygame.draw.arc(img, color, (x, y, 40, 16), 0.2, 2.9, 2)
        _WAVES.clear()
        _WAVES[size] = img
    surface.blit(img, (0, 0))

