"""The live ladder (``kaitaku server --ladder``): bots from anywhere, matched and
rated while the server runs.

A bot author registers a name (``ladder_register``; the answer holds a secret
key, of which the ladder keeps only a salted scrypt hash) and connects from
anywhere (TLS on a server with a certificate). A connection that says
``ladder_ready {name, key, games}`` is queued for that many games. Whenever
enough bots wait for a table of :attr:`LadderConfig.players`, the ladder seats
the longest-waiting ones at a table of their own: a *duplicate set* (the same
board and the same chance in every seat rotation, :mod:`league.duplicate`,
played one rotation after the other) when each of them still wants as many
games as the set has, otherwise one game with the seats in a random rotation.
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
import contextlib
import hashlib
import hmac
import json
import logging
import os
import random
import secrets
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.rules import GameLog, Settings
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

from .duplicate import DuplicateChance
from .games import ENGINE_TURN_CAP, rank_seats
from .ratings import prior, rate_one

log = logging.getLogger("kaitaku.ladder")

SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1
"""The key derivation of stored keys: hashlib.scrypt with these costs (16 MiB
and some tens of milliseconds a check), 32 bytes, a 16-byte salt per bot."""
SALT_BYTES = 16
ATTEMPTS_PER_MINUTE = 20
"""Key checks (``ladder_ready``) one address may ask for a minute."""
REGISTRATIONS_PER_HOUR = 10
"""Names one address may register an hour (``ladder_register``)."""
MAX_BOTS = 10_000
"""Names the ladder holds at most."""
STANDINGS_FRESH = 1.0
"""Seconds a standings page is answered from memory (a game or a registration
in the meantime makes it fresh again)."""
DEFAULT_CLOCK = Clock(60_000, 2_000, 3)
"""A ladder's clock unless its organiser chooses one: 60 s + 2 s, 3 timeouts forfeit."""


def new_key() -> str:
    """A bot's secret key (192 random bits, URL-safe text)."""
    return secrets.token_urlsafe(24)


def hash_key(key: str, salt: bytes) -> bytes:
    """The stored form of a key (scrypt with the bot's own salt)."""
    return hashlib.scrypt(key.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)


