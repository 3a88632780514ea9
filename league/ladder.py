"""The live ladder (``kaitaku server --ladder``): bots from anywhere, matched and
rated while the server runs.

A bot author registers a name (``ladder_register``; the answer holds a secret
key, of which the ladder keeps only a salted scrypt hash) and connects from
anywhere (TLS on a server with a certificate). A connection that says
``ladder_ready {name, key, games}`` is queued for that many games. Whenever
enough bots wait for a table of :attr:`LadderConfig.players`, the ladder seats
the longest-waiting ones at a table of their own: a *duplicate set* (the same
board and starting seat in every seat rotation, played one rotation after the
other; each rotation draws its own dice, cards and steals, since a bot has
seen the last one's) when each of them still wants as many games as the set
has, otherwise one game with the seats in a random rotation.
Games run under the ladder's chess clock (:mod:`server.clock`); a bot that
runs out of time too often, or whose connection stays away past the grace,
forfeits (a built-in bot finishes its seat; it ranks last). Each finished game
is stored with its log and rated at once (openskill Plackett-Luce, as
leagues are); ``ladder_standings`` and the web page (:mod:`league.ladder_web`)
show the standings.

The ladder plugs into the server as its :class:`~server.app.Extension`: the
server routes the ladder's messages here and tells it of every session that
ends; the games are ordinary tables (listed, watchable), kept out of the
server's own database: the ladder's database (:class:`LadderStore`) holds
their records. A game that was running when the server stopped is stored as
``aborted`` and not rated.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import random
import secrets
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.rules import GameLog, RulesError, Settings
from protocol.rules.chance import SALT_BYTES as CHANCE_SALT
from protocol.rules.chance import Reveal
from protocol.wire import clean_text
from protocol.wire.messages import (
    LADDER_GAMES_MAX,
    LADDER_MESSAGES,
    MAX_NAME,
    MAX_PAGE,
    minor_needed,
)
from server.clock import Clock
from server.session import Session
from server.table import Table

from .games import ENGINE_TURN_CAP, rank_seats
from .names import name_keys
from .ratings import prior, rate_one

log = logging.getLogger("kaitaku.ladder")

KEY_HASH = "hmac-sha256"
"""How stored keys are hashed: HMAC-SHA256 of the key under the bot's own 16-byte
salt. A key is 192 random bits (:func:`new_key`), so no slow hash is needed to
resist guessing, and a check costs microseconds: nobody's wrong keys can keep
the ladder from checking others'."""
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1
"""The costs of the scrypt hashes older ladder databases hold (``kdf`` 'scrypt'):
such a key is checked once, in a worker thread of its own, and stored again
as HMAC-SHA256 when it matches."""
SALT_BYTES = 16
ATTEMPTS_PER_MINUTE = 20
"""Key checks (``ladder_ready``) one address may ask for a minute."""
REGISTRATIONS_PER_HOUR = 10
"""Names one address may register an hour (``ladder_register``)."""
MAX_BOTS = 10_000
"""Names the ladder holds at most."""
NAMES_PER_OWNER = 20
"""Names one owner (one registration address) may hold."""
NAME_EXPIRY_DAYS = 30.0
"""A name that has played no game and not said ``ladder_ready`` for this many
days is forgotten when the ladder is full and someone registers."""
STANDINGS_PER_SECOND = 5
"""``ladder_standings`` one connection may ask for a second (more: ``rate_limited``)."""
SUSPENSION = 60.0
"""Seconds a bot is kept off the ladder after its first forfeit (doubled after
each forfeit in a row, up to MAX_SUSPENSION); a game played to the end
without a forfeit resets it."""
MAX_SUSPENSION = 86_400.0
MATCH_WIDTH = 1.0
"""Matchmaking: a bot accepts table-mates whose mu is within MATCH_WIDTH times
its sigma, plus MATCH_WIDEN per second it has waited."""
MATCH_WIDEN = 0.1
MATCH_RETRY = 2.0
"""Seconds between matchmaking rounds while bots wait that could not be seated."""
DEFAULT_CLOCK = Clock(60_000, 2_000, 3)
"""A ladder's clock unless its organiser chooses one: 60 s + 2 s, 3 timeouts forfeit."""


def new_key() -> str:
    """A bot's secret key (192 random bits, URL-safe text)."""
    return secrets.token_urlsafe(24)


def hash_key(key: str, salt: bytes) -> bytes:
    """The stored form of a key (HMAC-SHA256 under the bot's own salt)."""
    return hmac.new(salt, key.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()


def scrypt_key(key: str, salt: bytes) -> bytes:
    """The stored form of a key in older ladder databases (``kdf`` 'scrypt')."""
    return hashlib.scrypt(key.encode("utf-8", "surrogatepass"), salt=salt, n=SCRYPT_N,
                          r=SCRYPT_R, p=SCRYPT_P, dklen=32)


def key_matches(key: str, salt: bytes, stored: bytes, kdf: str = KEY_HASH) -> bool:
    made = hash_key(key, salt) if kdf == KEY_HASH else scrypt_key(key, salt)
    return hmac.compare_digest(made, stored)


def owner_of(address: str) -> str:
    """The owner of names registered from ``address``: the address (an IPv6
    address's /64 network, which one host usually holds whole)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"addr:{address}"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address):
        return f"addr:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
    return f"addr:{ip}"


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """How a ladder plays (``kaitaku server --ladder-...``)."""

    players: int = 4
    clock: Clock = DEFAULT_CLOCK
    grace: float = 60.0
    """Seconds a dropped bot's seat waits before a stand-in plays it (and the
    game counts as a forfeit for it)."""
    vp_target: int = 10
    turn_cap: int = ENGINE_TURN_CAP
    duplicate: bool = True
    """Play duplicate sets where every bot of a table still wants that many games."""
    open_registration: bool = True
    """Anyone may register a name over the protocol (else only the organiser,
    ``kaitaku ladder register --db``)."""
    seed: int | None = None
    """Seeds the boards (None: a fresh random seed for each set)."""

    def __post_init__(self) -> None:
        Settings(players=self.players, vp_target=self.vp_target, turn_cap=self.turn_cap)
        if not 0 <= self.grace <= 3600:
            raise ValueError("the grace is 0 to 3600 seconds")


# --- the database -------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    folded TEXT NOT NULL UNIQUE,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    created REAL NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    forfeits INTEGER NOT NULL DEFAULT 0,
    timeouts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    rotations INTEGER NOT NULL,
    table_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    winner INTEGER,
    vp TEXT,
    ranks TEXT,
    forfeits TEXT,
    timeouts TEXT,
    turns INTEGER,
    decisions INTEGER,
    started REAL NOT NULL,
    finished REAL,
    times TEXT,
    log TEXT
);
CREATE TABLE IF NOT EXISTS ratings (
    game INTEGER NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (game, name)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS name_keys (key TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS name_keys_by_name ON name_keys(name);
"""

