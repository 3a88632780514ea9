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


def _mean_var(scores: Sequence[float]) -> tuple[float, float]:
    """The mean and the sample variance of at least two scores."""
    n = len(scores)
    mean = sum(scores) / n
    return mean, sum((x - mean) ** 2 for x in scores) / (n - 1)


def mean_interval(scores: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """95% normal interval of the mean of independent ``scores`` (each in
    0..1, e.g. a duplicate set's mean win indicator), clipped to 0..1."""
    n = len(scores)
    if n < 2:
        return (0.0, 1.0)
    mean, var = _mean_var(scores)
    half = z * (var / n) ** 0.5
    return (round(max(0.0, mean - half), 4), round(min(1.0, mean + half), 4))


def percentile(ordered: Sequence[float], p: float) -> float:
    """The ``p`` quantile (0..1) of an ascending sequence, nearest rank below;
    0.0 for an empty one."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def games_to_separate(unit_scores: Sequence[float], parity: float, games_per_unit: int,
                      z: float = 1.96) -> float | None:
    """Games needed before a 95% interval of the mean score excludes ``parity``:
    ``unit_scores`` are independent units (a game, or a duplicate block of
    ``games_per_unit`` games, each scored as the mean win indicator). None when
    the observed mean sits at parity (no separation at any size)."""
    if len(unit_scores) < 2:
        return None
    mean, var = _mean_var(unit_scores)
    gap = abs(mean - parity)
    if gap < 1e-12:
        return None
    return games_per_unit * (z * z * var / (gap * gap))
