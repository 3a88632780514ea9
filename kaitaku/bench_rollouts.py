"""``kaitaku bench rollouts``: what a search bot's simulations cost.

Positions: heuristic self-play games from fixed seeds, stopped at the start of
a turn (turns 8, 14, 20, …). From each, with heuristic bots in every seat (as
:class:`bots.search.SearchBot` rolls out, one pooled bot per seat reseeded per
rollout, dice from a seeded list):

- **one-round rollouts**: play to the start of the turn after the same seat's
  next one (``players + 1`` turn changes), the search bot's horizon;
- **full-game playouts**: play to the end of the game (or turn 400).

Each is timed on two paths over the same positions and seeds (twice, in
turn; the faster run of each counts): ``apply`` (the
checked engine with events, listing every seat's legal actions) and ``fast``
(:func:`protocol.rules.fast.step` and :func:`protocol.rules.fast.forced`, what
the search bot uses). The two must end in the same states (``identical``).
A random-policy run (no bot thinking) shows the engine's own share.

``--reference`` times the ``apply`` path only and imports nothing newer than
``apply``, so the same file measures an older checkout::

    cd OLD_CHECKOUT && PYTHONPATH=. python PATH/TO/kaitaku/bench_rollouts.py --reference
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

from bots.heuristic import HeuristicBot
from bots.local import LazyView
from protocol.rules import (
    CounterOffer,
    GameState,
    OfferTrade,
    Phase,
    RollDice,
    RulesError,
    Settings,
    apply,
    legal_actions,
    new_game,
    to_act,
)

_GAME_OVER = Phase.GAME_OVER.value
_PRE_ROLL = Phase.PRE_ROLL.value
_MAIN = Phase.MAIN.value
_PLAYOUT_TURNS = 400
_MAX_STEPS = 600
Runner = Callable[[GameState, list[HeuristicBot], int, list[int], random.Random | None], int]


def positions(players: int, seed: int, count: int) -> list[GameState]:
    """``count`` positions at the start of a turn, from seeded heuristic games."""
    out: list[GameState] = []
    g = 0
    while len(out) < count:
        s = new_game(Settings(players=players), seed * 1000 + g)
        bots = [HeuristicBot(seed * 1000 + g * 8 + q) for q in range(players)]
        stop = 8 + 6 * (len(out) % 4)
        while s.phase != _GAME_OVER and not (s.turn >= stop and s.phase == _PRE_ROLL):
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            a = bots[seat].act(LazyView(s, seat), legal)
            try:
                apply(s, a, seat)
            except RulesError:
                apply(s, legal[0], seat)
        if s.phase != _GAME_OVER:
            s.log = None
            out.append(s)
        g += 1
    return out


def _run_apply(s: GameState, bots: list[HeuristicBot], turns: int, dice: list[int],
               rnd: random.Random | None) -> int:
    """Play ``turns`` turn changes with the checked engine; the steps played.
    ``rnd``: a uniform random policy instead of the bots."""
    end = s.turn + turns
    two = s.settings.players == 2
    roll = steps = 0
    while s.phase != _GAME_OVER and s.turn < end and steps < _MAX_STEPS * turns:
        steps += 1
        seat = to_act(s)[0]
        legal = legal_actions(s, seat)
        if rnd is not None:
            a = legal[int(rnd.random() * len(legal))]
        elif len(legal) == 1 and s.phase != _MAIN:
            a = legal[0]
        else:
            a = bots[seat].act(LazyView(s, seat), legal)
        chance: tuple[int, int] | None = None
        if type(a) is RollDice:
            x = dice[roll % len(dice)]
            roll += 1
            d1, d2 = x // 6 + 1, x % 6 + 1
            if not (two and s.rolls_done and d1 + d2 == s.first_sum):
                chance = (d1, d2)
        try:
            apply(s, a, seat, chance)
        except RulesError:
            apply(s, legal[0], seat)
    return steps


def _fast_runner() -> Runner:
    from protocol.rules.fast import forced, step

    unlisted = (OfferTrade, CounterOffer)

    def run(s: GameState, bots: list[HeuristicBot], turns: int, dice: list[int],
            rnd: random.Random | None) -> int:
        """As :func:`_run_apply`, on the fast path (as the search bot plays out)."""
        end = s.turn + turns
        two = s.settings.players == 2
        roll = steps = 0
        while s.phase != _GAME_OVER and s.turn < end and steps < _MAX_STEPS * turns:
            steps += 1
            seat = to_act(s)[0]
            a = None if rnd is not None else forced(s, seat)
            if a is None:
                legal = legal_actions(s, seat)
                if rnd is not None:
                    a = legal[int(rnd.random() * len(legal))]
                elif len(legal) == 1 and s.phase != _MAIN:
                    a = legal[0]
                else:
                    a = bots[seat].act_state(s, seat, legal)
                    if type(a) in unlisted:
                        try:
                            apply(s, a, seat)
                        except RulesError:
                            step(s, legal[0], seat)
                        continue
            chance: tuple[int, int] | None = None
            if type(a) is RollDice:
                x = dice[roll % len(dice)]
                roll += 1
                d1, d2 = x // 6 + 1, x % 6 + 1
                if not (two and s.rolls_done and d1 + d2 == s.first_sum):
                    chance = (d1, d2)
            step(s, a, seat, chance)
        return steps

    return run


def _digest(s: GameState) -> str:
    return hashlib.sha256(json.dumps(s.to_dict(include_log=False), sort_keys=True)
                          .encode()).hexdigest()[:16]


def _measure(run: Runner, starts: list[GameState], reps: int, turns: int, seed: int,
             random_policy: bool = False) -> dict[str, Any]:
    n = starts[0].settings.players
    pool = [HeuristicBot(q) for q in range(n)]
    steps = 0
    digest = hashlib.sha256()
    t0 = time.perf_counter()
    for i in range(reps):
        base = starts[i * len(starts) // reps]  # in blocks, as a search's are
        k = seed * 1_000_003 + i
        for q, b in enumerate(pool):
            b._rng.seed(k + q)
            b._turn = -1
        dice = random.Random(k).choices(range(36), k=64)
        s = base.copy()
        steps += run(s, pool, turns, dice, random.Random(k) if random_policy else None)
        digest.update(_digest(s).encode())
    seconds = time.perf_counter() - t0
    return {"runs": reps, "seconds": round(seconds, 3), "per_s": round(reps / seconds, 1),
            "ms_each": round(seconds / reps * 1000, 3), "steps_per_s": round(steps / seconds),
            "digest": digest.hexdigest()[:16]}


def bench_rollouts(players: int = 4, seed: int = 1, rollouts: int = 200, playouts: int = 8,
                   count: int = 8, reference: bool = False) -> dict[str, Any]:
    starts = positions(players, seed, count)
    runners: dict[str, Runner] = {"apply": _run_apply}
    if not reference:
        runners["fast"] = _fast_runner()
    kinds = {
        "rollout_1round": (rollouts, players + 1, False),
        "playout_full": (playouts, _PLAYOUT_TURNS, False),
        "random_playout_full": (playouts * 4, _PLAYOUT_TURNS, True),
    }
    out: dict[str, Any] = {"players": players, "seed": seed, "positions": len(starts)}
    for kind, (reps, turns, rand) in kinds.items():
        row: dict[str, Any] = {}
        for _ in range(2):  # alternate the paths; keep each one's faster run
            for name, run in runners.items():
                m = _measure(run, starts, reps, turns, seed, rand)
                if name not in row or m["seconds"] < row[name]["seconds"]:
                    row[name] = m
        if "fast" in row:
            row["ratio"] = round(row["fast"]["per_s"] / row["apply"]["per_s"], 2)
            row["identical"] = row["fast"]["digest"] == row["apply"]["digest"]
        out[kind] = row
    return out


def main_rollouts(players: int, seed: int, rollouts: int, playouts: int, reference: bool,
                  as_json: bool) -> int:
    result = bench_rollouts(players, seed, rollouts, playouts, reference=reference)
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"{players} players, {result['positions']} positions (seed {seed})")
    for kind in ("rollout_1round", "playout_full", "random_playout_full"):
        row = result[kind]
        cells = "   ".join(f"{name}: {row[name]['per_s']:>8.1f}/s ({row[name]['ms_each']:.2f} ms)"
                           for name in ("apply", "fast") if name in row)
        extra = ""
        if "ratio" in row:
            extra = f"   fast/apply {row['ratio']:.2f}x, identical: {row['identical']}"
        print(f"{kind:>20}  {cells}{extra}")
    return 0


if __name__ == "__main__":  # run from an (older) checkout's root: see the module docstring
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rollouts", type=int, default=200)
    ap.add_argument("--playouts", type=int, default=8)
    ap.add_argument("--reference", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    raise SystemExit(main_rollouts(a.players, a.seed, a.rollouts, a.playouts, a.reference,
                                   a.json))
