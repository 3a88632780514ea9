"""The lobby, headless: connecting, the table list, creating, joining, watching,
the waiting room, and what each click sends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame
import pytest

from client.discovery import FoundServer
from client.fonts import Fonts
from client.lobby import CreateTableDialog, LobbyScene, bot_kinds, settings_text
from client.scene import Context

Message = dict[str, Any]
SETTINGS = {"players": 4, "vp_target": 10, "turn_cap": 0, "balanced_map": False,
            "shuffle_harbors": False, "harbor_delay": False, "strict_phases": False}


def click(scene: Any, pos: tuple[int, int]) -> bool:
    used: bool = scene.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos))
    return used


def key(scene: Any, k: int, mod: int = 0) -> bool:
    used: bool = scene.handle(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode=""))
    return used


def type_text(scene: Any, text: str) -> None:
    scene.handle(pygame.event.Event(pygame.TEXTINPUT, text=text))


def summary(tid: str, name: str, kinds: list[str], status: str = "waiting",
            spectators: int = 0) -> Message:
    seats = [{"name": None if k == "empty" else f"{k}{i}", "kind": k,
              "connected": k != "empty", "auto": False} for i, k in enumerate(kinds)]
    return {"id": tid, "name": name, "settings": {**SETTINGS, "players": len(kinds)},
            "seats": seats, "status": status, "spectators": spectators}


def pixels(surface: pygame.Surface, rect: pygame.Rect) -> bytes:
    return bytes(pygame.image.tobytes(surface.subsurface(rect), "RGB"))


class Hooks:
    def __init__(self) -> None:
        self.connects: list[tuple[str, int, str]] = []
        self.disconnects = 0
        self.langs: list[str] = []

    def connect(self, host: str, port: int, name: str, tls: bool = False) -> None:
        self.connects.append((host, port, name, "tls") if tls else (host, port, name))

    def disconnect(self) -> None:
        self.disconnects += 1

    def lang(self, lang: str) -> str:
        self.langs.append(lang)
        return lang


@pytest.fixture
def hooks() -> Hooks:
    return Hooks()


@pytest.fixture
def lobby(ctx: Context, hooks: Hooks) -> LobbyScene:
    scene = LobbyScene(ctx, name="Ann", on_connect=hooks.connect, on_disconnect=hooks.disconnect,
                       on_lang=hooks.lang)
    ctx.stack.replace(scene)
    ctx.model.apply({"type": "_status", "state": "offline", "detail": ""})
    scene.update(0.016)
    return scene


def online(ctx: Context, tables: list[Message] | None = None) -> None:
    ctx.model.apply({"type": "welcome", "version": "1.1", "session": "s", "resume_token": "r",
                     "server": "Friday"})
    ctx.model.apply({"type": "tables", "tables": tables or []})


def test_draws_offline_in_both_languages(lobby: LobbyScene, ctx: Context,
                                         make_ctx: Callable[..., Context],
                                         surface: pygame.Surface) -> None:
    lobby.draw(surface)
    assert lobby.mode == "offline"
    ja = make_ctx("ja")
    scene = LobbyScene(ja, name="アン")
    ja.stack.replace(scene)
    ja.model.apply({"type": "_status", "state": "offline", "detail": "cannot connect: refused"})
    scene.update(0.016)
    scene.draw(surface)
    assert scene.connect_button.label == "接続"


def test_type_an_address_and_connect(lobby: LobbyScene, hooks: Hooks) -> None:
    assert click(lobby, lobby.address_input.rect.center)
    assert lobby.address_input.focused
    type_text(lobby, "192.168.1.20:7979")
    key(lobby, pygame.K_TAB)  # to the name field
    assert lobby.name_input.focused and not lobby.address_input.focused
    for _ in range(3):
        key(lobby, pygame.K_BACKSPACE)
    type_text(lobby, "Bob")
    key(lobby, pygame.K_RETURN)
    assert hooks.connects == [("192.168.1.20", 7979, "Bob")]
    assert lobby.message is None


def test_connect_button_and_bad_input(lobby: LobbyScene, hooks: Hooks, ctx: Context) -> None:
    lobby.address_input.set_text("host:notaport")
    assert click(lobby, lobby.connect_button.rect.center)
    assert hooks.connects == [] and lobby.message == ctx.tr("lobby.bad_address")
    lobby.address_input.set_text("")  # empty: the default address
    lobby.name_input.set_text("")
    click(lobby, lobby.connect_button.rect.center)
    assert hooks.connects == [] and lobby.message == ctx.tr("lobby.bad_name")
    lobby.name_input.set_text("Ann")
    click(lobby, lobby.connect_button.rect.center)
    assert hooks.connects == [("127.0.0.1", 7878, "Ann")]
    online(ctx)
    lobby.update(0.016)
    assert lobby.mode == "lobby" and lobby.connect_button.label == ctx.tr("lobby.disconnect")
    click(lobby, lobby.connect_button.rect.center)
    assert hooks.disconnects == 1


def test_lan_servers_fill_the_address(ctx: Context, hooks: Hooks,
                                      surface: pygame.Surface) -> None:
    found = [FoundServer("Friday", "192.168.1.20", 7878, "1.1", 2, "a"),
             FoundServer("Old", "192.168.1.21", 7878, "0.9", None, "b")]
    scene = LobbyScene(ctx, name="Ann", on_connect=hooks.connect, servers=lambda: found)
    ctx.stack.replace(scene)
    ctx.model.apply({"type": "_status", "state": "offline", "detail": ""})
    scene.update(0.016)
    scene.draw(surface)
    assert scene.server_list.items == found
    first = scene.server_list.row_rect(0).center
    click(scene, first)
    assert scene.address_input.text == "192.168.1.20:7878" and hooks.connects == []
    click(scene, first)  # a double click connects
    assert hooks.connects == [("192.168.1.20", 7878, "Ann")]


def test_a_lan_server_that_wants_tls_is_spoken_to_with_tls(
        ctx: Context, hooks: Hooks, surface: pygame.Surface) -> None:
    found = [FoundServer("Secure", "192.168.1.30", 7879, "1.3", 0, "s", tls=True),
             FoundServer("Plain", "192.168.1.31", 7878, "1.3", 0, "p")]
    scene = LobbyScene(ctx, name="Ann", on_connect=hooks.connect, servers=lambda: found)
    ctx.stack.replace(scene)
    ctx.model.apply({"type": "_status", "state": "offline", "detail": ""})
    scene.update(0.016)
    scene.draw(surface)
    for row in (0, 0, 1, 1):  # double clicks: connect to each (the model stays offline)
        click(scene, scene.server_list.row_rect(row).center)
    assert hooks.connects[0] == ("192.168.1.30", 7879, "Ann", "tls")
    assert hooks.connects[-1] == ("192.168.1.31", 7878, "Ann")
    # typing another address forgets the announcement
    scene.address_input.set_text("192.168.1.30:7000")
    scene.connect()
    assert hooks.connects[-1] == ("192.168.1.30", 7000, "Ann")


def test_the_window_makes_a_tls_client_for_a_tls_server() -> None:
    from client.app import reclaiming_net

    assert reclaiming_net("127.0.0.1", 1, "Ann").tls is None
    assert reclaiming_net("127.0.0.1", 1, "Ann", tls=True).tls is not None


def test_table_list_join_spectate_and_sit(lobby: LobbyScene, ctx: Context,
                                          sent: list[Message], surface: pygame.Surface) -> None:
    online(ctx)
    lobby.update(0.016)
    assert sent == [{"type": "list_tables"}]  # asked at once when online
    lobby.draw(surface)
    empty = surface.copy()
    tables = [summary("t1", "Friday", ["human", "empty", "bot", "empty"], spectators=2),
              summary("t2", "Running", ["human", "bot", "bot"], status="playing")]
    ctx.model.apply({"type": "tables", "tables": tables})
    lobby.update(0.016)
    lobby.draw(surface)
    rows = lobby.table_list.rect
    assert pixels(surface, rows) != pixels(empty, rows)
    red = lobby._columns()[2][1] + 11, lobby.table_list.row_rect(0).centery - 5  # seat 1 chip
    assert tuple(surface.get_at(red))[:3] == (214, 48, 49)
    assert not lobby.join_button.enabled and not lobby.spectate_button.enabled
    sent.clear()
    click(lobby, lobby.table_list.row_rect(0).center)
    lobby.update(0.016)
    lobby.draw(surface)
    assert lobby.selected_table() == tables[0]
    assert lobby.join_button.enabled and lobby.spectate_button.enabled
    assert len(lobby.seat_buttons) == 2  # the two empty seats
    click(lobby, lobby.join_button.rect.center)
    click(lobby, lobby.spectate_button.rect.center)
    click(lobby, lobby.seat_buttons[1].rect.center)
    assert sent == [{"type": "join", "table": "t1"}, {"type": "spectate", "table": "t1"},
                    {"type": "join", "table": "t1", "seat": 3}]
    sent.clear()
    click(lobby, lobby.table_list.row_rect(1).center)  # a running table: watch only
    lobby.update(0.016)
    assert not lobby.join_button.enabled and lobby.seat_buttons == []
    click(lobby, lobby.join_button.rect.center)
    assert sent == []
    # the selection follows the table when the list is refreshed in another order
    ctx.model.apply({"type": "tables", "tables": [tables[1], tables[0]]})
    lobby.update(0.016)
    assert lobby.selected_table() == tables[1]


def test_refresh_now_and_then(lobby: LobbyScene, ctx: Context, sent: list[Message]) -> None:
    online(ctx)
    lobby.update(0.016)
    click(lobby, lobby.refresh_button.rect.center)
    assert sent == [{"type": "list_tables"}] * 2
    lobby.update(1.0)
    assert len(sent) == 2
    lobby.update(2.5)
    assert len(sent) == 3
    key(lobby, pygame.K_F5)
    assert len(sent) == 4


def test_create_a_table(lobby: LobbyScene, ctx: Context, sent: list[Message],
                        surface: pygame.Surface) -> None:
    online(ctx)
    lobby.update(0.016)
    sent.clear()
    click(lobby, lobby.new_button.rect.center)
    dialog = ctx.stack.top
    assert isinstance(dialog, CreateTableDialog)
    assert click(lobby.ctx.stack.top, (5, 5))  # modal: a click outside goes nowhere
    ctx.stack.draw(surface)
    click(dialog, dialog.players_stepper._left.center)  # 4 -> 3 players
    for _ in range(2):
        click(dialog, dialog.vp_stepper._right.center)  # 10 -> 12
    click(dialog, dialog.timer_selector._right.center)  # off -> 15 s
    click(dialog, dialog.timer_selector._right.center)  # -> 30 s
    click(dialog, dialog.checks["balanced_map"].rect.center)
    click(dialog, dialog.checks["strict_phases"].rect.center)
    click(dialog, dialog.checks["balanced_dice"].rect.center)
    kinds = dialog.kinds
    assert kinds[0] == "human" and set(bot_kinds()) <= set(kinds)
    heuristic = kinds.index("heuristic")
    for _ in range(heuristic):
        click(dialog, dialog.seat_selectors[1].rect.center)  # seat 3: a heuristic bot
    click(dialog, dialog.name_input.rect.center)
    type_text(dialog, "Friday")
    ctx.stack.draw(surface)
    click(dialog, dialog.create_button.rect.center)
    assert ctx.stack.top is lobby
    assert sent == [{"type": "create_table", "name": "Friday", "bots": ["heuristic"],
                     "turn_timer": 30,
                     "settings": {"players": 3, "vp_target": 12, "balanced_map": True,
                                  "shuffle_harbors": False, "harbor_delay": False,
                                  "strict_phases": True, "balanced_dice": True}}]
    # the lobby shows it with the table's settings
    assert "Balanced dice" in settings_text(ctx, sent[0]["settings"])


def test_create_defaults_and_escape(lobby: LobbyScene, ctx: Context,
                                   sent: list[Message]) -> None:
    online(ctx)
    lobby.update(0.016)
    sent.clear()
    lobby.open_create()
    dialog = ctx.stack.top
    assert isinstance(dialog, CreateTableDialog)
    assert dialog.message() == {"type": "create_table", "name": "Ann's table", "settings": {
        "players": 4, "vp_target": 10, "balanced_map": False, "shuffle_harbors": False,
        "harbor_delay": False, "strict_phases": False,
        "balanced_dice": False}}
    for _ in range(len(dialog.kinds) - 1):  # the last choice: wraps round to "human"
        dialog.seat_selectors[0].step(-1)
    dialog.seat_selectors[2].select("search")
    assert dialog.message()["bots"] == ["search", dialog.kinds[1]]  # from the last seat
    assert dialog.kinds == ["human", "greedy", "heuristic", "search"]  # by level
    ctx.stack.draw(pygame.Surface((1280, 800)))
    assert "random" not in dialog.kinds
    key(dialog, pygame.K_ESCAPE)
    assert ctx.stack.top is lobby and sent == []


def test_waiting_room_start_and_leave(lobby: LobbyScene, ctx: Context, sent: list[Message],
                                      surface: pygame.Surface) -> None:
    online(ctx)
    lobby.update(0.016)
    lobby.create_table({"players": 3})
    ctx.model.apply({"type": "joined", "table": "t9", "seat": 0,
                     "settings": {**SETTINGS, "players": 3}})
    ctx.model.apply({"type": "table", "table": "t9", "status": "waiting", "seats": [
        {"name": "Ann", "kind": "human", "connected": True, "auto": False},
        {"name": None, "kind": "empty", "connected": False, "auto": False},
        {"name": "random-bot", "kind": "bot", "connected": False, "auto": False}]})
    sent.clear()
    lobby.update(0.016)
    assert lobby.mode == "waiting" and lobby.creator_of == "t9"
    assert sent == [{"type": "list_tables"}]  # a fresh list on joining
    lobby.draw(surface)
    assert lobby.start_button.enabled
    click(lobby, lobby.start_button.rect.center)
    click(lobby, lobby.leave_button.rect.center)
    assert sent[1:] == [{"type": "start"}, {"type": "leave"}]


def test_only_the_creator_may_start(lobby: LobbyScene, ctx: Context, sent: list[Message],
                                    surface: pygame.Surface) -> None:
    online(ctx, [summary("t1", "Friday", ["human", "empty"])])
    lobby.update(0.016)
    lobby.join("t1")
    ctx.model.apply({"type": "joined", "table": "t1", "seat": 1, "settings": SETTINGS})
    lobby.update(0.016)
    lobby.draw(surface)
    assert lobby.mode == "waiting" and not lobby.start_button.enabled
    sent.clear()
    click(lobby, lobby.start_button.rect.center)
    assert sent == []
    # a refused create does not make us the creator of the next table we join
    ctx.model.apply({"type": "left", "table": "t1"})
    lobby.update(0.016)
    lobby.create_table({"players": 9})
    ctx.model.apply({"type": "error", "code": "bad_settings", "message": "no"})
    lobby.update(0.016)
    ctx.model.apply({"type": "joined", "table": "t1", "seat": 1, "settings": SETTINGS})
    lobby.update(0.016)
    assert lobby.creator_of is None


def test_the_server_says_who_may_start(lobby: LobbyScene, ctx: Context,
                                       sent: list[Message], surface: pygame.Surface) -> None:
    """A 1.2 server's ``table.can_start`` decides (the right passes on when the
    creator leaves)."""
    online(ctx, [summary("t1", "Friday", ["human", "empty"])])
    lobby.update(0.016)
    lobby.join("t1")
    ctx.model.apply({"type": "joined", "table": "t1", "seat": 1, "settings": SETTINGS})
    seats = [{"name": None, "kind": "empty", "connected": False, "auto": False},
             {"name": "Ann", "kind": "human", "connected": True, "auto": False}]
    ctx.model.apply({"type": "table", "table": "t1", "status": "waiting", "seats": seats,
                     "can_start": False})
    lobby.update(0.016)
    assert not lobby.start_button.enabled
    ctx.model.apply({"type": "table", "table": "t1", "status": "waiting", "seats": seats,
                     "can_start": True})
    lobby.update(0.016)
    lobby.draw(surface)
    assert lobby.start_button.enabled
    sent.clear()
    click(lobby, lobby.start_button.rect.center)
    assert sent == [{"type": "start"}]
    ctx.model.apply({"type": "left", "table": "t1"})
    assert ctx.model.can_start is None


def test_spectators_wait_too(lobby: LobbyScene, ctx: Context, surface: pygame.Surface) -> None:
    online(ctx, [summary("t1", "Friday", ["human", "empty"])])
    lobby.update(0.016)
    ctx.model.apply({"type": "joined", "table": "t1", "seat": None, "settings": SETTINGS})
    lobby.update(0.016)
    lobby.draw(surface)  # the seats come from the table list
    assert lobby.mode == "waiting" and lobby.current_table() is not None


def test_language_toggle(lobby: LobbyScene, hooks: Hooks, ctx: Context) -> None:
    ja_cell = lobby.lang_toggle._cells()[0]
    assert click(lobby, ja_cell.center)
    assert hooks.langs == ["ja"]
    refused = LobbyScene(ctx, on_lang=lambda lang: "en")  # no CJK font: stays English
    refused.lang_toggle.value = "en"
    click(refused, refused.lang_toggle._cells()[0].center)
    assert refused.lang_toggle.value == "en"


HOSTILE = ["nul\x00in the middle", "esc\x1b[31mred", "bidi \u202eevil\u202c", "two\nlines",
           "\x00", "tab\tand\r\nbreaks", "\u2066isolate\u2069 \U0001f600 日本語"]


def test_item1_hostile_strings_from_a_server_never_crash_the_lobby(
        lobby: LobbyScene, ctx: Context, surface: pygame.Surface) -> None:
    """Issue 15, item 1 (the client side): a server may send any string; the
    lobby lists tables named with NUL, ESC, bidi overrides and line breaks,
    with such player names, and draws every frame."""
    online(ctx)
    tables = []
    for i, name in enumerate(HOSTILE):
        t = summary(f"t{i}", name, ["human", "bot", "empty", "empty"])
        t["seats"][0]["name"] = HOSTILE[-1 - i]
        tables.append(t)
    ctx.model.apply({"type": "tables", "tables": tables})
    for row in range(len(tables)):
        lobby.update(0.016)
        lobby.draw(surface)
        click(lobby, lobby.table_list.row_rect(row).center)
    lobby.draw(surface)


def test_item1_the_font_cleans_what_it_draws(fonts: Fonts) -> None:
    font = fonts.get(14)
    for text in HOSTILE:
        img = font.render(text, True, (0, 0, 0))
        assert img.get_width() == font.size(text)[0]
    assert font.size("a\x00b") == font.size("ab")
    assert font.size("bidi \u202eevil") == font.size("bidi evil")
    assert font.render(b"bytes\x00", True, (0, 0, 0)).get_width() > 0


@pytest.mark.parametrize("size", [(1280, 800), (800, 500)])
def test_create_a_six_player_table(lobby: LobbyScene, ctx: Context, sent: list[Message],
                                   size: tuple[int, int]) -> None:
    """Five and six players (R-56): the stepper goes to 6, five seat rows appear
    and fit the dialog at every window size, and the message asks for them."""
    ctx.options["size"] = size
    online(ctx)
    lobby.update(0.016)
    sent.clear()
    lobby.open_create()
    dialog = ctx.stack.top
    assert isinstance(dialog, CreateTableDialog)
    dialog.resized(size)
    for _ in range(2):
        click(dialog, dialog.players_stepper._right.center)  # 4 -> 6 players
    assert dialog.players == 6
    rows = dialog.seat_selectors[:5]
    assert all(dialog.rect.contains(r.rect) for r in rows)
    rects = [r.rect for r in rows] + [dialog.players_stepper.rect, dialog.timer_selector.rect,
                                      *(c.rect for c in dialog.checks.values())]
    assert not any(a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    assert all(r.rect.bottom < dialog.create_button.rect.top for r in rows)
    for sel in rows:
        sel.select("heuristic")
    surface = pygame.Surface(size)
    ctx.stack.draw(surface)
    click(dialog, dialog.create_button.rect.center)
    assert sent and sent[-1]["settings"]["players"] == 6
    assert sent[-1]["bots"] == ["heuristic"] * 5
