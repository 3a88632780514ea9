"""NetClient against a real server on a loopback port: handshake, tables, the
game's messages, sequence numbers, pings, reconnection with the seat kept,
and the clear reasons when it cannot connect."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

import pytest

from client.model import OFFLINE, ONLINE, RECONNECTING, ClientModel
from client.net import NetClient, parse_address
from client.state_file import StateFile
from protocol.rules import Settings, new_game
from server.app import Server
from tests.server.conftest import Connect, seat_dropped

Message = dict[str, Any]
TIMEOUT = 5.0


def applied(d: Driver, version: int) -> bool:
    """The action that made ``version`` is in the model (and the next decision, if ours)."""
    return d.model.version == version and (version == 2 or d.model.legal_version == version)


def seed_starting_at(seat: int, players: int = 3) -> int:
    return next(s for s in range(1000) if new_game(Settings(players=players), seed=s).current
                == seat)


class Driver:
    """A NetClient and the model the UI would keep, polled from the test's loop."""

    def __init__(self, net: NetClient) -> None:
        self.net = net
        self.model = ClientModel()
        self.received: list[Message] = []

    def pump(self) -> None:
        for msg in self.net.poll():
            self.received.append(msg)
            self.model.apply(msg)

    async def until(self, pred: Callable[[Driver], bool], timeout: float = TIMEOUT) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            self.pump()
            if pred(self):
                return
            if loop.time() > end:
                raise AssertionError(f"timed out; received {self.received[-8:]}")
            await asyncio.sleep(0.01)

    async def message(self, kind: str, start: int = 0, **match: Any) -> Message:
        """The first message of ``kind`` (matching ``match``) after index ``start``."""

        def find() -> Message | None:
            return next((m for m in self.received[start:] if m["type"] == kind and all(
                m.get(k) == v for k, v in match.items())), None)

        await self.until(lambda d: find() is not None)
        msg = find()
        assert msg is not None
        return msg

    def statuses(self) -> list[tuple[str, int]]:
        return [(m["state"], m.get("attempt", 0)) for m in self.received
                if m["type"] == "_status"]


@pytest.fixture
async def drivers() -> AsyncIterator[Callable[..., Driver]]:
    made: list[NetClient] = []

    def make(port: int, name: str = "Ann", **kw: Any) -> Driver:
        kw.setdefault("backoff", (0.2, 0.4))  # the server notices a drop before the resume
        net = NetClient("127.0.0.1", port, name, **kw)
        made.append(net)
        net.start()
        return Driver(net)

    try:
        yield make
    finally:
        for net in made:
            await asyncio.get_running_loop().run_in_executor(None, net.close)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


async def test_handshake_tables_and_a_table(server: Server,
                                            drivers: Callable[..., Driver]) -> None:
    d = drivers(server.port)
    # sent before the connection is up: queued, then sent in order after the welcome
    d.net.send({"type": "create_table", "settings": {"players": 3}, "name": "Friday"})
    d.net.send({"type": "list_tables"})
    await d.until(lambda d: d.model.table is not None and d.model.tables != [])
    assert d.statuses()[:2] == [("connecting", 0), ("online", 0)]
    assert d.model.connection == ONLINE and d.model.server_name == "kaitaku"
    assert [t["name"] for t in d.model.tables] == ["Friday"]
    assert d.model.seat == 0
    await d.until(lambda d: d.model.table_status == "waiting")
    assert d.net.token is not None and d.net.table == d.model.table


