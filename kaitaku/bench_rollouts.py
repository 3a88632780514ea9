"""``kaitaku bench rollouts``: what a search bot's simulations cost.

Positions: heuristic self-play games from fixed seeds, stopped at the start of
a turn (turns 8, 14, 20, …). From each, with heuristic bots in every seat (as
:class:`bots.search.SearchBot` rolls out, one pooled bot per seat reseeded per
rollout, dice from a seeded list):

- **one-round rollouts**: play to the start of the turn after the same seat's
  next one (``players + 1`` turn changes), the search bot's horizon;
- **full-game playouts**: play to the end of the game (or turn 400).

Each is timed on three paths over the same positions and seeds (twice, in
turn; the faster run of each counts):

- ``apply``: the checked engine with events, listing every seat's legal
  actions, the bots deciding on their seat's view (``observe``);
- ``fast``: :func:`protocol.rules.fast.step` and :func:`protocol.rules.fast.forced`,
  the bots deciding from the state (:meth:`bots.heuristic.HeuristicBot.act_state`);
  it must end in the same states as ``apply`` (``identical``);
- ``search``: ``fast`` with the search bot's rollout policy, in which no
  domestic offer is made (``SearchBot(rollout_trade=False)``, the default).

A random-policy run (no bot thinking) shows the engine's own share. The
garbage collector is paused while timing (as the search runs) and collects
between rollouts; the digest of each end state (the check) is not timed.

``--reference`` times the ``apply`` path only and imports nothing newer than
``apply``, so the same file measures an older checkout::

    cd OLD_CHECKOUT && PYTHONPATH=. python PATH/TO/kaitaku/bench_rollouts.py --reference

``--against OLD_CHECKOUT`` does that in a subprocess, in turn with this
checkout's runs (``--repeat`` times each), and reports the medians, the
ratios of this checkout's paths to the old ``apply``, whether ``fast`` ended
where ``apply`` did, and whether the old ``apply`` ended where this one did
(only when neither the rules nor the bots changed in between).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots.heuristic import HeuristicBot
from bots.local import LazyView
from protocol.rules import (
    GameState,
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
_KINDS = ("rollout_1round", "playout_full", "random_playout_full")


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
    from bots.search import rollout_step
    from protocol.rules.fast import step

    def run(s: GameState, bots: list[HeuristicBot], turns: int, dice: list[int],
            rnd: random.Random | None) -> int:
        """As :func:`_run_apply`, on the fast path: the bots' turns exactly as
        the search bot plays them out (:func:`bots.search.rollout_step`)."""
        end = s.turn + turns
        two = s.settings.players == 2
        roll = steps = 0
        while s.phase != _GAME_OVER and s.turn < end and steps < _MAX_STEPS * turns:
            steps += 1
            if rnd is None:
                roll = rollout_step(s, bots, dice, roll)
                continue
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            a = legal[int(rnd.random() * len(legal))]
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
             random_policy: bool = False, trade: bool = True) -> dict[str, Any]:
    n = starts[0].settings.players
    pool = [HeuristicBot(q) for q in range(n)]
    if not trade:  # the search's rollout policy
        for b in pool:
            b.offers = False
    steps = 0
    digest = hashlib.sha256()
    seconds = 0.0
    collecting = gc.isenabled()
    gc.disable()  # as the search runs its rollouts
    try:
        for i in range(reps):
            base = starts[i * len(starts) // reps]  # in blocks, as a search's are
            k = seed * 1_000_003 + i
            t0 = time.perf_counter()
            for q, b in enumerate(pool):
                if hasattr(b, "reseed"):
                    b.reseed(k + q)
                else:  # an older checkout's bot
                    b._rng.seed(k + q)
                    b._turn = -1
            dice = random.Random(k).choices(range(36), k=64)
            s = base.copy()
            steps += run(s, pool, turns, dice, random.Random(k) if random_policy else None)
            seconds += time.perf_counter() - t0
            digest.update(_digest(s).encode())  # the check, not timed
            if i % 64 == 63:
                gc.collect()  # between rollouts, not timed either
    finally:
        if collecting:
            gc.enable()
    return {"runs": reps, "seconds": round(seconds, 3), "per_s": round(reps / seconds, 1),
            "ms_each": round(seconds / reps * 1000, 3), "steps_per_s": round(steps / seconds),
            "digest": digest.hexdigest()[:16]}


def bench_rollouts(players: int = 4, seed: int = 1, rollouts: int = 200, playouts: int = 8,
                   count: int = 8, reference: bool = False) -> dict[str, Any]:
    starts = positions(players, seed, count)
    runners: dict[str, tuple[Runner, bool]] = {"apply": (_run_apply, True)}
    if not reference:
        fast = _fast_runner()
        runners["fast"] = (fast, True)
        runners["search"] = (fast, False)
    kinds = {
        "rollout_1round": (rollouts, players + 1, False),
        "playout_full": (playouts, _PLAYOUT_TURNS, False),
        "random_playout_full": (playouts * 4, _PLAYOUT_TURNS, True),
    }
    out: dict[str, Any] = {"players": players, "seed": seed, "positions": len(starts)}
    for kind, (reps, turns, rand) in kinds.items():  # in the order of _KINDS
        row: dict[str, Any] = {}
        for _ in range(2):  # alternate the paths; keep each one's faster run
            for name, (run, trade) in runners.items():
                if rand and not trade:
                    continue  # a random policy makes no offers anyway
                m = _measure(run, starts, reps, turns, seed, rand, trade)
                if name not in row or m["seconds"] < row[name]["seconds"]:
                    row[name] = m
        if "fast" in row:
            row["ratio"] = round(row["fast"]["per_s"] / row["apply"]["per_s"], 2)
            row["identical"] = row["fast"]["digest"] == row["apply"]["digest"]
        out[kind] = row
    return out


def _reference(checkout: Path, players: int, seed: int, rollouts: int,
               playouts: int) -> dict[str, Any]:
    """``--reference`` run in ``checkout`` (its own packages imported)."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--reference", "--json",
         "--players", str(players), "--seed", str(seed), "--rollouts", str(rollouts),
         "--playouts", str(playouts)],
        cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def compare(checkout: Path, players: int = 4, seed: int = 1, rollouts: int = 200,
            playouts: int = 8, repeat: int = 3) -> dict[str, Any]:
    """Old ``apply`` (in ``checkout``) and this checkout's paths, in turn,
    ``repeat`` runs each: the medians of runs per second and their ratios."""
    runs: dict[str, dict[str, list[float]]] = {k: {} for k in _KINDS}
    same = alike = True
    for _ in range(repeat):
        old = _reference(checkout, players, seed, rollouts, playouts)
        new = bench_rollouts(players, seed, rollouts, playouts)
        for kind in _KINDS:
            runs[kind].setdefault("old", []).append(old[kind]["apply"]["per_s"])
            for name in ("apply", "fast", "search"):
                if name in new[kind]:
                    runs[kind].setdefault(name, []).append(new[kind][name]["per_s"])
            same = same and bool(new[kind]["identical"])
            alike = alike and old[kind]["apply"]["digest"] == new[kind]["apply"]["digest"]
    out: dict[str, Any] = {"players": players, "seed": seed, "repeat": repeat,
                           "checkout": str(checkout), "fast_identical": same,
                           "old_identical": alike}
    for kind in _KINDS:
        row: dict[str, Any] = {name: {"runs": v, "median": statistics.median(v)}
                               for name, v in runs[kind].items()}
        base = row["old"]["median"]
        for name in row:
            row[name]["vs_old"] = round(row[name]["median"] / base, 2)
        out[kind] = row
    return out


