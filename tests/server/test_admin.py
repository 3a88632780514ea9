"""The admin console (``kaitaku admin``) against a real server: every command
over its real unix socket (and over TLS with a token), what clients of 1.4
and of 1.3 are told, bans that hold after a restart, a drain."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.admin import Admin, request
from server.app import Server
from server.storage import read_finished

from .conftest import RawClient, play_bot_game, start_bot_game

ROOT = Path(__file__).resolve().parents[2]


class Console:
    def __init__(self, server: Server, path: Path) -> None:
        self.server = server
        self.path = path

    async def __call__(self, command: str, **args: Any) -> Any:
        answer = await request(command, args, socket_path=str(self.path))
        assert answer["ok"], answer
        return answer["result"]

    async def fails(self, command: str, **args: Any) -> str:
        answer = await request(command, args, socket_path=str(self.path))
        assert not answer["ok"], answer
        return str(answer["error"])

    async def client(self, name: str, version: str = "1.4", source: str = "127.0.0.1",
                     role: str = "player") -> RawClient:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(
            "127.0.0.1", self.server.port, local_addr=(source, 0)), 5)
        c = RawClient(reader, writer, name)
        await c.send({"type": "hello", "version": version, "role": role, "name": name})
        assert (await c.recv())["type"] == "welcome"
        return c


async def _ladder_register(con: Console, name: str, source: str) -> str:
    """Register ``name`` on the server's ladder from ``source`` (its owner)."""
    c = await con.client(name, role="bot", source=source)
    await c.send({"type": "ladder_register", "name": name})
    key = str((await c.recv_type("ladder_registered"))["key"])
    await c.close()
    return key


async def _until(pred: Any) -> None:
    while not pred():
        await asyncio.sleep(0.01)


async def _start(db: Path, sock: Path) -> tuple[Server, Admin]:
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    admin = Admin(srv, sock)
    await admin.start()
    return srv, admin


@pytest.fixture
async def console(tmp_path: Path) -> AsyncIterator[Console]:
    srv, admin = await _start(tmp_path / "s.db", tmp_path / "run" / "admin.sock")
    try:
        yield Console(srv, tmp_path / "run" / "admin.sock")
    finally:
        await admin.close()
        await srv.close()


async def test_the_socket_is_the_server_users_only(console: Console) -> None:
    mode = console.path.stat().st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    assert stat.S_IMODE(console.path.parent.stat().st_mode) == 0o700
    status = await console("status")
    assert status["connections"] == 0 and status["draining"] is False
    assert "commands" in await console.fails("reboot")
    assert "missing" in await console.fails("close-table")