async def test_game_messages_actions_seq_and_resume(server: Server, connect: Connect,
                                                    drivers: Callable[..., Driver]) -> None:
    d = drivers(server.port)
    d.net.send({"type": "create_table", "settings": {"players": 3}})
    await d.until(lambda d: d.model.table is not None)
    tid = d.model.table
    assert tid is not None
    server.tables[tid].use_seed(seed_starting_at(0))
    others = []
    for i in (1, 2):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        others.append(c)
    await d.until(lambda d: d.model.view is not None and d.model.legal != [])
    assert d.model.table_status == "playing"
    assert any(m["type"] == "game_started" for m in d.received)
    # place the first settlement and road: seq 1 and 2
    for expected_seq in (1, 2):
        d.net.send({"type": "action", "action": d.model.legal[0].to_dict()})
        result = await d.message("result", seq=expected_seq)
        assert result["ok"], result
        await d.until(partial(applied, version=expected_seq))
    assert server.tables[tid].seats[0].last_seq == 2
    assert d.net.seq == 2 and d.net.seen == server.tables[tid].version == 2
    # the server drops the connection: the client resumes its seat by itself
    start = len(d.received)
    session = server.tables[tid].seats[0].session
    assert session is not None
    session.abort()
    await seat_dropped(server, tid, 0)
    joined = await d.message("joined", start)
    await d.until(lambda d: d.model.connection == ONLINE and d.net.online)
    states = [s for s, _ in d.statuses()]
    assert states[-2:] == [RECONNECTING, ONLINE]
    assert ("reconnecting", 1) in d.statuses()
    assert joined["table"] == tid and joined["seat"] == 0 and joined["last_seq"] == 2
    assert d.model.table == tid and d.model.seat == 0 and d.model.view is not None
    assert server.tables[tid].seats[0].session is not None
    # numbering continues above last_seq (not our turn now: rejected, but seq 3)
    d.net.send({"type": "action", "action": {"type": "end_turn"}})
    result = await d.message("result", start, seq=3)
    assert not result["ok"] and result["code"] in ("not_your_turn", "wrong_phase")
    for c in others:
        await c.close()


async def test_a_new_client_continues_above_last_seq(server: Server, connect: Connect,
                                                     drivers: Callable[..., Driver]) -> None:
    """A resume into a fresh NetClient (as after a restart of the client) takes
    ``joined.last_seq`` as its starting point."""
    d = drivers(server.port)
    d.net.send({"type": "create_table", "settings": {"players": 2}})
    await d.until(lambda d: d.model.table is not None)
    tid = d.model.table
    assert tid is not None
    server.tables[tid].use_seed(seed_starting_at(0, players=2))
    c = await connect("bob")
    await c.send({"type": "join", "table": tid})
    await d.until(lambda d: d.model.legal != [])
    d.net.send({"type": "action", "action": d.model.legal[0].to_dict()})
    await d.message("result", seq=1)
    fresh = NetClient("127.0.0.1", server.port, "Ann")
    fresh.token, fresh.table, fresh.seat = d.net.token, tid, 0  # what it resumes
    try:
        fresh.start()
        d3 = Driver(fresh)
        joined = await d3.message("joined")
        assert joined["last_seq"] == 1 and fresh.seq == 1
        await d3.until(lambda d: d.model.view is not None)
        fresh.send({"type": "action", "action": {"type": "end_turn"}})
        assert (await d3.message("result"))["seq"] == 2
    finally:
        await asyncio.get_running_loop().run_in_executor(None, fresh.close)
        await c.close()


async def test_pings_are_answered_and_silence_is_pinged(server: Server,
                                                        drivers: Callable[..., Driver]) -> None:
    seen: list[Message] = []
    dispatch = server.dispatch

    def spy(sess: Any, msg: Message) -> None:
        seen.append(msg)
        dispatch(sess, msg)

    server.dispatch = spy  # type: ignore[method-assign]
    d = drivers(server.port, keepalive=0.2, dead_after=5.0)
    await d.until(lambda d: d.model.connection == ONLINE)
    session = next(iter(server.sessions))
    session.send({"type": "ping", "nonce": 42})
    await d.until(lambda d: any(m == {"type": "pong", "nonce": 42} for m in seen))
    # the client pings a server that says nothing for `keepalive` seconds
    await d.until(lambda d: any(m["type"] == "ping" for m in seen), timeout=3)
    assert all(m["type"] not in ("ping", "pong") for m in d.received)  # not shown to the UI


async def test_a_spectator_watches_again_after_a_drop(server: Server, connect: Connect,
                                                      drivers: Callable[..., Driver]) -> None:
    host = await connect("host")
    await host.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await host.recv_type("joined"))["table"]
    d = drivers(server.port, role="spectator")
    d.net.send({"type": "spectate", "table": tid})
    await d.until(lambda d: d.model.table == tid)
    assert d.model.seat is None
    start = len(d.received)
    for sess in list(server.sessions):
        if sess.seat is None and sess.table is not None:
            sess.abort()
    await d.message("joined", start, table=tid)
    assert d.model.table == tid and d.model.seat is None
    await host.close()


