"""``kaitaku play``: a local server, a table with bots, and the game window.

The server runs in this process, in a thread of its own with its own event
loop, on a free loopback port (not advertised on the LAN); the bots are the
server's usual ``kaitaku bot`` processes. The window connects like any
client, creates the table (you plus the bots; a full table starts by itself)
and shows it as soon as the game begins.

The game is kept: the server writes it to its database,
``$XDG_DATA_HOME/kaitaku/play.db`` (``KAITAKU_DATA_DIR`` puts it elsewhere),
and the seat's resume token goes to ``play-seat.json`` beside it. Closing the
window (after a question) or leaving the table keeps the game; the next
``kaitaku play``, and the lobby of the local server, offer to continue it. A
finished game is not offered again, and starting a new game gives up the
unfinished one (at most one is kept).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from server.app import Server
from server.session import Session
from server.table import Table

log = logging.getLogger("kaitaku.play")

SEAT_KEY = "kaitaku play"
"""The entry of the play seat in its state file."""
SEAT_MAX_AGE = 90 * 86400.0
"""Seconds an unfinished game stays on offer."""
KEEP_FINISHED_DAYS = 7.0
"""Finished games leave the database after this many days."""

T = TypeVar("T")


def play_dir() -> Path:
    """Where ``kaitaku play`` keeps its game: ``$KAITAKU_DATA_DIR``, else
    ``$XDG_DATA_HOME/kaitaku``, else ``~/.local/share/kaitaku``."""
    override = os.environ.get("KAITAKU_DATA_DIR", "").strip()
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "kaitaku"


class _SeededServer(Server):
    """A server whose next table gets a chosen seed (the protocol cannot pick one)."""

    def __init__(self, *args: Any, seed: int | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.next_seed = seed

    def attach_table(self, table: Table[Session], durable: bool = True) -> None:
        if self.next_seed is not None and table.status == "waiting":
            table.use_seed(self.next_seed)  # the engine's dice of the chosen seed
            self.next_seed = None
        super().attach_table(table, durable)

    def abandon(self, table_id: str) -> None:
        """Give up an unfinished game: off the list, out of the database, its
        members (the bots) disconnected."""
        table = self.tables.pop(table_id, None)
        for token, (tid, _seat) in list(self.resumable.items()):
            if tid == table_id:
                del self.resumable[token]
        if table is not None:
            for sess, _ in list(table.members()):
                table.vacate(sess)
                sess.table = None
                sess.close_soon()
            table.submit("stop", None)
        if self.storage is not None:
            try:
                self.storage.delete_table(table_id)
            except Exception:
                log.exception("could not delete table %s", table_id)


class LocalServer:
    """A :class:`server.app.Server` in a background thread. ``start()`` returns
    the port; ``stop()`` closes it (and the bot processes it started). ``db``: the
    SQLite file its tables are kept in (None: nothing is stored); a database that
    cannot be opened leaves the server without one (:attr:`storage_error` says why)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, spawn_bots: bool = True,
                 seed: int | None = None, name: str = "kaitaku (local)",
                 db: str | os.PathLike[str] | None = None) -> None:
        self.storage_error: str | None = None
        if db is not None:
            try:
                Path(db).parent.mkdir(parents=True, exist_ok=True)
                self.server = _SeededServer(host, port, name=name, spawn_bots=spawn_bots,
                                            seed=seed, db=db,
                                            keep_finished=KEEP_FINISHED_DAYS * 86400.0)
            except Exception as exc:  # a broken or unreadable file: play, but keep nothing
                self.storage_error = f"{db}: {exc}"
                db = None
        if db is None:
            self.server = _SeededServer(host, port, name=name, spawn_bots=spawn_bots, seed=seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None

    @property
    def port(self) -> int:
        return self.server.port

    def start(self, timeout: float = 10.0) -> int:
        self._thread = threading.Thread(target=self._run, name="kaitaku-local-server",
                                        daemon=True)
        self._thread.start()
        if not self._started.wait(timeout):
            raise RuntimeError("the local server did not start")
        if self._error is not None:
            raise RuntimeError(f"the local server did not start: {self._error}") from self._error
        return self.server.port

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        try:
            await self.server.start()
        except BaseException as exc:  # the port is taken, ...
            self._error = exc
            self._started.set()
            return
        self._started.set()
        try:
            await self._stop.wait()
        finally:
            await asyncio.wait_for(self.server.close(), 15.0)

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` in the server's thread (between two of its steps) and return
        what it returned."""
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("the local server is not running")

        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), loop).result(timeout)

    def stop(self, timeout: float = 20.0) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop just ended
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)


class PlayHooks:
    """What the window asks ``kaitaku play`` (:class:`client.app.App`'s ``play``):
    the game it may continue, the new game's table, giving up the old one."""

    def __init__(self, local: LocalServer, state: Any, create: dict[str, Any]) -> None:
        self.local = local
        self.state = state  # a client.state_file.StateFile
        self.key = SEAT_KEY
        self.create = create
        self.storage_error = local.storage_error

    def new_game(self, lang: str, like: dict[str, Any] | None = None) -> dict[str, Any]:
        """The table to create: the command's settings and bots, named in ``lang``;
        ``like`` (a rematch): a finished table's settings and bots instead (the
        window takes the first seat, bots the others)."""
        from client.i18n import Translator

        out = dict(self.create)
        player = str(out.pop("player", "?"))
        out["name"] = Translator(lang)("play.table_name", name=player)[:32]
        settings = like.get("settings") if like else None
        if isinstance(settings, dict) and settings.get("players") in (2, 3, 4, 5, 6):
            bots = [b for b in like.get("bots") or [] if isinstance(b, str)] if like else []
            fill = bots[-1] if bots else (list(self.create.get("bots") or []) or
                                          ["heuristic"])[-1]
            need = int(settings["players"]) - 1
            out["settings"] = dict(settings)
            out["bots"] = (bots + [fill] * need)[:need]
        return out

    def last_game(self) -> dict[str, Any] | None:
        """The unfinished game the seat file points at, if the server still has it:
        ``{"table", "name", "turn", "players"}``."""
        seat = self.state.get(self.key)
        if seat is None:
            return None

        def look() -> dict[str, Any] | None:
            server = self.local.server
            table = server.tables.get(seat.table)
            target = server.resumable.get(seat.token)
            if (table is None or table.status != "playing" or table.game is None
                    or target != (seat.table, seat.seat)):
                return None
            return {"table": table.id, "name": table.name, "turn": table.game.turn,
                    "players": table.settings.players, "saved": seat.saved}

        try:
            found = self.local.call(look)
        except Exception:
            found = None
        if found is None:
            self.state.drop(self.key)
        return found

    def forget_last(self) -> None:
        """Give up the unfinished game (a new one starts): it is deleted."""
        seat = self.state.get(self.key)
        self.state.drop(self.key)
        if seat is not None:
            with contextlib.suppress(Exception):
                self.local.call(lambda: self.local.server.abandon(seat.table))

    def keep_only(self, table_id: str | None) -> None:
        """Give up every unfinished game but ``table_id`` (at most one is kept)."""
        def prune() -> None:
            server = self.local.server
            for tid, table in list(server.tables.items()):
                if tid != table_id and table.status != "finished":
                    server.abandon(tid)

        with contextlib.suppress(Exception):
            self.local.call(prune)


def play_window(bots: list[str], *, name: str | None, lang: str, vp: int, sea3d: bool,
                seed: int | None, timer: int = 0, balanced_dice: bool = False) -> int:
    """Play in the window against ``bots`` (1 to 5 of them: 4 or 5 play the 5–6
    player extension); returns the exit code."""
    from client.app import App, NoDisplay, default_name
    from client.state_file import StateFile

    if not 1 <= len(bots) <= 5:
        print("kaitaku play: give 1 to 5 bots (you take the first seat)", file=sys.stderr)
        return 2
    settings: dict[str, Any] = {"players": len(bots) + 1, "vp_target": vp}
    if sea3d:
        settings.update(balanced_map=True, shuffle_harbors=True, harbor_delay=True,
                        strict_phases=True)
    if balanced_dice:
        settings["balanced_dice"] = True
    player = (name or default_name())[:32]
    logging.getLogger("kaitaku").setLevel(logging.ERROR)  # the local server's news: not here
    folder = play_dir()
    local = LocalServer(seed=seed, db=folder / "play.db")
    if local.storage_error:
        print(f"kaitaku play: the game cannot be kept ({local.storage_error})", file=sys.stderr)
    port = local.start()
    try:
        hooks = PlayHooks(local, StateFile(folder / "play-seat.json", max_age=SEAT_MAX_AGE),
                          {"settings": settings, "bots": list(bots), "turn_timer": timer,
                           "player": player})
        last = hooks.last_game()
        hooks.keep_only(last["table"] if last else None)
        try:
            app = App(connect=f"127.0.0.1:{port}", name=player, lang=lang, discover=False,
                      play=hooks)
        except NoDisplay as exc:
            print(f"kaitaku play: {exc}\n  (or watch bots play in the terminal: "
                  "kaitaku play --terminal)", file=sys.stderr)
            return 2
        return app.run()
    finally:
        local.stop()
