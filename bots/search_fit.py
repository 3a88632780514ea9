"""Fit the search bot's evaluation weights (:mod:`bots.search_eval`).

``python -m bots.search_fit --games 1000`` plays heuristic self-play games,
records every seat's features at the start of every other turn with the game's
winner, and fits the conditional-logit weights (:data:`bots.search_eval.WEIGHTS`)
by Newton's method; ``--setup`` records the openings once set-up is over and
fits :data:`bots.search_eval.SETUP_WEIGHTS`. It prints the weights and the
held-out log-loss (the last fifth of the positions, after a seeded shuffle);
``--write`` also stores them, with the command and the fit's numbers, in the
weights file (:data:`bots.search_eval.WEIGHTS_FILE`) the search bot loads.
The games and the fit depend only on the arguments: the same command on the
same code writes the same weights. Pure Python.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from protocol.rules import GameState, Phase, Settings

from .base import Bot
from .search_eval import (
    FEATURE_NAMES,
    SETUP_FEATURE_NAMES,
    SETUP_WEIGHTS,
    WEIGHTS,
    WEIGHTS_FILE,
    WEIGHTS_FORMAT,
    features,
    setup_features,
)


def _explorer(seed: int, eps: float = 0.5, k: int = 6) -> Bot:
    """A heuristic bot that, with probability ``eps``, places a set-up settlement
    on one of its ``k`` best spots (by the heuristic's score) at random."""
    from protocol.rules import Action, BuildSettlement

    from .heuristic import _OPENING_WEIGHT, HeuristicBot, _Ctx

    class Explorer(HeuristicBot):
        def __init__(self, seed: int) -> None:
            super().__init__(seed)
            self._x = random.Random(seed ^ 0x5EED)

        def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
            if view["phase"] == "setup_settlement" and self._x.random() < eps:
                ctx = _Ctx.of_view(view, self._static_for(view))
                w = ctx.weights(ctx.me, _OPENING_WEIGHT)
                spots = sorted((a for a in legal if isinstance(a, BuildSettlement)),
                               key=lambda a: -ctx.spot_value(a.node, ctx.me, w))
                return self._x.choice(spots[:k])
            return super().act(view, legal)

    return Explorer(seed)


def collect(games: int, players: int, seed: int, every: int = 2, setup: bool = False,
            explore: bool = False) -> list[tuple[list[list[float]], int]]:
    """Heuristic self-play positions: (features per seat, winner), sampled at the
    start of every ``every``-th turn (``setup``: set-up features, once per game,
    when set-up is over; ``explore``: the seats sometimes place set-up
    settlements off the heuristic's choice, see :func:`_explorer`)."""
    from .heuristic import HeuristicBot
    from .local import play_game

    data: list[tuple[list[list[float]], int]] = []
    for g in range(games):
        rows: list[list[list[float]]] = []
        last = [-1]

        def hook(st: GameState, seat: int, action: object, events: object,
                 rows: list[list[list[float]]] = rows, last: list[int] = last) -> None:
            if st.phase == Phase.PRE_ROLL and st.turn != last[0] and not st.rolled:
                if setup:
                    if last[0] < 0:
                        rows.append([setup_features(st, q) for q in range(players)])
                elif st.turn % every == 0:
                    rows.append([features(st, q) for q in range(players)])
                last[0] = st.turn

        bots = [_explorer(seed + g * 8 + q) if explore else HeuristicBot(seed + g * 8 + q)
                for q in range(players)]
        result = play_game(bots, Settings(players=players, turn_cap=1000), seed + g,
                           on_step=hook, keep_log=False)
        if result.winner is None:
            continue
        data.extend((r, result.winner) for r in rows)
    return data


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        if abs(piv) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / piv
                if f:
                    for k in range(c, n + 1):
                        m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def log_loss(data: Sequence[tuple[list[list[float]], int]], w: Sequence[float]) -> float:
    total = 0.0
    for rows, winner in data:
        sc = [sum(wi * x for wi, x in zip(w, f, strict=True)) for f in rows]
        top = max(sc)
        z = sum(math.exp(x - top) for x in sc)
        total -= sc[winner] - top - math.log(z)
    return total / max(1, len(data))


def fit(data: Sequence[tuple[list[list[float]], int]], iterations: int = 12,
        l2: float = 1.0) -> list[float]:
    """Maximum-likelihood conditional-logit weights (Newton's method, L2 penalty)."""
    k = len(data[0][0][0])
    w = [0.0] * k
    for _ in range(iterations):
        grad = [-l2 * x for x in w]
        hess = [[(l2 if i == j else 0.0) for j in range(k)] for i in range(k)]
        for rows, winner in data:
            sc = [sum(wi * x for wi, x in zip(w, f, strict=True)) for f in rows]
            top = max(sc)
            ex = [math.exp(x - top) for x in sc]
            z = sum(ex)
            p = [x / z for x in ex]
            mean = [sum(p[q] * rows[q][i] for q in range(len(rows))) for i in range(k)]
            fw = rows[winner]
            for i in range(k):
                grad[i] += fw[i] - mean[i]
            for q, f in enumerate(rows):
                d = [f[i] - mean[i] for i in range(k)]
                pq = p[q]
                for i in range(k):
                    di = pq * d[i]
                    if di:
                        row = hess[i]
                        for j in range(k):
                            row[j] += di * d[j]
        step = _solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
    return w


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="fit the search bot's evaluation weights")
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--setup", action="store_true", help="fit SETUP_WEIGHTS instead")
    p.add_argument("--explore", action="store_true",
                   help="vary the set-up settlements (random among each seat's six best half "
                        "of the time)")
    p.add_argument("--write", action="store_true",
                   help=f"store the weights in bots/{WEIGHTS_FILE} (the search bot's)")
    p.add_argument("--file", type=Path, default=None,
                   help="the weights file to write (default: the search bot's)")
    args = p.parse_args(argv)
    t = time.perf_counter()
    data = collect(args.games, args.players, args.seed, setup=args.setup,
                   explore=args.explore)
    random.Random(0).shuffle(data)
    split = len(data) * 4 // 5
    train, test = data[:split], data[split:]
    print(f"{len(data)} positions in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    w = fit(train)
    n = args.players
    current = SETUP_WEIGHTS if args.setup else WEIGHTS
    print(f"test log-loss {log_loss(test, w):.4f} (uniform {math.log(n):.4f}, "
          f"current {log_loss(test, current):.4f})", file=sys.stderr)
    name = "SETUP_WEIGHTS" if args.setup else "WEIGHTS"
    print(f"{name} = (" + ", ".join(f"{x:.4f}" for x in w) + ")")
    names = SETUP_FEATURE_NAMES if args.setup else FEATURE_NAMES
    for name, x in zip(names, w, strict=True):
        print(f"  {name:>10}: {x:+.4f}", file=sys.stderr)
    if args.write or args.file is not None:
        path = args.file or Path(__file__).with_name(WEIGHTS_FILE)
        command = ["python -m bots.search_fit", f"--games {args.games}", f"--seed {args.seed}"]
        if args.players != 4:
            command.append(f"--players {args.players}")
        command += [flag for flag, on in (("--setup", args.setup), ("--explore", args.explore))
                    if on]
        write_weights(path, "setup" if args.setup else "win", names, w, {
            "fitted_by": " ".join([*command, "--write"]), "players": n, "games": args.games,
            "seed": args.seed, "setup": args.setup, "explore": args.explore,
            "positions": len(data), "heldout_log_loss": round(log_loss(test, w), 4),
            "uniform_log_loss": round(math.log(n), 4), "heuristic_commit": _commit()})
        print(f"written to {path}", file=sys.stderr)
    return 0


def write_weights(path: Path, model: str, names: Sequence[str], weights: Sequence[float],
                  facts: Mapping[str, Any]) -> None:
    """Store ``model``'s weights (rounded to 4 decimals) and ``facts`` in the
    weights file at ``path``, keeping its other models; atomically."""
    doc: dict[str, Any] = {"format": WEIGHTS_FORMAT, "models": {}}
    if path.exists():
        old = json.loads(path.read_text("utf-8"))
        if isinstance(old, dict) and isinstance(old.get("models"), dict):
            doc["models"] = old["models"]
    doc["models"][model] = {"features": list(names),
                            "weights": [round(x, 4) for x in weights], **facts}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    tmp.replace(path)


def _commit() -> str | None:
    """The checkout's commit (whose heuristic played the games), if git knows it."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=Path(__file__).parent, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


if __name__ == "__main__":
    raise SystemExit(main())
