"""The bot SDK on a live ladder (a server started with ``kaitaku server --ladder``).

:func:`register` asks for a name and returns its secret key (keep it: the
server shows it once). :func:`run_ladder` connects a bot, says
``ladder_ready {name, key, games}`` and plays every game the ladder seats it
at, a fresh bot from ``make`` for each, until it has played them all (or the
server has no more for it); :func:`standings` reads the standings. The games
themselves are ordinary games of the protocol (docs/PROTOCOL.md, 7.11): the
ladder sends ``joined`` for each, ``left`` after its ``game_over``, and
``ladder_queued`` with the games still to play.

A connection that drops loses its seat to a stand-in after the ladder's grace
(and the game counts as a forfeit): connect again and say ``ladder_ready``
again to go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.wire import Message, ProtocolError

from .base import Bot
from .client import KEEPALIVE, READ_TIMEOUT, BotClient, BotOutcome

LADDER_ERRORS = frozenset({"no_ladder", "bad_key", "name_taken", "ladder_busy",
                           "bad_settings"})
"""Error codes that end a ladder session (raised as ProtocolError)."""


@dataclass
class LadderOutcome:
    name: str
    games: list[BotOutcome] = field(default_factory=list)
    """One outcome per game played, in order."""
    remaining: int = 0
    """Games the ladder still had queued for the bot when it stopped."""


ANSWER_TIMEOUT = 30.0
"""Seconds ``register`` and ``standings`` wait for the server's answer (a
registration hashes the key with scrypt: well under a second)."""


async def _connect(host: str, port: int, tls: ssl.SSLContext | None, name: str,
                   bot: Bot | None = None) -> BotClient:
    reader, writer = await asyncio.open_connection(host, port, ssl=tls)
    client = BotClient(bot or Bot(), reader, writer, name)
    await client.handshake()
    return client


async def _close(client: BotClient) -> None:
    client.stop_watchdog()
    with contextlib.suppress(Exception):
        client.send({"type": "bye"})
    client.writer.close()
    with contextlib.suppress(ConnectionError, OSError):
        await client.writer.wait_closed()


async def _answer(client: BotClient, kind: str) -> Message:
    """The next message of type ``kind`` (pings answered, a ladder error raised)."""
    while True:
        msg = await client.recv()
        if msg["type"] == kind:
            return msg
        if msg["type"] == "error":
            raise ProtocolError(msg["message"], msg["code"])
        if msg["type"] == "ping":
            client.send({"type": "pong", "nonce": msg.get("nonce")})


async def _ask(host: str, port: int, tls: ssl.SSLContext | None, name: str,
               msg: Message, kind: str, timeout: float) -> Message:
    """Connect, send ``msg`` and return the answer of type ``kind``; a server that
    does not answer within ``timeout`` seconds raises ProtocolError (``timeout``)."""
    client: BotClient | None = None

    async def ask() -> Message:
        nonlocal client
        client = await _connect(host, port, tls, name)
        client.send(msg)
        return await _answer(client, kind)

    try:
        return await asyncio.wait_for(ask(), timeout)
    except TimeoutError:
        raise ProtocolError(f"the server at {host}:{port} did not answer {msg['type']} in "
                            f"{timeout:g} s", "timeout") from None
    finally:
        if client is not None:
            await _close(client)


async def register(host: str, port: int, name: str, *,
                   tls: ssl.SSLContext | None = None,
                   timeout: float = ANSWER_TIMEOUT) -> str:
    """Register ``name`` on the ladder; its secret key."""
    msg = await _ask(host, port, tls, name, {"type": "ladder_register", "name": name},
                     "ladder_registered", timeout)
    return str(msg["key"])


async def standings(host: str, port: int, *, tls: ssl.SSLContext | None = None,
                    offset: int = 0, limit: int = 100,
                    timeout: float = ANSWER_TIMEOUT) -> Message:
    """The ladder's standings (the ``ladder`` message)."""
    return await _ask(host, port, tls, "standings",
                      {"type": "ladder_standings", "offset": offset, "limit": limit},
                      "ladder", timeout)


async def run_ladder(make: Callable[[], Bot], host: str, port: int, *, name: str, key: str,
                     games: int, tls: ssl.SSLContext | None = None,
                     budget: float | None = None, keepalive: float = KEEPALIVE,
                     read_timeout: float = READ_TIMEOUT,
                     on_game: Callable[[BotOutcome], Any] | None = None) -> LadderOutcome:
    """Play ``games`` ladder games as ``name`` (a fresh ``make()`` bot each game;
    ``on_game`` is called after each). Returns when they are played, or when
    the server says none are left. A refusal (``bad_key``, ``ladder_busy``,
    ``no_ladder``) raises :class:`~protocol.wire.ProtocolError`."""
    reader, writer = await asyncio.open_connection(host, port, ssl=tls)
    client = BotClient(make(), reader, writer, name, budget, keepalive=keepalive,
                       read_timeout=read_timeout)
    out = LadderOutcome(name, remaining=games)
    playing = False
    try:
        await client.handshake()
        client.send({"type": "ladder_ready", "name": name, "key": key, "games": games})
        while True:
            msg = await client.recv()
            kind = msg["type"]
            if kind == "ladder_queued":
                out.remaining = msg["games"]
                if out.remaining <= 0 and not playing:
                    return out
                continue
            if kind == "error" and msg["code"] in LADDER_ERRORS:
                raise ProtocolError(msg["message"], msg["code"])
            if kind == "error" and msg["code"] == "table_closed":
                playing = False  # a table-mate left before the game: the ladder goes on
                continue
            if kind == "joined" and not playing:
                playing = True
                client.bot = make()  # a new table: a new bot, versions from 0 again
                client.view = None
                client.version = 0
                client.pending = False
                client.outcome = BotOutcome()
            if kind == "left":
                playing = False
                if out.remaining <= 0:
                    return out
                continue
            if kind in ("ladder", "ladder_registered"):
                continue
            if await client._handle(msg):  # the game is over
                out.games.append(client.outcome)
                if on_game is not None:
                    on_game(client.outcome)
    finally:
        await _close(client)
