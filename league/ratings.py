"""Ratings and standings: openskill's Plackett-Luce model over stored games, in
game-index order (deterministic), plus win rates, decision times and head-to-head.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .stats import percentile, wilson_interval
from .store import StoredGame


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
    timeouts: int = 0
    """Chess-clock timeouts, over all its seats."""
    forfeits: int = 0
    """Seat-games it forfeited (ranked last in them)."""

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
        return percentile(sorted(self.decision_us), 0.99) / 1000

    def to_dict(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.wins, self.games)
        return {
            "name": self.name, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4), "games": self.games, "wins": self.wins,
            "win_rate": round(self.win_rate, 4), "win_rate_ci95": [lo, hi],
            "mean_vp": round(self.mean_vp, 3), "failed_games": self.failed,
            "decision_ms_mean": round(self.mean_decision_ms, 4),
            "decision_ms_p99": round(self.p99_decision_ms, 4),
            "decisions": len(self.decision_us), "timeouts": self.timeouts,
            "forfeits": self.forfeits,
        }


@dataclass(slots=True)
class Standings:
    entries: list[Standing]
    """Best first (by ordinal)."""
    history: dict[str, list[tuple[int, float, float]]]
    """Each entry's rating after each game it played: (game index, mu, sigma);
    the first point (index -1) is the prior."""
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
    history: dict[str, list[tuple[int, float, float]]] = {
        n: [(-1, ratings[n].mu, ratings[n].sigma)] for n in names}
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
            st.wins += g.winner == q and q not in g.forfeits
            st.vp_total += g.vp[q]
            st.forfeits += q in g.forfeits
            if q < len(g.timeouts):
                st.timeouts += g.timeouts[q]
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
            history[n].append((g.index, ratings[n].mu, ratings[n].sigma))
    for n, st in table.items():
        st.mu, st.sigma, st.ordinal = ratings[n].mu, ratings[n].sigma, ratings[n].ordinal()
    ordered = sorted(table.values(), key=lambda s: (-s.ordinal, s.name))
    return Standings(ordered, history, played, failed)


def rate_one(ratings: Sequence[tuple[float, float]],
             ranks: Sequence[int]) -> list[tuple[float, float]]:
    """One game's update of its seats' (mu, sigma), ranked by ``ranks`` (0 =
    best): the same Plackett-Luce model as :func:`rate` (the ladder rates each
    game as it ends). A new entry starts from :func:`prior`."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    new = model.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in new]


def prior() -> tuple[float, float]:
    """The (mu, sigma) an entry starts with."""
    from openskill.models import PlackettLuce

    r = PlackettLuce().rating()
    return r.mu, r.sigma


def head_to_head(names: Sequence[str], games: Iterable[StoredGame]) -> dict[str, dict[str, Any]]:
    """``h2h[a][b]``: (wins of a, games where a and b both played), as a dict."""
    h2h: dict[str, dict[str, Any]] = {a: {b: [0, 0] for b in names} for a in names}
    for g in games:
        if g.status != "ok":
            continue
        present = set(g.seats)
        winner = (g.seats[g.winner] if g.winner is not None and g.winner not in g.forfeits
                  else None)
        for a in present:
            for b in present:
                if a == b:
                    continue
                h2h[a][b][1] += 1
                h2h[a][b][0] += winner == a
    return h2h
