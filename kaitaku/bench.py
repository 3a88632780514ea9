"""Benchmarks (``kaitaku bench ...``): measured, never asserted by tests."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

from bots import RandomBot, check_bot_spec, play_game
from league.games import ENGINE_TURN_CAP, timed
from league.stats import mean_interval, percentile, wilson_interval
from protocol.rules import Settings, legal_actions, observe, to_act
from protocol.rules import apply as apply_action
from protocol.rules import new_game as make_game

from .measure import cpu_seconds, run_concurrently, throughput_report

"""Turn cap for benchmark games, as catanatron's (games past it end unfinished)."""

_CATANATRON_SCRIPT = r"""
import json, sys, time
from catanatron import Color, Game, RandomPlayer
n, players = int(sys.argv[1]), int(sys.argv[2])
colors = [Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE][:players]
t = time.perf_counter(); finished = 0; turns = 0
for i in range(n):
    game = Game([RandomPlayer(c) for c in colors], seed=i)
    finished += game.play() is not None
    turns += game.state.num_turns
dt = time.perf_counter() - t
print(json.dumps({"games": n, "finished": finished, "seconds": dt, "games_per_s": n / dt,
                  "mean_turns": turns / n}))
"""


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_engine(games: int, players: int, seed: int) -> dict[str, Any]:
    """Play ``games`` random-bot games in-process; return the figures."""
    settings = Settings(players=players, turn_cap=ENGINE_TURN_CAP)
    finished = turns = decisions = 0
    t0 = time.perf_counter()
    for g in range(games):
        bots = [RandomBot(seed * 1_000_003 + g * 8 + q) for q in range(players)]
        result = play_game(bots, settings, seed * 1_000_003 + g)
        finished += result.winner is not None
        turns += result.turns
        decisions += result.decisions
    seconds = time.perf_counter() - t0
    out: dict[str, Any] = {
        "games": games,
        "players": players,
        "finished": finished,
        "seconds": round(seconds, 4),
        "games_per_s": round(games / seconds, 2),
        "decisions_per_s": round(decisions / seconds, 1),
        "mean_turns": round(turns / games, 2),
        "mean_decisions": round(decisions / games, 2),
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }
    out.update(_micro_costs(players, seed))
    return out


def _midgame_states(players: int, seed: int, count: int = 20) -> list[Any]:
    import random

    states = []
    for i in range(count):
        s = make_game(Settings(players=players), seed + i)
        r = random.Random(i)
        for _ in range(400):
            if not to_act(s):
                break
            seat = to_act(s)[0]
            la = legal_actions(s, seat)
            apply_action(s, la[int(r.random() * len(la))], seat)
        states.append(s)
    return states


