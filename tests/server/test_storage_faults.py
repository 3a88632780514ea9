"""Storage that fails, and crashes: fail-stop and exactly-once.

Real faults only: SQLite's own "database or disk is full" (``max_page_count``
on the writer's connection), a file size limit (RLIMIT_FSIZE) on a server
process, a full tmpfs (when this machine lets the test mount one); real
``kill -9`` of a server process and a restart on a healthy disk.
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
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol.rules import GameLog, replay
from protocol.wire import VERSION_STRING
from server.app import Server
from server.storage import Storage

from .conftest import RawClient, raw_table
from .test_durability import AckClient, _replay_stored

ROOT = Path(__file__).resolve().parents[2]


def _start(db: Path, *extra: str, preexec: Any = None) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--log-level", "warning",
         "--db", str(db), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=preexec)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"listening on \S+:(\d+)", line)
    assert m, line + (proc.stderr.read() if proc.stderr else "")
    return proc, int(m.group(1))


def _stop(proc: subprocess.Popen[str]) -> str:
    """Kill the server (if it runs) and return what it wrote to stderr."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)
    return proc.stderr.read() if proc.stderr else ""


def _rows(db: Path, table: str) -> int:
    con = sqlite3.connect(str(db))
    try:
        (n,) = con.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                           (table,)).fetchone()
        return int(n)
    finally:
        con.close()


class Watching(AckClient):
    """An AckClient that also keeps the storage errors and paused tables it saw."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.storage_errors = 0
        self.refused = 0
        self.paused: list[str | None] = []

    async def recv(self) -> dict[str, Any]:
        msg = await super().recv()
        if msg["type"] == "error" and msg["code"] == "storage_unavailable":
            self.storage_errors += 1
        elif msg["type"] == "result" and msg.get("code") == "storage_unavailable":
            self.refused += 1
        elif msg["type"] == "table":
            self.paused.append(msg.get("paused"))
        return msg


async def _watchers(port: int, players: int, resume: list[str] | None = None
                    ) -> list[Watching]:
    from bots import RandomBot

    clients: list[Watching] = []
    for q in range(players):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = Watching(RandomBot(q), reader, writer, f"bot{q}")
        await c.handshake(resume[q] if resume else None)
        clients.append(c)
    if resume is None:
        clients[0].send({"type": "create_table", "settings": {"players": players}})
        while True:
            msg = await clients[0].recv()
            if msg["type"] == "joined":
                clients[0].outcome.seat = msg["seat"]
                table = msg["table"]
                break
        for c in clients[1:]:
            c.send({"type": "join", "table": table})
    return clients


async def _until(pred: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


# -- 2. fail-stop ------------------------------------------------------------------------


async def test_item2_a_full_database_acknowledges_nothing_and_the_table_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own full-database error, in-process: the action whose row does
    not commit is taken back and refused; every seat is told; the table is
    paused (no timers, no actions) and goes on by itself once the database
    can grow again; acknowledged actions and stored rows match throughout."""
    monkeypatch.setattr("server.app.PROBE_FIRST", 0.05)
    monkeypatch.setattr("server.app.PROBE_MAX", 0.1)
    db = tmp_path / "k.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    clients: list[RawClient] = []

    async def connect(name: str = "raw", *, hello: bool = True, role: str = "player"
                      ) -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        c = RawClient(reader, writer, name)
        clients.append(c)
        if hello:
            await c.hello(role)
        return c

    try:
        table = await raw_table(srv, connect, players=3)
        assert srv.storage is not None
        (pages,) = srv.storage.db.execute("PRAGMA page_count").fetchone()
        srv.storage.db.execute(f"PRAGMA max_page_count = {pages}")  # the "disk" is full
        refused: dict[str, Any] | None = None
        for _ in range(500):
            actor = table.actor()
            legal = await table.legal_for(actor)
            before = table.game().to_dict(include_log=False)
            version = table.version
            r = await actor.act(legal[-1] if legal[-1]["type"] != "end_turn" else legal[0])
            if not r["ok"]:
                refused = r
                break
            assert _rows(db, table.id) == table.version  # acknowledged = durable
        assert refused is not None and refused["code"] == "storage_unavailable"
        assert table.version == version  # not applied: the state is as it was
        assert table.game().to_dict(include_log=False) == before
        assert _rows(db, table.id) == version
        for c in table.clients:  # every seat is told, once, and sees the table paused
            if not any(m.get("paused") == "storage" for m in c.received):
                await c.recv_until(lambda m: m.get("paused") == "storage")
            told = [m for m in c.received if m["type"] == "error"]
            assert [m["code"] for m in told] == ["storage_unavailable"]
        again = await actor.act(legal[0], seq=refused["seq"])  # the seq was not used up
        assert again["code"] == "storage_unavailable"
        srv.storage.db.execute("PRAGMA max_page_count = 1073741823")  # room again
        for c in table.clients:
            await c.recv_until(lambda m: m["type"] == "table" and "paused" not in m)
        await actor.recv_until(lambda m: m["type"] == "legal" and m["version"] == version)
        ok = await actor.act(legal[0], seq=refused["seq"])
        assert ok["ok"] and table.version == version + 1
        assert _rows(db, table.id) == table.version
    finally:
        for c in clients:
            await c.close()
        await srv.close()
    storage = Storage(db)
    try:
        (restored,) = storage.unfinished()  # the log replays, up to the last saved action
        assert restored.version == version + 1 and storage.quarantined == []
    finally:
        storage.close()


