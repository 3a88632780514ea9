"""``kaitaku replay``: a stored game, as text turn by turn or in the replay viewer.

Two stores hold finished games: a league database (``--db league.db``, one
row per game with its action log: :func:`league.store.load_log`) and the game
server's database (``--server-db [PATH]``: ``kaitaku server --db``, where
every table's accepted actions are kept with their chance outcomes; finished
games stay unless the server runs with ``--keep-finished DAYS``; without
PATH, the databases of ``kaitaku server`` and of ``kaitaku play`` that exist). This module
reads either into a :class:`protocol.rules.GameLog` and hands it to the text
printer or, with ``--window``, to the game window's replay viewer
(:class:`client.replay_scene.ReplayScene`; the client itself never reads a
database). ``--list`` lists the games a database holds.

Everything read from a database file is checked: a row of the wrong shape, an
action that does not parse, or a log that does not replay is reported and
nothing is shown. The server's database is opened read-only (a running
server may be writing it); a game that has not finished there is not shown
(the viewer shows every seat's cards).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from protocol.rules import GameLog, RulesError, apply, new_game

from .terminal import _seat_name, describe

MAX_ACTIONS = 100_000
"""A stored game with more actions than this is refused (real games have ~1000)."""


class ReplayError(Exception):
    """The game cannot be shown (missing, unreadable, not finished, does not replay)."""


def replay_lines(log: GameLog, seats: Sequence[str]) -> list[list[str]]:
    """The game's text, one list of lines per turn (the set-up is the first); the
    seats by their players' ``seats`` names and colours."""
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    players = log.settings.players
    turns: list[list[str]] = [[]]
    for seat, action, outcome in log.steps:
        turn_before = s.turn
        events = apply(s, action, seat, outcome)
        if s.turn != turn_before and turns[-1]:
            turns.append([])
        for e in events:
            line = describe(e, players, seats)
            if line:
                turns[-1].extend(line.split("\n"))
    return turns


# --- the league database ----------------------------------------------------------------------


def load_league_game(db: str, game_id: int) -> tuple[GameLog, list[str], str]:
    """A league game's log, its entries' names and a line about it."""
    from league.store import connect, load_log

    if not Path(db).exists():
        raise ReplayError(f"no database {db}")
    try:
        conn = connect(db)
    except sqlite3.Error as exc:
        raise ReplayError(f"{db}: {exc}") from exc
    try:
        game, log = load_log(conn, game_id)
    except KeyError:
        raise ReplayError(f"no game {game_id} in {db}") from None
    except (sqlite3.Error, ValueError, RulesError) as exc:
        raise ReplayError(f"game {game_id} in {db} cannot be read: {exc}") from exc
    finally:
        conn.close()
    players = len(game.seats)
    head = (f"game {game.id} (league game {game.index}, seed {game.seed}): "
            + ", ".join(f"{_seat_name(q, players)} {n}" for q, n in enumerate(game.seats)))
    if log is None:
        raise ReplayError(f"{head}\nno actions recorded ({game.status}: {game.error})")
    if game.status != "ok":
        head += f"\n(the game failed: {game.error})"
    return log, [str(n) for n in game.seats], head


# --- the game server's database ---------------------------------------------------------------


def load_server_game(db: str, table_id: str, check: bool = True
                     ) -> tuple[GameLog, list[str], list[str], str]:
    """A finished table's log from the server's database: the log, its seats' names
    and kinds, and its name (``check=False``: also a log that does not replay)."""
    from server.storage import StorageError, read_finished

    try:
        game = read_finished(db, table_id, MAX_ACTIONS, check)
    except StorageError as exc:
        raise ReplayError(str(exc)) from exc
    return game.log, game.names, game.kinds, game.name


def list_server_games(db: str) -> list[dict[str, Any]]:
    """The finished tables of a server's database, newest first."""
    from server.storage import StorageError, list_finished

    try:
        return list_finished(db)
    except StorageError as exc:
        raise ReplayError(str(exc)) from exc


# --- a ladder's database ------------------------------------------------------------------


