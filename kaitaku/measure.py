"""What the benchmarks share: running games concurrently, throughput and latency
figures, a process's CPU time."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from league.stats import percentile


async def run_concurrently(games: int, concurrency: int,
                           one_game: Callable[[int], Awaitable[None]]) -> float:
    """Play games ``0..games-1`` with ``one_game``, ``concurrency`` at a time;
    return the seconds it took."""
    import asyncio

    sem = asyncio.Semaphore(concurrency)

    async def guarded(g: int) -> None:
        async with sem:
            await one_game(g)

    t0 = time.perf_counter()
    await asyncio.gather(*(guarded(g) for g in range(games)))
    return time.perf_counter() - t0


def throughput_report(games: int, concurrency: int, seconds: float, actions: int,
                      latencies: list[float], errors: int) -> dict[str, Any]:
    """The server benchmark's figures (latencies in seconds, any order)."""
    latencies = sorted(latencies)

    def pct(p: float) -> float | None:
        return round(percentile(latencies, p) * 1000, 3) if latencies else None

    return {
        "games": games,
        "concurrency": concurrency,
        "seconds": round(seconds, 3),
        "games_per_s": round(games / seconds, 2),
        "actions": actions,
        "actions_per_s": round(actions / seconds, 1),
        "latency_ms_p50": pct(0.50),
        "latency_ms_p99": pct(0.99),
        "errors": errors,
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid`` (0 where /proc is missing)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
