"""Durable tables: an append-only SQLite log of every accepted action.

One writer connection in WAL mode. Every accepted action (with its chance
outcome and the client's sequence number) is committed before the server
acknowledges it, so a crash — even ``kill -9`` — loses nothing that a client
was told was applied. Writes are queued and grouped: :meth:`Storage.append_action`,
:meth:`Storage.save_table`, :meth:`Storage.save_token` and the rest only queue
their statement, and :meth:`Storage.commit` writes the whole queue, in order,
in one transaction. The tables that acted in one turn of the server's event
loop share one commit (about six rows each in the 50-game benchmark).

A commit is all or nothing. When it fails (a full disk, a file size limit, a
read-only or failing device) it raises :class:`StorageError`, nothing of the
queue was written, and the queue is kept: the server takes back the actions
it could not save (:meth:`Storage.discard_actions`), refuses new ones, and
commits the rest (table headers, resume tokens) when the disk works again.

On start the server restores every unfinished table by replaying its log
(from the last snapshot, taken every :data:`SNAPSHOT_EVERY` actions, so
restarts stay fast). A table whose rows do not restore (an illegal action, an
impossible outcome, a garbage snapshot, bad settings or seats) is
*quarantined*: marked in the database with the reason, never restored again,
and kept for inspection; the other tables are served. Databases written
before sequence numbers and quarantine existed are migrated in place.

``synchronous=NORMAL`` makes each commit durable against a crash of the
process (what ``kill -9`` is); ``durable="full"`` also survives a power cut,
at the cost of an fsync per commit.

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
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from bots.levels import KINDS as BOT_KINDS
from protocol.rules import (
    GameLog,
    GameState,
    RulesError,
    Settings,
    action_from_dict,
    apply,
    new_game,
    observe,
    replay,
)
from protocol.rules.chance import Reveal, deal_seed
from protocol.rules.errors import InvalidLog
from protocol.rules.state import entry_from_dict
from protocol.wire import MAX_FRAME, check_settings, clean_text, clip
from protocol.wire.messages import MAX_CHAT, MAX_NAME, TURN_TIMER_MAX

from .clock import Clock

SNAPSHOT_EVERY = 200
CHECKPOINT_EVERY = 0.25
"""Seconds between the background thread's checkpoints."""
WAL_SAFETY_PAGES = 4000
"""WAL pages (4 KiB) past which the writer checkpoints itself after all (the
thread has copied nearly all of them by then, so it is quick)."""
SEQ_MEMORY = 64
"""Sequence numbers per seat read back on restore (the results a table remembers)."""
SEAT_KINDS = ("empty", "human", "bot")
_TABLE_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")

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
CREATE TABLE IF NOT EXISTS chat (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    seat INTEGER,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
);
"""
CHAT_KEPT = 100
"""Chat lines kept per table (the newest), as a table remembers them."""

_BANS_SCHEMA = """
CREATE TABLE IF NOT EXISTS bans (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (kind, value)
);
"""
"""Addresses and names the server refuses (``kaitaku admin ban``; server.bans)."""
_MIGRATIONS = (
    # (table, column, definition): columns added after the first release
    ("actions", "seq", "INTEGER"),  # the client's sequence number (NULL: server's own)
    ("tables", "quarantined", "TEXT"),  # why the table does not restore (NULL: it does)
    ("tables", "chance", "TEXT"),  # the committed chance: secret and salt (NULL: a seed's)
)

_INSERT_ACTION = ("INSERT INTO actions (table_id, version, seat, action, outcome, seq) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
_SAVE_SNAPSHOT = ("INSERT INTO snapshots (table_id, version, state) VALUES (?, ?, ?) "
                  "ON CONFLICT(table_id) DO UPDATE SET version = excluded.version, "
                  "state = excluded.state")


class StorageError(Exception):
    """The database could not be written (or read); nothing of the failed
    transaction was written."""


class NotADatabase(StorageError):
    """The file is not a SQLite database (or not one this program can use)."""


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
    seqs: dict[int, list[int]] = field(default_factory=dict)
    """Per seat, the sequence numbers of its last accepted actions, oldest first."""
    reveal: Reveal | None = None
    """The committed chance (None: the engine's generator from ``seed``)."""
    seq_versions: dict[int, list[int]] = field(default_factory=dict)
    """Per seat, the event version each of those actions made (same order)."""
    clock: Clock | None = None
    """The chess clock (its banks start full again after a restart)."""
    chat: list[tuple[int, int | None, str, str]] = field(default_factory=list)
    """The table's last chat lines, oldest first: (number, seat, name, text)."""


class _Checkpointer(threading.Thread):
    """Copies the WAL into the database every CHECKPOINT_EVERY seconds, off the
    event loop (its own connection; PASSIVE: it never waits for the writer).
    A failure is logged once, and its end once."""

    def __init__(self, path: str) -> None:
        super().__init__(name="kaitaku-checkpoints", daemon=True)
        self.path = path
        self.done = threading.Event()
        self.checkpoints = 0
        self.failing = False

    def run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            while not self.done.wait(CHECKPOINT_EVERY):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                    if self.failing:
                        self.failing = False
                        log.warning("background checkpoints work again")
                except sqlite3.Error as exc:
                    if not self.failing:
                        self.failing = True
                        log.warning("background checkpoint failed: %s", exc)
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
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={'FULL' if durable == 'full' else 'NORMAL'}")
            self.db.executescript(_SCHEMA)
            self.db.executescript(_BANS_SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            if isinstance(exc, sqlite3.OperationalError):
                raise StorageError(f"cannot open the database {str(path)!r}: {exc}") from exc
            raise NotADatabase(f"{str(path)!r} is not a Kaitaku database ({exc})") from exc
        self._writes: list[tuple[str, str, tuple[Any, ...]]] = []
        """Queued statements in order: (what, table id, parameters); ``what`` is
        the SQL, except for action rows and snapshots (their own kinds)."""
        self._actions = 0
        self.on_write: Callable[[], None] | None = None
        """Called when a write is queued into an empty queue (the server
        schedules a commit)."""
        self._checkpointer: _Checkpointer | None = None
        self.quarantined: list[tuple[str, str]] = []
        """Tables quarantined by the last :meth:`unfinished` (id, reason)."""
        if background_checkpoints:
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_SAFETY_PAGES}")
            self.db.execute(f"PRAGMA journal_size_limit={WAL_SAFETY_PAGES * 4096}")
            self._checkpointer = _Checkpointer(str(path))
            self._checkpointer.start()

    def _migrate(self) -> None:
        """Add the columns a database written by an older release lacks."""
        for table, column, definition in _MIGRATIONS:
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        try:
            self.commit()
        except StorageError as exc:
            log.warning("closing with %d unsaved writes: %s", len(self._writes), exc)
        finally:
            self.db.close()

    @property
    def pending(self) -> int:
        """Statements queued and not yet committed."""
        return len(self._writes)

    @property
    def pending_actions(self) -> int:
        """Action rows queued and not yet committed."""
        return self._actions

    def commit(self) -> None:
        """Write every queued statement in one transaction (durable on return).

        Raises :class:`StorageError` if it fails: then nothing was written and
        the queue is kept (see :meth:`discard_actions`)."""
        writes = self._writes
        if not writes:
            return
        db = self.db
        try:
            db.execute("BEGIN")
            try:
                for sql, params in _batches(writes):
                    db.executemany(sql, params)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise StorageError(str(exc) or type(exc).__name__) from exc
        del writes[:]
        self._actions = 0

    def discard_actions(self, table_id: str | None = None) -> int:
        """Drop the queued action rows and snapshots of ``table_id`` (None: of
        every table), after a failed commit: their tables take those actions
        back. The other statements stay queued. Returns how many were dropped."""
        keep = [w for w in self._writes if not (
            (table_id is None or w[1] == table_id) and w[0] in (_INSERT_ACTION, _SAVE_SNAPSHOT))]
        dropped = len(self._writes) - len(keep)
        self._writes[:] = keep
        self._actions = sum(1 for w in keep if w[0] == _INSERT_ACTION)
        return dropped

    def probe(self) -> None:
        """Check that the database can be written now (commits the queue, or a
        tiny write of its own); raises :class:`StorageError` if it cannot."""
        if not self._writes:
            self._queue("CREATE TABLE IF NOT EXISTS probe (at REAL)", "", ())
            self._queue("DELETE FROM probe", "", ())
            self._queue("INSERT INTO probe (at) VALUES (?)", "", (time.time(),))
        self.commit()

    def _queue(self, sql: str, table_id: str, params: tuple[Any, ...]) -> None:
        self._writes.append((sql, table_id, params))
        if len(self._writes) == 1 and self.on_write is not None:
            self.on_write()

    # -- writing (queued: durable at the next commit) -----------------------------------

    def save_table(self, t: Any) -> None:
        """Insert or update a table's header (settings, seed, status, seats)."""
        seats = [{"kind": s.kind, "name": s.name, "bot_kind": s.bot_kind} for s in t.seats]
        settings = t.settings.to_dict()
        clock = getattr(t, "clock", None)
        if clock is not None:  # the chess clock's settings go with the game's
            settings.update(clock.to_settings())
        reveal = getattr(t, "reveal", None)
        chance = None if reveal is None else json.dumps(reveal.to_dict())
        self._queue(
            "INSERT INTO tables (id, name, settings, seed, creator, turn_timer, status, seats, "
            "created, chance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
            "SET status = excluded.status, seats = excluded.seats, seed = excluded.seed, "
            "chance = excluded.chance",
            t.id, (t.id, t.name, json.dumps(settings), t.seed, t.creator or "",
                   float(t.turn_timer), t.status, json.dumps(seats), time.time(), chance))
        if t.status in ("finished", "closed"):  # a finished game cannot be resumed
            self._queue("DELETE FROM tokens WHERE table_id = ?", t.id, (t.id,))

    def append_action(self, table_id: str, version: int, seat: int,
                      action: dict[str, Any], outcome: tuple[int, ...] | None,
                      seq: int | None = None) -> None:
        """Queue one accepted action (``seq``: the client's sequence number, None
        for an action the server played for the seat)."""
        self._queue(_INSERT_ACTION, table_id, (
            table_id, version, seat, json.dumps(action),
            None if outcome is None else json.dumps(list(outcome)), seq))
        self._actions += 1

    def save_snapshot(self, table_id: str, version: int, state: GameState) -> None:
        blob = msgpack.packb(state.to_dict(include_log=False), use_bin_type=True)
        self._queue(_SAVE_SNAPSHOT, table_id, (table_id, version, blob))

    def save_token(self, token: str, table_id: str, seat: int) -> None:
        self._queue(
            "INSERT INTO tokens (token, table_id, seat) VALUES (?, ?, ?) ON CONFLICT(token) "
            "DO UPDATE SET table_id = excluded.table_id, seat = excluded.seat",
            table_id, (token, table_id, seat))

    def save_chat(self, table_id: str, n: int, seat: int | None, name: str, text: str) -> None:
        """Keep chat line number ``n`` of a table (and only its last :data:`CHAT_KEPT`)."""
        self._queue("INSERT OR REPLACE INTO chat (table_id, n, seat, name, text) "
                    "VALUES (?, ?, ?, ?, ?)", table_id, (table_id, n, seat, name, text))
        self._queue("DELETE FROM chat WHERE table_id = ? AND n <= ?", table_id,
                    (table_id, n - CHAT_KEPT))

    def drop_token(self, token: str) -> None:
        self._queue("DELETE FROM tokens WHERE token = ?", "", (token,))

    def drop_tokens(self, table_id: str) -> None:
        """Forget every resume token of a table (its game is over or forgotten)."""
        self._queue("DELETE FROM tokens WHERE table_id = ?", table_id, (table_id,))

    def delete_table(self, table_id: str) -> None:
        """Forget a table that never started (its header and resume tokens)."""
        self._delete([table_id])

    def quarantine(self, table_id: str, reason: str) -> None:
        """Mark a table that does not restore: it is kept, but never restored."""
        self._queue("UPDATE tables SET quarantined = ? WHERE id = ?", table_id,
                    (clip(reason, 500), table_id))
        self._queue("DELETE FROM tokens WHERE table_id = ?", table_id, (table_id,))

    def _delete(self, ids: list[str]) -> None:
        for sql in ("DELETE FROM actions WHERE table_id = ?",
                    "DELETE FROM snapshots WHERE table_id = ?",
                    "DELETE FROM chat WHERE table_id = ?",
                    "DELETE FROM tokens WHERE table_id = ?",
                    "DELETE FROM tables WHERE id = ?"):
            for tid in ids:
                self._queue(sql, tid, (tid,))

    # -- bans (server.bans) ------------------------------------------------------------

    def save_ban(self, kind: str, value: str, reason: str, created: float) -> None:
        self._queue("INSERT INTO bans (kind, value, reason, created) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(kind, value) DO UPDATE SET reason = excluded.reason",
                    "", (kind, value, reason, created))

    def drop_ban(self, kind: str, value: str) -> None:
        self._queue("DELETE FROM bans WHERE kind = ? AND value = ?", "", (kind, value))

    def bans(self) -> list[tuple[str, str, str, float]]:
        """The stored bans (kind, value, reason, created); rows that do not check
        are left out (the caller builds :class:`server.bans.Ban` from them)."""
        out = []
        for kind, value, reason, created in self.db.execute(
                "SELECT kind, value, reason, created FROM bans ORDER BY created"):
            if (kind in ("address", "name") and isinstance(value, str)
                    and 0 < len(value) <= 64 and isinstance(created, int | float)):
                out.append((kind, value, clip(str(reason), 200), float(created)))
        return out

    def prune_finished(self, before: float, limit: int = 50) -> int:
        """Delete up to ``limit`` finished tables created before ``before`` (a
        ``time.time()``) with their logs, snapshots and tokens; return how many.

        In batches, so that a server can prune while it serves: call again
        while it returns ``limit``. Unfinished tables are never touched."""
        ids = [tid for (tid,) in self.db.execute(
            "SELECT id FROM tables WHERE status IN ('finished', 'closed') AND created < ? "
            "ORDER BY created LIMIT ?", (before, limit))]
        if ids:
            self._delete(ids)
            self.commit()
        return len(ids)

    # -- reading --------------------------------------------------------------------

    def unfinished(self) -> list[StoredTable]:
        """Every table not finished (nor quarantined), its game rebuilt by
        replaying its log. A table that does not restore is quarantined (see
        :attr:`quarantined`); resume tokens of tables that cannot be resumed
        any more are deleted."""
        self.quarantined = []
        self._queue("DELETE FROM tokens WHERE table_id NOT IN (SELECT id FROM tables "
                    "WHERE status IN ('waiting', 'playing') AND quarantined IS NULL)", "", ())
        out = []
        try:
            rows = self.db.execute(
                "SELECT id, name, settings, seed, creator, turn_timer, status, seats, chance "
                "FROM tables WHERE status IN ('waiting', 'playing') AND quarantined IS NULL "
                "ORDER BY created"
            ).fetchall()
        except sqlite3.DatabaseError as exc:  # the file is damaged beyond one table
            raise StorageError(f"cannot read the tables of {str(self.path)!r}: {exc}") from exc
        for row in rows:
            try:
                out.append(self._restore(*row))
            except Exception as exc:  # anything at all: the rows are not trusted
                reason = clip(f"{type(exc).__name__}: {exc}", 300)
                self.quarantined.append((str(row[0]), reason))
                self.quarantine(str(row[0]), reason)
        try:
            self.commit()
        except StorageError as exc:  # the server commits the queue once it can
            log.warning("could not write to the database at start: %s", exc)
        return out

    def _restore(self, tid: Any, name: Any, settings: Any, seed: Any, creator: Any,
                 timer: Any, status: Any, seats: Any, chance: Any) -> StoredTable:
        """One table from its rows; raises on anything that does not check."""
        if not isinstance(tid, str) or not _TABLE_ID.fullmatch(tid):
            raise InvalidLog("bad table id")
        checked = check_settings(json.loads(settings))
        parsed = Settings.from_dict(checked)
        if type(seed) is not int or not 0 <= seed < 2**63:
            raise InvalidLog("bad seed")
        if not isinstance(timer, int | float) or not 0 <= timer <= TURN_TIMER_MAX:
            raise InvalidLog("bad turn timer")
        if status not in ("waiting", "playing"):
            raise InvalidLog(f"bad status {status!r}")
        st = StoredTable(tid, clean_text(str(name), MAX_NAME) or "table", parsed, seed,
                         str(creator)[:64], float(timer), status,
                         _seats(json.loads(seats), parsed.players))
        st.clock = Clock.from_settings(checked)
        st.reveal = _reveal(chance)
        if st.reveal is not None and deal_seed(st.reveal.secret) != seed:
            raise InvalidLog("the seed is not the committed secret's")
        if status == "playing":
            st.game, st.version = self._replay(tid, st.settings, seed)
            for seat in range(parsed.players):
                rows = [(q, v) for (q, v) in self.db.execute(
                    "SELECT seq, version FROM actions WHERE table_id = ? AND seat = ? AND seq "
                    "IS NOT NULL ORDER BY version DESC LIMIT ?", (tid, seat, SEQ_MEMORY))]
                if not all(type(q) is int and -(2**53) <= q <= 2**53 and type(v) is int
                           for q, v in rows):
                    raise InvalidLog("bad sequence number")
                if rows:
                    st.seqs[seat] = [q for q, _ in reversed(rows)]
                    st.seq_versions[seat] = [v for _, v in reversed(rows)]
        for n, seat, who, text in self.db.execute(
                "SELECT n, seat, name, text FROM chat WHERE table_id = ? ORDER BY n DESC "
                "LIMIT ?", (tid, CHAT_KEPT)):
            line = clean_text(str(text), MAX_CHAT)
            if type(n) is int and (seat is None or type(seat) is int
                                   and 0 <= seat < parsed.players) and line:
                st.chat.insert(0, (n, seat, clean_text(str(who), MAX_NAME), line))
        for token, seat in self.db.execute(
                "SELECT token, seat FROM tokens WHERE table_id = ?", (tid,)):
            if (isinstance(token, str) and 0 < len(token) <= 128 and type(seat) is int
                    and 0 <= seat < parsed.players):
                st.tokens[token] = seat
        return st

    def history(self, tid: str, settings: Settings, seed: int, keep: int
                ) -> list[tuple[int, list[Any]]]:
        """The event batches of table ``tid``'s game from its start (the last
        ``keep`` of them), by replaying every stored action: what a restored
        table sends the clients that join it. Raises :class:`InvalidLog` (or a
        rules error) on a log that does not replay."""
        (count,) = self.db.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                                   (tid,)).fetchone()
        game = new_game(settings, seed)
        game.log = None  # the database keeps the log
        out: deque[tuple[int, list[Any]]] = deque(maxlen=max(0, keep))
        skip = max(0, count - keep)  # batches too old to keep: replayed, not kept
        version = 0
        for v, seat, action, outcome in self.db.execute(
                "SELECT version, seat, action, outcome FROM actions WHERE table_id = ? "
                "ORDER BY version", (tid,)):
            if v != version + 1:
                raise InvalidLog(f"the log jumps from version {version} to {v}")
            chance = None if outcome is None else tuple(json.loads(outcome))
            events = apply(game, action_from_dict(json.loads(action)), seat, chance)
            version = v
            if v > skip:
                out.append((v, events))
        return list(out)

    def _replay(self, tid: str, settings: Settings, seed: int) -> tuple[GameState, int]:
        snap = self.db.execute("SELECT version, state FROM snapshots WHERE table_id = ?",
                               (tid,)).fetchone()
        if snap is not None:
            version, game = _snapshot(snap[0], snap[1], settings, seed)
        else:
            version = 0
            game = new_game(settings, seed)
        for v, seat, action, outcome in self.db.execute(
                "SELECT version, seat, action, outcome FROM actions WHERE table_id = ? AND "
                "version > ? ORDER BY version", (tid, version)):
            if v != version + 1:
                raise InvalidLog(f"the log jumps from version {version} to {v}")
            chance = None if outcome is None else tuple(json.loads(outcome))
            if not all(type(c) is int for c in chance or ()):
                raise InvalidLog(f"bad outcome at version {v}")
            apply(game, action_from_dict(json.loads(action)), seat, chance)
            version = v
        if game.log:
            game.log.clear()  # the database keeps the log
        return game, version


