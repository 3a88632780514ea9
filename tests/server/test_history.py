"""A client that arrives at a running game (joins, watches, reclaims its seat
from a new window, or comes back after a server restart) gets the table's
history: every event batch from the game's start, redacted for it, and the
last chat lines, so that its log, dice counts and statistics are complete."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from bots import RandomBot
from bots.client import BotClient
from server.app import Server
from server.table import CHAT_MEMORY

from .conftest import TIMEOUT, Closed, RawClient


async def _raw(port: int, name: str, role: str = "spectator") -> RawClient:
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port), TIMEOUT)
    client = RawClient(reader, writer, name)
    await client.hello(role)
    return client


async def _players(port: int, players: int) -> tuple[list[BotClient], str]:
    clients = []
    for q in range(players):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = BotClient(RandomBot(q), reader, writer, f"bot{q}")
        await c.handshake(None)
        clients.append(c)
    clients[0].send({"type": "create_table", "settings": {"players": players}})
    while True:
        msg = await clients[0].recv()
        if msg["type"] == "joined":
            clients[0].outcome.seat = msg["seat"]
            table = str(msg["table"])
            break
    for c in clients[1:]:
        c.send({"type": "join", "table": table})
    return clients, table


def _close(client: BotClient) -> None:
    client.stop_watchdog()
    client.writer.close()


async def _arrival(client: RawClient) -> tuple[list[tuple[int, list[Any]]], dict[str, Any],
                                                list[dict[str, Any]]]:
    """What an arriving client reads up to its first view: the event batches,
    the view message, and the chat lines."""
    batches: list[tuple[int, list[Any]]] = []
    chat: list[dict[str, Any]] = []
    while True:
        msg = await client.recv()
        if msg["type"] == "events":
            batches.append((msg["version"], msg["events"]))
        elif msg["type"] == "chat":
            chat.append(msg)
        elif msg["type"] == "view":
            return batches, msg, chat


async def _play_until(clients: list[BotClient], table: Any, version: int) -> None:
    plays = [asyncio.ensure_future(c.play()) for c in clients]
    try:
        while table.version < version:
            await asyncio.sleep(0.01)
    finally:
        for p in plays:
            p.cancel()
        await asyncio.gather(*plays, return_exceptions=True)
    # An action may still be on the wire: a ping answered on each connection
    # means the server has handled everything sent before it (one connection's
    # messages are handled in order), so the table stands still from here.
    for c in clients:
        c.send({"type": "ping", "nonce": 7})
        while True:
            msg = await asyncio.wait_for(c.recv(), TIMEOUT)
            if msg["type"] == "pong" and msg.get("nonce") == 7:
                break


async def test_a_spectator_arriving_mid_game_gets_every_batch_and_the_chat() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        early = await _raw(srv.port, "early")
        clients, table_id = await _players(srv.port, 3)
        await early.send({"type": "spectate", "table": table_id})
        await early.recv_type("joined")
        clients[0].send({"type": "chat", "text": "よろしく"})
        (table,) = srv.tables.values()
        await _play_until(clients, table, 80)
        version = table.version
        # The early watcher saw every batch as it happened.
        seen: dict[int, list[Any]] = {}
        while len(seen) < version:
            msg = await early.recv()
            if msg["type"] == "events":
                seen[msg["version"]] = msg["events"]

        late = await _raw(srv.port, "late")
        await late.send({"type": "spectate", "table": table_id})
        joined = await late.recv_type("joined")
        assert joined["seat"] is None
        batches, view, chat = await _arrival(late)
        assert [v for v, _ in batches] == list(range(1, version + 1))
        assert dict(batches) == seen  # the same public redaction, batch for batch
        assert view["version"] == version
        assert [(c["name"], c["text"], c.get("past")) for c in chat] == [
            ("bot0", "よろしく", True)]
        # A line said now is not past.
        clients[0].send({"type": "chat", "text": "gg"})
        line = await late.recv_type("chat")
        assert line["text"] == "gg" and "past" not in line
        for c in (early, late):
            await c.close()
    finally:
        await srv.close()


async def test_a_seat_reclaimed_without_seen_gets_its_own_history() -> None:
    """A new window holding only the resume token (no ``seen``) gets the
    batches redacted for its seat: its own stolen cards, not others'."""
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        clients, _ = await _players(srv.port, 3)
        (table,) = srv.tables.values()
        await _play_until(clients, table, 120)
        version = table.version
        token = clients[0].resume_token
        _close(clients[0])
        back = RawClient(*await asyncio.open_connection("127.0.0.1", srv.port), "back")
        await back.send({"type": "hello", "version": "1.3", "role": "player",
                         "name": "bot0", "resume": token})
        await back.recv_type("welcome")
        batches, view, _ = await _arrival(back)
        assert [v for v, _ in batches] == list(range(1, version + 1))
        assert view["version"] == version
        assert table.game is not None
        expected = [[e.for_seat(0).to_dict() for e in events]
                    for _, events in list(table.history)[:version]]
        assert [events for _, events in batches] == expected
        await back.close()
    finally:
        for c in clients[1:]:
            _close(c)
        await srv.close()


