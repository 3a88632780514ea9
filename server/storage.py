"""Durable tables: an append-only SQLite log of every accepted action.

One writer connection in WAL mode. Every accepted action (with its chance
outcome) is committed before the server acknowledges it, so a crash — even
``kill -9`` — loses nothing that a client was told was applied. Commits are
grouped: :meth:`Storage.append_action` only queues the row, and
:meth:`Storage.commit` writes every queued row in one transaction. The server
calls it before any bytes go out to a client (and at the end of each turn of
its event loop), so an acknowledgement never leaves before its row is
durable, while the tables that acted in one loop turn share one commit
(about six rows each in the 50-game benchmark). On start the
server restores every unfinished table by replaying its log (from the last
snapshot, taken every :data:`SNAPSHOT_EVERY` actions, so restarts stay fast).

``synchronous=NORMAL`` makes each commit durable against a crash of the
process (what ``kill -9`` is); ``durable="full"`` also survives a power cut,
at the cost of an fsync per action.

Checkpoints (copying the WAL into the database file, with an fsync) are the
slow part of SQLite's work: done by the writer they stall the event loop for
several milliseconds a few times a second under load. With
``background_checkpoints`` a thread of its own does them (SQLite releases the
GIL while it works), and the writer checkpoints itself only if the WAL grows
past :data:`WAL_SAFETY_PAGES` (the thread cannot keep up or cannot finish).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from protocol.rules import GameState, Settings, action_from_dict, apply, new_game

SNAPSHOT_EVERY = 200
CHECKPOINT_EVERY = 0.25
"""Seconds between the background thread's checkpoints."""
WAL_SAFETY_PAGES = 4000
"""WAL pages (4 KiB) past which the writer checkpoints itself after all (the
thread has copied nearly all of them by then, so it is quick)."""

