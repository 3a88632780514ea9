"""Self-play data and training for the Hard bot's win model (:mod:`bots.hard_model`).

Two steps, each a long job that runs in parts and continues where it stopped:

``python -m bots.hard_train play --out DIR --games N [--first G] --players P --policy POLICY``
    plays self-play games ``G`` … ``G+N−1`` (game ``g`` is seeded from
    ``--seed`` and ``g`` alone) in chunks of ``--chunk`` games, and writes each
    chunk's positions to ``DIR/p{P}-{G:06d}.npz``: at the start of every turn,
    the position encoded (:func:`bots.hard_model.encode`) as one seat sees it
    (the seats take turns being the one), with the game's winner. A chunk
    whose file exists is skipped, so a stopped run continues with the same
    command, and a longer one extends it. ``--policy`` says who plays:
    ``mixed`` (each seat a heuristic or a trader bot, by the game's seed),
    ``hard`` (every seat the Hard bot over the model of ``--model`` with
    ``--iterations`` samples a candidate and no clock: deterministic, it
    searches and its games train the next model), or ``hard-vs-mixed`` (one
    seat, rotating, the Hard bot; the others mixed).

``python -m bots.hard_train train --data DIR [DIR ...] --seed S --out FILE``
    fits the model on every chunk in the directories (PyTorch on the CPU,
    the optional ``train`` extra: ``pip install -e '.[train]'``), on the
    games whose number is 0–7 modulo 10, keeps the epoch with the best
    log-loss on those numbered 8 (early stopping), reports the log-loss on
    those numbered 9 (held out), and writes the weights file with
    the command, the data's digest, the held-out log-loss per player count
    and the time it took. It checkpoints after every epoch
    (``FILE.ckpt``) and resumes from the checkpoint when run again. One
    thread, deterministic algorithms, the batches' order from the seed: the
    same data and command write the same file.

``python -m bots.hard_train eval --data DIR [DIR ...] --model FILE [FILE ...]``
    prints each weights file's log-loss on the held-out games of the data
    (to compare one iteration's model with the next on the new games).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from protocol.rules import GameState, Phase, Settings

from .base import Bot
from .hard_model import FEATURE_NAMES, WEIGHTS_FILE, WinModel, encode, parse_model

_PRE_ROLL = Phase.PRE_ROLL.value


def _bots(policy: str, players: int, game: int, seed: int, model: Path | None,
          iterations: int) -> list[Bot]:
    from .heuristic import HeuristicBot
    from .search_policy import TraderBot

    rng = random.Random(seed * 1_000_003 + game)
    bots: list[Bot] = []
    for q in range(players):
        bseed = seed + game * 8 + q
        bots.append(TraderBot(bseed) if rng.random() < 0.5 else HeuristicBot(bseed))
    if policy in ("hard", "hard-vs-mixed"):
        from .hard import HardBot

        wm = None if model is None else parse_model(model.read_text("utf-8"), str(model))
        seats = range(players) if policy == "hard" else [game % players]
        for q in seats:
            bots[q] = HardBot(None, seed + game * 8 + q, iterations=iterations, model=wm)
    return bots


def play_chunk(policy: str, players: int, first: int, count: int, seed: int,
               model: Path | None = None, iterations: int = 8,
               ) -> dict[str, np.ndarray]:
    """Play games ``first`` … ``first+count−1`` and return their positions."""
    from .local import play_game

    xs: list[list[list[float]]] = []
    ys: list[int] = []
    gs: list[int] = []
    for g in range(first, first + count):
        rows: list[list[list[float]]] = []
        last = [-1]

        def hook(st: GameState, seat: int, action: object, events: object,
                 rows: list[list[list[float]]] = rows, last: list[int] = last) -> None:
            if st.phase == _PRE_ROLL and st.turn != last[0] and not st.rolled:
                rows.append(encode(st, st.turn % players))
                last[0] = st.turn

        bots = _bots(policy, players, g, seed, model, iterations)
        result = play_game(bots, Settings(players=players, turn_cap=600), seed + g,
                           on_step=hook, keep_log=False)
        if result.winner is None:
            continue
        xs.extend(rows)
        ys.extend([result.winner] * len(rows))
        gs.extend([g] * len(rows))
    k = len(FEATURE_NAMES)
    return {"x": np.asarray(xs, dtype=np.float32).reshape(-1, players, k),
            "y": np.asarray(ys, dtype=np.int64), "game": np.asarray(gs, dtype=np.int64)}


def cmd_play(args: argparse.Namespace) -> int:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    meta = {"policy": args.policy, "players": args.players, "seed": args.seed,
            "iterations": args.iterations,
            "model": None if args.model is None else _digest_file(args.model)}
    meta_file = out / f"p{args.players}-meta.json"
    if meta_file.exists():
        old = json.loads(meta_file.read_text("utf-8"))
        if old != meta:
            print(f"{out} holds games of another run ({old}); use another --out",
                  file=sys.stderr)
            return 2
    else:
        meta_file.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    start = time.perf_counter()
    done = 0
    for first in range(args.first, args.first + args.games, args.chunk):
        count = min(args.chunk, args.first + args.games - first)
        path = out / f"p{args.players}-{first:06d}.npz"
        if path.exists():
            continue
        t = time.perf_counter()
        data = play_chunk(args.policy, args.players, first, count, args.seed, args.model,
                          args.iterations)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(tmp, x=data["x"], y=data["y"], game=data["game"])
        os.replace(tmp, path)
        done += count
        print(f"games {first}-{first + count - 1}: {len(data['y'])} positions in "
              f"{time.perf_counter() - t:.0f} s ({done} games this run, "
              f"{time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    return 0


def _digest_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def load_data(dirs: Sequence[Path]) -> tuple[dict[int, dict[str, np.ndarray]], str]:
    """Every chunk in ``dirs``, by player count, and a digest of them all."""
    by: dict[int, list[dict[str, np.ndarray]]] = {}
    h = hashlib.sha256()
    for i, d in enumerate(dirs):
        for path in sorted(d.glob("p*-[0-9]*.npz")):
            if ".tmp" in path.name:
                continue
            with np.load(path) as z:
                part = {"x": z["x"], "y": z["y"], "game": z["game"]}
            n = int(part["x"].shape[1])
            # games of another directory are other games: keep them apart (the
            # offset keeps each game's number modulo 10, which splits the data)
            part["game"] = part["game"] + 10_000_000 * i
            by.setdefault(n, []).append(part)
            for key in ("x", "y"):
                h.update(np.ascontiguousarray(part[key]).tobytes())
    out = {n: {key: np.concatenate([p[key] for p in parts]) for key in ("x", "y", "game")}
           for n, parts in by.items()}
    return out, h.hexdigest()[:16]


def cmd_train(args: argparse.Namespace) -> int:
    try:
        import torch
    except ImportError:
        print("training needs PyTorch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)
    data, digest = load_data(args.data)
    if not data:
        print("no data", file=sys.stderr)
        return 2
    k = len(FEATURE_NAMES)
    train: dict[int, tuple[Any, Any]] = {}
    test: dict[int, tuple[Any, Any]] = {}
    valid: dict[int, tuple[Any, Any]] = {}
    for n, d in sorted(data.items()):
        part = d["game"] % 10
        for into, mask in ((train, part < 8), (valid, part == 8), (test, part == 9)):
            into[n] = (torch.from_numpy(d["x"][mask].astype(np.float64)),
                       torch.from_numpy(d["y"][mask]))
    allx = torch.cat([x.reshape(-1, k) for x, _ in train.values()])
    mean = allx.mean(0)
    scale = allx.std(0).clamp(min=1e-3)
    hidden = [int(x) for x in args.hidden.split(",") if x]
    sizes = [k, *hidden, 1]
    torch.manual_seed(args.seed)
    net = torch.nn.Sequential(*[m for i in range(len(sizes) - 1) for m in (
        torch.nn.Linear(sizes[i], sizes[i + 1], dtype=torch.float64),
        torch.nn.Tanh()) ][:-1])
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.l2)
    ckpt: Path = args.out.with_name(args.out.name + ".ckpt")
    epoch0 = 0
    spent = 0.0
    best: tuple[float, int, Any] = (math.inf, 0, None)  # validation loss, epoch, weights
    key = {"data": digest, "seed": args.seed, "hidden": hidden, "lr": args.lr, "l2": args.l2,
           "batch": args.batch}
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        if state["key"] == key:
            net.load_state_dict(state["net"])
            opt.load_state_dict(state["opt"])
            epoch0 = state["epoch"]
            spent = state["spent"]
            best = state["best"]
            print(f"resuming after epoch {epoch0}", file=sys.stderr)

    def loss_of(n: int, x: Any, y: Any) -> Any:
        sc = net((x - mean) / scale).reshape(-1, n)
        return torch.nn.functional.cross_entropy(sc, y)

    def heldout(part: dict[int, tuple[Any, Any]]) -> dict[int, float]:
        with torch.no_grad():
            return {n: float(loss_of(n, *part[n])) for n in part if len(part[n][1])}

    def pooled(losses: dict[int, float]) -> float:
        count = {n: len(valid[n][1]) for n in losses}
        return sum(losses[n] * count[n] for n in losses) / max(1, sum(count.values()))

    start = time.perf_counter()
    for epoch in range(epoch0, args.epochs):
        g = torch.Generator().manual_seed(args.seed * 100_003 + epoch)
        batches: list[tuple[int, Any]] = []
        for n, (x, _) in sorted(train.items()):
            perm = torch.randperm(len(x), generator=g)
            batches += [(n, perm[i:i + args.batch]) for i in range(0, len(x), args.batch)]
        order = torch.randperm(len(batches), generator=g).tolist()
        net.train()
        for j in order:
            n, idx = batches[j]
            x, y = train[n]
            opt.zero_grad()
            loss = loss_of(n, x[idx], y[idx])
            loss.backward()
            opt.step()
        va = heldout(valid)
        if pooled(va) < best[0]:
            best = (pooled(va), epoch + 1,
                    {k: v.detach().clone() for k, v in net.state_dict().items()})
        torch.save({"key": key, "net": net.state_dict(), "opt": opt.state_dict(),
                    "epoch": epoch + 1, "spent": spent + time.perf_counter() - start,
                    "best": best}, ckpt)
        print(f"epoch {epoch + 1}/{args.epochs}: validation log-loss " + ", ".join(
            f"{n}p {v:.4f}" for n, v in sorted(va.items())), file=sys.stderr, flush=True)
    spent += time.perf_counter() - start
    if best[2] is not None:
        net.load_state_dict(best[2])  # early stopping: the epoch best on validation
    layers = []
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    for m in linears:
        layers.append((m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()))
    ho = heldout(test)
    command = ["python -m bots.hard_train train", *(f"--data {d}" for d in args.data),
               f"--seed {args.seed}", f"--epochs {args.epochs}", f"--hidden {args.hidden}",
               f"--lr {args.lr}", f"--l2 {args.l2}", f"--batch {args.batch}"]
    facts = {
        "trained_by": " ".join(command),
        "data_digest": digest,
        "positions": {str(n): int(len(d["y"])) for n, d in sorted(data.items())},
        "games": {str(n): int(len(np.unique(d["game"]))) for n, d in sorted(data.items())},
        "heldout_log_loss": {str(n): round(v, 4) for n, v in sorted(ho.items())},
        "uniform_log_loss": {str(n): round(math.log(n), 4) for n in sorted(ho)},
        "epochs": args.epochs,
        "best_epoch": best[1],
    }
    model = WinModel(layers, mean.numpy(), scale.numpy(), facts)
    doc = model.to_doc()
    parse_model(json.dumps(doc))  # what we write must load
    text = json.dumps(doc, indent=None, separators=(",", ":")) + "\n"
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, args.out)
    print(f"written to {args.out} ({len(text)} bytes; training {spent:.0f} s); held-out "
          + json.dumps(facts["heldout_log_loss"]), file=sys.stderr)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """The log-loss of weights files on the held-out games (numbered 9 modulo
    10) of the data: how well each model predicts those games' winners."""
    data, digest = load_data(args.data)
    print(f"data {digest}: " + ", ".join(
        f"{n}p {len(np.unique(d['game'][d['game'] % 10 == 9]))} held-out games"
        for n, d in sorted(data.items())))
    for path in args.model:
        model = parse_model(path.read_text("utf-8"), str(path))
        out = []
        for n, d in sorted(data.items()):
            held = d["game"] % 10 == 9
            if not held.any():
                out.append(f"{n}p no held-out games")
                continue
            p = model.probabilities(d["x"][held].astype(np.float64))
            y = d["y"][held]
            loss = -float(np.mean(np.log(np.maximum(p[np.arange(len(y)), y], 1e-12))))
            out.append(f"{n}p {loss:.4f} (uniform {math.log(n):.4f})")
        print(f"{path}: " + ", ".join(out))
    return 0


