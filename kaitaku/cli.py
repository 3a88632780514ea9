"""The ``kaitaku`` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import random
import sys


def _bench(args: argparse.Namespace) -> int:
    from .bench import main_engine

    return main_engine(args.games, args.players, args.seed, args.json,
                       args.catanatron_python, args.catanatron_games)


def _play(args: argparse.Namespace) -> int:
    from .terminal import run

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    return run(args.bots, seed, args.delay, args.vp, args.sea3d)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kaitaku", description="Kaitaku (開拓): networked Catan")
    sub = p.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="benchmarks")
    bsub = bench.add_subparsers(dest="what", required=True)
    eng = bsub.add_parser("engine", help="random-bot games in-process (engine speed)")
    eng.add_argument("--games", type=int, default=200)
    eng.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    eng.add_argument("--seed", type=int, default=1)
    eng.add_argument("--json", action="store_true", help="print one JSON object")
    eng.add_argument("--catanatron-python", metavar="PYTHON",
                     help="also time catanatron's RandomPlayer with this interpreter "
                          "(a venv where catanatron is installed) and report the ratio")
    eng.add_argument("--catanatron-games", type=int, default=None)
    eng.set_defaults(func=_bench)

    play = sub.add_parser("play", help="play a game (for now: bots in the terminal)")
    play.add_argument("--bots", nargs="+", default=["greedy", "greedy", "random", "greedy"],
                      choices=("random", "greedy"),
                      help="one bot per seat: 2 bots play the 2-player variant")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--delay", type=float, default=0.0, help="seconds between lines")
    play.add_argument("--vp", type=int, default=10, help="victory points to win")
    play.add_argument("--sea3d", action="store_true",
                      help="sea3D house rules: balanced map, shuffled harbors, harbor delay, "
                           "no trading after building")
    play.set_defaults(func=_play)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    rc: int = args.func(args)
    return rc


if __name__ == "__main__":
    sys.exit(main())
