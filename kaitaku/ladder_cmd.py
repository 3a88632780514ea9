"""The ladder's commands: ``kaitaku server --ladder``, ``kaitaku ladder ...`` and
``kaitaku bot --ladder NAME`` (docs/COMPETITION.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

DEFAULT_LADDER_DB = "ladder.db"


def ladder_db(value: str | None) -> Path:
    return Path(value or DEFAULT_LADDER_DB)


def server_extension(args: argparse.Namespace) -> tuple[Any, Any]:
    """The ladder and its web page for ``kaitaku server --ladder`` (None, None
    without it). Raises ValueError with a message for the user."""
    if args.ladder is None:
        return None, None
    from league.ladder import DEFAULT_CLOCK, Ladder, LadderConfig
    from server.clock import Clock

    clock = (Clock.parse(args.ladder_clock, args.ladder_timeouts) if args.ladder_clock
             else Clock(DEFAULT_CLOCK.bank_ms, DEFAULT_CLOCK.increment_ms,
                        args.ladder_timeouts))
    config = LadderConfig(players=args.ladder_players, clock=clock, grace=args.ladder_grace,
                          vp_target=args.ladder_vp, duplicate=not args.ladder_no_duplicate,
                          open_registration=not args.ladder_closed, seed=args.ladder_seed)
    ladder = Ladder(ladder_db(args.ladder), config)
    web = None
    if args.ladder_http:
        from league.ladder_web import LadderWeb

        from .replay import replay_lines

        host, _, port = args.ladder_http.rpartition(":")
        try:
            web = LadderWeb(ladder.store.path, host or "127.0.0.1", int(port),
                            replay=replay_lines, title=f"{args.name} ladder")
        except (OSError, ValueError) as exc:
            ladder.store.close()
            raise ValueError(f"--ladder-http {args.ladder_http}: {exc}") from None
    return ladder, web


def add_server_flags(srv: argparse.ArgumentParser) -> None:
    from league.ladder import DEFAULT_CLOCK
    from server.clock import DEFAULT_TIMEOUTS

    g = srv.add_argument_group("ladder (docs/COMPETITION.md)")
    g.add_argument("--ladder", nargs="?", const=DEFAULT_LADDER_DB, default=None,
                   metavar="DB", help="run a live ladder: bots register, connect from "
                   f"anywhere, are matched and rated; its database (default {DEFAULT_LADDER_DB})")
    g.add_argument("--ladder-players", type=int, default=4, choices=(2, 3, 4, 5, 6),
                   help="seats of a ladder table (default 4)")
    g.add_argument("--ladder-clock", default=None, metavar="BASE+INC",
                   help="the chess clock of ladder games in seconds (default "
                        f"{DEFAULT_CLOCK.bank_ms // 1000}+{DEFAULT_CLOCK.increment_ms // 1000})")
    g.add_argument("--ladder-timeouts", type=int, default=DEFAULT_TIMEOUTS, metavar="N",
                   help=f"timeouts in a game after which a bot forfeits (default "
                        f"{DEFAULT_TIMEOUTS})")
    g.add_argument("--ladder-grace", type=float, default=60.0, metavar="SECONDS",
                   help="how long a dropped bot's seat waits before a stand-in plays it and "
                        "the game counts as its forfeit (default 60)")
    g.add_argument("--ladder-vp", type=int, default=10, metavar="VP",
                   help="victory points to win a ladder game (default 10)")
    g.add_argument("--ladder-no-duplicate", action="store_true",
                   help="single games only (default: duplicate sets where the bots of a "
                        "table all want that many games)")
    g.add_argument("--ladder-closed", action="store_true",
                   help="no registration over the network: the organiser registers names "
                        "with kaitaku ladder register --db")
    g.add_argument("--ladder-seed", type=int, default=None,
                   help="seed of the boards and starting seats (default: secret); the "
                        "dice stay secret either way")
    g.add_argument("--ladder-http", default=None, metavar="HOST:PORT",
                   help="serve the standings, rating history and games as a web page here "
                        "(e.g. 0.0.0.0:8080)")


def _tls(args: argparse.Namespace) -> Any:
    if args.tls or args.tls_ca:
        from bots.tls import client_context

        return client_context(args.tls_ca)
    return None


def main_ladder(args: argparse.Namespace) -> int:
    """``kaitaku ladder register|standings``."""
    from protocol.wire import ProtocolError

    if args.what == "register":
        if args.db is not None:  # the organiser, on the server's machine
            from .extras import EXIT_MISSING, require

            if not require("ladder register", "league", "--db (the ladder's ratings)"):
                return EXIT_MISSING
            from league.ladder import LadderStore, new_key
            from protocol.wire import clean_text
            from protocol.wire.messages import MAX_NAME

            name = clean_text(args.name, MAX_NAME)
            if not name:
                print("kaitaku ladder: a name needs a printable character", file=sys.stderr)
                return 2
            try:
                store = LadderStore(args.db)
            except ValueError as exc:
                print(f"kaitaku ladder: {exc}", file=sys.stderr)
                return 2
            key = new_key()
            owner = f"owner:{args.owner}" if args.owner else None
            try:
                why = store.refusal(name, owner)
                ok = why is None and store.register(name, key, owner)
            finally:
                store.close()
            if not ok:
                print(f"kaitaku ladder: {why or f'the name {name!r} is taken'}",
                      file=sys.stderr)
                return 1
            print(json.dumps({"name": name, "key": key}) if args.json else key)
            return 0
        if args.connect is None:
            print("kaitaku ladder register: give --connect HOST:PORT (or --db on the "
                  "server's machine)", file=sys.stderr)
            return 2
        from bots.ladder_client import register

        host, _, port = args.connect.rpartition(":")
        try:
            key = asyncio.run(register(host or "127.0.0.1", int(port), args.name,
                                       tls=_tls(args)))
        except (ProtocolError, OSError, ValueError) as exc:
            print(f"kaitaku ladder: {exc}", file=sys.stderr)
            return 1
        print(json.dumps({"name": args.name, "key": key}) if args.json else key)
        return 0
    # standings
    if args.db is not None:
        from league.ladder import open_read_only, read_standings

        if not Path(args.db).exists():
            print(f"kaitaku ladder: no database {args.db}", file=sys.stderr)
            return 2
        conn = open_read_only(args.db)
        try:
            entries, total, games = read_standings(conn)
        finally:
            conn.close()
        msg: dict[str, Any] = {"entries": entries, "total": total, "games": games}
    elif args.connect is not None:
        from bots.ladder_client import standings

        host, _, port = args.connect.rpartition(":")
        try:
            msg = asyncio.run(standings(host or "127.0.0.1", int(port), tls=_tls(args)))
        except (ProtocolError, OSError, ValueError) as exc:
            print(f"kaitaku ladder: {exc}", file=sys.stderr)
            return 1
    else:
        print("kaitaku ladder standings: give --connect HOST:PORT or --db PATH",
              file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({k: v for k, v in msg.items() if k != "type"}))
        return 0
    print(f"{'#':>3} {'bot':<32} {'ordinal':>8} {'mu':>7} {'sigma':>6} {'games':>6} "
          f"{'wins':>5} {'forf':>5}")
    from protocol.wire import clean_text
    from protocol.wire.messages import MAX_NAME

    for e in msg["entries"]:  # a name is cleaned: it came from a file or a peer
        print(f"{e['rank']:>3} {clean_text(e['name'], MAX_NAME):<32} {e['ordinal']:>8.2f} "
              f"{e['mu']:>7.2f} {e['sigma']:>6.2f} {e['games']:>6} {e['wins']:>5} "
              f"{e['forfeits']:>5}")
    print(f"{msg['total']} bots, {msg['games']} games rated")
    return 0


def add_ladder_parser(sub: Any, tls_flags: Any) -> None:
    lad = sub.add_parser("ladder", help="a live ladder: register a bot, read the standings")
    lsub = lad.add_subparsers(dest="what", required=True)
    reg = lsub.add_parser("register", help="register a bot's name; prints its secret key")
    reg.add_argument("name")
    reg.add_argument("--connect", default=None, metavar="HOST:PORT",
                     help="the ladder server (kaitaku server --ladder)")
    reg.add_argument("--db", default=None, metavar="PATH",
                     help="register in the ladder's database directly (the organiser)")
    reg.add_argument("--owner", default=None, metavar="WHO",
                     help="with --db: the name's owner (an author's account or e-mail); "
                          "one owner's bots never meet in a rated game (default: the name "
                          "is its own owner)")
    reg.add_argument("--json", action="store_true", help="print {name, key} as JSON")
    tls_flags(reg)
    st = lsub.add_parser("standings", help="print the ladder's standings")
    st.add_argument("--connect", default=None, metavar="HOST:PORT")
    st.add_argument("--db", default=None, metavar="PATH",
                    help="read the ladder's database (read-only)")
    st.add_argument("--json", action="store_true", help="print one JSON object")
    tls_flags(st)
    lad.set_defaults(func=main_ladder)


def run_bot_on_ladder(args: argparse.Namespace, key: str | None, tls: Any) -> int:
    """``kaitaku bot --ladder NAME``: play ``--games`` ladder games."""
    from bots import make_bot
    from bots.ladder_client import run_ladder
    from protocol.wire import ProtocolError

    key = key or os.environ.get("KAITAKU_LADDER_KEY")
    if not key:
        print("kaitaku bot --ladder: give the key (--key-stdin, --key, or "
              "$KAITAKU_LADDER_KEY)", file=sys.stderr)
        return 2
    host, _, port = args.connect.rpartition(":")
    seed = [args.seed]

    def make() -> Any:
        bot = make_bot(args.bot, seed[0])
        if seed[0] is not None:
            seed[0] += 1
        if args.budget is not None and hasattr(bot, "budget"):
            bot.budget = 0.8 * args.budget
        return bot

    def game(outcome: Any) -> None:
        print(json.dumps({"table": outcome.table, "seat": outcome.seat,
                          "winner": outcome.winner, "scores": outcome.scores}), flush=True)

    try:
        make()  # a bad --bot fails here, before connecting
    except (ValueError, ImportError, AttributeError, TypeError) as exc:
        print(f"kaitaku bot: {exc}", file=sys.stderr)
        return 2
    try:
        out = asyncio.run(run_ladder(make, host or "127.0.0.1", int(port), name=args.ladder,
                                     key=key, games=args.games, tls=tls, budget=args.budget,
                                     on_game=game))
    except (ProtocolError, OSError) as exc:
        print(f"kaitaku bot: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"ladder": out.name, "played": len(out.games),
                      "remaining": out.remaining}), flush=True)
    return 0
