"""Small statistics shared by the league and the benchmarks."""

from __future__ import annotations

from collections.abc import Sequence


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / d
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def percentile(ordered: Sequence[float], p: float) -> float:
    """The ``p`` quantile (0..1) of an ascending sequence, nearest rank below;
    0.0 for an empty one."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]
