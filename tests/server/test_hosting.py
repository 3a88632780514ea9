"""Running the server for months, as a host does: ``kaitaku server`` as a real
process drained with ``kaitaku admin drain`` while a game runs (the game
ends normally, nothing is lost, the process exits 0, its log is JSON lines);
``kaitaku server backup`` under load restores to a server whose tables match;
the systemd unit passes ``systemd-analyze verify``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bots import RandomBot
from bots.client import run_bot
from server.app import Limits, Server

from .conftest import RawClient, play_bot_game, start_bot_game

ROOT = Path(__file__).resolve().parents[2]
try:
    import prometheus_client  # noqa: F401

    METRICS = True
except ImportError:
    METRICS = False


class PacedBot(RandomBot):
    """A random bot that takes a few ms a decision (a game of it lasts seconds,
    long enough to drain the server in the middle of it); ``playing`` is set
    at its first decision."""

    playing: asyncio.Event | None = None

    def act(self, view: Any, legal: Any) -> Any:
        if PacedBot.playing is not None:
            PacedBot.playing.set()
        time.sleep(0.006)
        return super().act(view, legal)


def kaitaku(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaitaku", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


async def test_drain_a_real_server_with_a_game_running(tmp_path: Path) -> None:
    db, sock = tmp_path / "s.db", tmp_path / "admin.sock"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kaitaku", "server", "--port", "0", "--db", str(db),
        "--no-advertise", "--admin-socket", str(sock), "--log-format", "json",
        *(["--metrics", "127.0.0.1:0"] if METRICS else []),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        m = re.search(r"listening on \S+:(\d+)", (await proc.stdout.readline()).decode())
        assert m
        port = int(m.group(1))
        metrics_port = None
        if METRICS:
            line = (await proc.stdout.readline()).decode()
            found = re.search(r"metrics: http://127.0.0.1:(\d+)/metrics", line)
            assert found, line
            metrics_port = int(found.group(1))
        settings = {"players": 3, "vp_target": 8}
        PacedBot.playing = asyncio.Event()
        first = asyncio.ensure_future(run_bot(PacedBot(1), "127.0.0.1", port, name="b0",
                                              create={"settings": settings}))
        tables: list[dict[str, Any]] = []
        while not tables:
            await asyncio.sleep(0.05)
            if first.done():
                first.result()  # it failed: say why
            out = await asyncio.to_thread(kaitaku, "admin", "--socket", str(sock), "--json",
                                          "tables")
            assert out.returncode == 0, out.stderr
            tables = json.loads(out.stdout)
        tid = tables[0]["id"]
        others = [asyncio.ensure_future(run_bot(PacedBot(i), "127.0.0.1", port,
                                                name=f"b{i}", table=tid)) for i in (2, 3)]
        await asyncio.wait_for(PacedBot.playing.wait(), 30)
        drain = await asyncio.to_thread(kaitaku, "admin", "--socket", str(sock), "drain",
                                        "--deadline", "120")
        assert drain.returncode == 0 and "playing: 1" in drain.stdout, drain
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        late = RawClient(reader, writer, "late")  # no new table while it drains
        await late.hello()
        await late.send({"type": "create_table", "settings": {"players": 3}})
        assert (await late.recv_type("error"))["code"] == "draining"
        if metrics_port is not None:  # the command's metrics port, parsed by the library
            from .test_metrics import until_scraped, value

            samples = await until_scraped(
                metrics_port, lambda s: value(s, "kaitaku_draining") == 1)
            assert value(samples, "kaitaku_refusals_total", cap="draining") == 1
            assert value(samples, "kaitaku_tables", state="playing") == 1
            assert value(samples, "kaitaku_actions_total", via="player") > 0
        outcomes = await asyncio.wait_for(asyncio.gather(first, *others), 120)
        assert all(o.finished and o.rejected == 0 for o in outcomes)
        assert len({(o.winner, tuple(o.scores)) for o in outcomes}) == 1
        assert await asyncio.wait_for(proc.wait(), 30) == 0  # it exits by itself, cleanly
        err = (await proc.stderr.read()).decode()
        await late.close()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    lines = [json.loads(line) for line in err.splitlines()]  # every line is one object
    assert all({"ts", "level", "logger", "msg"} <= set(rec) for rec in lines)
    assert any("drained (the last game ended)" in rec["msg"] for rec in lines)
    with sqlite3.connect(db) as check:  # nothing acknowledged is missing
        (status,) = check.execute("SELECT status FROM tables WHERE id = ?", (tid,)).fetchone()
        (rows,) = check.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                                (tid,)).fetchone()
        (players,) = check.execute("SELECT COUNT(*) FROM actions WHERE table_id = ? AND seq "
                                   "IS NOT NULL", (tid,)).fetchone()
    assert status == "finished"
    assert players == sum(o.actions for o in outcomes) and rows >= players
    assert not sock.exists()  # the socket goes with the server


async def test_a_backup_under_load_restores_to_matching_tables(tmp_path: Path) -> None:
    """``kaitaku server backup`` while six games are being played: the copy is
    one consistent state (each table's actions a prefix of the live log), and
    a server started on it restores every table of it at that version."""
    db, out = tmp_path / "live.db", tmp_path / "backup.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db,
                 limits=Limits(tables_per_address=50))
    await srv.start()
    try:
        games = [await start_bot_game(srv, {"players": 3}, ["random"] * 3, seed=s)
                 for s in range(6)]
        running = [asyncio.ensure_future(play_bot_game(g, 120)) for g in games]
        while sum(t.version for t in srv.tables.values()) < 300:  # well under way
            await asyncio.sleep(0.02)
        done = await asyncio.to_thread(kaitaku, "server", "backup", "--db", str(db), str(out))
        assert done.returncode == 0, done.stderr
        assert "backed up" in done.stdout
        again = await asyncio.to_thread(kaitaku, "server", "backup", "--db", str(db), str(out))
        assert again.returncode == 1 and "exists" in again.stderr  # never overwritten
        await asyncio.gather(*running)
    finally:
        await srv.close()
    with sqlite3.connect(out) as copy, sqlite3.connect(db) as live:
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        in_copy = dict(copy.execute("SELECT id, status FROM tables").fetchall())
        versions = dict(copy.execute(
            "SELECT table_id, MAX(version) FROM actions GROUP BY table_id").fetchall())
        assert len(in_copy) == 6 and "playing" in in_copy.values()
        for tid in in_copy:  # a prefix of the live log: one consistent moment
            rows = copy.execute("SELECT version, seat, action, outcome FROM actions WHERE "
                                "table_id = ? ORDER BY version", (tid,)).fetchall()
            assert rows == live.execute(
                "SELECT version, seat, action, outcome FROM actions WHERE table_id = ? AND "
                "version <= ? ORDER BY version", (tid, versions.get(tid, 0))).fetchall()
    restored = Server("127.0.0.1", 0, spawn_bots=False, db=out)
    await restored.start()
    try:
        playing = {tid for tid, status in in_copy.items() if status == "playing"}
        assert set(restored.tables) == playing
        for tid in playing:
            assert restored.tables[tid].version == versions[tid]
            assert restored.tables[tid].game is not None
    finally:
        await restored.close()


def test_backup_errors_say_why(tmp_path: Path) -> None:
    out = kaitaku("server", "backup", "--db", str(tmp_path / "none.db"), str(tmp_path / "o"))
    assert out.returncode == 1 and "no database" in out.stderr
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    out = kaitaku("server", "backup", "--db", str(tmp_path / "junk.db"), str(tmp_path / "o"))
    assert out.returncode == 1 and "backup" in out.stderr and not (tmp_path / "o").exists()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    """The unit as shipped, with its ExecStart pointed at this checkout's
    ``kaitaku`` (verify checks the program exists)."""
    unit = (ROOT / "contrib" / "kaitaku.service").read_text()
    exe = Path(sys.executable).with_name("kaitaku")
    if not exe.exists():
        pytest.skip("no kaitaku script next to this Python")
    assert "/opt/kaitaku/venv/bin/kaitaku" in unit
    local = tmp_path / "kaitaku.service"
    local.write_text(unit.replace("/opt/kaitaku/venv/bin/kaitaku", str(exe)))
    out = subprocess.run(["systemd-analyze", "verify", str(local)], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "SYSTEMD_LOG_LEVEL": "info"})
    problems = [line for line in (out.stdout + out.stderr).splitlines()
                if "kaitaku.service" in line]
    assert out.returncode == 0 and problems == [], out.stdout + out.stderr