def key_matches(key: str, salt: bytes, stored: bytes) -> bool:
    return hmac.compare_digest(hash_key(key, salt), stored)


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
"""


class LadderStore:
    """The ladder's SQLite database: registered bots (name, salted key hash,
    rating), games (seats, result, log, decision times) and the rating after
    each game. Opened by the server's event loop; the web page reads the same
    file with connections of its own (:func:`read_standings`, ...)."""

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
            if kind is None:
                self.db.execute("INSERT INTO meta VALUES ('kind', 'kaitaku-ladder')")
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{str(self.path)!r} is not a ladder database ({exc})") from None
        aborted = self.db.execute(
            "UPDATE games SET status = 'aborted', error = 'the server stopped during the "
            "game', finished = ? WHERE status = 'playing'", (time.time(),)).rowcount
        if aborted:
            log.warning("%d ladder games were running when the server stopped: stored as "
                        "aborted, not rated", aborted)

    def close(self) -> None:
        self.db.close()

    # -- bots ---------------------------------------------------------------------------

    def register(self, name: str, key: str) -> bool:
        """Store a new name with its key's hash; False if the name (ignoring
        case) is taken or the ladder is full."""
        salt = os.urandom(SALT_BYTES)
        return self.add(name, salt, hash_key(key, salt))

    def add(self, name: str, salt: bytes, hashed: bytes) -> bool:
        """:meth:`register` with the hash made already (by a worker thread)."""
        count = self.db.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
        if count >= MAX_BOTS or self.taken(name):
            return False
        mu, sigma = prior()
        try:
            self.db.execute(
                "INSERT INTO bots (name, folded, salt, hash, created, mu, sigma) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, name.casefold(), salt, hashed, time.time(), mu, sigma))
        except sqlite3.IntegrityError:
            return False
        return True

    def taken(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM bots WHERE folded = ?",
                               (name.casefold(),)).fetchone() is not None

    def credentials(self, name: str) -> tuple[bytes, bytes] | None:
        row = self.db.execute("SELECT salt, hash FROM bots WHERE name = ?", (name,)).fetchone()
        return (bytes(row[0]), bytes(row[1])) if row else None

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
                    log_json: str) -> list[tuple[float, float]]:
        """Store a finished game and rate it (one transaction); the seats' new
        (mu, sigma)."""
        ranks = rank_seats(vp, winner, forfeits)
        new = rate_one([self.rating(n) for n in seats], ranks)
        self.db.execute("BEGIN")
        try:
            self.db.execute(
                "UPDATE games SET status = 'ok', winner = ?, vp = ?, ranks = ?, forfeits = ?, "
                "timeouts = ?, turns = ?, decisions = ?, finished = ?, times = ?, log = ? "
                "WHERE id = ?",
                (winner, json.dumps(list(vp)), json.dumps(ranks), json.dumps(list(forfeits)),
                 json.dumps(list(timeouts)), turns, decisions, time.time(),
                 json.dumps([list(t) for t in times]), log_json, game))
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


def read_standings(conn: sqlite3.Connection, offset: int = 0,
                   limit: int = MAX_PAGE) -> tuple[list[dict[str, Any]], int, int]:
    """(entries best first, how many bots, how many games rated)."""
    rows = conn.execute(
        "SELECT name, mu, sigma, games, wins, forfeits, timeouts FROM bots "
        "ORDER BY mu - 3 * sigma DESC, name LIMIT ? OFFSET ?", (limit, offset)).fetchall()
    total = conn.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
    games = conn.execute("SELECT COUNT(*) FROM games WHERE status = 'ok'").fetchone()[0]
    out = [{"rank": offset + i + 1, "name": r[0], "mu": round(r[1], 4),
            "sigma": round(r[2], 4), "ordinal": round(r[1] - 3 * r[2], 4), "games": r[3],
            "wins": r[4], "forfeits": r[5], "timeouts": r[6]} for i, r in enumerate(rows)]
    return out, int(total), int(games)


def read_history(conn: sqlite3.Connection, names: Sequence[str]
                 ) -> dict[str, list[tuple[int, float, float]]]:
    """Each bot's rating after each of its rated games, by the ladder's game
    count: (games rated on the ladder by then - 1, mu, sigma); the prior first."""
    mu0, sigma0 = prior()
    out: dict[str, list[tuple[int, float, float]]] = {n: [(-1, mu0, sigma0)] for n in names}
    order = {gid: i for i, (gid,) in enumerate(conn.execute(
        "SELECT id FROM games WHERE status = 'ok' ORDER BY finished, id"))}
    wanted = set(names)
    for gid, name, mu, sigma in conn.execute("SELECT game, name, mu, sigma FROM ratings"):
        if name in wanted and gid in order:
            out[name].append((order[gid], float(mu), float(sigma)))
    for series in out.values():
        series.sort()
    return out


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


_GAME_COLUMNS = ("id, match, rotation, rotations, table_id, seed, seats, status, error, winner, "
                 "vp, ranks, forfeits, timeouts, turns, decisions, started, finished, times")


def _game(r: Sequence[Any]) -> LadderGame:
    def arr(v: Any) -> list[Any]:
        out = json.loads(v) if isinstance(v, str) else []
        return out if isinstance(out, list) else []

    return LadderGame(int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]), int(r[5]),
                      [str(n) for n in arr(r[6])], str(r[7]), r[8], r[9], arr(r[10]),
                      arr(r[11]), arr(r[12]), arr(r[13]), int(r[14] or 0), int(r[15] or 0),
                      float(r[16]), r[17], arr(r[18]))


def read_games(conn: sqlite3.Connection, limit: int = 50) -> list[LadderGame]:
    """The most recent games, newest first."""
    rows = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT ?",
                        (limit,)).fetchall()
    return [_game(r) for r in rows]


def read_game(conn: sqlite3.Connection, game_id: int) -> tuple[LadderGame, GameLog | None]:
    """One game and its log (None while it runs, or if it was aborted)."""
    row = conn.execute(f"SELECT {_GAME_COLUMNS}, log FROM games WHERE id = ?",
                       (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"no ladder game {game_id}")
    log_text = row[-1]
    return _game(row), (GameLog.from_dict(json.loads(log_text)) if log_text else None)


def read_decision_times(conn: sqlite3.Connection, names: Sequence[str],
                        games: int = 200) -> dict[str, list[float]]:
    """Each bot's decision times (ms) over the last ``games`` rated games."""
    out: dict[str, list[float]] = {n: [] for n in names}
    for seats, times in conn.execute(
            "SELECT seats, times FROM games WHERE status = 'ok' ORDER BY id DESC LIMIT ?",
            (games,)):
        try:
            names_at = json.loads(seats)
            per_seat = json.loads(times or "[]")
        except ValueError:
            continue
        for name, ts in zip(names_at, per_seat, strict=False):
            if name in out and isinstance(ts, list):
                out[name].extend(float(t) / 1000 for t in ts if isinstance(t, int | float))
    return out


