"""Record the protocol transcripts in docs/protocol/transcripts/ from real, seeded sessions.

Run from the repository root::

    python docs/protocol/transcripts.py            # (re)write every transcript
    python docs/protocol/transcripts.py --check    # exit 1 if a file is stale
    python docs/protocol/transcripts.py --only trade-offerer --print

Every scenario starts the real server (``server.app.Server``, in this process,
on a loopback TCP port, with a SQLite database in a temporary directory) and
real clients: the bot SDK (``bots.client.BotClient``) with built-in bots, and
small scripted clients where a scenario needs exact control. Each recorded
connection's frames, both ways, are decoded and written one JSON object a line
(see ``docs/protocol/transcripts/README.md`` for the format).

The games are seeded (the table's committed chance is fixed when it is
created, :func:`transcript_chance`); the timing is not. So that the same frames come out on
every run, no action reaches the server while anything else is in flight:
every ``action`` a client writes is held back, and the held actions are let
through one at a time (lowest seat first) only when the whole system is
quiet: no callback is ready to run and no timer is due within a second, the
tables' queues are empty, nothing waits for the database, every byte the
server wrote has been read by its client, every byte a client wrote has been
read by the server, and every client is waiting for the next frame.
Scenario steps wait for what arrives (a game state, a held action), never
for a count of frames. The finished-game scenario sets its table's ``grace``
and ``stand_in_pace`` to 0 (the table's own settings) so that the stand-in
plays the dropped seat at once.
Session ids, resume tokens and table ids are random: they are written as
placeholders (``<table-1>``, ``<session-1>``, ``<token-1>``, numbered in the
order they first appear). ``t`` (seconds since the connection opened) is the
only field that differs from run to run; ``--check`` and
tests/wire/test_transcripts.py compare everything else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots import Bot, GreedyBot, HeuristicBot, RandomBot  # noqa: E402
from bots.client import BotClient  # noqa: E402
from protocol.rules import (  # noqa: E402
    Action,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    OfferTrade,
    Phase,
    RejectTrade,
)
from protocol.rules.chance import Reveal  # noqa: E402
from protocol.wire import VERSION_STRING, FrameDecoder, Message, encode_frame  # noqa: E402
from server.app import Server  # noqa: E402

OUT = ROOT / "docs" / "protocol" / "transcripts"
HOST = "127.0.0.1"
SCENARIO_TIMEOUT = 120.0
"""Seconds one scenario may take before it counts as stuck."""
TIMER_HORIZON = 1.0
"""Seconds: a timer due sooner than this (a server's batching or a stand-in's
pace) counts as something still moving; later ones (grace periods, idle pings,
deadlines) do not."""
KEEPALIVE = 3600.0
"""The SDK's keepalive and read timeout here: no SDK ping ever lands in a transcript."""


class Stuck(Exception):
    """A scenario waited for something that does not happen."""


# -- recording ----------------------------------------------------------------------------


@dataclass
class Transcript:
    """What one client saw: its frames over one or more connections, with notes."""

    name: str
    title: str
    about: str
    client: str
    settings: dict[str, Any]
    seed: int
    items: list[dict[str, Any]] = field(default_factory=list)
    """Frame lines ``{conn, t, dir, frame, note?}`` and comment lines ``{comment}``."""
    keep: Callable[[list[dict[str, Any]]], list[tuple[int, int]]] | None = None
    """The index ranges (inclusive) of ``items`` that are written; the rest is
    summarised in comment lines. None: everything."""
    elision: str = "none: every frame is here"
    connections: int = 0
    noted: set[str] = field(default_factory=set)
    """The AUTO_NOTES already given (each annotates its first frame only)."""

    def comment(self, text: str) -> None:
        self.items.append({"comment": text})

    def frames(self) -> Iterator[dict[str, Any]]:
        return (i for i in self.items if "frame" in i)


def _event(name: str) -> Callable[[Message], bool]:
    return lambda m: has_event(m, name)


def _listed(name: str) -> Callable[[Message], bool]:
    return lambda m: m.get("type") == "legal" and any(
        isinstance(a, dict) and a.get("type") == name for a in m.get("actions") or [])


def _sent(name: str) -> Callable[[Message], bool]:
    return lambda m: m.get("type") == "action" and m["action"].get("type") == name


AUTO_NOTES: dict[str, tuple[str, Callable[[Message], bool], str]] = {
    "setup_income": ("recv", _event("setup_income"), "setup_income: the cards the second "
                     "set-up settlement brings (one per adjacent producing hex)."),
    "roll": ("recv", _listed("roll_dice"), "A turn starts with the roll (a knight may be "
             "played before it, when the seat holds one)."),
    "dice": ("recv", _event("dice_rolled"), "dice_rolled, then produced: every seat's gains "
             "(withheld: resources the bank could not pay)."),
    "discards": ("recv", _event("discards_owed"), "A 7: discards_owed says how many cards "
                 "each seat must give up; those seats get a legal list of discards."),
    "discard": ("recv", _listed("discard"), "A discard: every way to give up the owed "
                "cards is listed (a huge hand gets an even spread, with truncated)."),
    "robber": ("recv", _listed("move_robber"), "Move the robber: one action per hex it may "
               "go to."),
    "stolen": ("recv", _event("stolen"), "stolen: the resource is shown to the thief and the "
               "victim only (null in every other copy)."),
    "proposed": ("recv", _event("trade_proposed"), "trade_proposed: a seat not on turn "
                 "proposes a trade to the current player (from the proposer's side)."),
    "propose": ("send", _sent("propose_trade"), "A proposal to the current player: give and "
                "get from this seat's side (allowed when legal.propose said so)."),
    "offered": ("recv", _event("trade_offered"), "trade_offered: the current player's "
                "domestic offer; the seats in to must answer."),
    "answer": ("recv", _listed("accept_trade"), "An offer to answer: accept_trade or "
               "reject_trade (counter_offer is allowed too, though never listed)."),
    "bought": ("recv", _event("dev_card_bought"), "dev_card_bought: the card is shown to "
               "its buyer only (null in every other copy)."),
    "maritime": ("recv", _event("maritime_traded"), "maritime_traded: with the bank, at the "
                 "seat's best ratio for that resource."),
    "longest": ("recv", _event("longest_road_changed"), "longest_road_changed: the "
                "Longest Road card moved."),
    "army": ("recv", _event("largest_army_changed"), "largest_army_changed: the Largest "
             "Army card moved."),
    "ended": ("recv", _event("game_over"), "The game_over event (scores with the victory "
              "point cards revealed); the game_over message follows."),
}
"""Notes for the first frame of a kind in each transcript (where a scenario
gave that frame no note of its own)."""


