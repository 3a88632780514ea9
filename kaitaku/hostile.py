"""``kaitaku bench hostile``: what a hostile load costs a server (measured, never
asserted by tests). Each run starts ``kaitaku server`` in its own process.

- ``spectators``: one table of four bots that never end their game, measured
  for ``--seconds`` with no spectator and then with ``--spectators`` of them
  (connections that read and discard), in the same run; an unrelated client
  pings the server all along (its round-trip p99 in each phase).
- ``full-disk``: a game of bots; part-way, the server process's file size is
  capped (RLIMIT_FSIZE) for ``--seconds``; then the server is killed (-9) and
  restarted on a healthy disk. Acknowledged actions against stored ones.
- ``partial-frames``: ``--connections`` clients (from several loopback
  addresses) each start the largest frame a client may send and never finish
  it; the server's RSS before, while they wait, and after the frame deadline
  closed them.
- ``tables``: as many waiting tables as the caps let clients open, from many
  loopback addresses; the server's RSS and the listing's pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import resource
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from league.stats import percentile
from protocol.wire import MAX_CLIENT_FRAME, VERSION_STRING, FrameDecoder, encode_frame


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
    except OSError:
        return None
    return round(int(m.group(1)) / 1024, 1) if m else None


def _server(args: Sequence[str], preexec: Any = None) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-m", "kaitaku", "server", "--port", "0",
                             "--log-level", "warning", "--no-advertise", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=preexec)
    assert proc.stdout is not None
    m = re.search(r"listening on \S+:(\d+)", proc.stdout.readline())
    if m is None:
        proc.kill()
        raise RuntimeError("the server did not start")
    return proc, int(m.group(1))


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class _Sink(asyncio.Protocol):
    """A spectator that reads and throws away everything (the cheapest reader)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.transport: asyncio.Transport | None = None
        self.decoder: FrameDecoder | None = FrameDecoder(None)
        self.bytes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(encode_frame({"type": "hello", "version": VERSION_STRING,
                                      "role": "spectator", "name": "sink"}))

    def data_received(self, data: bytes) -> None:
        self.bytes += len(data)
        if self.decoder is not None:  # until the welcome, then spectate and stop decoding
            for msg in self.decoder.feed(data):
                if msg["type"] == "welcome" and self.transport is not None:
                    self.transport.write(encode_frame({"type": "spectate",
                                                       "table": self.table}))
                    self.decoder = None
                    break