# --- the ladder itself --------------------------------------------------------------------


@dataclass(eq=False)
class _Ready:
    """A connected bot that wants games."""

    name: str
    session: Session
    remaining: int
    match: _Match | None = None


@dataclass(eq=False)
class _Match:
    """One table's worth of bots: a duplicate set (``rotations`` games) or one game."""

    id: int
    names: list[str]
    seed: int
    rotations: int
    offset: int
    played: int = 0
    table: Table[Session] | None = None
    game: int | None = None
    seating: list[str] = field(default_factory=list)


class _Bucket:
    """At most ``rate`` events per ``per`` seconds for one key."""

    def __init__(self, rate: int, per: float) -> None:
        self.rate = rate
        self.per = per
        self.events: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float) -> bool:
        q = self.events.setdefault(key, deque())
        while q and q[0] <= now - self.per:
            q.popleft()
        if len(self.events) > 10_000:  # forget idle addresses
            for k in [k for k, v in self.events.items() if not v and k != key]:
                del self.events[k]
        if len(q) >= self.rate:
            return False
        q.append(now)
        return True


class Ladder:
    """The ladder, as the server's :class:`~server.app.Extension`."""

    messages = LADDER_MESSAGES

    def __init__(self, db: str | os.PathLike[str], config: LadderConfig | None = None) -> None:
        self.config = config or LadderConfig()
        self.store = LadderStore(db)
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
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pages: dict[tuple[int, int], tuple[float, Any]] = {}
        """Standings pages read lately (a client cannot make the ladder query its
        database more than once a STANDINGS_FRESH per page)."""
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

    def handle(self, sess: Session, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "ladder_standings":
            self._standings(sess, msg)
        elif kind == "ladder_register":
            self._spawn(self._register(sess, msg))
        elif kind == "ladder_ready":
            self._spawn(self._ready(sess, msg))

    def forget(self, sess: Session) -> None:
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
            self._abort(m, f"{name} left before the game started")
        log.info("ladder: %s left", name)

    async def close(self) -> None:
        for m in list(self.matches):
            if m.game is not None:
                self.store.abort_game(m.game, "the server stopped during the game")
        self.matches.clear()
        for t in list(self._tasks):
            t.cancel()
        self.store.close()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- messages -----------------------------------------------------------------------

    def _standings(self, sess: Session, msg: dict[str, Any]) -> None:
        offset = max(0, msg.get("offset") or 0)
        limit = min(MAX_PAGE, max(1, msg.get("limit") or MAX_PAGE))
        now = time.monotonic()
        cached = self._pages.get((offset, limit))
        if cached is None or now - cached[0] > STANDINGS_FRESH:
            if len(self._pages) > 64:
                self._pages.clear()
            cached = self._pages[(offset, limit)] = (now, read_standings(self.store.db,
                                                                         offset, limit))
        entries, total, games = cached[1]
        sess.send({"type": "ladder", "entries": [
            {**e, "ready": e["name"] in self.ready} for e in entries], "total": total,
            "offset": offset, "games": games})

    async def _register(self, sess: Session, msg: dict[str, Any]) -> None:
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
        if self.store.taken(name):
            sess.error("name_taken", f"the name {name!r} is taken (names ignore case)")
            return
        key, salt = new_key(), os.urandom(SALT_BYTES)
        hashed = await asyncio.to_thread(hash_key, key, salt)  # scrypt: off the loop
        if not self.store.add(name, salt, hashed):
            sess.error("name_taken", f"the name {name!r} is taken (names ignore case)")
            return
        self._pages.clear()
        sess.log(logging.INFO, "ladder: registered %r", name)
        sess.send({"type": "ladder_registered", "name": name, "key": key})

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
        if not self._attempts.allow(sess.address, time.monotonic()):
            sess.error("bad_key", f"more than {ATTEMPTS_PER_MINUTE} attempts a minute from "
                                  "your address; wait")
            return
        creds = self.store.credentials(name)
        ok = creds is not None and await asyncio.to_thread(key_matches, msg["key"], *creds)
        if sess.closed:
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
        sess.name = name  # its seats show the registered name
        self.ready[name] = _Ready(name, sess, games)
        self.by_session[sess] = name
        self.queue.append(name)
        sess.send({"type": "ladder_queued", "games": games, "name": name})
        sess.log(logging.INFO, "ladder: %r ready for %d games", name, games)
        self._match()

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
        """Seat waiting bots, the longest-waiting first, while a table fills."""
        if self.server is None:
            return
        p = self.config.players
        idle = self._idle()
        while len(idle) >= p:
            group, idle = idle[:p], idle[p:]
            for e in group:  # to the back of the queue
                self.queue.remove(e.name)
                self.queue.append(e.name)
            dup = self.config.duplicate and p > 1 and all(e.remaining >= p for e in group)
            m = _Match(self._next_match, [e.name for e in group], self._rng.randrange(1 << 31),
                       p if dup else 1, 0 if dup else self._rng.randrange(p))
            self._next_match += 1
            for e in group:
                e.match = m
            self.matches.append(m)
            self._start(m)

    def _start(self, m: _Match) -> None:
        server = self.server
        p = self.config.players
        r = m.played
        m.seating = [m.names[(q + r + m.offset) % p] for q in range(p)]
        entries = [self.ready.get(n) for n in m.seating]
        if any(e is None or e.session.closed or e.session.table is not None for e in entries):
            self._end(m)
            return
        c = self.config
        settings = Settings(players=p, vp_target=c.vp_target, turn_cap=c.turn_cap)
        label = f"ladder {m.id}" + (f" ({r + 1}/{m.rotations})" if m.rotations > 1 else "")
        chance = DuplicateChance(m.seed).outcome if m.rotations > 1 else None
        table: Table[Session] = Table(f"ladder-{secrets.token_hex(4)}", label, settings,
                                      "ladder", 0, seed=m.seed, clock=c.clock, chance=chance)
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
        m.game = self.store.start_game(m.id, r, m.rotations, table.id, m.seed, m.seating)
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
        self.store.finish_game(m.game, m.seating, game.winner, vp, forfeits, timeouts,
                               game.turn, len(game.log or ()),
                               [s.decisions for s in table.seats],
                               json.dumps(GameLog.of(game).to_dict()))
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
        for name in m.seating:
            e = self.ready.get(name)
            if e is None:
                continue
            e.remaining -= 1
            e.session.send({"type": "ladder_queued", "games": e.remaining, "name": name})
        self._pages.clear()
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
