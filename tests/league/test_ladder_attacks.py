"""The live ladder attacked as griefers, colluders and hostile files would:
each test performs the attack against a real server (real loopback TCP, a real
SQLite database, the page in its own process) and checks that it fails.

Bots of different owners connect from different loopback addresses
(127.0.0.2, 127.0.0.3, ...): names registered from one address share an owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bots import RandomBot
from bots.ladder_client import run_ladder, standings
from kaitaku.replay import replay_lines
from league import ladder as ladder_module
from league.ladder import Ladder, LadderConfig, LadderStore
from league.ladder_web import LadderWeb
from protocol.rules import GameLog, replay
from protocol.wire import ProtocolError
from server.app import Server
from server.clock import Clock

from .test_ladder import Ladderd, _raw, _register, _rows

TIMEOUT = 60.0
KAITAKU = [sys.executable, "-m", "kaitaku"]


async def _serve(tmp_path: Path, **config: Any) -> Ladderd:
    db = tmp_path / "ladder.db"
    ladder = Ladder(db, LadderConfig(**{"players": 2, "seed": 5, **config}))
    srv = Server("127.0.0.1", 0, spawn_bots=False, extension=ladder)
    await srv.start()
    return Ladderd(srv, ladder, db)


async def _next(client: Any, *kinds: str, timeout: float = 10) -> dict[str, Any]:
    """The next message of one of ``kinds`` (pings answered)."""
    while True:
        msg = await asyncio.wait_for(client.recv(), timeout)
        if msg["type"] in kinds:
            return dict(msg)
        if msg["type"] == "ping":
            client.send({"type": "pong", "nonce": msg.get("nonce")})


def _get(url: str, source: str | None = None) -> tuple[int, dict[str, str], bytes]:
    host, _, rest = url.removeprefix("http://").partition("/")
    h, _, p = host.partition(":")
    with socket.create_connection((h, int(p)), timeout=10,
                                  source_address=(source, 0) if source else None) as s:
        s.sendall(f"GET /{rest} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return status, headers, body


# --- 8: a bot that stalls is suspended -----------------------------------------------------


async def test_item8_a_bot_that_times_out_stalls_one_game_and_is_suspended(
        tmp_path: Path) -> None:
    d = await _serve(tmp_path, clock=Clock(300, 100, 1), grace=0.3)
    try:
        port = d.server.port
        keys = {n: await _register(port, n, f"127.0.0.{i + 2}")
                for i, n in enumerate(("honest", "staller"))}
        done: list[int] = []
        d.ladder.on_game = done.append
        honest = asyncio.ensure_future(run_ladder(
            lambda: RandomBot(1), "127.0.0.1", port, name="honest", key=keys["honest"],
            games=6))
        staller = await _raw(port, "staller", "127.0.0.3")
        # It asks for 6 games (a duplicate set of 2 would follow), then never acts.
        staller.send({"type": "ladder_ready", "name": "staller", "key": keys["staller"],
                      "games": 6})

        async def suspension() -> dict[str, Any]:
            while True:  # "forfeited" first, then the suspension
                refused = await _next(staller, "error", timeout=TIMEOUT)
                if refused["code"] == "ladder_busy":
                    return refused

        refused = await asyncio.wait_for(suspension(), TIMEOUT)
        assert "suspended" in refused["message"]
        assert len(done) == 1
        rows = _rows(d.db)
        assert sum("staller" in json.loads(r["seats"]) for r in rows) == 1
        assert "staller" not in d.ladder.ready and not d.ladder.matches
        # Saying ready again (on a new connection too) is refused while suspended.
        again = await _raw(port, "staller", "127.0.0.3")
        again.send({"type": "ladder_ready", "name": "staller", "key": keys["staller"],
                    "games": 1})
        err = await _next(again, "error")
        assert err["code"] == "ladder_busy" and "suspended" in err["message"]
        # What befell its seat is kept (item 16): its timeout and its forfeit.
        (row,) = [r for r in rows if "staller" in json.loads(r["seats"])]
        q = json.loads(row["seats"]).index("staller")
        events = json.loads(row["events"])[q]
        assert any("timed out" in e for e in events)
        assert any("forfeited (1 timeouts)" in e for e in events)
        honest.cancel()
        for c in (staller, again):
            c.writer.close()
    finally:
        await asyncio.wait_for(d.server.close(), 15)


# --- 9: wrong keys do not delay others' logins ---------------------------------------------


async def test_item9_a_flood_of_wrong_keys_does_not_delay_another_bots_login(
        tmp_path: Path) -> None:
    d = await _serve(tmp_path)
    try:
        port = d.server.port
        targets = [f"target{i}" for i in range(5)]
        for i, n in enumerate(targets):
            await _register(port, n, f"127.0.0.{i + 10}")
        key = await _register(port, "victim", "127.0.0.2")
        attackers = [await _raw(port, "attacker", f"127.0.0.{20 + i}") for i in range(5)]
        for a in attackers:  # 20 wrong keys from each address (its allowance)
            for k in range(20):
                a.send({"type": "ladder_ready", "name": targets[k % 5], "key": f"wrong{k}",
                        "games": 1})
        await asyncio.sleep(0.05)  # the wrong keys reach the server first
        victim = await _raw(port, "victim", "127.0.0.2")
        start = time.monotonic()
        victim.send({"type": "ladder_ready", "name": "victim", "key": key, "games": 1})
        queued = await _next(victim, "ladder_queued", "error", timeout=20)
        waited = time.monotonic() - start
        assert queued["type"] == "ladder_queued"
        assert waited < 1.0, f"the login waited {waited:.2f} s behind wrong keys"
        for a in attackers:
            refusals = [await _next(a, "error") for _ in range(20)]
            assert all(r["code"] == "bad_key" for r in refusals)
            a.writer.close()
        victim.writer.close()
    finally:
        await asyncio.wait_for(d.server.close(), 15)


async def test_item9_an_older_databases_scrypt_key_logs_in_once_and_is_stored_fast(
        tmp_path: Path) -> None:
    from league.ladder import scrypt_key

    store = LadderStore(tmp_path / "ladder.db")
    assert store.register("old", "the-old-key")
    salt = os.urandom(16)
    store.db.execute("UPDATE bots SET salt = ?, hash = ?, kdf = 'scrypt' WHERE name = 'old'",
                     (salt, scrypt_key("the-old-key", salt)))
    store.close()
    d = await _serve(tmp_path)
    try:
        c = await _raw(d.server.port, "old", "127.0.0.2")
        c.send({"type": "ladder_ready", "name": "old", "key": "the-old-key", "games": 1})
        assert (await _next(c, "ladder_queued", "error"))["type"] == "ladder_queued"
        (kdf,) = d.ladder.store.db.execute("SELECT kdf FROM bots WHERE name = 'old'").fetchone()
        assert kdf == "hmac-sha256"
        c.writer.close()
    finally:
        await asyncio.wait_for(d.server.close(), 15)


# --- 10: standings cannot keep the event loop busy -----------------------------------------


async def test_item10_standings_come_from_memory_and_are_rate_limited_per_connection(
        tmp_path: Path) -> None:
    store = LadderStore(tmp_path / "ladder.db")
    for i in range(300):
        store.register(f"bot{i:03d}", f"k{i}")
    store.db.execute("UPDATE bots SET mu = 20 + (rowid % 17), sigma = 1 + (rowid % 5)")
    store.close()
    d = await _serve(tmp_path)
    try:
        queries: list[str] = []
        d.ladder.store.db.set_trace_callback(queries.append)
        c = await _raw(d.server.port, "reader", "127.0.0.2")
        for offset in range(100):  # every page a different spelling: no cache helps
            c.send({"type": "ladder_standings", "offset": offset, "limit": 100})
        answers = [await _next(c, "ladder", "error") for _ in range(100)]
        pages = [a for a in answers if a["type"] == "ladder"]
        limited = [a for a in answers if a["type"] == "error"]
        assert 0 < len(pages) <= 5  # STANDINGS_PER_SECOND
        assert {a["code"] for a in limited} == {"rate_limited"}
        assert queries == []  # no database query at all
        # The pages are right: the ordinal order, whatever the offset.
        page = pages[3]
        assert page["total"] == 300 and page["offset"] == 3
        ordinals = [e["ordinal"] for e in page["entries"]]
        assert ordinals == sorted(ordinals, reverse=True) and page["entries"][0]["rank"] == 4
        conn = sqlite3.connect(d.db)
        best = conn.execute("SELECT name FROM bots ORDER BY mu - 3 * sigma DESC, name "
                            "LIMIT 1 OFFSET 3").fetchone()[0]
        conn.close()
        assert page["entries"][0]["name"] == best
        c.writer.close()
    finally:
        await asyncio.wait_for(d.server.close(), 15)


async def test_item10_a_game_page_is_cached_by_game_not_by_the_urls_spelling(
        tmp_path: Path) -> None:
    d = await _serve(tmp_path)
    web = LadderWeb(d.db, "127.0.0.1", 0, replay=replay_lines)
    web.start()
    try:
        gid = d.ladder.store.start_game(1, 0, 1, "t", 7, ["a", "b"])
        d.ladder.store.abort_game(gid, "first words")
        base = f"http://127.0.0.1:{web.port}"
        status, _, first = await asyncio.to_thread(_poll, base + f"/game/{gid}")
        assert status == 200 and b"first words" in first
        d.ladder.store.db.execute("UPDATE games SET error = 'second words' WHERE id = ?", (gid,))
        for spelling in (f"/game/0{gid}", f"/game/00{gid}?x=1", f"/game/{gid}?y=2#z"):
            status, _, again = await asyncio.to_thread(_get, base + spelling)
            assert status == 200 and again == first  # the page made once, served again
        from league.ladder_web import Pages

        assert Pages(d.db).key(f"/game/000{gid}?q") == Pages(d.db).key(f"/game/{gid}")
    finally:
        web.stop()
        await asyncio.wait_for(d.server.close(), 15)


def _poll(url: str) -> tuple[int, dict[str, str], bytes]:
    """GET ``url`` once the page's process listens."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return _get(url)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# --- 11: collusion -------------------------------------------------------------------------