async def test_tables_connections_and_the_cli(console: Console) -> None:
    ann = await console.client("Ann")
    await ann.send({"type": "create_table", "settings": {"players": 3}, "name": "evening"})
    await ann.recv_type("joined")
    tables = await console("tables")
    assert [(t["name"], t["status"], t["seats"][0]["name"]) for t in tables] == [
        ("evening", "waiting", "Ann")]
    conns = await console("connections")
    assert [(c["name"], c["table"], c["seat"], c["protocol"]) for c in conns] == [
        ("Ann", tables[0]["id"], 0, "1.4")]
    out = await asyncio.to_thread(subprocess.run, [
        sys.executable, "-m", "kaitaku", "admin", "--socket", str(console.path), "tables"],
        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "evening" in out.stdout and "1 tables" in out.stdout
    await ann.close()


async def test_close_table_tells_everybody_and_keeps_the_game(console: Console) -> None:
    """A game in play closed by the host: a 1.4 player gets table_closed, a 1.3
    player error closed_by_host, a spectator too, then left; the game is kept
    (closed, replayable), never restored."""
    srv = console.server
    new = await console.client("New")
    old = await console.client("Old", version="1.3")
    watcher = await console.client("Watcher")
    await new.send({"type": "create_table", "settings": {"players": 2}})
    tid = (await new.recv_type("joined"))["table"]
    await old.send({"type": "join", "table": tid})
    await old.recv_type("joined")
    await watcher.send({"type": "spectate", "table": tid})
    await watcher.recv_type("joined")
    await new.recv_until(lambda m: m["type"] == "legal")
    assert srv.tables[tid].status == "playing"
    result = await console("close-table", table=tid, reason="abuse in the chat")
    assert result == {"table": tid, "game_kept": True}
    closed = await new.recv_type("table_closed")
    assert closed == {"type": "table_closed", "table": tid, "reason": "abuse in the chat"}
    await new.recv_type("left")
    err = await old.recv_type("error")
    assert err["code"] == "closed_by_host" and "abuse in the chat" in err["message"]
    await old.recv_type("left")
    assert (await watcher.recv_type("table_closed"))["table"] == tid
    await watcher.recv_type("left")
    assert tid not in srv.tables and await console("tables") == []
    await new.send({"type": "list_tables"})  # the connection goes on, in the lobby
    assert (await new.recv_type("tables"))["tables"] == []
    assert srv.storage is not None
    (status,) = srv.storage.db.execute("SELECT status FROM tables WHERE id = ?",
                                       (tid,)).fetchone()
    assert status == "closed"
    assert read_finished(srv.storage.path, tid).log.settings.players == 2  # kept, readable
    assert "no such table" in await console.fails("close-table", table=tid)
    for c in (new, old, watcher):
        await c.close()


async def test_kick(console: Console) -> None:
    srv = console.server
    bad = await console.client("Griefer")
    good = await console.client("Good")
    sid = next(s.id for s in srv.sessions if s.name == "Griefer")
    assert (await console("kick", target=sid, reason="spam"))["closed"] == [sid]
    msgs = await bad.closed()
    assert [m["type"] for m in msgs] == ["error", "bye"]
    assert msgs[0]["code"] == "kicked" and "spam" in msgs[0]["message"]
    await good.send({"type": "list_tables"})
    await good.recv_type("tables")
    assert "no connection" in await console.fails("kick", target="nobody")
    await good.close()


async def test_announce_reaches_every_client_in_a_form_it_knows(console: Console) -> None:
    new = await console.client("New")
    old_lobby = await console.client("OldLobby", version="1.3")
    old_table = await console.client("OldTable", version="1.3")
    bot = await console.client("Bot", role="bot")
    await old_table.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await old_table.recv_type("joined"))["table"]
    sent = await console("announce", text="Restart at 03:00 UTC")
    assert sent == {"sent": 3}
    assert await new.recv_type("announce") == {"type": "announce",
                                               "text": "Restart at 03:00 UTC"}
    err = await old_lobby.recv_type("error")
    assert (err["code"], err["message"]) == ("announcement", "Restart at 03:00 UTC")
    chat = await old_table.recv_type("chat")
    assert chat["table"] == tid and chat["seat"] is None and chat["text"] == \
        "Restart at 03:00 UTC" and chat["name"] == console.server.name
    assert await bot.quiet() == []
    assert "printable" in await console.fails("announce", text="\x00\x07")
    for c in (new, old_lobby, old_table, bot):
        await c.close()


async def test_bans_by_address_and_name_hold_after_a_restart(tmp_path: Path) -> None:
    db, sock = tmp_path / "s.db", tmp_path / "admin.sock"
    srv, admin = await _start(db, sock)
    con = Console(srv, sock)
    try:
        there = await con.client("Someone", source="127.0.0.2")
        ban = await con("ban", kind="address", value="127.0.0.2", reason="flooding")
        assert ban["value"] == "127.0.0.2/32" and ban["persisted"] is True
        assert len(ban["closed"]) == 1
        msgs = await there.closed()
        assert [m.get("code") for m in msgs if m["type"] == "error"] == ["banned"]
        await con("ban", kind="name", value="Griefer", reason="")
        assert "not an IP" in await con.fails("ban", kind="address", value="nowhere")
        assert [b["value"] for b in await con("bans")] == ["127.0.0.2/32", "griefer"]
    finally:
        await admin.close()
        await srv.close()
    srv, admin = await _start(db, sock)  # a restart: the bans come back from the database
    con = Console(srv, sock)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port,
                                                       local_addr=("127.0.0.2", 0))
        c = RawClient(reader, writer, "again")
        msgs = await c.closed()  # refused before anything is read
        assert [m.get("code") for m in msgs] == ["banned"]
        fw = RawClient(*await asyncio.open_connection("127.0.0.1", srv.port), "x")
        await fw.send({"type": "hello", "version": "1.4", "role": "player",
                       "name": "ＧＲＩＥＦＥＲ"})  # the same name, full-width capitals
        msgs = await fw.closed()
        assert [m.get("code") for m in msgs] == ["banned"]
        fine = await con.client("Fine")  # others get in
        await fine.close()
        assert await con("unban", kind="name", value="griefer") == {"unbanned": True}
        assert "no such ban" in await con.fails("unban", kind="name", value="griefer")
        back = await con.client("Griefer")
        await back.close()
        assert [b["value"] for b in await con("bans")] == ["127.0.0.2/32"]
    finally:
        await admin.close()
        await srv.close()
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT kind, value FROM bans").fetchall() == [
            ("address", "127.0.0.2/32")]


