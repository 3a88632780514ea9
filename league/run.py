"""Running a league (``kaitaku league``): schedule, play the missing games (in
process, a process pool or a dask.distributed cluster), store each as it
arrives, rate.

Every finished game is committed within :data:`~league.store.COMMIT_EVERY`
seconds of its arrival (at once on Ctrl-C), so a league interrupted at any
point resumes where it stopped when it is run again with the same database
and arguments.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots import check_bot_spec
from protocol.rules import Settings
from protocol.rules.chance import deal_seed
from server.clock import Clock

from .games import (
    DEFAULT_TIMEOUT,
    ENGINE_TURN_CAP,
    GameOutcome,
    GameTask,
    check_command,
    is_command,
    play_task,
    play_tasks,
)
from .ratings import Standings, rate
from .sandbox import Limits
from .schedule import (
    Entry,
    block_size,
    bot_seed,
    game_chance,
    parse_entry,
    rotation_group,
    schedule,
)
from .stats import wilson_interval
from .store import (
    COMMIT_EVERY,
    DEFAULT_DB,
    connect,
    league_secret,
    load_games,
    open_league,
    store_outcome,
)


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


def _isolated() -> bool:
    """Whether this machine's sandbox keeps an entry from storing anything a
    later game could read, or from talking to another game."""
    from .sandbox import probe

    iso = probe()
    # writes only to its private tmpfs, no host socket, nothing left running
    return iso.readonly and iso.network and iso.killed


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
    duplicate: bool = False,
    clock: Clock | None = None,
    sandbox: bool = True,
    limits: Limits | None = None,
    secret: bytes | None = None,
) -> LeagueResult:
    """Play (or resume) a league; return its standings over every stored game.

    ``cluster`` is a dask.distributed scheduler address or Client. ``max_games``
    plays at most that many of the missing games this run (the rest stay
    pending: a later run resumes them). Failed games count as finished unless
    ``retry_failed``. ``duplicate``: every rotation group of the schedule plays
    one board with one chance (:mod:`league.duplicate`). ``clock``: every seat
    plays under this chess clock (:mod:`server.clock`). ``sandbox``: run the
    ``cmd:`` entries in a sandbox with ``limits`` (:mod:`league.sandbox`).
    Every game's chance is committed and derives from the league's secret
    (kept in the database; drawn with :mod:`secrets` when the league is made,
    or ``secret``: reproducible runs), never from ``seed``, which chooses the
    seating and may be public.
    """
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("entry names must be unique")
    for e in entries:
        if is_command(e.spec):
            try:
                check_command(e.spec, sandbox)
            except ValueError as exc:
                raise ValueError(f"entry {e.name}: {exc}") from None
    settings = settings or Settings(players=players, turn_cap=ENGINE_TURN_CAP)
    seats = schedule(len(entries), settings.players, games, seed)
    conn = connect(db)
    t0 = time.perf_counter()
    ran = 0
    interrupted = False
    try:
        league = open_league(conn, seed, settings, entries, games,
                             "duplicate" if duplicate else "ordinary", clock)
        group = rotation_group(len(entries), settings.players, games)
        done = {r[0] for r in conn.execute(
            "SELECT idx FROM games WHERE league = ? AND (status = 'ok' OR ?)",
            (league, not retry_failed))}
        hidden = league_secret(conn, league, secret)
        # a set shares its play only where no entry keeps what it saw between games:
        # in-process entries, or programs each game starts afresh in a sandbox
        # with a private filesystem and no network
        commands = any(is_command(e.spec) for e in entries)
        shared = duplicate and (not commands or (sandbox and _isolated()))

        def task(i: int, lineup: tuple[int, ...]) -> GameTask:
            g = i // group if duplicate else None
            reveal = game_chance(hidden, i, g, shared)
            members = (tuple(range(g * group, min((g + 1) * group, len(seats))))
                       if g is not None and shared else (i,))
            return GameTask(i, deal_seed(reveal.secret), tuple(entries[e].spec for e in lineup),
                            settings.to_dict(), timeout, duplicate, clock, sandbox, limits,
                            reveal, reveal_at_end=len(members) == 1, reveal_set=members,
                            bot_seeds=tuple(bot_seed(hidden, i, q)
                                            for q in range(settings.players)))

        tasks = [task(i, lineup) for i, lineup in enumerate(seats) if i not in done]
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
            f"{'wins':>5} {'win rate (95% CI)':>22} {'mean VP':>8} {'ms/dec':>8} {'p99 ms':>8} "
            f"{'t/o':>4} {'forf':>4} {'failed':>6}")
    lines = [head, "-" * len(head)]
    for i, s in enumerate(result.standings.entries, 1):
        lo, hi = wilson_interval(s.wins, s.games)
        lines.append(
            f"{i:>2} {s.name:<16} {s.ordinal:>8.2f} {s.mu:>7.2f} {s.sigma:>6.2f} {s.games:>6} "
            f"{s.wins:>5} {s.win_rate:>7.1%} ({lo:>5.1%}-{hi:>5.1%}) {s.mean_vp:>8.2f} "
            f"{s.mean_decision_ms:>8.3f} {s.p99_decision_ms:>8.3f} {s.timeouts:>4} "
            f"{s.forfeits:>4} {s.failed:>6}")
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
    sandbox = not args.no_sandbox
    try:
        clock = (Clock.parse(args.clock, args.clock_timeouts) if args.clock
                 else None)
        limits = Limits(memory_mb=args.sandbox_memory, cpu_seconds=args.sandbox_cpu,
                        processes=args.sandbox_processes, open_files=args.sandbox_files,
                        file_mb=args.sandbox_file_size)
    except ValueError as exc:
        print(f"kaitaku league: {exc}", file=sys.stderr)
        return 2
    for e in entries:
        if is_command(e.spec):
            try:
                check_command(e.spec, sandbox)
            except ValueError as exc:
                print(f"kaitaku league: entry {e.name}: {exc}", file=sys.stderr)
                return 2
            continue
        try:
            check_bot_spec(e.spec)
        except ValueError as exc:
            print(f"kaitaku league: entry {e.name}: {exc}", file=sys.stderr)
            return 2
    size = block_size(len(entries), args.players, args.games)
    total = len(schedule(len(entries), args.players, args.games, args.seed))
    if total != args.games:
        print(f"kaitaku league: {args.games} games rounded up to {total} "
              f"(balanced blocks of {size})", file=sys.stderr)
    import os

    if any(is_command(e.spec) for e in entries):
        if sandbox:
            from .sandbox import probe

            for line in probe().lines():
                print(f"kaitaku league: {line}", file=sys.stderr)
        else:
            print("kaitaku league: --no-sandbox: cmd: entries run with your rights (files, "
                  "network, processes); run only programs you trust", file=sys.stderr)
    if clock is not None:
        print(f"kaitaku league: chess clock {clock.text()} per seat and game",
              file=sys.stderr)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    progress = ProgressLine() if not args.quiet else None
    result = run_league(entries, args.games, players=args.players, seed=args.seed, db=args.db,
                        workers=workers, cluster=args.cluster, timeout=args.timeout,
                        progress=progress, retry_failed=args.retry_failed,
                        duplicate=args.duplicate, clock=clock, sandbox=sandbox,
                        limits=limits)
    if args.report:
        from .report import write_report
        from .store import DamagedDatabase

        try:
            write_report(args.db, result.league, args.report)
        except DamagedDatabase as exc:
            print(f"kaitaku league: {args.db} cannot be read: {exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_table(result))
        if result.interrupted:
            print("interrupted: run the same command again to resume", file=sys.stderr)
    return 130 if result.interrupted else 0