async def test_a_dropped_seat_at_a_waiting_table_is_taken_again(
        server: Server, drivers: Callable[..., Driver]) -> None:
    """Before the game a dropped seat is freed (its token forgotten): the client
    sits down at the same table again."""
    d = drivers(server.port)
    d.net.send({"type": "create_table", "settings": {"players": 3}})
    await d.until(lambda d: d.model.table_status == "waiting")
    tid = d.model.table
    start = len(d.received)
    session = server.tables[tid].seats[0].session  # type: ignore[index]
    assert session is not None
    session.abort()
    await d.message("error", start, code="bad_resume")
    await d.message("joined", start, table=tid)
    await d.until(lambda d: d.model.table == tid and d.net.online)
    assert server.tables[tid].seats[d.model.seat or 0].session is not None  # type: ignore[index]


async def test_refused_connection_is_offline_with_a_reason(
        drivers: Callable[..., Driver]) -> None:
    d = drivers(free_port())
    await d.until(lambda d: d.model.connection == OFFLINE)
    assert "cannot connect" in d.model.connection_detail
    assert "refused" in d.model.connection_detail
    await d.until(lambda d: not d.net.alive)


async def test_version_unsupported_is_final(server: Server,
                                            drivers: Callable[..., Driver]) -> None:
    d = drivers(server.port, version="9.0")
    await d.until(lambda d: d.model.connection == OFFLINE)
    assert "version_unsupported" in d.model.connection_detail
    assert d.model.errors[-1][0] == "version_unsupported"
    await d.until(lambda d: not d.net.alive)
    assert RECONNECTING not in [s for s, _ in d.statuses()]


async def test_server_shutdown_bye_then_reconnecting_then_giving_up(
        drivers: Callable[..., Driver]) -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    d = drivers(srv.port, max_attempts=2)
    await d.until(lambda d: d.model.connection == ONLINE)
    await srv.close()
    await d.until(lambda d: d.model.connection == OFFLINE, timeout=10)
    assert any(m["type"] == "error" and m["code"] == "server_shutdown" for m in d.received)
    assert ("reconnecting", 1) in d.statuses() and ("reconnecting", 2) in d.statuses()
    assert "gave up after 2 attempts" in d.model.connection_detail


async def test_a_silent_server_counts_as_dead(drivers: Callable[..., Driver]) -> None:
    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await reader.read()  # accept, never answer

    silent = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    try:
        d = drivers(port, keepalive=0.1, dead_after=0.3)
        await d.until(lambda d: d.model.connection == OFFLINE)
        assert "no answer from the server" in d.model.connection_detail
    finally:
        silent.close()


async def test_close_says_bye(server: Server, drivers: Callable[..., Driver]) -> None:
    seen: list[Message] = []
    dispatch = server.dispatch

    def spy(sess: Any, msg: Message) -> None:
        seen.append(msg)
        dispatch(sess, msg)

    server.dispatch = spy  # type: ignore[method-assign]
    d = drivers(server.port)
    await d.until(lambda d: d.model.connection == ONLINE)
    await asyncio.get_running_loop().run_in_executor(None, d.net.close)
    await d.until(lambda d: any(m["type"] == "bye" for m in seen))
    assert not d.net.alive
    d.net.send({"type": "list_tables"})  # after close: ignored, no error


@pytest.mark.parametrize(("text", "expected"), [
    ("127.0.0.1:7878", ("127.0.0.1", 7878)),
    ("example.org", ("example.org", 7878)),
    (" host:1 ", ("host", 1)),
    ("[::1]:9000", ("::1", 9000)),
    ("[fe80::1]", ("fe80::1", 7878)),
])
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":7878", "host:", "host:0", "host:70000", "host:x",
                                  "[::1", "[::1]x"])
def test_parse_address_refuses(text: str) -> None:
    if text == "host:":  # an empty port means the default
        assert parse_address(text) == ("host", 7878)
        return
    with pytest.raises(ValueError):
        parse_address(text)