async def test_after_a_restart_the_history_is_rebuilt_from_the_database(
        tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    clients, table_id = await _players(srv.port, 3)
    (table,) = srv.tables.values()
    await _play_until(clients, table, 250)  # past the snapshot taken every 200 actions
    # An action already on the wire may still be applied while the server
    # closes, so the table is read after the close: whatever it applied must
    # come back.
    for c in clients:
        _close(c)
    await srv.close()
    before = table.version
    assert before >= 250
    public = {v: [e.for_seat(None).to_dict() for e in events] for v, events in table.history}

    srv2 = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv2.start()
    try:
        restored = srv2.tables[table_id]
        assert restored.version == before
        watcher = await _raw(srv2.port, "watcher")
        await watcher.send({"type": "spectate", "table": table_id})
        batches, view, _ = await _arrival(watcher)
        assert [v for v, _ in batches] == list(range(1, before + 1))
        assert dict(batches) == public
        assert view["version"] == before
        await watcher.close()
    finally:
        await srv2.close()


async def test_a_table_keeps_its_last_chat_lines_only() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        host = await _raw(srv.port, "host", role="player")
        await host.send({"type": "create_table", "settings": {"players": 3}})
        await host.recv_type("joined")
        for i in range(CHAT_MEMORY + 5):
            await host.send({"type": "chat", "text": f"line {i}"})
        await host.recv_until(lambda m: m["type"] == "chat"
                              and m["text"] == f"line {CHAT_MEMORY + 4}")
        guest = await _raw(srv.port, "guest", role="player")
        (table,) = srv.tables.values()
        await guest.send({"type": "join", "table": table.id})
        await guest.recv_type("joined")
        lines = [await guest.recv_type("chat") for _ in range(CHAT_MEMORY)]
        assert [m["text"] for m in lines] == [f"line {i}" for i in range(5, CHAT_MEMORY + 5)]
        assert all(m["past"] is True for m in lines)
        for c in (host, guest):
            await c.close()
    finally:
        await srv.close()


async def test_watching_in_a_loop_is_charged_against_the_rate_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A history costs the arriving client rate allowance (HISTORY_PER_MESSAGE
    batches a message): spectating and leaving in a loop cannot make the
    server send whole games without end. The batches go out encoded once."""
    monkeypatch.setattr("server.session.HISTORY_PER_MESSAGE", 0.1)  # 1 batch: 10 messages
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        clients, table_id = await _players(srv.port, 3)
        (table,) = srv.tables.values()
        await _play_until(clients, table, 150)  # a history worth 1500 messages
        looper = await _raw(srv.port, "looper")
        watched = 0
        with contextlib.suppress(Closed):
            for _ in range(10):
                await looper.send({"type": "spectate", "table": table_id})
                await _arrival(looper)
                watched += 1
                await looper.send({"type": "leave"})
                await looper.recv_type("left")
        errors = [m for m in looper.received if m["type"] == "error"]
        assert [e["code"] for e in errors] == ["rate_limited"]
        assert 1 <= watched <= 2
        assert set(table._public_frames) == set(range(1, table.version + 1))
    finally:
        for c in clients:
            _close(c)
        await srv.close()
