"""The App driven frame by frame (dummy video driver): connecting to a real
server, lobby → table → lobby, the reconnection banner, toasts, posted input."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pygame
import pytest

from client.app import App, error_text
from client.fonts import Fonts
from client.i18n import Translator
from client.lobby import CreateTableDialog
from client.model import ONLINE, RECONNECTING
from client.scene import Context, Scene
from server.app import Server
from tests.server.conftest import Connect, seat_dropped

Message = dict[str, Any]


class FakeTable(Scene):
    """Stands in for the table scene (tested by its own tests)."""

    def draw(self, surface: pygame.Surface) -> None:
        surface.fill((0, 80, 0))


@pytest.fixture
def make_app(fonts: Fonts) -> Iterator[Callable[..., App]]:
    apps: list[App] = []

    def make(**kw: Any) -> App:
        kw.setdefault("discover", False)
        kw.setdefault("fonts", fonts)
        kw.setdefault("table_scene", FakeTable)
        app = App(**kw)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


async def frames(app: App, until: Callable[[App], bool], timeout: float = 5.0) -> None:
    """Step frames (letting the server's loop run between them) until ``until``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not until(app):
        if loop.time() > end:
            raise AssertionError(f"timed out: {app.model.connection} {app.model.table} "
                                 f"{app.ctx.stack.scenes}")
        app.step(1 / 60)
        await asyncio.sleep(0.005)


def post_click(pos: tuple[int, int]) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=pos))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=pos))


def test_starts_offline_in_the_lobby(make_app: Callable[..., App]) -> None:
    app = make_app(name="Ann")
    app.step(1 / 60)
    assert app.ctx.stack.scenes == [app.lobby] and app.lobby.mode == "offline"
    assert app.screen.get_size() == (1280, 800)
    assert app.banner_text() is None
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    app.step(1 / 60)
    assert not app.running


def test_posted_input_reaches_the_lobby(make_app: Callable[..., App]) -> None:
    app = make_app(name="Ann")
    app.step(1 / 60)
    post_click(app.lobby.address_input.rect.center)
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="10.0.0.7:9"))
    app.step(1 / 60)
    assert app.lobby.address_input.text == "10.0.0.7:9"
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(1000, 700), w=1000, h=700))
    app.step(1 / 60)
    assert app.lobby.size == app.screen.get_size()


async def test_lobby_table_and_back(server: Server, connect: Connect,
                                    make_app: Callable[..., App]) -> None:
    app = make_app(connect=f"127.0.0.1:{server.port}", name="Ann")
    await frames(app, lambda a: a.model.connection == ONLINE and a.lobby.mode == "lobby")
    # a click on "New table" (a posted event) opens the dialog; Create sends the table
    post_click(app.lobby.new_button.rect.center)
    app.step(1 / 60)
    dialog = app.ctx.stack.top
    assert isinstance(dialog, CreateTableDialog)
    dialog.players_stepper.select(2)
    post_click(dialog.create_button.rect.center)
    await frames(app, lambda a: a.model.table is not None and a.model.table_status == "waiting")
    assert app.ctx.stack.scenes == [app.lobby] and app.lobby.mode == "waiting"
    assert app.lobby.creator_of == app.model.table
    # a second player sits down: the game starts, the table scene takes over
    bob = await connect("bob")
    await bob.send({"type": "join", "table": app.model.table})
    await frames(app, lambda a: isinstance(a.ctx.stack.scenes[0], FakeTable))
    assert app.model.view is not None and app.model.seat == 0
    app.ctx.send({"type": "leave"})
    await frames(app, lambda a: a.ctx.stack.scenes == [a.lobby])
    assert app.model.table is None and app.lobby.mode == "lobby"


async def test_kaitaku_play_creates_its_table(server: Server,
                                              make_app: Callable[..., App]) -> None:
    app = make_app(connect=f"127.0.0.1:{server.port}", name="Ann",
                   create={"settings": {"players": 3}, "bots": ["heuristic", "random"],
                           "name": "Ann vs bots"})
    await frames(app, lambda a: len(a.model.table_seats) == 3)
    assert [s["kind"] for s in app.model.table_seats] == ["human", "bot", "bot"]
    table = server.tables[app.model.table or ""]
    assert table.name == "Ann vs bots"
    assert [s.bot_kind for s in table.seats] == [None, "random", "heuristic"]
    assert app.lobby.creator_of == table.id


async def test_reconnection_banner(server: Server, connect: Connect,
                                   make_app: Callable[..., App]) -> None:
    app = make_app(connect=f"127.0.0.1:{server.port}", name="Ann", lang="ja")
    app.lobby.create_table({"players": 2})
    await frames(app, lambda a: a.model.table is not None)
    tid = app.model.table or ""
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid})
    await frames(app, lambda a: a.in_game())
    session = server.tables[tid].seats[0].session
    assert session is not None
    session.abort()
    await seat_dropped(server, tid, 0)
    seen: list[str] = []

    def note(a: App) -> bool:
        banner = a.banner_text()
        if banner is not None:
            seen.append(banner[0])
        return a.model.connection == ONLINE and a.banner_text() is not None
    await frames(app, note)
    tr = Translator("ja") if app.fonts.lang == "ja" else Translator("en")
    assert tr("status.reconnecting", attempt=1) in seen
    assert app.banner_text() == (tr("status.reconnected"), app.banner_text()[1])  # type: ignore[index]
    assert app.model.table == tid and app.model.seat == 0
    assert isinstance(app.ctx.stack.scenes[0], FakeTable)  # the table stayed on screen
    app.model.apply({"type": "_status", "state": RECONNECTING, "detail": "attempt 4: refused",
                     "attempt": 4})
    app.draw(app.screen)
    assert app.banner_text() is not None and "4" in app.banner_text()[0]  # type: ignore[index]


