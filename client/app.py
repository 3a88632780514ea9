"""The client application: the window, the main loop and the scene changes.

:class:`App` owns the window, the :class:`~client.scene.Context` every scene
uses, the network client and the scene stack. :meth:`App.step` is one frame:

1. take what the network received and apply it to the model;
2. change scenes if the model says so (a table's game → the table scene;
   ``left`` or a lost session → the lobby);
3. hand the input events to the top scene;
4. update every scene, draw them, draw the connection banner and the error
   toasts over them, flip.

A frame is drawn only when something changed: news from the network, input,
a scene change, or a scene asking for it (an animation runs, a caret blinks,
the turn timer ticks; :meth:`client.scene.Scene.next_frame`), and at least
every :data:`IDLE_FRAME` seconds. :meth:`run` steps at most 60 times a second
and sleeps in between, so an idle window costs next to nothing. Tests drive
:meth:`step` frame by frame (with the dummy video driver and posted events).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pygame

from . import palette
from .discovery import Browser
from .fonts import Fonts
from .i18n import Translator
from .lobby import LAN_OFF, LobbyScene
from .model import OFFLINE, ONLINE, RECONNECTING, ClientModel
from .net import NetClient, parse_address
from .scene import Context, Scene
from .settings import SettingsFile
from .sound import SoundBoard
from .state_file import StateFile
from .widgets import BAD, GOOD, PANEL_EDGE, TEXT_LIGHT, WARN, draw_text, fit_text

Message = dict[str, Any]

DEFAULT_SIZE = (1280, 800)
FPS = 60
IDLE_FRAME = 1.0
"""Seconds between frames when nothing asks for one (a safety net, not a need)."""
TOAST_SECONDS = 5.0
MAX_TOASTS = 4
INFO_CODES = frozenset({"acted_for_you", "not_your_turn", "announce", "announcement",
                        "table_closed_by_host", "draining"})
"""Error codes that are news rather than errors (drawn in a calmer colour; the
server host's notices among them).
The client only offers legal actions, so ``not_your_turn`` is a race (e.g.
answering an offer its maker withdrew a moment earlier), not a mistake."""
TOASTS_TOP = 104
"""Toasts stack down from here (under the top bar and the prompt banner), away
from the buttons along the bottom."""


class NoDisplay(RuntimeError):
    """There is no screen to open a window on."""


def open_window(size: tuple[int, int], title: str = "Kaitaku") -> pygame.Surface:
    """Open the resizable game window, or raise :class:`NoDisplay`.

    SDL quietly falls back to an invisible ``offscreen`` driver when there is
    no window system; that counts as no display unless the caller asked for
    an invisible driver (``SDL_VIDEODRIVER=dummy`` or ``offscreen``, as tests do).
    """
    requested = os.environ.get("SDL_VIDEODRIVER", "").strip().lower()
    hint = "set DISPLAY or use --screenshot"
    try:
        pygame.display.init()
    except pygame.error as exc:
        raise NoDisplay(f"no display available: {exc}; {hint}") from exc
    driver = (pygame.display.get_driver() or "").lower()
    if driver in ("offscreen", "dummy") and requested != driver:
        pygame.display.quit()
        raise NoDisplay(f"no display available: SDL found no window system (it chose the "
                        f"invisible {driver!r} driver); {hint}")
    try:
        screen = pygame.display.set_mode(size, pygame.RESIZABLE)
    except pygame.error as exc:
        pygame.display.quit()
        raise NoDisplay(f"no display available: {exc}; {hint}") from exc
    pygame.display.set_caption(title)
    pygame.display.set_icon(_icon())
    return screen


def _icon() -> pygame.Surface:
    """A small hexagon of the island's colours."""
    import math

    img = pygame.Surface((32, 32), pygame.SRCALPHA)
    pts = [(16 + 15 * math.cos(math.radians(60 * i + 30)),
            16 + 15 * math.sin(math.radians(60 * i + 30))) for i in range(6)]
    pygame.draw.polygon(img, (232, 196, 110), pts)
    pygame.draw.polygon(img, (120, 96, 64), pts, 2)
    pygame.draw.circle(img, (214, 48, 49), (16, 16), 6)
    return img


@dataclass
class Toast:
    text: str
    info: bool = False
    left: float = TOAST_SECONDS
    key: str | None = None  # a newer toast of the same key replaces this one


def error_text(tr: Translator, code: str, message: str) -> str:
    """The user's words for an error code (the server's message when unknown).
    ``{message}`` is the server's English explanation (English texts only);
    ``{text}`` the same words where they are the host's own (an announcement,
    a reason to close a table), shown in every language."""
    if code == "acted_for_you":
        from .describe import acted_text

        return acted_text(tr, message)
    key = f"error.{code}"
    if tr.has(key):
        return tr(key, message=message, text=message)
    return tr("error.rejected", code=code, message=message) if message else code


class App:
    """The Kaitaku window. ``connect``: "host:port" to connect to at once;
    ``create``: a ``create_table`` message's fields to send once online;
    ``discover``: browse the LAN for servers; ``play``: ``kaitaku play``'s hooks
    (:class:`kaitaku.play.PlayHooks`: the game it keeps, the new game's table) —
    the window then offers to continue the kept game, keeps the game when it is
    left or closed, and offers to play again; ``replay``: a finished game
    (:class:`client.replay.Replay`) to show in the replay viewer instead of a
    lobby (no server); ``settings``: the settings file (sound, palette);
    ``sound``: open the mixer (it stays silent without audio)."""

    def __init__(self, *, connect: str | None = None, name: str | None = None,
                 lang: str = "en", size: tuple[int, int] = DEFAULT_SIZE,
                 create: dict[str, Any] | None = None, discover: bool = True,
                 net_factory: Callable[..., NetClient] | None = None,
                 fonts: Fonts | None = None,
                 table_scene: Callable[[Context], Scene] | None = None,
                 play: Any = None, settings: SettingsFile | None = None,
                 sound: bool = True, replay: Any = None) -> None:
        self.screen = open_window(size)
        pygame.font.init()
        pygame.key.set_repeat(400, 35)
        self.settings_file = settings if settings is not None else SettingsFile()
        self.settings = self.settings_file.load()
        palette.use(self.settings.palette)
        self.sound = SoundBoard(muted=self.settings.muted, volume=self.settings.volume,
                                enabled=sound)
        self._title = ""
        self._chimed: tuple[Any, ...] | None = None  # the decision the last chime was for
        self.replay = replay  # a client.replay.Replay: the replay viewer, no server
        self.fonts = fonts if fonts is not None else Fonts(lang)
        self.fonts.set_lang(lang)
        self.model = ClientModel()
        self.net: NetClient | None = None
        self.play = play
        self._reclaim = False  # the next NetClient presents the kept seat's token
        self.offer: dict[str, Any] | None = None  # the kept game ``play`` offers to continue
        if net_factory is None:
            net_factory = self._play_net if play is not None else reclaiming_net
        self.net_factory = net_factory
        self.running = True
        self.toasts: list[Toast] = []
        self.banner_ok = 0.0  # seconds left showing "reconnected"
        self._errors_seen = 0
        self._last_connection = self.model.connection
        self._auto_create = dict(create) if create is not None else None
        self._draw_at = 0.0  # time.monotonic() when the next frame is due (0: now)
        self.frames_drawn = 0
        self._table_factory = table_scene
        self.ctx = Context(model=self.model, tr=Translator(self.fonts.lang), font=self.fonts.get,
                           send=self.send, quit=self.quit,
                           options={"size": self.screen.get_size(), "fonts": self.fonts,
                                    "app": self, "sound": self.sound})
        self._update_title()
        self.browser: Browser | None = None
        note: str | None = None
        if discover:
            self.browser = Browser()
            if not self.browser.start():
                note = self.browser.error
        else:
            note = LAN_OFF
        self.lobby = LobbyScene(self.ctx, name=name or default_name(), address=connect or "",
                                on_connect=self.connect, on_disconnect=self.disconnect,
                                on_lang=self.set_lang,
                                servers=self.browser.servers if self.browser else None,
                                discovery_note=note,
                                play=self if play is not None else None)
        if play is not None:
            self.offer = play.last_game()
            if self.offer is None:
                self._auto_create = play.new_game(self.ctx.tr.lang)
            if play.storage_error:
                self.toast(self.ctx.tr("play.not_kept", detail=play.storage_error), info=True)
        if replay is not None:
            from .replay_scene import ReplayScene

            self.ctx.stack.replace(ReplayScene(self.ctx, replay))
            connect = None
        else:
            self.ctx.stack.replace(self.lobby)
        if self.fonts.notice:
            self.toast(self.fonts.notice, info=True)
        for problem in self.fonts.problems:
            self.toast(self.ctx.tr("font.unusable", detail=problem), info=True)
        if connect:
            host, port = parse_address(connect)
            self.connect(host, port, name or self.lobby.name_input.text)
        elif replay is None:
            self.model.apply({"type": "_status", "state": OFFLINE, "detail": ""})

    # -- what scenes and the lobby call ------------------------------------------------

    def send(self, msg: Message) -> None:
        """Queue a message for the server (dropped when not connected)."""
        if self.net is not None:
            self.net.send(msg)

    def connect(self, host: str, port: int, name: str, tls: bool = False) -> None:
        """(Re)connect to ``host:port`` as ``name`` with a fresh model; ``tls``: the
        server announced on the LAN that it speaks TLS only."""
        if self.net is not None:
            self.net.close()
        self.model.reset()
        self._errors_seen = 0
        self.net = (self.net_factory(host, port, name, tls=True) if tls
                    else self.net_factory(host, port, name))
        self.net.start()

    def disconnect(self) -> None:
        if self.net is not None:
            self.net.close()
            self.net = None
        self.model.reset()
        self._errors_seen = 0
        self.model.apply({"type": "_status", "state": OFFLINE, "detail": ""})

    def set_lang(self, lang: str) -> str:
        """Switch the UI language; returns the one shown (English without a CJK font)."""
        shown = self.fonts.set_lang(lang)
        self.ctx.tr = Translator(shown)
        self._update_title()
        if self.fonts.notice:
            self.toast(self.fonts.notice, info=True)
        return shown

    def quit(self) -> None:
        self.running = False

    # -- settings: sound and palette ----------------------------------------------------

    def toggle_mute(self) -> bool:
        """M: sound off or on (kept in the settings file); returns whether muted."""
        muted = self.sound.toggle_mute()
        self.settings = self.settings.with_(muted=muted)
        self.settings_file.save(self.settings)
        self.toast(self.ctx.tr("app.sound_off" if muted else "app.sound_on"), info=True)
        return muted

    def toggle_palette(self) -> str:
        """F3: the colour-blind palette (with seat marks) or the standard one."""
        name = "standard" if palette.name() == "colorblind" else "colorblind"
        palette.use(name)
        self.settings = self.settings.with_(palette=name)
        self.settings_file.save(self.settings)
        self.toast(self.ctx.tr(f"app.palette_{name}"), info=True)
        return name

    def your_turn(self) -> bool:
        """This seat owes a decision in a running game."""
        m = self.model
        view = m.view
        return (m.seat is not None and view is not None and m.game_over is None
                and view.get("phase") != "game_over" and m.seat in (view.get("to_act") or ()))

    def _update_title(self) -> None:
        """The window title says when it is your turn (a window in the background
        shows it in the task bar), and a chime sounds once per turn (and once per
        decision asked of you in another player's turn)."""
        mine = self.your_turn()
        title = self.ctx.tr("app.title_your_turn" if mine else "app.title")
        if self.replay is not None:
            title = self.ctx.tr("app.title_replay", title=self.replay.info.title)
        if title != self._title:
            self._title = title
            pygame.display.set_caption(title)
        if not mine:
            return
        view = self.model.view or {}
        key = (self.model.table, view.get("turn"), view.get("current") == self.model.seat,
               None if view.get("current") == self.model.seat else view.get("phase"))
        if key != self._chimed:
            self._chimed = key
            self.sound.play("turn")

    # -- kaitaku play: the kept game -------------------------------------------------

    def _play_net(self, host: str, port: int, name: str, tls: bool = False) -> NetClient:
        reclaim, self._reclaim = self._reclaim, False
        return NetClient(host, port, name, state=self.play.state, state_key=self.play.key,
                         reclaim=reclaim)

    def _reconnect(self) -> None:
        net = self.net
        if net is not None:
            self.connect(net.host, net.port, net.name)

    def continue_game(self) -> None:
        """Take the kept game's seat again (``kaitaku play``)."""
        if self.play is None or self.offer is None:
            return
        self._reclaim = True
        self._reconnect()

    def new_game(self, like: dict[str, Any] | None = None) -> None:
        """Start a new game against the bots (``kaitaku play``); the kept one is given
        up. ``like``: a finished table's settings and bots to play again
        (:func:`client.rematch.rematch_request`)."""
        if self.play is None:
            return
        self.play.forget_last()
        self.offer = None
        self._auto_create = self.play.new_game(self.ctx.tr.lang, like=like)
        if self.model.table is not None:  # a finished game: a fresh session for the new one
            self._reconnect()

    def rematch_kind(self) -> str | None:
        """What the game-over screen offers: ``"again"`` (``kaitaku play``: the same
        bots on a new board), ``"rematch"`` (this window created the table on a
        server: a new table with the same settings and bots, that others can join),
        or None."""
        if self.play is not None:
            return "again"
        if self.lobby.created is not None and self.lobby.creator_of == self.model.table \
                and self.model.table is not None:
            return "rematch"
        return None

    def rematch(self) -> None:
        """Play the finished table again: same seats and settings, a new board."""
        from .rematch import rematch_request

        kind = self.rematch_kind()
        if kind == "again":
            self.new_game(like=rematch_request(self.model))
        elif kind == "rematch":
            spec = rematch_request(self.model, self.lobby.created)
            if spec is not None:
                self._auto_create = spec  # created once we are back in the lobby
                self.send({"type": "leave"})

    def playing(self) -> bool:
        """In a running game with a seat (leaving or closing would cost something)."""
        m = self.model
        return (m.table is not None and m.seat is not None and m.game_over is None
                and m.table_status == "playing")

    def leave_table(self) -> None:
        """Leave the table. ``kaitaku play`` keeps a running game instead of giving it
        up: the window goes back to the lobby, which offers to continue it."""
        if self.play is not None and self.playing():
            self._reconnect()  # the seat stays ours: its token is kept
            self.offer = self.play.last_game()
            return
        self.send({"type": "leave"})

    def request_quit(self) -> None:
        """The window's close button: in a running game, ask first (a second
        close quits)."""
        scenes = self.ctx.stack.scenes
        asking = any(getattr(s, "kind", None) == "quit" for s in scenes)
        base = scenes[0] if scenes else None
        ask = getattr(base, "ask_quit", None)
        if asking or not self.playing() or ask is None:
            self.running = False
            return
        ask(saved=self.play is not None)

    def toast(self, text: str, info: bool = False, key: str | None = None) -> None:
        """Show a notice; one with ``key`` replaces the one of that key shown
        (the server's moves for a seat: the newest only, not a stack of them)."""
        if key is not None:
            self.toasts = [t for t in self.toasts if t.key != key]
        self.toasts.append(Toast(text, info, key=key))
        del self.toasts[:-MAX_TOASTS]

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> int:
        clock = pygame.time.Clock()
        try:
            while self.running:
                self.step(clock.tick(FPS) / 1000.0)
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
        return 0

    def step(self, dt: float) -> bool:
        """One frame: news, input and updates always; drawing only when something
        changed or a scene asks for it. Returns whether it drew."""
        changed = False
        if self.net is not None:
            for msg in self.net.poll():
                self.model.apply(msg)
                changed = True
        self.lobby.track_created()
        toasts = len(self.toasts)
        self._notice_changes(dt)
        changed |= len(self.toasts) != toasts
        self._auto()
        base = self.ctx.stack.scenes[:1]
        self._transition()
        changed |= self.ctx.stack.scenes[:1] != base
        for event in pygame.event.get():
            self._event(event)
            changed = True
        self._update_title()
        scenes = list(self.ctx.stack.scenes)
        self.ctx.stack.update(dt)
        changed |= self.ctx.stack.scenes != scenes  # a dialog opened or closed itself
        now = time.monotonic()
        if not changed and now < self._draw_at:
            return False
        self.draw(self.screen)
        pygame.display.flip()
        self.frames_drawn += 1
        wait = self.next_frame()
        self._draw_at = now + (IDLE_FRAME if wait is None else min(wait, IDLE_FRAME))
        return True

    def next_frame(self) -> float | None:
        """Seconds until the window looks different by itself (None: it does not)."""
        waits = [w for w in (self.ctx.stack.next_frame(),) if w is not None]
        for t in self.toasts:  # a toast fades out in its last 0.4 s
            waits.append(max(0.0, t.left - 0.4))
        if self.banner_ok > 0:
            waits.append(self.banner_ok)
        return min(waits) if waits else None

    def close(self) -> None:
        if self.net is not None:
            self.net.close()
            self.net = None
        if self.browser is not None:
            self.browser.close()
            self.browser = None
        self.sound.close()
        pygame.display.quit()

    # -- inside a frame ----------------------------------------------------------------

    def _notice_changes(self, dt: float) -> None:
        model = self.model
        for code, message in model.new_errors(self._errors_seen):
            self.toast(error_text(self.ctx.tr, code, message), info=code in INFO_CODES,
                       key=code if code in INFO_CODES else None)
        self._errors_seen = model.error_count
        if model.connection == ONLINE and self._last_connection == RECONNECTING:
            self.banner_ok = 2.5
        self._last_connection = model.connection
        self.banner_ok = max(0.0, self.banner_ok - dt)
        for t in self.toasts:
            t.left -= dt
        self.toasts = [t for t in self.toasts if t.left > 0]

    def _auto(self) -> None:
        """``kaitaku play``: create the table as soon as we are online."""
        create = self._auto_create
        if create is None or self.model.connection != ONLINE or self.model.table is not None:
            return
        self._auto_create = None
        self.lobby.create_table(create.get("settings", {}), create.get("bots"),
                                create.get("name"), create.get("turn_timer", 0))

    def in_game(self) -> bool:
        """The table scene's time: at a table whose game runs (or ran)."""
        model = self.model
        return model.table is not None and (
            model.table_status in ("playing", "finished") or model.view is not None)

    def _transition(self) -> None:
        if self.replay is not None:
            return  # the viewer stays (there is no lobby to go back to)
        stack = self.ctx.stack
        base = stack.scenes[0] if stack.scenes else None
        if self.in_game():
            if base is None or base is self.lobby:
                stack.replace(self._make_table())
        elif base is not self.lobby:
            stack.replace(self.lobby)

    def _make_table(self) -> Scene:
        if self._table_factory is not None:
            return self._table_factory(self.ctx)
        from .table_scene import TableScene

        return TableScene(self.ctx)

    def _event(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.request_quit()
            return
        if event.type == pygame.KEYDOWN and event.key == pygame.K_F3:
            self.toggle_palette()
            return
        if event.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
            surface = pygame.display.get_surface()
            if surface is not None:
                self.screen = surface
            size = self.screen.get_size()
            self.ctx.options["size"] = size
            self.ctx.stack.resized(size)
            return
        if (event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
                and self._toast_at(event.pos) is not None):
            i = self._toast_at(event.pos)
            if i is not None:
                del self.toasts[i]
            return
        self.ctx.stack.handle(event)

    # -- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        self.ctx.stack.draw(surface)
        self._draw_banner(surface)
        self._draw_toasts(surface)

    def banner_text(self) -> tuple[str, tuple[int, int, int]] | None:
        """The connection banner shown over every scene (None: no banner)."""
        tr, model = self.ctx.tr, self.model
        if model.connection == RECONNECTING:
            return tr("status.reconnecting", attempt=model.attempt), WARN
        if self.banner_ok > 0 and model.connection == ONLINE:
            return tr("status.reconnected"), GOOD
        if model.paused is not None and model.table is not None:
            key = f"status.paused.{model.paused}"
            return tr(key if tr.has(key) else "status.paused.other"), WARN
        return None

    def reconnect_detail(self) -> str:
        """The banner's second line while reconnecting: why, in the window's language
        (the network's own words when it names a failure the catalogue does not)."""
        m = self.model
        if m.connection != RECONNECTING:
            return ""
        key = f"status.why.{m.connection_why}"
        return self.ctx.tr(key) if m.connection_why and self.ctx.tr.has(key) \
            else m.connection_detail

    def banner_rect(self, surface_size: tuple[int, int]) -> pygame.Rect | None:
        """Where the connection banner is drawn (None: no banner): where the scene
        wants it (at the table: over the island, below its prompt, leaving the
        turn, Leave and the player panels in view), else at the window's top."""
        banner = self.banner_text()
        if banner is None:
            return None
        font, small = self.fonts.get(20, True), self.fonts.get(14)
        detail = self.reconnect_detail()
        scenes = self.ctx.stack.scenes
        where = getattr(scenes[0], "banner_area", None) if scenes else None
        found = where() if callable(where) else None
        area = pygame.Rect(found) if found is not None else pygame.Rect((0, 0), surface_size)
        w = min(area.w - 40,
                max(font.size(banner[0])[0], small.size(detail)[0] if detail else 0) + 60)
        rect = pygame.Rect(0, 0, w, 44 + (18 if detail else 0))
        rect.midtop = (area.centerx, area.y + 10)
        return rect

    def _draw_banner(self, surface: pygame.Surface) -> None:
        banner = self.banner_text()
        rect = self.banner_rect(surface.get_size())
        if banner is None or rect is None:
            return
        text, color = banner
        font, small = self.fonts.get(20, True), self.fonts.get(14)
        detail = self.reconnect_detail()
        box = pygame.Surface(rect.size, pygame.SRCALPHA)
        pygame.draw.rect(box, (*color, 235), box.get_rect(), border_radius=10)
        surface.blit(box, rect)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 2, border_radius=10)
        draw_text(surface, font, text, (rect.centerx, rect.y + 22), TEXT_LIGHT, "center")
        if detail:
            draw_text(surface, small, fit_text(small, detail, rect.w - 20),
                      (rect.centerx, rect.y + 48), TEXT_LIGHT, "center")

    def toast_area(self, surface_size: tuple[int, int]) -> pygame.Rect:
        """Where toasts go: the base scene's choice (the table keeps them over the
        island, off the player panels), else the whole window."""
        scenes = self.ctx.stack.scenes
        area = getattr(scenes[0], "toast_area", None) if scenes else None
        rect = area() if callable(area) else None
        return pygame.Rect(rect) if rect is not None else pygame.Rect((0, 0), surface_size)

    def _toast_layout(self, surface_size: tuple[int, int]
                      ) -> list[tuple[pygame.Rect, list[str]]]:
        """Each toast's box and its lines (a long text wraps, up to three lines)."""
        from .widgets import wrap

        font = self.fonts.get(17)
        area = self.toast_area(surface_size)
        out = []
        y = area.y + min(TOASTS_TOP, surface_size[1] // 4)
        line_h = font.get_linesize()
        for t in self.toasts:
            inner = max(40, area.w - 64)
            lines = wrap(font, t.text, inner)
            if len(lines) > 3:
                lines = lines[:3]
                lines[2] = fit_text(font, lines[2] + "...", inner)
            tw = min(area.w - 24, max(font.size(line)[0] for line in lines) + 40)
            rect = pygame.Rect(0, 0, tw, 16 + line_h * len(lines))
            rect.midtop = (area.centerx, y)
            out.append((rect, lines))
            y = rect.bottom + 8
        return out

    def _toast_rects(self, surface_size: tuple[int, int]) -> list[pygame.Rect]:
        return [rect for rect, _ in self._toast_layout(surface_size)]

    def _toast_at(self, pos: tuple[int, int]) -> int | None:
        for i, rect in enumerate(self._toast_rects(self.screen.get_size())):
            if rect.collidepoint(pos):
                return i
        return None

    def _draw_toasts(self, surface: pygame.Surface) -> None:
        font = self.fonts.get(17)
        line_h = font.get_linesize()
        for t, (rect, lines) in zip(self.toasts, self._toast_layout(surface.get_size()),
                                    strict=True):
            alpha = int(255 * min(1.0, t.left / 0.4))
            box = pygame.Surface(rect.size, pygame.SRCALPHA)
            color = WARN if t.info else BAD
            pygame.draw.rect(box, (*color, min(alpha, 235)), box.get_rect(), border_radius=8)
            surface.blit(box, rect)
            y = rect.y + 8
            for line in lines:
                img = font.render(line, True, TEXT_LIGHT)
                img.set_alpha(alpha)
                surface.blit(img, img.get_rect(midtop=(rect.centerx, y)))
                y += line_h


def reclaiming_net(host: str, port: int, name: str, tls: bool = False) -> NetClient:
    """The window's NetClient: it stores its seat's resume token in the state file
    (``client/state_file.py``) and reclaims that seat after a restart; with
    ``tls`` it speaks TLS, checking the server's certificate against the
    system's trusted certificates."""
    context = None
    if tls:
        from bots.tls import client_context

        context = client_context(None)
    return NetClient(host, port, name, state=StateFile(), tls=context)


def default_name() -> str:
    """The user's login name (for the name field), or "Player"."""
    for var in ("KAITAKU_NAME", "USER", "USERNAME", "LOGNAME"):
        value = os.environ.get(var, "").strip()
        if value:
            return value[:32]
    return "Player"


def default_lang() -> str:
    """Japanese when the environment's locale is Japanese, else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"
