"""The bot SDK's network side: run any :class:`~bots.base.Bot` against a server.

A bot author writes no networking: :func:`run_bot` connects, says hello,
creates or joins a table, keeps sequence numbers, answers pings, follows the
view, asks the bot for an action whenever the server sends legal actions
(and, when the server says the seat may now propose a trade to the current
player, asks :meth:`~bots.base.Bot.propose`), and reconnects with the seat's
resume token (asking for the events it missed) when the connection drops.
``act`` may be a plain method or a coroutine. With a time ``budget`` a slow
or crashing ``act`` does not stall the game: the SDK sends a safe fallback
action (roll, end the turn, place no more free roads, reject or cancel a
trade, else a random legal choice) and ignores the late answer; a slow or
crashing ``propose`` simply proposes nothing. An action type this SDK does
not know (from a newer server) is left out of what the bot chooses from.

The server is not trusted blindly either: a message the SDK cannot read
(a malformed ``events``, an unreadable legal action) ends the connection
with a :class:`~protocol.wire.RemoteProtocolError` that says what was wrong;
a server silent for ``keepalive`` seconds is pinged, and one silent for
``read_timeout`` seconds counts as gone (the SDK reconnects). With ``tls``
(an :class:`ssl.SSLContext`, see :mod:`bots.tls`) the connection is TLS.
While a server cannot save actions (``storage_unavailable``) the bot waits:
the server sends the legal actions again when it can.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import ssl
from dataclasses import dataclass, field
from typing import Any

from protocol.rules import ACTION_TYPES, Action, RulesError, action_from_dict, event_from_dict
from protocol.rules.chance import Verdict
from protocol.wire import (
    CLIENT,
    TRADE_ANSWERS,
    TRADE_REASONS,
    VERSION_STRING,
    Connection,
    Message,
    ProtocolError,
    RemoteProtocolError,
)
from protocol.wire.witness import ChanceWitness

from .base import Bot, safe_action

log = logging.getLogger("kaitaku.bot")

KEEPALIVE = 20.0
"""Seconds of silence from the server after which the SDK pings it."""
READ_TIMEOUT = 60.0
"""Seconds of silence after which the server counts as gone (it pings every
client that is silent for 30 s, and answers pings)."""


@dataclass
class BotOutcome:
    table: str | None = None
    seat: int | None = None
    winner: int | None = None
    scores: list[int] = field(default_factory=list)
    actions: int = 0
    rejected: int = 0
    """Actions refused at the version they were chosen at: the bot's mistakes."""
    stale: int = 0
    """Actions refused because the game had moved on before they arrived (a
    trade the offerer closed while this seat answered it, ...): no mistake."""
    fallbacks: int = 0
    reconnects: int = 0
    finished: bool = False
    chance: Verdict | None = None
    """At game over, the game's revealed secret checked against the commitment
    its start carried and every roll this client saw (None: not committed, or
    revealed later); a failure is logged as a warning."""