async def _pinger(port: int, samples: list[float], stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(encode_frame({"type": "hello", "version": VERSION_STRING, "role": "player",
                               "name": "pinger"}))
    decoder = FrameDecoder(None)
    while not any(m["type"] == "welcome" for m in decoder.feed(await reader.read(65536))):
        pass
    nonce = 0
    while not stop.is_set():
        nonce += 1
        t0 = time.perf_counter()
        writer.write(encode_frame({"type": "ping", "nonce": nonce}))
        done = False
        while not done:
            done = any(m["type"] == "pong" and m.get("nonce") == nonce
                       for m in decoder.feed(await reader.read(65536)))
        samples.append(time.perf_counter() - t0)
        await asyncio.sleep(0.01)
    writer.close()


def _hoarder(seed: int) -> Any:
    from bots import Bot

    class Hoarder(Bot):
        """Rolls and ends its turn; builds nothing: a game that never ends."""

        def act(self, view: Any, legal: Any) -> Any:
            for name in ("roll_dice", "end_turn", "reject_trade", "cancel_trade"):
                for a in legal:
                    if a.name == name:
                        return a
            return legal[0]

    return Hoarder()


async def _spectators(port: int, spectators: int, seconds: float) -> dict[str, Any]:
    from bots.client import BotClient

    clients = []
    for q in range(4):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = BotClient(_hoarder(q), reader, writer, f"h{q}")
        await c.handshake()
        clients.append(c)
    clients[0].send({"type": "create_table", "settings": {"players": 4}})
    joined = await clients[0].recv()
    while joined["type"] != "joined":
        joined = await clients[0].recv()
    clients[0].outcome.seat = joined["seat"]
    table = joined["table"]
    for c in clients[1:]:
        c.send({"type": "join", "table": table})
    plays = [asyncio.ensure_future(c.play()) for c in clients]
    out: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    sinks: list[tuple[asyncio.BaseTransport, _Sink]] = []
    try:
        for phase, count in (("0", 0), (str(spectators), spectators)):
            for _ in range(count):
                sinks.append(await loop.create_connection(lambda: _Sink(table), "127.0.0.1",
                                                          port))
            await asyncio.sleep(1.0)  # they are all watching now
            pings: list[float] = []
            stop = asyncio.Event()
            pinger = asyncio.ensure_future(_pinger(port, pings, stop))
            before = sum(c.outcome.actions for c in clients)
            t0 = time.perf_counter()
            await asyncio.sleep(seconds)
            actions = sum(c.outcome.actions for c in clients) - before
            elapsed = time.perf_counter() - t0
            stop.set()
            await pinger
            pings.sort()
            out[phase] = {"spectators": count, "actions_per_s": round(actions / elapsed, 1),
                          "ping_ms_p50": round(percentile(pings, 0.5) * 1000, 2),
                          "ping_ms_p99": round(percentile(pings, 0.99) * 1000, 2),
                          "bytes_to_spectators": sum(s.bytes for _, s in sinks)}
    finally:
        for p in plays:
            p.cancel()
        await asyncio.gather(*plays, return_exceptions=True)
        for transport, _ in sinks:
            transport.close()
        for c in clients:
            c.writer.close()
    return out


def bench_spectators(spectators: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kaitaku-hostile-") as tmp:
        proc, port = _server(["--db", os.path.join(tmp, "k.db"),
                              "--max-spectators", str(spectators + 1),
                              "--max-spectators-per-address", str(spectators + 1)])
        try:
            result = asyncio.run(_spectators(port, spectators, seconds))
            result["server_peak_rss_mb"] = _rss_mb(proc.pid)
            return {"what": "spectators", "seconds": seconds, **result}
        finally:
            _stop(proc)


def _ignore_xfsz() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)


async def _full_disk(db: str, seconds: float) -> dict[str, Any]:
    import logging

    from bots import RandomBot
    from bots.client import BotClient

    logging.getLogger("kaitaku.bot").setLevel(logging.ERROR)  # they say "waiting", at length

    class Acked(BotClient):
        acked = 0
        refused = 0
        last = 0

        async def recv(self) -> dict[str, Any]:
            msg = await super().recv()
            if msg["type"] in ("events", "view", "legal"):
                self.last = max(self.last, msg["version"])
            elif msg["type"] == "result":
                if msg["ok"]:
                    self.acked = max(self.acked, self.last + 1)
                elif msg.get("code") == "storage_unavailable":
                    self.refused += 1
            return msg

    proc, port = _server(["--db", db], preexec=_ignore_xfsz)
    clients = []
    try:
        for q in range(4):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            c = Acked(RandomBot(q), reader, writer, f"b{q}")
            await c.handshake()
            clients.append(c)
        clients[0].send({"type": "create_table", "settings": {"players": 4}})
        joined = await clients[0].recv()
        while joined["type"] != "joined":
            joined = await clients[0].recv()
        clients[0].outcome.seat = joined["seat"]
        table = joined["table"]
        for c in clients[1:]:
            c.send({"type": "join", "table": table})
        plays = [asyncio.ensure_future(c.play()) for c in clients]
        while max(c.acked for c in clients) < 200:
            await asyncio.sleep(0.01)
        before = max(c.acked for c in clients)
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (4096, 4096))
        await asyncio.sleep(seconds)
        acked = max(c.acked for c in clients)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        errors = proc.stderr.read() if proc.stderr else ""
        for p in plays:
            p.cancel()
        await asyncio.gather(*plays, return_exceptions=True)
    finally:
        for c in clients:
            c.writer.close()
        if proc.poll() is None:
            proc.kill()
    con = sqlite3.connect(db)
    try:
        (stored,) = con.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                                (table,)).fetchone()
    finally:
        con.close()
    return {"acknowledged_before_the_fault": before, "acknowledged": acked,
            "durable_after_kill_9": stored, "lost": max(0, acked - stored),
            "refused_storage_unavailable": sum(c.refused for c in clients),
            "storage_log_lines": sum(1 for line in errors.splitlines() if "storage" in line),
            "tracebacks": errors.count("Traceback")}