def _batches(writes: list[tuple[str, str, tuple[Any, ...]]]
             ) -> Iterable[tuple[str, list[tuple[Any, ...]]]]:
    """Consecutive statements with the same SQL, as (sql, parameter rows)."""
    sql: str | None = None
    rows: list[tuple[Any, ...]] = []
    for s, _, params in writes:
        if s != sql:
            if sql is not None:
                yield sql, rows
            sql, rows = s, []
        rows.append(params)
    if sql is not None:
        yield sql, rows


def _seats(seats: Any, players: int) -> list[dict[str, Any]]:
    if not isinstance(seats, list) or len(seats) != players:
        raise InvalidLog("the seats do not match the settings")
    out = []
    for s in seats:
        if not isinstance(s, dict) or s.get("kind") not in SEAT_KINDS:
            raise InvalidLog("bad seat")
        bot_kind = s.get("bot_kind")
        if bot_kind is not None and bot_kind not in BOT_KINDS:
            raise InvalidLog(f"bad bot kind {bot_kind!r}")
        name = s.get("name")
        out.append({"kind": s["kind"], "bot_kind": bot_kind,
                    "name": clean_text(name, MAX_NAME) if isinstance(name, str) else ""})
    return out


def _snapshot(version: Any, blob: Any, settings: Settings, seed: int) -> tuple[int, GameState]:
    """A snapshot row, checked: it decodes to a state of this table that
    encodes back to the same data and that a view can be built from."""
    if type(version) is not int or version < 0 or not isinstance(blob, bytes):
        raise InvalidLog("bad snapshot row")
    data = msgpack.unpackb(blob, raw=False, strict_map_key=False, max_bin_len=0,
                           max_ext_len=0, max_str_len=MAX_FRAME)
    game = GameState.from_dict(data)
    if game.settings != settings or game.seed != seed:
        raise InvalidLog("the snapshot is of another game")
    if game.to_dict(include_log=False) != {k: v for k, v in data.items() if k != "log"}:
        raise InvalidLog("the snapshot does not round-trip")
    observe(game, None)
    game.log = []
    return version, game


