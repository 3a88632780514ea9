"""Fixtures and helpers for the server tests: a real server on a loopback port,
a raw client that speaks frames byte by byte, and bot clients that record every
frame they receive.

Every network wait goes through ``asyncio.wait_for`` so a server bug fails a
test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from bots import Bot, GreedyBot, HeuristicBot, RandomBot
from bots.client import BotClient, BotOutcome
from protocol.rules.chance import Reveal
from protocol.wire import VERSION_STRING, FrameDecoder, Message, encode_frame
from server.app import Server

TIMEOUT = 5.0
"""Seconds any single network wait may take."""
GAME_TIMEOUT = 30.0
"""Seconds a whole bot game over loopback may take (they take well under one)."""


class Closed(Exception):
    """The server closed the connection."""


class RawClient:
    """A test client that sends frames (or any bytes) and decodes what comes back
    with a bare :class:`FrameDecoder` (no phase machine: it sees what the server
    really sends)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 name: str) -> None:
        self.reader = reader
        self.writer = writer
        self.name = name
        self.decoder = FrameDecoder()
        self.inbox: list[Message] = []
        self.received: list[Message] = []  # every frame, in order
        self.stream = bytearray()  # every byte received
        self.eof = False
        self.seq = 0
        self.table: str | None = None
        self.seat: int | None = None
        self.views: dict[int, dict[str, Any]] = {}  # version -> latest view at it
        self.legals: dict[int, list[dict[str, Any]]] = {}  # version -> legal actions
        self.results: dict[int, Message] = {}  # seq -> latest result

    # -- sending ----------------------------------------------------------------

    async def send(self, msg: Message) -> None:
        await self.send_raw(encode_frame(msg))

    async def send_raw(self, data: bytes) -> None:
        self.writer.write(data)
        await asyncio.wait_for(self.writer.drain(), TIMEOUT)

    async def act(self, action: dict[str, Any], seq: int | None = None,
                  **extra: Any) -> Message:
        """Send an action and return its ``result``."""
        if seq is None:
            self.seq += 1
            seq = self.seq
        await self.send({"type": "action", "seq": seq, "action": action, **extra})
        return await self.recv_until(lambda m: m["type"] == "result" and m["seq"] == seq)

    # -- receiving --------------------------------------------------------------

    async def _fill(self, timeout: float) -> None:
        while not self.inbox:
            if self.eof:
                raise Closed(self.name)
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                self.eof = True
                raise Closed(self.name)
            self.stream.extend(data)
            for msg in self.decoder.feed(data):
                self._note(msg)
                self.received.append(msg)
                self.inbox.append(msg)

    def _note(self, msg: Message) -> None:
        kind = msg["type"]
        if kind == "joined":
            self.table = msg["table"]
            self.seat = msg["seat"]
        elif kind == "view":
            self.views[msg["version"]] = msg["view"]
        elif kind == "legal":
            self.legals[msg["version"]] = msg["actions"]
        elif kind == "result":
            self.results[msg["seq"]] = msg
        elif kind == "left":
            self.table = None
            self.seat = None

    async def recv(self, timeout: float = TIMEOUT) -> Message:
        await self._fill(timeout)
        return self.inbox.pop(0)

    async def recv_until(self, pred: Callable[[Message], bool],
                         timeout: float = TIMEOUT) -> Message:
        """The first message matching ``pred`` (earlier ones are consumed)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(end - loop.time(), 0.001))
            if pred(msg):
                return msg

    async def recv_type(self, kind: str, timeout: float = TIMEOUT) -> Message:
        return await self.recv_until(lambda m: m["type"] == kind, timeout)

    async def closed(self, timeout: float = TIMEOUT) -> list[Message]:
        """Read until the server closes the connection; return the messages read."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        out: list[Message] = []
        with contextlib.suppress(Closed):
            while True:
                out.append(await self.recv(max(end - loop.time(), 0.001)))
        return out

    async def quiet(self, delay: float = 0.2) -> list[Message]:
        """The messages that arrive within ``delay`` seconds (nothing, usually)."""
        out: list[Message] = []
        with contextlib.suppress(TimeoutError, Closed):
            while True:
                out.append(await self.recv(delay))
        return out

    # -- conveniences -----------------------------------------------------------

    async def hello(self, role: str = "player", name: str | None = None) -> Message:
        await self.send({"type": "hello", "version": VERSION_STRING, "role": role,
                         "name": name or self.name})
        msg = await self.recv()
        assert msg["type"] == "welcome", msg
        return msg

    async def legal_now(self, version: int) -> list[dict[str, Any]]:
        """Ask for a resync and return the legal actions at ``version``."""
        await self.send({"type": "resync"})
        await self.recv_until(lambda m: m["type"] == "legal" and m["version"] == version)
        return self.legals[version]

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)