def bench_full_disk(seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kaitaku-hostile-") as tmp:
        db = os.path.join(tmp, "k.db")
        result = asyncio.run(_full_disk(db, seconds))
        return {"what": "full-disk", "seconds_failing": seconds, **result}


async def _partial_frames(port: int, pid: int, connections: int,
                          wait: float) -> dict[str, Any]:
    base = _rss_mb(pid)
    writers = []
    for i in range(connections):
        local = f"127.0.{1 + i // 200}.{2 + i % 200}"  # 200 connections per address
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=(local, 0))
        writer.write(encode_frame({"type": "hello", "version": VERSION_STRING,
                                   "role": "player", "name": "p"}))
        writer.write(struct.pack(">I", MAX_CLIENT_FRAME) + b"\x00" * (MAX_CLIENT_FRAME - 1))
        writers.append((reader, writer))
    await asyncio.gather(*(w.drain() for _, w in writers))
    await asyncio.sleep(1.0)
    parked = _rss_mb(pid)
    t0 = time.perf_counter()
    closed = 0
    for reader, _ in writers:
        with contextlib.suppress(TimeoutError, ConnectionError):
            while await asyncio.wait_for(reader.read(65536), wait):
                pass
            closed += 1  # the server closed it (not our timeout)
    after_deadline = round(time.perf_counter() - t0, 1)
    await asyncio.sleep(1.0)
    for _, w in writers:
        w.close()
    return {"connections": connections, "rss_mb_before": base, "rss_mb_parked": parked,
            "closed_by_server": closed, "seconds_until_closed": after_deadline,
            "rss_mb_after": _rss_mb(pid)}


def bench_partial_frames(connections: int) -> dict[str, Any]:
    proc, port = _server(["--db", ":none:"])
    try:
        result = asyncio.run(_partial_frames(port, proc.pid, connections, 30.0))
        return {"what": "partial-frames", **result}
    finally:
        _stop(proc)


async def _tables(port: int, pid: int, addresses: int) -> dict[str, Any]:
    base = _rss_mb(pid)
    held = []
    opened = refused = 0
    for a in range(addresses):
        for _ in range(9):  # one more than the per-address cap
            local = f"127.1.{a // 200}.{2 + a % 200}"
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(local, 0))
            decoder = FrameDecoder(None)
            writer.write(encode_frame({"type": "hello", "version": VERSION_STRING,
                                       "role": "player", "name": "開" * 32}))
            while not any(m["type"] == "welcome"
                          for m in decoder.feed(await reader.read(65536))):
                pass
            writer.write(encode_frame({"type": "create_table", "name": "開" * 32,
                                       "settings": {"players": 4}}))
            answer: dict[str, Any] | None = None
            while answer is None:
                for m in decoder.feed(await reader.read(65536)):
                    if m["type"] in ("joined", "error"):
                        answer = m
            if answer["type"] == "joined":
                opened += 1
                held.append(writer)
            else:
                refused += 1
                writer.close()
    await asyncio.sleep(0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    decoder = FrameDecoder(None)
    writer.write(encode_frame({"type": "hello", "version": VERSION_STRING, "role": "player",
                               "name": "lister"}))
    writer.write(b"")
    while not any(m["type"] == "welcome" for m in decoder.feed(await reader.read(65536))):
        pass
    t0 = time.perf_counter()
    writer.write(encode_frame({"type": "list_tables"}))
    page: dict[str, Any] | None = None
    size = 0
    while page is None:
        data = await reader.read(1 << 20)
        size += len(data)
        page = next((m for m in decoder.feed(data) if m["type"] == "tables"), None)
    listed_ms = round((time.perf_counter() - t0) * 1000, 1)
    writer.close()
    result = {"tables_opened": opened, "creates_refused": refused,
              "rss_mb_before": base, "rss_mb_with_tables": _rss_mb(pid),
              "first_page_tables": len(page["tables"]), "total_listed": page.get("total"),
              "first_page_bytes": size, "list_ms": listed_ms}
    for w in held:
        w.close()
    return result


def bench_tables(addresses: int) -> dict[str, Any]:
    proc, port = _server(["--db", ":none:"])
    try:
        return {"what": "tables", **asyncio.run(_tables(port, proc.pid, addresses))}
    finally:
        _stop(proc)


def main_hostile(what: str, spectators: int, seconds: float, connections: int,
                 addresses: int, as_json: bool) -> int:
    if what == "spectators":
        result = bench_spectators(spectators, seconds)
    elif what == "full-disk":
        result = bench_full_disk(seconds)
    elif what == "partial-frames":
        result = bench_partial_frames(connections)
    else:
        result = bench_tables(addresses)
    if as_json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>28}: {v}")
    return 0