def _micro_costs(players: int, seed: int) -> dict[str, float]:
    states = _midgame_states(players, seed)
    reps = 200
    t = time.perf_counter()
    for _ in range(reps):
        for s in states:
            s.copy()
    copy_us = (time.perf_counter() - t) / (reps * len(states)) * 1e6
    t = time.perf_counter()
    for _ in range(reps // 4):
        for s in states:
            observe(s, 0)
    observe_us = (time.perf_counter() - t) / (reps // 4 * len(states)) * 1e6
    return {"copy_us": round(copy_us, 2), "observe_us": round(observe_us, 2)}


def bench_catanatron(python: str, games: int, players: int) -> dict[str, Any]:
    """Run catanatron's RandomPlayer games in another interpreter (its own venv)."""
    proc = subprocess.run(
        [python, "-c", _CATANATRON_SCRIPT, str(games), str(players)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main_engine(games: int, players: int, seed: int, as_json: bool,
                catanatron_python: str | None, catanatron_games: int | None) -> int:
    result = bench_engine(games, players, seed)
    if catanatron_python:
        other = bench_catanatron(catanatron_python, catanatron_games or games, players)
        result["catanatron"] = other
        if "games_per_s" in other:
            result["ratio_vs_catanatron"] = round(result["games_per_s"] / other["games_per_s"], 2)
    if as_json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>22}: {v}")
    sys.stdout.flush()
    return 0


# --- server benchmark ---------------------------------------------------------------


async def _bench_server_async(games: int, concurrency: int, players: int,
                              host: str, port: int) -> dict[str, Any]:
    import asyncio

    from bots.client import BotClient

    latencies: list[float] = []
    errors = 0
    actions = 0

    class TimedClient(BotClient):
        def send(self, msg: dict[str, Any]) -> None:
            if msg["type"] == "action":
                self.sent_at = time.perf_counter()
            super().send(msg)

        async def recv(self) -> dict[str, Any]:
            msg = await super().recv()
            if msg["type"] == "result":
                latencies.append(time.perf_counter() - self.sent_at)
            return msg

    async def connect(i: int) -> TimedClient:
        reader, writer = await asyncio.open_connection(host, port)
        client = TimedClient(RandomBot(i), reader, writer, f"bench{i}")
        await client.handshake()
        return client

    async def one_game(g: int) -> None:
        nonlocal errors, actions
        clients = [await connect(g * 8 + q) for q in range(players)]
        try:
            clients[0].send({"type": "create_table", "settings": {"players": players,
                                                                 "turn_cap": ENGINE_TURN_CAP}})
            joined = await clients[0].recv()
            while joined["type"] != "joined":
                joined = await clients[0].recv()
            clients[0].outcome.seat = joined["seat"]
            for c in clients[1:]:
                c.send({"type": "join", "table": joined["table"]})
            outcomes = await asyncio.gather(*(c.play() for c in clients))
            for o in outcomes:
                errors += o.rejected + (0 if o.finished else 1)
                actions += o.actions
        except Exception:
            errors += 1
        finally:
            for c in clients:
                c.writer.close()

    seconds = await run_concurrently(games, concurrency, one_game)
    return throughput_report(games, concurrency, seconds, actions, latencies, errors)


def bench_server(games: int, concurrency: int, players: int = 4,
                 metrics: bool = False) -> dict[str, Any]:
    """Start ``kaitaku server`` in its own process, play ``games`` random-bot games
    over loopback TCP, ``concurrency`` at a time; report throughput and latency.
    ``metrics``: the server keeps its Prometheus metrics, and a thread scrapes
    them every second meanwhile (``scrapes`` in the result)."""
    import asyncio
    import os
    import re
    import tempfile

    tmp = tempfile.TemporaryDirectory(prefix="kaitaku-bench-")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--log-level", "warning",
         "--db", os.path.join(tmp.name, "bench.db"), "--no-advertise",
         # every bench client comes from loopback: lift the per-address caps
         "--max-tables", str(max(500, concurrency)),
         "--max-tables-per-address", str(max(500, concurrency)),
         "--admin-socket", "none", *(["--metrics", "127.0.0.1:0"] if metrics else [])],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    scraper: _Scraper | None = None
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"listening on (\S+):(\d+)", line)
        if m is None:
            raise RuntimeError(f"the server did not start: {line!r}")
        if metrics:
            while (m_line := proc.stdout.readline()) and "metrics:" not in m_line:
                pass
            found = re.search(r"http://([^:/]+):(\d+)/metrics", m_line)
            if found is None:
                raise RuntimeError("the server did not serve its metrics")
            scraper = _Scraper(found.group(1), int(found.group(2)))
            scraper.start()
        cpu0 = cpu_seconds(proc.pid)
        result = asyncio.run(_bench_server_async(games, concurrency, players, m.group(1),
                                                 int(m.group(2))))
        cpu = cpu_seconds(proc.pid) - cpu0
        # The server's own CPU time per action: what a game costs the server,
        # independent of what else the machine (and the bot clients) does.
        result["server_cpu_s"] = round(cpu, 2)
        result["server_us_per_action"] = (round(cpu / result["actions"] * 1e6, 1)
                                          if result["actions"] else None)
        status_file = f"/proc/{proc.pid}/status"
        status = ""
        if os.path.exists(status_file):
            with open(status_file) as f:
                status = f.read()
        hwm = re.search(r"VmHWM:\s+(\d+) kB", status)
        result["peak_rss_mb"] = round(int(hwm.group(1)) / 1024, 1) if hwm else None
        if scraper is not None:
            scraper.stop()
            result["scrapes"] = scraper.scrapes
        return result
    finally:
        if scraper is not None:
            scraper.stop()
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        tmp.cleanup()


class _Scraper:
    """Scrapes a metrics port every second in a thread (as Prometheus would,
    more often than it usually does)."""

    def __init__(self, host: str, port: int) -> None:
        import threading

        self.url = f"http://{host}:{port}/metrics"
        self.scrapes = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        import urllib.request

        while not self._done.wait(1.0):
            with urllib.request.urlopen(self.url, timeout=5) as resp:
                resp.read()
            self.scrapes += 1

    def stop(self) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join(10)


def main_server(games: int, concurrency: int, players: int, as_json: bool,
                floor: bool = False, metrics: bool = False) -> int:
    result = bench_server(games, concurrency, players, metrics)
    # The in-process engine playing the same random-bot games, in the same run:
    # ratio_vs_engine is what the network and the server cost.
    engine = bench_engine(min(games, 100), players, seed=1)
    result["engine_games_per_s"] = engine["games_per_s"]
    result["ratio_vs_engine"] = round(result["games_per_s"] / engine["games_per_s"], 4)
    if floor and players == 4:
        from .floor import bench_floor

        f = bench_floor(games, concurrency)
        result["floor"] = f
        result["floor_ratio_vs_engine"] = round(f["games_per_s"] / engine["games_per_s"], 4)
    if as_json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>16}: {v}")
    return 0 if result["errors"] == 0 else 1


