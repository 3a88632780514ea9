"""``kaitaku play``: a local server, a table with bots, and the game window.

The server runs in this process, in a thread of its own with its own event
loop, on a free loopback port (not advertised on the LAN); the bots are the
server's usual ``kaitaku bot`` processes. The window connects like any
client, creates the table (you plus the bots; a full table starts by itself)
and shows it as soon as the game begins.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from typing import Any

from server.app import Server
from server.session import Session
from server.table import Table


class _SeededServer(Server):
    """A server whose next table gets a chosen seed (the protocol cannot pick one)."""

    def __init__(self, *args: Any, seed: int | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.next_seed = seed

    def attach_table(self, table: Table[Session]) -> None:
        if self.next_seed is not None:
            table.seed, self.next_seed = self.next_seed, None
        super().attach_table(table)


class LocalServer:
    """A :class:`server.app.Server` in a background thread. ``start()`` returns
    the port; ``stop()`` closes it (and the bot processes it started)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, spawn_bots: bool = True,
                 seed: int | None = None, name: str = "kaitaku (local)") -> None:
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

    def stop(self, timeout: float = 20.0) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop just ended
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)


def play_window(bots: list[str], *, name: str | None, lang: str, vp: int, sea3d: bool,
                seed: int | None, timer: int = 0) -> int:
    """Play in the window against ``bots`` (1 to 3 of them); returns the exit code."""
    from client.app import App, NoDisplay, default_name
    from client.net import NetClient

    if not 1 <= len(bots) <= 3:
        print("kaitaku play: give 1 to 3 bots (you take the first seat)", file=sys.stderr)
        return 2
    settings: dict[str, Any] = {"players": len(bots) + 1, "vp_target": vp}
    if sea3d:
        settings.update(balanced_map=True, shuffle_harbors=True, harbor_delay=True,
                        strict_phases=True)
    player = (name or default_name())[:32]
    logging.getLogger("kaitaku").setLevel(logging.ERROR)  # the local server's news: not here
    local = LocalServer(seed=seed)
    port = local.start()
    try:
        try:
            # the local server ends with the window: no seat to reclaim later, so a
            # plain NetClient (nothing written to the state file)
            app = App(connect=f"127.0.0.1:{port}", name=player, lang=lang, discover=False,
                      net_factory=NetClient,
                      create={"settings": settings, "bots": list(bots),
                              "name": f"{player} vs bots"[:32], "turn_timer": timer})
        except NoDisplay as exc:
            print(f"kaitaku play: {exc}\n  (or watch bots play in the terminal: "
                  "kaitaku play --terminal)", file=sys.stderr)
            return 2
        return app.run()
    finally:
        local.stop()