log = logging.getLogger("kaitaku.storage")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    settings TEXT NOT NULL,
    seed INTEGER NOT NULL,
    creator TEXT NOT NULL,
    turn_timer REAL NOT NULL,
    status TEXT NOT NULL,
    seats TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    outcome TEXT,
    PRIMARY KEY (table_id, version)
);
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    state BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL
);
"""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/kaitaku/kaitaku.db`` (``~/.local/share/kaitaku/kaitaku.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "kaitaku" / "kaitaku.db"


@dataclass
class StoredTable:
    id: str
    name: str
    settings: Settings
    seed: int
    creator: str
    turn_timer: float
    status: str
    seats: list[dict[str, Any]]
    game: GameState | None = None
    version: int = 0
    tokens: dict[str, int] = field(default_factory=dict)


class _Checkpointer(threading.Thread):
    """Copies the WAL into the database every CHECKPOINT_EVERY seconds, off the
    event loop (its own connection; PASSIVE: it never waits for the writer)."""

    def __init__(self, path: str) -> None:
        super().__init__(name="kaitaku-checkpoints", daemon=True)
        self.path = path
        self.done = threading.Event()
        self.checkpoints = 0

    def run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            while not self.done.wait(CHECKPOINT_EVERY):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except sqlite3.Error:
                    log.exception("background checkpoint failed")
        finally:
            db.close()

    def stop(self) -> None:
        self.done.set()
        self.join()


class Storage:
    def __init__(self, path: str | os.PathLike[str], durable: str = "normal", *,
                 background_checkpoints: bool = False) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if durable == 'full' else 'NORMAL'}")
        self.db.executescript(_SCHEMA)
        self._rows: list[tuple[str, int, int, str, str | None]] = []
        self._checkpointer: _Checkpointer | None = None
        if background_checkpoints:
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_SAFETY_PAGES}")
            self.db.execute(f"PRAGMA journal_size_limit={WAL_SAFETY_PAGES * 4096}")
            self._checkpointer = _Checkpointer(str(path))
            self._checkpointer.start()

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self.commit()
        self.db.close()

    @property
    def pending(self) -> int:
        """Action rows queued and not yet committed."""
        return len(self._rows)

    def commit(self) -> None:
        """Write every queued action row in one transaction (durable on return)."""
        rows = self._rows
        if not rows:
            return
        db = self.db
        db.execute("BEGIN")
        try:
            db.executemany(
                "INSERT INTO actions (table_id, version, seat, action, outcome) "
                "VALUES (?, ?, ?, ?, ?)", rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise  # the rows stay queued for the next commit
        del rows[:]

    # -- writing --------------------------------------------------------------------

    def save_table(self, t: Any) -> None:
        """Insert or update a table's header (settings, seed, status, seats)."""
        self.commit()  # every write keeps the order of the log
        seats = [{"kind": s.kind, "name": s.name, "bot_kind": s.bot_kind} for s in t.seats]
        self.db.execute(
            "INSERT INTO tables (id, name, settings, seed, creator, turn_timer, status, seats, "
            "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
            "status = excluded.status, seats = excluded.seats, seed = excluded.seed",
            (t.id, t.name, json.dumps(t.settings.to_dict()), t.seed, t.creator or "",
             float(t.turn_timer), t.status, json.dumps(seats), time.time()),
        )

    def append_action(self, table_id: str, version: int, seat: int,
                      action: dict[str, Any], outcome: tuple[int, ...] | None) -> None:
        """Queue one accepted action; durable at the next :meth:`commit`."""
        self._rows.append((table_id, version, seat, json.dumps(action),
                           None if outcome is None else json.dumps(list(outcome))))

    def save_snapshot(self, table_id: str, version: int, state: GameState) -> None:
        self.commit()
        blob = msgpack.packb(state.to_dict(include_log=False), use_bin_type=True)
        self.db.execute(
            "INSERT INTO snapshots (table_id, version, state) VALUES (?, ?, ?) "
            "ON CONFLICT(table_id) DO UPDATE SET version = excluded.version, "
            "state = excluded.state", (table_id, version, blob))

    def save_token(self, token: str, table_id: str, seat: int) -> None:
        self.commit()
        self.db.execute(
            "INSERT INTO tokens (token, table_id, seat) VALUES (?, ?, ?) ON CONFLICT(token) "
            "DO UPDATE SET table_id = excluded.table_id, seat = excluded.seat",
            (token, table_id, seat))

    def drop_token(self, token: str) -> None:
        self.commit()
        self.db.execute("DELETE FROM tokens WHERE token = ?", (token,))

    def delete_table(self, table_id: str) -> None:
        """Forget a table that never started (its header and resume tokens)."""
        self._delete([table_id])

    def _delete(self, ids: list[str]) -> None:
        self.commit()
        db = self.db
        db.execute("BEGIN")
        try:
            for sql in ("DELETE FROM actions WHERE table_id = ?",
                        "DELETE FROM snapshots WHERE table_id = ?",
                        "DELETE FROM tokens WHERE table_id = ?",
                        "DELETE FROM tables WHERE id = ?"):
                db.executemany(sql, [(tid,) for tid in ids])
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def prune_finished(self, before: float, limit: int = 50) -> int:
        """Delete up to ``limit`` finished tables created before ``before`` (a
        ``time.time()``) with their logs, snapshots and tokens; return how many.

        In batches, so that a server can prune while it serves: call again
        while it returns ``limit``. Unfinished tables are never touched."""
        ids = [tid for (tid,) in self.db.execute(
            "SELECT id FROM tables WHERE status = 'finished' AND created < ? "
            "ORDER BY created LIMIT ?", (before, limit))]
        if ids:
            self._delete(ids)
        return len(ids)

    # -- reading --------------------------------------------------------------------

    def unfinished(self) -> list[StoredTable]:
        """Every table not finished, its game rebuilt by replaying its log."""
        self.commit()
        out = []
        rows = self.db.execute(
            "SELECT id, name, settings, seed, creator, turn_timer, status, seats FROM tables "
            "WHERE status != 'finished' ORDER BY created").fetchall()
        for tid, name, settings, seed, creator, timer, status, seats in rows:
            st = StoredTable(tid, name, Settings.from_dict(json.loads(settings)), seed,
                             creator, timer, status, json.loads(seats))
            if status == "playing":
                st.game, st.version = self._replay(tid, st.settings, seed)
            for token, seat in self.db.execute(
                    "SELECT token, seat FROM tokens WHERE table_id = ?", (tid,)):
                st.tokens[token] = seat
            out.append(st)
        return out

    def _replay(self, tid: str, settings: Settings, seed: int) -> tuple[GameState, int]:
        snap = self.db.execute("SELECT version, state FROM snapshots WHERE table_id = ?",
                               (tid,)).fetchone()
        if snap is not None:
            version = snap[0]
            game = GameState.from_dict(msgpack.unpackb(snap[1], raw=False,
                                                       strict_map_key=False))
            game.log = []
        else:
            version = 0
            game = new_game(settings, seed)
        for v, seat, action, outcome in self.db.execute(
                "SELECT version, seat, action, outcome FROM actions WHERE table_id = ? AND "
                "version > ? ORDER BY version", (tid, version)):
            chance = None if outcome is None else tuple(json.loads(outcome))
            apply(game, action_from_dict(json.loads(action)), seat, chance)
            version = v
        return game, version
