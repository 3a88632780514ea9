"""The ``kaitaku`` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from collections.abc import Callable
from typing import Any

from .extras import EXIT_MISSING, require


def _bench(args: argparse.Namespace) -> int:
    from .bench import main_engine

    return main_engine(args.games, args.players, args.seed, args.json,
                       args.catanatron_python, args.catanatron_games)


def _bench_server(args: argparse.Namespace) -> int:
    from .bench import main_server

    return main_server(args.games, args.concurrency, args.players, args.json, args.floor,
                       args.metrics)


def _bench_duplicate(args: argparse.Namespace) -> int:
    from .bench import main_duplicate

    return main_duplicate(args.hero, args.villain, args.blocks, args.seed, args.json,
                          args.players, args.workers, args.budget)


def _bench_bots(args: argparse.Namespace) -> int:
    from .bench import main_bots

    opponents = None
    if args.opponents is not None:
        opponents = [b for b in args.opponents.split(",") if b]
    return main_bots(args.games, [b for b in args.bots.split(",") if b], args.seed, args.json,
                     opponents, args.budget, args.players, args.workers, not args.no_trade,
                     args.first, args.duplicate)


def _bench_rollouts(args: argparse.Namespace) -> int:
    from .bench_rollouts import main_rollouts

    return main_rollouts(args.players, args.seed, args.rollouts, args.playouts, args.reference,
                         args.json, args.against, args.repeat)


def _bench_trades(args: argparse.Namespace) -> int:
    from .bench_trades import main_trades

    return main_trades(args.offers, args.seed, args.json, args.from_bots)


def _bench_hostile(args: argparse.Namespace) -> int:
    from .hostile import main_hostile

    return main_hostile(args.load, args.spectators, args.seconds, args.connections,
                        args.addresses, args.json)


def _bench_ladder(args: argparse.Namespace) -> int:
    from .bench_ladder import main_ladder

    return main_ladder(args.bots, args.games, args.seconds, args.fetchers, args.readers,
                       args.json)


def _league(args: argparse.Namespace) -> int:
    if not require("league", "league", "rating the bots (openskill)"):
        return EXIT_MISSING
    if args.cluster is not None and not require("league", "cluster", "--cluster"):
        return EXIT_MISSING
    from league.run import main as league_main

    return league_main(args)


def _verify(args: argparse.Namespace) -> int:
    from .verify import main_verify

    return main_verify(args)


def _replay(args: argparse.Namespace) -> int:
    from .replay import main_replay_command

    return main_replay_command(args)


TERMINAL_BOTS = ["heuristic", "greedy", "random", "heuristic"]


def _play(args: argparse.Namespace) -> int:
    if args.terminal:
        from .terminal import run

        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
        return run(args.bots or TERMINAL_BOTS, seed, args.delay, args.vp, args.sea3d)
    if not require("play", "client", "the game window",
                   "or play in the terminal: kaitaku play --terminal"):
        return EXIT_MISSING
    from bots.levels import bot_for_level

    from .play import play_window

    if args.bots and args.players and len(args.bots) != args.players - 1:
        print(f"kaitaku play: --players {args.players} takes {args.players - 1} bots",
              file=sys.stderr)
        return 2
    bots = args.bots or [bot_for_level(args.level)] * ((args.players or 4) - 1)
    return play_window(bots, name=args.name, lang=args.lang or _lang(),
                       vp=args.vp, sea3d=args.sea3d, seed=args.seed, timer=args.timer,
                       balanced_dice=args.balanced_dice)


def _lang() -> str:
    from client.app import default_lang

    return default_lang()


def _client(args: argparse.Namespace) -> int:
    if not require("client", "client", "the game window"):
        return EXIT_MISSING
    lang = args.lang or _lang()
    if args.screenshot:
        from client.screenshot import render_screenshot

        render_screenshot(args.screenshot, lang=lang, size=(1280, 800), scene=args.scene,
                          players=args.players)
        print(f"wrote {args.screenshot}")
        return 0
    from client.app import App, NoDisplay
    from client.net import parse_address

    if args.connect:
        try:
            parse_address(args.connect)
        except ValueError as exc:
            print(f"kaitaku client: --connect {args.connect!r}: {exc}", file=sys.stderr)
            return 2
    kwargs: dict[str, Any] = {}
    if args.tls or args.tls_ca:
        from bots.tls import client_context
        from client.net import NetClient
        from client.state_file import StateFile

        try:
            context = client_context(args.tls_ca)
        except (OSError, ValueError) as exc:
            print(f"kaitaku client: --tls-ca {args.tls_ca!r}: {exc}", file=sys.stderr)
            return 2

        def tls_net(host: str, port: int, name: str, tls: bool = True) -> NetClient:
            return NetClient(host, port, name, state=StateFile(), tls=context)

        kwargs["net_factory"] = tls_net
    try:
        app = App(connect=args.connect, name=args.name, lang=lang,
                  discover=not args.no_discovery, **kwargs)
    except NoDisplay as exc:
        print(f"kaitaku client: {exc}", file=sys.stderr)
        return 2
    return app.run()


def _bench_client(args: argparse.Namespace) -> int:
    import inspect
    import json

    if not require("bench client", "client", "the game window"):
        return EXIT_MISSING
    from client.bench import frame_bench, idle_bench

    wanted = {"frames": args.frames, "lang": args.lang, "size": (args.width, args.height),
              "seed": args.seed}
    params = inspect.signature(frame_bench).parameters
    kwargs = {k: v for k, v in wanted.items() if k in params and v is not None}
    result = frame_bench(**kwargs)
    if args.idle > 0:
        result.update(idle_bench(args.idle, **{k: v for k, v in kwargs.items()
                                                if k in ("lang", "seed")}))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    return 0


def _whole_number(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"the number must be at least {least}")
        return n

    return parse


_positive_int = _whole_number(1)
_natural = _whole_number(0)


def _vp_target(text: str) -> int:
    """An argparse type: a victory point target the rules accept."""
    from protocol.rules import RulesError, Settings

    n = _natural(text)
    try:
        Settings(vp_target=n)
    except RulesError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return n


def _positive_number(noun: str, zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a positive (with ``zero``, or zero), finite number
    (``noun`` names it in errors)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {noun}: {text!r}") from None
        if not (value >= 0 if zero else value > 0) or value == float("inf"):
            raise argparse.ArgumentTypeError(
                f"the {noun} must be {'zero or more' if zero else 'positive'}")
        return value

    return parse


_positive_days = _positive_number("number of days")
_positive_float = _positive_number("number")
_non_negative_float = _positive_number("number", zero=True)


def _server(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from server.app import Server
    from server.logs import configure

    configure(args.log_level, args.log_format)

    from server.app import Limits
    from server.storage import StorageError, default_db_path

    if (args.tls_cert is None) != (args.tls_key is None):
        print("kaitaku server: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    if args.ladder is not None and not require("server", "league", "--ladder (its ratings)"):
        return EXIT_MISSING
    limits = Limits(tables=args.max_tables, tables_per_address=args.max_tables_per_address,
                    bots=args.max_bots, bots_per_address=args.max_bots_per_address,
                    spectators_per_table=args.max_spectators,
                    spectators_per_address=args.max_spectators_per_address,
                    connections=args.max_connections,
                    connections_per_address=args.max_connections_per_address)
    metrics = None
    if args.metrics is not None:
        from server.metrics import Metrics, available

        missing = available()
        if missing is not None:
            print(f"kaitaku server: {missing}", file=sys.stderr)
            return 2
        metrics = Metrics()
    admin_token = None
    if args.admin_listen is not None:
        from server.admin import read_token

        if args.tls_cert is None or args.admin_token_file is None:
            print("kaitaku server: --admin-listen needs --tls-cert and --admin-token-file",
                  file=sys.stderr)
            return 2
        try:
            admin_token = read_token(args.admin_token_file)
        except (OSError, ValueError) as exc:
            print(f"kaitaku server: {exc}", file=sys.stderr)
            return 2
    db = None if args.db == ":none:" else (args.db or default_db_path())
    from .ladder_cmd import server_extension

    try:
        ladder, web = server_extension(args)
    except ValueError as exc:
        print(f"kaitaku server: {exc}", file=sys.stderr)
        return 2
    try:
        srv = Server(args.host, args.port, name=args.name, db=db,
                     durable="full" if args.fsync else "normal",
                     keep_finished=(None if args.keep_finished is None
                                    else args.keep_finished * 86400.0),
                     limits=limits, tls_cert=args.tls_cert, tls_key=args.tls_key,
                     extension=ladder, metrics=metrics)
    except StorageError as exc:
        print(f"kaitaku server: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # the certificate or key (ssl.SSLError is an OSError)
        print(f"kaitaku server: cannot use the TLS certificate: {exc}", file=sys.stderr)
        return 2

    async def main() -> int:
        import signal

        from server.admin import Admin, default_socket

        try:
            await srv.start()
        except StorageError as exc:
            print(f"kaitaku server: {exc}", file=sys.stderr)
            await srv.close()
            return 2
        print(f"kaitaku server listening on {srv.host}:{srv.port}"
              f"{' (TLS)' if srv.tls is not None else ''}", flush=True)
        sock_path = (None if args.admin_socket == "none"
                     else args.admin_socket or default_socket(srv.port))
        admin = Admin(srv, sock_path, listen=args.admin_listen, token=admin_token,
                      tls=srv.tls)
        try:
            try:
                await admin.start()
            except (OSError, ValueError) as exc:
                if args.admin_socket is not None or args.admin_listen is not None:
                    raise  # asked for: a server without it is not what was asked
                logging.getLogger("kaitaku.server").warning(
                    "no admin console: %s (give --admin-socket PATH)", exc)
                sock_path = None
                admin = Admin(srv, None)
            if metrics is not None:
                host, port = args.metrics
                http = metrics.serve(host, port)
                print(f"metrics: http://{host}:{http.port}/metrics", flush=True)
        except (OSError, ValueError) as exc:
            print(f"kaitaku server: {exc}", file=sys.stderr)
            await admin.close()
            if metrics is not None:
                metrics.stop()
            await srv.close()
            return 2
        if sock_path is not None:
            print(f"admin socket: {sock_path}", flush=True)
        if admin.port is not None:
            print(f"admin port (TLS): {args.admin_listen[0]}:{admin.port}", flush=True)
        if ladder is not None:
            print(f"ladder: {ladder.store.path} ({ladder.config.players} players, clock "
                  f"{ladder.config.clock.text()})", flush=True)
        if web is not None:
            web.start()
            print(f"ladder page: http://{web.host}:{web.port}/", flush=True)
        advertiser = await _advertise(args, srv)
        serving = asyncio.ensure_future(srv.serve_forever())
        assert srv.drained is not None
        drained = asyncio.ensure_future(srv.drained.wait())
        drained.add_done_callback(lambda _: serving.cancel())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, serving.cancel)
        try:
            await serving
        except asyncio.CancelledError:
            logging.getLogger("kaitaku.server").info("shutting down")
        finally:
            drained.cancel()
            if advertiser is not None:
                await advertiser.stop()
            if web is not None:
                web.stop()
            await admin.close()
            await srv.close()
            if metrics is not None:
                metrics.stop()
        return 0

    rc = 0
    with contextlib.suppress(KeyboardInterrupt):
        rc = asyncio.run(main())
    return rc


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _advertise(args: argparse.Namespace, srv: Any) -> Any:
    """Announce the server on the LAN (``--advertise``; by default when the
    server listens beyond loopback). Returns a handle with ``stop()``, or None."""
    import asyncio
    import logging

    advertise = args.advertise if args.advertise is not None else not _is_loopback(args.host)
    if not advertise:
        return None
    log = logging.getLogger("kaitaku.server")
    try:
        from client.discovery import Advertiser
    except ImportError as exc:
        log.warning("not advertised on the LAN: %s (install zeroconf)", exc)
        return None
    adv = Advertiser(srv.name, srv.port, args.host, tables=len(srv.tables),
                     tls=srv.tls is not None)
    try:
        await adv.start()
    except Exception as exc:  # no multicast here: serve anyway
        log.warning("not advertised on the LAN: %s", exc)
        return None
    print(f"advertised on the LAN as {adv.service_name!r}", flush=True)

    async def refresh() -> None:
        while True:
            await asyncio.sleep(10)
            try:
                await adv.update(len(srv.tables))
            except Exception as exc:
                log.debug("advertisement update failed: %s", exc)

    task = asyncio.ensure_future(refresh())

    class Handle:
        async def stop(self) -> None:
            task.cancel()
            await adv.close()

    return Handle()


def _bot(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import logging

    from bots import make_bot
    from bots.client import run_bot
    from protocol.wire import ProtocolError

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    key = args.key
    if args.stdio and args.key_stdin:
        print("kaitaku bot: with --stdio standard input is the connection: give --key",
              file=sys.stderr)
        return 2
    if args.key_stdin:  # the key on the first line of standard input (not in argv)
        key = sys.stdin.readline().strip() or None
    if (args.connect is None) == (not args.stdio):
        print("kaitaku bot: give --connect HOST:PORT or --stdio", file=sys.stderr)
        return 2
    if args.exit_with_stdin and not args.stdio:
        _exit_with_stdin()
    host, _, port = (args.connect or "").rpartition(":")
    if args.ladder is not None:
        if args.stdio:
            print("kaitaku bot: --ladder plays over --connect", file=sys.stderr)
            return 2
        from .ladder_cmd import run_bot_on_ladder

        try:
            tls = _client_tls(args)
        except (OSError, ValueError) as exc:
            print(f"kaitaku bot: TLS: {exc}", file=sys.stderr)
            return 2
        return run_bot_on_ladder(args, key, tls)
    try:
        bot = make_bot(args.bot, args.seed)
    except (ValueError, ImportError, AttributeError, TypeError) as exc:
        print(f"kaitaku bot: {exc}", file=sys.stderr)
        return 2
    try:
        tls = _client_tls(args)
    except (OSError, ValueError) as exc:
        print(f"kaitaku bot: TLS: {exc}", file=sys.stderr)
        return 2
    if args.budget is not None and hasattr(bot, "budget"):
        bot.budget = 0.8 * args.budget  # think within the SDK's budget, with room to spare
    create = json.loads(args.create) if args.create else None

    async def play() -> Any:
        if args.stdio:  # the connection is standard input and output (PROTOCOL.md 1.3)
            from bots.client import run_bot_stream
            from bots.stdio import open_stdio

            reader, writer = await open_stdio()
            return await run_bot_stream(bot, reader, writer, name=args.name,
                                        table=args.table, seat=args.seat, key=key,
                                        create=create, budget=args.budget)
        return await run_bot(bot, host or "127.0.0.1", int(port), name=args.name,
                             table=args.table, seat=args.seat, key=key, create=create,
                             budget=args.budget, tls=tls)

    try:
        outcome = asyncio.run(play())
    except (ProtocolError, OSError) as exc:  # ConnectionError and ssl.SSLError included
        print(f"kaitaku bot: {exc}", file=sys.stderr)
        return 1
    # With --stdio standard output is the connection: the summary goes to stderr.
    print(json.dumps({"table": outcome.table, "seat": outcome.seat, "winner": outcome.winner,
                      "scores": outcome.scores, "actions": outcome.actions}),
          file=sys.stderr if args.stdio else sys.stdout, flush=True)
    return 0 if outcome.finished else 1


def _conformance(args: argparse.Namespace) -> int:
    from server.conformance import describe_scenarios
    from server.conformance import main as conformance_main

    if args.list:
        print(describe_scenarios())
        return 0
    return conformance_main(args.host, args.port, seed=args.seed, timeout=args.timeout,
                            wait=args.wait, only=args.only, client=args.client)


def _client_tls(args: argparse.Namespace) -> Any:
    """The TLS context for ``--tls`` / ``--tls-ca FILE`` / ``--tls-pin FILE``, or None."""
    if getattr(args, "tls_pin", None):
        from bots.tls import pinned_context

        return pinned_context(args.tls_pin)
    if args.tls or args.tls_ca:
        from bots.tls import client_context

        return client_context(args.tls_ca)
    return None


def _exit_with_stdin() -> None:
    """Exit when standard input ends: a server that started this bot keeps the
    pipe open while it lives, so its bots end with it even after ``kill -9``.
    On Linux the parent's death also sends SIGTERM (PR_SET_PDEATHSIG)."""
    import os
    import threading

    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
            if os.getppid() != parent:  # it died before prctl
                os._exit(1)

    def watch() -> None:
        with contextlib.suppress(Exception):
            while os.read(0, 4096):  # the raw descriptor: no lock held at shutdown
                pass
        os._exit(1)  # the server is gone: no game to finish

    threading.Thread(target=watch, name="kaitaku-stdin-watch", daemon=True).start()