class Link:
    """One client connection: a stand-in for its ``StreamReader`` and
    ``StreamWriter`` that counts and decodes what passes (and records it when
    the connection is recorded), and holds actions back for the harness."""

    def __init__(self, h: Harness, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, order: int,
                 record: Transcript | None) -> None:
        self.h = h
        self.reader = reader
        self.writer = writer
        self.order = order
        self.record = record
        self.conn = 0
        if record is not None:
            record.connections += 1
            self.conn = record.connections
        self.opened = asyncio.get_running_loop().time()
        self.read_bytes = 0
        self.written_bytes = 0
        self.idle = False
        self.reading = False  # a task reads it now (else what the server sent may wait)
        self.observer = False  # a spectator: sends nothing while the game runs
        self.done = False  # nobody reads it any more (closed, dropped or finished)
        self.gated = True
        self.session: Any = None  # the server's Session for this connection
        self.server_written = [0]
        self.server_read = [0]
        self._rdec = FrameDecoder()
        self._wdec = FrameDecoder()
        self._notes: list[tuple[str, str, Callable[[Message], bool], str]] = []

    # -- notes --------------------------------------------------------------------------

    def note(self, direction: str, kind: str, text: str,
             pred: Callable[[Message], bool] = lambda m: True) -> None:
        """Annotate the next frame of ``kind`` going ``direction`` (that ``pred`` accepts)."""
        self._notes.append((direction, kind, pred, text))

    def _log(self, direction: str, msg: Message) -> None:
        if self.record is None or self.done:
            return
        line: dict[str, Any] = {"conn": self.conn,
                                "t": round(asyncio.get_running_loop().time() - self.opened, 3),
                                "dir": direction, "frame": msg}
        for i, (d, kind, pred, text) in enumerate(self._notes):
            if d == direction and kind == msg.get("type") and pred(msg):
                line["note"] = text
                del self._notes[i]
                break
        else:
            for key, (d, pred, text) in AUTO_NOTES.items():
                if d == direction and key not in self.record.noted and pred(msg):
                    self.record.noted.add(key)
                    line["note"] = text
                    break
        self.record.items.append(line)
        self.h.secrets.scan(msg)

    # -- the reader side ----------------------------------------------------------------

    async def read(self, n: int = -1) -> bytes:
        self.idle = True
        try:
            data = await self.reader.read(n)
        finally:
            self.idle = False
        self.read_bytes += len(data)
        for msg in self._rdec.feed(data):
            self._log("recv", msg)
        return data

    # -- the writer side ----------------------------------------------------------------

    def write(self, data: bytes) -> None:
        msgs = self._wdec.feed(data)
        if self.gated and any(m.get("type") == "action" for m in msgs):
            self.h.held.append((self, data, msgs))
            return
        self.send_now(data, msgs)

    def send_now(self, data: bytes, msgs: Sequence[Message]) -> None:
        if self.writer.transport.is_closing():
            return
        for msg in msgs:
            self._log("send", msg)
        self.written_bytes += len(data)
        self.writer.write(data)

    @property
    def transport(self) -> asyncio.WriteTransport:
        return self.writer.transport

    def close(self) -> None:
        self.done = True
        self.writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()

    async def drain(self) -> None:
        await self.writer.drain()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.writer.get_extra_info(name, default)

    def is_closing(self) -> bool:
        return self.writer.is_closing()

    def quiet(self) -> bool:
        if self.done:
            return True
        if self.written_bytes != self.server_read[0] or self.transport.get_write_buffer_size():
            return False
        return not self.reading or (self.idle and self.read_bytes == self.server_written[0])


