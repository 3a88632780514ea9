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
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
from dataclasses import dataclass, field
from typing import Any

from protocol.rules import Action, RulesError, action_from_dict, event_from_dict
from protocol.wire import CLIENT, VERSION_STRING, Connection, Message, ProtocolError

from .base import Bot, safe_action

log = logging.getLogger("kaitaku.bot")


@dataclass
class BotOutcome:
    table: str | None = None
    seat: int | None = None
    winner: int | None = None
    scores: list[int] = field(default_factory=list)
    actions: int = 0
    rejected: int = 0
    fallbacks: int = 0
    reconnects: int = 0
    finished: bool = False


class BotClient:
    """Drive ``bot`` over one connection until its game ends."""

    def __init__(self, bot: Bot, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, name: str, budget: float | None = None) -> None:
        self.bot = bot
        self.name = name
        self.budget = budget
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.version = 0  # the last event version seen (for a resume)
        self.outcome = BotOutcome()
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
        self._proposals: set[int] = set()  # seqs of proposals on their way

    def send(self, msg: Message) -> None:
        self.writer.write(self.conn.send(msg))

    async def recv(self) -> Message:
        while not self.inbox:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("server closed the connection")
            self.inbox.extend(self.conn.receive_data(data))
        return self.inbox.pop(0)

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
            kind = msg["type"]
            if kind == "joined":
                self.outcome.table = msg["table"]
                self.outcome.seat = msg["seat"]
                self.seq = max(self.seq, msg.get("last_seq") or 0)  # a rejoined seat
            elif kind == "view":
                self.view = msg["view"]
                self.version = max(self.version, msg["version"])
            elif kind == "events":
                self.version = max(self.version, msg["version"])
                seat = self.outcome.seat
                if seat is not None and type(self.bot).on_events is not Bot.on_events:
                    self.bot.on_events(seat, [_event(e) for e in msg["events"]])
            elif kind == "legal":
                fresh = not self.pending and not self._over() and msg["version"] >= self.version
                if msg["actions"] and fresh:
                    await self._act(msg["actions"])
                elif msg.get("propose") and fresh and self._proposes():
                    await self._propose()
            elif kind == "result":
                if msg["seq"] in self._proposals:
                    self._proposals.discard(msg["seq"])
                    if not msg["ok"]:  # the current player moved on first: no harm
                        log.info("%s: proposal refused: %s", self.name, msg.get("code"))
                    continue
                self.pending = False
                if not msg["ok"]:
                    self.outcome.rejected += 1
                    log.warning("%s: action %s rejected: %s %s", self.name, msg["seq"],
                                msg.get("code"), msg.get("message"))
                    self.send({"type": "resync"})
            elif kind == "game_over":
                self.outcome.winner = msg["winner"]
                self.outcome.scores = msg["scores"]
                self.outcome.finished = True
                if self.view is not None:
                    self.bot.on_game_over(self.view)
                return self.outcome
            elif kind == "error":
                log.warning("%s: server error %s: %s", self.name, msg["code"], msg["message"])
                if msg["code"] in ("no_such_table", "seat_taken", "table_full", "table_closed"):
                    raise ProtocolError(msg["message"], msg["code"])
            elif kind == "ping":
                self.send({"type": "pong", "nonce": msg.get("nonce")})
            elif kind == "bye":
                raise ConnectionError(msg.get("reason") or "server said bye")

    def _over(self) -> bool:
        return self.view is not None and self.view.get("phase") == "game_over"

    async def _act(self, actions: list[dict[str, Any]]) -> None:
        assert self.view is not None
        legal: list[Action] = []
        for a in actions:
            try:
                legal.append(action_from_dict(a))
            except RulesError:  # a newer server's action: this bot cannot choose it
                log.warning("%s: skipping an action this SDK does not know: %r", self.name, a)
        if not legal:
            return
        action = await self._decide(self.view, legal)
        self.seq += 1
        self.outcome.actions += 1
        self.pending = True
        self.send({"type": "action", "seq": self.seq, "action": action.to_dict()})


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


def _event(d: dict[str, Any]) -> Any:
    """The event object of a plain event; the plain map for one this SDK does not know."""
    e = event_from_dict(d)
    return d if e is None else e


async def run_bot(bot: Bot, host: str, port: int, *, name: str = "bot",
                  table: str | None = None, seat: int | None = None, key: str | None = None,
                  create: dict[str, Any] | None = None, budget: float | None = None,
                  reconnect: bool = True, retries: int = 8) -> BotOutcome:
    """Connect, join ``table`` (or create one with ``create`` settings) and play
    until the game ends, reconnecting (with the seat's resume token) when the
    connection drops."""
    reader, writer = await asyncio.open_connection(host, port)
    client = BotClient(bot, reader, writer, name, budget)
    try:
        await client.handshake()
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
                    reader, writer = await asyncio.open_connection(host, port)
                except OSError:
                    continue
                client.attach(reader, writer)
                await client.handshake(resume=client.resume_token)
                client.outcome.reconnects += 1
    finally:
        client.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await client.writer.wait_closed()
