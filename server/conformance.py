"""The conformance kit: a scripted, seeded server that puts a client through
the situations that break clients, and says which obligations it met.

``kaitaku conformance --port P`` listens on ``127.0.0.1:P`` and runs its
scenarios one after the other. For each scenario the client connects (a new
connection: a bot that plays one game and exits is simply started again, by
hand, by a loop, or by the kit itself with ``--client CMD``), says hello and
sends ``join`` (any table id) or ``create_table``; the kit seats it at a
3-player table of its own (a 6-player one in the ``six`` scenario, protocol
1.4) whose other seats it plays itself, and plays a short game with it (a
turn cap ends it after one turn each; the discard and six scenarios start
from a prepared position). Views, legal lists and events are
the real ones: the kit runs the rules engine and the server's own encoders
(:func:`server.table.legal_message`) on a seeded game, so the same client
meets the same game every time.

Each scenario stages one trap at a fixed point of its game: frames delivered
byte by byte or many to a write, unknown fields and event types, a ping, a
stale ``legal``, a refused action, a dropped connection, a game that ends
while the client is away, a discard from a hand too big to list, a server
restart. Every obligation gets one verdict, PASS or FAIL with a reason;
:func:`main` prints one line per obligation and returns 1 when any failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import shlex
import socket
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from bots.base import safe_action
from protocol.rules import (
    Event,
    GameState,
    Phase,
    RollDice,
    RulesError,
    Settings,
    action_from_dict,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)
from protocol.rules.position import build, position_of
from protocol.wire import (
    PROTOCOL_VERSION,
    SERVER,
    VERSION_STRING,
    Connection,
    LocalProtocolError,
    Message,
    RemoteProtocolError,
    clip,
    encode_frame,
    parse_version,
)

from .table import bounded_legal, legal_message

log = logging.getLogger("kaitaku.conformance")

PLAYERS = 3
SIX = 6
"""The players of the ``six`` scenario's table (R-56, protocol 1.4)."""
"""Every scenario's table has three seats: the client's and two the kit plays."""
TURN_CAP = 3
"""The scenarios' games end (no winner) once every seat has had one turn."""
SERVER_NAME = "kaitaku-conformance"
HANDSHAKE = 10.0
"""Seconds a new connection has to say hello (as on the real server)."""
BYTE_GAP = 0.002
"""Seconds between the writes of a frame delivered byte by byte."""
PIECE = 7
"""Bytes per write when the kit cuts a reply into pieces (frame boundaries
fall inside headers and bodies)."""
STALE_GRACE = 0.5
"""Seconds the kit leaves a stale ``legal`` alone before the fresh one follows."""
RESTART_DOWN = 1.0
"""Seconds the listening socket stays closed in the restart scenario."""
LAST_SEQ_JUMP = 3
"""After the drop, ``joined.last_seq`` is this far above the last ``seq`` the
client used (the seat's numbering, which an earlier process may have moved
on): the client must continue above ``last_seq``, not above its own count."""
CLOSE_GRACE = 2.0
"""Seconds the kit waits at a scenario's end for the client to close by itself."""
UNKNOWN_FIELD = "x_conformance"
UNKNOWN_EVENT = "x_conformance_event"
UNKNOWN_CODE = "x_conformance_code"
DEFAULT_TIMEOUT = 30.0
DEFAULT_WAIT = 60.0


@dataclass(frozen=True)
class Obligation:
    """One thing a conforming client does; :data:`OBLIGATIONS` lists them."""

    name: str
    scenario: str
    summary: str


@dataclass(frozen=True)
class Verdict:
    """An obligation met (``ok``) or broken, and why."""

    obligation: Obligation
    ok: bool
    reason: str

    def line(self) -> str:
        return f"{'PASS' if self.ok else 'FAIL'}  {self.obligation.name:<18} {self.reason}"


class Gone(Exception):
    """The client's connection ended (it closed, said bye, left the table, or
    broke the protocol)."""


# -- one connection, the server's side ---------------------------------------------------


class Peer:
    """A client connection: the server's phase machine from :mod:`protocol.wire`,
    a reading task that queues the client's messages, and the ways the kit
    writes (whole frames, many frames in one write, pieces of frames)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.conn = Connection(SERVER)
        self.hello: Message = {}
        self.closed = False
        self.problem: str | None = None
        """The client's protocol error, if it made one (the kit closed then)."""
        self._inbox: asyncio.Queue[Message | None] = asyncio.Queue()
        self._ended = False
        self._capture: bytearray | None = None
        self.task = asyncio.ensure_future(self._read())

    @property
    def minor(self) -> int:
        parsed = parse_version(str(self.hello.get("version", "")))
        return parsed[1] if parsed is not None else PROTOCOL_VERSION[1]

    async def _read(self) -> None:
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    msgs = self.conn.receive_data(data)
                except RemoteProtocolError as exc:
                    self.problem = f"{exc.code}: {exc}"
                    self._write(encode_frame({"type": "error", "code": exc.code or "bad_message",
                                              "message": clip(str(exc), 512)}))
                    break
                for msg in msgs:
                    self._inbox.put_nowait(msg)
                for msg in self.conn.stale:  # sent before the client saw a phase change
                    self._stale(msg)
                self.conn.stale.clear()
        except (ConnectionError, OSError):
            pass
        finally:
            self._inbox.put_nowait(None)
            self.close()

    def _stale(self, msg: Message) -> None:
        if msg["type"] == "action":
            self.send({"type": "result", "seq": msg["seq"], "ok": False,
                       "code": "unexpected_message", "message": "not at a table now"})
        else:
            self.send({"type": "error", "code": "unexpected_message",
                       "message": f"{msg['type']} is not allowed now"})

    async def recv(self, deadline: float) -> Message | None:
        """The client's next message, None once the connection has ended;
        :class:`TimeoutError` at ``deadline`` (the loop's clock)."""
        if self._ended:
            return None
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise TimeoutError
        msg = await asyncio.wait_for(self._inbox.get(), remaining)
        if msg is None:
            self._ended = True
        return msg

    def send(self, msg: Message) -> None:
        """Validate and write one message (nothing once the connection is closed)."""
        if self.closed:
            return
        try:
            data = self.conn.send(msg)
        except LocalProtocolError as exc:  # e.g. the client left the table meanwhile
            log.debug("not sent: %s (%s)", msg["type"], exc)
            return
        self._write(data)

    def _write(self, data: bytes) -> None:
        if self._capture is not None:
            self._capture += data
            return
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            self.writer.write(data)

    @contextlib.contextmanager
    def captured(self) -> Iterator[bytearray]:
        """Collect what is sent inside the block instead of writing it."""
        self._capture = buf = bytearray()
        try:
            yield buf
        finally:
            self._capture = None

    @contextlib.contextmanager
    def one_write(self) -> Iterator[bytearray]:
        """Everything sent inside the block goes out in one write."""
        with self.captured() as buf:
            yield buf
        self._write(bytes(buf))

    async def trickle(self, data: bytes, piece: int, gap: float) -> None:
        """Write ``data`` ``piece`` bytes at a time, ``gap`` seconds apart."""
        for i in range(0, len(data), piece):
            if self.closed:
                return
            self._write(data[i:i + piece])
            with contextlib.suppress(ConnectionError, OSError):
                await self.writer.drain()
            await asyncio.sleep(gap)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.conn.close()
        with contextlib.suppress(Exception):
            self.writer.close()


