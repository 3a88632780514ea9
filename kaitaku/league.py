"""Bot leagues (``kaitaku league``): many seeded games between entries, stored in
SQLite, rated with openskill's Plackett-Luce model.

The schedule is built in *blocks* in which every entry sits in every seat
equally often (see :func:`schedule`); ``--games`` is rounded up to a whole
number of blocks. Each game's seed derives from the league seed and the game
index, so the same arguments replay the same games. Every finished game
(played to the end, or failed with its error) is committed within
:data:`COMMIT_EVERY` seconds of its arrival (at once on Ctrl-C), so a league
interrupted at any point resumes where it stopped when it is run again with
the same database and arguments.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots import Bot, make_bot, play_game
from protocol.rules import Action, Event, GameLog, GameState, Settings

from .bench import ENGINE_TURN_CAP, wilson_interval

DEFAULT_DB = "league.db"
"""The default database: ``league.db`` in the current directory."""

COMMIT_EVERY = 0.5
"""Seconds between commits while games arrive (a crash loses at most this much)."""

DEFAULT_TIMEOUT = 300.0
"""Seconds a game may take before it is stopped and recorded as failed."""

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


# --- entries and the schedule ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    spec: str


def parse_entry(text: str) -> Entry:
    """``NAME=SPEC`` (or a bare SPEC, named after itself)."""
    name, sep, spec = text.partition("=")
    if not sep:
        name, spec = text, text
    name, spec = name.strip(), spec.strip()
    if not name or not spec:
        raise ValueError(f"bad entry {text!r}: NAME=SPEC")
    return Entry(name, spec)


def block_size(entries: int, players: int, games: int) -> int:
    """Games in one balanced block: all ``players``-combinations of the entries,
    each in its ``players`` rotations, when that fits in ``games``; otherwise
    ``entries`` cyclic rotations."""
    full = math.comb(entries, players) * players if entries >= players else entries
    return full if full <= max(games, 1) else entries


def schedule(entries: int, players: int, games: int, seed: int = 0) -> list[tuple[int, ...]]:
    """The seating of every game: a tuple of entry indices, one per seat.

    ``games`` is rounded up to a multiple of :func:`block_size`. In a block
    every entry sits in every seat equally often and plays equally many seats:

    * with at least as many entries as seats and room for it, the block is
      every combination of ``players`` entries, each rotated through all seats
      (``C(E, P) * P`` games);
    * otherwise the block is ``E`` games where seat ``q`` of game ``r`` gets
      entry ``perm[(r + q) % E]``; ``perm`` is a permutation of the entries drawn
      from the league seed for each block, so opponents vary between blocks.
      With fewer entries than seats an entry fills several seats of a game.
    """
    if entries < 1:
        raise ValueError("a league needs at least one entry")
    size = block_size(entries, players, games)
    blocks = max(1, -(-games // size))
    out: list[tuple[int, ...]] = []
    full = entries >= players and size == math.comb(entries, players) * players
    for b in range(blocks):
        if full:
            for combo in itertools.combinations(range(entries), players):
                for r in range(players):
                    out.append(tuple(combo[(q + r) % players] for q in range(players)))
        else:
            perm = list(range(entries))
            random.Random(f"{seed}:{b}").shuffle(perm)
            for r in range(entries):
                out.append(tuple(perm[(r + q) % entries] for q in range(players)))
    return out


def game_seed(league_seed: int, index: int) -> int:
    """A game's seed, from the league seed and the game's index."""
    digest = hashlib.sha256(f"kaitaku-league:{league_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# --- playing one game (in a worker) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameTask:
    index: int
    seed: int
    specs: tuple[str, ...]
    settings: dict[str, Any]
    timeout: float


@dataclass(slots=True)
class GameOutcome:
    index: int
    seed: int
    status: str
    error: str | None
    winner: int | None
    vp: list[int]
    ranks: list[int]
    turns: int
    decisions: int
    duration: float
    times: list[list[float]]
    log: str | None
    """The action log, ``GameLog.to_dict()`` as JSON (made in the worker)."""


class GameTimeout(RuntimeError):
    """A game ran past its time limit."""


class TimedBot(Bot):
    """Records each decision's time (microseconds) and enforces the game deadline.

    Use :func:`timed`, which keeps a bot that does not listen to events a
    non-listener (the runner then skips redacting events for it)."""

    def __init__(self, bot: Bot, times: list[float], deadline: float = math.inf) -> None:
        self.bot = bot
        self.times = times
        self.deadline = deadline
        self.name = bot.name

    def act(self, view: Any, legal: Any) -> Any:
        t = time.perf_counter()
        action = self.bot.act(view, legal)
        now = time.perf_counter()
        self.times.append(round((now - t) * 1e6, 2))
        if now > self.deadline:
            raise GameTimeout("the game ran past its time limit")
        return action

    def on_game_over(self, view: Any) -> None:
        self.bot.on_game_over(view)


class _TimedListening(TimedBot):
    def on_events(self, seat: int, events: Any) -> None:
        self.bot.on_events(seat, events)


class _TimedProposing(TimedBot):
    def propose(self, view: Any) -> Any:
        t = time.perf_counter()
        action = self.bot.propose(view)
        now = time.perf_counter()
        self.times.append(round((now - t) * 1e6, 2))
        if now > self.deadline:
            raise GameTimeout("the game ran past its time limit")
        return action


class _TimedListeningProposing(_TimedProposing, _TimedListening):
    pass


def timed(bot: Bot, times: list[float], deadline: float = math.inf) -> TimedBot:
    """``bot``, timed (microseconds into ``times``), with a game deadline. A
    bot that does not listen to events (or never proposes trades) stays so for
    the runner, which then skips redacting events (or asking) for it."""
    listens = type(bot).on_events is not Bot.on_events
    proposes = type(bot).propose is not Bot.propose
    cls: type[TimedBot] = (
        (_TimedListeningProposing if proposes else _TimedListening) if listens
        else (_TimedProposing if proposes else TimedBot))
    return cls(bot, times, deadline)


def rank_seats(vp: Sequence[int], winner: int | None) -> list[int]:
    """Ranks (0 = best) from final VP, the winner first; equal VP share a rank."""
    key = [(0 if q == winner else 1, -v) for q, v in enumerate(vp)]
    return [sum(1 for k2 in key if k2 < k) for k in key]


def _alarm(signum: int, frame: Any) -> None:
    raise GameTimeout("the game ran past its time limit")


def play_task(task: GameTask) -> GameOutcome:
    """Play one scheduled game; any failure is returned as a failed outcome."""
    settings = Settings.from_dict(task.settings)
    times: list[list[float]] = [[] for _ in task.specs]
    state: list[GameState] = []

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        if not state:
            state.append(s)

    t0 = time.perf_counter()
    networked = any(is_command(spec) for spec in task.specs)
    use_alarm = (task.timeout > 0 and not networked and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
    old_handler: Any = None
    try:
        if use_alarm:
            old_handler = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, task.timeout)
        deadline = t0 + task.timeout if task.timeout > 0 else math.inf
        if networked:
            s = _play_networked(task, settings, times, state)
            winner: int | None = s.winner
            turns, decisions, final = s.turn, len(s.log or ()), s
            vp = [s.total_vp(q) for q in range(settings.players)]
        else:
            lineup: list[Bot] = []
            for q, spec in enumerate(task.specs):
                bot = make_bot(spec, task.seed * 8 + q)
                lineup.append(timed(bot, times[q], deadline))
            result = play_game(lineup, settings, task.seed, on_step=hook)
            winner, turns, decisions, final = (result.winner, result.turns, result.decisions,
                                               result.state)
            vp = list(result.scores)
        return GameOutcome(task.index, task.seed, "ok", None, winner, vp,
                           rank_seats(vp, winner), turns, decisions,
                           time.perf_counter() - t0, times,
                           json.dumps(GameLog.of(final).to_dict()))
    except Exception as exc:  # a failing bot must not stop the league
        partial = GameLog.of(state[0]) if state and state[0].log is not None else None
        turns = state[0].turn if state else 0
        decisions = len(partial.steps) if partial else 0
        return GameOutcome(task.index, task.seed, "failed", f"{type(exc).__name__}: {exc}",
                           None, [], [], turns, decisions, time.perf_counter() - t0, times,
                           json.dumps(partial.to_dict()) if partial else None)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)


# --- external commands: the game runs on a private server --------------------------------


COMMAND_PREFIX = "cmd:"
"""An entry ``cmd:COMMAND`` is a program that plays over the network protocol."""


def is_command(spec: str) -> bool:
    return spec.startswith(COMMAND_PREFIX)


class _Watched(_TimedListening):
    """An in-process bot in a networked game: timed, and its first error kept
    (the bot SDK would otherwise play a fallback action and carry on)."""

    def __init__(self, bot: Bot, times: list[float], errors: list[BaseException]) -> None:
        super().__init__(bot, times, math.inf)
        self.errors = errors

    def act(self, view: Any, legal: Any) -> Any:
        try:
            return super().act(view, legal)
        except Exception as exc:
            self.errors.append(exc)
            raise


def _play_networked(task: GameTask, settings: Settings, times: list[list[float]],
                    state: list[GameState]) -> GameState:
    """Play a game with external-command entries: start a private server on a
    loopback port, seat the in-process entries through the bot SDK and start
    each command with ``{host}``, ``{port}``, ``{table}``, ``{seat}``, ``{key}``,
    ``{python}`` (this interpreter) and ``{bot_seed}`` (the seed an in-process bot
    in that seat would get) filled in, e.g. ``cmd:kaitaku bot --connect
    {host}:{port} --table {table} --seat {seat} --key={key}``."""
    import asyncio

    coro = _networked(task, settings, times, state)
    if task.timeout > 0:
        async def bounded() -> GameState:
            try:
                return await asyncio.wait_for(coro, task.timeout)
            except TimeoutError:
                raise GameTimeout("the game ran past its time limit") from None
        return asyncio.run(bounded())
    return asyncio.run(coro)


async def _networked(task: GameTask, settings: Settings, times: list[list[float]],
                     state: list[GameState]) -> GameState:
    import asyncio
    import contextlib
    import shlex

    from bots.client import run_bot
    from protocol.rules import Phase
    from server.app import Server
    from server.table import Table

    srv = Server("127.0.0.1", 0, name="kaitaku-league", spawn_bots=False)
    await srv.start()
    serving = asyncio.ensure_future(srv.serve_forever())
    table = Table(f"league-{task.index}", f"league game {task.index}", settings, "league",
                  0, seed=task.seed)
    srv.attach_table(table)  # a table with the league's seed (the protocol cannot choose one)
    keys = {i: key for i, _, key in table.reserve_bots(["league"] * settings.players)}
    errors: list[BaseException] = []
    clients: list[asyncio.Task[Any]] = []
    procs: list[tuple[int, asyncio.subprocess.Process]] = []
    try:
        for q, spec in enumerate(task.specs):
            if is_command(spec):
                fields = {"host": "127.0.0.1", "port": srv.port, "table": table.id,
                          "python": sys.executable, "bot_seed": task.seed * 8 + q,
                          "seat": q, "key": keys[q]}
                argv = [a.format(**fields) for a in shlex.split(spec[len(COMMAND_PREFIX):])]
                procs.append((q, await asyncio.create_subprocess_exec(
                    *argv, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)))
            else:
                bot = _Watched(make_bot(spec, task.seed * 8 + q), times[q], errors)
                clients.append(asyncio.ensure_future(run_bot(
                    bot, "127.0.0.1", srv.port, name=f"seat{q}", table=table.id, seat=q,
                    key=keys[q], reconnect=False)))
        while table.game is None or table.game.phase != Phase.GAME_OVER.value:
            if table.game is not None and not state:
                state.append(table.game)
            if errors:
                raise errors[0]
            for q, p in procs:
                if p.returncode is not None:
                    err = (await p.stderr.read()).decode(errors="replace") if p.stderr else ""
                    raise RuntimeError(f"the command for seat {q} exited with {p.returncode} "
                                       f"before the game ended: {err.strip()[-300:]}")
            for c in clients:
                if c.done() and c.exception() is not None:
                    raise c.exception()  # type: ignore[misc]
            await asyncio.sleep(0.005)
        game = table.game
        rejected = 0
        for c in clients:
            with contextlib.suppress(Exception):
                rejected += (await asyncio.wait_for(asyncio.shield(c), 5)).rejected
        if rejected:
            from bots import IllegalBotAction

            raise IllegalBotAction(f"the server rejected {rejected} action(s) of an "
                                   "in-process entry")
        return game
    finally:
        for c in clients:
            c.cancel()
        for _, p in procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    p.terminate()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(p.wait(), 5)
                if p.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        p.kill()
                    await p.wait()
        await srv.close()
        serving.cancel()
        with contextlib.suppress(BaseException):
            await serving


def play_tasks(tasks: list[GameTask]) -> list[GameOutcome]:
    """A chunk of games (one executor job: cheap games are batched)."""
    return [play_task(t) for t in tasks]


# --- storage ----------------------------------------------------------------------------


def connect(db: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(db))
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(_SCHEMA)
    return conn


def league_key(seed: int, settings: Settings, entries: Sequence[Entry], games: int) -> str:
    text = json.dumps({"seed": seed, "settings": settings.to_dict(), "games": games,
                       "entries": [[e.name, e.spec] for e in entries]}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def open_league(conn: sqlite3.Connection, seed: int, settings: Settings,
                entries: Sequence[Entry], games: int) -> int:
    """The league's id, creating its row the first time."""
    key = league_key(seed, settings, entries, games)
    row = conn.execute("SELECT id FROM leagues WHERE key = ?", (key,)).fetchone()
    if row:
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO leagues (key, seed, settings, entries, games, created) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (key, seed, json.dumps(settings.to_dict()),
         json.dumps([{"name": e.name, "spec": e.spec} for e in entries]), games, time.time()))
    conn.commit()
    assert cur.lastrowid is not None
    return cur.lastrowid


