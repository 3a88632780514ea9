"""The transport floor (``kaitaku bench server --floor``): what moving a game's
frames over loopback costs with no game, no msgpack and no checks at all.

A null server and null bots exchange length-prefixed frames of the sizes a
real random-bot game sends (measured from the real server: a ~40-byte
action in; a result, an events batch, a view and a legal list back to the
actor and the events batch to the three others), using asyncio protocols
(the cheapest asyncio path). Every byte of our server's per-action cost above
this floor is Python work that could in principle be removed; the floor
itself cannot be, so it bounds the games per second any CPython asyncio
server could reach on this machine with this protocol shape.
"""

from __future__ import annotations

import asyncio
import struct
import sys
import time
from functools import partial
from typing import Any, cast

_LEN = struct.Struct(">I")

ACTIONS_PER_GAME = 968
"""Mean decisions of a 4-player random-bot game (``kaitaku bench engine``)."""

# The first body byte says what a frame is; the sizes are those measured.
ACTION, RESULT, EVENTS, VIEW, LEGAL, OVER = b"A", b"R", b"E", b"V", b"L", b"O"
SIZES = {ACTION: 40, RESULT: 20, EVENTS: 93, VIEW: 1100, LEGAL: 140, OVER: 30}


def frame(kind: bytes) -> bytes:
    body = kind + b"x" * (SIZES[kind] - 1)
    return _LEN.pack(len(body)) + body


class _Splitter:
    """Length-prefix splitting only: the least any framed protocol must do."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self.buf += data
        out = []
        buf = self.buf
        while len(buf) >= 4:
            (n,) = _LEN.unpack_from(buf)
            if len(buf) < 4 + n:
                break
            out.append(bytes(buf[4:4 + n]))
            del buf[:4 + n]
        return out


class _Game:
    def __init__(self) -> None:
        self.seats: list[_ServerConn] = []
        self.turn = 0
        self.left = ACTIONS_PER_GAME


_TO_ACTOR = frame(RESULT) + frame(EVENTS)
_TO_NEXT = frame(EVENTS) + frame(VIEW) + frame(LEGAL)
_TO_OTHER = frame(EVENTS)
_GAME_OVER = frame(EVENTS) + frame(OVER)


class _ServerConn(asyncio.Protocol):
    games: dict[bytes, _Game] = {}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.split = _Splitter()
        self.game: _Game | None = None

    def data_received(self, data: bytes) -> None:
        for body in self.split.feed(data):
            if body[:1] == b"J":  # join: the game id follows; 4 seats start a game
                game = self.games.setdefault(body[1:], _Game())
                self.game = game
                game.seats.append(self)
                if len(game.seats) == 4:
                    del self.games[body[1:]]
                    game.seats[0].transport.write(frame(VIEW) + frame(LEGAL))
                continue
            current = self.game
            assert current is not None
            game = current
            game.left -= 1
            if game.left <= 0:
                for conn in game.seats:
                    conn.transport.write(_GAME_OVER)
                continue
            game.turn = (game.turn + 1) % 4
            nxt = game.seats[game.turn]
            for conn in game.seats:
                if conn is self:
                    conn.transport.write(_TO_ACTOR if conn is not nxt else _TO_ACTOR + _TO_NEXT)
                elif conn is nxt:
                    conn.transport.write(_TO_NEXT)
                else:
                    conn.transport.write(_TO_OTHER)


async def serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_ServerConn, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"floor listening on 127.0.0.1:{port}", flush=True)
    await server.serve_forever()


class _Bot(asyncio.Protocol):
    def __init__(self, done: asyncio.Future[None], latencies: list[float]) -> None:
        self.done = done
        self.latencies = latencies
        self.split = _Splitter()
        self.sent_at = 0.0
        self.actions = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        for body in self.split.feed(data):
            kind = body[:1]
            if kind == RESULT:
                self.latencies.append(time.perf_counter() - self.sent_at)
            elif kind == LEGAL:
                self.sent_at = time.perf_counter()
                self.actions += 1
                self.transport.write(frame(ACTION))
            elif kind == OVER and not self.done.done():
                self.done.set_result(None)


async def _run(games: int, concurrency: int, host: str, port: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    actions = 0

    async def one(g: int) -> None:
        nonlocal actions
        bots = []
        for _ in range(4):
            done: asyncio.Future[None] = loop.create_future()
            _, bot = await loop.create_connection(partial(_Bot, done, latencies), host, port)
            bot.transport.write(_LEN.pack(9) + b"J" + g.to_bytes(8, "big"))
            bots.append(bot)
        await asyncio.gather(*(b.done for b in bots))
        actions += sum(b.actions for b in bots)
        for b in bots:
            b.transport.close()

    from .measure import run_concurrently, throughput_report

    seconds = await run_concurrently(games, concurrency, one)
    return throughput_report(games, concurrency, seconds, actions, latencies, 0)


def bench_floor(games: int, concurrency: int) -> dict[str, Any]:
    """Run the null server in its own process and the null bots here."""
    import re
    import subprocess

    from .measure import cpu_seconds

    proc = subprocess.Popen([sys.executable, "-m", "kaitaku.floor"], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        m = re.search(r"listening on (\S+):(\d+)", proc.stdout.readline())
        if m is None:
            raise RuntimeError("the floor server did not start")
        cpu0 = cpu_seconds(proc.pid)
        client0 = time.process_time()
        result = asyncio.run(_run(games, concurrency, m.group(1), int(m.group(2))))
        result["client_cpu_s"] = round(time.process_time() - client0, 2)
        cpu = cpu_seconds(proc.pid) - cpu0
        result["server_cpu_s"] = round(cpu, 2)
        result["server_us_per_action"] = round(cpu / max(1, result["actions"]) * 1e6, 1)
        result["client_us_per_action"] = round(
            result["client_cpu_s"] / max(1, result["actions"]) * 1e6, 1)
        return result
    finally:
        proc.terminate()
        proc.wait(5)


if __name__ == "__main__":
    asyncio.run(serve())
