"""The league database (SQLite): leagues, their games with action logs, decision times.

Every finished game (played to the end, or failed with its error) is stored
with its seats, result and the full action log, so any game can be replayed
(``kaitaku replay``) and a league resumed where it stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.rules import GameLog, Settings
from server.clock import Clock

from .games import GameOutcome
from .schedule import LEAGUE_SECRET_BYTES, Entry

DEFAULT_DB = "league.db"
"""The default database: ``league.db`` in the current directory."""

COMMIT_EVERY = 0.5
"""Seconds between commits while games arrive (a crash loses at most this much)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS leagues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL UNIQUE,
    seed INTEGER NOT NULL,
    settings TEXT NOT NULL,
    entries TEXT NOT NULL,
    games INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    league INTEGER NOT NULL REFERENCES leagues(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    winner INTEGER,
    ranks TEXT,
    vp TEXT,
    turns INTEGER,
    decisions INTEGER,
    duration REAL NOT NULL,
    times TEXT,
    log TEXT,
    UNIQUE (league, idx)
);
CREATE TABLE IF NOT EXISTS decision_times (
    league INTEGER NOT NULL REFERENCES leagues(id),
    entry TEXT NOT NULL,
    count INTEGER NOT NULL,
    mean_ms REAL NOT NULL,
    p99_ms REAL NOT NULL,
    PRIMARY KEY (league, entry)
);
"""


def connect(db: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(db))
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(_SCHEMA)
    _migrate(conn)
    return conn


_ADDED_COLUMNS = (
    ("leagues", "mode", "TEXT NOT NULL DEFAULT 'ordinary'"),
    ("leagues", "clock", "TEXT"),  # the chess clock's settings as JSON (NULL: none)
    ("games", "timeouts", "TEXT"),  # chess-clock timeouts per seat (JSON)
    ("games", "forfeits", "TEXT"),  # the seats that forfeited (JSON)
    ("leagues", "secret", "BLOB"),  # what every game's chance derives from (NULL: seeds')
    ("games", "chance", "TEXT"),  # the game's committed chance, revealed (JSON)
)
"""Columns added to the schema since its first version: databases made before
get them on open (with their defaults)."""


def _migrate(conn: sqlite3.Connection) -> None:
    for table, column, decl in _ADDED_COLUMNS:
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
    conn.commit()


MODES = ("ordinary", "duplicate")


def league_key(seed: int, settings: Settings, entries: Sequence[Entry], games: int,
               mode: str = "ordinary", clock: Clock | None = None) -> str:
    key: dict[str, Any] = {"seed": seed, "settings": settings.to_dict(), "games": games,
                           "entries": [[e.name, e.spec] for e in entries]}
    if mode != "ordinary":  # ordinary leagues keep the keys they always had
        key["mode"] = mode
    if clock is not None:  # so do leagues without a clock
        key["clock"] = clock.to_settings()
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def open_league(conn: sqlite3.Connection, seed: int, settings: Settings,
                entries: Sequence[Entry], games: int, mode: str = "ordinary",
                clock: Clock | None = None) -> int:
    """The league's id, creating its row the first time."""
    if mode not in MODES:
        raise ValueError(f"a league is {' or '.join(MODES)}, not {mode!r}")
    key = league_key(seed, settings, entries, games, mode, clock)
    row = conn.execute("SELECT id FROM leagues WHERE key = ?", (key,)).fetchone()
    if row:
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO leagues (key, seed, settings, entries, games, created, mode, clock) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (key, seed, json.dumps(settings.to_dict()),
         json.dumps([{"name": e.name, "spec": e.spec} for e in entries]), games, time.time(),
         mode, json.dumps(clock.to_settings()) if clock is not None else None))
    conn.commit()
    assert cur.lastrowid is not None
    return cur.lastrowid


def league_secret(conn: sqlite3.Connection, league: int, secret: bytes | None = None) -> bytes:
    """The league's secret: every game's chance derives from it
    (:func:`league.schedule.game_chance`). Drawn with :mod:`secrets` (or
    ``secret``) the first time, then kept; no entry ever sees it."""
    row = conn.execute("SELECT secret FROM leagues WHERE id = ?", (league,)).fetchone()
    if row is not None and isinstance(row[0], bytes) and len(row[0]) == LEAGUE_SECRET_BYTES:
        return row[0]
    fresh = secret if secret is not None else secrets.token_bytes(LEAGUE_SECRET_BYTES)
    conn.execute("UPDATE leagues SET secret = ? WHERE id = ?", (fresh, league))
    conn.commit()
    return fresh