_ADDED_COLUMNS = (
    ("bots", "kdf", "TEXT NOT NULL DEFAULT 'scrypt'"),
    ("bots", "owner", "TEXT"),
    ("bots", "last_seen", "REAL"),
    ("bots", "suspended_until", "REAL NOT NULL DEFAULT 0"),
    ("bots", "strikes", "INTEGER NOT NULL DEFAULT 0"),
    ("games", "events", "TEXT"),
)
"""Columns newer than the first ladder databases (added when an older one is
opened; its keys stay scrypt hashes until each bot's next login)."""

_INDEXES = """
CREATE INDEX IF NOT EXISTS bots_by_ordinal ON bots((mu - 3 * sigma) DESC, name);
CREATE INDEX IF NOT EXISTS bots_by_owner ON bots(owner);
CREATE INDEX IF NOT EXISTS games_by_status ON games(status);
CREATE INDEX IF NOT EXISTS games_by_match ON games(match, status);
CREATE INDEX IF NOT EXISTS ratings_by_name_game ON ratings(name, game);
"""


@dataclass(slots=True)
class BotRow:
    """A registered bot as the ladder keeps it in memory (:class:`Standings`)."""

    name: str
    owner: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    forfeits: int = 0
    timeouts: int = 0
    suspended_until: float = 0.0
    strikes: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def entry(self, rank: int) -> dict[str, Any]:
        return {"rank": rank, "name": self.name, "mu": round(self.mu, 4),
                "sigma": round(self.sigma, 4), "ordinal": round(self.ordinal, 4),
                "games": self.games, "wins": self.wins, "forfeits": self.forfeits,
                "timeouts": self.timeouts}


class Standings:
    """Every registered bot in memory, kept in order (ordinal, best first; then
    name): a page of the standings is a slice, whatever its offset; a game
    moves only its own bots (a bisection each)."""

    def __init__(self, rows: Sequence[BotRow], games: int) -> None:
        self.rows: dict[str, BotRow] = {r.name: r for r in rows}
        self.order: list[tuple[float, str]] = sorted((-r.ordinal, r.name) for r in rows)
        self.games = games
        """Games rated on the ladder."""

    def __len__(self) -> int:
        return len(self.rows)

    def get(self, name: str) -> BotRow | None:
        return self.rows.get(name)

    def put(self, row: BotRow) -> None:
        self.drop(row.name)
        self.rows[row.name] = row
        bisect.insort(self.order, (-row.ordinal, row.name))

    def drop(self, name: str) -> None:
        old = self.rows.pop(name, None)
        if old is not None:
            i = bisect.bisect_left(self.order, (-old.ordinal, old.name))
            if i < len(self.order) and self.order[i][1] == name:
                del self.order[i]

    def rerate(self, name: str, mu: float, sigma: float) -> None:
        row = self.rows.get(name)
        if row is not None:
            self.drop(name)
            row.mu, row.sigma = mu, sigma
            self.put(row)

    def page(self, offset: int, limit: int) -> list[dict[str, Any]]:
        return [self.rows[name].entry(offset + i + 1)
                for i, (_, name) in enumerate(self.order[offset:offset + limit])]