# -- one scenario's table ------------------------------------------------------------


def _token(rng: random.Random, n: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "".join(alphabet[rng.randrange(64)] for _ in range(n))


class Play:
    """One scenario: its seeded game, the client's seat and connection, and the
    verdicts. The kit plays the other seats with :func:`bots.base.safe_action`
    (roll, end the turn, refuse trades; random placements) at once, so the
    client is asked only when nothing else can happen."""

    def __init__(self, kit: Kit, scenario: Scenario) -> None:
        self.kit = kit
        self.scenario = scenario
        self.rng = random.Random(f"{kit.seed}/{scenario.name}")
        self.game_seed = self.rng.randrange(1 << 31)
        self.table_id = f"conformance-{scenario.name}"
        self.token = _token(self.rng, 32)
        self.verdicts: dict[str, Verdict] = {}
        self.peer: Peer | None = None
        self.seat = 0
        self.name = "client"
        self.role = "bot"
        self.minor = PROTOCOL_VERSION[1]
        self.game: GameState | None = None
        self.version = 0
        self.history: list[tuple[int, list[Event]]] = []
        self.last_seq = -1
        self.results: dict[int, Message] = {}
        self.delivered = 0
        """The highest event version the client was sent (events or view)."""
        self.highest = 0
        """The highest version in any frame the client was sent (result.version too)."""
        self.extras = False
        """Unknown fields in every message, view, event, summary and action."""
        self.inject_event = False
        """Add an event of an unknown type to the next events message."""
        self.rig: tuple[int, int] | None = None
        """The dice of the kit's next roll."""
        self.interject: list[Message] = []
        """Messages for the client before its next legal list."""
        self.last_legal: Message | None = None
        self.end_sent = False
        self.step = "waiting for the client"
        self.stake: str | None = None
        """The obligation the current step tests."""
        self.deadline = 0.0

    # -- verdicts ---------------------------------------------------------------------

    def _obligation(self, name: str) -> Obligation:
        for ob in self.scenario.obligations:
            if ob.name == name:
                return ob
        raise KeyError(name)

    def passed(self, name: str, reason: str) -> None:
        if name not in self.verdicts:
            self.verdicts[name] = Verdict(self._obligation(name), True, reason)

    def failed(self, name: str, reason: str) -> None:
        if name not in self.verdicts:
            self.verdicts[name] = Verdict(self._obligation(name), False, reason)

    def fail_rest(self, reason: str) -> None:
        """The scenario broke off: the obligation at stake (else the first one
        open) fails with ``reason``, the others were not reached."""
        if self.stake is not None:
            self.failed(self.stake, reason)
        for ob in self.scenario.obligations:
            if ob.name not in self.verdicts:
                first = all(v.ok for v in self.verdicts.values())
                self.failed(ob.name, reason if first else f"not reached: {reason}")

    def resolved(self) -> bool:
        return all(ob.name in self.verdicts for ob in self.scenario.obligations)

    def outcome(self) -> list[Verdict]:
        return [self.verdicts[ob.name] for ob in self.scenario.obligations]

    def restart_clock(self) -> None:
        self.deadline = asyncio.get_running_loop().time() + self.kit.timeout

    # -- messages -----------------------------------------------------------------------

    def _decorated(self, msg: Message) -> Message:
        if not self.extras:
            return msg
        msg = dict(msg)
        msg[UNKNOWN_FIELD] = {"note": "a field from a newer server", "n": [1, 2, 3]}
        kind = msg["type"]
        if kind == "view":
            view = dict(msg["view"])
            view[UNKNOWN_FIELD] = [{"a": 1}]
            if isinstance(view.get("you"), dict):
                view["you"] = {**view["you"], UNKNOWN_FIELD: True}
            view["seats"] = [{**s, UNKNOWN_FIELD: 0} for s in view["seats"]]
            msg["view"] = view
        elif kind == "events":
            msg["events"] = [{**e, UNKNOWN_FIELD: 1} for e in msg["events"]]
        elif kind == "legal":
            msg["actions"] = [{**a, UNKNOWN_FIELD: 1} for a in msg["actions"]]
        elif kind in ("table", "tables"):
            rows = msg["tables"] if kind == "tables" else [msg]
            for row in rows:
                row["seats"] = [{**s, UNKNOWN_FIELD: "x"} for s in row["seats"]]
        elif kind == "joined":
            msg["settings"] = {**msg["settings"], UNKNOWN_FIELD: 1}
        return msg

    def send(self, msg: Message) -> None:
        peer = self.peer
        if peer is None or peer.closed:
            return
        if msg["type"] in ("events", "view"):
            self.delivered = max(self.delivered, msg["version"])
        if msg["type"] == "legal":
            self.last_legal = msg
        if isinstance(msg.get("version"), int) and msg["type"] != "welcome":
            self.highest = max(self.highest, msg["version"])
        peer.send(self._decorated(msg))

    def welcome(self) -> Message:
        return {"type": "welcome", "version": VERSION_STRING,
                "session": f"{self.rng.getrandbits(64):016x}", "resume_token": self.token,
                "server": SERVER_NAME}

    @property
    def settings(self) -> Settings:
        if self.game is not None:
            return self.game.settings
        return Settings(players=self.scenario.players)

    def _seats(self) -> list[dict[str, Any]]:
        connected = self.peer is not None and not self.peer.closed
        return [{"name": self.name if q == self.seat else f"kit-{q}",
                 "kind": ("bot" if self.role == "bot" else "human") if q == self.seat
                 else "bot",
                 "connected": connected if q == self.seat else True, "auto": False}
                for q in range(self.settings.players)]

    def status(self) -> str:
        return "finished" if self.over() else "playing"

    def table_msg(self) -> Message:
        return {"type": "table", "table": self.table_id, "seats": self._seats(),
                "status": self.status()}

    def tables_msg(self) -> Message:
        return {"type": "tables", "tables": [{
            "id": self.table_id, "name": f"conformance {self.scenario.name}",
            "settings": self.settings.to_dict(), "seats": self._seats(),
            "status": "playing" if self.game is None else self.status(), "spectators": 0}]}

    def joined_msg(self) -> Message:
        msg: Message = {"type": "joined", "table": self.table_id, "seat": self.seat,
                        "settings": self.settings.to_dict()}
        if self.last_seq >= 0:
            msg["last_seq"] = self.last_seq
        return msg

    def view_msg(self) -> Message:
        assert self.game is not None
        legal, _ = bounded_legal(self.game, self.seat)
        return {"type": "view", "version": self.version,
                "view": observe(self.game, self.seat, legal)}

    def legal_msg(self) -> Message:
        assert self.game is not None
        return legal_message(self.game, self.seat, self.version, minor=self.minor)

    def events_msg(self, version: int, events: Sequence[Event]) -> Message:
        plain = [e.for_seat(self.seat).to_dict() for e in events]
        if self.inject_event:
            self.inject_event = False
            plain.append({"type": UNKNOWN_EVENT, "seat": self.seat, "detail": {"n": 7}})
        return {"type": "events", "version": version, "events": plain}

    def result(self, seq: int, ok: bool, code: str | None = None,
               message: str | None = None) -> Message:
        msg: Message = {"type": "result", "seq": seq, "ok": ok}
        if code is not None:
            msg["code"] = code
            msg["message"] = clip(message or code, 512)
        msg["version"] = self.version
        return msg

    # -- the game -----------------------------------------------------------------------

    def over(self) -> bool:
        return self.game is not None and self.game.phase == Phase.GAME_OVER

    def owes(self) -> bool:
        return self.game is not None and self.seat in to_act(self.game)

    def _record(self, events: list[Event]) -> None:
        self.version += 1
        self.history.append((self.version, events))

    def announce(self, events: list[Event]) -> None:
        """The events of the last applied action to the client (and, to a
        person's client, the fresh view)."""
        self.send(self.events_msg(self.version, events))
        if self.role != "bot":
            self.send(self.view_msg())

    def kit_moves(self, *, for_client: bool = False) -> None:
        """Play the kit's seats (and, with ``for_client``, the client's) while
        they owe decisions; each action's events go to the client."""
        game = self.game
        assert game is not None
        while game.phase != Phase.GAME_OVER:
            waiting = [q for q in to_act(game) if for_client or q != self.seat]
            if not waiting:
                return
            q = waiting[0]
            action = safe_action(bounded_legal(game, q)[0], self.rng)
            chance = None
            if self.rig is not None and isinstance(action, RollDice):
                chance, self.rig = self.rig, None
            events = apply(game, action, q, chance)
            self._record(events)
            self.announce(events)

    def prompt(self) -> None:
        """The client's view and legal actions when it owes a decision; the end
        of the game when it is over."""
        if self.over():
            self.send_end()
        elif self.owes():
            for msg in self.interject:
                self.send(msg)
            self.interject = []
            if self.role == "bot":
                self.send(self.view_msg())
            self.send(self.legal_msg())

    def carry_on(self, events: list[Event]) -> None:
        """After the client's applied action: its events, the kit's moves, the prompt."""
        self.announce(events)
        self.kit_moves()
        self.prompt()

    def send_end(self, *, table: bool = True) -> None:
        """The end of the game: an empty legal, game_over, the finished table
        (``table`` False: a client arriving at the finished table has had it)."""
        if self.end_sent or self.game is None:
            return
        self.end_sent = True
        game = self.game
        self.send({"type": "legal", "version": self.version, "actions": []})
        self.send({"type": "game_over", "winner": game.winner,
                   "scores": [game.total_vp(q) for q in range(game.settings.players)]})
        if table:
            self.send(self.table_msg())

    def act(self, msg: Message, *, reply: bool = True) -> tuple[str, list[Event]]:
        """The client's action, as the real server takes it: ``("repeat", [])``
        for a ``seq`` not above the seat's highest (its remembered result, or
        ``stale_seq``), ``("rejected", [])`` when the rules refuse it,
        ``("applied", events)``. ``reply=False``: applied but its result is not
        sent (it is remembered for a repeat)."""
        seq = msg["seq"]
        if seq <= self.last_seq:
            cached = self.results.get(seq)
            self.send(cached if cached is not None else self.result(
                seq, False, "stale_seq", f"sequence number {seq} was already used"))
            return "repeat", []
        self.last_seq = seq
        if self.over() or self.game is None:
            self._reply(self.result(seq, False, "game_over", "the game is over"))
            return "rejected", []
        try:
            action = action_from_dict(msg["action"])
            events = apply(self.game, action, self.seat)
        except RulesError as exc:
            self._reply(self.result(seq, False, exc.code, str(exc)))
            return "rejected", []
        self._record(events)
        answer = self.result(seq, True)
        self.results[seq] = answer
        if reply:
            self.send(answer)
        return "applied", events

    def _reply(self, result: Message) -> None:
        self.results[result["seq"]] = result
        self.send(result)

    # -- the client's messages ------------------------------------------------------------

    async def next_msg(self) -> Message:
        """The client's next message the scenario must see (an action, a pong,
        leave, bye); pings, resyncs, chat and listings are answered here.
        Raises :class:`Gone` and :class:`TimeoutError`."""
        peer = self.peer
        if peer is None:
            raise Gone("the client is not connected")
        while True:
            msg = await peer.recv(self.deadline)
            if msg is None:
                raise Gone(f"the client broke the protocol ({peer.problem})" if peer.problem
                           else "the client closed the connection")
            kind = msg["type"]
            if kind == "ping":
                self.send({"type": "pong", "nonce": msg.get("nonce")})
            elif kind == "resync":
                if self.game is not None:
                    self.send(self.view_msg())
                    self.send(self.legal_msg())
            elif kind == "chat":
                self.send({"type": "chat", "table": self.table_id, "seat": self.seat,
                           "name": self.name, "text": msg["text"]})
            elif kind == "list_tables":
                self.send(self.tables_msg())
            elif kind == "leave":
                self.send({"type": "left", "table": self.table_id})
                return msg
            elif kind in ("action", "pong", "bye"):
                return msg
            # start (the game runs already), pong-less noise: nothing to answer

    async def next_action(self) -> Message:
        while True:
            msg = await self.next_msg()
            if msg["type"] == "action":
                return msg
            if msg["type"] == "leave":
                raise Gone("the client left the table")
            if msg["type"] == "bye":
                raise Gone("the client said bye")

    async def advance(self) -> Message:
        """Take the client's actions until one is applied (then carry on); return it."""
        while True:
            msg = await self.next_action()
            status, events = self.act(msg)
            if status == "applied":
                self.carry_on(events)
                return msg

    # -- getting the client to the table ------------------------------------------------

    def adopt(self, peer: Peer) -> None:
        self.peer = peer
        self.name = clip(str(peer.hello.get("name", "client")), 32)
        self.role = str(peer.hello.get("role", "bot"))
        self.minor = peer.minor

    async def greet(self, peer: Peer, *, byte_by_byte: bool = False) -> int:
        """Answer the hello with ``welcome``; returns its size in bytes."""
        self.adopt(peer)
        welcome = self._decorated(self.welcome())
        if not byte_by_byte:
            peer.send(welcome)
            return len(encode_frame(welcome))
        with peer.captured() as buf:
            peer.send(welcome)
        await peer.trickle(bytes(buf), 1, BYTE_GAP)
        return len(buf)

    async def lobby(self) -> None:
        """Wait for ``join`` or ``create_table`` (listings and pings answered)."""
        peer = self.peer
        assert peer is not None
        while True:
            msg = await peer.recv(self.deadline)
            if msg is None:
                raise Gone(f"the client broke the protocol ({peer.problem})" if peer.problem
                           else "the client closed the connection")
            kind = msg["type"]
            if kind == "join":
                seat = msg.get("seat")
                players = self.scenario.players
                if seat is not None and not 0 <= seat < players:
                    self.send({"type": "error", "code": "seat_taken",
                               "message": f"the kit's tables have seats 0-{players - 1}"})
                    continue
                self.seat = seat if seat is not None else 0
                return
            if kind == "create_table":
                self.seat = 0
                return
            if kind == "list_tables":
                self.send(self.tables_msg())
            elif kind == "spectate":
                self.send({"type": "error", "code": "no_such_table",
                           "message": "the conformance kit seats its client: send join"})
            elif kind == "ping":
                self.send({"type": "pong", "nonce": msg.get("nonce")})
            elif kind == "bye":
                raise Gone("the client said bye")

    def start_game(self) -> None:
        """Seat the client and start: joined, table, game_started, view, legal;
        then the kit's moves until the client must decide."""
        self.game = self.scenario.make_game(self)
        self.send(self.joined_msg())
        self.send(self.table_msg())
        self.send({"type": "game_started", "table": self.table_id})
        self.send(self.view_msg())
        self.send(self.legal_msg())
        self.kit_moves()
        if self.version > 0:  # else the legal just sent is the client's to answer
            self.prompt()

    async def begin(self, peer: Peer) -> None:
        """The usual start: welcome, the client joins, the game starts."""
        self.step = "waiting for join or create_table"
        await self.greet(peer)
        await self.lobby()
        self.start_game()

    async def drop(self) -> None:
        """Close the client's connection (the seat stays the client's)."""
        if self.peer is not None:
            with contextlib.suppress(ConnectionError, OSError):
                await asyncio.wait_for(self.peer.writer.drain(), 1.0)
            self.peer.close()
        self.peer = None

    async def come_back(self, obligation: str, after: str) -> bool:
        """Wait for the client to reconnect with its resume token; seat it again
        (welcome, joined with last_seq, table, game_started, the events it
        missed when it says ``seen``, view, legal; the end if the game is
        over). False (and the obligation failed) when it does not."""
        self.step = f"waiting for the client to reconnect {after}"
        try:
            peer = await self.kit.arrival(self.deadline)
        except TimeoutError:
            self.failed(obligation, f"did not reconnect within {self.kit.timeout:g} s {after}")
            return False
        token = peer.hello.get("resume")
        if token != self.token:
            self.failed(obligation, f"reconnected {after} without hello.resume" if token is None
                        else f"reconnected {after} with a resume token welcome did not give")
            if token is None:
                self.kit.requeue(peer)
            else:
                self.kit.refuse(peer)
            return False
        seen = peer.hello.get("seen")
        if seen is not None and seen > self.highest:
            self.failed(obligation, f"hello.seen {seen} is above every version it was sent "
                        f"(at most {self.highest})")
        self.adopt(peer)
        peer.send(self._decorated({**self.welcome(), "resume_token": self.token}))
        self.send(self.joined_msg())
        self.send(self.table_msg())
        self.send({"type": "game_started", "table": self.table_id})
        if seen is not None:
            for version, events in self.history:
                if version > seen:
                    self.send(self.events_msg(version, events))
        self.send(self.view_msg())
        if self.over():
            self.end_sent = False
            self.send_end(table=False)
        else:
            self.send(self.legal_msg())
        self.step = f"playing on after the reconnection {after}"
        return True

    def serve_late(self, peer: Peer) -> None:
        """A resume into this scenario after it ended: the finished game's final
        state (and game_over), else ``bad_resume``."""
        if not self.over():
            self.kit.refuse(peer)
            return
        self.adopt(peer)
        self.send({**self.welcome(), "resume_token": self.token})
        self.send(self.joined_msg())
        self.send(self.table_msg())
        self.send({"type": "game_started", "table": self.table_id})
        self.send(self.view_msg())
        self.end_sent = False
        self.send_end(table=False)

    async def stops(self) -> str | None:
        """After game_over: None when the client closed, said bye or left; else
        what it did instead."""
        self.step = "waiting for the client to stop after game_over"
        try:
            while True:
                msg = await self.next_msg()
                if msg["type"] in ("leave", "bye"):
                    return None
                if msg["type"] == "action":
                    self.act(msg)
                    return f"it sent an action (seq {msg['seq']}) after game_over"
        except Gone:
            return None
        except TimeoutError:
            return (f"still connected {self.kit.timeout:g} s after game_over, without "
                    "leave or closing")

    async def finish(self) -> None:
        """Play the short game to its end with the client and let it go: a
        client that stops answering is stood in for (the kit plays its seat)."""
        self.step = "playing the game to its end"
        self.restart_clock()
        try:
            while not self.over():
                await self.advance()
        except TimeoutError:
            self.kit_moves(for_client=True)
            self.prompt()
        except Gone:
            return
        self.deadline = min(self.deadline,
                            asyncio.get_running_loop().time() + CLOSE_GRACE)
        with contextlib.suppress(Gone, TimeoutError):
            while True:
                msg = await self.next_msg()
                if msg["type"] in ("leave", "bye"):
                    return
                if msg["type"] == "action":
                    self.act(msg)


# -- the scenarios ------------------------------------------------------------------------


def _new_game(play: Play) -> GameState:
    return new_game(Settings(players=PLAYERS, turn_cap=TURN_CAP), play.game_seed)


def _discard_game(play: Play) -> GameState:
    """Set-up done (placed by the kit), the client's seat holding 40 cards, the
    next seat about to roll (a 7: the kit rigs the dice); the game ends after
    that seat's and the next one's turn."""
    game = new_game(Settings(players=PLAYERS), play.game_seed)
    rng = random.Random(play.game_seed)
    while game.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        q = to_act(game)[0]
        apply(game, safe_action(legal_actions(game, q), rng), q)
    pos = position_of(game)
    seats = list(pos.seats)
    seats[play.seat] = dataclasses.replace(seats[play.seat], hand=(8, 8, 8, 8, 8))
    current = (play.seat + 1) % PLAYERS
    play.rig = (3, 4)
    return build(dataclasses.replace(
        pos, seats=tuple(seats), current=current, first_seat=None,
        settings=Settings(players=PLAYERS, turn_cap=(pos.turn or 1) + 1)))


def _six_game(play: Play) -> GameState:
    """A 6-player game (R-56: the 30-hex board) past its set-up (placed by the
    kit): the seat before the client's ends its turn at once, so the client is
    asked first in the special building phase, holding the cards for a road, a
    settlement or a development card; the game ends after the next turn."""
    game = new_game(Settings(players=SIX), play.game_seed)
    rng = random.Random(play.game_seed)
    while game.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        q = to_act(game)[0]
        apply(game, safe_action(legal_actions(game, q), rng), q)
    pos = position_of(game)
    seats = list(pos.seats)
    seats[play.seat] = dataclasses.replace(seats[play.seat], hand=(2, 2, 1, 1, 1))
    return build(dataclasses.replace(
        pos, seats=tuple(seats), current=(play.seat - 1) % SIX, phase="main", dice=(2, 3),
        first_seat=None, settings=Settings(players=SIX, turn_cap=(pos.turn or 1) + 1)))


async def _six(play: Play, peer: Peer) -> None:
    play.step = "waiting for join or create_table"
    play.stake = "special_build"
    await play.greet(peer)
    await play.lobby()
    if play.minor < 4:
        # A real server never seats a client older than 1.4 at a 5–6 player
        # table: the kit refuses the join the same way, and there is nothing
        # more to ask of such a client.
        play.send({"type": "error", "code": "version_too_old", "message": "this table "
                   f"needs protocol 1.4 (5-6 players); your client speaks 1.{play.minor}"})
        play.passed("special_build", f"not applicable: a 1.{play.minor} client is refused a "
                    "6-player table (version_too_old), as by a real server")
        await play.drop()
        return
    play.start_game()
    play.step = "waiting for an action in the special building phase of a 6-player game"
    while True:
        msg = await play.next_action()
        game = play.game
        assert game is not None
        special = game.phase == Phase.SPECIAL_BUILD
        status, events = play.act(msg)
        if status == "applied":
            break
    if not special:
        play.failed("special_build", "the client acted outside the special building phase "
                    f"it was asked in ({msg['action'].get('type')!r})")
    else:
        play.passed("special_build", f"acted in the special building phase of a 6-player "
                    f"game ({msg['action'].get('type')}) and played on")
    play.carry_on(events)
    await play.finish()


async def _framing(play: Play, peer: Peer) -> None:
    play.step = "waiting for join or create_table after a welcome sent one byte at a time"
    size = await play.greet(peer, byte_by_byte=True)
    await play.lobby()
    with peer.one_write() as buf:
        play.start_game()
    frames = _count_frames(bytes(buf))
    play.step = f"waiting for an action after the game's start ({frames} frames in one write)"
    play.stake = "batched_frames"
    while True:
        msg = await play.next_action()
        status, events = play.act(msg)
        if status == "applied":
            break
    play.passed("batched_frames", f"acted on the last of {frames} frames sent in one write")
    play.stake = "split_frames"
    with peer.captured() as reply:
        play.carry_on(events)
    play.step = (f"waiting for an action after a reply of {_count_frames(bytes(reply))} frames "
                 f"written {PIECE} bytes at a time")
    await peer.trickle(bytes(reply), PIECE, 0.001)
    await play.advance()
    play.passed("split_frames", f"read a welcome written one byte at a time ({size} writes) "
                f"and a reply cut into {PIECE}-byte writes")
    await play.finish()


def _count_frames(data: bytes) -> int:
    n, i = 0, 0
    while i + 4 <= len(data):
        i += 4 + int.from_bytes(data[i:i + 4], "big")
        n += 1
    return n


async def _unknown(play: Play, peer: Peer) -> None:
    play.extras = True
    await play.begin(peer)
    play.step = "waiting for an action on a legal list (unknown fields everywhere)"
    await play.advance()
    # The answer to its next action carries an event of an unknown type, and an
    # error with an unknown code comes before its next legal list.
    play.inject_event = True
    play.interject.append({"type": "error", "code": UNKNOWN_CODE, "message":
                           "an error code from a newer server (the connection stays open)"})
    await play.advance()
    play.passed("unknown_fields", "acted on views, legal lists, events and table messages "
                f"carrying unknown fields ({UNKNOWN_FIELD})")
    play.step = (f"waiting for an action after an event of unknown type ({UNKNOWN_EVENT}) and "
                 f"an error with an unknown code ({UNKNOWN_CODE})")
    await play.advance()
    play.passed("unknown_types", f"went on after an event of type {UNKNOWN_EVENT!r} and an "
                f"error code {UNKNOWN_CODE!r}")
    await play.finish()


async def _ping(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    while True:
        msg = await play.next_action()
        status, events = play.act(msg)
        if status == "applied":
            break
    play.announce(events)
    play.kit_moves()
    nonce = play.rng.randrange(1, 1 << 31)
    play.send({"type": "ping", "nonce": nonce})
    play.step = f"waiting for the pong to ping {{nonce: {nonce}}} (its next legal list waits)"
    while True:
        msg = await play.next_msg()
        if msg["type"] == "pong":
            if msg.get("nonce") == nonce:
                play.passed("ping", f"answered ping {{nonce: {nonce}}} with the same nonce")
            else:
                play.failed("ping", f"answered ping {{nonce: {nonce}}} with nonce "
                            f"{msg.get('nonce')!r}")
            break
        if msg["type"] == "action":
            play.act(msg)
        else:
            raise Gone(f"the client sent {msg['type']}")
    play.prompt()
    await play.finish()


async def _stale_legal(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    while True:
        before = play.last_legal
        msg = await play.next_action()
        status, events = play.act(msg)
        if status == "applied":
            break
    if before is None or not play.owes():
        raise RuntimeError("the kit's game left the client nothing to decide")
    play.announce(events)
    stale = dict(before)  # the list the client answered, again: older than the events sent
    play.send(stale)
    play.step = (f"watching what the client does with a stale legal (version "
                 f"{stale['version']}, after events version {play.version})")
    loop = asyncio.get_running_loop()
    deadline, play.deadline = play.deadline, min(play.deadline, loop.time() + STALE_GRACE)
    acted: str | None = None
    with contextlib.suppress(TimeoutError):
        while True:
            msg = await play.next_action()
            status, more = play.act(msg)
            if status == "applied":  # after a resync, or legal now as well: no harm done
                play.passed("stale_legal", f"{acted}, then resynced and acted on the fresh "
                            "state" if acted else "its action after the stale legal was legal")
                play.carry_on(more)
                play.deadline = deadline
                await play.finish()
                return
            code = play.results.get(msg["seq"], {}).get("code")
            acted = f"acted on the stale legal (refused: {code})"
            play.step = f"watching the client after it {acted}"
    play.deadline = deadline
    play.prompt()
    play.step = ("waiting for an action on the fresh legal" +
                 (f" after it {acted}" if acted else ""))
    await play.advance()
    play.passed("stale_legal", (f"{acted}, then acted on the fresh legal" if acted else
                                "ignored a legal older than the events, acted on the fresh one"))
    await play.finish()


async def _rejected(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    msg = await play.next_action()
    refused = msg["seq"]
    play.last_seq = max(play.last_seq, refused)
    play._reply(play.result(refused, False, "internal_error",
                            "conformance kit: refused on purpose; nothing changed"))
    play.step = f"waiting for an action after the refusal of seq {refused} (internal_error)"
    repeats = 0
    while True:
        msg = await play.next_action()
        status, events = play.act(msg)
        if status == "applied":
            play.carry_on(events)
            break
        if status == "repeat":
            repeats += 1
            play.step += f"; it sent seq {msg['seq']} again ({repeats}x)"
    note = f" (after {repeats} repeats of a used seq)" if repeats else ""
    play.passed("rejected_action", f"went on after result {{ok: false, code: internal_error}} "
                f"for seq {refused}: seq {msg['seq']} applied{note}")
    await play.finish()


async def _drop_resume(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    await play.advance()
    play.step = "waiting for the second action"
    while True:
        msg = await play.next_action()
        status, events = play.act(msg)
        if status == "applied":
            break
    used = msg["seq"]
    seen_before = play.delivered
    await play.drop()  # the result went out; its events did not
    play.kit_moves()
    play.last_seq = used + LAST_SEQ_JUMP
    if not await play.come_back("resume_after_drop", "after the drop"):
        play.failed("seq_after_resume", "not reached: the client did not resume")
        return
    seen = play.peer.hello.get("seen") if play.peer is not None else None
    play.passed("resume_after_drop", "reconnected with hello.resume" +
                (f" and seen {seen} (it had events up to {seen_before}, and "
                 f"result.version {seen_before + 1})" if seen is not None
                 else " (no seen: a full view)"))
    told = play.last_seq
    play.step = f"waiting for an action after the resume (joined.last_seq {told})"
    while True:
        msg = await play.next_action()
        seq = msg["seq"]
        if seq == used:  # the action the drop cut off, sent again: answered, not applied
            play.act(msg)
            continue
        if seq <= told:
            play.failed("seq_after_resume", f"seq {seq} after the resume is not above "
                        f"joined.last_seq {told} (its own last was {used}): a server "
                        "does not apply it (stale_seq)")
            play.act(msg)
            break
        status, events = play.act(msg)
        play.passed("seq_after_resume", f"continued at seq {seq}, above joined.last_seq "
                    f"{told} (its own last was {used})")
        if status == "applied":
            play.carry_on(events)
        break
    await play.finish()


async def _finished_resume(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    await play.advance()
    await play.drop()
    play.kit_moves(for_client=True)  # the game goes on without it, to the end
    assert play.over()
    if not await play.come_back("finished_resume", "after the drop (the game ended meanwhile)"):
        return
    why = await play.stops()
    if why is None:
        play.passed("finished_resume", "stopped after the final view and game_over it got "
                    "on resuming into a finished game")
    else:
        play.failed("finished_resume", f"resumed into a finished game: {why}")


async def _discard(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    legal = play.last_legal
    if legal is None or not legal.get("truncated") or not play.owes():
        raise RuntimeError("the kit's discard position did not make a truncated legal list")
    owed = legal["discard"]
    assert play.game is not None
    hand = list(play.game.hands[play.seat])
    listed = [a["cards"] for a in legal["actions"]]
    play.step = (f"waiting for a discard of {owed} cards (the legal list is truncated: "
                 f"{len(listed)} of the ways)")
    while True:
        msg = await play.next_action()
        status, events = play.act(msg)
        if status != "repeat":
            break
    action = msg["action"]
    cards = action.get("cards") if isinstance(action, dict) else None
    if status == "applied":
        how = "one of the listed ways" if cards in listed else "a way of its own (not listed)"
        play.passed("truncated_discard", f"discarded {owed} of {sum(hand)} cards: {how}")
        play.carry_on(events)
    else:
        code = play.results.get(msg["seq"], {}).get("code")
        size = sum(cards) if isinstance(cards, list) and all(
            type(c) is int for c in cards) else "?"
        kind = action.get("type") if isinstance(action, dict) else "?"
        play.failed("truncated_discard", f"its {kind} {cards} ({size} cards) was refused "
                    f"({code}): legal.discard was {owed}, the hand {hand}")
    await play.finish()


async def _restart(play: Play, peer: Peer) -> None:
    await play.begin(peer)
    play.step = "waiting for the first action"
    await play.advance()
    play.step = "waiting for the second action"
    while True:
        msg = await play.next_action()
        status, events = play.act(msg, reply=False)  # applied and stored, not answered
        if status == "applied":
            break
    used = msg["seq"]
    play.send({"type": "error", "code": "server_shutdown", "message": "the server is restarting"})
    play.send({"type": "bye", "reason": "server shutting down"})
    await play.drop()
    await play.kit.stop_listening()
    await asyncio.sleep(RESTART_DOWN)
    await play.kit.listen_again()
    play.kit_moves()
    if not await play.come_back("restart_resume", "after the server restarted"):
        return
    play.step = f"waiting for an action after the restart (joined.last_seq {used})"
    while True:
        msg = await play.next_action()
        seq = msg["seq"]
        if seq == used:  # the action the restart cut off, sent again: answered
            play.act(msg)
            continue
        status, events = play.act(msg)
        if seq <= used:
            play.failed("restart_resume", f"after the restart it sent seq {seq}, not above "
                        f"joined.last_seq {used}")
        else:
            play.passed("restart_resume", f"reconnected after {RESTART_DOWN:g} s without a "
                        f"listening socket, resumed, went on at seq {seq}")
        if status == "applied":
            play.carry_on(events)
        break
    await play.finish()


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    obligations: tuple[Obligation, ...]
    run: Callable[[Play, Peer], Awaitable[None]]
    make_game: Callable[[Play], GameState] = _new_game
    players: int = PLAYERS


def _ob(scenario: str, name: str, summary: str) -> Obligation:
    return Obligation(name, scenario, summary)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("framing", "split and batched frames", (
        _ob("framing", "split_frames", "a frame that arrives in pieces (one byte per write, "
            f"or {PIECE}-byte writes across frame boundaries) is reassembled"),
        _ob("framing", "batched_frames", "several frames in one write are all read, the "
            "last one too"),
    ), _framing),
    Scenario("unknown", "unknown fields and unknown types", (
        _ob("unknown", "unknown_fields", "unknown fields in messages, views, events, table "
            "summaries and legal actions are ignored"),
        _ob("unknown", "unknown_types", "an event of an unknown type and an error with an "
            "unknown code are ignored; the client goes on"),
    ), _unknown),
    Scenario("ping", "a ping from the server", (
        _ob("ping", "ping", "a ping is answered with a pong carrying the same nonce"),
    ), _ping),
    Scenario("stale_legal", "a legal older than the events already sent", (
        _ob("stale_legal", "stale_legal", "a legal whose version is older than the last "
            "events is not acted on, or the client recovers from the refusal"),
    ), _stale_legal),
    Scenario("rejected", "a refused action", (
        _ob("rejected", "rejected_action", "after result {ok: false} the client goes on "
            "(acts again with a new seq, or resyncs)"),
    ), _rejected),
    Scenario("drop_resume", "the server drops the connection mid-game", (
        _ob("drop_resume", "resume_after_drop", "the client reconnects with hello.resume "
            "(and seen, if given, no later than what it got)"),
        _ob("drop_resume", "seq_after_resume", "after the resume its seq continues above "
            "joined.last_seq"),
    ), _drop_resume),
    Scenario("finished_resume", "the game ends while the client is away", (
        _ob("finished_resume", "finished_resume", "resuming into a finished game (final "
            "view, game_over) the client stops: it closes or leaves, and sends no action"),
    ), _finished_resume),
    Scenario("discard", "a discard from a hand too big to list", (
        _ob("discard", "truncated_discard", "with legal.truncated the client discards "
            "exactly legal.discard cards it holds, listed or not"),
    ), _discard, _discard_game),
    Scenario("restart", "the server restarts", (
        _ob("restart", "restart_resume", "after the listening socket went away and came "
            "back, the client reconnects, resumes and goes on above joined.last_seq"),
    ), _restart),
    Scenario("six", "a 6-player table (1.4)", (
        _ob("six", "special_build", "at a 6-player table (the 30-hex board, seats 0-5) the "
            "client is asked in the special building phase and answers with one of the "
            "listed actions (build, buy or end_turn to pass), then plays on"),
    ), _six, _six_game, SIX),
)

OBLIGATIONS: tuple[Obligation, ...] = tuple(ob for sc in SCENARIOS for ob in sc.obligations)


def select(names: Sequence[str]) -> list[Scenario]:
    """The scenarios named (by scenario or obligation name), in the kit's
    order; all of them for no names. ValueError for an unknown name."""
    if not names:
        return list(SCENARIOS)
    wanted: set[str] = set()
    for name in names:
        hits = [sc.name for sc in SCENARIOS
                if sc.name == name or any(ob.name == name for ob in sc.obligations)]
        if not hits:
            raise ValueError(f"no scenario or obligation {name!r} (kaitaku conformance --list)")
        wanted.update(hits)
    return [sc for sc in SCENARIOS if sc.name in wanted]


# -- the kit: the listening socket and the run ------------------------------------------


class Kit:
    """The scripted server. ``port`` 0 picks a free port (:attr:`port` after
    :meth:`start`). ``client``: a command line started for every scenario
    (``{port}`` and ``{host}`` in it are replaced), stopped when it ends."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, seed: int = 1,
                 timeout: float = DEFAULT_TIMEOUT, wait: float = DEFAULT_WAIT,
                 client: str | None = None, out: TextIO | None = None,
                 err: TextIO | None = None) -> None:
        self.host = host
        self.port = port
        self.seed = seed
        self.timeout = timeout
        self.wait = wait
        self.client = client
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.current: Play | None = None
        self.plays: dict[str, Play] = {}
        self.peers: list[Peer] = []
        self._server: asyncio.Server | None = None
        self._arrivals: deque[Peer] = deque()
        self._arrived = asyncio.Event()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop_listening(self) -> None:
        """Close the listening socket (new connections are refused); the open
        connections stay."""
        if self._server is not None:
            self._server.close()
            self._server = None
        await asyncio.sleep(0)

    async def listen_again(self) -> None:
        for _ in range(50):
            try:
                self._server = await asyncio.start_server(self._accept, self.host, self.port)
                return
            except OSError:
                await asyncio.sleep(0.05)
        self._server = await asyncio.start_server(self._accept, self.host, self.port)

    async def close(self) -> None:
        await self.stop_listening()
        for peer in self.peers:
            peer.close()
        for peer in self.peers:
            peer.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await peer.task

    async def _accept(self, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = Peer(reader, writer)
        self.peers.append(peer)
        try:
            hello = await peer.recv(asyncio.get_running_loop().time() + HANDSHAKE)
        except TimeoutError:
            peer.send({"type": "error", "code": "handshake_timeout",
                       "message": "no hello within 10 seconds"})
            peer.close()
            return
        if hello is None:
            self.note(f"a client closed before its hello ({peer.problem or 'no hello'})")
            return
        parsed = parse_version(hello["version"])
        if parsed is None or parsed[0] != PROTOCOL_VERSION[0]:
            peer.send({"type": "error", "code": "version_unsupported",
                       "message": f"the kit speaks protocol {VERSION_STRING}, not "
                                  f"{clip(hello['version'], 16)}"})
            peer.close()
            self.note(f"a client said hello with version {hello['version']!r}")
            return
        peer.hello = hello
        token = hello.get("resume")
        owner = self.plays.get(token) if isinstance(token, str) else None
        if owner is not None and owner is not self.current:
            owner.serve_late(peer)
            return
        self._arrivals.append(peer)
        self._arrived.set()

    def note(self, text: str) -> None:
        print(f"  ({text})", file=self.err, flush=True)

    async def arrival(self, deadline: float) -> Peer:
        """The next client that said hello (TimeoutError at ``deadline``)."""
        loop = asyncio.get_running_loop()
        while True:
            while self._arrivals:
                peer = self._arrivals.popleft()
                if not peer.closed:
                    return peer
            self._arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            await asyncio.wait_for(self._arrived.wait(), remaining)

    def requeue(self, peer: Peer) -> None:
        """A new client the current scenario cannot use: the next one's."""
        self._arrivals.appendleft(peer)
        self._arrived.set()

    def refuse(self, peer: Peer) -> None:
        """A resume token the kit cannot honour: welcome with a fresh token, then
        ``bad_resume`` (the client stays in the lobby)."""
        rng = random.Random(f"{self.seed}/refused/{len(self.peers)}")
        peer.send({"type": "welcome", "version": VERSION_STRING,
                   "session": f"{rng.getrandbits(64):016x}", "resume_token": _token(rng, 32),
                   "server": SERVER_NAME})
        peer.send({"type": "error", "code": "bad_resume",
                   "message": "unknown or expired resume token"})

    async def _launch(self) -> asyncio.subprocess.Process | None:
        if self.client is None:
            return None
        argv = shlex.split(self.client.replace("{port}", str(self.port))
                           .replace("{host}", self.host))
        try:
            return await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=self.err.fileno()
                if _has_fileno(self.err) else asyncio.subprocess.DEVNULL,
                stderr=self.err.fileno() if _has_fileno(self.err)
                else asyncio.subprocess.DEVNULL)
        except OSError as exc:
            self.note(f"cannot start the client {argv[0]!r}: {exc}")
            return None

    async def run_scenario(self, scenario: Scenario) -> list[Verdict]:
        play = Play(self, scenario)
        self.current = play
        self.plays[play.token] = play
        loop = asyncio.get_running_loop()
        print(f"scenario {scenario.name}: {scenario.summary}", file=self.err, flush=True)
        proc = await self._launch()
        try:
            try:
                peer = await self.arrival(loop.time() + self.wait)
                while peer.hello.get("resume") is not None:  # no seat of this scenario yet
                    self.refuse(peer)
                    peer = await self.arrival(loop.time() + self.wait)
            except TimeoutError:
                play.fail_rest(f"no client connected within {self.wait:g} s")
                return play.outcome()
            play.restart_clock()
            try:
                await scenario.run(play, peer)
            except TimeoutError:
                play.fail_rest(f"nothing within {self.timeout:g} s while {play.step}")
            except Gone as exc:
                play.fail_rest(f"{exc} while {play.step}")
            return play.outcome()
        finally:
            if play.peer is not None and not play.peer.closed:
                play.send({"type": "bye", "reason": "conformance scenario over"})
            await play.drop()
            self.current = None
            for late in [p for p in self._arrivals if p.hello.get("resume") == play.token]:
                self._arrivals.remove(late)
                play.serve_late(late)
            await _stop(proc)

    async def run(self, scenarios: Sequence[Scenario]) -> list[Verdict]:
        """Listen, run ``scenarios`` in order, print each verdict; return them all."""
        if self._server is None:
            await self.start()
        print(f"kaitaku conformance kit on {self.host}:{self.port} (seed {self.seed}, "
              f"{len(scenarios)} scenarios): connect the client once per scenario",
              file=self.err, flush=True)
        verdicts: list[Verdict] = []
        try:
            for scenario in scenarios:
                for v in await self.run_scenario(scenario):
                    verdicts.append(v)
                    print(v.line(), file=self.out, flush=True)
        finally:
            await self.close()
        met = sum(v.ok for v in verdicts)
        print(f"{met} of {len(verdicts)} obligations met" +
              ("" if met == len(verdicts) else f"; {len(verdicts) - met} broken"),
              file=self.out, flush=True)
        return verdicts


def _has_fileno(stream: TextIO) -> bool:
    try:
        stream.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    return True


async def _stop(proc: asyncio.subprocess.Process | None) -> None:
    """Let a client process the kit started end by itself, else stop it."""
    if proc is None:
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), CLOSE_GRACE)
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), CLOSE_GRACE)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


def describe_scenarios() -> str:
    """The text of ``kaitaku conformance --list``."""
    lines = []
    for sc in SCENARIOS:
        lines.append(f"{sc.name:<16} {sc.summary}")
        for ob in sc.obligations:
            lines.append(f"  {ob.name:<18} {ob.summary}")
    return "\n".join(lines)


def main(host: str, port: int, *, seed: int = 1, timeout: float = DEFAULT_TIMEOUT,
         wait: float = DEFAULT_WAIT, only: Sequence[str] = (), client: str | None = None,
         out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the kit; 0 when the client met every obligation, 1 when it broke
    one, 2 when the kit could not run (an unknown name, a port in use)."""
    err_stream = err if err is not None else sys.stderr
    try:
        scenarios = select(only)
    except ValueError as exc:
        print(f"kaitaku conformance: {exc}", file=err_stream)
        return 2
    kit = Kit(host, port, seed=seed, timeout=timeout, wait=wait, client=client, out=out,
              err=err)

    async def go() -> list[Verdict]:
        await kit.start()
        return await kit.run(scenarios)

    try:
        verdicts = asyncio.run(go())
    except OSError as exc:
        print(f"kaitaku conformance: cannot listen on {host}:{port}: {exc}", file=err_stream)
        return 2
    return 0 if all(v.ok for v in verdicts) else 1


__all__ = ["OBLIGATIONS", "SCENARIOS", "Kit", "Obligation", "Scenario", "Verdict",
           "describe_scenarios", "main", "select"]