async def test_item11_one_owners_bots_never_meet_and_a_fresh_name_keeps_the_low_rating(
        tmp_path: Path) -> None:
    d = await _serve(tmp_path, duplicate=False)
    try:
        port = d.server.port
        # One colluder registers two names from one address, two others from theirs.
        keys = {"col1": await _register(port, "col1", "127.0.0.2"),
                "col2": await _register(port, "col2", "127.0.0.2"),
                "x": await _register(port, "x", "127.0.0.3"),
                "y": await _register(port, "y", "127.0.0.4")}
        done: list[int] = []
        d.ladder.on_game = done.append
        # The colluders say ready first: first come, first seated would pair them.
        runs = []
        for n in ("col1", "col2", "x", "y"):
            runs.append(asyncio.ensure_future(run_ladder(
                lambda: RandomBot(3), "127.0.0.1", port, name=n, key=keys[n], games=2)))
            await asyncio.sleep(0.05)
        await asyncio.wait_for(asyncio.gather(*runs), TIMEOUT)
        rows = [json.loads(r["seats"]) for r in _rows(d.db)]
        assert len(rows) == 4
        assert not any({"col1", "col2"} <= set(seats) for seats in rows), rows
        # A fresh name of the same owner starts no higher than its lowest rated name.
        d.ladder.store.db.execute("UPDATE bots SET mu = 12.5 WHERE name = 'col2'")
        await _register(port, "col3", "127.0.0.2")
        table = await standings("127.0.0.1", port)
        by_name = {e["name"]: e for e in table["entries"]}
        assert by_name["col3"]["mu"] == 12.5 and by_name["col3"]["games"] == 0
        assert by_name["y"]["mu"] != 12.5
    finally:
        await asyncio.wait_for(d.server.close(), 15)