async def test_drain_refuses_new_tables_and_ends_with_the_last_game(console: Console) -> None:
    srv = console.server
    game = await start_bot_game(srv, {"players": 3, "vp_target": 6}, ["random"] * 3)
    waiting = await console.client("Waiter")
    await waiting.send({"type": "create_table", "settings": {"players": 3}})
    await waiting.recv_type("joined")
    playing = asyncio.ensure_future(play_bot_game(game))
    while srv.tables[game.table].status != "playing":
        await asyncio.sleep(0.01)
    result = await console("drain", message="Restart after the running games")
    assert result["playing"] == 1
    assert (await waiting.recv_type("announce"))["text"] == "Restart after the running games"
    assert (await waiting.recv_type("table_closed"))["reason"] == "the server is restarting"
    await waiting.recv_type("left")
    await waiting.send({"type": "create_table", "settings": {"players": 3}})
    assert (await waiting.recv_type("error"))["code"] == "draining"
    assert srv.drained is not None and not srv.drained.is_set()
    await playing  # the game goes on to its end
    assert all(o.finished and o.rejected == 0 for o in game.outcomes)
    await asyncio.wait_for(srv.drained.wait(), 5)
    await waiting.close()


async def test_drain_deadline(console: Console) -> None:
    srv = console.server
    game = await start_bot_game(srv, {"players": 3}, ["random"] * 3)
    await console("drain", deadline=0.0)  # games still running stay for the next start
    assert srv.drained is not None
    await asyncio.wait_for(srv.drained.wait(), 5)
    assert "deadline" in await console.fails("drain", deadline=-1)
    for c in game.clients:
        c.writer.close()


async def test_remote_admin_over_tls_needs_the_token(tmp_path: Path) -> None:
    trustme = pytest.importorskip("trustme")
    from bots.tls import client_context

    from .test_tls import Certs

    certs = Certs(tmp_path)
    del trustme
    srv = Server("127.0.0.1", 0, spawn_bots=False, tls_cert=str(certs.chain),
                 tls_key=str(certs.key))
    await srv.start()
    token = "t0ken-" + "x" * 26
    admin = Admin(srv, None, listen=("127.0.0.1", 0), token=token, tls=srv.tls)
    await admin.start()
    assert admin.port is not None
    tls = client_context(str(certs.ca))
    try:
        ok = await request("status", {}, connect=("127.0.0.1", admin.port), token=token,
                           tls=tls)
        assert ok["ok"] and ok["result"]["tls"] is True
        bad = await request("status", {}, connect=("127.0.0.1", admin.port),
                            token="wrong" * 4, tls=tls)
        assert bad == {"ok": False, "error": "wrong token"}
        for _ in range(4):  # five wrong tokens in all
            await request("status", {}, connect=("127.0.0.1", admin.port), token="w" * 20,
                          tls=tls)
        with pytest.raises((ConnectionError, OSError)):  # refused for a while now
            await request("status", {}, connect=("127.0.0.1", admin.port), token=token,
                          tls=tls)
    finally:
        await admin.close()
        await srv.close()