def _no_file_limit() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs prlimit (Linux)")
async def test_item2_a_file_size_limit_then_kill_9_loses_no_acknowledged_action(
        tmp_path: Path) -> None:
    """A server process whose file size is capped (RLIMIT_FSIZE) mid-game goes
    on acknowledging nothing it could not save; after kill -9 and a restart on
    a healthy disk every acknowledged action is there, and the game finishes."""
    db = tmp_path / "k.db"
    proc, port = _start(db, preexec=_no_file_limit)
    errors = ""
    try:
        clients = await _watchers(port, 3)
        plays = [asyncio.ensure_future(c.play()) for c in clients]
        await _until(lambda: max(c.acked_version for c in clients) >= 40, 30, "40 actions")
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (4096, 4096))
        await _until(lambda: all(c.storage_errors for c in clients), 10, "storage errors")
        await asyncio.sleep(1.0)  # the bots keep trying while the disk fails
        acked = max(c.acked_version for c in clients)
        assert not any(p.done() for p in plays)
        proc.kill()
        errors = _stop(proc)
        for p in plays:
            p.cancel()
        await asyncio.gather(*plays, return_exceptions=True)
        table = next(c.outcome.table for c in clients if c.outcome.table)
        stored = _rows(db, table)
        assert stored >= acked, f"{acked - stored} acknowledged actions lost"
        assert "Traceback" not in errors
        assert errors.count("storage failing") == 1
        proc, port = _start(db)  # a healthy disk
        again = await _watchers(port, 3, resume=[c.resume_token for c in clients])
        outcomes = await asyncio.wait_for(asyncio.gather(*(c.play() for c in again)), 60)
        assert all(o.finished for o in outcomes)
    finally:
        _stop(proc)
    game = _replay_stored(db)
    assert game.winner >= 0 and replay(GameLog.of(game)) == game


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