def store_outcome(conn: sqlite3.Connection, league: int, names: Sequence[str],
                  o: GameOutcome, commit: bool = True) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO games (league, idx, seed, seats, status, error, winner, ranks, "
        "vp, turns, decisions, duration, times, log) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (league, o.index, o.seed, json.dumps(list(names)), o.status, o.error, o.winner,
         json.dumps(o.ranks), json.dumps(o.vp), o.turns, o.decisions, o.duration,
         json.dumps(o.times), o.log))
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


def load_games(conn: sqlite3.Connection, league: int) -> list[StoredGame]:
    rows = conn.execute(
        "SELECT id, idx, seed, seats, status, error, winner, ranks, vp, turns, decisions, "
        "duration, times FROM games WHERE league = ? ORDER BY idx", (league,)).fetchall()
    return [StoredGame(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6],
                       json.loads(r[7] or "[]"), json.loads(r[8] or "[]"), r[9] or 0,
                       r[10] or 0, r[11], json.loads(r[12] or "[]")) for r in rows]


def load_log(conn: sqlite3.Connection, game_id: int) -> tuple[StoredGame, GameLog | None]:
    """A stored game and its action log (None if it failed before its first action)."""
    row = conn.execute("SELECT league, log FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise KeyError(f"no game {game_id}")
    game = next(g for g in load_games(conn, row[0]) if g.id == game_id)
    return game, (GameLog.from_dict(json.loads(row[1])) if row[1] else None)


def league_info(conn: sqlite3.Connection, league: int) -> dict[str, Any]:
    row = conn.execute("SELECT seed, settings, entries, games FROM leagues WHERE id = ?",
                       (league,)).fetchone()
    if row is None:
        raise KeyError(f"no league {league}")
    return {"id": league, "seed": row[0], "settings": json.loads(row[1]),
            "entries": json.loads(row[2]), "games": row[3]}


# --- ratings and standings ------------------------------------------------------------------


@dataclass(slots=True)
class Standing:
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int = 0
    wins: int = 0
    vp_total: int = 0
    failed: int = 0
    decision_us: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_vp(self) -> float:
        return self.vp_total / self.games if self.games else 0.0

    @property
    def mean_decision_ms(self) -> float:
        d = self.decision_us
        return sum(d) / len(d) / 1000 if d else 0.0

    @property
    def p99_decision_ms(self) -> float:
        if not self.decision_us:
            return 0.0
        d = sorted(self.decision_us)
        return d[min(len(d) - 1, int(0.99 * len(d)))] / 1000

    def to_dict(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.wins, self.games)
        return {
            "name": self.name, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4), "games": self.games, "wins": self.wins,
            "win_rate": round(self.win_rate, 4), "win_rate_ci95": [lo, hi],
            "mean_vp": round(self.mean_vp, 3), "failed_games": self.failed,
            "decision_ms_mean": round(self.mean_decision_ms, 4),
            "decision_ms_p99": round(self.p99_decision_ms, 4),
            "decisions": len(self.decision_us),
        }