# --- 12: names that look alike -------------------------------------------------------------


async def test_item12_names_that_look_alike_are_one_name_and_a_full_ladder_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = await _serve(tmp_path)
    try:
        port = d.server.port
        await _register(port, "paypal", "127.0.0.2")
        for i, twin in enumerate(["PAYPAL", "pаypаl", "pay\u200bpal", "ｐａｙｐａｌ",
                                  "paypaI", "pay\u00adpal", "paypa\ufe0fl"]):
            with pytest.raises(ProtocolError) as taken:
                await _register(port, twin, f"127.0.0.{i + 3}")
            assert taken.value.code == "name_taken" and "taken" in str(taken.value), twin
        from league.names import look_alike

        assert look_alike("Bot 1", "Bot l") and not look_alike("aiko", "aikö")
        # A full ladder says it is full; a name unused for long makes room.
        monkeypatch.setattr(ladder_module, "MAX_BOTS", 2)
        await _register(port, "second", "127.0.0.20")
        with pytest.raises(ProtocolError) as full:
            await _register(port, "third", "127.0.0.21")
        assert "full" in str(full.value)
        long_ago = time.time() - 40 * 86400
        d.ladder.store.db.execute("UPDATE bots SET created = ?, last_seen = ? "
                                  "WHERE name = 'second'", (long_ago, long_ago))
        await _register(port, "third", "127.0.0.21")
        names = {r[0] for r in d.ladder.store.db.execute("SELECT name FROM bots")}
        assert names == {"paypal", "third"}
    finally:
        await asyncio.wait_for(d.server.close(), 15)


