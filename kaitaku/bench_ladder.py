"""``kaitaku bench ladder``: the game port's latency on a big ladder while its
pages and standings are fetched (measured, never asserted by tests).

A ladder database is seeded directly (``--bots`` registered names, ``--games``
finished games with their ratings, decision times, seat events and a real
game's log), then ``kaitaku server --ladder DB --ladder-http`` runs in its own
process. An unrelated client pings the game port all along (round trips every
10 ms); the run measures ``--seconds`` with no other load, then ``--seconds``
while ``--fetchers`` clients fetch pages without pause (the standings page,
random game pages, their logs, bot pages) and ``--readers`` connections ask for
standings pages at random offsets as fast as the ladder lets them. Reported:
the ping's p50, p99 and max in each phase, the pages and standings answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from league.stats import percentile

from .hostile import _pinger, _stop


def seed_ladder(db: Path, bots: int, games: int, seed: int = 1) -> None:
    """A ladder database with ``bots`` names and ``games`` rated games, written
    directly (one real game's log stands for every game's)."""
    from league import Entry, run_league
    from league.ladder import LadderStore
    from league.names import name_keys
    from league.store import connect, load_log

    rng = random.Random(seed)
    league_db = db.with_name("one-game.db")
    run_league([Entry("r", "random")], 1, players=4, db=league_db)
    conn = connect(str(league_db))
    _, log = load_log(conn, 1)
    conn.close()
    assert log is not None
    log_json = json.dumps(log.to_dict())
    store = LadderStore(db)
    c = store.db
    names = [f"bot-{i:05d}" for i in range(bots)]
    c.execute("BEGIN")
    c.executemany(
        "INSERT INTO bots (name, folded, salt, hash, created, mu, sigma, kdf, owner, last_seen, "
        "games, wins) VALUES (?, ?, ?, ?, ?, ?, ?, 'hmac-sha256', ?, ?, ?, ?)",
        [(n, n, os.urandom(16), os.urandom(32), time.time(), rng.gauss(25, 5),
          rng.uniform(0.8, 8.3), f"addr:10.{i // 65536}.{i // 256 % 256}.{i % 256}",
          time.time(), 0, 0) for i, n in enumerate(names)])
    c.executemany("INSERT INTO name_keys VALUES (?, ?)",
                  [(k, n) for n in names for k in name_keys(n)])
    now = time.time()
    for g in range(1, games + 1):
        seats = rng.sample(names, 4)
        vp = [rng.randrange(2, 11) for _ in seats]
        times = [[rng.uniform(1000, 50_000) for _ in range(60)] for _ in seats]
        events = [["turn 40: timed out: the default action was played"] if rng.random() < 0.05
                  else [] for _ in seats]
        c.execute(
            "INSERT INTO games (id, match, rotation, rotations, table_id, seed, seats, status, "
            "winner, vp, ranks, forfeits, timeouts, turns, decisions, started, finished, "
            "times, log, events) VALUES (?, ?, 0, 1, ?, ?, ?, 'ok', ?, ?, ?, '[]', "
            "'[0,0,0,0]', 80, 900, ?, ?, ?, ?, ?)",
            (g, g, f"ladder-{g:x}", rng.randrange(1 << 31), json.dumps(seats),
             vp.index(max(vp)), json.dumps(vp), json.dumps(sorted(range(4), key=lambda q: -vp[q])),
             now - (games - g) * 10, now - (games - g) * 10 + 5,
             json.dumps([[round(t, 2) for t in ts] for ts in times]), log_json,
             json.dumps(events)))
        c.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?)",
                      [(g, n, rng.gauss(25, 5), rng.uniform(0.8, 8.3)) for n in seats])
        c.executemany("UPDATE bots SET games = games + 1 WHERE name = ?", [(n,) for n in seats])
        if g % 5000 == 0:
            c.execute("COMMIT")
            c.execute("BEGIN")
    c.execute("COMMIT")
    store.close()


def _fetch(port: int, path: str) -> int:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(1 << 16):
            data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0


async def _fetcher(port: int, bots: int, games: int, stop: asyncio.Event,
                   counts: dict[str, int], rng: random.Random) -> None:
    while not stop.is_set():
        kind = rng.choice(("index", "game", "json", "bot"))
        path = {"index": "/", "game": f"/game/{rng.randrange(1, games + 1)}",
                "json": f"/game/{rng.randrange(1, games + 1)}.json",
                "bot": f"/bot/bot-{rng.randrange(bots):05d}"}[kind]
        try:
            status = await asyncio.to_thread(_fetch, port, path)
        except OSError:
            status = 0
        counts[f"{kind}_{status}"] = counts.get(f"{kind}_{status}", 0) + 1


async def _reader(port: int, bots: int, stop: asyncio.Event, counts: dict[str, int],
                  rng: random.Random) -> None:
    from protocol.wire import VERSION_STRING, FrameDecoder, encode_frame

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(encode_frame({"type": "hello", "version": VERSION_STRING, "role": "player",
                               "name": "reader"}))
    decoder = FrameDecoder(None)

    async def frames() -> list[Any]:
        data = await reader.read(1 << 16)
        if not data:
            raise ConnectionError("the server closed the connection")
        return list(decoder.feed(data))

    while not any(m["type"] == "welcome" for m in await frames()):
        pass
    while not stop.is_set():
        writer.write(encode_frame({"type": "ladder_standings",
                                   "offset": rng.randrange(bots), "limit": 100}))
        got = False
        while not got:
            for m in await frames():
                if m["type"] in ("ladder", "error"):
                    key = "standings" if m["type"] == "ladder" else f"refused_{m['code']}"
                    counts[key] = counts.get(key, 0) + 1
                    got = True
        await asyncio.sleep(0.05)
    writer.close()


async def _measure(port: int, web: int, bots: int, games: int, seconds: float,
                   fetchers: int, readers: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rng = random.Random(7)
    for phase, load in (("idle", False), ("loaded", True)):
        samples: list[float] = []
        counts: dict[str, int] = {}
        stop = asyncio.Event()
        tasks = [asyncio.ensure_future(_pinger(port, samples, stop))]
        if load:
            tasks += [asyncio.ensure_future(_fetcher(web, bots, games, stop, counts, rng))
                      for _ in range(fetchers)]
            tasks += [asyncio.ensure_future(_reader(port, bots, stop, counts, rng))
                      for _ in range(readers)]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        pings = sorted(samples)
        out[phase] = {"pings": len(pings),
                      "ping_ms_p50": round(percentile(pings, 0.5) * 1000, 2),
                      "ping_ms_p99": round(percentile(pings, 0.99) * 1000, 2),
                      "ping_ms_max": round(pings[-1] * 1000, 2) if pings else None,
                      **dict(sorted(counts.items()))}
    return out


def bench_ladder(bots: int, games: int, seconds: float, fetchers: int,
                 readers: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="kaitaku-bench-ladder-"))
    try:
        db = tmp / "ladder.db"
        t0 = time.perf_counter()
        seed_ladder(db, bots, games)
        seeded = time.perf_counter() - t0
        proc = subprocess.Popen(
            [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--db", ":none:",
             "--log-level", "warning", "--no-advertise", "--ladder", str(db),
             "--ladder-http", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert proc.stdout is not None
            text = ""
            while "ladder page:" not in text:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError("the server did not start")
                text += line
            port = int(re.search(r"listening on \S+:(\d+)", text)[1])  # type: ignore[index]
            web = int(re.search(r"ladder page: http://\S+:(\d+)/", text)[1])  # type: ignore[index]
            time.sleep(1.0)  # the page's process starts
            result = asyncio.run(_measure(port, web, bots, games, seconds, fetchers, readers))
        finally:
            _stop(proc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"bots": bots, "games": games, "seconds_per_phase": seconds,
            "fetchers": fetchers, "readers": readers, "seed_s": round(seeded, 1), **result}


def main_ladder(bots: int, games: int, seconds: float, fetchers: int, readers: int,
                as_json: bool) -> int:
    r = bench_ladder(bots, games, seconds, fetchers, readers)
    if as_json:
        print(json.dumps(r))
        return 0
    print(f"ladder of {r['bots']} bots and {r['games']} games (seeded in {r['seed_s']} s); "
          f"{r['seconds_per_phase']:g} s per phase")
    for phase in ("idle", "loaded"):
        p = r[phase]
        extra = ", ".join(f"{k} {v}" for k, v in p.items() if not k.startswith("ping"))
        print(f"  {phase:>6}: ping p50 {p['ping_ms_p50']} ms, p99 {p['ping_ms_p99']} ms, "
              f"max {p['ping_ms_max']} ms ({p['pings']} pings){'; ' + extra if extra else ''}")
    return 0