@dataclass(slots=True)
class Standings:
    entries: list[Standing]
    """Best first (by ordinal)."""
    history: dict[str, list[tuple[int, float]]]
    """Each entry's ordinal after each game it played: (game index, ordinal)."""
    played: int
    failed: int


def rate(names: Sequence[str], games: Iterable[StoredGame]) -> Standings:
    """Rate the finished games in game-index order (so the result is deterministic).

    "games" and "wins" count seats: an entry that fills two seats of a game
    plays two seat-games there. Such an entry's rating moves by the sum of its
    seats' updates (mu) and the product of their sigma ratios.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    table = {n: Standing(n, 0.0, 0.0, 0.0) for n in names}
    history: dict[str, list[tuple[int, float]]] = {n: [(-1, ratings[n].ordinal())] for n in names}
    played = failed = 0
    for g in sorted(games, key=lambda g: g.index):
        if g.status != "ok":
            failed += 1
            for n in set(g.seats):
                table[n].failed += 1
            continue
        played += 1
        for q, n in enumerate(g.seats):
            st = table[n]
            st.games += 1
            st.wins += g.winner == q
            st.vp_total += g.vp[q]
            if q < len(g.times):
                st.decision_us.extend(g.times[q])
        teams = [[model.rating(mu=ratings[n].mu, sigma=ratings[n].sigma)] for n in g.seats]
        new = model.rate(teams, ranks=[float(r) for r in g.ranks])
        dmu: dict[str, float] = {}
        ratio: dict[str, float] = {}
        for n, old, upd in zip(g.seats, teams, new, strict=True):
            dmu[n] = dmu.get(n, 0.0) + upd[0].mu - old[0].mu
            ratio[n] = ratio.get(n, 1.0) * upd[0].sigma / old[0].sigma
        for n in dmu:
            r = ratings[n]
            ratings[n] = model.rating(mu=r.mu + dmu[n], sigma=r.sigma * ratio[n], name=n)
            history[n].append((g.index, ratings[n].ordinal()))
    for n, st in table.items():
        st.mu, st.sigma, st.ordinal = ratings[n].mu, ratings[n].sigma, ratings[n].ordinal()
    ordered = sorted(table.values(), key=lambda s: (-s.ordinal, s.name))
    return Standings(ordered, history, played, failed)


def head_to_head(names: Sequence[str], games: Iterable[StoredGame]) -> dict[str, dict[str, Any]]:
    """``h2h[a][b]``: (wins of a, games where a and b both played), as a dict."""
    h2h: dict[str, dict[str, Any]] = {a: {b: [0, 0] for b in names} for a in names}
    for g in games:
        if g.status != "ok":
            continue
        present = set(g.seats)
        winner = g.seats[g.winner] if g.winner is not None else None
        for a in present:
            for b in present:
                if a == b:
                    continue
                h2h[a][b][1] += 1
                h2h[a][b][0] += winner == a
    return h2h


# --- running a league -------------------------------------------------------------------------


@dataclass(slots=True)
class LeagueResult:
    league: int
    standings: Standings
    seconds: float
    ran: int
    skipped: int
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "league": self.league, "games": self.standings.played + self.standings.failed,
            "ok": self.standings.played, "failed": self.standings.failed,
            "seconds": round(self.seconds, 3), "ran": self.ran, "skipped": self.skipped,
            "games_per_s": round(self.ran / self.seconds, 2) if self.seconds > 0 else None,
            "interrupted": self.interrupted,
            "entries": [s.to_dict() for s in self.standings.entries],
        }


Progress = Callable[[int, int, float], None]
"""Called after each stored game with (done, total, elapsed seconds)."""


def _chunks(tasks: list[GameTask], workers: int) -> list[list[GameTask]]:
    size = max(1, min(16, len(tasks) // (workers * 8)))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stores what has finished and stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pool(tasks: list[GameTask], workers: int) -> Iterator[GameOutcome]:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        futures = [pool.submit(play_tasks, c) for c in _chunks(tasks, workers)]
        for f in as_completed(futures):
            yield from f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(tasks: list[GameTask], cluster: Any) -> Iterator[GameOutcome]:
    import importlib

    dd: Any = importlib.import_module("distributed")  # optional: the `cluster` extra
    client: Any = cluster if isinstance(cluster, dd.Client) else dd.Client(cluster)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        futures = [client.submit(play_tasks, c, pure=False) for c in _chunks(tasks, workers)]
        try:
            for f in dd.as_completed(futures):
                yield from f.result()
        finally:
            client.cancel(futures)
    finally:
        if client is not cluster:
            client.close()


def run_league(
    entries: Sequence[Entry],
    games: int,
    *,
    players: int = 4,
    seed: int = 1,
    db: str | Path = DEFAULT_DB,
    workers: int = 1,
    cluster: Any = None,
    settings: Settings | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_games: int | None = None,
    progress: Progress | None = None,
    retry_failed: bool = False,
) -> LeagueResult:
    """Play (or resume) a league; return its standings over every stored game.

    ``cluster`` is a dask.distributed scheduler address or Client. ``max_games``
    plays at most that many of the missing games this run (the rest stay
    pending: a later run resumes them). Failed games count as finished unless
    ``retry_failed``.
    """
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("entry names must be unique")
    settings = settings or Settings(players=players, turn_cap=ENGINE_TURN_CAP)
    seats = schedule(len(entries), settings.players, games, seed)
    conn = connect(db)
    t0 = time.perf_counter()
    ran = 0
    interrupted = False
    try:
        league = open_league(conn, seed, settings, entries, games)
        done = {r[0] for r in conn.execute(
            "SELECT idx FROM games WHERE league = ? AND (status = 'ok' OR ?)",
            (league, not retry_failed))}
        tasks = [GameTask(i, game_seed(seed, i), tuple(entries[e].spec for e in lineup),
                          settings.to_dict(), timeout)
                 for i, lineup in enumerate(seats) if i not in done]
        skipped = len(seats) - len(tasks)
        if max_games is not None:
            tasks = tasks[:max_games]
        if cluster is not None:
            outcomes: Iterator[GameOutcome] = _run_dask(tasks, cluster)
        elif workers > 1 and len(tasks) > 1:
            outcomes = _run_pool(tasks, workers)
        else:
            outcomes = (play_task(t) for t in tasks)
        last_commit = time.monotonic()
        try:
            for o in outcomes:
                store_outcome(conn, league, [names[e] for e in seats[o.index]], o, commit=False)
                if time.monotonic() - last_commit >= COMMIT_EVERY:
                    conn.commit()
                    last_commit = time.monotonic()
                ran += 1
                if progress is not None:
                    progress(skipped + ran, len(seats), time.perf_counter() - t0)
        except KeyboardInterrupt:
            interrupted = True
            conn.commit()
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()
        stored = load_games(conn, league)
        standings = rate(names, stored)
        for st in standings.entries:
            conn.execute("INSERT OR REPLACE INTO decision_times VALUES (?, ?, ?, ?, ?)",
                         (league, st.name, len(st.decision_us), st.mean_decision_ms,
                          st.p99_decision_ms))
        conn.commit()
    finally:
        conn.commit()  # whatever finished is kept, even if the run failed
        conn.close()
    return LeagueResult(league, standings, time.perf_counter() - t0, ran, skipped, interrupted)


class ProgressLine:
    """``done/total games, rate, ETA`` on stderr: rewritten in place on a TTY,
    otherwise one plain line every ``every`` seconds."""

    def __init__(self, stream: Any = None, every: float = 10.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.last: float | None = None  # the first call always prints

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        now = time.monotonic()
        since = float("inf") if self.last is None else now - self.last
        if not self.tty and since < self.every and done < total:
            return
        if self.tty and since < 0.1 and done < total:
            return
        self.last = now
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        line = f"league: {done}/{total} games, {rate:.1f} games/s, ETA {eta:.0f} s"
        if self.tty:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def format_table(result: LeagueResult) -> str:
    head = (f"{'#':>2} {'entry':<16} {'ordinal':>8} {'mu':>7} {'sigma':>6} {'games':>6} "
            f"{'wins':>5} {'win rate (95% CI)':>22} {'mean VP':>8} {'ms/dec':>8} {'failed':>6}")
    lines = [head, "-" * len(head)]
    for i, s in enumerate(result.standings.entries, 1):
        lo, hi = wilson_interval(s.wins, s.games)
        lines.append(
            f"{i:>2} {s.name:<16} {s.ordinal:>8.2f} {s.mu:>7.2f} {s.sigma:>6.2f} {s.games:>6} "
            f"{s.wins:>5} {s.win_rate:>7.1%} ({lo:>5.1%}-{hi:>5.1%}) {s.mean_vp:>8.2f} "
            f"{s.mean_decision_ms:>8.3f} {s.failed:>6}")
    st = result.standings
    lines.append(f"league {result.league}: {st.played} games ok, {st.failed} failed; "
                 f"{result.ran} played now, {result.skipped} already stored; "
                 f"{result.seconds:.1f} s")
    return "\n".join(lines)


def main(args: Any) -> int:
    """``kaitaku league`` (argparse namespace from :mod:`kaitaku.cli`)."""
    try:
        entries = [parse_entry(e) for e in args.entry]
    except ValueError as exc:
        print(f"kaitaku league: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print("kaitaku league: give at least one --entry NAME=SPEC", file=sys.stderr)
        return 2
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # module:Class entries from the current directory
    for e in entries:
        if is_command(e.spec):
            continue
        try:
            make_bot(e.spec, 0)
        except (ValueError, ImportError, AttributeError, TypeError) as exc:
            print(f"kaitaku league: entry {e.name}: {exc}", file=sys.stderr)
            return 2
    size = block_size(len(entries), args.players, args.games)
    total = len(schedule(len(entries), args.players, args.games, args.seed))
    if total != args.games:
        print(f"kaitaku league: {args.games} games rounded up to {total} "
              f"(balanced blocks of {size})", file=sys.stderr)
    import os

    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    progress = ProgressLine() if not args.quiet else None
    result = run_league(entries, args.games, players=args.players, seed=args.seed, db=args.db,
                        workers=workers, cluster=args.cluster, timeout=args.timeout,
                        progress=progress, retry_failed=args.retry_failed)
    if args.report:
        from .report import write_report

        write_report(args.db, result.league, args.report)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_table(result))
        if result.interrupted:
            print("interrupted: run the same command again to resume", file=sys.stderr)
    return 130 if result.interrupted else 0