# --- 13: the web port's caps ---------------------------------------------------------------


def test_item13_a_flood_on_the_web_port_does_not_stop_the_game_port(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"

    def low_limit() -> None:  # the server gets a small descriptor budget
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    server = subprocess.Popen(
        [*KAITAKU, "server", "--port", "0", "--db", ":none:", "--no-advertise",
         "--log-level", "warning", "--ladder", str(db), "--ladder-players", "2",
         "--ladder-http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=low_limit)
    held: list[socket.socket] = []
    dripping = threading.Event()
    try:
        assert server.stdout is not None
        lines: list[str] = []
        while not any(line.startswith("ladder page:") for line in lines):
            assert server.poll() is None, lines
            lines.append(server.stdout.readline().strip())
        port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", "\n".join(lines))[1])  # type: ignore[index]
        page = re.search(r"ladder page: http://127\.0\.0\.1:(\d+)", "\n".join(lines))
        assert page is not None
        web_port = int(page[1])
        assert _poll(f"http://127.0.0.1:{web_port}/")[0] == 200
        # A slow-loris flood: 400 connections (more than the server's 256
        # descriptors), 300 from one address and 100 from 50 others, each sending
        # its request a line a second and never finishing it.
        for i in range(400):
            s = socket.socket()
            s.settimeout(2)
            s.bind(("127.0.1.1" if i < 300 else f"127.0.1.{i % 50 + 2}", 0))
            try:
                s.connect(("127.0.0.1", web_port))
                s.sendall(b"GET / HTTP/1.0\r\n")
            except OSError:
                s.close()
                continue
            held.append(s)
        dripping = threading.Event()

        def drip() -> None:
            while not dripping.wait(1.0):
                for s in list(held):
                    with contextlib.suppress(OSError):
                        s.send(b"X-Slow: 1\r\n")

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        time.sleep(1.0)
        # The game port still takes players: a bot registers and reads the standings.
        key = subprocess.run([*KAITAKU, "ladder", "register", "newcomer", "--connect",
                              f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)
        assert key.returncode == 0 and len(key.stdout.strip()) >= 32, key.stderr
        table = subprocess.run([*KAITAKU, "ladder", "standings", "--connect",
                                f"127.0.0.1:{port}", "--json"], capture_output=True, text=True,
                               timeout=60)
        assert table.returncode == 0 and json.loads(table.stdout)["total"] == 1
        # The many addresses go; the one address that holds 300 connections is held
        # to its cap, and another address gets the page.
        for s in held[300:]:
            s.close()
        del held[300:]
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError, IndexError, ValueError):
                status, _, body = _get(f"http://127.0.0.1:{web_port}/", source="127.0.2.1")
                if status == 200 and b"newcomer" in body:
                    break
            assert time.monotonic() < deadline, "the page did not come back"
            time.sleep(0.3)
        dripping.set()
    finally:
        dripping.set()
        for s in held:
            s.close()
        server.send_signal(signal.SIGTERM)
        try:
            _, err = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
    assert "Traceback" not in err
    page_lines = [ln for ln in err.splitlines() if "ladder page" in ln]
    assert len(page_lines) <= 3, page_lines  # one short line per interval, not one per request


# --- 15: hostile text and damaged logs on the page and in the terminal ----------------------


def test_item15_a_damaged_log_and_hostile_names_are_shown_safely(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    store = LadderStore(db)
    evil = "<script>alert(1)</script>\x1b[31mred\x1b]0;title\x07"
    store.db.execute("INSERT INTO bots (name, folded, salt, hash, created, mu, sigma) "
                     "VALUES (?, 'evil', x'00', x'00', 0, 30, 1)", (evil,))
    gid = store.start_game(1, 0, 1, "t", 7, [evil, "b"])
    deep = "[" * 100_000 + "]" * 100_000
    store.db.execute("UPDATE games SET status = 'ok', log = ?, times = ? WHERE id = ?",
                     (deep, deep, gid))
    store.close()
    web = LadderWeb(db, "127.0.0.1", 0, replay=replay_lines)
    web.start()
    try:
        status, _, body = _poll(f"http://127.0.0.1:{web.port}/game/{gid}")
        assert status == 200 and b"cannot be read" in body and b"<script>" not in body
        status, _, body = _get(f"http://127.0.0.1:{web.port}/game/{gid}.json")
        assert status == 500 and b"cannot be read" in body
        status, _, body = _get(f"http://127.0.0.1:{web.port}/")
        assert status == 200 and b"<script>" not in body and b"\x1b" not in body
        assert b"&lt;script&gt;" in body
    finally:
        web.stop()
    out = subprocess.run([*KAITAKU, "replay", "--ladder-db", str(db), str(gid)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "cannot be read" in out.stderr
    assert "Traceback" not in out.stderr
    table = subprocess.run([*KAITAKU, "ladder", "standings", "--db", str(db)],
                           capture_output=True, text=True, timeout=60)
    assert table.returncode == 0 and "\x1b" not in table.stdout and "\x07" not in table.stdout
    listing = subprocess.run([*KAITAKU, "replay", "--ladder-db", str(db), "--list"],
                             capture_output=True, text=True, timeout=60)
    assert "Traceback" not in listing.stderr and "\x1b" not in listing.stdout


# --- 16: per-game logs for each competitor, replay files ------------------------------------


async def test_item16_each_bot_sees_why_it_lost_its_seat_and_downloads_the_replay(
        tmp_path: Path) -> None:
    d = await _serve(tmp_path, clock=Clock(300, 100, 1), grace=0.3)
    web = LadderWeb(d.db, "127.0.0.1", 0, replay=replay_lines)
    web.start()
    try:
        port = d.server.port
        keys = {n: await _register(port, n, f"127.0.0.{i + 2}")
                for i, n in enumerate(("player", "sleeper"))}
        done: list[int] = []
        d.ladder.on_game = done.append
        player = asyncio.ensure_future(run_ladder(
            lambda: RandomBot(1), "127.0.0.1", port, name="player", key=keys["player"],
            games=1))
        sleeper = await _raw(port, "sleeper", "127.0.0.3")
        sleeper.send({"type": "ladder_ready", "name": "sleeper", "key": keys["sleeper"],
                      "games": 1})
        await asyncio.wait_for(player, TIMEOUT)
        (gid,) = done
        base = f"http://127.0.0.1:{web.port}"
        status, _, page = await asyncio.to_thread(_poll, f"{base}/game/{gid}")
        text = page.decode()
        assert status == 200 and "timed out" in text and "forfeited (1 timeouts)" in text
        assert "decisions: mean" in text  # the player's decision times
        status, _, bot = await asyncio.to_thread(_get, f"{base}/bot/sleeper")
        assert status == 200 and "forfeited (1 timeouts)" in bot.decode()
        status, headers, raw = await asyncio.to_thread(_get, f"{base}/game/{gid}.json")
        assert status == 200 and headers["content-disposition"].startswith("attachment")
        log = GameLog.from_dict(json.loads(raw))
        (row,) = _rows(d.db)
        assert replay(log).winner == row["winner"]
        saved = tmp_path / f"ladder-game-{gid}.json"
        saved.write_bytes(raw)
        shown = await asyncio.to_thread(
            subprocess.run, [*KAITAKU, "replay", "--log", str(saved)], capture_output=True,
            text=True, timeout=60)
        assert shown.returncode == 0 and "game over" in shown.stdout, shown.stderr
        sleeper.writer.close()
    finally:
        web.stop()
        await asyncio.wait_for(d.server.close(), 15)


# --- 17: matchmaking by rating -------------------------------------------------------------


async def test_item17_settled_bots_meet_near_equals(tmp_path: Path) -> None:
    store = LadderStore(tmp_path / "ladder.db")
    keys = {}
    for n, mu in (("strong1", 40.0), ("weak1", 10.0), ("strong2", 39.0), ("weak2", 11.0)):
        keys[n] = f"key-of-{n}"
        store.register(n, keys[n])
        store.db.execute("UPDATE bots SET mu = ?, sigma = 1.0, games = 100 WHERE name = ?",
                         (mu, n))
    store.close()
    d = await _serve(tmp_path, duplicate=False)
    try:
        port = d.server.port
        runs = []
        for n in ("strong1", "weak1", "strong2", "weak2"):  # first come would pair s1-w1
            runs.append(asyncio.ensure_future(run_ladder(
                lambda: RandomBot(4), "127.0.0.1", port, name=n, key=keys[n], games=1)))
            await asyncio.sleep(0.05)
        await asyncio.wait_for(asyncio.gather(*runs), TIMEOUT)
        pairs = sorted(sorted(json.loads(r["seats"])) for r in _rows(d.db))
        assert pairs == [["strong1", "strong2"], ["weak1", "weak2"]]
    finally:
        await asyncio.wait_for(d.server.close(), 15)


def test_item17_the_rule_new_bots_meet_many_settled_bots_near_equals_waiting_widens() -> None:
    from league.ladder import MATCH_WIDTH, pick_table

    new, settled = 25 / 3, 1.0
    # A new bot reaches far: it meets a settled bot 9 points away.
    assert pick_table([("n", "a", 25.0, new, 0), ("s", "b", 34.0, settled, 0)], 2) == [0, 1]
    # Two settled bots 9 points apart do not meet ...
    far = [("s1", "a", 25.0, settled, 0.0), ("s2", "b", 34.0, settled, 0.0)]
    assert pick_table(far, 2) is None
    # ... until they have waited long enough.
    waited = 9 / 2 / ladder_module.MATCH_WIDEN
    assert pick_table([(n, o, mu, sg, waited) for n, o, mu, sg, _ in far], 2) == [0, 1]
    # One owner's bots never share a table, however close.
    assert pick_table([("a1", "x", 25.0, new, 0), ("a2", "x", 25.0, new, 0)], 2) is None
    # The longest-waiting bot is seated first, with the nearest that fits.
    idle = [("w", "a", 20.0, 2.0, 0), ("far", "b", 40.0, 1.0, 0), ("near", "c", 21.0, 1.0, 0)]
    assert pick_table(idle, 2) == [0, 2]
    assert MATCH_WIDTH > 0


def test_item17_a_chosen_table_is_always_within_reach_and_of_different_owners() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from league.ladder import MATCH_WIDEN, MATCH_WIDTH, pick_table

    bot = st.tuples(st.sampled_from("abcdef"), st.floats(0, 50), st.floats(0.5, 9),
                    st.floats(0, 100))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(bot, max_size=12), st.integers(2, 4))
    def check(bots: list[tuple[str, float, float, float]], players: int) -> None:
        idle = [(f"n{i}", o, mu, sg, w) for i, (o, mu, sg, w) in enumerate(bots)]
        chosen = pick_table(idle, players)
        if chosen is None:
            return
        assert len(chosen) == players == len(set(chosen))
        assert len({idle[i][1] for i in chosen}) == players
        reach = {i: MATCH_WIDTH * idle[i][3] + MATCH_WIDEN * idle[i][4] for i in chosen}
        assert all(abs(idle[i][2] - idle[j][2]) <= reach[i] + reach[j] + 1e-9
                   for i in chosen for j in chosen)

    check()


def test_item12_invisible_characters_and_case_never_make_a_new_name() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from league.names import look_alike

    invisible = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",
                                 "\u034f", "\ufe0f", "\u200e", "\u202e"])

    @settings(max_examples=300, deadline=None)
    @given(st.text(st.characters(codec="utf-8", categories=["L", "N"]), min_size=1,
                   max_size=12), st.lists(st.tuples(st.integers(0, 12), invisible),
                                          max_size=4))
    def check(name: str, inserts: list[tuple[int, str]]) -> None:
        twin = name
        for at, c in inserts:
            twin = twin[:at] + c + twin[at:]
        assert look_alike(name, twin)
        assert look_alike(name, name.upper()) and look_alike(name, name.casefold())

    check()
