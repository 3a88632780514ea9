"""Run a bot over the network: the same :class:`~bots.base.Bot` class that
plays in-process, speaking the wire protocol to a server.

This is the minimal client the server uses for the seats it fills with bots
(``kaitaku bot``); the bot SDK builds reconnection and time budgets on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from protocol.rules import EVENT_TYPES, Action, RulesError, action_from_dict
from protocol.wire import CLIENT, VERSION_STRING, Connection, Message, ProtocolError

from .base import Bot

log = logging.getLogger("kaitaku.bot")


@dataclass
class BotOutcome:
    table: str | None = None
    seat: int | None = None
    winner: int | None = None
    scores: list[int] = field(default_factory=list)
    actions: int = 0
    rejected: int = 0
    finished: bool = False


class BotClient:
    """Drive ``bot`` over one connection until its game ends."""

    def __init__(self, bot: Bot, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, name: str) -> None:
        self.bot = bot
        self.reader = reader
        self.writer = writer
        self.name = name
        self.conn = Connection(CLIENT)
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.outcome = BotOutcome()
        self.inbox: list[Message] = []
        self.pending = False  # an action is on its way: older legal lists are stale

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
        self.send(hello)
        msg = await self.recv()
        if msg["type"] != "welcome":
            raise ProtocolError(f"refused: {msg.get('code')}: {msg.get('message')}",
                                msg.get("code"))
        self.resume_token: str = msg["resume_token"]
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
            elif kind == "events":
                seat = self.outcome.seat
                if seat is not None and type(self.bot).on_events is not Bot.on_events:
                    self.bot.on_events(seat, [_event(e) for e in msg["events"]])
            elif kind == "legal":
                if msg["actions"] and not self.pending and not self._over():
                    self._act(msg["actions"])
            elif kind == "result":
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
                if msg["code"] in ("no_such_table", "seat_taken", "table_full"):
                    raise ProtocolError(msg["message"], msg["code"])
            elif kind == "ping":
                self.send({"type": "pong", "nonce": msg.get("nonce")})
            elif kind == "bye":
                raise ConnectionError(msg.get("reason") or "server said bye")

    def _over(self) -> bool:
        return self.view is not None and self.view.get("phase") == "game_over"

    def _act(self, actions: list[dict[str, Any]]) -> None:
        assert self.view is not None
        try:
            legal: list[Action] = [action_from_dict(a) for a in actions]
        except RulesError:
            log.exception("%s: the server sent an unreadable action", self.name)
            return
        action = self.bot.act(self.view, legal)
        self.seq += 1
        self.outcome.actions += 1
        self.pending = True
        self.send({"type": "action", "seq": self.seq, "action": action.to_dict()})


def _event(d: dict[str, Any]) -> Any:
    cls = EVENT_TYPES.get(d.get("type", ""))
    if cls is None:
        return d
    fields = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v)
              if isinstance(v, list) else v for k, v in d.items() if k != "type"}
    try:
        return cls(**fields)
    except TypeError:
        return d


async def run_bot(bot: Bot, host: str, port: int, *, name: str = "bot",
                  table: str | None = None, seat: int | None = None, key: str | None = None,
                  create: dict[str, Any] | None = None) -> BotOutcome:
    """Connect, join ``table`` (or create one with ``create`` settings) and play."""
    reader, writer = await asyncio.open_connection(host, port)
    client = BotClient(bot, reader, writer, name)
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
        return await client.play()
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
