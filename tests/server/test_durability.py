"""Durable tables: the SQLite log, restore by replay, and kill -9 of the server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bots import RandomBot
from bots.client import BotClient
from protocol.rules import GameLog, replay
from server.app import Server
from server.storage import Storage

from .conftest import TIMEOUT


class AckClient(BotClient):
    """A bot client that remembers the table version of its last acknowledged action."""

    acked_version = 0
    version = 0

    async def recv(self) -> dict[str, Any]:
        msg = await super().recv()
        if msg["type"] in ("events", "view", "legal"):
            self.version = max(self.version, msg["version"])
        if msg["type"] == "result" and msg["ok"]:
            # The result is sent before the events of its own action: the action's
            # version is the one after the last version this client has seen.
            self.acked_version = max(self.acked_version, self.version + 1)
        return msg


async def _clients(port: int, players: int, resume: list[str] | None = None,
                   table: str | None = None) -> list[AckClient]:
    clients = []
    for q in range(players):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        c = AckClient(RandomBot(q), reader, writer, f"bot{q}")
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


async def test_a_restarted_server_restores_the_game_and_it_finishes(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    clients = await _clients(srv.port, 3)
    plays = [asyncio.ensure_future(c.play()) for c in clients]
    (table,) = srv.tables.values()
    while table.version < 150:
        await asyncio.sleep(0.01)
    before = table.version
    for p in plays:
        p.cancel()
    await asyncio.gather(*plays, return_exceptions=True)
    assert table.game is not None
    expected = table.game.to_dict(include_log=False)
    tokens = [c.resume_token for c in clients]
    await srv.close()

    srv2 = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv2.start()
    try:
        restored = srv2.tables[table.id]
        assert restored.status == "playing"
        assert restored.version >= before
        assert restored.game is not None
        if restored.version == before:
            assert restored.game.to_dict(include_log=False) == expected
        # The players come back with their tokens and finish the game.
        again = await _clients(srv2.port, 3, resume=tokens)
        outcomes = await asyncio.wait_for(asyncio.gather(*(c.play() for c in again)), 60)
        assert all(o.finished for o in outcomes)
        assert restored.game.winner is not None
        assert restored.game.total_vp(restored.game.winner) >= 10
        # The log in the database replays to the same final state.
        assert srv2.storage is not None
        rows = srv2.storage.db.execute(
            "SELECT COUNT(*) FROM actions WHERE table_id = ?", (table.id,)).fetchone()
        assert rows[0] == restored.version
    finally:
        await srv2.close()


def _start_server(db: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--log-level", "warning",
         "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"listening on \S+:(\d+)", line)
    assert m, line
    return proc, int(m.group(1))


async def _kill_and_check(db: Path, kills: int, players: int = 4) -> tuple[int, int, int]:
    """Play one game, killing the server (SIGKILL) up to ``kills`` times while it
    runs and restarting it; return (actions stored, acknowledged actions lost,
    kills done)."""
    proc, port = _start_server(db)
    clients = await _clients(port, players)
    table_id: str | None = None
    lost = done_kills = 0
    stored = 0
    try:
        while True:
            plays = [asyncio.ensure_future(c.play()) for c in clients]
            killed = False
            if done_kills < kills:
                await asyncio.wait(plays, timeout=0.1 + 0.05 * (done_kills % 4))
                if not any(p.done() for p in plays):
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait(10)
                    killed = True
                    done_kills += 1
            done = await asyncio.wait_for(asyncio.gather(*plays, return_exceptions=True),
                                          60)
            acked = max(c.acked_version for c in clients)
            table_id = table_id or next(c.outcome.table for c in clients if c.outcome.table)
            storage = Storage(db)
            try:
                (row,) = storage.db.execute(
                    "SELECT COUNT(*) FROM actions WHERE table_id = ?", (table_id,)).fetchall()
            finally:
                storage.close()
            stored = row[0]
            lost += max(0, acked - stored)
            if not killed:
                assert all(not isinstance(d, BaseException) and d.finished for d in done)
                return stored, lost, done_kills
            tokens = [c.resume_token for c in clients]
            proc, port = _start_server(db)
            clients = await _clients(port, players, resume=tokens)
    finally:
        with contextlib.suppress(Exception):
            proc.kill()
            proc.wait(5)


def _replay_stored(db: Path) -> Any:
    """Rebuild the stored game from the database alone (settings, seed, actions)."""
    import json

    from protocol.rules import Settings, action_from_dict, apply, new_game

    storage = Storage(db)
    try:
        ((tid, settings, seed),) = storage.db.execute("SELECT id, settings, seed FROM tables")
        game = new_game(Settings.from_dict(json.loads(settings)), seed)
        for seat, action, outcome in storage.db.execute(
                "SELECT seat, action, outcome FROM actions WHERE table_id = ? ORDER BY version",
                (tid,)):
            apply(game, action_from_dict(json.loads(action)), seat,
                  None if outcome is None else tuple(json.loads(outcome)))
        assert storage.unfinished() == []  # the finished table is not restored again
        return game
    finally:
        storage.close()


async def test_kill_9_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    actions, lost, kills = await asyncio.wait_for(_kill_and_check(db, 2), TIMEOUT * 20)
    assert lost == 0
    assert kills >= 1
    game = _replay_stored(db)
    assert game.winner is not None and game.total_vp(game.winner) >= 10
    assert replay(GameLog.of(game)) == game
    assert len(game.log) == actions


@pytest.mark.slow
async def test_kill_9_soak_100_kills(tmp_path: Path) -> None:
    """Games with up to ten kills each until 100 kills: no acknowledged action lost."""
    total_actions = total_lost = total_kills = games = 0
    while total_kills < 100:
        db = tmp_path / f"soak{games}.db"
        actions, lost, kills = await asyncio.wait_for(
            _kill_and_check(db, min(10, 100 - total_kills)), 600)
        total_actions += actions
        total_lost += lost
        total_kills += kills
        games += 1
        game = _replay_stored(db)
        assert game.winner is not None
    print(f"soak: {total_kills} kills over {games} games, {total_actions} actions, "
          f"lost {total_lost}")
    assert total_lost == 0


def test_group_commit_queues_rows_until_commit(tmp_path: Path) -> None:
    """Action rows and every other write are queued and written, in order, in
    one transaction."""
    storage = Storage(tmp_path / "k.db")
    reader = Storage(tmp_path / "k.db")  # another connection sees committed rows only
    try:
        storage.append_action("t1", 1, 0, {"type": "roll"}, (3, 4))
        storage.append_action("t1", 2, 0, {"type": "end_turn"}, None)
        assert storage.pending == 2
        assert reader.db.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
        storage.commit()
        assert storage.pending == 0
        assert reader.db.execute(
            "SELECT version, action, outcome FROM actions ORDER BY version").fetchall() == [
            (1, '{"type": "roll"}', "[3, 4]"), (2, '{"type": "end_turn"}', None)]
        storage.append_action("t1", 3, 1, {"type": "roll"}, (1, 1))
        storage.save_token("tok", "t1", 1)  # queued behind the row
        assert storage.pending == 2
        assert reader.db.execute("SELECT COUNT(*) FROM tokens").fetchone() == (0,)
        storage.commit()
        assert reader.db.execute("SELECT COUNT(*) FROM actions").fetchone() == (3,)
        assert reader.db.execute("SELECT COUNT(*) FROM tokens").fetchone() == (1,)
    finally:
        reader.close()
        storage.close()


def test_a_failed_commit_writes_nothing_and_keeps_the_queue(tmp_path: Path) -> None:
    """A commit is all or nothing: after a failure nothing of the queue is in the
    database and the queue is kept; the action rows can be taken back while the
    other writes wait for the next commit."""
    from server.storage import StorageError

    storage = Storage(tmp_path / "k.db")
    try:
        storage.save_token("tok", "t1", 0)
        storage.append_action("t1", 1, 0, {"type": "roll"}, None, seq=1)
        storage.append_action("t1", 1, 0, {"type": "roll"}, None, seq=2)  # duplicate key
        with pytest.raises(StorageError, match="UNIQUE"):
            storage.commit()
        assert storage.pending == 3 and storage.pending_actions == 2
        assert not storage.db.in_transaction
        assert storage.db.execute("SELECT COUNT(*) FROM tokens").fetchone() == (0,)
        assert storage.discard_actions("t1") == 2
        storage.commit()
        assert storage.db.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
        assert storage.db.execute("SELECT token FROM tokens").fetchall() == [("tok",)]
    finally:
        storage.close()


def _stored_table(storage: Storage, tid: str, status: str, created: float) -> None:
    from types import SimpleNamespace

    from protocol.rules import Settings

    seats = [SimpleNamespace(kind="human", name=f"p{q}", bot_kind=None) for q in range(3)]
    storage.save_table(SimpleNamespace(id=tid, name=tid, settings=Settings(players=3), seed=1,
                                       creator="x", turn_timer=0.0, status=status,
                                       seats=seats))
    storage.commit()
    storage.db.execute("UPDATE tables SET created = ? WHERE id = ?", (created, tid))
    storage.append_action(tid, 1, 0, {"type": "roll"}, (2, 3))
    storage.save_token(f"tok-{tid}", tid, 0)
    storage.commit()


def test_prune_deletes_only_old_finished_games(tmp_path: Path) -> None:
    import time

    storage = Storage(tmp_path / "k.db")
    now = time.time()
    try:
        _stored_table(storage, "old-finished", "finished", now - 10 * 86400)
        _stored_table(storage, "new-finished", "finished", now - 3600)
        _stored_table(storage, "old-playing", "playing", now - 10 * 86400)
        for i in range(3):
            _stored_table(storage, f"older-{i}", "finished", now - 20 * 86400)
        before = now - 7 * 86400
        assert storage.prune_finished(before, limit=2) == 2  # in batches, oldest first
        assert storage.prune_finished(before, limit=2) == 2
        assert storage.prune_finished(before, limit=2) == 0
        left = {tid for (tid,) in storage.db.execute("SELECT id FROM tables")}
        assert left == {"new-finished", "old-playing"}
        for table in ("actions", "tokens"):
            (ids,) = zip(*storage.db.execute(f"SELECT DISTINCT table_id FROM {table}"),
                         strict=True)
            assert set(ids) == left
    finally:
        storage.close()


async def test_server_prunes_old_finished_games_at_start(tmp_path: Path) -> None:
    import time

    db = tmp_path / "k.db"
    storage = Storage(db)
    _stored_table(storage, "old-finished", "finished", time.time() - 40 * 86400)
    _stored_table(storage, "recent-finished", "finished", time.time() - 86400)
    storage.close()
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db, keep_finished=30 * 86400.0)
    await srv.start()
    try:
        assert srv.storage is not None
        left = {tid for (tid,) in srv.storage.db.execute("SELECT id FROM tables")}
        assert left == {"recent-finished"}
        assert srv.storage.db.execute(
            "SELECT COUNT(*) FROM actions WHERE table_id = 'old-finished'").fetchone() == (0,)
    finally:
        await srv.close()


def test_keep_finished_option_is_days() -> None:
    from kaitaku.cli import _positive_days

    assert _positive_days("30") == 30.0 and _positive_days("0.5") == 0.5
    for bad in ("0", "-1", "x", "inf", "nan"):
        with pytest.raises(Exception, match="days"):
            _positive_days(bad)


async def test_a_restored_waiting_table_goes_to_the_first_to_come_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its creator's session died with the old server: the first person to join
    may start it; a restored table nobody comes back to closes after the grace."""
    import time

    import server.app as app_module

    from .conftest import RawClient

    monkeypatch.setattr(app_module, "WAITING_GRACE", 0.5)
    db = tmp_path / "k.db"
    storage = Storage(db)
    _stored_table(storage, "waiting", "waiting", time.time())
    _stored_table(storage, "deserted", "waiting", time.time())
    storage.close()
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    try:
        assert set(srv.tables) == {"waiting", "deserted"}
        assert all(t.creator is None for t in srv.tables.values())
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        c = RawClient(reader, writer, "bob")
        await c.hello()
        await c.send({"type": "join", "table": "waiting"})
        await c.recv_type("joined")
        assert (await c.recv_type("table"))["can_start"] is True
        for _ in range(300):
            if "deserted" not in srv.tables:
                break
            await asyncio.sleep(0.01)
        assert set(srv.tables) == {"waiting"}
        assert srv.storage is not None
        await asyncio.sleep(0.05)  # the deletion is committed at the end of the loop turn
        assert srv.storage.db.execute(
            "SELECT id FROM tables WHERE status = 'waiting'").fetchall() == [("waiting",)]
        await c.close()
    finally:
        await srv.close()