def load_ladder_game(db: str, game_id: int) -> tuple[GameLog, list[str], str]:
    """A ladder game's log, its bots' names and a line about it (the database
    opened read-only: a running ladder may be writing it)."""
    from league.ladder import open_read_only, read_game

    if not Path(db).exists():
        raise ReplayError(f"no database {db}")
    try:
        conn = open_read_only(db)
        try:
            game, log = read_game(conn, game_id)
        finally:
            conn.close()
    except KeyError:
        raise ReplayError(f"no game {game_id} in {db}") from None
    except (sqlite3.Error, ValueError, TypeError, RulesError) as exc:
        raise ReplayError(f"game {game_id} in {db} cannot be read: {exc}") from exc
    if log is None:
        raise ReplayError(f"ladder game {game_id} has no log ({game.status})")
    head = (f"ladder game {game.id} (board seed {game.seed}): "
            + ", ".join(f"{_seat_name(q, len(game.seats))} {n}"
                        for q, n in enumerate(game.seats)))
    return log, game.seats, head


MAX_LOG_FILE = 64 * 1024 * 1024
"""Bytes of a log file ``kaitaku replay --log`` reads at most."""


def load_log_file(path: str) -> tuple[GameLog, list[str], str]:
    """A game log saved as a file (``GameLog.to_dict()`` as JSON: a ladder page's
    ``/game/ID.json``, a league's log): the log, its seats' names, a line about it."""
    from league.ladder import Unreadable, read_log

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_FILE + 1)
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_LOG_FILE:
        raise ReplayError(f"{path} cannot be read: larger than {MAX_LOG_FILE} bytes")
    try:
        log = read_log(data.decode("utf-8"))
    except (Unreadable, UnicodeDecodeError) as exc:
        raise ReplayError(f"{path} cannot be read: {exc}") from None
    if log is None:
        raise ReplayError(f"{path} cannot be read: it holds no log")
    names = [f"player {q + 1}" for q in range(log.settings.players)]
    return log, names, f"game log {path} (board seed {log.seed})"


def list_ladder_games(db: str) -> list[dict[str, Any]]:
    from league.ladder import open_read_only, read_games

    if not Path(db).exists():
        raise ReplayError(f"no database {db}")
    try:
        conn = open_read_only(db)
        try:
            games = read_games(conn, 100_000)
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, TypeError) as exc:
        raise ReplayError(f"{db}: {exc}") from exc
    return [{"id": g.id, "seats": g.seats, "status": g.status} for g in games]


def list_league_games(db: str) -> list[dict[str, Any]]:
    """Every game of a league database: id, league, index, seats, status."""
    from league.store import connect, list_games

    if not Path(db).exists():
        raise ReplayError(f"no database {db}")
    try:
        conn = connect(db)
    except sqlite3.Error as exc:
        raise ReplayError(f"{db}: {exc}") from exc
    try:
        return list_games(conn)
    except (sqlite3.Error, ValueError) as exc:
        raise ReplayError(f"{db} cannot be read: {exc}") from exc
    finally:
        conn.close()


# --- the commands -------------------------------------------------------------------------------


def main_replay(game_id: int, db: str, step: bool = False,
                out: Callable[[str], None] = print,
                wait: Callable[[], Any] | None = None) -> int:
    """``kaitaku replay GAME_ID``: print a stored league game turn by turn."""
    try:
        log, names, head = load_league_game(db, game_id)
    except ReplayError as exc:
        text = str(exc)
        if "no actions recorded" in text:
            for line in text.split("\n"):
                out(line)
            return 1
        print(f"kaitaku replay: {text}", file=sys.stderr)
        return 2
    out(head.split("\n")[0])
    print_lines(log, names, step, out, wait)
    if "\n" in head:
        out("\n=== " + head.split("\n", 1)[1].strip("()") + " ===")
    return 0


def print_lines(log: GameLog, names: Sequence[str], step: bool,
                out: Callable[[str], None], wait: Callable[[], Any] | None) -> None:
    wait = wait or (lambda: input())
    for lines in replay_lines(log, names):
        for line in lines:
            out(line)
        if step:
            try:
                wait()
            except EOFError:
                step = False


def server_dbs(path: str) -> list[str]:
    """The game servers' databases ``--server-db [PATH]`` reads: PATH, or (none
    given) those of ``kaitaku server`` and ``kaitaku play`` that exist. None
    existing: :class:`ReplayError` saying where each keeps its games."""
    if path:
        return [path]
    from server.storage import default_db_path

    from .play import play_dir

    known = [("kaitaku server", default_db_path()), ("kaitaku play", play_dir() / "play.db")]
    found = [str(db) for _, db in known if db.exists()]
    if not found:
        raise ReplayError("no games kept here yet (" + "; ".join(
            f"{who} keeps them in {db}" for who, db in known) + ")")
    return found


