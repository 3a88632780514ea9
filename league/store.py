"""The league database (SQLite): leagues, their games with action logs, decision times.

Every finished game (played to the end, or failed with its error) is stored
with its seats, result and the full action log, so any game can be replayed
(``kaitaku replay``) and a league resumed where it stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.rules import GameLog, RulesError, Settings
from protocol.wire import clean_text
from server.clock import Clock

from .games import GameOutcome, clean_stderr
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
    ("games", "seat_logs", "TEXT"),  # per seat: why it lost its seat, its stderr's end (JSON)
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
        "vp, turns, decisions, duration, times, log, timeouts, forfeits, seat_logs, chance) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (league, o.index, o.seed, json.dumps(list(names)), o.status, o.error, o.winner,
         json.dumps(o.ranks), json.dumps(o.vp), o.turns, o.decisions, o.duration,
         json.dumps(o.times), o.log, json.dumps(o.timeouts), json.dumps(o.forfeits),
         json.dumps(o.seat_logs), o.chance))
    if commit:
        conn.commit()


@dataclass(frozen=True, slots=True)
class SeatLog:
    """What a competitor sees of its seat in one game besides the result."""

    why: str | None = None
    """Why it lost its seat (a crash, an exit, timeouts, an illegal action); None: it did not."""
    stderr: str = ""
    """The end of what its program wrote to standard error (``cmd:`` entries), cleaned."""


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
    seat_logs: list[SeatLog] = field(default_factory=list)
    """Per seat: why it lost its seat and the end of its standard error (empty
    for games stored before these were kept)."""


class DamagedDatabase(ValueError):
    """A league database that does not hold what a league writes (damaged, or
    made by someone else): every value read is checked, so this is raised
    instead of a traceback or a lie."""


def _json(text: Any, default: Any = None) -> Any:
    if text is None or text == "":
        return default
    if not isinstance(text, str):
        raise DamagedDatabase("a JSON column holds a non-text value")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # a log nested 100 000 deep included
        raise DamagedDatabase(f"damaged JSON ({type(exc).__name__})") from None


def _int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if type(value) is not int or (lo is not None and value < lo) \
            or (hi is not None and value > hi):
        raise DamagedDatabase(f"{what} is not a valid number")
    return value


def _number(value: Any, what: str) -> float:
    if type(value) not in (int, float) or value != value or value in (math.inf, -math.inf):
        raise DamagedDatabase(f"{what} is not a valid number")
    return float(value)


def _text(value: Any, limit: int = 2000) -> str:
    """A string read from the database, safe to print: :func:`protocol.wire.clean_text`."""
    return clean_text(value if isinstance(value, str) else str(value), limit)


def _ints(value: Any, what: str, length: int | None, lo: int | None = None,
          hi: int | None = None) -> list[int]:
    if not isinstance(value, list) or (length is not None and value and len(value) != length):
        raise DamagedDatabase(f"{what} has the wrong shape")
    return [_int(v, what, lo, hi) for v in value]


def _game(r: Sequence[Any]) -> StoredGame:
    seats = _json(r[3], [])
    if not isinstance(seats, list) or not 1 <= len(seats) <= 8:
        raise DamagedDatabase("a game's seats have the wrong shape")
    n = len(seats)
    status = r[4]
    if status not in ("ok", "failed"):
        raise DamagedDatabase("a game's status is neither ok nor failed")
    times = _json(r[12], [])
    if not isinstance(times, list) or any(not isinstance(t, list) for t in times) \
            or (times and len(times) != n):
        raise DamagedDatabase("a game's decision times have the wrong shape")
    winner = None if r[6] is None else _int(r[6], "a winner", 0, n - 1)
    return StoredGame(
        _int(r[0], "a game id"), _int(r[1], "a game index", 0), _int(r[2], "a seed"),
        [_text(x, 100) for x in seats], status, None if r[5] is None else _text(r[5]),
        winner, _ints(_json(r[7], []), "ranks", n, 0, n), _ints(_json(r[8], []), "VP", n),
        _int(r[9] or 0, "turns", 0), _int(r[10] or 0, "decisions", 0),
        _number(r[11], "a duration"),
        [[_number(x, "a decision time") for x in t] for t in times],
        _ints(_json(r[13], []), "timeouts", n, 0),
        _ints(_json(r[14], []), "forfeits", None, 0, n - 1),
        _seat_logs(_json(r[15], []), n))


def _seat_logs(value: Any, n: int) -> list[SeatLog]:
    if not isinstance(value, list) or (value and len(value) != n) \
            or any(not isinstance(v, dict) for v in value):
        raise DamagedDatabase("a game's seat logs have the wrong shape")
    return [SeatLog(None if v.get("why") is None else _text(v["why"], 500),
                    _stderr_text(v.get("stderr", ""))) for v in value]


def _stderr_text(value: Any) -> str:
    return clean_stderr(value if isinstance(value, str) else str(value))


def load_games(conn: sqlite3.Connection, league: int) -> list[StoredGame]:
    """The league's stored games, every value checked and every string cleaned
    (raises :class:`DamagedDatabase`)."""
    rows = conn.execute(
        "SELECT id, idx, seed, seats, status, error, winner, ranks, vp, turns, decisions, "
        "duration, times, timeouts, forfeits, seat_logs FROM games WHERE league = ? "
        "ORDER BY idx",
        (league,)).fetchall()
    return [_game(r) for r in rows]


def load_log(conn: sqlite3.Connection, game_id: int) -> tuple[StoredGame, GameLog | None]:
    """A stored game and its action log (None if it failed before its first
    action); a committed game's log holds its revealed secret once every game
    of its set is stored (before, its commitment alone). A log that does not
    parse raises :class:`DamagedDatabase`."""
    row = conn.execute("SELECT league, log, chance FROM games WHERE id = ?",
                       (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id}")
    game = next(g for g in load_games(conn, row[0]) if g.id == game_id)
    if not row[1]:
        return game, None
    data = _json(row[1])
    try:
        log = GameLog.from_dict(data)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError,
            RulesError) as exc:
        raise DamagedDatabase(f"the action log does not parse ({type(exc).__name__})") \
            from None
    if row[2]:
        reveal = revealed(conn, row[0], row[2])
        if reveal is not None:
            log = dataclasses.replace(log, chance=reveal)
    return game, log


def revealed(conn: sqlite3.Connection, league: int, chance: Any) -> dict[str, str] | None:
    """A stored game's revealed chance (``chance``, its column) if every game of
    its set is stored, else None; a damaged column raises :class:`DamagedDatabase`."""
    d = _json(chance)
    if not isinstance(d, dict):
        raise DamagedDatabase("a game's chance has the wrong shape")
    members = d.pop("set", [])
    if not isinstance(members, list) or not all(type(i) is int for i in members):
        raise DamagedDatabase("a game's chance names a damaged set")
    if members:
        marks = ",".join("?" * len(members))
        (have,) = conn.execute(f"SELECT COUNT(*) FROM games WHERE league = ? AND idx IN "
                               f"({marks})", (league, *members)).fetchone()
        if have < len(set(members)):
            return None
    return {_text(k, 40): _text(v, 400) for k, v in d.items()}


def list_games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every stored game of every league: id, league, index, seats, status (cleaned)."""
    rows = conn.execute("SELECT id, league, idx, seats, status FROM games ORDER BY id")
    out = []
    for r in rows:
        seats = _json(r[3], [])
        if not isinstance(seats, list):
            raise DamagedDatabase("a game's seats have the wrong shape")
        out.append({"id": _int(r[0], "a game id"), "league": _int(r[1], "a league id"),
                    "index": _int(r[2], "a game index"),
                    "seats": [_text(x, 100) for x in seats], "status": _text(r[4], 20)})
    return out