def test_error_toasts(make_app: Callable[..., App]) -> None:
    app = make_app(name="Ann")
    app.model.apply({"type": "error", "code": "table_full", "message": "no free seat"})
    app.model.apply({"type": "error", "code": "weird_new_code", "message": "what"})
    app.model.apply({"type": "error", "code": "acted_for_you", "message": "rolled"})
    app.step(1 / 60)
    tr = app.ctx.tr
    assert [t.text for t in app.toasts] == [tr("error.table_full"), "what (weird_new_code)",
                                            tr("acted.other", what=tr("acted.what.other"))]
    assert [t.info for t in app.toasts] == [False, False, True]
    app.step(1 / 60)
    assert len(app.toasts) == 3  # each error once
    rect = app._toast_rects(app.screen.get_size())[0]
    post_click(rect.center)
    app.step(1 / 60)
    assert len(app.toasts) == 2
    app.step(10.0)
    assert app.toasts == []


def test_error_text_falls_back_to_the_server_message() -> None:
    en = Translator("en")
    assert error_text(en, "not_creator", "x") == en("error.not_creator")
    assert error_text(en, "odd", "") == "odd"


def test_japanese_without_a_cjk_font_falls_back(make_app: Callable[..., App]) -> None:
    app = make_app(name="Ann", lang="ja", fonts=Fonts("en", finder=lambda: None))
    assert app.ctx.tr.lang == "en" and app.fonts.lang == "en"
    assert app.toasts and "Japanese font" in app.toasts[0].text and app.toasts[0].info
    assert app.set_lang("ja") == "en"
    app.step(1 / 60)


def test_language_switch_with_a_font(make_app: Callable[..., App], fonts: Fonts) -> None:
    import pygame as pg

    real = str(__import__("pathlib").Path(pg.__file__).parent / pg.font.get_default_font())
    app = make_app(name="Ann", lang="en", fonts=Fonts("en", finder=lambda: real))
    post_click(app.lobby.lang_toggle._cells()[0].center)
    app.step(1 / 60)
    assert app.ctx.tr.lang == "ja" and app.lobby.connect_button.label == "接続"


@pytest.fixture
async def real_table_app(server: Server, connect: Connect,
                         fonts: Fonts) -> AsyncIterator[App]:
    app = App(connect=f"127.0.0.1:{server.port}", name="Ann", discover=False, fonts=fonts)
    try:
        yield app
    finally:
        app.close()


async def test_the_real_table_scene_takes_over(real_table_app: App, server: Server,
                                               connect: Connect) -> None:
    app = real_table_app
    app.lobby.create_table({"players": 2})
    await frames(app, lambda a: a.model.table is not None)
    bob = await connect("bob")
    await bob.send({"type": "join", "table": app.model.table})
    await frames(app, lambda a: a.in_game() and a.model.view is not None)
    for _ in range(3):
        app.step(1 / 60)
    from client.table_scene import TableScene

    assert isinstance(app.ctx.stack.scenes[0], TableScene)


def test_context_fixture(ctx: Context, sent: list[Message]) -> None:
    ctx.send({"type": "list_tables"})
    assert sent == [{"type": "list_tables"}] and ctx.options["sent"] is sent
    assert isinstance(ctx.font(14), pygame.font.Font)


INTERNAL_CODES = {"bad_position", "invalid_log", "no_log"}
"""Rules errors of snapshots, logs and positions: the server never sends them."""


def _rules_codes() -> set[str]:
    import ast
    from pathlib import Path

    codes: set[str] = set()
    root = Path(__file__).resolve().parents[2] / "protocol" / "rules"
    for f in root.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            pos = {"_require": 2}.get(name, 1 if name.endswith(("Error", "Action", "Turn",
                                                                 "Log")) else None)
            if pos is not None and len(node.args) > pos and isinstance(node.args[pos],
                                                                       ast.Constant):
                codes.add(str(node.args[pos].value))
    return codes - INTERNAL_CODES


def test_every_error_code_has_words_in_both_languages() -> None:
    """Toasts never show the server's English text in the Japanese window: every
    error code of the protocol and every refusal code of the rules is translated."""
    from protocol.wire import ERROR_CODES

    codes = set(ERROR_CODES) | _rules_codes()
    assert {"storage_unavailable", "proposal_limit", "cannot_afford"} <= codes
    for lang in ("en", "ja"):
        tr = Translator(lang)
        missing = sorted(c for c in codes if not tr.has(f"error.{c}"))
        assert missing == [], (lang, missing)


def test_a_paused_table_shows_a_banner(make_app: Callable[..., App]) -> None:
    app = make_app(name="Ann")
    m = app.model
    m.apply({"type": "joined", "table": "t1", "seat": 0, "settings": {"players": 3}})
    m.apply({"type": "table", "table": "t1", "status": "playing", "seats": [],
             "paused": "storage"})
    banner = app.banner_text()
    assert banner is not None and banner[0] == app.ctx.tr("status.paused.storage")
    m.apply({"type": "table", "table": "t1", "status": "playing", "seats": []})
    assert app.banner_text() is None