def main_rollouts(players: int, seed: int, rollouts: int, playouts: int, reference: bool,
                  as_json: bool, against: str | None = None, repeat: int = 3) -> int:
    if against is not None:
        cmp = compare(Path(against), players, seed, rollouts, playouts, repeat)
        if as_json:
            print(json.dumps(cmp))
            return 0
        print(f"{players} players (seed {seed}), runs/s, median of {repeat} runs each, "
              f"old = apply in {against}")
        for kind in _KINDS:
            cells = "   ".join(f"{name}: {r['median']:>8.1f} ({r['vs_old']:.2f}x)"
                               for name, r in cmp[kind].items())
            print(f"{kind:>20}  {cells}")
        print(f"fast ends in the same states as apply: {cmp['fast_identical']}; "
              f"old apply ends in the same states as apply: {cmp['old_identical']} "
              "(not when the rules or the bots changed in between)")
        return 0
    result = bench_rollouts(players, seed, rollouts, playouts, reference=reference)
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"{players} players, {result['positions']} positions (seed {seed})")
    for kind in _KINDS:
        row = result[kind]
        cells = "   ".join(f"{name}: {row[name]['per_s']:>8.1f}/s ({row[name]['ms_each']:.2f} ms)"
                           for name in ("apply", "fast", "search") if name in row)
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