Connect = Callable[..., Awaitable[RawClient]]


async def until(pred: Callable[[], object], timeout: float = TIMEOUT) -> None:
    """Wait until ``pred()`` is true (polled every 10 ms), at most ``timeout`` seconds."""
    async def poll() -> None:
        while not pred():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def _start_server(spawn_bots: bool) -> Server:
    srv = Server("127.0.0.1", 0, spawn_bots=spawn_bots)
    await srv.start()
    return srv


async def _stop_server(srv: Server) -> None:
    await asyncio.wait_for(srv.close(), 15.0)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """A running server on a free loopback port that starts no bot processes."""
    srv = await _start_server(spawn_bots=False)
    try:
        yield srv
    finally:
        await _stop_server(srv)


@pytest.fixture
async def bot_server() -> AsyncIterator[Server]:
    """A running server that starts ``python -m kaitaku bot`` processes for bot seats."""
    srv = await _start_server(spawn_bots=True)
    try:
        yield srv
    finally:
        await _stop_server(srv)


@pytest.fixture
async def connect(server: Server) -> AsyncIterator[Connect]:
    """``await connect(name, hello=True, role="player")``: a RawClient to ``server``."""
    clients: list[RawClient] = []

    async def _connect(name: str = "raw", *, hello: bool = True,
                       role: str = "player") -> RawClient:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", server.port), TIMEOUT)
        client = RawClient(reader, writer, name)
        clients.append(client)
        if hello:
            await client.hello(role)
        return client

    try:
        yield _connect
    finally:
        for c in clients:
            await c.close()


# -- raw tables ---------------------------------------------------------------------


@dataclass
class RawTable:
    """A table of raw clients, ``clients[i]`` at seat ``i``, its game started."""

    server: Server
    id: str
    clients: list[RawClient]

    @property
    def version(self) -> int:
        return self.server.tables[self.id].version

    def game(self) -> Any:
        game = self.server.tables[self.id].game
        assert game is not None
        return game

    def actor(self) -> RawClient:
        """The client whose seat the game waits for (one seat owes a decision)."""
        from protocol.rules import to_act

        waiting = to_act(self.game())
        assert len(waiting) == 1, waiting
        return self.clients[waiting[0]]

    def others(self, client: RawClient) -> list[RawClient]:
        return [c for c in self.clients if c is not client]

    async def legal_for(self, client: RawClient) -> list[dict[str, Any]]:
        """``client``'s legal actions at the table's current version (what the
        server sent after the last action, or asked for with a resync)."""
        from protocol.rules import to_act

        v = self.version
        if v not in client.legals:
            if client.seat in to_act(self.game()):
                await client.recv_until(lambda m: m["type"] == "legal" and m["version"] == v)
            else:
                await client.legal_now(v)
        return client.legals[v]

    async def wait_version(self, version: int) -> None:
        """Every seat has received the events of ``version``."""
        for c in self.clients:
            await c.recv_until(lambda m: m["type"] == "events" and m["version"] >= version)


async def seat_dropped(server: Server, table_id: str, seat: int) -> None:
    """Wait until the server has noticed that ``seat``'s connection is gone."""

    async def poll() -> None:
        while server.tables[table_id].seats[seat].session is not None:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), TIMEOUT)


async def raw_table(server: Server, connect: Connect, players: int = 3, seed: int = 2024,
                    settings: dict[str, Any] | None = None) -> RawTable:
    """Create a table of ``players`` raw clients with the game's seed fixed, and
    wait until every one of them has its first view and legal list."""
    creator = await connect("seat0")
    await creator.send({"type": "create_table",
                        "settings": {"players": players, **(settings or {})}})
    joined = await creator.recv_type("joined")
    tid = joined["table"]
    server.tables[tid].use_seed(seed)  # the engine's dice of this seed (positions reached by them)
    clients = [creator]
    for i in range(1, players):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        msg = await c.recv_type("joined")
        assert msg["seat"] == i
        clients.append(c)
    for c in clients:
        await c.recv_until(lambda m: m["type"] == "legal" and m["version"] == 0)
    table = RawTable(server, tid, clients)
    assert table.game().seed == seed
    return table


# -- bot games ----------------------------------------------------------------------


class RecordingBotClient(BotClient):
    """A :class:`BotClient` that keeps every byte and every message it receives."""

    def __init__(self, bot: Bot, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 name: str) -> None:
        super().__init__(bot, reader, writer, name)
        self.stream = bytearray()
        self.received: list[Message] = []

    async def recv(self) -> Message:
        while not self.inbox:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("server closed the connection")
            self.stream.extend(data)
            msgs = self.conn.receive_data(data)  # validates every server message
            self.received.extend(msgs)
            self.inbox.extend(msgs)
        return self.inbox.pop(0)