async def test_item2_a_full_tmpfs_pauses_the_table_until_space_is_freed(
        tmp_path: Path) -> None:
    """A real full file system: a small tmpfs is filled up under a running
    server; its table pauses (every seat is told), nothing unsaved is
    acknowledged, and once space is freed the game goes on by itself."""
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "64m"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    proc: subprocess.Popen[str] | None = None
    try:
        db = disk / "k.db"
        proc, port = _start(db)
        clients = await _watchers(port, 3)
        plays = [asyncio.ensure_future(c.play()) for c in clients]
        await _until(lambda: max(c.acked_version for c in clients) >= 30, 30, "30 actions")
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            with contextlib.suppress(OSError):  # until the file system is full
                while os.write(fd, b"\0" * 65536):
                    pass
        finally:
            os.close(fd)
        await _until(lambda: all(c.storage_errors for c in clients), 10, "storage errors")
        table = next(c.outcome.table for c in clients if c.outcome.table)
        acked = max(c.acked_version for c in clients)
        assert _rows(db, table) >= acked
        assert all("storage" in c.paused for c in clients)
        filler.unlink()  # space again: the table goes on by itself
        outcomes = await asyncio.wait_for(asyncio.gather(*plays), 60)
        assert all(o.finished for o in outcomes)
        assert all(c.paused[-1] is None for c in clients)
        errors = _stop(proc)
        assert "Traceback" not in errors and "storage failing" in errors
        assert _rows(db, table) >= max(c.acked_version for c in clients)
        game = _replay_stored(db)
        assert game.winner >= 0
    finally:
        if proc is not None:
            _stop(proc)
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_item2_snapshot_and_row_are_one_transaction(tmp_path: Path) -> None:
    """A snapshot is queued with its action's row: one commit writes both or
    neither (a failed snapshot can never leave an applied action unanswered)."""
    from protocol.rules import Settings, new_game
    from server.storage import StorageError

    storage = Storage(tmp_path / "k.db")
    try:
        for v in range(1, 201):  # more than the free room of the pages there are
            storage.append_action("t", v, 0, {"type": "roll_dice"}, (3, 4), seq=v)
        storage.save_snapshot("t", 200, new_game(Settings(players=3), 1))
        (pages,) = storage.db.execute("PRAGMA page_count").fetchone()
        storage.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StorageError, match="full"):
            storage.commit()
        assert storage.db.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
        assert storage.db.execute("SELECT COUNT(*) FROM snapshots").fetchone() == (0,)
        assert storage.discard_actions() == 201 and storage.pending == 0
    finally:
        storage.db.execute("PRAGMA max_page_count = 1073741823")
        storage.close()


# -- 3. exactly once across a crash ---------------------------------------------------------


async def _raw(port: int, name: str, resume: str | None = None) -> RawClient:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    c = RawClient(reader, writer, name)
    hello: dict[str, Any] = {"type": "hello", "version": VERSION_STRING, "role": "player",
                             "name": name}
    if resume is not None:
        hello["resume"] = resume
    await c.send(hello)
    await c.recv_type("welcome")
    return c