class BotClient:
    """Drive ``bot`` over one connection until its game ends."""

    def __init__(self, bot: Bot, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, name: str, budget: float | None = None, *,
                 keepalive: float = KEEPALIVE, read_timeout: float = READ_TIMEOUT) -> None:
        self.bot = bot
        self.name = name
        self.budget = budget
        self.keepalive = keepalive
        self.read_timeout = read_timeout
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.version = 0  # the last event version seen (for a resume)
        self._chosen_at = 0  # the version of the legal list the last action came from
        self.outcome = BotOutcome()
        self.witness = ChanceWitness()  # what this client can check of the dice
        self.resume_token: str | None = None
        self._random = random.Random(name)
        self.attach(reader, writer)

    def attach(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Use a new connection (after a drop); the game state stays."""
        self.reader = reader
        self.writer = writer
        self.conn = Connection(CLIENT)
        self.inbox: list[Message] = []
        self.pending = False  # an action is on its way: older legal lists are stale
        if getattr(self, "_watchdog", None) is not None:
            self.stop_watchdog()
        self._watchdog: asyncio.TimerHandle | None = None
        self._last_rx = 0.0
        self._pinged = False
        self._silent: float | None = None  # set when the server stayed silent too long
        self._proposals: set[int] = set()  # seqs of proposals on their way

    def send(self, msg: Message) -> None:
        self.writer.write(self.conn.send(msg))

    async def recv(self) -> Message:
        while not self.inbox:
            data = await self._read()
            if not data:
                raise ConnectionError("server closed the connection")
            self.inbox.extend(self.conn.receive_data(data))
        return self.inbox.pop(0)

    async def _read(self) -> bytes:
        """The next bytes from the server. A watchdog (one timer, not one per
        read) pings a server silent for ``keepalive`` seconds and drops the
        connection once it has been silent for ``read_timeout``."""
        loop = asyncio.get_running_loop()
        if self._watchdog is None:
            self._last_rx = loop.time()
            self._watchdog = loop.call_later(min(self.keepalive, self.read_timeout),
                                             self._check_silence)
        data = await self.reader.read(65536)
        if self._silent is not None:
            raise ConnectionError(f"no answer from the server for {self._silent:.0f} s")
        self._last_rx = loop.time()
        self._pinged = False
        return data

    def stop_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def _check_silence(self) -> None:
        loop = asyncio.get_running_loop()
        quiet = loop.time() - self._last_rx
        if quiet >= self.read_timeout:
            self._silent = quiet
            self._watchdog = None
            with contextlib.suppress(Exception):
                self.writer.transport.abort()  # the pending read ends
            return
        if quiet >= self.keepalive and not self._pinged:
            self._pinged = True
            with contextlib.suppress(ProtocolError, OSError, RuntimeError):
                self.send({"type": "ping", "nonce": 0})
        due = self._last_rx + (self.read_timeout if self._pinged else self.keepalive)
        self._watchdog = loop.call_at(max(due, loop.time() + 0.001), self._check_silence)

    async def handshake(self, resume: str | None = None) -> Message:
        """Say hello (with a resume token to reclaim a seat); return the welcome."""
        hello: Message = {"type": "hello", "version": VERSION_STRING, "role": "bot",
                          "name": self.name}
        if resume is not None:
            hello["resume"] = resume
            hello["seen"] = self.version
        self.send(hello)
        msg = await self.recv()
        if msg["type"] != "welcome":
            raise ProtocolError(f"refused: {msg.get('code')}: {msg.get('message')}",
                                msg.get("code"))
        self.resume_token = msg["resume_token"]
        return msg

    async def play(self) -> BotOutcome:
        """Answer ``legal`` messages until ``game_over``."""
        while True:
            msg = await self.recv()
            try:
                done = await self._handle(msg)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError,
                    RulesError) as exc:
                with contextlib.suppress(Exception):
                    self.writer.close()
                raise RemoteProtocolError(
                    f"the server sent a malformed {msg['type']!r} message ({exc!r:.200})",
                    "bad_message") from exc
            if done:
                self.stop_watchdog()
                return self.outcome

    async def _handle(self, msg: Message) -> bool:
        """React to one message from the server; True when the game is over.
        A malformed message raises (and ends the connection)."""
        kind = msg["type"]
        if kind == "joined":
            self.outcome.table = msg["table"]
            self.outcome.seat = msg["seat"]
            self.seq = max(self.seq, msg.get("last_seq") or 0)  # a rejoined seat
        elif kind == "table":
            seats = msg.get("seats")
            if isinstance(seats, list):
                self.bot.humans = frozenset(
                    q for q, seat in enumerate(seats)
                    if isinstance(seat, dict) and seat.get("kind") == "human")
        elif kind == "game_started":
            self.witness.game_started(msg)
        elif kind == "view":
            self.view = msg["view"]
            self.version = max(self.version, msg["version"])
            self.witness.view(msg["view"])
        elif kind == "events":
            self.version = max(self.version, msg["version"])
            self.witness.events(msg["events"])
            seat = self.outcome.seat
            if seat is not None and type(self.bot).on_events is not Bot.on_events:
                events = [_event(e) for e in msg["events"]]
                try:
                    self.bot.on_events(seat, events)
                except Exception:  # the bot's own failure, not the server's
                    log.exception("%s: the bot's on_events failed", self.name)
        elif kind == "legal":
            fresh = not self.pending and not self._over() and msg["version"] >= self.version
            if fresh:
                self._chosen_at = msg["version"]
            if msg["actions"] and fresh and not self._owed():
                if type(self.bot).act_early is not Bot.act_early:
                    await self._act(msg["actions"], early=True)
            elif msg["actions"] and fresh:
                await self._act(msg["actions"])
            elif msg.get("propose") and fresh and self._proposes():
                await self._propose()
        elif kind == "result":
            if msg["seq"] in self._proposals:
                self._proposals.discard(msg["seq"])
                if not msg["ok"]:  # the current player moved on first: no harm
                    log.info("%s: proposal refused: %s", self.name, msg.get("code"))
                return False
            self.pending = False
            if not msg["ok"]:
                code = msg.get("code")
                if code == "storage_unavailable":  # the server sends legal again later
                    log.warning("%s: the server cannot save actions now; waiting", self.name)
                    return False
                at = msg.get("version")
                if type(at) is int and at > self._chosen_at:  # others moved first
                    self.outcome.stale += 1
                    log.info("%s: action %s refused, the game moved on (version %d to %d): "
                             "%s", self.name, msg["seq"], self._chosen_at, at, code)
                else:
                    self.outcome.rejected += 1
                    log.warning("%s: action %s rejected: %s %r", self.name, msg["seq"],
                                code, msg.get("message"))
                self.send({"type": "resync"})  # the list that came meanwhile was skipped
        elif kind == "game_over":
            self.outcome.winner = msg["winner"]
            self.outcome.scores = msg["scores"]
            self.outcome.finished = True
            settings = self.view.get("settings") if self.view is not None else None
            verdict = self.outcome.chance = self.witness.game_over(msg, settings)
            if verdict is not None and not verdict.ok:
                log.warning("%s: the dice could not be verified: %s", self.name,
                            verdict.message)
            if self.view is not None:
                try:
                    self.bot.on_game_over(self.view)
                except Exception:
                    log.exception("%s: the bot's on_game_over failed", self.name)
            return True
        elif kind == "error":
            log.warning("%s: server error %s: %r", self.name, msg["code"], msg["message"])
            if msg["code"] in ("no_such_table", "seat_taken", "table_full", "table_closed",
                               "bad_resume", "closed_by_host", "kicked", "banned"):
                # the seat is gone, or the host wants this bot out: no reconnecting
                raise ProtocolError(msg["message"], msg["code"])
        elif kind == "table_closed":  # 1.4: the server's host closed the table
            log.warning("%s: the host closed the table: %r", self.name, msg["reason"])
            raise ProtocolError(f"the server's host closed the table: {msg['reason']}",
                                "closed_by_host")
        elif kind == "ping":
            self.send({"type": "pong", "nonce": msg.get("nonce")})
        elif kind == "bye":
            raise ConnectionError(msg.get("reason") or "server said bye")
        return False

    def _over(self) -> bool:
        return self.view is not None and self.view.get("phase") == "game_over"

    def _owed(self) -> bool:
        """This seat owes a decision (the view's ``to_act``); the offerer of a
        trade is also sent legal actions early, when some seat accepted."""
        view, seat = self.view, self.outcome.seat
        if not isinstance(view, dict) or seat is None:
            return True
        to_act = view.get("to_act")
        return not isinstance(to_act, list) or seat in to_act or view.get("phase") != "trade"

    async def _act(self, actions: list[dict[str, Any]], early: bool = False) -> None:
        if not isinstance(self.view, dict):
            raise ValueError("legal actions before any view")
        legal: list[Action] = []
        for a in actions:
            if not isinstance(a, dict) or not isinstance(a.get("type"), str):
                raise ValueError(f"a legal action is a map with a type, not {a!r:.80}")
            if a["type"] not in ACTION_TYPES:  # a newer server's action: not ours to choose
                log.warning("%s: skipping an action this SDK does not know: %r", self.name, a)
                continue
            legal.append(action_from_dict(a))  # a known type with bad fields: malformed
        if not legal:  # nothing this bot could choose from a list it must choose from
            raise ValueError(f"no action this SDK knows among {len(actions)} legal actions")
        if early:  # a choice not owed yet: the bot may take it now, or wait
            chosen = await self._decide_early(self.view, legal)
            if chosen is None:
                return
            action = chosen
        else:
            action = await self._decide(self.view, legal)
        self.seq += 1
        self.outcome.actions += 1
        self.pending = True
        msg: dict[str, Any] = {"type": "action", "seq": self.seq, "action": action.to_dict()}
        why = getattr(self.bot, "reason", None)
        if action.name in TRADE_ANSWERS and why in TRADE_REASONS:
            msg["reason"] = why  # 1.4: shown to the people at the table
        self.send(msg)


    def _proposes(self) -> bool:
        return type(self.bot).propose is not Bot.propose and self.view is not None

    async def _propose(self) -> None:
        """Ask the bot whether to propose a trade (within the budget; a slow or
        failing bot simply does not propose)."""
        assert self.view is not None
        view = self.view
        try:
            if inspect.iscoroutinefunction(self.bot.propose):
                coro = self.bot.propose(view)
                action = await (coro if self.budget is None
                                else asyncio.wait_for(coro, self.budget))
            elif self.budget is None:
                action = self.bot.propose(view)
            else:
                loop = asyncio.get_running_loop()
                future = loop.run_in_executor(None, self.bot.propose, view)
                action = await asyncio.wait_for(asyncio.shield(future), self.budget)
        except TimeoutError:
            log.warning("%s: the bot took too long to propose; it does not", self.name)
            return
        except Exception:
            log.exception("%s: the bot failed to propose", self.name)
            return
        if action is None:
            return
        # A proposal is not a decision the seat owes: later legal lists stay
        # valid while it is on its way, and a refusal (the current player
        # moved on first) needs no resync.
        self.seq += 1
        self.outcome.actions += 1
        self._proposals.add(self.seq)
        self.send({"type": "action", "seq": self.seq, "action": action.to_dict()})

    async def _decide_early(self, view: dict[str, Any], legal: list[Action]) -> Action | None:
        """Ask the bot's ``act_early`` (within the budget); a slow or failing bot,
        or an answer not in ``legal``, waits."""
        try:
            if inspect.iscoroutinefunction(self.bot.act_early):
                coro = self.bot.act_early(view, legal)
                action = await (coro if self.budget is None
                                else asyncio.wait_for(coro, self.budget))
            elif self.budget is None:
                action = self.bot.act_early(view, legal)
            else:
                loop = asyncio.get_running_loop()
                future = loop.run_in_executor(None, self.bot.act_early, view, legal)
                action = await asyncio.wait_for(asyncio.shield(future), self.budget)
        except Exception:  # TimeoutError included: it simply waits
            log.info("%s: act_early failed or took too long; waiting", self.name)
            return None
        return action if action in legal else None

    async def _decide(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """Ask the bot, within the budget; fall back on a safe action."""
        try:
            if inspect.iscoroutinefunction(self.bot.act):
                coro = self.bot.act(view, legal)
                if self.budget is None:
                    return await coro  # type: ignore[no-any-return]
                return await asyncio.wait_for(coro, self.budget)
            if self.budget is None:
                return self.bot.act(view, legal)
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(None, self.bot.act, view, legal)
            return await asyncio.wait_for(asyncio.shield(future), self.budget)
        except TimeoutError:
            log.warning("%s: the bot took longer than %.3g s; playing a fallback", self.name,
                        self.budget)
        except Exception:
            log.exception("%s: the bot failed; playing a fallback", self.name)
        self.outcome.fallbacks += 1
        return safe_action(legal, self._random)


def _event(d: Any) -> Any:
    """The event object of a plain event; the plain map for one this SDK does not
    know. Not a map with a type: TypeError (a malformed message)."""
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        raise TypeError(f"an event is a map with a type, not {type(d).__name__}")
    e = event_from_dict(d)
    return d if e is None else e


async def run_bot(bot: Bot, host: str, port: int, *, name: str = "bot",
                  table: str | None = None, seat: int | None = None, key: str | None = None,
                  create: dict[str, Any] | None = None, budget: float | None = None,
                  reconnect: bool = True, retries: int = 8,
                  tls: ssl.SSLContext | None = None, keepalive: float = KEEPALIVE,
                  read_timeout: float = READ_TIMEOUT) -> BotOutcome:
    """Connect, join ``table`` (or create one with ``create`` settings) and play
    until the game ends, reconnecting (with the seat's resume token) when the
    connection drops. ``tls``: connect with TLS (:mod:`bots.tls`); ``keepalive``
    and ``read_timeout``: seconds of silence before the server is pinged, and
    before it counts as gone."""
    reader, writer = await asyncio.open_connection(host, port, ssl=tls)
    client = BotClient(bot, reader, writer, name, budget, keepalive=keepalive,
                       read_timeout=read_timeout)
    try:
        await client.handshake()
        _sit_down(client, table, seat, key, create)
        attempt = 0
        while True:
            try:
                return await client.play()
            except (ConnectionError, OSError) as exc:
                if not reconnect or client.outcome.seat is None or attempt >= retries:
                    raise
                attempt += 1
                delay = min(5.0, 0.1 * 2 ** attempt)
                log.warning("%s: connection lost (%s); reconnecting in %.1f s", name, exc,
                            delay)
                with contextlib.suppress(Exception):
                    client.writer.close()
                await asyncio.sleep(delay)
                try:
                    reader, writer = await asyncio.open_connection(host, port, ssl=tls)
                except OSError:
                    continue
                client.attach(reader, writer)
                await client.handshake(resume=client.resume_token)
                client.outcome.reconnects += 1
    finally:
        client.stop_watchdog()
        client.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await client.writer.wait_closed()


def _sit_down(client: BotClient, table: str | None, seat: int | None, key: str | None,
              create: dict[str, Any] | None) -> None:
    """Send the ``create_table`` or ``join`` that seats the bot."""
    if create is not None:
        client.send({"type": "create_table", "settings": create.get("settings", create),
                     "bots": create.get("bots", [])})
    elif table is not None:
        join: Message = {"type": "join", "table": table}
        if seat is not None:
            join["seat"] = seat
        if key is not None:
            join["key"] = key
        client.send(join)
    else:
        raise ValueError("give a table to join or settings to create one")


async def run_bot_stream(bot: Bot, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter, *, name: str = "bot",
                         table: str | None = None, seat: int | None = None,
                         key: str | None = None, create: dict[str, Any] | None = None,
                         budget: float | None = None, keepalive: float = KEEPALIVE,
                         read_timeout: float = READ_TIMEOUT) -> BotOutcome:
    """:func:`run_bot` over a connection that is already open: the two ends of
    a socket pair, or standard input and output (:func:`bots.stdio.open_stdio`,
    ``kaitaku bot --stdio``). The same frames and messages; a stream cannot be
    opened again, so there is no reconnection."""
    client = BotClient(bot, reader, writer, name, budget, keepalive=keepalive,
                       read_timeout=read_timeout)
    try:
        await client.handshake()
        _sit_down(client, table, seat, key, create)
        return await client.play()
    finally:
        client.stop_watchdog()
        client.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await client.writer.wait_closed()
