"""What the server's host says reaches the window (protocol 1.4): an
announcement is a notice toast, a table the host closed says so and the
window is back in the lobby; in English and in Japanese. The real App
against a real server, headless."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from client.app import App
from client.fonts import Fonts
from client.model import ONLINE
from server.app import Server

from .test_app import FakeTable, frames


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


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_announcement_and_a_table_closed_by_the_host(
        server: Server, make_app: Callable[..., App], lang: str) -> None:
    app = make_app(connect=f"127.0.0.1:{server.port}", name="Ann", lang=lang)
    await frames(app, lambda a: a.model.connection == ONLINE)
    tr = app.ctx.tr
    assert server.announce("Restart at 03:00 UTC") == 1
    await frames(app, lambda a: any("03:00" in t.text for t in a.toasts))
    toast = next(t for t in app.toasts if "03:00" in t.text)
    assert toast.text == tr("error.announce", text="Restart at 03:00 UTC") and toast.info
    app.lobby.create_table({"players": 3})
    await frames(app, lambda a: a.model.table is not None)
    tid = app.model.table or ""
    server.close_by_host(tid, "maintenance")
    await frames(app, lambda a: a.model.table is None
                 and any("maintenance" in t.text for t in a.toasts))
    closed = next(t for t in app.toasts if "maintenance" in t.text)
    assert closed.text == tr("error.table_closed_by_host", text="maintenance")
    assert app.ctx.stack.scenes == [app.lobby]
    if lang == "ja" and tr.lang == "ja":
        assert "お知らせ" in toast.text and "卓を閉じました" in closed.text
    await asyncio.sleep(0)