def _pick(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Hoard cards: roll, end the turn, otherwise the first choice."""
    for kind in ("roll_dice", "end_turn"):
        for a in legal:
            if a["type"] == kind:
                return a
    return legal[0]


async def test_item3_a_resent_action_is_not_applied_twice_after_kill_9(
        tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    proc, port = _start(db)
    try:
        clients = [await _raw(port, f"p{q}") for q in range(3)]
        await clients[0].send({"type": "create_table", "settings": {"players": 3}})
        tid = (await clients[0].recv_type("joined"))["table"]
        for c in clients[1:]:
            await c.send({"type": "join", "table": tid})
            await c.recv_type("joined")
        version = 0
        target: tuple[RawClient, dict[str, Any]] | None = None
        for _ in range(3000):
            for c in clients:
                await c.recv_until(lambda m, v=version: m["type"] == "view"
                                   and m["version"] == v)
            actor = next(c for c in clients if c.legals.get(version))
            legal = actor.legals[version]
            you = actor.views[version]["you"]
            trades = [a for a in legal if a["type"] == "maritime_trade"
                      and you["hand"][a["give"]] >= 2 * you["ratios"][a["give"]]]
            if trades:
                target = (actor, trades[0])
                break
            assert (await actor.act(_pick(legal)))["ok"]
            version += 1
        assert target is not None, "no seat could trade twice"
        actor, trade = target
        seat = clients.index(actor)
        ok = await actor.act(trade)
        assert ok["ok"]
        seq = ok["seq"]
        view = await actor.recv_until(lambda m: m["type"] == "view"
                                      and m["version"] == version + 1)
        hand = view["view"]["you"]["hand"]
        tokens = [next(m for m in c.received if m["type"] == "welcome")["resume_token"]
                  for c in clients]
        proc.kill()
        _stop(proc)
        proc, port = _start(db)
        back = await _raw(port, f"p{seat}", resume=tokens[seat])
        joined = await back.recv_type("joined")
        assert joined["last_seq"] == seq
        await back.recv_type("legal")
        again = await back.act(trade, seq=seq)  # the client resends after the crash
        # answered as before the crash, with the version the action made
        assert again == {"type": "result", "seq": seq, "ok": True, "version": version + 1}
        await back.send({"type": "resync"})
        now = await back.recv_type("view")
        assert now["version"] == version + 1 and now["view"]["you"]["hand"] == hand
        _stop(proc)
        con = sqlite3.connect(str(db))
        try:
            assert con.execute("SELECT COUNT(*) FROM actions WHERE table_id = ? AND seq = ? "
                               "AND seat = ?", (tid, seq, seat)).fetchone() == (1,)
            assert con.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                               (tid,)).fetchone() == (version + 1,)
        finally:
            con.close()
    finally:
        _stop(proc)


_OLD_SCHEMA = """
CREATE TABLE tables (id TEXT PRIMARY KEY, name TEXT NOT NULL, settings TEXT NOT NULL,
    seed INTEGER NOT NULL, creator TEXT NOT NULL, turn_timer REAL NOT NULL,
    status TEXT NOT NULL, seats TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE actions (table_id TEXT NOT NULL, version INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, outcome TEXT, PRIMARY KEY (table_id, version));
CREATE TABLE snapshots (table_id TEXT PRIMARY KEY, version INTEGER NOT NULL,
    state BLOB NOT NULL);
CREATE TABLE tokens (token TEXT PRIMARY KEY, table_id TEXT NOT NULL, seat INTEGER NOT NULL);
"""
"""The schema of the first release (no sequence numbers, no quarantine)."""


async def test_item3_a_database_of_the_old_schema_is_migrated_in_place(
        tmp_path: Path) -> None:
    from .test_hostile import _played

    db = tmp_path / "old.db"
    con = sqlite3.connect(str(db))
    con.executescript(_OLD_SCHEMA)
    seats = json.dumps([{"kind": "human", "name": f"p{q}", "bot_kind": None}
                        for q in range(3)])
    con.execute("INSERT INTO tables VALUES ('old', 'old', ?, 11, 'x', 0, 'playing', ?, 0)",
                (json.dumps({"players": 3}), seats))
    rows = _played(11, 40)
    con.executemany("INSERT INTO actions VALUES ('old', ?, ?, ?, ?)",
                    [(v, seat, json.dumps(a), None if o is None else json.dumps(o))
                     for v, (seat, a, o) in enumerate(rows, start=1)])
    con.execute("INSERT INTO tokens VALUES ('tok', 'old', 0)")
    con.commit()
    con.close()
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    try:
        assert srv.tables["old"].version == 40
        assert srv.tables["old"].seats[0].last_seq == -1  # no seq was stored then
        c = await _raw(srv.port, "p0", resume="tok")
        joined = await c.recv_type("joined")
        assert joined["seat"] == 0 and "last_seq" not in joined
        await c.close()
        assert srv.storage is not None
        columns = {r[1] for r in srv.storage.db.execute("PRAGMA table_info(actions)")}
        assert "seq" in columns
    finally:
        await srv.close()