async def test_a_ladder_table_is_not_closed_and_a_drain_stops_new_matches(
        tmp_path: Path) -> None:
    """The ladder keeps its own tables (close-table refuses them, kicks and bans
    work on its bots); while the server drains the ladder starts no game."""
    from bots import RandomBot
    from bots.ladder_client import run_ladder
    from league.ladder import Ladder, LadderConfig

    ladder = Ladder(tmp_path / "ladder.db", LadderConfig(players=2, seed=5))
    srv = Server("127.0.0.1", 0, spawn_bots=False, extension=ladder)
    await srv.start()
    admin = Admin(srv, tmp_path / "a.sock")
    await admin.start()
    con = Console(srv, tmp_path / "a.sock")
    try:
        # two owners (two addresses): one owner's bots never share a table
        keys = {n: await _ladder_register(con, n, f"127.0.0.{i + 2}")
                for i, n in enumerate(("one", "two", "banned"))}
        await con("ban", kind="name", value="BANNED")
        old = await con.client("someone", role="bot", source="127.0.0.4")
        await old.send({"type": "ladder_ready", "name": "banned", "key": keys["banned"],
                         "games": 1})
        assert (await old.recv_type("error"))["code"] == "banned"
        runs = [asyncio.ensure_future(run_ladder(lambda: RandomBot(3), "127.0.0.1", srv.port,
                                                 name=n, key=keys[n], games=3))
                for n in ("one", "two")]
        await asyncio.wait_for(_until(lambda: bool(srv.tables)), 30)
        (tid,) = srv.tables
        assert "ladder" in await con.fails("close-table", table=tid)
        assert (await con("drain"))["playing"] == 1
        assert srv.drained is not None
        await asyncio.wait_for(srv.drained.wait(), 60)  # that game ended; no other began
        await asyncio.sleep(0.3)
        assert [t.status for t in srv.tables.values()] == ["finished"]
        assert ladder.gauges()["games"] == 0
        for r in runs:
            r.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
    finally:
        await admin.close()
        await srv.close()


async def test_the_servers_own_bots_leave_a_table_the_host_closed(
        bot_server: Server) -> None:
    """Its bot processes end (their caps free again) when the host closes their
    table in the middle of a game."""
    reader, writer = await asyncio.open_connection("127.0.0.1", bot_server.port)
    host = RawClient(reader, writer, "Ann")
    await host.hello()
    await host.send({"type": "create_table", "settings": {"players": 3},
                     "bots": ["random", "random"]})
    tid = (await host.recv_type("joined"))["table"]
    await host.recv_until(lambda m: m["type"] == "game_started", 30)
    assert bot_server._bots_running == 2
    bot_server.close_by_host(tid, "")
    await host.recv_type("table_closed")

    async def bots_gone() -> None:
        while bot_server._bots_running:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(bots_gone(), 30)
    await host.close()


async def test_a_kicked_sdk_bot_does_not_come_back(console: Console) -> None:
    """The bot SDK reconnects after a dropped connection, but not after a kick."""
    from bots import RandomBot
    from bots.client import run_bot
    from protocol.wire import ProtocolError

    srv = console.server

    class Slow(RandomBot):
        def act(self, view: Any, legal: Any) -> Any:
            import time

            time.sleep(0.005)
            return super().act(view, legal)

    first = asyncio.ensure_future(run_bot(Slow(1), "127.0.0.1", srv.port, name="first",
                                          create={"settings": {"players": 2}}))
    while not srv.tables:
        await asyncio.sleep(0.01)
    (tid,) = srv.tables
    second = asyncio.ensure_future(run_bot(Slow(2), "127.0.0.1", srv.port, name="pest",
                                           table=tid))
    while srv.tables[tid].status != "playing":
        await asyncio.sleep(0.01)
    await console("kick", target="pest", reason="")
    with pytest.raises(ProtocolError) as caught:
        await asyncio.wait_for(second, 10)
    # "kicked", or "closed" when the bot was sending as the kick's bye arrived
    assert caught.value.code in ("kicked", "closed")
    await asyncio.sleep(1.0)  # its first reconnection would have come after 0.2 s
    assert not any(s.name == "pest" for s in srv.sessions)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