# --- reading finished games (replays) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished table read back for a replay: its log, its seats' names and
    kinds (``human`` or ``bot``) and its name."""

    log: GameLog
    names: list[str]
    kinds: list[str]
    name: str


def _reveal(chance: Any) -> Reveal | None:
    """A table's stored committed chance (None for a game of a seed)."""
    if chance is None:
        return None
    if not isinstance(chance, str) or len(chance) > 1000:
        raise InvalidLog("bad chance")
    try:
        return Reveal.from_dict(json.loads(chance))
    except ValueError as exc:
        raise InvalidLog(f"bad chance: {exc}") from None


def _open_read_only(db: str | os.PathLike[str]) -> sqlite3.Connection:
    path = Path(db)
    if not path.is_file():
        raise StorageError(f"no database {db}")
    try:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        raise StorageError(f"{db}: {exc}") from exc


def read_finished(db: str | os.PathLike[str], table_id: str,
                  max_actions: int = 100_000, check: bool = True) -> FinishedGame:
    """A finished table of a server's database, opened read-only (while the
    server runs, too), every row checked: a log that does not replay, damaged
    rows, an unfinished table (a replay shows every hand) or more than
    ``max_actions`` actions raise :class:`StorageError` with the reason.
    ``check=False``: a log that does not replay is returned too (for
    :func:`protocol.rules.chance.verify`, which names where it goes wrong)."""
    conn = _open_read_only(db)
    try:
        row = conn.execute("SELECT name, settings, seed, status, seats, chance FROM tables "
                           "WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise StorageError(f"no table {table_id!r} in {db} (kaitaku replay --list "
                               f"--server-db {db} lists them)")
        name, settings_json, seed, status, seats_json, chance = row
        if status not in ("finished", "closed"):  # closed: by the host, never played on
            raise StorageError(f"table {table_id!r} has not finished ({status}): only "
                               "finished games are replayed (the viewer shows every hand)")
        if type(seed) is not int or not isinstance(settings_json, str):
            raise StorageError(f"table {table_id!r}: a damaged row")
        settings = Settings.from_dict(json.loads(settings_json))
        seats = _seats(json.loads(seats_json) if isinstance(seats_json, str) else None,
                       settings.players)
        (count,) = conn.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?",
                                (table_id,)).fetchone()
        if count > max_actions:
            raise StorageError(f"table {table_id!r} has {count} actions "
                               f"(at most {max_actions})")
        steps = [entry_from_dict([seat, json.loads(action),
                                  None if outcome is None else json.loads(outcome)])
                 for seat, action, outcome in conn.execute(
                     "SELECT seat, action, outcome FROM actions WHERE table_id = ? "
                     "ORDER BY version", (table_id,))]
        start = new_game(settings, seed)  # how the server began it: the board and first seat
        reveal = _reveal(chance)
        log_ = GameLog(settings, seed, start.board, start.first_seat, tuple(steps),
                       None if reveal is None else reveal.to_dict())
        if check:
            replay(log_)  # refuse a log that does not replay
    except StorageError:
        raise
    except (sqlite3.Error, ValueError, TypeError, KeyError, RulesError, RecursionError) as exc:
        raise StorageError(f"table {table_id!r} in {db} cannot be read: {exc}") from exc
    finally:
        conn.close()
    names = [s["name"] or f"seat {q + 1}" for q, s in enumerate(seats)]
    kinds = ["bot" if s["kind"] == "bot" else "human" for s in seats]
    return FinishedGame(log_, names, kinds, clean_text(str(name), MAX_NAME) or table_id)


def list_finished(db: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The finished tables of a server's database, newest first: id, name,
    seat names and creation time."""
    conn = _open_read_only(db)
    try:
        rows = conn.execute("SELECT id, name, seats, created FROM tables WHERE status IN "
                            "('finished', 'closed') ORDER BY created DESC").fetchall()
    except sqlite3.Error as exc:
        raise StorageError(f"{db}: {exc}") from exc
    finally:
        conn.close()
    out = []
    for tid, name, seats, created in rows:
        try:
            names = [clean_text(str(s.get("name")), MAX_NAME) for s in json.loads(seats)
                     if isinstance(s, dict)]
        except (ValueError, TypeError):
            names = []
        out.append({"id": str(tid), "name": clean_text(str(name), MAX_NAME), "seats": names,
                    "created": created})
    return out
