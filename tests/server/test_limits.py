"""Limits that keep one client from hurting the server or its table."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from protocol.wire import encode_frame
from server.app import Server

from .conftest import TIMEOUT, Closed, Connect, raw_table


async def test_a_flood_is_rate_limited(server: Server, connect: Connect,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.RATE", 100.0)
    monkeypatch.setattr("server.session.BURST", 200.0)
    c = await connect("flood")
    ping = encode_frame({"type": "ping", "nonce": 1})
    await c.send_raw(ping * 1000)  # 1000 messages at once
    msgs = await c.closed()
    assert any(m["type"] == "error" and m["code"] == "rate_limited" for m in msgs)


async def test_a_client_that_never_reads_is_dropped_without_slowing_the_table(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    monkeypatch.setattr("server.session.OUTBOUND_LIMIT", 8)
    monkeypatch.setattr("server.session.WRITE_BUFFER_HIGH", 4096)
    table = await raw_table(server, connect, players=3)
    sleeper = table.clients[2]
    sleeper.writer.transport.pause_reading()  # never reads again
    sleeper.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF,
                                                       4096)
    (session,) = [s for s in server.sessions if s.name == "seat2"]
    session.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                       4096)

    async def drain(i: int) -> None:
        with contextlib.suppress(Closed, TimeoutError):
            while True:
                await table.clients[i].recv(timeout=5)

    readers = [asyncio.ensure_future(drain(i)) for i in (0, 1)]
    t0 = time.monotonic()
    try:
        for i in range(2000):  # chat goes to every member of the table
            await table.clients[1].send({"type": "chat", "text": "x" * 290 + str(i)})
            if server.tables[table.id].seats[2].session is None:
                break
            await asyncio.sleep(0)
        else:
            pytest.fail("the non-reading client was never dropped")
        assert time.monotonic() - t0 < TIMEOUT
        # The table goes on for the others.
        assert server.tables[table.id].status == "playing"
    finally:
        for r in readers:
            r.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    await table.clients[0].send({"type": "ping", "nonce": 9})
    assert (await table.clients[0].recv_type("pong"))["nonce"] == 9


async def test_a_trickling_hello_hits_the_handshake_deadline(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.HANDSHAKE_DEADLINE", 0.5)
    c = await connect("slow", hello=False)
    frame = encode_frame({"type": "hello", "version": "1.0", "role": "player", "name": "s"})
    t0 = time.monotonic()
    for b in frame[:3]:  # one byte every 0.2 s: the hello would take seconds
        await c.send_raw(bytes([b]))
        await asyncio.sleep(0.2)
    msgs = await c.closed()
    assert any(m["type"] == "error" and m["code"] == "handshake_timeout" for m in msgs)
    assert time.monotonic() - t0 < 3


async def test_an_idle_connection_is_pinged_then_closed(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.IDLE_PING", 0.1)
    monkeypatch.setattr("server.session.IDLE_TIMEOUT", 0.35)
    c = await connect("idle")
    ping = await c.recv_type("ping")
    assert "nonce" in ping
    msgs = await c.closed()  # a half-open peer never answers
    assert any(m["type"] == "error" and m["code"] == "idle_timeout" for m in msgs)


async def test_answering_pings_keeps_the_connection(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.IDLE_PING", 0.1)
    monkeypatch.setattr("server.session.IDLE_TIMEOUT", 0.35)
    c = await connect("awake")
    for _ in range(6):
        ping = await c.recv_type("ping")
        await c.send({"type": "pong", "nonce": ping["nonce"]})
    await c.send({"type": "list_tables"})
    assert (await c.recv_type("tables"))["tables"] == []


async def test_connections_per_address_are_capped(server: Server, connect: Connect) -> None:
    from server.app import Limits

    server.limits = Limits(connections_per_address=3)
    for i in range(3):
        await connect(f"c{i}")
    extra = await connect("extra", hello=False)
    msgs = await extra.closed()
    assert [m["code"] for m in msgs if m["type"] == "error"] == ["too_many_connections"]


async def test_item4_open_tables_are_capped_per_address_not_per_connection(
        server: Server, connect: Connect) -> None:
    """The cap counts the tables open now (waiting or playing) created from one
    address, whatever the connection: a new connection does not reset it, and
    a table that closed no longer counts (one connection may create table after
    table as each one ends)."""
    from server.app import Limits

    server.limits = Limits(tables_per_address=3)
    serial = await connect("serial")
    for _ in range(5):  # more than the cap, one after the other: each closes
        await serial.send({"type": "create_table", "settings": {"players": 3}, "seat": False})
        await serial.recv_type("joined")
        await serial.send({"type": "leave"})
        await serial.recv_type("left")
    assert server.tables == {}
    makers = [await connect(f"maker{i}") for i in range(3)]
    for c in makers:  # each stays at its table: three open tables
        await c.send({"type": "create_table", "settings": {"players": 3}})
        await c.recv_type("joined")
    extra = await connect("extra")
    await extra.send({"type": "create_table", "settings": {"players": 3}})
    assert (await extra.recv_type("error"))["code"] == "too_many_tables"
    await makers[0].send({"type": "leave"})  # its table closes
    await makers[0].recv_type("left")
    await extra.send({"type": "create_table", "settings": {"players": 3}})
    assert (await extra.recv_type("joined"))["seat"] == 0
    again = await connect("again")  # a new connection: still the same address
    await again.send({"type": "create_table", "settings": {"players": 3}})
    assert (await again.recv_type("error"))["code"] == "too_many_tables"
    assert len(server.tables) == 3


async def test_a_resume_with_seen_gets_the_missed_events(server: Server,
                                                         connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    idle = table.clients[2]
    seen = max(idle.views)
    token = next(m for m in idle.received if m["type"] == "welcome")["resume_token"]
    await idle.close()
    # The others play a few actions while seat 2 is away.
    while table.version < seen + 3:
        actor = table.actor()
        if actor is idle:
            break
        legal = await table.legal_for(actor)
        assert (await actor.act(legal[0]))["ok"]
    now = table.version
    back = await connect("seat2", hello=False)
    await back.send({"type": "hello", "version": "1.0", "role": "player", "name": "seat2",
                     "resume": token, "seen": seen})
    await back.recv_type("joined")
    batches = []
    while True:
        msg = await back.recv()
        if msg["type"] == "events":
            batches.append(msg["version"])
        if msg["type"] == "view":
            assert msg["version"] == now
            break
    assert batches == list(range(seen + 1, now + 1))


def _server(db: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout is not None
    m = re.search(r"listening on \S+:(\d+)", proc.stdout.readline())
    assert m
    return proc, int(m.group(1))


async def test_sigterm_says_goodbye_and_a_restart_resumes(tmp_path: Path) -> None:
    from .conftest import RawClient

    proc, port = _server(tmp_path / "g.db")
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = RawClient(reader, writer, "alice")
        await c.hello()
        await c.send({"type": "create_table", "settings": {"players": 3}})
        tid = (await c.recv_type("joined"))["table"]
        t0 = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        msgs: list[dict[str, object]] = []
        try:
            while True:
                msgs.append(await c.recv())
        except Closed:
            pass
        codes = [m.get("code") for m in msgs if m["type"] == "error"]
        assert "server_shutdown" in codes
        assert any(m["type"] == "bye" for m in msgs)
        assert proc.wait(10) == 0
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    proc, port = _server(tmp_path / "g.db")
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = RawClient(reader, writer, "bob")
        await c.hello()
        await c.send({"type": "list_tables"})
        tables = (await c.recv_type("tables"))["tables"]
        assert [t["id"] for t in tables] == [tid]  # the waiting table came back
    finally:
        proc.terminate()
        proc.wait(10)


def _frame(body: bytes) -> bytes:
    import struct

    return struct.pack(">I", len(body)) + body


@pytest.mark.parametrize(("body", "code"), [
    (b"\xc1", "bad_msgpack"),  # never valid msgpack
    (b"\x82\xa4type\xa4ping", "bad_msgpack"),  # truncated
    (b"\x81\xa4type\xa4ping\x00", "bad_msgpack"),  # trailing bytes
    (b"\x81\xa4type\xa2\xff\xfe", "bad_msgpack"),  # invalid UTF-8
    (b"\x81\xa4type" + b"\x91" * 40 + b"\x00", "bad_msgpack"),  # nested too deep
    (b"\x81\xa4type\xd4\x01\x00", "bad_msgpack"),  # an ext type
    (b"\x81\xd6\xff\x00\x00\x00\x00\xa4ping", "bad_msgpack"),  # timestamp ext as a key
    (b"\x81\x01\xa4ping", "bad_msgpack"),  # an integer map key
    (b"\xdc\x10\x00" + b"\x80" * 4096, "bad_message"),  # a frame full of empty maps
], ids=["0xC1", "truncated", "trailing", "utf8", "deep", "ext", "timestamp", "int-key",
        "empty-maps"])
async def test_malformed_bodies_are_refused_and_closed(server: Server, connect: Connect,
                                                       body: bytes, code: str) -> None:
    c = await connect("bad")
    await c.send_raw(_frame(body))
    msgs = await c.closed()
    assert [m["code"] for m in msgs if m["type"] == "error"] == [code]
    # The server is fine: a new connection works.
    ok = await connect("good")
    await ok.send({"type": "list_tables"})
    assert (await ok.recv_type("tables"))["type"] == "tables"


async def test_finished_tables_leave_the_list(server: Server, connect: Connect,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from .conftest import run_bot_game

    monkeypatch.setattr("server.app.FINISHED_TTL", 0.2)
    game = await run_bot_game(server, {"players": 3}, ["random", "random", "random"], 5)
    assert all(o.finished for o in game.outcomes)
    for _ in range(100):
        if not server.tables:
            break
        await asyncio.sleep(0.02)
    assert server.tables == {}