def league_info(conn: sqlite3.Connection, league: int) -> dict[str, Any]:
    """A league's settings, entries (names and specs cleaned), mode and clock,
    every value checked (raises :class:`DamagedDatabase`)."""
    row = conn.execute("SELECT seed, settings, entries, games, mode, clock FROM leagues "
                       "WHERE id = ?", (league,)).fetchone()
    if row is None:
        raise KeyError(f"no league {league}")
    settings = _json(row[1], {})
    entries = _json(row[2], [])
    clock = _json(row[5])
    if not isinstance(settings, dict) or not isinstance(entries, list) \
            or any(not isinstance(e, dict) for e in entries) \
            or not (clock is None or isinstance(clock, dict)):
        raise DamagedDatabase("a league's settings have the wrong shape")
    settings["players"] = _int(settings.get("players", 4), "players", 2, 8)
    if clock is not None:
        clock = {k: _number(clock.get(k), k)
                 for k in ("clock_ms", "clock_increment_ms", "clock_timeouts")}
    return {"id": league, "seed": _int(row[0], "a seed"), "settings": settings,
            "entries": [{"name": _text(e.get("name", ""), 100),
                         "spec": _text(e.get("spec", ""), 500)} for e in entries],
            "games": _int(row[3], "games", 0), "mode": _text(row[4] or "ordinary", 20),
            "clock": clock}
