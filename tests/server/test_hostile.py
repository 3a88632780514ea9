"""A server open to strangers: hostile strings, caps, listing pages, seats that
are not yours, tables that do not restore, spectators, long rejections and the
small holes. Each test is named after the item of the hardening list it covers
(real loopback TCP, real SQLite, real processes)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import socket
import struct
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from protocol.rules import Phase, Settings, apply, legal_actions, new_game, to_act
from protocol.wire import MAX_CLIENT_FRAME, MAX_FRAME, VERSION_STRING, encode_frame
from protocol.wire.messages import MAX_PAGE, MAX_TEXT
from protocol.wire.text import BIDI_CONTROLS
from server.app import Limits, Server
from server.session import Session
from server.storage import Storage
from server.table import MAX_LEGAL, Table, bounded_legal, legal_message

from .conftest import (
    Connect,
    RawClient,
    play_bot_game,
    raw_table,
    seat_dropped,
    start_bot_game,
)

ROOT = Path(__file__).resolve().parents[2]


def _controls(text: str) -> list[str]:
    return [ch for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0
            or ch in BIDI_CONTROLS]


async def _hello(c: RawClient, name: str, **extra: Any) -> dict[str, Any]:
    await c.send({"type": "hello", "version": VERSION_STRING, "role": "player",
                  "name": name, **extra})
    return await c.recv()


# -- 1. hostile strings ------------------------------------------------------------------


async def test_item1_names_table_names_and_chat_are_cleaned(server: Server,
                                                             connect: Connect) -> None:
    """NUL, ESC, line breaks and bidi overrides never reach another client: the
    server cleans every name, table name and chat line it stores or relays."""
    ann = await connect("ann", hello=False)
    assert (await _hello(ann, "A\x00n\u202en\n"))["type"] == "welcome"
    await ann.send({"type": "create_table", "settings": {"players": 3},
                    "name": "\x1b[2JFri\x00day\u2066\r\n"})
    tid = (await ann.recv_type("joined"))["table"]
    seats = (await ann.recv_type("table"))["seats"]
    assert seats[0]["name"] == "Ann"
    bob = await connect("bob")
    await bob.send({"type": "list_tables"})
    (summary,) = (await bob.recv_type("tables"))["tables"]
    assert summary["name"] == "[2JFriday"
    await bob.send({"type": "join", "table": tid})
    await bob.recv_type("joined")
    await ann.send({"type": "chat", "text": "hi\x00\nthere\x07"})
    for c in (ann, bob):
        chat = await c.recv_type("chat")
        assert chat["text"] == "hi there" and chat["name"] == "Ann"
    await ann.send({"type": "chat", "text": "\x00\x1b\u202e"})  # nothing printable
    await ann.send({"type": "ping", "nonce": 5})
    assert (await ann.recv_until(lambda m: m["type"] in ("chat", "pong")))["type"] == "pong"
    for c in (ann, bob):
        for msg in c.received:
            for value in _strings(msg):
                assert not _controls(value), (msg, value)
    # A name with nothing printable is refused.
    ghost = await connect("ghost", hello=False)
    err = await _hello(ghost, "\x00\u202e\n")
    assert err["type"] == "error" and err["code"] == "bad_message"
    await ghost.closed()
    assert ghost.eof


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


async def test_item1_user_text_cannot_forge_log_lines(server: Server, connect: Connect,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    evil = "x\n2026-01-01 INFO kaitaku.server: forged\x1b[2K"
    c = await connect("e", hello=False)
    await _hello(c, evil[:32])
    await c.send({"type": "create_table", "settings": {"players": 3}, "name": evil[:32]})
    await c.recv_type("joined")
    await c.send({"type": "chat", "text": evil})
    await c.recv_type("chat")
    bad = await connect("bad")
    await bad.send({"type": f"nope\n{evil}"})
    await bad.closed()
    lines = [r.getMessage() for r in caplog.records]
    assert any("forged" in line for line in lines)  # the text was logged, escaped
    for line in lines:
        assert not _controls(line), line


# -- 4. caps on tables and bot processes -----------------------------------------------------


async def test_item4_bot_processes_are_capped_per_address_and_in_all(
        bot_server: Server) -> None:
    bot_server.limits = Limits(bots=4, bots_per_address=3)

    async def client(name: str) -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", bot_server.port)
        c = RawClient(reader, writer, name)
        await c.hello()
        return c

    first = await client("first")
    await first.send({"type": "create_table", "settings": {"players": 4},
                      "bots": ["random", "random"]})
    await first.recv_type("joined")
    second = await client("second")
    await second.send({"type": "create_table", "settings": {"players": 4},
                       "bots": ["random", "random"]})
    assert (await second.recv_type("error"))["code"] == "too_many_bots"  # 4 > 3 per address
    await second.send({"type": "create_table", "settings": {"players": 4},
                       "bots": ["random"]})
    await second.recv_type("joined")
    third = await client("third")  # another connection: the same address
    await third.send({"type": "create_table", "settings": {"players": 3}, "bots": ["random"]})
    assert (await third.recv_type("error"))["code"] == "too_many_bots"
    await first.send({"type": "start"})  # one more random bot for the empty seat
    assert (await first.recv_type("error"))["code"] == "too_many_bots"
    assert len(bot_server.bot_processes) == 3
    assert all(t.status == "waiting" for t in bot_server.tables.values())
    for c in (first, second, third):
        await c.close()


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
            out |= {int(p) for p in text.split()}
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_item4_bot_processes_die_with_a_killed_server(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--log-level", "warning",
         "--db", ":none:"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=ROOT)
    try:
        assert proc.stdout is not None
        m = re.search(r"listening on \S+:(\d+)", proc.stdout.readline())
        assert m
        reader, writer = await asyncio.open_connection("127.0.0.1", int(m.group(1)))
        c = RawClient(reader, writer, "host")
        await c.hello()
        await c.send({"type": "create_table", "settings": {"players": 4},
                      "bots": ["random"] * 3})
        await c.recv_type("joined")
        await c.recv_until(lambda msg: msg["type"] == "game_started", 30)  # the bots joined
        bots = _children(proc.pid)
        assert len(bots) == 3
        proc.kill()
        proc.wait(10)
        loop = asyncio.get_running_loop()
        end = loop.time() + 3.0
        while any(_alive(b) for b in bots) and loop.time() < end:
            await asyncio.sleep(0.05)
        assert not any(_alive(b) for b in bots), "bot processes outlived the server"
        await c.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


# -- 5. the listing always answers ------------------------------------------------------------


async def test_item5_the_listing_answers_with_pages_however_many_tables(
        server: Server, connect: Connect) -> None:
    long_name = "開" * 32  # 96 bytes of UTF-8: the largest summaries there are
    for i in range(1000):
        t: Table[Session] = Table(f"t{i:05d}", long_name, Settings(players=4), None)
        for seat in t.seats:
            seat.kind, seat.name = "human", long_name
        server.attach_table(t)
    c = await connect("lister")
    await c.send({"type": "list_tables"})
    first = await c.recv_type("tables")
    assert len(first["tables"]) == MAX_PAGE and first["total"] == 1000
    assert len(encode_frame(first)) < MAX_FRAME // 2
    seen = [t["id"] for t in first["tables"]]
    while len(seen) < first["total"]:
        await c.send({"type": "list_tables", "offset": len(seen)})
        page = await c.recv_type("tables")
        assert page["offset"] == len(seen) and page["tables"]
        seen += [t["id"] for t in page["tables"]]
    assert sorted(seen) == sorted(server.tables)
    await c.send({"type": "list_tables", "offset": 5, "limit": 3})
    assert [t["id"] for t in (await c.recv_type("tables"))["tables"]] == seen[5:8]


async def test_item5_waiting_tables_are_listed_first(server: Server, connect: Connect) -> None:
    for i, status in enumerate(["finished", "playing", "waiting", "playing", "waiting"]):
        t: Table[Session] = Table(f"t{i}", f"t{i}", Settings(players=3), None)
        t.status = status
        server.attach_table(t)
    c = await connect("lister")
    await c.send({"type": "list_tables"})
    tables = (await c.recv_type("tables"))["tables"]
    assert [t["id"] for t in tables] == ["t2", "t4", "t1", "t3", "t0"]


# -- 6. seats that are not yours --------------------------------------------------------------


async def test_item6a_a_keyless_bot_seat_is_reclaimed_only_with_its_token(
        server: Server, connect: Connect) -> None:
    """A bot client that joined without a key (as ``kaitaku bot --table`` does)
    holds its seat like a person: once it drops, nobody else may take it."""
    ann = await connect("ann")
    await ann.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await ann.recv_type("joined"))["table"]
    bot = await connect("bot", hello=False)
    token = (await _hello_role(bot, "bot"))["resume_token"]
    await bot.send({"type": "join", "table": tid})
    assert (await bot.recv_type("joined"))["seat"] == 1
    cid = await connect("cid")
    await cid.send({"type": "join", "table": tid})
    await cid.recv_type("joined")
    await bot.recv_until(lambda m: m["type"] == "legal")
    await bot.close()
    await seat_dropped(server, tid, 1)
    thief = await connect("thief")
    await thief.send({"type": "join", "table": tid})
    assert (await thief.recv_type("error"))["code"] == "table_full"
    await thief.send({"type": "join", "table": tid, "seat": 1})
    assert (await thief.recv_type("error"))["code"] == "seat_taken"
    back = await connect("bot", hello=False)
    await back.send({"type": "hello", "version": VERSION_STRING, "role": "bot", "name": "bot",
                     "resume": token})
    await back.recv_type("welcome")
    assert (await back.recv_type("joined"))["seat"] == 1


async def _hello_role(c: RawClient, role: str) -> dict[str, Any]:
    await c.send({"type": "hello", "version": VERSION_STRING, "role": role, "name": c.name})
    return await c.recv_type("welcome")


async def test_item6a_a_keyless_bot_seat_of_a_waiting_table_becomes_empty(
        server: Server, connect: Connect) -> None:
    ann = await connect("ann")
    await ann.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await ann.recv_type("joined"))["table"]
    bot = await connect("bot", role="bot")
    await bot.send({"type": "join", "table": tid})
    await bot.recv_type("joined")
    await bot.close()
    await seat_dropped(server, tid, 1)
    assert server.tables[tid].seats[1].kind == "empty"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_item6b_seat_keys_are_not_in_the_bots_command_lines(bot_server: Server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bot_server.port)
    c = RawClient(reader, writer, "host")
    await c.hello()
    await c.send({"type": "create_table", "settings": {"players": 3},
                  "bots": ["random", "random"]})
    tid = (await c.recv_type("joined"))["table"]
    await c.recv_until(lambda m: m["type"] == "game_started", 30)  # the bots joined with keys
    keys = [s.bot_key for s in bot_server.tables[tid].seats if s.bot_key]
    assert len(keys) == 2 and len(bot_server.bot_processes) == 2
    for proc in bot_server.bot_processes:
        argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        assert "bot" in argv and not any(k in argv for k in keys)
    await c.close()


# -- 7. one bad table does not stop the server ---------------------------------------------


def _played(seed: int, steps: int) -> list[tuple[int, dict[str, Any], list[int] | None]]:
    import random

    game = new_game(Settings(players=3), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        seat = to_act(game)[0]
        legal = legal_actions(game, seat)
        apply(game, legal[int(rng.random() * len(legal))], seat)
    assert game.log is not None
    return [(seat, a.to_dict(), None if o is None else list(o)) for seat, a, o in game.log]


def _store(storage: Storage, tid: str, settings: dict[str, Any] | None = None,
           rows: list[tuple[int, dict[str, Any], list[int] | None]] | None = None,
           seed: int = 11) -> None:
    seats = [SimpleNamespace(kind="human", name=f"p{q}", bot_kind=None) for q in range(3)]
    storage.save_table(SimpleNamespace(id=tid, name=tid, settings=Settings(players=3),
                                       seed=seed, creator="x", turn_timer=0.0,
                                       status="playing", seats=seats))
    storage.commit()
    if settings is not None:
        storage.db.execute("UPDATE tables SET settings = ? WHERE id = ?",
                           (json.dumps(settings), tid))
    for v, (seat, action, outcome) in enumerate(rows or [], start=1):
        storage.append_action(tid, v, seat, action, None if outcome is None else tuple(outcome))
    storage.save_token(f"tok-{tid}", tid, 0)
    storage.commit()


def _bad_database(db: Path) -> None:
    rows = _played(11, 60)
    storage = Storage(db)
    try:
        _store(storage, "good", rows=rows)
        illegal = list(rows)
        illegal[20] = (illegal[20][0], {"type": "build_city", "node": 0}, None)
        _store(storage, "illegal", rows=illegal)
        dice = list(rows)
        i = next(i for i, r in enumerate(dice) if r[1]["type"] == "roll_dice")
        dice[i] = (dice[i][0], dice[i][1], [9, 9])
        _store(storage, "dice", rows=dice)
        _store(storage, "snapshot", rows=rows)
        storage.db.execute("INSERT INTO snapshots (table_id, version, state) VALUES (?, ?, ?)",
                           ("snapshot", 30, b"\x85garbage"))
        _store(storage, "settings", settings={"players": 9}, rows=rows)
        _store(storage, "seats", rows=rows)
        storage.db.execute("UPDATE tables SET seats = '[1, 2]' WHERE id = 'seats'")
    finally:
        storage.close()


async def test_item7_a_table_that_does_not_restore_is_quarantined_and_the_rest_served(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "k.db"
    _bad_database(db)
    bad = {"illegal", "dice", "snapshot", "settings", "seats"}
    for attempt in range(2):
        caplog.clear()
        srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
        await srv.start()
        try:
            assert set(srv.tables) == {"good"}
            assert srv.tables["good"].version == 60
            assert set(srv.resumable) == {"tok-good"}
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            c = RawClient(reader, writer, "p0")
            await c.send({"type": "hello", "version": VERSION_STRING, "role": "player",
                          "name": "p0", "resume": "tok-good"})
            await c.recv_type("welcome")
            assert (await c.recv_type("joined"))["seat"] == 0
            await c.close()
            assert srv.storage is not None
            marked = dict(srv.storage.db.execute(
                "SELECT id, quarantined FROM tables WHERE quarantined IS NOT NULL"))
            assert set(marked) == bad
            errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
            if attempt == 0:  # logged once, when it is found...
                assert sorted(e.split("'")[1] for e in errors) == sorted(bad)
                assert not any(r.exc_info for r in caplog.records)
            else:  # ...and not again
                assert errors == []
        finally:
            await srv.close()


async def test_item7_the_port_opens_after_the_restore(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "k.db"
    _bad_database(db)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    during: list[bool] = []
    real = Storage.unfinished

    def probing(self: Storage) -> Any:
        with socket.socket() as probe:
            during.append(probe.connect_ex(("127.0.0.1", port)) == 0)
        return real(self)

    monkeypatch.setattr(Storage, "unfinished", probing)
    srv = Server("127.0.0.1", port, spawn_bots=False, db=db)
    await srv.start()
    try:
        assert during == [False]  # nobody could connect while the tables came back
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = RawClient(reader, writer, "after")
        await c.hello()
        await c.close()
    finally:
        await srv.close()


def test_item7_a_file_that_is_not_a_database_gets_a_clear_message(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("these are my notes, not a database\n" * 100)
    proc = subprocess.run([sys.executable, "-m", "kaitaku", "server", "--port", "0",
                           "--db", str(junk)], capture_output=True, text=True, timeout=30,
                          cwd=ROOT)
    assert proc.returncode == 2
    assert "is not a Kaitaku database" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert junk.read_text().startswith("these are my notes")


# -- 8. spectators -------------------------------------------------------------------------


async def test_item8_the_spectator_view_is_built_and_encoded_once_per_version(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    import server.table as table_module

    table = await raw_table(server, connect, players=3)
    watchers = []
    for i in range(12):
        w = await connect(f"w{i}")
        await w.send({"type": "spectate", "table": table.id})
        await w.recv_until(lambda m: m["type"] == "view")
        watchers.append(w)
    public_views: list[int] = []
    real = table_module.observe

    def counting(game: Any, seat: Any, legal: Any = None) -> Any:
        if seat is None:
            public_views.append(1)
        return real(game, seat, legal)

    monkeypatch.setattr(table_module, "observe", counting)
    start = table.version
    for _ in range(6):
        actor = table.actor()
        legal = await table.legal_for(actor)
        assert (await actor.act(legal[0]))["ok"]
    for w in watchers:
        await w.recv_until(lambda m: m["type"] == "view" and m["version"] == start + 6)
    assert len(public_views) == 6  # one per version, not one per spectator
    streams = {bytes(w.stream[-4000:]) for w in watchers}
    assert len(streams) == 1  # every spectator got the same bytes


async def test_item8_spectators_are_capped_per_table_and_per_address(
        server: Server, connect: Connect) -> None:
    server.limits = Limits(spectators_per_table=2, spectators_per_address=3)
    tables = []
    for i in range(2):
        c = await connect(f"host{i}")
        await c.send({"type": "create_table", "settings": {"players": 3}})
        tables.append((await c.recv_type("joined"))["table"])
    watchers = [await connect(f"w{i}") for i in range(4)]
    for w in watchers[:2]:
        await w.send({"type": "spectate", "table": tables[0]})
        assert (await w.recv_type("joined"))["seat"] is None
    await watchers[2].send({"type": "spectate", "table": tables[0]})
    assert (await watchers[2].recv_type("error"))["code"] == "too_many_spectators"
    await watchers[2].send({"type": "spectate", "table": tables[1]})
    await watchers[2].recv_type("joined")
    await watchers[3].send({"type": "spectate", "table": tables[1]})
    assert (await watchers[3].recv_type("error"))["code"] == "too_many_spectators"


# -- 9. long rejections -----------------------------------------------------------------------


async def test_item9_a_long_rejection_is_clipped_answered_and_not_a_traceback(
        server: Server, connect: Connect, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    bad = {"type": "build_road", "edge": "x" * 4000}
    first = await actor.act(bad, seq=50)
    assert first["ok"] is False and first["code"] == "malformed_action"
    assert 100 < len(first["message"]) <= MAX_TEXT
    again = await actor.act({"type": "end_turn"}, seq=50)  # a resend: the same answer
    assert again == first
    assert not any(r.exc_info for r in caplog.records)
    assert not any("Traceback" in r.getMessage() for r in caplog.records)
    legal = await table.legal_for(actor)
    actor.seq = 50
    assert (await actor.act(legal[0]))["ok"]  # the game goes on


async def test_item9_log_lines_caused_by_one_connection_are_rate_limited(
        server: Server, connect: Connect, caplog: pytest.LogCaptureFixture) -> None:
    from server.session import LOG_BURST

    caplog.set_level(logging.INFO)
    await connect("noisy")
    (sess,) = [s for s in server.sessions if s.name == "noisy"]
    caplog.clear()
    for i in range(1000):
        sess.log(logging.WARNING, "line %d", i)
    lines = [r for r in caplog.records if r.name == "kaitaku.session"]
    assert len(lines) <= LOG_BURST + 1
    await asyncio.sleep(1.0)
    sess.log(logging.WARNING, "later")
    assert "not logged" in caplog.records[-1].getMessage()
    # A client that opens and closes tables as fast as it may fills no log either.
    churn = await connect("churner")
    caplog.clear()
    for _ in range(150):
        await churn.send({"type": "create_table", "settings": {"players": 3}})
        await churn.recv_type("joined")
        await churn.send({"type": "leave"})
        await churn.recv_type("left")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) <= LOG_BURST + 10, lines[-5:]


# -- 10. small holes -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [["list_tables"], {"a": 1}, 7, None])
async def test_item10_a_type_that_is_not_a_string_is_bad_message(
        server: Server, connect: Connect, kind: Any) -> None:
    c = await connect("odd")
    await c.send({"type": kind})
    msgs = await c.closed()
    assert [m["code"] for m in msgs if m["type"] == "error"] == ["bad_message"]
    assert c.eof


@pytest.mark.parametrize(("settings", "ok"), [
    ({"turn_cap": 2**64 - 1}, False), ({"turn_cap": 2**53}, False), ({"turn_cap": 10001}, False),
    ({"turn_cap": -1}, False), ({"turn_cap": 10000}, True), ({"vp_target": 21}, False),
    ({"vp_target": 20}, True), ({"players": 7}, False), ({"players": 6}, True),
    ({"players": True}, False),
    ({"balanced_map": 1}, False), ({"strict_phases": True}, True),
])
async def test_item10_every_setting_is_bounded(server: Server, connect: Connect,
                                               settings: dict[str, Any], ok: bool) -> None:
    c = await connect("maker")
    await c.send({"type": "create_table", "settings": {"players": 3, **settings}})
    msg = await c.recv_until(lambda m: m["type"] in ("joined", "error"))
    if ok:
        assert msg["type"] == "joined"
        assert all(abs(v) <= 2**53 for v in msg["settings"].values())
    else:
        assert msg["type"] == "error" and msg["code"] == "bad_settings", msg


async def test_item10_a_started_frame_must_be_finished_in_time(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.FRAME_DEADLINE", 0.3)
    parked = await connect("parked")
    await parked.send_raw(struct.pack(">I", 16_000) + b"\x00" * 1000)
    trickle = await connect("trickle")
    await trickle.send_raw(struct.pack(">I", 16_000))
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    async def drip() -> None:
        with contextlib.suppress(Exception):
            for _ in range(40):  # a byte every 0.05 s does not keep the frame alive
                await asyncio.sleep(0.05)
                await trickle.send_raw(b"\x00")

    dripping = asyncio.ensure_future(drip())
    for c in (parked, trickle):
        msgs = await c.closed()
        assert [m["code"] for m in msgs if m["type"] == "error"] == ["frame_timeout"]
        assert c.eof
    assert loop.time() - t0 < 1.5
    dripping.cancel()
    # A client frame may not be large at all (what it sends is small).
    big = await connect("big")
    await big.send_raw(struct.pack(">I", MAX_CLIENT_FRAME + 1))
    msgs = await big.closed()
    assert [m["code"] for m in msgs if m["type"] == "error"] == ["too_large"]
    # Whole frames sent slowly, one after another, are fine.
    slow = await connect("slow")
    for _ in range(4):
        await asyncio.sleep(0.2)
        await slow.send({"type": "ping", "nonce": 1})
        assert (await slow.recv_type("pong"))["nonce"] == 1


async def test_item10_tokens_of_finished_and_forgotten_tables_are_dropped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.app.FINISHED_TTL", 0.2)
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=tmp_path / "k.db")
    await srv.start()
    try:
        game = await play_bot_game(await start_bot_game(srv, {"players": 3},
                                                        ["random"] * 3, 3))
        assert all(o.finished for o in game.outcomes)
        assert srv.storage is not None
        await asyncio.sleep(0.05)
        assert srv.storage.db.execute("SELECT COUNT(*) FROM tokens").fetchone() == (0,)
        for _ in range(100):
            if not srv.tables:
                break
            await asyncio.sleep(0.02)
        assert srv.tables == {} and srv.resumable == {}
    finally:
        await srv.close()


def _huge_discard(game: Any) -> None:
    game.phase = Phase.DISCARD
    game.hands[0] = [19, 19, 19, 19, 19]  # every card of the bank: 95 cards, 47 to discard
    game.discard_owed = [47, 0, 0]


async def test_item10_a_discard_from_a_95_card_hand_is_never_enumerated(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    import protocol.rules.engine as engine

    real = engine._discards

    def guarded(hand: tuple[int, ...], k: int) -> Any:
        assert sum(hand) < 60, "the engine was asked to list every discard of a huge hand"
        return real(hand, k)

    monkeypatch.setattr(engine, "_discards", guarded)
    table = await raw_table(server, connect, players=3)
    _huge_discard(table.game())
    seat0 = table.clients[0]
    await seat0.send({"type": "resync"})
    legal = await seat0.recv_type("legal")
    assert legal["truncated"] is True and legal["discard"] == 47
    assert len(legal["actions"]) == MAX_LEGAL
    cards = [tuple(a["cards"]) for a in legal["actions"]]
    assert len(set(cards)) == MAX_LEGAL
    assert all(sum(c) == 47 and all(0 <= x <= 19 for x in c) for c in cards)
    assert cards == sorted(cards)  # the engine's (lexicographic) order
    assert (await seat0.act({"type": "discard", "cards": list(cards[500])}))["ok"]
    await seat0.send({"type": "ping", "nonce": 3})
    assert (await seat0.recv_type("pong"))["nonce"] == 3


def test_item10_the_bounded_listing_is_the_engines_even_spread() -> None:
    """For a hand the engine can still list (41 cards), the counted spread picks
    exactly the compositions the full list's even spread would."""
    from protocol.rules.engine import _discards

    s = new_game(Settings(players=3), 1)
    s.phase = Phase.DISCARD
    s.hands[0] = [9, 8, 8, 8, 8]
    s.discard_owed = [20, 0, 0]
    full = list(_discards(tuple(s.hands[0]), 20))
    step = len(full) / MAX_LEGAL
    spread = [full[int(i * step)] for i in range(MAX_LEGAL)]
    listed, cut = bounded_legal(s, 0)
    assert cut and listed == spread
    assert legal_message(s, 0, 1)["actions"] == [a.to_dict() for a in spread]
    s.hands[0] = [3, 2, 2, 1, 0]  # a small hand: the engine's own list
    s.discard_owed = [4, 0, 0]
    assert bounded_legal(s, 0) == (legal_actions(s, 0), False)


async def test_item10_a_default_action_from_a_huge_hand_is_bounded(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn timer running out on a 95-card discard plays one of the bounded
    choices (the engine never lists them all)."""
    import protocol.rules.engine as engine

    real = engine._discards
    monkeypatch.setattr(engine, "_discards",
                        lambda hand, k: real(hand, k) if sum(hand) < 60 else pytest.fail(
                            "listed every discard of a huge hand"))
    table = await raw_table(server, connect, players=3)
    _huge_discard(table.game())
    t = server.tables[table.id]
    t.turn_timer = 0.05
    t._schedule()  # seat 0's decision now has a deadline
    t.submit("resync", (next(s for s in server.sessions if s.name == "seat0"), 0))
    err = await table.clients[0].recv_until(
        lambda m: m["type"] == "error" and m["code"] == "acted_for_you")
    assert "discard" in err["message"]
    assert sum(table.game().hands[0]) == 48