def test_the_network_layer_does_not_import_pygame() -> None:
    code = ("import sys, client.net, client.model, client.discovery; "
            "print('pygame' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


async def test_a_restarted_client_reclaims_its_seat_from_the_state_file(
        server: Server, connect: Connect, drivers: Callable[..., Driver]) -> None:
    """The window was closed (or crashed) in a running game: a new NetClient
    with the same state file takes the seat back and gets the whole view."""
    d = drivers(server.port, state=StateFile())
    d.net.send({"type": "create_table", "settings": {"players": 2}})
    await d.until(lambda d: d.model.table is not None)
    tid = d.model.table
    assert tid is not None
    await d.until(lambda d: StateFile().get(d.net.address) is not None)  # written after
    stored = StateFile().get(d.net.address)  # the joined went to the UI
    assert stored is not None and (stored.table, stored.seat) == (tid, 0)
    assert stored.token == d.net.token
    c = await connect("bob")
    await c.send({"type": "join", "table": tid})
    await d.until(lambda d: d.model.view is not None)
    await asyncio.get_running_loop().run_in_executor(None, d.net.close)
    await seat_dropped(server, tid, 0)
    seen: list[Message] = []
    dispatch = server.dispatch

    def spy(sess: Any, msg: Message) -> None:
        seen.append(msg)
        dispatch(sess, msg)

    server.dispatch = spy  # type: ignore[method-assign]
    d2 = drivers(server.port, state=StateFile())
    joined = await d2.message("joined")
    assert joined["table"] == tid and joined["seat"] == 0
    await d2.until(lambda d: d.model.view is not None and d.model.table_status == "playing")
    assert d2.model.seat == 0 and server.tables[tid].seats[0].session is not None
    hello = next(m for m in seen if m["type"] == "hello")
    assert hello["resume"] == stored.token and "seen" not in hello
    # leaving the table forgets the seat
    d2.net.send({"type": "leave"})
    await d2.message("left")
    await d2.until(lambda d: StateFile().get(d.net.address) is None)
    await c.close()


async def test_a_stale_stored_token_is_dropped_quietly(server: Server,
                                                      drivers: Callable[..., Driver]) -> None:
    """The server does not know the stored token (it restarted, the game is
    gone): the client forgets it and is in the lobby, with no error shown."""
    address = f"127.0.0.1:{server.port}"
    StateFile().put(address, "no-such-token", "gone", 1)
    StateFile().put("127.0.0.1:1", "other", "t", 0)  # another server's: untouched
    d = drivers(server.port, state=StateFile())
    d.net.send({"type": "create_table", "settings": {"players": 3}})
    await d.until(lambda d: d.model.table is not None)
    assert d.model.seat == 0 and d.model.errors == deque() and d.net.seq == 0
    await d.until(lambda d: (s := StateFile().get(address)) is not None
                  and s.token != "no-such-token")
    stored = StateFile().get(address)
    assert stored is not None and stored.token != "no-such-token"
    assert stored.table == d.model.table
    assert StateFile().get("127.0.0.1:1") is not None


async def test_item11_a_flooding_server_cannot_grow_the_inbox(
        drivers: Callable[..., Driver], monkeypatch: pytest.MonkeyPatch) -> None:
    """While the UI does not poll, the connection stops reading: the inbox stays
    bounded however fast the server sends; once the UI polls, reading goes on."""
    import client.net as net_module
    from protocol.wire import FrameDecoder, encode_frame

    monkeypatch.setattr(net_module, "MAX_INBOX", 40)
    monkeypatch.setattr(net_module, "MAX_INBOX_BYTES", 64 * 1024)
    flood = 3000
    sent = 0
    summary = {"id": "t", "name": "x" * 32, "settings": Settings(players=3).to_dict(),
               "seats": [], "status": "waiting", "spectators": 0}

    async def flooder(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        decoder = FrameDecoder()
        with contextlib.suppress(Exception):
            while not decoder.feed(await reader.read(65536)):
                pass
            writer.write(encode_frame({"type": "welcome", "version": "1.2", "session": "s",
                                       "resume_token": "t", "server": "flood"}))
            for _ in range(flood):
                writer.write(encode_frame({"type": "tables", "tables": [summary] * 40}))
                sent += 1
                await writer.drain()
            await reader.read()

    srv = await asyncio.start_server(flooder, "127.0.0.1", 0)
    try:
        d = drivers(srv.sockets[0].getsockname()[1])
        await asyncio.sleep(1.0)  # the UI is busy: nobody polls
        with d.net._lock:
            waiting = len(d.net._inbox)
        assert waiting <= 40 + 10  # the cap, plus one read's worth
        assert sent < flood  # the server is held back (its socket buffers are full)
        await d.until(lambda d: sum(m["type"] == "tables" for m in d.received) >= 400, 20)
        assert d.model.connection == ONLINE
    finally:
        srv.close()