class Secrets:
    """Random ids in frames, replaced by numbered placeholders on write."""

    PATTERNS = (("session", "session"), ("resume_token", "token"))

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._counts: Counter[str] = Counter()

    def _add(self, value: Any, kind: str) -> None:
        if isinstance(value, str) and value and value not in self.names:
            self._counts[kind] += 1
            self.names[value] = f"<{kind}-{self._counts[kind]}>"

    def scan(self, msg: Message) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            self._add(msg.get("session"), "session")
            self._add(msg.get("resume_token"), "token")
        if kind in ("joined", "table", "game_started", "left") and msg.get("table"):
            self._add(msg["table"], "table")
        if kind == "tables":
            for t in msg.get("tables") or []:
                if isinstance(t, dict):
                    self._add(t.get("id"), "table")

    def apply(self, obj: Any) -> Any:
        if isinstance(obj, str):
            if obj in self.names:
                return self.names[obj]
            for secret, name in self.names.items():
                if secret in obj:
                    obj = obj.replace(secret, name)
            return obj
        if isinstance(obj, dict):
            return {k: self.apply(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.apply(v) for v in obj]
        return obj


# -- the harness --------------------------------------------------------------------------


class Harness:
    """A server, its clients, and the gate that makes the order of actions fixed."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.server: Server | None = None
        self.port = 0
        self.links: list[Link] = []
        self.held: list[tuple[Link, bytes, list[Message]]] = []
        self.secrets = Secrets()
        self.tasks: list[asyncio.Task[Any]] = []

    async def start_server(self) -> Server:
        self.server = Server(HOST, self.port, spawn_bots=False, db=self.db)
        await self.server.start()
        self.port = self.server.port
        return self.server

    async def stop_server(self) -> None:
        assert self.server is not None
        await asyncio.wait_for(self.server.close(), 30)
        self.server = None
        self.held.clear()

    def table(self, tid: str) -> Any:
        assert self.server is not None
        return self.server.tables[tid]

    async def connect(self, record: Transcript | None = None, order: int | None = None) -> Link:
        """A new connection to the server, its server-side session found and tapped."""
        assert self.server is not None
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port), 5)
        link = Link(self, reader, writer, len(self.links) if order is None else order, record)
        self.links.append(link)
        me = writer.get_extra_info("sockname")
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while link.session is None:
            for sess in self.server.sessions:
                if sess.writer.get_extra_info("peername") == me:
                    link.session = sess
            if link.session is None:
                if loop.time() > end:
                    raise Stuck("the server did not accept the connection")
                await asyncio.sleep(0)
        self._tap(link)
        return link

    @staticmethod
    def _tap(link: Link) -> None:
        """Count the bytes the server's session writes to and reads from ``link``."""
        sess = link.session
        transport = sess.writer.transport
        real_write = transport.write
        written = link.server_written

        def write(data: Any) -> None:
            written[0] += len(data)
            real_write(data)

        transport.write = write
        real_received = sess._received
        read = link.server_read

        def received(data: bytes, loop: asyncio.AbstractEventLoop) -> bool:
            read[0] += len(data)
            return bool(real_received(data, loop))

        sess._received = received

    def _quiet(self, full: bool) -> bool:
        srv = self.server
        links = [lk for lk in self.links if full or not lk.observer]
        watching = {id(lk.session) for lk in self.links if lk.observer and not full}
        if not self._loop_idle(watching):
            return False
        if srv is not None:
            if srv._barrier is not None or srv._commit_handle is not None:
                return False
            if any(not t.queue.empty() for t in srv.tables.values()):
                return False
            for sess in srv.sessions:
                if id(sess) in watching:
                    continue
                if sess._pending or sess._flush_handle is not None or sess._backlog:
                    return False
        return all(link.quiet() for link in links)

    @staticmethod
    def _loop_idle(watching: set[int]) -> bool:
        """No callback waits to run, and no timer is due within TIMER_HORIZON
        (but a spectator's batch timer, when spectators do not count)."""
        loop = asyncio.get_running_loop()
        if getattr(loop, "_ready", ()):
            return False
        soon = loop.time() + TIMER_HORIZON
        for handle in getattr(loop, "_scheduled", ()):
            if handle.cancelled() or handle.when() > soon:
                continue
            owner = getattr(getattr(handle, "_callback", None), "__self__", None)
            if id(owner) in watching:
                continue
            return False
        return True

    def _unquiet(self) -> str:
        srv = self.server
        out = []
        if srv is not None:
            out.append(f"barrier {srv._barrier} commit {srv._commit_handle}")
            out.append(f"queues {[t.queue.qsize() for t in srv.tables.values()]}")
            out.append("sessions " + str([(s.name, len(s._pending), s._flush_handle)
                                          for s in srv.sessions]))
        for lk in self.links:
            out.append(f"link {lk.order} done {lk.done} reading {lk.reading} idle {lk.idle} "
                       f"read {lk.read_bytes}/{lk.server_written[0]} "
                       f"written {lk.written_bytes}/{lk.server_read[0]}")
        return "; ".join(out)

    async def settle(self, full: bool = True) -> None:
        """Until nothing moves (see the module's docstring). ``full=False``:
        spectators may still have frames on their way (the server sends a
        spectator's frames in batches, SPECTATOR_FLUSH apart; nothing a
        spectator gets changes what anybody does)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        calm = 0
        while calm < 3:
            await asyncio.sleep(0)
            calm = calm + 1 if self._quiet(full) else 0
            if loop.time() > end:
                raise Stuck(f"the system never became quiet: {self._unquiet()}")

    def release(self, pick: Callable[[Link, list[Message]], bool] | None = None) -> bool:
        """Let one held action through: the lowest seat's (or the first ``pick``
        accepts). False if none is held."""
        self.held = [h for h in self.held if not h[0].done]
        candidates = [h for h in self.held if pick is None or pick(h[0], h[2])]
        if not candidates:
            return False
        chosen = min(candidates, key=lambda h: h[0].order)
        self.held.remove(chosen)
        chosen[0].send_now(chosen[1], chosen[2])
        return True

    async def pump(self, until: Callable[[], bool] = lambda: False) -> bool:
        """Settle, let the next action through, again, until ``until()`` holds at a
        quiet moment (True) or nothing is held and nothing moves (False). Task
        failures are raised."""
        while True:
            await self.settle(full=False)
            self._check_tasks()
            if until() or not self.held:
                await self.settle()
                self._check_tasks()
                if until():
                    return True
            if not self.release():
                return False

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.append(task)
        return task

    def _check_tasks(self) -> None:
        for task in self.tasks:
            if task.done() and not task.cancelled():
                exc = task.exception()
                if exc is not None and not isinstance(exc, ConnectionError | OSError):
                    raise exc

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for link in self.links:
            with contextlib.suppress(Exception):
                link.close()
        if self.server is not None:
            await self.stop_server()


# -- clients ----------------------------------------------------------------------------


class SDKClient(BotClient):
    """The bot SDK's client over a :class:`Link`, with the hello's role chosen
    (a ``player`` gets a view after every action, a ``bot`` only when it decides)."""

    def __init__(self, bot: Bot, link: Link, name: str, role: str = "bot") -> None:
        super().__init__(bot, cast(asyncio.StreamReader, link), cast(asyncio.StreamWriter, link),
                         name, keepalive=KEEPALIVE, read_timeout=KEEPALIVE)
        self.role = role
        self.link = link

    def use(self, link: Link) -> None:
        self.link = link
        self.attach(cast(asyncio.StreamReader, link), cast(asyncio.StreamWriter, link))

    async def handshake(self, resume: str | None = None) -> Message:
        hello: Message = {"type": "hello", "version": VERSION_STRING, "role": self.role,
                          "name": self.name}
        if resume is not None:
            hello["resume"] = resume
            hello["seen"] = self.version
        self.send(hello)
        msg = await self.recv()
        if msg["type"] != "welcome":
            raise Stuck(f"refused: {msg}")
        self.resume_token = msg["resume_token"]
        return msg

    async def until(self, kind: str) -> Message:
        """Handle messages (as ``play`` would) until one of ``kind`` arrives."""
        while True:
            msg = await self.recv()
            await self._handle(msg)
            if msg["type"] == kind:
                return msg

    async def play(self) -> Any:
        self.link.reading = True
        try:
            return await super().play()
        finally:
            self.link.reading = False

    async def play_and_drain(self) -> None:
        """Play to the game's end, then keep reading (and recording) until the
        connection closes."""
        await self.play()
        self.link.reading = True
        with contextlib.suppress(ConnectionError, OSError):
            while await self.link.read(65536):
                pass


class Scripted:
    """A client written frame by frame (spectators; exact steps): a reader task
    keeps every frame in an inbox."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.inbox: list[Message] = []
        self._dec = FrameDecoder()
        link.reading = True
        self.task = link.h.spawn(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await self.link.read(65536):
                self.inbox.extend(self._dec.feed(data))
        self.link.done = True

    def send(self, msg: Message) -> None:
        self.link.write(encode_frame(msg))

    async def hello(self, name: str, role: str = "spectator") -> None:
        self.send({"type": "hello", "version": VERSION_STRING, "role": role, "name": name})
        await wait_for(lambda: any(m["type"] == "welcome" for m in self.inbox),
                       what=lambda: f"no welcome: {self.inbox}")

    def first(self, kind: str) -> Message:
        for m in self.inbox:
            if m["type"] == kind:
                return m
        raise Stuck(f"no {kind} arrived")


async def wait_for(cond: Callable[[], bool], timeout: float = 10.0,
                   what: Callable[[], str] = lambda: "") -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise Stuck(f"a condition never held {what()}")
        await asyncio.sleep(0)


def transcript_chance(seed: int) -> Reveal:
    """A game's committed chance fixed by ``seed`` (the same frames on every run):
    the secret is bytes ``seed, seed + 1, …`` (64 of them, mod 256) and the salt
    the 16 bytes ``0, 1, …, 15``, so that a reader can check a transcript's
    reveal (PROTOCOL.md, Committed chance)."""
    return Reveal.new(bytes((seed + i) % 256 for i in range(64)), bytes(range(16)))


def make_bot(kind: str, seed: int) -> Bot:
    bots: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot,
                                  "heuristic": HeuristicBot}
    return bots[kind](seed)  # type: ignore[call-arg]