class LadderStore:
    """The ladder's SQLite database: registered bots (name, owner, salted key
    hash, rating, suspension), games (seats, result, log, decision times, what
    befell each seat) and the rating after each game. Opened by the server's
    event loop; the web page reads the same file with connections of its own
    (:func:`read_standings`, ...)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        refused = ValueError(f"{str(self.path)!r} is not a ladder database (another "
                             "program's, or a league's or game server's: give the ladder "
                             "a file of its own)")
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None)
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            kind = (self.db.execute("SELECT value FROM meta WHERE key = 'kind'").fetchone()
                    if "meta" in tables else None)
            if tables and (kind is None or kind[0] != "kaitaku-ladder"):
                self.db.close()
                raise refused
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            for table, column, decl in _ADDED_COLUMNS:
                have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                if column not in have:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
            self.db.executescript(_INDEXES)
            if kind is None:
                self.db.execute("INSERT INTO meta VALUES ('kind', 'kaitaku-ladder')")
            self._index_names()
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{str(self.path)!r} is not a ladder database ({exc})") from None
        aborted = self.db.execute(
            "UPDATE games SET status = 'aborted', error = 'the server stopped during the "
            "game', finished = ? WHERE status = 'playing'", (time.time(),)).rowcount
        if aborted:
            log.warning("%d ladder games were running when the server stopped: stored as "
                        "aborted, not rated", aborted)

    def _index_names(self) -> None:
        """Give every name its look-alike keys (a database from before they were kept)."""
        missing = self.db.execute(
            "SELECT name FROM bots WHERE name NOT IN (SELECT name FROM name_keys) "
            "ORDER BY created").fetchall()
        for (name,) in missing:
            for k in name_keys(name):
                self.db.execute("INSERT OR IGNORE INTO name_keys VALUES (?, ?)", (k, name))

    def close(self) -> None:
        self.db.close()

    _BOT_COLUMNS = ("name, owner, mu, sigma, games, wins, forfeits, timeouts, "
                    "suspended_until, strikes")

    @staticmethod
    def _bot(r: Sequence[Any]) -> BotRow:
        return BotRow(str(r[0]), str(r[1] or f"name:{r[0]}"), float(r[2]), float(r[3]),
                      int(r[4]), int(r[5]), int(r[6]), int(r[7]), float(r[8]), int(r[9]))

    def bot_row(self, name: str) -> BotRow | None:
        r = self.db.execute(f"SELECT {self._BOT_COLUMNS} FROM bots WHERE name = ?",
                            (name,)).fetchone()
        return self._bot(r) if r is not None else None

    def standings(self) -> Standings:
        """Every bot, in memory (the protocol's standings and matchmaking)."""
        rows = [self._bot(r) for r in self.db.execute(f"SELECT {self._BOT_COLUMNS} FROM bots")]
        games = self.db.execute("SELECT COUNT(*) FROM games WHERE status = 'ok'").fetchone()[0]
        return Standings(rows, int(games))

    # -- bots ---------------------------------------------------------------------------

    def register(self, name: str, key: str, owner: str | None = None) -> bool:
        """Store a new name with its key's hash; False if a name that looks the
        same is taken, the owner holds NAMES_PER_OWNER names or the ladder is full
        (:meth:`refusal` says which)."""
        salt = os.urandom(SALT_BYTES)
        return self.add(name, salt, hash_key(key, salt), owner) is not None

    def refusal(self, name: str, owner: str | None = None) -> str | None:
        """Why ``name`` cannot be registered by ``owner`` now (None: it can). A
        full ladder first forgets its expired names (NAME_EXPIRY_DAYS)."""
        keys = name_keys(name)
        if not keys or not "".join(keys).strip():
            return "a name needs a printable character"
        marks = ",".join("?" * len(keys))
        like = self.db.execute(f"SELECT name FROM name_keys WHERE key IN ({marks}) LIMIT 1",
                               tuple(keys)).fetchone()
        if like is not None:
            same = "" if like[0] == name else f" (as {like[0]!r}, which looks the same)"
            return f"the name {name!r} is taken{same}"
        if owner is not None:
            held = self.db.execute("SELECT COUNT(*) FROM bots WHERE owner = ?",
                                   (owner,)).fetchone()[0]
            if held >= NAMES_PER_OWNER:
                return (f"one owner (registration address) holds at most {NAMES_PER_OWNER} "
                        "names")
        if self.count() >= MAX_BOTS:
            self.expire()
            if self.count() >= MAX_BOTS:
                return (f"the ladder is full ({MAX_BOTS} names); names that played no game "
                        f"for {NAME_EXPIRY_DAYS:g} days make room")
        return None

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM bots").fetchone()[0])

    def expire(self, now: float | None = None) -> list[str]:
        """Forget the names that never played and were not seen for NAME_EXPIRY_DAYS."""
        cutoff = (time.time() if now is None else now) - NAME_EXPIRY_DAYS * 86400
        gone = [r[0] for r in self.db.execute(
            "SELECT name FROM bots WHERE games = 0 AND COALESCE(last_seen, created) < ?",
            (cutoff,))]
        for name in gone:
            self.db.execute("DELETE FROM bots WHERE name = ?", (name,))
            self.db.execute("DELETE FROM name_keys WHERE name = ?", (name,))
        if gone:
            log.info("ladder: %d unused names expired", len(gone))
        return gone

    def add(self, name: str, salt: bytes, hashed: bytes,
            owner: str | None = None) -> BotRow | None:
        """:meth:`register` with the hash made already; the new bot, or None.

        A new name starts from the prior (mu, sigma), except that its mu is at
        most the lowest mu among its owner's rated names: a fresh name does not
        wash out its owner's rating."""
        if self.refusal(name, owner) is not None:
            return None
        owner = owner or f"name:{name}"
        mu, sigma = prior()
        low = self.db.execute("SELECT MIN(mu) FROM bots WHERE owner = ? AND games > 0",
                              (owner,)).fetchone()[0]
        if low is not None:
            mu = min(mu, float(low))
        now = time.time()
        self.db.execute("BEGIN")
        try:
            keys = name_keys(name)
            self.db.execute(
                "INSERT INTO bots (name, folded, salt, hash, created, mu, sigma, kdf, owner, "
                "last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, min(keys), salt, hashed, now, mu, sigma, KEY_HASH, owner, now))
            for k in keys:
                self.db.execute("INSERT INTO name_keys VALUES (?, ?)", (k, name))
            self.db.execute("COMMIT")
        except sqlite3.IntegrityError:
            self.db.execute("ROLLBACK")
            return None
        return BotRow(name, owner, mu, sigma)

    def taken(self, name: str) -> bool:
        keys = name_keys(name)
        marks = ",".join("?" * len(keys))
        return self.db.execute(f"SELECT 1 FROM name_keys WHERE key IN ({marks})",
                               tuple(keys)).fetchone() is not None

    def credentials(self, name: str) -> tuple[bytes, bytes, str] | None:
        """(salt, stored hash, how it was hashed) of a registered name."""
        row = self.db.execute("SELECT salt, hash, kdf FROM bots WHERE name = ?",
                              (name,)).fetchone()
        return (bytes(row[0]), bytes(row[1]), str(row[2])) if row else None

    def rehash(self, name: str, key: str) -> None:
        """Store a (checked) key again as HMAC-SHA256 (an older database's scrypt hash)."""
        salt = os.urandom(SALT_BYTES)
        self.db.execute("UPDATE bots SET salt = ?, hash = ?, kdf = ? WHERE name = ?",
                        (salt, hash_key(key, salt), KEY_HASH, name))

    def seen(self, name: str) -> None:
        self.db.execute("UPDATE bots SET last_seen = ? WHERE name = ?", (time.time(), name))

    def suspend(self, name: str, until: float, strikes: int) -> None:
        self.db.execute("UPDATE bots SET suspended_until = ?, strikes = ? WHERE name = ?",
                        (until, strikes, name))

    def rating(self, name: str) -> tuple[float, float]:
        row = self.db.execute("SELECT mu, sigma FROM bots WHERE name = ?", (name,)).fetchone()
        return (float(row[0]), float(row[1])) if row else prior()

    # -- games --------------------------------------------------------------------------

    def start_game(self, match: int, rotation: int, rotations: int, table_id: str, seed: int,
                   seats: Sequence[str]) -> int:
        cur = self.db.execute(
            "INSERT INTO games (match, rotation, rotations, table_id, seed, seats, status, "
            "started) VALUES (?, ?, ?, ?, ?, ?, 'playing', ?)",
            (match, rotation, rotations, table_id, seed, json.dumps(list(seats)), time.time()))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def abort_game(self, game: int, why: str) -> None:
        self.db.execute("UPDATE games SET status = 'aborted', error = ?, finished = ? "
                        "WHERE id = ? AND status = 'playing'", (why[:300], time.time(), game))

    def finish_game(self, game: int, seats: Sequence[str], winner: int | None,
                    vp: Sequence[int], forfeits: Sequence[int], timeouts: Sequence[int],
                    turns: int, decisions: int, times: Sequence[Sequence[float]],
                    log_json: str, events: Sequence[Sequence[str]] = ()
                    ) -> list[tuple[float, float]]:
        """Store a finished game and rate it (one transaction); the seats' new
        (mu, sigma)."""
        ranks = rank_seats(vp, winner, forfeits)
        new = rate_one([self.rating(n) for n in seats], ranks)
        self.db.execute("BEGIN")
        try:
            self.db.execute(
                "UPDATE games SET status = 'ok', winner = ?, vp = ?, ranks = ?, forfeits = ?, "
                "timeouts = ?, turns = ?, decisions = ?, finished = ?, times = ?, log = ?, "
                "events = ? WHERE id = ?",
                (winner, json.dumps(list(vp)), json.dumps(ranks), json.dumps(list(forfeits)),
                 json.dumps(list(timeouts)), turns, decisions, time.time(),
                 json.dumps([list(t) for t in times]), log_json,
                 json.dumps([list(e) for e in events]), game))
            for q, (name, (mu, sigma)) in enumerate(zip(seats, new, strict=True)):
                self.db.execute(
                    "UPDATE bots SET mu = ?, sigma = ?, games = games + 1, wins = wins + ?, "
                    "forfeits = forfeits + ?, timeouts = timeouts + ? WHERE name = ?",
                    (mu, sigma, int(winner == q and q not in forfeits), int(q in forfeits),
                     timeouts[q] if q < len(timeouts) else 0, name))
                self.db.execute("INSERT INTO ratings VALUES (?, ?, ?, ?)",
                                (game, name, mu, sigma))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return new


# --- reading (the protocol's standings, the web page) -------------------------------------


def open_read_only(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection to a ladder database (the web page's)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


class Unreadable(ValueError):
    """A row of the ladder's database that cannot be read (damaged, or not a ladder's)."""


def _json(text: Any, what: str) -> Any:
    """A JSON column's value; :class:`Unreadable` for anything that is not JSON
    (nested too deep included)."""
    if text is None:
        return None
    if not isinstance(text, str | bytes):
        raise Unreadable(f"the {what} cannot be read (not text)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError, MemoryError):
        raise Unreadable(f"the {what} cannot be read (damaged)") from None


def read_standings(conn: sqlite3.Connection, offset: int = 0,
                   limit: int = MAX_PAGE) -> tuple[list[dict[str, Any]], int, int]:
    """(entries best first, how many bots, how many games rated), from the
    database's indexes (the ordinal index, the games' status index)."""
    rows = conn.execute(
        "SELECT name, mu, sigma, games, wins, forfeits, timeouts FROM bots "
        "ORDER BY mu - 3 * sigma DESC, name LIMIT ? OFFSET ?", (limit, offset)).fetchall()
    total = conn.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
    games = conn.execute("SELECT COUNT(*) FROM games WHERE status = 'ok'").fetchone()[0]
    out = [{"rank": offset + i + 1, "name": clean_text(str(r[0]), MAX_NAME * 4),
            "mu": round(float(r[1]), 4), "sigma": round(float(r[2]), 4),
            "ordinal": round(float(r[1]) - 3 * float(r[2]), 4),
            "games": int(r[3]), "wins": int(r[4]), "forfeits": int(r[5]),
            "timeouts": int(r[6])} for i, r in enumerate(rows)]
    return out, int(total), int(games)


HISTORY_POINTS = 500
"""Ratings per bot in :func:`read_history` (its latest games)."""


def read_history(conn: sqlite3.Connection, names: Sequence[str]
                 ) -> dict[str, list[tuple[int, float, float]]]:
    """Each bot's rating after each of its latest HISTORY_POINTS rated games, by
    the ladder's game number: (game id - 1, mu, sigma); the prior first."""
    mu0, sigma0 = prior()
    out: dict[str, list[tuple[int, float, float]]] = {}
    for name in names:
        rows = conn.execute("SELECT game, mu, sigma FROM ratings WHERE name = ? "
                            "ORDER BY game DESC LIMIT ?", (name, HISTORY_POINTS)).fetchall()
        out[name] = [(-1, mu0, sigma0)] + sorted((int(g) - 1, float(mu), float(sg))
                                                 for g, mu, sg in rows)
    return out


def last_game(conn: sqlite3.Connection) -> int:
    """The highest game number (0: none yet)."""
    return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0])


@dataclass(slots=True)
class LadderGame:
    id: int
    match: int
    rotation: int
    rotations: int
    table_id: str
    seed: int
    seats: list[str]
    status: str
    error: str | None
    winner: int | None
    vp: list[int]
    ranks: list[int]
    forfeits: list[int]
    timeouts: list[int]
    turns: int
    decisions: int
    started: float
    finished: float | None
    times: list[list[float]] = field(default_factory=list)
    events: list[list[str]] = field(default_factory=list)
    """Per seat: what the server saw befall it (timeouts, refused actions,
    disconnections, its forfeit and why)."""


_GAME_COLUMNS = ("id, match, rotation, rotations, table_id, seed, seats, status, error, winner, "
                 "vp, ranks, forfeits, timeouts, turns, decisions, started, finished, times, "
                 "events")


def _game(r: Sequence[Any]) -> LadderGame:
    """A games row; :class:`Unreadable` if it is damaged."""
    def arr(v: Any, what: str) -> list[Any]:
        out = _json(v, what)
        return out if isinstance(out, list) else []

    def ints(v: Any, what: str) -> list[int]:
        return [x for x in arr(v, what) if type(x) is int]

    def nested(v: Any, what: str, kind: Any) -> list[list[Any]]:
        return [[x for x in seat if isinstance(x, kind) and not isinstance(x, bool)]
                if isinstance(seat, list) else [] for seat in arr(v, what)]

    try:
        return LadderGame(
            int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]), int(r[5]),
            [clean_text(str(n), MAX_NAME * 4) for n in arr(r[6], "seats")],
            clean_text(str(r[7]), 40), None if r[8] is None else clean_text(str(r[8]), 300),
            r[9] if type(r[9]) is int else None, ints(r[10], "points"),
            ints(r[11], "ranks"), ints(r[12], "forfeits"), ints(r[13], "timeouts"),
            int(r[14] or 0), int(r[15] or 0), float(r[16]),
            float(r[17]) if isinstance(r[17], int | float) else None,
            nested(r[18], "decision times", int | float),
            [[clean_text(e, 300) for e in seat] for seat in nested(r[19], "seat events", str)])
    except (TypeError, ValueError, OverflowError) as exc:
        raise Unreadable(f"the game's row cannot be read ({exc})") from None


def read_games(conn: sqlite3.Connection, limit: int = 50) -> list[LadderGame]:
    """The most recent games, newest first (damaged rows left out)."""
    rows = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT ?",
                        (limit,)).fetchall()
    out = []
    for r in rows:
        with contextlib.suppress(Unreadable):
            out.append(_game(r))
    return out