@dataclass
class BotGame:
    table: str
    settings: dict[str, Any]
    clients: list[RecordingBotClient]
    outcomes: list[BotOutcome] = field(default_factory=list)


def make_bot(kind: str, seed: int) -> Bot:
    return {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}[kind](seed)


async def bot_client(server: Server, kind: str, seed: int, name: str) -> RecordingBotClient:
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", server.port), TIMEOUT)
    client = RecordingBotClient(make_bot(kind, seed), reader, writer, name)
    await asyncio.wait_for(client.handshake(), TIMEOUT)
    return client


async def start_bot_game(server: Server, settings: dict[str, Any], kinds: Sequence[str],
                         seed: int = 1,
                         before_join: Callable[[str], Awaitable[None]] | None = None
                         ) -> BotGame:
    """Connect one bot client per seat: the first creates the table (settings
    as given, the game's seed fixed to ``seed``), the others join it by id
    (after ``await before_join(table_id)``, if given). The clients are not
    playing yet: call :func:`play_bot_game`."""
    clients = [await bot_client(server, kind, seed * 10 + i, f"{kind}{i}")
               for i, kind in enumerate(kinds)]
    creator = clients[0]
    creator.send({"type": "create_table", "settings": settings})
    joined = await asyncio.wait_for(creator.recv(), TIMEOUT)
    while joined["type"] != "joined":
        joined = await asyncio.wait_for(creator.recv(), TIMEOUT)
    creator.outcome.table = joined["table"]
    creator.outcome.seat = joined["seat"]
    server.tables[joined["table"]].commit(seeded_reveal(seed))
    if before_join is not None:
        await before_join(joined["table"])
    for c in clients[1:]:
        c.send({"type": "join", "table": joined["table"]})
    return BotGame(joined["table"], joined["settings"], clients)


async def play_bot_game(game: BotGame, timeout: float = GAME_TIMEOUT) -> BotGame:
    try:
        game.outcomes = list(await asyncio.wait_for(
            asyncio.gather(*(c.play() for c in game.clients)), timeout))
    finally:
        for c in game.clients:
            c.writer.close()
    return game


def seeded_reveal(seed: int) -> Reveal:
    """A committed chance fixed by ``seed`` (a test's reproducible game)."""
    secret = hashlib.sha512(f"kaitaku-test:{seed}".encode()).digest()
    return Reveal.new(secret, hashlib.sha256(f"kaitaku-test-salt:{seed}".encode()).digest()[:16])


async def run_bot_game(server: Server, settings: dict[str, Any], kinds: Sequence[str],
                       seed: int = 1, timeout: float = GAME_TIMEOUT) -> BotGame:
    """A whole game of bot clients over TCP (see :func:`start_bot_game`)."""
    return await play_bot_game(await start_bot_game(server, settings, kinds, seed), timeout)


def assert_finished(game: BotGame, server: Server) -> None:
    """Every client got game_over with the same winner and scores, the winner
    reached the target, no action was rejected, and that is the true result."""
    outs = game.outcomes
    assert len(outs) == len(game.clients) == game.settings["players"]
    assert all(o.finished for o in outs)
    assert sorted(o.seat for o in outs) == list(range(len(outs)))  # type: ignore[type-var]
    winner = outs[0].winner
    assert winner is not None
    assert all(o.winner == winner and o.scores == outs[0].scores for o in outs)
    assert outs[0].scores[winner] >= game.settings["vp_target"]
    assert all(o.rejected == 0 for o in outs), [o.rejected for o in outs]
    assert all(o.actions > 0 for o in outs)
    table = server.tables[game.table]
    assert table.status == "finished"
    state = table.game
    assert state is not None and state.winner == winner
    assert [state.total_vp(q) for q in range(len(outs))] == outs[0].scores
    for c in game.clients:
        over = [m for m in c.received if m["type"] == "game_over"]
        assert len(over) == 1
        end = dict(over[0])
        chance = end.pop("chance")
        assert end == {"type": "game_over", "winner": winner, "scores": outs[0].scores}
        # the committed chance: announced at the start, revealed at the end, and
        # every roll the client saw follows from it
        started = [m for m in c.received if m["type"] == "game_started"]
        assert started and all(m["chance"] == started[0]["chance"] for m in started)
        reveal = Reveal.from_dict(chance)
        assert reveal.matches() and reveal.commitment == started[0]["chance"]["commitment"]
        assert table.reveal is not None and table.reveal.secret == reveal.secret
    # every seat checked the rolls it saw against the reveal (the bot SDK's witness)
    assert all(o.chance is not None and o.chance.ok and o.chance.checked["dice"] > 0
               for o in outs), [o.chance for o in outs]