async def test_the_database_keeps_the_log_and_memory_does_not(tmp_path: Path) -> None:
    """A table hands every action to the durable log and keeps none in memory:
    its size does not grow with the game."""
    db = tmp_path / "k.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    try:
        clients = await _clients(srv.port, 3)
        outcomes = await asyncio.wait_for(asyncio.gather(*(c.play() for c in clients)), 60)
        assert all(o.finished for o in outcomes)
        (table,) = srv.tables.values()
        assert table.game is not None and table.game.log == []
        assert srv.storage is not None
        srv.storage.commit()
        (rows,) = srv.storage.db.execute(
            "SELECT COUNT(*) FROM actions WHERE table_id = ?", (table.id,)).fetchone()
        assert rows == table.version > 100
        stored = _replay_stored(db)
        assert stored.to_dict(include_log=False) == table.game.to_dict(include_log=False)
    finally:
        await srv.close()


def test_background_checkpoints_copy_the_wal(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With background checkpoints a thread copies the WAL into the database
    (the event loop does not stall on it), and close() stops the thread."""
    import time

    import server.storage as storage_module

    monkeypatch.setattr(storage_module, "CHECKPOINT_EVERY", 0.02)
    storage = Storage(tmp_path / "k.db", background_checkpoints=True)
    try:
        for v in range(1, 201):
            storage.append_action("t1", v, 0, {"type": "roll"}, (1, 2))
            if v % 20 == 0:
                storage.commit()
        checkpointer = storage._checkpointer
        assert checkpointer is not None and checkpointer.is_alive()
        for _ in range(200):
            if checkpointer.checkpoints >= 2:
                break
            time.sleep(0.01)
        assert checkpointer.checkpoints >= 2
        (auto,) = storage.db.execute("PRAGMA wal_autocheckpoint").fetchone()
        assert auto == storage_module.WAL_SAFETY_PAGES  # the writer's own, a safety net
    finally:
        storage.close()
    assert not checkpointer.is_alive()
    reopened = Storage(tmp_path / "k.db")
    try:
        assert reopened.db.execute("SELECT COUNT(*) FROM actions").fetchone() == (200,)
    finally:
        reopened.close()