def read_game(conn: sqlite3.Connection, game_id: int, with_log: bool = True
              ) -> tuple[LadderGame, GameLog | None]:
    """One game and its log (None while it runs, if it was aborted, or without
    ``with_log``). KeyError: no such game; :class:`Unreadable`: its row or log
    is damaged."""
    row = conn.execute(f"SELECT {_GAME_COLUMNS}{', log' if with_log else ''} FROM games "
                       "WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"no ladder game {game_id}")
    return _game(row), read_log(row[-1]) if with_log else None


def read_log(text: Any) -> GameLog | None:
    """A stored log (``GameLog.to_dict()`` as JSON); :class:`Unreadable` if damaged."""
    data = _json(text, "game's log")
    if data is None:
        return None
    try:
        return GameLog.from_dict(data)
    except (RulesError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise Unreadable(f"the game's log cannot be read ({str(exc)[:200]})") from None


def read_decision_times(conn: sqlite3.Connection, names: Sequence[str],
                        games: int = 200) -> dict[str, list[float]]:
    """Each bot's decision times (ms) over the last ``games`` rated games."""
    out: dict[str, list[float]] = {n: [] for n in names}
    for seats, times in conn.execute(
            "SELECT seats, times FROM games WHERE status = 'ok' ORDER BY id DESC LIMIT ?",
            (games,)):
        try:
            names_at = _json(seats, "seats")
            per_seat = _json(times or "[]", "decision times")
        except Unreadable:
            continue
        if not isinstance(names_at, list) or not isinstance(per_seat, list):
            continue
        for name, ts in zip(names_at, per_seat, strict=False):
            if isinstance(name, str) and name in out and isinstance(ts, list):
                out[name].extend(float(t) / 1000 for t in ts
                                 if isinstance(t, int | float) and not isinstance(t, bool))
    return out


# --- the ladder itself --------------------------------------------------------------------


@dataclass(eq=False)
class _Ready:
    """A connected bot that wants games."""

    name: str
    session: Session
    remaining: int
    since: float = 0.0
    """When it (last) began to wait (the event loop's clock)."""
    match: _Match | None = None


@dataclass(eq=False)
class _Match:
    """One table's worth of bots: a duplicate set (``rotations`` games) or one game."""

    id: int
    names: list[str]
    deal: bytes
    """The set's deal key: every rotation's board and starting seat."""
    rotations: int
    offset: int
    played: int = 0
    table: Table[Session] | None = None
    game: int | None = None
    seating: list[str] = field(default_factory=list)


def _game_log(table: Table[Session]) -> GameLog:
    """A finished ladder game's log with its revealed chance."""
    assert table.game is not None
    log_ = GameLog.of(table.game)
    if table.reveal is None:
        return log_
    return dataclasses.replace(log_, chance=table.reveal.to_dict())


class _Bucket:
    """At most ``rate`` events per ``per`` seconds for one key."""

    def __init__(self, rate: int, per: float) -> None:
        self.rate = rate
        self.per = per
        self.events: dict[Any, deque[float]] = {}

    def allow(self, key: Any, now: float) -> bool:
        q = self.events.setdefault(key, deque())
        while q and q[0] <= now - self.per:
            q.popleft()
        if len(self.events) > 10_000:  # forget idle keys
            for k in [k for k, v in self.events.items() if not v and k != key]:
                del self.events[k]
        if len(q) >= self.rate:
            return False
        q.append(now)
        return True

    def forget(self, key: Any) -> None:
        self.events.pop(key, None)


def pick_table(idle: Sequence[tuple[str, str, float, float, float]], players: int,
               width: float = MATCH_WIDTH, widen: float = MATCH_WIDEN
               ) -> list[int] | None:
    """The ladder's matchmaking rule: a table for the first waiting bot that has
    one. ``idle``: (name, owner, mu, sigma, seconds waited) of each waiting bot,
    the longest-waiting first. Each bot's *reach* is ``width`` times its sigma
    plus ``widen`` per second it has waited; two bots may share a table when
    their mu differ by at most the sum of their reaches (a new bot, whose sigma
    is large, meets many; settled bots meet near equals; anyone's reach grows
    while it waits) and their owners differ. The anchor (the longest-waiting
    bot that can be seated) takes the nearest in mu that fit with every bot
    chosen so far. The chosen indexes into ``idle`` (the anchor first), or
    None when no table can be made now."""
    reach = [width * sg + widen * waited for _, _, _, sg, waited in idle]
    farthest = max(reach, default=0.0)
    order = sorted(range(len(idle)), key=lambda i: (idle[i][2], i))
    where = {i: k for k, i in enumerate(order)}
    for a, (_, owner_a, mu_a, _, _) in enumerate(idle):
        chosen = [a]
        owners = {owner_a}
        lo = hi = where[a]
        limit = reach[a] + farthest  # nobody farther in mu can fit with the anchor
        while len(chosen) < players:
            left = order[lo - 1] if lo > 0 else None
            right = order[hi + 1] if hi + 1 < len(order) else None
            if left is None and right is None:
                break
            if right is None or (left is not None
                                 and mu_a - idle[left][2] <= idle[right][2] - mu_a):
                b, lo = left, lo - 1
            else:
                b, hi = right, hi + 1
            assert b is not None
            if abs(idle[b][2] - mu_a) > limit:
                break  # the nearest left is out of reach: so is everyone farther
            if idle[b][1] in owners:
                continue
            if all(abs(idle[b][2] - idle[c][2]) <= reach[b] + reach[c] for c in chosen):
                chosen.append(b)
                owners.add(idle[b][1])
        if len(chosen) == players:
            return chosen
    return None


class Ladder:
    """The ladder, as the server's :class:`~server.app.Extension`."""

    messages = LADDER_MESSAGES

    def __init__(self, db: str | os.PathLike[str], config: LadderConfig | None = None) -> None:
        self.config = config or LadderConfig()
        self.store = LadderStore(db)
        self.standings = self.store.standings()
        self.server: Any = None
        self.ready: dict[str, _Ready] = {}
        self.queue: list[str] = []
        """Ready bots in the order they became ready (or last finished a match)."""
        self.by_session: dict[Session, str] = {}
        self.matches: list[_Match] = []
        self._next_match = int(self.store.db.execute(
            "SELECT COALESCE(MAX(match), 0) FROM games").fetchone()[0]) + 1
        self._rng = (random.Random(self.config.seed) if self.config.seed is not None
                     else random.SystemRandom())
        self._attempts = _Bucket(ATTEMPTS_PER_MINUTE, 60.0)
        self._registrations = _Bucket(REGISTRATIONS_PER_HOUR, 3600.0)
        self._standings_asked = _Bucket(STANDINGS_PER_SECOND, 1.0)
        self._legacy = ThreadPoolExecutor(1, thread_name_prefix="kaitaku-ladder-scrypt")
        """Checks of older databases' scrypt hashes: one at a time, away from the
        event loop and from the default executor."""
        self._legacy_busy: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._retry: asyncio.TimerHandle | None = None
        self.on_game: Callable[[int], None] | None = None
        """Called with a game's id when it has been stored and rated (tests, logs)."""

    # -- the extension interface ----------------------------------------------------------

    def attach(self, server: Any) -> None:
        self.server = server
        c = self.config
        log.info("ladder: %d-player tables, clock %s, grace %g s, %s, registration %s",
                 c.players, c.clock.text(), c.grace,
                 "duplicate sets" if c.duplicate else "single games",
                 "open" if c.open_registration else "closed")

    def gauges(self) -> dict[str, int]:
        """For the server's metrics: bots queued for a game, ladder games in play."""
        return {"queue": len(self.queue),
                "games": sum(1 for m in self.matches if m.table is not None
                             and m.table.status == "playing")}

    def handle(self, sess: Session, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "ladder_standings":
            self._standings(sess, msg)
        elif kind == "ladder_register":
            try:
                self._register(sess, msg)
            except Exception:
                self._failed(sess, kind)
        elif kind == "ladder_ready":
            self._spawn(self._ready(sess, msg), sess, kind)

    def forget(self, sess: Session) -> None:
        self._standings_asked.forget(sess)
        name = self.by_session.pop(sess, None)
        if name is None:
            return
        entry = self.ready.get(name)
        if entry is None or entry.session is not sess:
            return
        del self.ready[name]
        with contextlib.suppress(ValueError):
            self.queue.remove(name)
        m = entry.match
        if m is not None and m.table is not None and m.table.status == "waiting":
            self._suspend(name, "it left before its table's game started")
            self._abort(m, f"{name} left before the game started")
        log.info("ladder: %s left", name)

    async def close(self) -> None:
        for m in list(self.matches):
            if m.game is not None:
                self.store.abort_game(m.game, "the server stopped during the game")
        self.matches.clear()
        if self._retry is not None:
            self._retry.cancel()
        for t in list(self._tasks):
            t.cancel()
        self._legacy.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    @staticmethod
    def _failed(sess: Session, kind: str) -> None:
        """The answer to ``sess``'s ``kind`` message failed: logged once, and
        answered with ``internal_error`` (the client never waits for ever)."""
        log.exception("ladder: the answer to %s failed", kind)
        sess.error("internal_error", f"the ladder failed on {kind}")

    def _spawn(self, coro: Any, sess: Session, kind: str) -> None:
        """Run the answer to ``sess``'s ``kind`` message; a failure is logged once
        and answered with ``internal_error`` (the client never waits for ever)."""

        async def answer() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except Exception:
                self._failed(sess, kind)

        task = asyncio.ensure_future(answer())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- messages -----------------------------------------------------------------------

    def _standings(self, sess: Session, msg: dict[str, Any]) -> None:
        """One page of the standings, from memory (a slice of the ordered index);
        at most STANDINGS_PER_SECOND a connection."""
        if not self._standings_asked.allow(sess, time.monotonic()):
            sess.error("rate_limited", f"at most {STANDINGS_PER_SECOND} standings a second "
                                       "on one connection")
            return
        offset = max(0, msg.get("offset") or 0)
        limit = min(MAX_PAGE, max(1, msg.get("limit") or MAX_PAGE))
        st = self.standings
        sess.send({"type": "ladder", "entries": [
            {**e, "ready": e["name"] in self.ready} for e in st.page(offset, limit)],
            "total": len(st), "offset": offset, "games": st.games})

    def _register(self, sess: Session, msg: dict[str, Any]) -> None:
        if not self.config.open_registration:
            sess.error("name_taken", "registration is closed on this ladder: ask its "
                                     "organiser for a name and key")
            return
        name = clean_text(msg["name"], MAX_NAME)
        if not name:
            sess.error("name_taken", "a name needs a printable character")
            return
        if not self._registrations.allow(sess.address, time.monotonic()):
            sess.error("name_taken", f"at most {REGISTRATIONS_PER_HOUR} names may be "
                                     "registered from one address an hour")
            return
        owner = owner_of(sess.address)
        why = self.store.refusal(name, owner)
        key, salt = new_key(), os.urandom(SALT_BYTES)
        row = self.store.add(name, salt, hash_key(key, salt), owner) if why is None else None
        if row is None:
            sess.error("name_taken", why or f"the name {name!r} is taken")
            return
        self.standings.put(row)
        sess.log(logging.INFO, "ladder: registered %r", name)
        sess.send({"type": "ladder_registered", "name": name, "key": key})

    async def _check(self, name: str, key: str) -> bool | None:
        """Whether ``key`` is ``name``'s (microseconds; an older database's scrypt
        hash in the one legacy worker, at most one check per name at a time:
        None while another check of the name runs)."""
        creds = self.store.credentials(name)
        if creds is None:
            return False
        salt, stored, kdf = creds
        if kdf == KEY_HASH:
            return key_matches(key, salt, stored)
        if name in self._legacy_busy:
            return None
        self._legacy_busy.add(name)
        try:
            ok = await asyncio.get_running_loop().run_in_executor(
                self._legacy, key_matches, key, salt, stored, kdf)
        finally:
            self._legacy_busy.discard(name)
        if ok:
            self.store.rehash(name, key)
        return ok

    async def _ready(self, sess: Session, msg: dict[str, Any]) -> None:
        if sess in self.by_session:
            sess.error("ladder_busy", "this connection is on the ladder already")
            return
        games = msg["games"]
        if not 1 <= games <= LADDER_GAMES_MAX:
            sess.error("bad_settings", f"ladder_ready.games is 1 to {LADDER_GAMES_MAX}")
            return
        need = minor_needed({"players": self.config.players})
        if sess.minor < need:  # 1.4: a 5–6 player ladder seats 1.4 bots only
            sess.error("version_too_old", f"this ladder's tables are for {self.config.players} "
                       f"players: they need protocol 1.{need}; your bot speaks 1.{sess.minor}")
            return
        name = clean_text(msg["name"], MAX_NAME)
        bans = getattr(self.server, "bans", None)  # kaitaku admin ban --name
        if bans is not None and bans.name(name) is not None:
            sess.log(logging.INFO, "ladder: refused the banned bot %r", name)
            sess.error("banned", f"the bot {name!r} is banned from this server")
            return
        if not self._attempts.allow(sess.address, time.monotonic()):
            sess.error("bad_key", f"more than {ATTEMPTS_PER_MINUTE} attempts a minute from "
                                  "your address; wait")
            return
        ok = await self._check(name, msg["key"])
        if sess.closed:
            return
        if ok is None:
            sess.error("bad_key", f"the key of {name!r} is being checked for another "
                                  "connection; try again in a second")
            return
        if not ok:
            sess.log(logging.INFO, "ladder: refused %r (unknown name or wrong key)", name)
            sess.error("bad_key", "unknown name or wrong key")
            return
        if name in self.ready:
            sess.error("ladder_busy", f"{name!r} is connected and ready already")
            return
        if sess in self.by_session:
            sess.error("ladder_busy", "this connection is on the ladder already")
            return
        row = self.standings.get(name)
        if row is None:  # registered in the database by the organiser meanwhile
            row = self.store.bot_row(name)
            if row is not None:
                self.standings.put(row)
        wait = (row.suspended_until - time.time()) if row is not None else 0.0
        if wait > 0:
            sess.error("ladder_busy", f"{name!r} is suspended for {wait:.0f} s more after "
                                      f"{row.strikes if row else 1} forfeit(s) in a row")
            return
        self.store.seen(name)
        sess.name = name  # its seats show the registered name
        self.ready[name] = _Ready(name, sess, games, asyncio.get_running_loop().time())
        self.by_session[sess] = name
        self.queue.append(name)
        sess.send({"type": "ladder_queued", "games": games, "name": name})
        sess.log(logging.INFO, "ladder: %r ready for %d games", name, games)
        self._match()

    # -- forfeits -----------------------------------------------------------------------

    def _suspend(self, name: str, why: str) -> None:
        """``name`` stalled a table: off the queue, and kept off the ladder for
        SUSPENSION seconds (doubled for each forfeit in a row)."""
        row = self.standings.get(name)
        strikes = (row.strikes if row is not None else 0) + 1
        seconds = min(MAX_SUSPENSION, SUSPENSION * 2 ** min(strikes - 1, 20))
        until = time.time() + seconds
        self.store.suspend(name, until, strikes)
        if row is not None:
            row.suspended_until, row.strikes = until, strikes
        log.info("ladder: %s suspended for %g s (%s)", name, seconds, why)
        e = self.ready.get(name)
        if e is None:
            return
        e.remaining = 0
        with contextlib.suppress(ValueError):
            self.queue.remove(name)
        if not e.session.closed:
            e.session.error("ladder_busy", f"{name!r} is suspended for {seconds:.0f} s: {why}")

    def _cleared(self, name: str) -> None:
        """``name`` played a game to the end without a forfeit."""
        row = self.standings.get(name)
        if row is not None and row.strikes:
            row.strikes = 0
            self.store.suspend(name, row.suspended_until, 0)

    # -- matchmaking --------------------------------------------------------------------

    def _idle(self) -> list[_Ready]:
        out = []
        for name in self.queue:
            e = self.ready.get(name)
            if (e is not None and e.match is None and e.remaining > 0
                    and e.session.table is None and not e.session.closed):
                out.append(e)
        return out

    def _match(self) -> None:
        """Seat waiting bots by :func:`pick_table` while tables can be made (none
        while the server drains: ``kaitaku admin drain``); try again in
        MATCH_RETRY seconds while some wait that could not be seated."""
        if self.server is None or getattr(self.server, "draining", None) is not None:
            return
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        p = self.config.players
        loop = asyncio.get_running_loop()
        now = loop.time()
        idle = self._idle()
        while len(idle) >= p:
            facts = []
            for e in idle:
                row = self.standings.get(e.name)
                mu, sigma = (row.mu, row.sigma) if row is not None else prior()
                facts.append((e.name, row.owner if row is not None else e.name, mu, sigma,
                              now - e.since))
            chosen = pick_table(facts, p)
            if chosen is None:
                self._retry = loop.call_later(MATCH_RETRY, self._match)
                return
            group = [idle[i] for i in chosen]
            idle = [e for i, e in enumerate(idle) if i not in chosen]
            for e in group:  # to the back of the queue
                self.queue.remove(e.name)
                self.queue.append(e.name)
            dup = self.config.duplicate and p > 1 and all(e.remaining >= p for e in group)
            m = _Match(self._next_match, [e.name for e in group], self._deal(),
                       p if dup else 1, 0 if dup else self._rng.randrange(p))
            self._next_match += 1
            for e in group:
                e.match = m
            self.matches.append(m)
            self._start(m)

    def _deal(self) -> bytes:
        """A set's deal key (its board and starting seat): drawn with
        :mod:`secrets`, or from the configured seed (reproducible boards)."""
        if self.config.seed is None:
            return secrets.token_bytes(32)
        return hashlib.sha256(f"kaitaku-ladder:{self._rng.randrange(1 << 62)}".encode()).digest()

    def _start(self, m: _Match) -> None:
        server = self.server
        p = self.config.players
        r = m.played
        m.seating = [m.names[(q + r + m.offset) % p] for q in range(p)]
        entries = [self.ready.get(n) for n in m.seating]
        if (any(e is None or e.session.closed or e.session.table is not None for e in entries)
                or getattr(server, "draining", None) is not None):  # no new game: draining
            self._end(m)
            return
        c = self.config
        settings = Settings(players=p, vp_target=c.vp_target, turn_cap=c.turn_cap)
        label = f"ladder {m.id}" + (f" ({r + 1}/{m.rotations})" if m.rotations > 1 else "")
        # The rotations share the deal; each draws its own play (the bots saw the
        # last rotation's), so each game's secret is revealed when it ends.
        reveal = Reveal.new(m.deal + secrets.token_bytes(32), secrets.token_bytes(CHANCE_SALT))
        table: Table[Session] = Table(f"ladder-{secrets.token_hex(4)}", label, settings,
                                      "ladder", 0, clock=c.clock, reveal=reveal)
        table.record_decisions = True
        table.stand_in_pace = 0.0
        table.grace = c.grace
        server.attach_table(table, durable=False)
        forget_later = table.on_finished

        def finished(t: Table[Session]) -> None:
            if forget_later is not None:
                forget_later(t)
            try:
                self._finished(m, t)
            except Exception:  # contained: the ladder goes on
                log.exception("ladder: storing game %s failed", m.game)

        table.on_finished = finished
        table.reserve_bots(["ladder"] * p)  # reserved seats: nobody else may sit down
        m.table = table
        m.game = self.store.start_game(m.id, r, m.rotations, table.id, table.seed, m.seating)
        log.info("ladder: game %d (%s) at table %s: %s", m.game, label, table.id,
                 ", ".join(m.seating))
        for q, e in enumerate(entries):
            assert e is not None
            server.place(e.session, table, q)

    def _finished(self, m: _Match, table: Table[Session]) -> None:
        game = table.game
        assert game is not None and m.game is not None
        forfeits = [q for q, s in enumerate(table.seats) if s.forfeited]
        timeouts = [s.clock.timeouts if s.clock is not None else 0 for s in table.seats]
        vp = [game.total_vp(q) for q in range(game.settings.players)]
        new = self.store.finish_game(m.game, m.seating, game.winner, vp, forfeits, timeouts,
                                     game.turn, len(game.log or ()),
                                     [s.decisions for s in table.seats],
                                     json.dumps(_game_log(table).to_dict()),
                                     [s.events for s in table.seats])
        st = self.standings
        st.games += 1
        for q, (name, (mu, sigma)) in enumerate(zip(m.seating, new, strict=True)):
            row = st.get(name)
            if row is None:
                continue
            row.games += 1
            row.wins += int(game.winner == q and q not in forfeits)
            row.forfeits += int(q in forfeits)
            row.timeouts += timeouts[q]
            st.rerate(name, mu, sigma)
        log.info("ladder: game %d over: %s", m.game, ", ".join(
            f"{n} {v}{' (forfeit)' if q in forfeits else ''}"
            for q, (n, v) in enumerate(zip(m.seating, vp, strict=True))))
        done_game = m.game
        m.game = None
        m.table = None
        m.played += 1
        for seat in table.seats:
            if seat.session is not None:
                self.server.release(seat.session)
        for q, name in enumerate(m.seating):
            if q in forfeits:
                self._suspend(name, f"it forfeited game {done_game} "
                                    f"({'; '.join(table.seats[q].events[-1:]) or 'forfeit'})")
            else:
                self._cleared(name)
            e = self.ready.get(name)
            if e is None:
                continue
            e.remaining = max(0, e.remaining - 1)
            e.since = asyncio.get_running_loop().time()
            if not e.session.closed:
                e.session.send({"type": "ladder_queued", "games": e.remaining, "name": name})
        if forfeits:
            m.rotations = m.played  # a set with a forfeit stops: nobody stalls twice
        if self.on_game is not None:
            self.on_game(done_game)
        loop = asyncio.get_running_loop()
        if m.played < m.rotations:
            loop.call_soon(self._start, m)
        else:
            loop.call_soon(self._end, m)

    def _end(self, m: _Match) -> None:
        """The match is over (or cut short): its bots wait for the next."""
        with contextlib.suppress(ValueError):
            self.matches.remove(m)
        for name in m.names:
            e = self.ready.get(name)
            if e is not None and e.match is m:
                e.match = None
                if e.remaining <= 0:
                    del self.ready[name]
                    self.by_session.pop(e.session, None)
                    with contextlib.suppress(ValueError):
                        self.queue.remove(name)
        self._match()

    def _abort(self, m: _Match, why: str) -> None:
        if m.game is not None:
            self.store.abort_game(m.game, why)
            m.game = None
        if m.table is not None:
            self.server.close_table(m.table, why)
            m.table = None
        m.rotations = m.played  # no more games in this match
        asyncio.get_running_loop().call_soon(self._end, m)