def _tls_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tls", action="store_true",
                   help="connect with TLS, verifying the server's certificate against the "
                        "system's trusted certificates")
    p.add_argument("--tls-ca", default=None, metavar="FILE",
                   help="connect with TLS, trusting the certificates in FILE (PEM) instead")


def build_parser() -> argparse.ArgumentParser:
    from bots.levels import DEFAULT_LEVEL, KINDS, LEVELS

    p = argparse.ArgumentParser(prog="kaitaku", description="Kaitaku (開拓): networked Catan")
    sub = p.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="benchmarks")
    bsub = bench.add_subparsers(dest="what", required=True)
    eng = bsub.add_parser("engine", help="random-bot games in-process (engine speed)")
    eng.add_argument("--games", type=_positive_int, default=200)
    eng.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6))
    eng.add_argument("--seed", type=int, default=1)
    eng.add_argument("--json", action="store_true", help="print one JSON object")
    eng.add_argument("--catanatron-python", metavar="PYTHON",
                     help="also time catanatron's RandomPlayer with this interpreter "
                          "(a venv where catanatron is installed) and report the ratio")
    eng.add_argument("--catanatron-games", type=_positive_int, default=None)
    eng.set_defaults(func=_bench)
    bsrv = bsub.add_parser("server", help="random-bot games over loopback TCP (server speed)")
    bsrv.add_argument("--games", type=_positive_int, default=50)
    bsrv.add_argument("--concurrency", type=_positive_int, default=10)
    bsrv.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6))
    bsrv.add_argument("--json", action="store_true", help="print one JSON object")
    bsrv.add_argument("--floor", action="store_true",
                      help="also measure the transport floor: a null server and null bots "
                           "moving the same frames with no game (4 players only)")
    bsrv.add_argument("--metrics", action="store_true",
                      help="run the server with its Prometheus metrics on, scraped every "
                           "second (what metrics cost: compare with a run without)")
    bsrv.set_defaults(func=_bench_server)
    bbots = bsub.add_parser("bots", help="bot strength: each bot against copies of each other")
    bbots.add_argument("--games", type=_positive_int, default=100, help="games per pairing")
    bbots.add_argument("--bots", default="random,greedy,heuristic",
                       help="comma-separated bot specs (built-in names or module:Class)")
    bbots.add_argument("--opponents", default=None,
                       help="comma-separated specs to play each bot against, e.g. "
                            "--bots search --opponents heuristic (default: the other --bots)")
    bbots.add_argument("--budget", type=_positive_float, default=None, metavar="SECONDS",
                       help="time per decision for searching bots (search; default 0.5)")
    bbots.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6),
                       help="players a game (2: the official variant with two neutral "
                            "players, trade tokens and the double roll; 5 or 6: the "
                            "extension, on the 30-hex board with the special building "
                            "phase)")
    bbots.add_argument("--workers", type=_positive_int, default=1,
                       help="games played in this many processes (same seeds, same games)")
    bbots.add_argument("--no-trade", action="store_true",
                       help="domestic trade off for every bot: no offers, counter-offers "
                            "or proposals (the bank only)")
    bbots.add_argument("--seed", type=int, default=1)
    bbots.add_argument("--first", type=_natural, default=0, metavar="G",
                       help="number of the first game: play games G to G+GAMES-1 (game g "
                            "has the same seeds in every run, so a run can be played in parts)")
    bbots.add_argument("--duplicate", action="store_true",
                       help="duplicate sets: every PLAYERS games share one board and one "
                            "committed chance, the bot in each seat once (GAMES and G must "
                            "be multiples of PLAYERS; the interval is over the sets)")
    bbots.add_argument("--json", action="store_true", help="print one JSON object")
    bbots.set_defaults(func=_bench_bots)
    bdup = bsub.add_parser("duplicate", help="games needed to separate two bots: duplicate "
                           "vs ordinary matches, side by side")
    bdup.add_argument("--hero", default="heuristic")
    bdup.add_argument("--villain", default="greedy")
    bdup.add_argument("--blocks", type=_positive_int, default=100,
                      help="blocks per mode (a block: the hero once in every seat)")
    bdup.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6))
    bdup.add_argument("--seed", type=int, default=1)
    bdup.add_argument("--workers", type=_positive_int, default=1)
    bdup.add_argument("--budget", type=_positive_float, default=None,
                      help="seconds per decision for searching bots")
    bdup.add_argument("--json", action="store_true")
    bdup.set_defaults(func=_bench_duplicate)
    broll = bsub.add_parser("rollouts", help="search simulations: one-round rollouts and "
                            "full-game playouts per second, fast path vs apply")
    broll.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6))
    broll.add_argument("--seed", type=int, default=1)
    broll.add_argument("--rollouts", type=_positive_int, default=200,
                       help="one-round rollouts per path")
    broll.add_argument("--playouts", type=_positive_int, default=8,
                       help="full-game playouts per path")
    broll.add_argument("--reference", action="store_true",
                       help="time the apply path only (what an older checkout can run)")
    broll.add_argument("--against", metavar="OLD_CHECKOUT",
                       help="also time apply in an older checkout (a subprocess), in turn")
    broll.add_argument("--repeat", type=_positive_int, default=3,
                       help="with --against: runs of each, medians reported")
    broll.add_argument("--json", action="store_true", help="print one JSON object")
    broll.set_defaults(func=_bench_rollouts)
    btr = bsub.add_parser("trades", help="how the bots of each level answer a person's fair "
                          "trade offers (seeded positions)")
    btr.add_argument("--offers", type=_positive_int, default=200,
                     help="offers of each kind (completes, closer, leader; default 200)")
    btr.add_argument("--seed", type=int, default=1)
    btr.add_argument("--from-bots", action="store_true",
                     help="the same offers made by a bot (how the bots answer each other)")
    btr.add_argument("--json", action="store_true", help="print one JSON object")
    btr.set_defaults(func=_bench_trades)
    bhost = bsub.add_parser("hostile", help="what a hostile load costs a server: spectators, "
                                             "a full disk, parked frames, many tables")
    bhost.add_argument("load", choices=("spectators", "full-disk", "partial-frames", "tables"))
    bhost.add_argument("--spectators", type=_positive_int, default=200,
                       help="spectators of the one table (spectators; default 200)")
    bhost.add_argument("--seconds", type=_positive_float, default=5.0,
                       help="seconds measured per phase (spectators) or failing (full-disk)")
    bhost.add_argument("--connections", type=_positive_int, default=1000,
                       help="connections parking a started frame (partial-frames)")
    bhost.add_argument("--addresses", type=_positive_int, default=80,
                       help="loopback addresses opening tables (tables; default 80)")
    bhost.add_argument("--json", action="store_true", help="print one JSON object")
    bhost.set_defaults(func=_bench_hostile)
    blad = bsub.add_parser("ladder", help="the game port's ping on a big ladder while its "
                                          "pages and standings are fetched")
    blad.add_argument("--bots", type=_positive_int, default=10_000, help="registered bots (10000)")
    blad.add_argument("--games", type=_positive_int, default=50_000, help="rated games (50000)")
    blad.add_argument("--seconds", type=_positive_float, default=20.0,
                      help="seconds measured per phase (idle, loaded; default 20)")
    blad.add_argument("--fetchers", type=_positive_int, default=8,
                      help="clients fetching pages without pause (default 8)")
    blad.add_argument("--readers", type=_positive_int, default=8,
                      help="connections asking for standings pages (default 8)")
    blad.add_argument("--json", action="store_true", help="print one JSON object")
    blad.set_defaults(func=_bench_ladder)
    bcli = bsub.add_parser("client", help="the game window's frame time (headless)")
    bcli.add_argument("--frames", type=_positive_int, default=None, help="frames to draw")
    bcli.add_argument("--lang", choices=("ja", "en"), default=None)
    bcli.add_argument("--width", type=_positive_int, default=1280)
    bcli.add_argument("--height", type=_positive_int, default=800)
    bcli.add_argument("--seed", type=int, default=None)
    bcli.add_argument("--idle", type=_non_negative_float, default=5.0, metavar="SECONDS",
                      help="also measure the CPU share of an idle window for SECONDS at "
                           "the table and in the lobby (default 5; 0: skip)")
    bcli.add_argument("--json", action="store_true", help="print one JSON object")
    bcli.set_defaults(func=_bench_client)

    srv = sub.add_parser("server", help="run a headless game server")
    srv.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (0.0.0.0 for the LAN; default 127.0.0.1)")
    srv.add_argument("--port", type=int, default=7878, help="TCP port (default 7878)")
    srv.add_argument("--name", default="kaitaku",
                     help="server name shown to clients (1-64 characters)")
    srv.add_argument("--log-level", default="info", choices=("debug", "info", "warning"))
    srv.add_argument("--db", default=None, metavar="PATH",
                     help="SQLite file for durable tables (default: "
                          "$XDG_DATA_HOME/kaitaku/kaitaku.db; ':none:' keeps nothing)")
    srv.add_argument("--fsync", action="store_true",
                     help="fsync every action (survives power cuts, slower)")
    srv.add_argument("--keep-finished", type=_positive_days, default=None, metavar="DAYS",
                     help="delete finished games (their logs) from --db after DAYS days, "
                          "checked at start and hourly (default: keep them for ever)")
    srv.add_argument("--tls-cert", default=None, metavar="FILE",
                     help="serve TLS only, with this certificate chain (PEM); with --tls-key")
    srv.add_argument("--tls-key", default=None, metavar="FILE",
                     help="the private key of --tls-cert (PEM)")
    from server.app import Limits

    dl = Limits()
    for flag, default, what in (
            ("--max-tables", dl.tables, "open tables in all"),
            ("--max-tables-per-address", dl.tables_per_address,
             "open tables created from one address"),
            ("--max-bots", dl.bots, "bot processes running in all"),
            ("--max-bots-per-address", dl.bots_per_address,
             "bot processes running for one address"),
            ("--max-spectators", dl.spectators_per_table, "spectators of one table"),
            ("--max-spectators-per-address", dl.spectators_per_address,
             "connections of one address watching tables"),
            ("--max-connections", dl.connections,
             "connections open at once, counted from accept (before a TLS handshake)"),
            ("--max-connections-per-address", dl.connections_per_address,
             "connections open at once from one address, counted from accept")):
        srv.add_argument(flag, type=_positive_int, default=default, metavar="N",
                         help=f"most {what} (default {default})")
    from .ladder_cmd import add_ladder_parser, add_server_flags

    add_server_flags(srv)
    from .host_cmd import add_admin_parser
    from .host_cmd import add_server_flags as add_host_flags

    add_host_flags(srv)
    srv.epilog = ("kaitaku server backup --db FILE OUT: copy the database while the server "
                  "runs (docs/HOSTING.md)")
    add_admin_parser(sub)
    adv = srv.add_mutually_exclusive_group()
    adv.add_argument("--advertise", dest="advertise", action="store_true", default=None,
                     help="announce the server on the LAN (mDNS, _kaitaku._tcp); the default "
                          "when --host is not a loopback address")
    adv.add_argument("--no-advertise", dest="advertise", action="store_false",
                     help="do not announce the server on the LAN")
    srv.set_defaults(func=_server)

    bot = sub.add_parser("bot", help="run a bot that joins a server's table")
    bot.add_argument("--connect", default=None, metavar="HOST:PORT")
    bot.add_argument("--stdio", action="store_true",
                     help="the connection is standard input and output instead of TCP (a "
                          "sandboxed league entry; docs/PROTOCOL.md, section 1.3)")
    bot.add_argument("--bot", default="random",
                     help="random, greedy, heuristic, search, hard, or module:Class (your own "
                          "bot)")
    bot.add_argument("--budget", type=_positive_float, default=None, metavar="SECONDS",
                     help="time per decision; a slower or failing bot plays a safe fallback")
    bot.add_argument("--table", help="table id to join")
    bot.add_argument("--seat", type=_natural, default=None)
    bot.add_argument("--key", default=None, help="seat key given by the server")
    bot.add_argument("--key-stdin", action="store_true",
                     help="read the seat key from the first line of standard input (keeps it "
                          "out of the process list)")
    bot.add_argument("--exit-with-stdin", action="store_true",
                     help="exit when standard input closes (how a server's own bots end "
                          "with it)")
    _tls_flags(bot)
    bot.add_argument("--tls-pin", default=None, metavar="FILE",
                     help="connect with TLS, trusting exactly the first certificate in FILE "
                          "whatever host name it names (a server's own bots use this)")
    bot.add_argument("--create", default=None, metavar="JSON",
                     help='create a table instead: {"settings": {...}, "bots": [...]}')
    bot.add_argument("--name", default="bot")
    bot.add_argument("--seed", type=int, default=None)
    bot.add_argument("--ladder", default=None, metavar="NAME",
                     help="play on a live ladder as NAME (its key with --key-stdin, --key or "
                          "$KAITAKU_LADDER_KEY) instead of one table")
    bot.add_argument("--games", type=_positive_int, default=10,
                     help="with --ladder: how many games to play (default 10)")
    bot.set_defaults(func=_bot)

    conf = sub.add_parser("conformance", help="a scripted server that tests a client: split "
                          "frames, unknown fields, ping, stale legal, drops, resumes, a "
                          "restart (docs/BOTS.md)")
    conf.add_argument("--port", type=int, default=7879, help="TCP port (default 7879)")
    conf.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    conf.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    conf.add_argument("--timeout", type=_positive_float, default=30.0, metavar="SECONDS",
                      help="time the client has for each scenario, once connected "
                           "(default 30)")
    conf.add_argument("--wait", type=_positive_float, default=60.0, metavar="SECONDS",
                      help="time to wait for the client to connect at the start of each "
                           "scenario (default 60)")
    conf.add_argument("--only", action="append", default=[], metavar="NAME",
                      help="run only this scenario (or the scenario of this obligation); "
                           "may be repeated")
    conf.add_argument("--list", action="store_true", help="list the scenarios and obligations")
    conf.add_argument("--client", default=None, metavar="CMD",
                      help="start CMD for every scenario ({port} and {host} in it are "
                           "replaced), e.g. 'kaitaku bot --connect {host}:{port} --table x'")
    conf.set_defaults(func=_conformance)

    add_ladder_parser(sub, _tls_flags)

    lg = sub.add_parser("league", help="a bot league: many seeded games, rated (openskill)")
    lg.add_argument("--entry", action="append", default=[], metavar="NAME=SPEC",
                    help="an entry: NAME=random|greedy|heuristic|search|hard|module:Class, or "
                         "NAME='cmd:COMMAND' run per game, sandboxed, on its standard input "
                         "and output, with {table} {seat} {key} {python} {bot_seed} filled "
                         "in (see docs/LEAGUE.md); repeat")
    lg.add_argument("--games", type=_positive_int, default=100,
                    help="games in the league, rounded up to balanced blocks (default 100)")
    lg.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6))
    lg.add_argument("--workers", type=_positive_int, default=None,
                    help="worker processes (default: CPU count; 1 plays in-process)")
    lg.add_argument("--cluster", default=None, metavar="tcp://HOST:8786",
                    help="run the games on a dask.distributed scheduler instead")
    lg.add_argument("--db", default="league.db",
                    help="SQLite file (default league.db in the current directory)")
    lg.add_argument("--report", default=None, metavar="DIR",
                    help="write index.html and report.md to DIR")
    lg.add_argument("--seed", type=int, default=1,
                    help="the seating (default 1); every game's chance comes from a secret "
                         "the league draws and keeps in its database")
    lg.add_argument("--timeout", type=_positive_float, default=300.0, metavar="SECONDS",
                    help="a game running longer is recorded as failed (default 300)")
    lg.add_argument("--retry-failed", action="store_true",
                    help="play the games stored as failed again (default: keep them)")
    lg.add_argument("--duplicate", action="store_true",
                    help="duplicate matches: every seat rotation of the same entries plays "
                         "the same board with the same dice, deck and draws")
    lg.add_argument("--clock", default=None, metavar="BASE+INC",
                    help="a chess clock per seat and game: BASE seconds in the bank, INC "
                         "seconds added with each decision (e.g. 60+1); out of time: the "
                         "default action; after --clock-timeouts timeouts (or a crash) the "
                         "entry forfeits (default: no clock)")
    from server.clock import DEFAULT_TIMEOUTS

    lg.add_argument("--clock-timeouts", type=_positive_int, default=DEFAULT_TIMEOUTS,
                    metavar="N", help="timeouts in one game after which an entry forfeits "
                                      f"(default {DEFAULT_TIMEOUTS})")
    lg.add_argument("--no-sandbox", action="store_true",
                    help="run cmd: entries with your rights and a loopback port ({host}, "
                         "{port}) instead of sandboxed on their standard input and output; "
                         "only for programs you trust")
    from league.sandbox import Limits as SandboxLimits

    sl = SandboxLimits()
    for flag, default, what in (
            ("--sandbox-memory", sl.memory_mb,
             "memory of a sandboxed entry (as root: all its processes) and address "
             "space of each process, MB"),
            ("--sandbox-cpu", sl.cpu_seconds,
             "CPU seconds of a sandboxed entry per game (as root: all its processes)"),
            ("--sandbox-processes", sl.processes,
             "processes and threads a sandboxed entry may have"),
            ("--sandbox-files", sl.open_files, "open files of a sandboxed entry"),
            ("--sandbox-file-size", sl.file_mb,
             "largest file a sandboxed entry writes, and the size of its private /tmp, MB")):
        lg.add_argument(flag, type=_natural, default=default, metavar="N",
                        help=f"{what} (default {default}; 0: no limit)")
    lg.add_argument("--json", action="store_true", help="print one JSON object")
    lg.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    lg.set_defaults(func=_league)

    rp = sub.add_parser("replay", help="a stored game: as text turn by turn, or in the "
                                       "replay viewer (--window)")
    rp.add_argument("game_id", nargs="?", default=None, metavar="GAME_ID",
                    help="a league game's id, or with --server-db a table's id")
    rp.add_argument("--db", default="league.db",
                    help="the league database (default league.db)")
    rp.add_argument("--server-db", nargs="?", const="", default=None, metavar="PATH",
                    help="read a game server's database instead (kaitaku server --db): "
                         "its finished tables; without PATH, those of kaitaku server "
                         "($XDG_DATA_HOME/kaitaku/kaitaku.db) and kaitaku play (play.db "
                         "beside it) that exist")
    rp.add_argument("--ladder-db", default=None, metavar="PATH",
                    help="read a ladder's database instead (kaitaku server --ladder PATH)")
    rp.add_argument("--log", default=None, metavar="FILE",
                    help="read a game log file instead (GameLog JSON: a ladder page's "
                         "/game/ID.json)")
    rp.add_argument("--window", action="store_true",
                    help="open the replay viewer: step, seek, play at any speed, every "
                         "hand shown")
    rp.add_argument("--list", action="store_true", help="list the database's games")
    rp.add_argument("--lang", choices=("ja", "en"), default=None,
                    help="language of the viewer (default: from $LANG)")
    rp.add_argument("--step", action="store_true", help="wait for Enter after each turn")
    rp.set_defaults(func=_replay)

    vf = sub.add_parser("verify", help="check a finished game's dice, cards and steals "
                                       "against the secret revealed after it (exit 1 if "
                                       "they do not follow)")
    vf.add_argument("game_id", nargs="?", default=None, metavar="GAME_ID",
                    help="a league or ladder game's id, or with --server-db a table's id")
    vf.add_argument("--db", default="league.db",
                    help="the league database (default league.db)")
    vf.add_argument("--server-db", nargs="?", const="", default=None, metavar="PATH",
                    help="read the game server's database instead (default "
                         "$XDG_DATA_HOME/kaitaku/kaitaku.db)")
    vf.add_argument("--ladder-db", default=None, metavar="PATH",
                    help="read a ladder's database instead")
    vf.add_argument("--file", default=None, metavar="PATH",
                    help="read a game log file (JSON, docs/ENGINE.md) instead")
    vf.set_defaults(func=_verify)

    play = sub.add_parser("play", help="play against bots in the game window (a local "
                                       "server starts by itself)")
    play.add_argument("--terminal", action="store_true",
                      help="no window: watch bots play in the terminal")
    play.add_argument("--name", default=None, help="your name (default: your login name)")
    play.add_argument("--lang", choices=("ja", "en"), default=None,
                      help="language of the window (default: from $LANG)")
    play.add_argument("--timer", type=_natural, default=0, metavar="SECONDS",
                      help="turn timer in seconds (default: none)")
    play.add_argument("--level", choices=tuple(LEVELS), default=DEFAULT_LEVEL,
                      help="how strong the bots of the window are: " + ", ".join(
                          f"{level} ({kind})" for level, kind in LEVELS.items())
                      + f" (default {DEFAULT_LEVEL})")
    play.add_argument("--bots", nargs="+", default=None,
                      choices=KINDS,
                      help="the bots by kind instead of --level: in the window 1-5 opponents, "
                           "with --terminal one per seat (2 bots play the 2-player variant)")
    play.add_argument("--players", type=int, default=None, choices=(2, 3, 4, 5, 6),
                      help="players at the table, you included (default 4; 2: the "
                           "two-player variant; 5 or 6: the extension on the 30-hex board)")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--delay", type=_non_negative_float, default=0.0,
                      help="seconds between lines")
    play.add_argument("--vp", type=_vp_target, default=10,
                      help="victory points to win (3-20, default 10)")
    play.add_argument("--sea3d", action="store_true",
                      help="sea3D house rules: balanced map, shuffled harbors, harbor delay, "
                           "no trading after building")
    play.add_argument("--balanced-dice", action="store_true",
                      help="the window's game: dice dealt from a deck of the 36 outcomes "
                           "(docs/PROTOCOL.md 8.2)")
    play.set_defaults(func=_play)

    cli = sub.add_parser("client", help="open the game window (lobby: connect, LAN servers, "
                                        "tables)")
    cli.add_argument("--connect", default=None, metavar="HOST:PORT",
                     help="connect to this server at once")
    cli.add_argument("--name", default=None, help="your name (default: your login name)")
    cli.add_argument("--lang", choices=("ja", "en"), default=None,
                     help="language (default: from $LANG; Japanese needs a CJK font)")
    cli.add_argument("--screenshot", default=None, metavar="FILE.png",
                     help="draw a sample table to FILE.png without a window, and exit")
    cli.add_argument("--scene", default="table",
                     choices=("table", "stats", "trade", "colorblind", "verified"),
                     help="with --screenshot: the table in a build mode (default), the "
                          "end-of-game statistics, the trade panel, the colour-blind "
                          "palette, or the dice verified at a game's end")
    cli.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5, 6),
                     help="with --screenshot: players of the sample game (default 4; 5 and "
                          "6 show a seat in the special building phase)")
    cli.add_argument("--no-discovery", action="store_true",
                     help="do not look for servers on the LAN")
    _tls_flags(cli)
    cli.set_defaults(func=_client)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["server", "backup"]:
        from .host_cmd import server_backup

        return server_backup(argv[2:])
    args = build_parser().parse_args(argv)
    rc: int = args.func(args)
    return rc


if __name__ == "__main__":
    sys.exit(main())