def store_outcome(conn: sqlite3.Connection, league: int, names: Sequence[str],
                  o: GameOutcome, commit: bool = True) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO games (league, idx, seed, seats, status, error, winner, ranks, "
        "vp, turns, decisions, duration, times, log, timeouts, forfeits, chance) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (league, o.index, o.seed, json.dumps(list(names)), o.status, o.error, o.winner,
         json.dumps(o.ranks), json.dumps(o.vp), o.turns, o.decisions, o.duration,
         json.dumps(o.times), o.log, json.dumps(o.timeouts), json.dumps(o.forfeits),
         o.chance))
    if commit:
        conn.commit()


@dataclass(slots=True)
class StoredGame:
    id: int
    index: int
    seed: int
    seats: list[str]
    status: str
    error: str | None
    winner: int | None
    ranks: list[int]
    vp: list[int]
    turns: int
    decisions: int
    duration: float
    times: list[list[float]] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    """Chess-clock timeouts per seat (empty: no clock)."""
    forfeits: list[int] = field(default_factory=list)
    """The seats that forfeited."""


def load_games(conn: sqlite3.Connection, league: int) -> list[StoredGame]:
    rows = conn.execute(
        "SELECT id, idx, seed, seats, status, error, winner, ranks, vp, turns, decisions, "
        "duration, times, timeouts, forfeits FROM games WHERE league = ? ORDER BY idx",
        (league,)).fetchall()
    return [StoredGame(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6],
                       json.loads(r[7] or "[]"), json.loads(r[8] or "[]"), r[9] or 0,
                       r[10] or 0, r[11], json.loads(r[12] or "[]"),
                       json.loads(r[13] or "[]"), json.loads(r[14] or "[]")) for r in rows]


def load_log(conn: sqlite3.Connection, game_id: int) -> tuple[StoredGame, GameLog | None]:
    """A stored game and its action log (None if it failed before its first
    action); a committed game's log holds its revealed secret once every game
    of its set is stored (before, its commitment alone)."""
    row = conn.execute("SELECT league, log, chance FROM games WHERE id = ?",
                       (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id}")
    game = next(g for g in load_games(conn, row[0]) if g.id == game_id)
    log = GameLog.from_dict(json.loads(row[1])) if row[1] else None
    if log is not None and row[2]:
        reveal = revealed(conn, row[0], row[2])
        if reveal is not None:
            log = dataclasses.replace(log, chance=reveal)
    return game, log


def revealed(conn: sqlite3.Connection, league: int, chance: str) -> dict[str, str] | None:
    """A stored game's revealed chance (``chance``, its column) if every game of
    its set is stored, else None."""
    d = json.loads(chance)
    if not isinstance(d, dict):
        return None
    members = d.pop("set", [])
    if not isinstance(members, list) or not all(type(i) is int for i in members):
        return None
    if members:
        marks = ",".join("?" * len(members))
        (have,) = conn.execute(f"SELECT COUNT(*) FROM games WHERE league = ? AND idx IN "
                               f"({marks})", (league, *members)).fetchone()
        if have < len(set(members)):
            return None
    return {k: str(v) for k, v in d.items()}


def list_games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every stored game of every league: id, league, index, seats, status."""
    rows = conn.execute("SELECT id, league, idx, seats, status FROM games ORDER BY id")
    return [{"id": r[0], "league": r[1], "index": r[2], "seats": json.loads(r[3] or "[]"),
             "status": r[4]} for r in rows]


def league_info(conn: sqlite3.Connection, league: int) -> dict[str, Any]:
    row = conn.execute("SELECT seed, settings, entries, games, mode, clock FROM leagues "
                       "WHERE id = ?", (league,)).fetchone()
    if row is None:
        raise KeyError(f"no league {league}")
    return {"id": league, "seed": row[0], "settings": json.loads(row[1]),
            "entries": json.loads(row[2]), "games": row[3], "mode": row[4],
            "clock": json.loads(row[5]) if row[5] else None}