Hook = Callable[[Mapping[str, Any], Sequence[Action]], Action | None]
"""A scenario's say in a decision: an action, or None (the bot decides)."""


class Puppet(HeuristicBot):
    """A heuristic bot whose decisions a scenario may take over: ``hook(view,
    legal)`` is asked first (None: the bot decides). It opens no trades of its own."""

    offers = False

    def __init__(self, seed: int, hook: Hook) -> None:
        super().__init__(seed)
        self.hook = hook
        self.early_hook: Hook | None = None

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        chosen = self.hook(view, legal)
        return chosen if chosen is not None else super().act(view, legal)

    def act_early(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action | None:
        if self.early_hook is not None:
            return self.early_hook(view, legal)
        return super().act_early(view, legal)


# -- scenario helpers ----------------------------------------------------------------------


def game_settings(players: int) -> dict[str, Any]:
    return {"players": players}


async def seat_clients(h: Harness, settings: dict[str, Any], seed: int,
                       clients: Sequence[SDKClient],
                       spectator: Scripted | None = None) -> str:
    """The first client creates the table (its seed fixed to ``seed``); the
    spectator, if any, watches it; the others join one after the other."""
    first = clients[0]
    for c in clients:
        await c.handshake()
    first.send({"type": "create_table", "settings": settings})
    joined = await first.until("joined")
    tid: str = joined["table"]
    h.table(tid).commit(transcript_chance(seed))  # read when the game starts (all seats taken)
    await h.settle()
    if spectator is not None:
        await spectator.hello("watcher")
        spectator.send({"type": "spectate", "table": tid})
        await wait_for(lambda: any(m["type"] == "joined" for m in spectator.inbox),
                       what=lambda: f"spectator got {spectator.inbox}")
        await h.settle()
    for c in clients[1:]:
        c.send({"type": "join", "table": tid})
        await c.until("joined")
        await h.settle()
    return tid


def note_handshake(link: Link, role: str) -> None:
    link.note("send", "hello", f"The handshake: the protocol version this client speaks, "
              f"its role ({role}) and a display name. Nothing else may be sent first.")
    link.note("recv", "welcome", "The server's version, this connection's session id and "
              "the resume token: keep the token, it reclaims the seat after a drop.")


def note_table_flow(link: Link) -> None:
    link.note("recv", "joined", "Seated (or watching, seat null): the table's id and its "
              "settings.")
    link.note("recv", "table", "Who sits where; sent again whenever a seat or the status "
              "changes (can_start: this connection may start the table).")
    link.note("recv", "game_started", "The game begins: the full view follows.")
    link.note("recv", "view", "A full view at this version: the board, every seat's public "
              "state, and this seat's hand under \"you\".")
    link.note("recv", "legal", "The first legal list with choices: pick one and send it as "
              "an action with the next seq.", lambda m: bool(m.get("actions")))
    link.note("send", "action", "An action: seq counts up from 1 on this seat; the action is "
              "one of the legal list's entries, unchanged.")
    link.note("recv", "result", "ok: the action was applied (the events follow).",
              lambda m: bool(m.get("ok")))
    link.note("recv", "events", "What happened, at the next version: every seat and "
              "spectator gets this batch (hidden cards redacted for each).")


def note_special_build(link: Link) -> None:
    link.note("recv", "events", "5–6 players (1.4, 7.15): the turn ended, and the special "
              "building phase begins: special_build_started names the seat that may now "
              "build or buy (or pass with end_turn); view.special_from is the seat whose "
              "turn ended.", lambda m: has_event(m, "special_build_started"))


def note_game_end(link: Link) -> None:
    link.note("recv", "game_over", "The game is over: the winner and every seat's score.")
    link.note("recv", "table", "The table's status is finished now.",
              lambda m: m.get("status") == "finished")


def first_index(items: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool],
                start: int = 0) -> int | None:
    for i in range(start, len(items)):
        if "frame" in items[i] and pred(items[i]["frame"]):
            return i
    return None


def last_index(items: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool],
               end: int | None = None) -> int | None:
    for i in range(len(items) - 1 if end is None else end, -1, -1):
        if "frame" in items[i] and pred(items[i]["frame"]):
            return i
    return None


def has_event(frame: Mapping[str, Any], name: str) -> bool:
    return frame.get("type") == "events" and any(
        isinstance(e, dict) and e.get("type") == name for e in frame.get("events") or [])