# --- bot strength benchmark -----------------------------------------------------------


def _no_trade(bot: Any) -> None:
    """Switch ``bot``'s domestic trade off: it makes no offers, counter-offers or
    proposals (bots without an ``offers`` switch, e.g. random and greedy, make
    none anyway). With no offer and no proposal at the table there is nothing
    to accept either: only the bank trades."""
    if hasattr(bot, "offers"):
        bot.offers = False


def _bots_game(job: tuple[str, str, int, int, int, float | None, bool, bool]
               ) -> tuple[int, dict[str, list[float]]]:
    """One game of ``hero`` (seat ``g % players``) against copies of ``villain``:
    the hero's win (1/0) and the decision times (microseconds) of each spec.
    ``duplicate``: game ``g`` is the rotation ``g % players`` of the duplicate
    set ``g // players`` (the same board and the same committed chance as the
    set's other rotations)."""
    from bots import make_bot

    hero, villain, players, seed, g, budget, trade, duplicate = job
    times: dict[str, list[float]] = {hero: [], villain: []}
    seat = g % players
    lineup = []
    for q in range(players):
        spec = hero if q == seat else villain
        # In a duplicate set each seat's bot has the same seed in every
        # rotation, so only the bot under test moves from game to game.
        bot = make_bot(spec, seed * 7919 + (g // players if duplicate else g) * 16 + q)
        if budget is not None and hasattr(bot, "budget"):
            bot.budget = budget
        if not trade:
            _no_trade(bot)
        lineup.append(timed(bot, times[spec]))
    settings = Settings(players=players, turn_cap=ENGINE_TURN_CAP)
    if duplicate:
        from league.duplicate import seeded_chance

        start, chance = seeded_chance(seed * 1_000_003 + g // players, settings)
        result = play_game(lineup, settings, start, keep_log=False, chance=chance)
    else:
        result = play_game(lineup, settings, seed * 1_000_003 + g, keep_log=False)
    return int(result.winner == seat), times


def _set_scores(won: list[int] | list[float], players: int) -> list[float]:
    """Each duplicate set's score: the share of its ``players`` games (one
    after another in ``won``) the bot under test won."""
    return [sum(won[i:i + players]) / players for i in range(0, len(won), players)]


def bench_bots(games: int, bots: list[str], seed: int, players: int = 4,
               opponents: list[str] | None = None,
               budget: float | None = None, workers: int = 1,
               trade: bool = True, first: int = 0, duplicate: bool = False) -> dict[str, Any]:
    """Each bot against ``players - 1`` copies of each other bot, seats rotated.

    ``opponents``: play each of ``bots`` only against these (default: the
    other ``bots``). ``budget``: seconds per decision for the bots that
    search (those with a ``budget`` attribute, e.g. ``search``).
    ``players``: 2 is the official two-player variant (neutral players, trade
    tokens, double roll). ``workers``: games played in that many processes;
    every game's seeds depend only on ``seed`` and its number, so the results
    do not depend on ``workers`` (for bots that do not read the clock).
    ``trade=False``: every bot makes no domestic offers or proposals.
    ``first``: the number of the first game (games ``first`` to
    ``first + games - 1`` are played), so that a long run can be played in
    parts, or extended, with the same games. ``duplicate``: the games are
    duplicate sets of ``players`` rotations (game ``g`` is the rotation
    ``g % players`` of set ``g // players``: the same board and committed
    chance with the bot in each seat once); ``games`` and ``first`` must then
    be multiples of ``players``, and the 95% interval is the normal interval
    of the sets' mean scores, since a set's games are not independent."""
    if duplicate and (games % players or first % players):
        raise ValueError(f"duplicate sets: --games and --first must be multiples of {players}")
    villains = bots if opponents is None else opponents
    times: dict[str, list[float]] = {b: [] for b in [*bots, *villains]}  # microseconds
    pairings = []
    t0 = time.perf_counter()
    pool = None
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(workers)
    try:
        for hero in bots:
            for villain in villains:
                if villain == hero:
                    continue
                jobs = [(hero, villain, players, seed, g, budget, trade, duplicate)
                        for g in range(first, first + games)]
                results = (list(pool.map(_bots_game, jobs)) if pool is not None
                           else [_bots_game(j) for j in jobs])
                for _, game_times in results:
                    for spec, t in game_times.items():
                        times[spec].extend(t)
                won_by_game = [w for w, _ in results]
                wins = sum(won_by_game)
                ci = (mean_interval(_set_scores(won_by_game, players))
                      if duplicate else wilson_interval(wins, games))
                pairings.append({
                    "bot": hero,
                    "opponents": [villain] * (players - 1),
                    "games": games,
                    "first": first,
                    "wins": wins,
                    "win_rate": round(wins / games, 4),
                    "ci95": list(ci),
                    "won": won_by_game,
                })
    finally:
        if pool is not None:
            pool.shutdown()
    decision_ms = {}
    for b, ts in times.items():
        ts.sort()
        if ts:
            decision_ms[b] = {
                "mean": round(sum(ts) / len(ts) / 1000, 4),
                "p99": round(percentile(ts, 0.99) / 1000, 4),
                "max": round(ts[-1] / 1000, 4),
            }
    return {"players": players, "trade": trade, "budget_s": budget, "duplicate": duplicate,
            "seconds": round(time.perf_counter() - t0, 1),
            "pairings": pairings, "decision_ms": decision_ms}


def main_bots(games: int, bots: list[str], seed: int, as_json: bool,
              opponents: list[str] | None = None, budget: float | None = None,
              players: int = 4, workers: int = 1, trade: bool = True, first: int = 0,
              duplicate: bool = False) -> int:
    try:
        for spec in {*bots, *(opponents or ())}:
            check_bot_spec(spec)
        result = bench_bots(games, bots, seed, players, opponents, budget, workers, trade,
                            first, duplicate)
    except ValueError as exc:
        print(f"kaitaku bench bots: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"{players} players, domestic trade {'on' if trade else 'off'}, "
          f"{result['seconds']} s")
    for p in result["pairings"]:
        lo, hi = p["ci95"]
        print(f"{p['bot']:>10} vs {players - 1} x {p['opponents'][0]:<10} "
              f"{p['wins']:>5}/{p['games']:<5} "
              f"{p['win_rate']:.1%}  (95% CI {lo:.1%}-{hi:.1%})")
    for b, d in result["decision_ms"].items():
        print(f"{b:>10}: decision {d['mean']:.3f} ms mean, {d['p99']:.3f} ms p99, "
              f"{d['max']:.3f} ms max")
    return 0


# --- duplicate vs ordinary ------------------------------------------------------------------


def bench_duplicate(hero: str, villain: str, blocks: int, seed: int, players: int = 4,
                    workers: int = 1, budget: float | None = None) -> dict[str, Any]:
    """The same number of games in ordinary and in duplicate mode (one run):
    the hero's win rate, and the games each mode needs to separate the hero
    from parity at 95% confidence (units: single games in ordinary mode,
    whole blocks of rotations in duplicate mode). A mode's games are
    :func:`bench_bots`' games ``0`` to ``blocks * players - 1`` (with
    ``duplicate`` in duplicate mode), so either can be played again, or
    extended, with ``kaitaku bench bots``."""
    from league.stats import games_to_separate

    out: dict[str, Any] = {"hero": hero, "villain": villain, "players": players,
                           "blocks": blocks, "games_per_mode": blocks * players, "seed": seed}
    if budget is not None:
        out["budget_s"] = budget
    parity = 1 / players
    for mode in ("ordinary", "duplicate"):
        run = bench_bots(blocks * players, [hero], seed, players, [villain], budget, workers,
                         duplicate=mode == "duplicate")
        (pairing,) = run["pairings"]
        won = [float(w) for w in pairing["won"]]
        if mode == "ordinary":
            needed = games_to_separate(won, parity, 1)
        else:
            needed = games_to_separate(_set_scores(won, players), parity, players)
        out[mode] = {"wins": pairing["wins"], "games": pairing["games"],
                     "win_rate": pairing["win_rate"], "ci95": pairing["ci95"],
                     "games_to_separate_95": None if needed is None else round(needed, 1),
                     "seconds": run["seconds"]}
    o, d = out["ordinary"]["games_to_separate_95"], out["duplicate"]["games_to_separate_95"]
    out["ratio_ordinary_to_duplicate"] = round(o / d, 3) if o and d else None
    return out


def main_duplicate(hero: str, villain: str, blocks: int, seed: int, as_json: bool,
                   players: int = 4, workers: int = 1, budget: float | None = None) -> int:
    try:
        check_bot_spec(hero)
        check_bot_spec(villain)
    except ValueError as exc:
        print(f"kaitaku bench duplicate: {exc}", file=sys.stderr)
        return 2
    r = bench_duplicate(hero, villain, blocks, seed, players, workers, budget)
    if as_json:
        print(json.dumps(r))
        return 0
    print(f"{hero} vs {players - 1} x {villain}, {r['games_per_mode']} games per mode")
    for mode in ("ordinary", "duplicate"):
        m = r[mode]
        lo, hi = m["ci95"]
        print(f"{mode:>10}: {m['wins']}/{m['games']} = {m['win_rate']:.1%} "
              f"(95% CI {lo:.1%}-{hi:.1%}); games to separate from parity: "
              f"{m['games_to_separate_95']}")
    ratio = r["ratio_ordinary_to_duplicate"]
    if ratio is None:
        print("the games needed cannot be compared: a mode does not separate from parity")
    else:
        print(f"ordinary needs {ratio}x the games of duplicate")
    return 0