def _load_server_game(dbs: Sequence[str], table_id: str
                      ) -> tuple[GameLog, list[str], list[str], str]:
    """:func:`load_server_game` from the first of ``dbs`` that holds the table."""
    for db in dbs[:-1]:
        try:
            return load_server_game(db, table_id)
        except ReplayError:
            continue
    return load_server_game(dbs[-1], table_id)


def main_replay_command(args: Any) -> int:
    """``kaitaku replay`` with its options (see the module docstring)."""
    ladder_db = getattr(args, "ladder_db", None)
    try:
        server_db = None if args.server_db is None else server_dbs(args.server_db)
        if args.list and ladder_db is not None:
            for g in list_ladder_games(ladder_db):
                print(f"{g['id']}  {g['status']}  ({', '.join(g['seats'])})")
            return 0
        if args.list:
            return _list(server_db, args.db)
        log_file = getattr(args, "log", None)
        if log_file is not None:
            log, names, head = load_log_file(log_file)
            kinds = ["bot"] * len(names)
            title = Path(log_file).name
        elif args.game_id is None:
            print("kaitaku replay: give a GAME_ID (--list shows them)", file=sys.stderr)
            return 2
        elif ladder_db is not None:
            try:
                ladder_id = int(args.game_id)
            except ValueError:
                print(f"kaitaku replay: a ladder game id is a number, not {args.game_id!r}",
                      file=sys.stderr)
                return 2
            log, names, head = load_ladder_game(ladder_db, ladder_id)
            kinds = ["bot"] * len(names)
            title = f"ladder #{ladder_id}"
        elif server_db is not None:
            log, names, kinds, title = _load_server_game(server_db, str(args.game_id))
            head = f"table {args.game_id} ({title}): " + ", ".join(names)
        else:
            try:
                game_id = int(args.game_id)
            except ValueError:
                print(f"kaitaku replay: a league game id is a number, not {args.game_id!r} "
                      "(a server's table: --server-db)", file=sys.stderr)
                return 2
            if not args.window:
                return main_replay(game_id, args.db, args.step)
            log, names, head = load_league_game(args.db, game_id)
            kinds = ["bot"] * len(names)
            title = _league_title(game_id, args.lang)
    except ReplayError as exc:
        print(f"kaitaku replay: {exc}", file=sys.stderr)
        return 2
    if not args.window:
        print(head)
        try:
            print_lines(log, names, args.step, print, None)
        except (RulesError, ValueError, KeyError, IndexError, TypeError) as exc:
            print(f"kaitaku replay: the game does not replay: {exc}", file=sys.stderr)
            return 2
        return 0
    return replay_window(log, names, kinds, title, args.lang)


def _league_title(game_id: int, lang: str | None) -> str:
    try:
        from client.app import default_lang
        from client.i18n import Translator
    except ImportError:
        return f"#{game_id}"
    return Translator(lang or default_lang())("replay.title_league", n=game_id)


def _list(server_db: Sequence[str] | None, league_db: str) -> int:
    if server_db is not None:
        for db in server_db:
            games = list_server_games(db)
            if len(server_db) > 1:
                print(f"{db}:")
            for g in games:
                print(f"{g['id']}  {g['name']}  ({', '.join(g['seats'])})")
            if not games:
                print(f"no finished games in {db}")
        return 0
    for g in list_league_games(league_db):
        print(f"{g['id']}  league {g['league']} game {g['index']}  {g['status']}  "
              f"({', '.join(map(str, g['seats']))})")
    return 0


def replay_window(log: GameLog, names: Sequence[str], kinds: Sequence[str], title: str,
                  lang: str | None) -> int:
    """Open the game window's replay viewer on ``log``."""
    from .extras import EXIT_MISSING, require

    if not require("replay", "client", "the replay window",
                   "or read it as text: kaitaku replay without --window"):
        return EXIT_MISSING
    from client.app import App, NoDisplay, default_lang
    from client.replay import Replay, ReplayInfo
    from protocol.rules import InvalidLog

    try:
        replay = Replay(log, ReplayInfo(title, tuple(names), tuple(kinds)))
    except InvalidLog as exc:
        print(f"kaitaku replay: the game does not replay: {exc}", file=sys.stderr)
        return 2
    try:
        app = App(lang=lang or default_lang(), discover=False, replay=replay)
    except NoDisplay as exc:
        print(f"kaitaku replay: {exc}", file=sys.stderr)
        return 2
    return app.run()