def _at_least(least: float, kind: type[int] | type[float] = int) -> Any:
    """An argparse type: a number (``kind``) of at least ``least``."""
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not least <= value < math.inf:
            raise argparse.ArgumentTypeError(f"the number must be at least {least}")
        return value

    return parse


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bots.hard_train",
                                description="self-play data and training for the Hard bot")
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("play", help="play self-play games and store their positions")
    pp.add_argument("--out", type=Path, required=True)
    pp.add_argument("--games", type=_at_least(1), required=True)
    pp.add_argument("--first", type=_at_least(0), default=0)
    pp.add_argument("--chunk", type=_at_least(1), default=50)
    pp.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    pp.add_argument("--seed", type=int, default=1)
    pp.add_argument("--policy", default="mixed", choices=("mixed", "hard", "hard-vs-mixed"))
    pp.add_argument("--model", type=Path, default=None,
                    help="the Hard bot's weights file (default: the shipped one)")
    pp.add_argument("--iterations", type=_at_least(1), default=8,
                    help="the Hard bot's samples per candidate")
    pt = sub.add_parser("train", help="fit the model on stored positions")
    pt.add_argument("--data", type=Path, nargs="+", required=True)
    pt.add_argument("--seed", type=int, default=1)
    pt.add_argument("--epochs", type=_at_least(1), default=30)
    pt.add_argument("--hidden", default="64,32")
    pt.add_argument("--lr", type=_at_least(1e-9, float), default=0.002)
    pt.add_argument("--l2", type=_at_least(0.0, float), default=1e-5)
    pt.add_argument("--batch", type=_at_least(1), default=512)
    pt.add_argument("--out", type=Path, default=Path(__file__).with_name(WEIGHTS_FILE))
    pe = sub.add_parser("eval", help="held-out log-loss of weights files on stored positions")
    pe.add_argument("--data", type=Path, nargs="+", required=True)
    pe.add_argument("--model", type=Path, nargs="+", required=True)
    args = p.parse_args(argv)
    if args.cmd == "eval":
        return cmd_eval(args)
    return cmd_play(args) if args.cmd == "play" else cmd_train(args)


if __name__ == "__main__":
    raise SystemExit(main())