def head_and_tail(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The start of a game (to the first dice roll and the frames of its
    version) and its end (from the last two event batches)."""
    n = len(items)
    roll = first_index(items, lambda f: has_event(f, "dice_rolled"))
    head_end = n - 1 if roll is None else _batch_end(items, roll)
    tail = n - 1
    batches = 0
    for i in range(n - 1, -1, -1):
        if "frame" in items[i] and items[i]["frame"].get("type") == "events":
            batches += 1
            tail = i
            if batches == 2:
                break
    tail = _batch_start(items, tail)
    return [(0, head_end), (min(tail, n - 1), n - 1)]


def head_special_tail(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """:func:`head_and_tail`, and the game's first special building phase
    (5–6 players): from the events that open it to the events that start the
    next turn."""
    spans = head_and_tail(items)
    start = first_index(items, lambda f: has_event(f, "special_build_started"))
    if start is None:
        return spans
    nxt = first_index(items, lambda f: has_event(f, "turn_started"), start)
    if nxt is None:
        return spans
    end = _batch_end(items, nxt)
    head, tail = spans
    if start <= head[1] or end >= tail[0]:
        return spans
    return [head, (start, end), tail]


def _batch_end(items: list[dict[str, Any]], i: int) -> int:
    """The last index of the frames that came with the events at ``i`` (its
    view and legal list, until the next send or events)."""
    j = i
    while j + 1 < len(items):
        nxt = items[j + 1]
        f = nxt.get("frame")
        if f is None or nxt["dir"] == "send" or f["type"] in ("events", "result"):
            break
        j += 1
    return j


def _batch_start(items: list[dict[str, Any]], i: int) -> int:
    """Back from the events at ``i`` to the action (and its result) that caused them."""
    j = i
    while j - 1 >= 0:
        prev = items[j - 1].get("frame")
        if prev is None or prev["type"] not in ("result", "action"):
            break
        j -= 1
    return j


def around(*marks: tuple[int, int]) -> Callable[[list[dict[str, Any]]], list[tuple[int, int]]]:
    """Keep fixed ranges (computed by the scenario from its own marks)."""
    return lambda items: list(marks)


# -- the scenarios --------------------------------------------------------------------------

GAME_KINDS = {4: ("heuristic", "heuristic", "greedy", "heuristic"),
              3: ("heuristic", "heuristic", "greedy"),
              2: ("heuristic", "heuristic"),
              5: ("heuristic", "heuristic", "greedy", "heuristic", "greedy"),
              6: ("heuristic", "heuristic", "greedy", "heuristic", "greedy", "heuristic")}
GAME_SEEDS = {4: 4004, 3: 3003, 2: 2002, 5: 5005, 6: 6006}


async def scenario_game(h: Harness, players: int) -> list[Transcript]:
    """A whole game of SDK bots: seat 0 a bot (role bot), seat 1 the same SDK
    saying hello as a ``player``, and a spectator watching from before the start."""
    seed = GAME_SEEDS[players]
    settings = game_settings(players)
    kinds = GAME_KINDS[players]
    full = players == 4
    bot_t = Transcript(
        f"bot-{players}p", f"A bot's whole {players}-player game" if full else
        f"A bot in a {players}-player game", f"Seat 0 is the SDK (bots.client) running a "
        f"{kinds[0]} bot with role bot: it creates the table, gets a view and a legal list "
        "only when it must decide (or may propose a trade), and plays to the end.",
        f"seat 0: {kinds[0]} bot, role bot", settings, seed)
    player_t = Transcript(
        f"player-{players}p", f"A player in a {players}-player game",
        f"Seat 1 joins by the table's id with role player (the SDK with a {kinds[1]} bot "
        "deciding, as a person's client would): a player gets a view after every action, "
        "and a legal list whenever it must decide.",
        f"seat 1: role player ({kinds[1]} bot deciding)", settings, seed)
    spec_t = Transcript(
        f"spectator-{players}p", f"A spectator of a {players}-player game",
        "A spectator watches the table from before the game starts: it gets the public "
        "events (no hidden cards) and the public view after each action, never a legal list.",
        "a spectator", settings, seed)
    keep, elision = head_and_tail, ("the middle of the game: from the first dice roll's "
                                    "frames to the last two event batches")
    if players >= 5:
        keep, elision = head_special_tail, (
            "the middle of the game but its first special building phase: from the first "
            "dice roll's frames to the last two event batches")
    if not full:
        bot_t.keep = keep
        bot_t.elision = elision
    for t in (player_t, spec_t):
        t.keep = keep
        t.elision = elision
    clients: list[SDKClient] = []
    records = [bot_t, player_t] + [None] * (players - 2)
    for i, kind in enumerate(kinds):
        link = await h.connect(records[i], order=i)
        role = "player" if i == 1 else "bot"
        if records[i] is not None:
            note_handshake(link, role)
            note_table_flow(link)
            note_game_end(link)
            if players >= 5:
                note_special_build(link)
        clients.append(SDKClient(make_bot(kind, seed * 10 + i), link, f"{kind}-{i}", role))
    bot_link = clients[0].link
    bot_link.note("send", "create_table", "Create a table; the creator takes the first seat.")
    bot_link.note("recv", "legal", "legal.propose: this seat may propose a trade to the "
                  "current player now (the actions list is empty: nothing is owed).",
                  lambda m: bool(m.get("propose")) and not m.get("actions"))
    clients[1].link.note("send", "join", "Join the table by its id: the first free seat.")
    spec_link = await h.connect(spec_t, order=players)
    spec_link.observer = True
    note_handshake(spec_link, "spectator")
    note_table_flow(spec_link)
    note_game_end(spec_link)
    if players >= 5:
        note_special_build(spec_link)
    spec_link.note("send", "spectate", "Watch the table (no seat).")
    spectator = Scripted(spec_link)
    await seat_clients(h, settings, seed, clients, spectator)
    for c in clients:
        h.spawn(c.play_and_drain())
    if not await h.pump(lambda: all(c.outcome.finished for c in clients)):
        raise Stuck(f"the {players}-player game stopped before its end")
    for c in clients:
        c.link.close()
    spec_link.close()
    return [bot_t, player_t, spec_t]


async def scenario_trade(h: Harness) -> list[Transcript]:
    """A domestic trade with a counter-offer, step by step: the current player
    first offers cards it does not hold (rejected), then a fair offer; the next
    seat counter-offers, the third rejects; the offerer confirms the counter."""
    seed, players = 7, 3
    settings = game_settings(players)
    state: dict[str, Any] = {"stage": "wait", "offerer": None}
    game: list[Any] = []

    def holds(seat: int) -> list[int]:
        return list(game[0].game.hands[seat])

    def hook_for(seat: int) -> Hook:
        def hook(view: Mapping[str, Any], legal: Sequence[Action]) -> Action | None:
            stage = state["stage"]
            phase = view.get("phase")
            if stage == "wait" and phase == "main" and view.get("current") == seat \
                    and seat == 0 and view.get("rolled"):
                mine = holds(seat)
                other = holds((seat + 1) % players)
                for a in range(5):
                    for c in range(5):
                        if mine[a] and other[c] and c != a:
                            b = next(r for r in range(5) if r not in (a, c))
                            state.update(stage="bogus", offerer=seat, a=a, b=b, c=c)
                            give = [0] * 5
                            give[a] = mine[a] + 5
                            get = [0] * 5
                            get[b] = 1
                            return OfferTrade(tuple(give), tuple(get))  # type: ignore[arg-type]
            if stage == "bogus" and seat == state["offerer"] and phase == "main":
                state["stage"] = "offered"
                give = [0] * 5
                give[state["a"]] = 1
                get = [0] * 5
                get[state["b"]] = 1
                return OfferTrade(tuple(give), tuple(get))  # type: ignore[arg-type]
            if stage == "offered" and phase == "trade":
                offerer = state["offerer"]
                if seat == (offerer + 1) % players:
                    give = [0] * 5
                    give[state["c"]] = 1
                    get = [0] * 5
                    get[state["a"]] = 1
                    return CounterOffer(tuple(give), tuple(get))  # type: ignore[arg-type]
                if seat == (offerer + 2) % players:
                    return RejectTrade()
                confirm = ConfirmTrade((offerer + 1) % players)
                if confirm in legal:
                    state["stage"] = "done"
                    return confirm
                return CancelTrade() if CancelTrade() in legal else None
            return None
        return hook

    offerer_t = Transcript(
        "trade-offerer", "A domestic trade with a counter-offer: the offerer",
        "Seat 0 (the SDK with a scripted bot, role bot) is on turn in its main phase: it "
        "first offers cards it does not hold (rejected: cannot_afford; the SDK resyncs), "
        "then 1 card for 1 to both opponents. Seat 1 counter-offers other terms, seat 2 "
        "rejects; once both have answered seat 0 gets confirm_trade for seat 1 in its "
        "legal list and takes the counter-offer.",
        "seat 0: the offerer (role bot)", settings, seed,
        elision="the set-up and the turns before seat 0's first main phase: from the "
                "first action's result to the view that comes before the offer; the "
                "transcript stops after the trade")
    counter_t = Transcript(
        "trade-counterer", "A domestic trade with a counter-offer: the counter-offering seat",
        "The same trade seen by seat 1: it gets the offer (trade_offered) with accept_trade "
        "and reject_trade in its legal list; counter_offer is never listed (its terms are "
        "free) but is legal for an addressed seat that has not answered.",
        "seat 1: the counter-offering seat (role bot)", settings, seed,
        elision="the set-up and the turns before the offer; the transcript stops after "
                "the trade")
    clients = []
    for i in range(players):
        rec = (offerer_t, counter_t, None)[i]
        link = await h.connect(rec, order=i)
        if rec is not None:
            note_handshake(link, "bot")
            note_table_flow(link)
        puppet = Puppet(seed * 10 + i, hook_for(i))
        if i == 0:
            puppet.early_hook = lambda view, legal: None  # wait for every answer
        clients.append(SDKClient(puppet, link, f"trader-{i}"))
    o, c = clients[0].link, clients[1].link
    o.note("send", "action", "An offer of cards this seat does not hold.",
           lambda m: m["action"]["type"] == "offer_trade")
    o.note("recv", "result", "Rejected: ok false with a code and a message; nothing changed.",
           lambda m: not m["ok"])
    o.note("send", "resync", "After a rejection the SDK asks for the view and legal list "
           "again.")
    o.note("send", "action", "The real offer: give 1, get 1, to every opponent (to: null).",
           lambda m: m["action"]["type"] == "offer_trade")
    o.note("recv", "events", "trade_offered: the phase is trade now; the addressed seats "
           "must answer.", lambda m: has_event(m, "trade_offered"))
    o.note("recv", "events", "trade_countered: seat 1 wants other terms.",
           lambda m: has_event(m, "trade_countered"))
    o.note("recv", "legal", "Every addressed seat has answered: confirm_trade with the seat "
           "that countered, or cancel_trade.",
           lambda m: any(a.get("type") == "confirm_trade" for a in m.get("actions") or []))
    o.note("send", "action", "Take seat 1's counter-offer.",
           lambda m: m["action"]["type"] == "confirm_trade")
    o.note("recv", "events", "trade_completed: the cards changed hands on the counter-offer's "
           "terms; back to the main phase.", lambda m: has_event(m, "trade_completed"))
    c.note("recv", "events", "trade_offered: an offer addressed to this seat.",
           lambda m: has_event(m, "trade_offered"))
    c.note("recv", "legal", "What this seat may answer: accept_trade or reject_trade "
           "(counter_offer is allowed too, though never listed).",
           lambda m: any(a.get("type") == "accept_trade" for a in m.get("actions") or []))
    c.note("send", "action", "A counter-offer: give and get are from this seat's side.",
           lambda m: m["action"]["type"] == "counter_offer")
    c.note("recv", "events", "trade_completed: the offerer took this counter-offer.",
           lambda m: has_event(m, "trade_completed"))
    tid = await seat_clients(h, settings, seed, clients)
    game.append(h.table(tid))
    plays = [h.spawn(cl.play()) for cl in clients]
    if not await h.pump(lambda: state["stage"] == "done"
                        and h.table(tid).game.trade is None):
        raise Stuck("the trade did not happen")
    for p in plays:
        p.cancel()
    for t in (offerer_t, counter_t):
        t.keep = _trade_keep
        t.comment("The game goes on; the transcript stops here.")
    return [offerer_t, counter_t]


def _trade_keep(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    first = first_index(items, lambda f: f["type"] == "result") or 0
    offer = first_index(items, lambda f: has_event(f, "trade_offered")) or 0
    bogus = first_index(items, lambda f: f["type"] == "action"
                        and f["action"]["type"] == "offer_trade")
    mark = offer if bogus is None else min(bogus, offer)
    view = last_index(items, lambda f: f["type"] == "view", mark) or mark
    return [(0, first), (view, len(items) - 1)]


async def scenario_drop(h: Harness) -> list[Transcript]:
    """A bot drops the connection right after sending end_turn (before its
    result), the others play on until the game needs it, and it comes back with
    its resume token: the events it missed, its seat's last_seq, and the resent
    action answered from the server's memory (not applied twice)."""
    seed, players = 11, 3
    settings = game_settings(players)
    t = Transcript(
        "drop-resume", "A dropped connection and a resume",
        "Seat 0 (the SDK, role bot) sends end_turn and its connection drops before the "
        "result arrives. The other seats play on until the game waits for seat 0. A new "
        "connection says hello with the resume token and seen (the last event version "
        "it saw): joined carries last_seq (the last action the server applied for this "
        "seat: the end_turn went through), the events it missed follow, then its view "
        "and legal list. The client resends its end_turn with the same seq, as a client "
        "unsure of it would: the server answers with the same result and does not apply "
        "it again.",
        "seat 0: heuristic bot, role bot; two connections", settings, seed,
        elision="the game from the first action's result to the view before the drop; "
                "the transcript stops after two more actions")
    clients = []
    for i in range(players):
        link = await h.connect(t if i == 0 else None, order=i)
        if i == 0:
            note_handshake(link, "bot")
            note_table_flow(link)
        clients.append(SDKClient(make_bot("heuristic", seed * 10 + i), link, f"bot-{i}"))
    me = clients[0]
    tid = await seat_clients(h, settings, seed, clients)
    plays = [h.spawn(cl.play()) for cl in clients]
    table = h.table(tid)

    def ends_turn(link: Link, msgs: list[Message]) -> bool:
        return link is me.link and any(m.get("type") == "action" and
                                       m["action"]["type"] == "end_turn" for m in msgs)

    if not await h.pump(lambda: table.game.turn >= 2 * players
                        and any(ends_turn(lk, ms) for lk, _, ms in h.held)):
        raise Stuck("seat 0 never ended a turn")
    me.link.note("send", "action", "end_turn; the connection drops before its result.")
    h.release(ends_turn)
    ended_seq = me.seq
    drop_mark = len(t.items) - 1
    me.link.close()
    t.comment("The connection drops here (the client closes it): the result of that "
              "end_turn never arrives.")
    await wait_for(lambda: table.seats[0].session is None)
    await h.pump()  # the others play until the game waits for seat 0
    plays[0].cancel()
    link = await h.connect(t, order=0)
    link.note("send", "hello", "The resume: the token from the first welcome, and seen: "
              "the last event version this client saw (it asks for the events after it).")
    link.note("recv", "welcome", "The same resume token again (a seat keeps its token).")
    link.note("recv", "joined", "Back at seat 0; last_seq: the last action the server "
              "applied for this seat (the end_turn of the dropped connection).")
    link.note("recv", "events", "The events this seat missed, one batch per version, "
              "redacted for it.")
    link.note("recv", "view", "The full view now.")
    link.note("recv", "legal", "What the seat owes now.")
    link.note("send", "action", "The end_turn again with its old seq (the client did not see "
              "its result).", lambda m: m["seq"] == ended_seq)
    link.note("recv", "result", "The server's answer to a seq it has seen: the same result "
              "as the first time; the action is not applied again.",
              lambda m: m["seq"] == ended_seq)
    me.use(link)
    await me.handshake(resume=me.resume_token)
    me.send({"type": "action", "seq": ended_seq, "action": {"type": "end_turn"}})
    start = me.outcome.actions
    plays[0] = h.spawn(me.play())
    if not await h.pump(lambda: me.outcome.actions >= start + 2):
        raise Stuck("seat 0 did not play on after the resume")
    first = first_index(t.items, lambda f: f["type"] == "result") or 0
    view = last_index(t.items, lambda f: f["type"] == "view", drop_mark) or drop_mark
    t.keep = around((0, first), (view, len(t.items) - 1))
    t.comment("The game goes on; the transcript stops here.")
    for p in plays:
        p.cancel()
    return [t]


async def scenario_restart(h: Harness) -> list[Transcript]:
    """The server stops in the middle of a game (error server_shutdown, bye) and
    starts again on the same database and port; every seat resumes with its token."""
    seed, players = 13, 3
    settings = game_settings(players)
    t = Transcript(
        "restart-resume", "A resume after a server restart",
        "Seat 0 (the SDK, role bot) plays until the server shuts down: error "
        "server_shutdown, then bye, then the connection closes. The server starts again "
        "on the same database and port and restores the table from its log; the client "
        "connects again and resumes with the same token: the game goes on where it was.",
        "seat 0: heuristic bot, role bot; two connections", settings, seed,
        elision="the game from the first action's result to the view before the shutdown; "
                "the transcript stops after two more actions")
    clients = []
    for i in range(players):
        link = await h.connect(t if i == 0 else None, order=i)
        if i == 0:
            note_handshake(link, "bot")
            note_table_flow(link)
            link.note("recv", "error", "The server is shutting down.",
                      lambda m: m["code"] == "server_shutdown")
            link.note("recv", "bye", "Its last frame; then it closes the connection.")
        clients.append(SDKClient(make_bot("heuristic", seed * 10 + i), link, f"bot-{i}"))
    me = clients[0]
    tid = await seat_clients(h, settings, seed, clients)
    plays = [h.spawn(cl.play()) for cl in clients]
    table = h.table(tid)
    if not await h.pump(lambda: table.game.turn >= 2 * players and table.game.phase == Phase.MAIN):
        raise Stuck("the game did not reach its main phase")
    mark = len(t.items) - 1
    await h.stop_server()
    for p in plays:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(p, 5)
    for cl in clients:
        cl.link.done = True
    t.comment("The server restarts here: a new server process (here: a new Server on the "
              "same database and port) restores the table from its log.")
    await h.start_server()
    links = []
    for i, cl in enumerate(clients):
        link = await h.connect(t if i == 0 else None, order=i)
        if i == 0:
            link.note("send", "hello", "The resume after the restart: the same token (the "
                      "server keeps the tokens in its database) and seen.")
            link.note("recv", "joined", "Back at seat 0; last_seq: this seat's last applied "
                      "action, as stored.")
            link.note("recv", "view", "The full view, as the restored table has it.")
            link.note("recv", "legal", "What the seat owes now (or nothing: empty actions).")
        cl.use(link)
        links.append(link)
        await cl.handshake(resume=cl.resume_token)
    start = me.outcome.actions
    plays = [h.spawn(cl.play()) for cl in clients]
    if not await h.pump(lambda: me.outcome.actions >= start + 2):
        raise Stuck("the game did not go on after the restart")
    first = first_index(t.items, lambda f: f["type"] == "result") or 0
    view = last_index(t.items, lambda f: f["type"] == "view", mark) or mark
    t.keep = around((0, first), (view, len(t.items) - 1))
    t.comment("The game goes on; the transcript stops here.")
    for p in plays:
        p.cancel()
    return [t]


async def scenario_finished(h: Harness) -> list[Transcript]:
    """A bot drops early; a stand-in plays its seat to the end; it comes back
    into the finished game. Then a spectator opens the finished table."""
    seed, players = 17, 2
    settings = game_settings(players)
    t = Transcript(
        "finished-resume", "A resume into a game that ended while away",
        "Seat 0 (the SDK, role bot) drops during the set-up, at the first moment it owes "
        "nothing; after the grace period (set to 0 here) the server's stand-in plays the "
        "seat, and the game ends without it. Then it comes back with its resume token: "
        "the transcript records what the server sends to a seat of a finished game.",
        "seat 0: heuristic bot, role bot; two connections", settings, seed)
    spec_t = Transcript(
        "spectate-finished", "A spectator opens a finished table",
        "After the game above ended, a new connection says hello as a spectator and "
        "spectates the finished table; the transcript records what the server sends.",
        "a spectator of a finished table", settings, seed)
    clients = []
    for i in range(players):
        link = await h.connect(t if i == 0 else None, order=i)
        if i == 0:
            note_handshake(link, "bot")
            note_table_flow(link)
        clients.append(SDKClient(make_bot("heuristic", seed * 10 + i), link, f"bot-{i}"))
    me = clients[0]
    first = clients[0]
    for cl in clients:
        await cl.handshake()
    first.send({"type": "create_table", "settings": settings})
    joined = await first.until("joined")
    tid = joined["table"]
    table = h.table(tid)
    table.commit(transcript_chance(seed))
    table.grace = 0.0  # a dropped seat gets its stand-in at once...
    table.stand_in_pace = 0.0  # ...which decides at once
    await h.settle()
    for cl in clients[1:]:
        cl.send({"type": "join", "table": tid})
        await cl.until("joined")
        await h.settle()
    plays = [h.spawn(cl.play()) for cl in clients]
    if not await h.pump(lambda: me.outcome.actions >= 1 and not any(
            lk is me.link for lk, _, _ in h.held) and table.version >= 1):
        raise Stuck("seat 0 never acted")
    me.link.close()
    t.comment("The connection drops here. A stand-in plays seat 0 until the game ends.")
    if not await h.pump(lambda: table.status == "finished") and table.status != "finished":
        raise Stuck("the game did not finish without seat 0")
    plays[0].cancel()
    link = await h.connect(t, order=0)
    link.note("send", "hello", "The resume into the finished game: the token and seen.")
    link.note("recv", "joined", "Back at seat 0 of the finished table.")
    note_game_end(link)
    me.use(link)
    await me.handshake(resume=me.resume_token)
    plays[0] = h.spawn(me.play_and_drain())
    await h.pump(lambda: me.outcome.finished)
    t.comment("The game is over; the transcript stops here." if me.outcome.finished else
              "Nothing more arrives for this connection; the transcript stops here.")
    spec_link = await h.connect(spec_t, order=players)
    note_handshake(spec_link, "spectator")
    spec_link.note("send", "spectate", "Watch the finished table.")
    note_game_end(spec_link)
    spectator = Scripted(spec_link)
    await spectator.hello("late-watcher")
    spectator.send({"type": "spectate", "table": tid})
    await h.pump()
    spec_t.comment("Nothing more arrives for this connection; the transcript stops here.")
    return [t, spec_t]


Scenario = Callable[[Harness], Awaitable[list[Transcript]]]


def _game(players: int) -> Scenario:
    async def run(h: Harness) -> list[Transcript]:
        return await scenario_game(h, players)
    return run


SCENARIOS: dict[str, Scenario] = {
    "game-6p": _game(6),
    "game-5p": _game(5),
    "game-4p": _game(4),
    "game-3p": _game(3),
    "game-2p": _game(2),
    "trade": scenario_trade,
    "drop": scenario_drop,
    "restart": scenario_restart,
    "finished": scenario_finished,
}
"""Each scenario and the transcripts it writes."""


async def run_scenario(name: str) -> list[Transcript]:
    with tempfile.TemporaryDirectory(prefix="kaitaku-transcripts-") as tmp:
        h = Harness(Path(tmp) / "kaitaku.db")
        await h.start_server()
        try:
            out = await asyncio.wait_for(SCENARIOS[name](h), SCENARIO_TIMEOUT)
        finally:
            await h.close()
        for t in out:
            t.items = [{**i, "frame": h.secrets.apply(i["frame"])} if "frame" in i else i
                       for i in t.items]
        return out


# -- writing ----------------------------------------------------------------------------


def render(t: Transcript) -> list[dict[str, Any]]:
    """The transcript's lines: the header, then the kept items (what is left
    out summarised in a comment line)."""
    frames = sum(1 for _ in t.frames())
    header = {
        "comment": f"{t.title}. {t.about}",
        "transcript": t.name,
        "client": t.client,
        "protocol": VERSION_STRING,
        "settings": t.settings,
        "seed": t.seed,
        "connections": t.connections,
        "frames": frames,
        "elided": t.elision,
        "format": "one JSON object a line; frame lines: conn (connection, from 1), t "
                  "(seconds since that connection opened), dir (send: this client sent it; "
                  "recv: it received it), frame (the decoded message), note (optional); "
                  "lines with comment describe, they are not frames",
    }
    lines: list[dict[str, Any]] = [header]
    items = t.items
    keep = [False] * len(items)
    for lo, hi in (t.keep(items) if t.keep is not None else [(0, len(items) - 1)]):
        for i in range(max(0, lo), min(len(items), hi + 1)):
            keep[i] = True
    skipped: list[dict[str, Any]] = []

    def flush() -> None:
        if skipped:
            kinds = Counter(i["frame"]["type"] for i in skipped)
            summary = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
            lines.append({"comment": f"{len(skipped)} frames left out here ({summary}).",
                          "left_out": len(skipped)})
            skipped.clear()

    for item, kept in zip(items, keep, strict=True):
        if "comment" in item or kept:
            flush()
            lines.append(item)
        else:
            skipped.append(item)
    flush()
    return lines


def dumps(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for line in lines)


def comparable(text: str) -> list[Any]:
    """A transcript's lines without their times (what --check compares)."""
    out = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        line = json.loads(raw)
        line.pop("t", None)
        out.append(line)
    return out


def readme(transcripts: list[Transcript]) -> str:
    rows = []
    for t in transcripts:
        frames = sum(1 for _ in t.frames())
        kept = sum(1 for line in render(t) if "frame" in line)
        rows.append(f"| [`{t.name}.jsonl`]({t.name}.jsonl) | {t.title} | {t.client} | "
                    f"{t.settings['players']} | {kept} of {frames} | {t.elision} |")
    table = "\n".join(rows)
    return f"""# Protocol transcripts

Recorded sessions with the real server: every frame one client sent and received,
decoded, one JSON object a line. They are written by `docs/protocol/transcripts.py`
from seeded games (`python docs/protocol/transcripts.py`), and
`tests/wire/test_transcripts.py` checks that they are what the server sends today
(`python docs/protocol/transcripts.py --check` does the same and exits 1 when a
file is stale).

| File | What | Recorded client | Players | Frames written | Left out |
|---|---|---|---|---|---|
{table}

## Reading one

The first line is a header: `comment` says what the scenario shows, `settings`
are what the table was created with (the server's `joined` shows them with every
default filled in), `seed` is the game's seed, `frames` counts every frame the
connection carried and `elided` says what was left out. Every other line is
either a frame:

```json
{{"conn":1,"t":0.004,"dir":"recv","frame":{{"type":"welcome", ...}},"note":"..."}}
```

- `conn`: the connection (1, then 2 after a drop or a restart);
- `t`: seconds since that connection opened (the one field that differs between runs);
- `dir`: `send` (the recorded client sent it) or `recv` (it received it);
- `frame`: the message exactly as decoded from its msgpack frame;
- `note`: what to notice about this frame, on the interesting ones;

or a comment (`{{"comment": "..."}}`): what happened between frames (a drop, a
restart), or how many frames were left out at that point (`left_out`).

Session ids, resume tokens and table ids are random on the wire; here they are
placeholders (`<session-1>`, `<token-1>`, `<table-1>`), the same string wherever
the same value appeared. Actions reach the server one at a time (the recorder
holds each one until everything else has arrived), so the order of frames is
the same on every run; a live server interleaves them as they come.
"""


async def generate(names: Sequence[str]) -> list[Transcript]:
    out: list[Transcript] = []
    for name in names:
        started = time.perf_counter()
        out.extend(await run_scenario(name))
        logging.getLogger("transcripts").info("%s: %.1f s", name, time.perf_counter() - started)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the files (times ignored); exit 1 if any is stale")
    ap.add_argument("--only", nargs="*", metavar="SCENARIO", choices=sorted(SCENARIOS),
                    help="only these scenarios (default: all)")
    ap.add_argument("--print", action="store_true", help="print instead of writing")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR,
                        format="%(name)s: %(message)s")
    names = args.only or list(SCENARIOS)
    transcripts = asyncio.run(generate(names))
    stale = []
    for t in transcripts:
        text = dumps(render(t))
        path = OUT / f"{t.name}.jsonl"
        if args.print:
            sys.stdout.write(text)
        elif args.check:
            if not path.exists() or comparable(path.read_text(encoding="utf-8")) != \
                    comparable(text):
                stale.append(path.name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if not args.only:
        text = readme(transcripts)
        path = OUT / "README.md"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        elif not args.print:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale: " + ", ".join(stale) + " (run python docs/protocol/transcripts.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
