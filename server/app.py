"""The server: accepts connections, runs the lobby, owns the tables.

``Server.dispatch`` is the one place where client messages are routed. Lobby
messages are handled at once (they only touch the table list); everything
that changes a table goes into that table's queue.

What a client can make the server spend is capped (:class:`Limits`: tables,
bot processes, spectators, per address and in all); what fails is contained:
a table whose stored rows do not restore is quarantined and the others are
served; while the database cannot be written every table is paused (actions
are refused with ``storage_unavailable``, nothing unsaved is ever
acknowledged) and resumes by itself once a commit succeeds.

Connections are counted from ``accept``, before anything is read: the caps
per address and in all, and the bans of addresses, hold before a TLS
handshake starts (the server upgrades an accepted connection to TLS itself,
with a deadline), so half-open handshakes cannot hold descriptors beyond the
caps.

For the host (docs/HOSTING.md): metrics (:mod:`server.metrics`), the admin
console's commands (the ``admin_*`` methods and :meth:`Server.ban`,
:meth:`Server.announce`, :meth:`Server.drain`; served by :mod:`server.admin`)
and bans (:mod:`server.bans`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import ssl
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bots.levels import KINDS as BOT_KINDS
from bots.levels import bot_name
from protocol.rules import RulesError, Settings
from protocol.wire import (
    ConnPhase,
    ProtocolError,
    check_settings,
    clean_text,
    clip,
    encode_frame,
)
from protocol.wire.messages import (
    LADDER_MESSAGES,
    MAX_ANNOUNCEMENT,
    MAX_CHAT,
    MAX_NAME,
    MAX_PAGE,
    TURN_TIMER_MAX,
    minor_needed,
)

from . import table as table_module
from .bans import MAX_BANS, MAX_REASON, Ban, BanError, Bans, parse_target
from .clock import Clock
from .listen import accept_forever, bind
from .logs import limit_accept_failures
from .session import HANDSHAKE_DEADLINE, Session
from .storage import SNAPSHOT_EVERY, Storage, StorageError
from .table import Table

if TYPE_CHECKING:
    from .metrics import Metrics

log = logging.getLogger("kaitaku.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7878
MAX_CONNECTIONS = 2000
"""Connections the server accepts at once; more are refused with an error."""
MAX_PER_ADDRESS = 256
"""Connections from one address (the server's own bots come from loopback)."""
TLS_HANDSHAKE_DEADLINE = HANDSHAKE_DEADLINE
"""Seconds from accept to a finished TLS handshake (then the hello has its own)."""
FINISHED_TTL = 600.0
"""Seconds a finished table stays listed (its log stays in the database)."""
WAITING_GRACE = 60.0
"""Seconds a waiting table that everybody dropped from stays open for them."""
PRUNE_EVERY = 3600.0
"""Seconds between prunings of old finished games (``keep_finished``)."""
PRUNE_BATCH = 50
"""Finished games deleted per step (the loop stays responsive while pruning)."""
PROBE_FIRST = 0.5
"""Seconds after a failed commit before the storage is tried again..."""
PROBE_MAX = 10.0
"""...doubling up to this (a paused table resumes at most this long after the disk heals)."""
STORAGE_MESSAGE = ("the server cannot save actions now (its disk failed or is full); the "
                   "table refuses actions until it can, then goes on by itself")


@dataclass(frozen=True, slots=True)
class Limits:
    """What clients can make the server spend (``kaitaku server --max-...``).

    Tables count while they are open (waiting or playing), per address of the
    connection that created them; bot processes count while they run, per
    address of the client that asked for them; spectators per table and per
    address."""

    tables: int = 500
    tables_per_address: int = 8
    bots: int = 32
    bots_per_address: int = 12
    spectators_per_table: int = 64
    spectators_per_address: int = 32
    connections: int = MAX_CONNECTIONS
    """Connections open at once, counted from accept (before a TLS handshake)."""
    connections_per_address: int = MAX_PER_ADDRESS
    """Connections open at once from one address, counted from accept."""


class Extension(Protocol):
    """A part of the server that lives outside this package (the ladder,
    :mod:`league.ladder`): it handles the client messages it names, and hears
    of every session that ends. ``Server(..., extension=...)``."""

    messages: frozenset[str]
    """The client message types it handles."""

    def attach(self, server: Server) -> None:
        """The server starts (it listens from now on)."""

    def handle(self, sess: Session, msg: dict[str, Any]) -> None:
        """One validated message of one of :attr:`messages` from ``sess``."""

    def forget(self, sess: Session) -> None:
        """``sess`` has ended."""

    async def close(self) -> None:
        """The server stops."""


class Server:
    """A Kaitaku game server. ``await start()``, then ``await serve_forever()``."""

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                 name: str = "kaitaku", spawn_bots: bool = True,
                 db: str | os.PathLike[str] | None = None, durable: str = "normal",
                 keep_finished: float | None = None, limits: Limits | None = None,
                 tls_cert: str | None = None, tls_key: str | None = None,
                 extension: Extension | None = None, metrics: Metrics | None = None
                 ) -> None:
        if not 1 <= len(name) <= 64:
            raise ValueError("the server name is 1 to 64 characters")
        self.host = host
        self.port = port
        self.name = name
        self.spawn_bots = spawn_bots
        self.extension = extension
        self.limits = limits or Limits()
        self.tls_cert = tls_cert
        self.tls: ssl.SSLContext | None = None
        if tls_cert is not None:
            from bots.tls import server_context

            self.tls = server_context(tls_cert, tls_key)
        self.tables: dict[str, Table[Session]] = {}
        self.sessions: set[Session] = set()
        self.resumable: dict[str, tuple[str, int]] = {}  # token -> (table id, seat)
        self.bot_processes: list[asyncio.subprocess.Process] = []
        self._bots_running = 0
        self._bots_by_address: Counter[str] = Counter()
        self._listeners: list[socket.socket] = []
        self._accepting: list[asyncio.Task[None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self.storage = (Storage(db, durable, background_checkpoints=True)
                        if db is not None else None)
        if self.storage is not None:
            self.storage.on_write = self._commit_soon
        self.keep_finished = keep_finished
        """Seconds a finished game's log stays in the database (None: for ever)."""
        self.storage_failing: str | None = None
        """Why the last commit failed, while the storage fails (None: it works)."""
        self._failing_since = 0.0
        self._barrier: asyncio.Future[bool] | None = None
        self._commit_handle: asyncio.Handle | None = None
        self._probe_handle: asyncio.TimerHandle | None = None
        self._probe_delay = PROBE_FIRST
        self._prune_handle: asyncio.TimerHandle | None = None
        self.metrics = metrics
        """The Prometheus metrics (``--metrics``), or None."""
        self._metrics_handle: asyncio.TimerHandle | None = None
        self._open: Counter[str] = Counter()
        """Open connections per address, counted from accept (handshakes included)."""
        self._open_total = 0
        self.bans = Bans()
        self.draining: float | None = None
        """While draining: the loop time at which the server stops whatever runs."""
        self.drained: asyncio.Event | None = None
        """Set when a drain is over (no game runs, or its deadline passed)."""
        self._drain_handle: asyncio.TimerHandle | None = None
        self._foreign: set[str] = set()
        """Tables attached with ``durable=False``: their owner (the ladder) keeps them."""

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Restore the stored tables, then listen (no connection is accepted
        before every table is back), then start the restored tables' bots."""
        spawn: list[tuple[Table[Session], list[tuple[int, str, str]]]] = []
        if self.storage is not None:
            self.bans = Bans([Ban(*row) for row in self.storage.bans()])
            spawn = self._restore()
        self.drained = asyncio.Event()
        limit_accept_failures()
        # our own accept loop (server.listen); TLS is started by _accept itself,
        # once the connection is counted
        self._listeners = await bind(self.host, self.port)
        self.port = self._listeners[0].getsockname()[1]
        self._accepting = [asyncio.create_task(accept_forever(sock, self._accept))
                           for sock in self._listeners]
        log.info("listening on %s:%d%s", self.host, self.port,
                 " (TLS)" if self.tls is not None else "")
        for table, seats in spawn:
            self._launch_bots(table, seats, None)
        if self.storage is not None and self.keep_finished is not None:
            self._prune()
        if self.extension is not None:
            self.extension.attach(self)
        if self.metrics is not None:
            self._refresh_metrics()

    def _refresh_metrics(self) -> None:
        """Set the metrics' gauges from the state (every ``metrics.REFRESH`` s)."""
        from .metrics import REFRESH

        metrics = self.metrics
        if metrics is None:
            return
        conns: Counter[str] = Counter()
        conns["handshake"] = self._open_total - len(self.sessions)
        for sess in self.sessions:
            if sess.table is None:
                conns["handshake" if sess.conn.phase is ConnPhase.HANDSHAKE else "lobby"] += 1
            else:
                conns["watching" if sess.seat is None else "seated"] += 1
        tables: Counter[str] = Counter()
        spectators = 0
        for table in self.tables.values():
            tables["paused" if table.paused is not None else table.status] += 1
            spectators += len(table.spectators)
        ladder = None
        gauges = getattr(self.extension, "gauges", None)
        if callable(gauges):
            try:
                ladder = gauges()
            except Exception:  # the extension's failure must not break the metrics
                log.exception("the server's extension failed to give its gauges")
        metrics.set_state(dict(conns), dict(tables), spectators, self._bots_running,
                          self.storage_failing is not None, self.bans.counts(),
                          self.draining is not None, ladder)
        self._metrics_handle = asyncio.get_running_loop().call_later(
            REFRESH, self._refresh_metrics)

    def _refused(self, cap: str) -> None:
        if self.metrics is not None:
            self.metrics.note_refusal(cap)

    def _prune(self) -> None:
        """Delete finished games older than ``keep_finished``: a batch now, the
        next batch soon if there were more, else again in an hour."""
        self._prune_handle = None
        if self.storage is None or self.keep_finished is None:
            return
        removed = 0
        if self.storage_failing is None:
            try:
                removed = self.storage.prune_finished(time.time() - self.keep_finished,
                                                      PRUNE_BATCH)
            except (StorageError, OSError) as exc:
                log.warning("could not prune finished games: %s", exc)
        if removed:
            log.info("pruned %d finished games older than %g days", removed,
                     self.keep_finished / 86400)
        delay = 0.1 if removed == PRUNE_BATCH else PRUNE_EVERY
        self._prune_handle = asyncio.get_running_loop().call_later(delay, self._prune)

    # -- durability -------------------------------------------------------------------

    def attach_table(self, table: Table[Session], durable: bool = True) -> None:
        """Register a table and start its task (also for tables made outside the lobby,
        e.g. a league game with a chosen seed). ``durable=False``: the table is
        not kept in the database (its owner, e.g. the ladder, keeps its record)."""
        if not durable:
            self._foreign.add(table.id)
        table.on_bots_needed = self._fill_with_bots
        table.on_finished = self._forget_later
        if self.metrics is not None:
            table.on_action = self.metrics.note_action
        if self.storage is not None and durable:
            table.on_applied = self._persist_action
            table.durable = self.durable
            table.on_changed = self.storage.save_table
        self.tables[table.id] = table
        table.task = self._spawn(table.run())
        if self.storage_failing is not None:
            table.pause("storage", STORAGE_MESSAGE)

    def _forget_later(self, table: Table[Session]) -> None:
        """A finished table leaves the list after FINISHED_TTL, with its resume
        tokens; its task ends."""
        if self.metrics is not None:
            self.metrics.games_finished.inc()
        if self.draining is not None:
            self._drain_check()

        def forget() -> None:
            if self.tables.get(table.id) is table:
                del self.tables[table.id]
                self._foreign.discard(table.id)
                self._drop_tokens(table.id)
                table.submit("stop", None)
                log.info("table %s removed from the list", table.id)

        asyncio.get_running_loop().call_later(FINISHED_TTL, forget)

    def _drop_tokens(self, table_id: str) -> None:
        for token in [t for t, (tid, _) in self.resumable.items() if tid == table_id]:
            del self.resumable[token]
        if self.storage is not None:
            self.storage.drop_tokens(table_id)

    def _persist_action(self, table: Table[Session], version: int, seat: int, action: Any,
                        outcome: tuple[int, ...] | None, seq: int | None) -> None:
        assert self.storage is not None and table.game is not None
        self.storage.append_action(table.id, version, seat, action.to_dict(), outcome, seq)
        if version % SNAPSHOT_EVERY == 0:
            self.storage.save_snapshot(table.id, version, table.game)

    def durable(self) -> asyncio.Future[bool]:
        """Resolves to True once every row queued so far is committed, False if
        the commit failed (those rows were dropped: their tables take the
        actions back). One commit serves every table that acted in this turn
        of the event loop."""
        if self._barrier is None:
            self._barrier = asyncio.get_running_loop().create_future()
        if self._commit_handle is None:
            self._commit_handle = asyncio.get_running_loop().call_soon(self._commit)
        return self._barrier

    def _commit_soon(self) -> None:
        """Something was queued: commit it at the end of this loop turn (unless
        the storage is failing: then the probe commits it when it can)."""
        if self._commit_handle is None and self.storage_failing is None:
            with contextlib.suppress(RuntimeError):  # no running loop (tests, start-up)
                self._commit_handle = asyncio.get_running_loop().call_soon(self._commit)

    def before_write(self) -> None:
        """Called before any bytes go to a client: commit what is queued (the
        headers and resume tokens the bytes may refer to). Action rows are
        committed before their tables send anything (``durable``)."""
        if self.storage is not None and self.storage.pending and self.storage_failing is None:
            self._commit()

    def _commit(self) -> bool:
        """Commit the queue; on failure drop its action rows, fail the waiting
        tables and pause every table. True: committed."""
        self._commit_handle = None
        barrier, self._barrier = self._barrier, None
        ok = True
        storage = self.storage
        if storage is not None and storage.pending:
            began = time.perf_counter()
            try:
                storage.commit()
                if self.metrics is not None:
                    self.metrics.commit_latency.observe(time.perf_counter() - began)
            except Exception as exc:  # StorageError, or anything else: nothing was saved
                if self.metrics is not None:
                    self.metrics.commit_failures.inc()
                ok = False
                dropped = storage.pending_actions
                storage.discard_actions(None)
                self._storage_failed(f"could not commit {dropped} action rows: {exc}")
        if barrier is not None and not barrier.done():
            barrier.set_result(ok)
        return ok

    def _storage_failed(self, why: str) -> None:
        """The first failed commit pauses every table (one log line); then the
        storage is probed now and then until a commit succeeds."""
        if self.storage_failing is None:
            self._failing_since = time.monotonic()
            log.warning("storage failing: %s; every table refuses actions until it works",
                        why)
            self._probe_delay = PROBE_FIRST
            if self.metrics is not None:
                self.metrics.storage_pauses.inc()
            for table in list(self.tables.values()):
                table.pause("storage", STORAGE_MESSAGE)
        else:
            log.warning("storage still failing: %s", why)
        self.storage_failing = why
        if self._probe_handle is None:
            self._probe_handle = asyncio.get_running_loop().call_later(self._probe_delay,
                                                                       self._probe)

    def _probe(self) -> None:
        self._probe_handle = None
        if self.storage is None or self.storage_failing is None:
            return
        try:
            self.storage.probe()
        except Exception as exc:  # StorageError, or anything else: still failing
            self._probe_delay = min(PROBE_MAX, self._probe_delay * 2)
            self._storage_failed(str(exc) or type(exc).__name__)
            return
        log.warning("storage works again after %.1f s; the tables go on",
                    time.monotonic() - self._failing_since)
        self.storage_failing = None
        for table in list(self.tables.values()):
            if table.paused == "storage":
                table.submit("resume", None)

    def _restore(self) -> list[tuple[Table[Session], list[tuple[int, str, str]]]]:
        """Bring back every unfinished table from the log; players rejoin with
        their resume tokens, bots are started again (once the server listens),
        and absent players' seats get stand-ins after the grace period. A table
        that does not restore is quarantined (logged once) and the rest go on."""
        assert self.storage is not None
        loop = asyncio.get_running_loop()
        spawn: list[tuple[Table[Session], list[tuple[int, str, str]]]] = []
        stored = self.storage.unfinished()
        for tid, reason in self.storage.quarantined:
            log.error("table %r does not restore and is quarantined (kept in the database, "
                      "not served): %s", tid, reason)
        bots = 0
        for st in stored:
            try:
                table, seats = self._restored_table(st, loop)
            except Exception as exc:
                reason = clip(f"{type(exc).__name__}: {exc}", 300)
                log.error("table %r does not restore and is quarantined (kept in the "
                          "database, not served): %s", st.id, reason)
                self.storage.quarantine(st.id, reason)
                continue
            self.attach_table(table)
            allowed = seats[: max(0, self.limits.bots - bots)]
            bots += len(allowed)
            for i, _, _ in seats[len(allowed):]:  # over the cap: a stand-in plays the seat
                table.seats[i].bot_key = None
                loop.call_later(table_module.GRACE, table.submit, "grace",
                                (i, table.seats[i].epoch))
            spawn.append((table, allowed))
            log.info("table %s restored at version %d (%s)", table.id, table.version,
                     table.status)
        return spawn

    def _restored_table(self, st: Any, loop: asyncio.AbstractEventLoop
                        ) -> tuple[Table[Session], list[tuple[int, str, str]]]:
        table: Table[Session] = Table(st.id, st.name, st.settings, st.creator,
                                      st.turn_timer, st.seed, clock=st.clock,
                                      reveal=st.reveal)
        table.status = st.status
        table.game = st.game
        table.version = st.version
        spawn = []
        for i, (seat, saved) in enumerate(zip(table.seats, st.seats, strict=True)):
            seat.name = saved["name"]
            seat.kind = saved["kind"]
            seat.bot_kind = saved.get("bot_kind")
            if seat.kind == "human" and table.status == "waiting":
                seat.kind, seat.name = "empty", ""
            elif seat.kind == "bot" and seat.bot_kind:
                seat.bot_key = secrets.token_urlsafe(16)
                spawn.append((i, seat.bot_kind, seat.bot_key))
            elif seat.kind == "bot" and table.status == "waiting":
                seat.kind, seat.name = "empty", ""  # a keyless bot client's seat
            elif seat.kind != "empty" and table.status == "playing":
                loop.call_later(table_module.GRACE, table.submit, "grace", (i, seat.epoch))
            table.restore_seqs(i, st.seqs.get(i, []), st.seq_versions.get(i))
        if table.game is not None:
            assert self.storage is not None
            try:  # what clients that join are sent; the game is served without it too
                table.history.extend(self.storage.history(
                    st.id, st.settings, st.seed, table_module.EVENT_MEMORY))
            except Exception as exc:
                log.warning("table %s: its history does not replay (%s); clients that "
                            "join get its view only", st.id, clip(str(exc), 200))
        for n, seat_no, who, text in st.chat:
            table.chat.append({"type": "chat", "table": table.id, "seat": seat_no,
                               "name": who, "text": text})
            table.chat_lines = n
        for token, seat_no in st.tokens.items():
            if table.status == "playing":  # waiting seats were freed above
                self.resumable[token] = (table.id, seat_no)
            elif self.storage is not None:
                self.storage.drop_token(token)
        if table.status == "waiting":
            # Its creator's session died with the old server: the first
            # person to sit down (or watch) may start it; if nobody comes
            # back within WAITING_GRACE it closes.
            table.creator = None
            loop.call_later(WAITING_GRACE, self._close_if_deserted, table)
        return table, spawn

    async def serve_forever(self) -> None:
        """Serve until cancelled (the server accepts from :meth:`start` on)."""
        assert self._listeners, "start() first"
        await asyncio.get_running_loop().create_future()

    async def close(self) -> None:
        if self.extension is not None:
            with contextlib.suppress(Exception):
                await self.extension.close()
        for handle in (self._prune_handle, self._probe_handle, self._commit_handle,
                       self._metrics_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._prune_handle = self._probe_handle = self._commit_handle = None
        self._metrics_handle = self._drain_handle = None
        for accepting in self._accepting:
            accepting.cancel()
        await asyncio.gather(*self._accepting, return_exceptions=True)
        self._accepting = []
        for sock in self._listeners:
            sock.close()
        for sess in list(self.sessions):
            sess.error("server_shutdown", "the server is shutting down")
            sess.send({"type": "bye", "reason": "server shutting down"})
        await asyncio.sleep(0.05)  # let the writers flush the byes
        for sess in list(self.sessions):
            sess.abort()
        for table in self.tables.values():
            table.submit("stop", None)
        for proc in self.bot_processes:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        for proc in self.bot_processes:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)
        tasks = [t for t in self._tasks if not t.done()]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=2.0)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self.storage is not None:
            self.storage.close()
            self.storage = None

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      tls: bool = True) -> None:
        """A new connection: counted against the caps and checked against the
        bans at once (before a TLS handshake, which then has its deadline),
        then served as a :class:`Session` until it ends."""
        peer = writer.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else str(peer)
        lim = self.limits
        cap = ("connections" if self._open_total >= lim.connections else
               "connections_per_address" if self._open[address] >= lim.connections_per_address
               else "banned" if self.bans.address(address) is not None else None)
        if cap is not None:
            self._refused(cap)
            if cap == "banned":
                log.info("refusing a connection from %s: banned", address)
            else:
                self._refusal_log(address)
            if self.tls is None or not tls:  # in plain text it can be told why
                code, text = (("banned", "this address is banned from the server")
                              if cap == "banned" else
                              ("too_many_connections", "the server is full; try again later"))
                writer.write(encode_frame({"type": "error", "code": code, "message": text}))
                writer.close()  # after the frame is written; the reader is never read
            else:  # before TLS nothing can be said: closed, nothing read, no handshake
                writer.transport.abort()
            return
        self._open[address] += 1
        self._open_total += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            if self.tls is not None and tls:
                try:
                    await writer.start_tls(self.tls,
                                           ssl_handshake_timeout=TLS_HANDSHAKE_DEADLINE)
                except (OSError, TimeoutError, ssl.SSLError) as exc:
                    log.debug("TLS handshake with %s failed: %s", address, exc)
                    writer.transport.abort()
                    return
            if self.metrics is not None:
                self.metrics.accepted.inc()
            sess = Session(self, reader, writer)
            self.sessions.add(sess)
            await sess.run()
        finally:
            self._open_total -= 1
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]

    _refusal_logged = 0.0

    def _refusal_log(self, address: str) -> None:
        """Refused connections: one log line a second at most."""
        now = time.monotonic()
        if now - self._refusal_logged >= 1.0:
            self._refusal_logged = now
            log.warning("refusing connections from %s and others: too many connections "
                        "(%d open, %d from that address)", address, self._open_total,
                        self._open[address])

    def adopt(self, reader: asyncio.StreamReader,
              writer: asyncio.StreamWriter) -> asyncio.Task[None]:
        """Serve a connection that did not come through the listening socket
        (one end of a socket pair: a league's sandboxed bot on its standard
        input and output): the same session, caps and protocol as any other
        (no TLS: the pair never leaves the machine)."""
        return self._spawn(self._accept(reader, writer, tls=False))

    def forget(self, sess: Session) -> None:
        self.sessions.discard(sess)
        if self.extension is not None:
            try:
                self.extension.forget(sess)
            except Exception:  # the extension's failure must not break the server
                log.exception("the server's extension failed on a closed session")
        if sess.table is not None:
            table = sess.table
            self._drop_token(sess, table)
            seat = table.vacate(sess)
            sess.log(logging.INFO, "%r left table %s (seat %s)", sess.name, table.id, seat)
            if not self._left_waiting(table, sess, dropped=True):
                table.broadcast_table()

    def _left_waiting(self, table: Table[Session], leaver: Session, dropped: bool) -> bool:
        """Someone left a table before its game: if they created it, the right to
        start it passes to the next person at it; a table no person is at any
        more closes (at once after a ``leave``; after WAITING_GRACE when the
        last one dropped, so that they can come back). True if it closed."""
        if table.status != "waiting" or self.tables.get(table.id) is not table:
            return False
        people = self._people(table)
        if table.creator == leaver.id:
            table.creator = people[0].id if people else None
            if people:
                leaver.log(logging.INFO, "table %s: %r may start it now", table.id,
                           people[0].name)
        if people:
            return False
        if dropped:
            asyncio.get_running_loop().call_later(WAITING_GRACE, self._close_if_deserted,
                                                  table)
            return False
        leaver.log(logging.INFO, "table %s closes: everybody left", table.id)
        self._close_waiting(table, "everybody left before the game started", quiet=True)
        return True

    @staticmethod
    def _people(table: Table[Session]) -> list[Session]:
        """The people (not bots) at a table: seated first, then spectators."""
        return [m for m, _ in table.members() if m.role != "bot"]

    def _close_if_deserted(self, table: Table[Session]) -> None:
        if (table.status == "waiting" and self.tables.get(table.id) is table
                and not self._people(table)):
            self._close_waiting(table, "nobody came back to it")

    def _close_waiting(self, table: Table[Session], why: str, quiet: bool = False,
                       host: bool = False) -> None:
        """Close a table before its game: its members (bots by now) get
        ``table_closed`` and ``left``; it leaves the list and the database.
        ``quiet``: the client whose leave closed it has logged it (rate-limited)."""
        for member, _ in table.members():
            self._drop_token(member, table)
            table.vacate(member)
            member.table = None
            member.seat = None
            if host:
                self._tell_closed(member, table, why)
            else:
                member.error("table_closed", f"the table closed: {why}")
            member.send({"type": "left", "table": table.id})
        del self.tables[table.id]
        table.status = "closed"  # commands still queued for it do nothing
        table.on_changed = None
        table.submit("stop", None)
        if self.storage is not None:
            self.storage.delete_table(table.id)
        if not quiet:
            log.info("table %s closed: %s", table.id, why)

    # -- routing --------------------------------------------------------------------

    def dispatch(self, sess: Session, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        ext = self.extension
        if ext is not None and kind in ext.messages:
            try:
                ext.handle(sess, msg)
            except Exception:  # contained: one traceback, the connection goes on
                log.exception("the server's extension failed on %s", kind)
                sess.error("internal_error", "the server failed on that message")
            return
        if kind in LADDER_MESSAGES:
            sess.error("no_ladder", "this server runs no ladder (kaitaku server --ladder)")
            return
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:  # pong and other messages that need no answer
            return
        handler(sess, msg)

    def _on_hello(self, sess: Session, msg: dict[str, Any]) -> None:
        ban = self.bans.name(msg["name"])
        if ban is not None:
            self._refused("banned")
            sess.log(logging.INFO, "refused the banned name %r", msg["name"])
            sess.error("banned", "this name is banned from the server"
                       + (f": {ban.reason}" if ban.reason else ""))
            sess.closed = True
            return
        token: str | None = msg.get("resume")
        target = self.resumable.get(token) if token is not None else None
        if token is not None and target is not None and target[0] in self.tables:
            sess.resume_token = token  # the seat keeps its token: the welcome repeats it
        if not sess.hello(msg):
            return
        if token is None:
            return
        if target is None or target[0] not in self.tables:
            sess.error("bad_resume", "unknown or expired resume token")
            return
        table = self.tables[target[0]]
        if self._too_old(sess, table.settings.to_dict()):  # 1.4: a 5–6 seat from an old client
            return
        seat_no = target[1]
        seat = table.seats[seat_no]
        if seat.session is not None and seat.session is not sess:
            old = seat.session
            old.error("replaced", "this seat was resumed from another connection")
            table.vacate(old)
            old.table = None
            old.close_soon()
        self._seat(sess, table, seat_no, msg.get("seen"))

    def _drop_token(self, sess: Session, table: Table[Session]) -> None:
        """A seat given up before the game starts cannot be reclaimed."""
        if table.status == "waiting":
            self.resumable.pop(sess.resume_token, None)
            if self.storage is not None:
                self.storage.drop_token(sess.resume_token)

    def _on_ping(self, sess: Session, msg: dict[str, Any]) -> None:
        sess.send({"type": "pong", "nonce": msg.get("nonce")})

    def _on_bye(self, sess: Session, msg: dict[str, Any]) -> None:
        sess.closed = True

    def _on_list_tables(self, sess: Session, msg: dict[str, Any]) -> None:
        """One page of the tables: waiting ones first (to be joined), then the
        games in play, then finished ones; at most MAX_PAGE (a ``tables``
        frame stays far below the frame limit however many tables there are)."""
        order = {"waiting": 0, "playing": 1}
        tables = sorted((t for t in self.tables.values() if self._speaks(sess, t)),
                        key=lambda t: order.get(t.status, 2))
        offset = max(0, msg.get("offset") or 0)
        limit = msg.get("limit") or MAX_PAGE
        limit = min(MAX_PAGE, max(1, limit))
        page = [t.summary() for t in tables[offset: offset + limit]]
        out: dict[str, Any] = {"type": "tables", "tables": page}
        if "offset" in msg or "limit" in msg or len(page) < len(tables):  # paged (1.3)
            out["total"] = len(tables)
            out["offset"] = offset
        sess.send(out)

    @staticmethod
    def _speaks(sess: Session, table: Table[Session]) -> bool:
        """Whether ``sess``'s protocol version can play and draw ``table`` (a 1.3
        client never sees a 5–6 player table: it is not listed to it)."""
        return sess.minor >= minor_needed(table.settings.to_dict())

    def _too_old(self, sess: Session, settings: dict[str, Any]) -> bool:
        """True (and ``sess`` told) if the client's version cannot play a table
        with ``settings``."""
        need = minor_needed(settings)
        if sess.minor >= need:
            return False
        sess.error("version_too_old", f"this table needs protocol 1.{need} (5–6 players); "
                   f"your client speaks 1.{sess.minor}: update it to play or watch")
        return True

    def _open_tables(self, address: str | None = None) -> int:
        return sum(1 for t in self.tables.values() if t.status in ("waiting", "playing")
                   and (address is None or t.creator_address == address))

    def _bots_refused(self, sess: Session, count: int) -> bool:
        """True (and ``sess`` told) if ``count`` more bot processes are over a cap."""
        if count <= 0 or not self.spawn_bots:
            return False
        lim = self.limits
        if self._bots_running + count > lim.bots:
            self._refused("bots")
            sess.error("too_many_bots", f"the server runs at most {lim.bots} bot processes; "
                       "try again when a game has ended")
            return True
        if self._bots_by_address[sess.address] + count > lim.bots_per_address:
            self._refused("bots_per_address")
            sess.error("too_many_bots", f"at most {lim.bots_per_address} bot processes run "
                       "for one address at a time")
            return True
        return False

    def _on_create_table(self, sess: Session, msg: dict[str, Any]) -> None:
        try:
            checked = check_settings(msg["settings"])
            settings = Settings.from_dict(checked)
            clock = Clock.from_settings(checked)
        except (ProtocolError, RulesError, TypeError, ValueError) as exc:
            sess.error("bad_settings", str(exc))
            return
        if self._too_old(sess, checked):
            return
        bots = msg.get("bots") or []
        if not all(isinstance(b, str) and b in BOT_KINDS for b in bots):
            sess.error("bad_settings", f"bots must be among {', '.join(BOT_KINDS)}")
            return
        take_seat = msg.get("seat") is not False
        if len(bots) + (1 if take_seat else 0) > settings.players:
            sess.error("bad_settings", "more bots than free seats")
            return
        timer = msg.get("turn_timer") or 0
        if not 0 <= timer <= TURN_TIMER_MAX:
            sess.error("bad_settings", f"turn_timer is 0..{TURN_TIMER_MAX} seconds")
            return
        lim = self.limits
        if self.draining is not None:
            self._refused("draining")
            sess.error("draining", "the server takes no new tables: it restarts once the "
                       "running games end")
            return
        if self._open_tables() >= lim.tables:
            self._refused("tables")
            sess.error("too_many_tables", f"the server has {lim.tables} open tables; join "
                       "one or try again later")
            return
        if self._open_tables(sess.address) >= lim.tables_per_address:
            self._refused("tables_per_address")
            sess.error("too_many_tables", f"at most {lim.tables_per_address} open tables "
                       "may be created from one address")
            return
        if self._bots_refused(sess, len(bots)):
            return
        if self.storage_failing is not None:
            sess.error("storage_unavailable", STORAGE_MESSAGE)
            return
        table_id = secrets.token_hex(4)
        while table_id in self.tables:
            table_id = secrets.token_hex(4)
        name = clean_text(msg.get("name") or "", MAX_NAME) or f"table {len(self.tables) + 1}"
        table: Table[Session] = Table(table_id, name, settings, sess.id, timer, clock=clock)
        table.creator_address = sess.address
        self.attach_table(table)
        sess.log(logging.INFO, "%r created table %s (%r): %s, bots %s", sess.name, table_id,
                 name, settings.to_dict(), bots)
        spawn = table.reserve_bots(list(bots))
        if take_seat:
            i = table.free_seat(None, sess, None)
            assert i is not None
            self._seat(sess, table, i)
        else:
            self._spectate(sess, table)
        self._launch_bots(table, spawn, sess.address)

    def _on_join(self, sess: Session, msg: dict[str, Any]) -> None:
        table = self.tables.get(msg["table"])
        if table is None:
            sess.error("no_such_table", f"no table {clip(msg['table'], 64)!r}")
            return
        if self._too_old(sess, table.settings.to_dict()):
            return
        i = table.free_seat(msg.get("seat"), sess, msg.get("key"))
        if i is None:
            code = "seat_taken" if msg.get("seat") is not None else "table_full"
            sess.error(code, "no such free seat at this table")
            return
        self._seat(sess, table, i)

    def _on_spectate(self, sess: Session, msg: dict[str, Any]) -> None:
        table = self.tables.get(msg["table"])
        if table is None:
            sess.error("no_such_table", f"no table {clip(msg['table'], 64)!r}")
            return
        if self._too_old(sess, table.settings.to_dict()):
            return
        lim = self.limits
        if sess not in table.spectators:
            if len(table.spectators) >= lim.spectators_per_table:
                self._refused("spectators_per_table")
                sess.error("too_many_spectators",
                           f"this table has {lim.spectators_per_table} spectators already")
                return
            watching = sum(1 for s in self.sessions if s.address == sess.address
                           and s.table is not None and s.seat is None)
            if watching >= lim.spectators_per_address:
                self._refused("spectators_per_address")
                sess.error("too_many_spectators", f"at most {lim.spectators_per_address} "
                           "connections of one address may watch")
                return
        self._spectate(sess, table)

    def _claim_start(self, sess: Session, table: Table[Session]) -> None:
        """At a waiting table nobody may start (its creator left or the server
        restarted), the first person to arrive may."""
        if table.status == "waiting" and table.creator is None and sess.role != "bot":
            table.creator = sess.id
            sess.log(logging.INFO, "%r may start table %s", sess.name, table.id)

    def _seat(self, sess: Session, table: Table[Session], i: int, since: int | None = None) -> None:
        table.take_seat(i, sess)
        sess.log(logging.INFO, "%r took seat %d at table %s (%s)", sess.name, i, table.id,
                 table.seats[i].kind)
        self._claim_start(sess, table)
        sess.table = table
        sess.seat = i
        for token in [t for t, target in self.resumable.items()
                      if target == (table.id, i) and t != sess.resume_token]:
            del self.resumable[token]  # one token per seat: the newest holder's
            if self.storage is not None:
                self.storage.drop_token(token)
        self.resumable[sess.resume_token] = (table.id, i)
        if self.storage is not None:
            self.storage.save_token(sess.resume_token, table.id, i)
        joined: dict[str, Any] = {"type": "joined", "table": table.id, "seat": i,
                                  "settings": table.settings_map()}
        if table.seats[i].last_seq >= 0:
            joined["last_seq"] = table.seats[i].last_seq
        sess.send(joined)
        self._past_chat(sess, table)
        table.broadcast_table()
        if table.status in ("playing", "finished"):
            # a running game, or one that ended while the client was away: the
            # missed events, the view, legal, and at a finished table game_over
            sess.send(table.game_started_message())
            sess.charge_history(len(table.history))
            table.submit("arrived", (sess, i, since))
        else:
            table.submit("seated", None)

    def place(self, sess: Session, table: Table[Session], seat: int) -> None:
        """Seat ``sess`` (in the lobby) at ``seat`` of ``table``, as a ``join``
        would (``joined`` and the rest follow): how the ladder seats its bots."""
        self._seat(sess, table, seat)

    def release(self, sess: Session) -> None:
        """Take ``sess`` from its table, as a ``leave`` would (``left`` follows)."""
        if sess.table is not None and not sess.closed:
            self._on_leave(sess, {"type": "leave"})

    def close_table(self, table: Table[Session], why: str) -> None:
        """Close a table whose game has not started (its members get
        ``table_closed`` and ``left``)."""
        if table.status == "waiting" and self.tables.get(table.id) is table:
            self._close_waiting(table, why)

    def _spectate(self, sess: Session, table: Table[Session]) -> None:
        table.spectators.add(sess)
        self._claim_start(sess, table)
        sess.table = table
        sess.seat = None
        sess.send({"type": "joined", "table": table.id, "seat": None,
                   "settings": table.settings_map()})
        self._past_chat(sess, table)
        if table.status == "waiting":
            table.broadcast_table()  # the seats so far (and who may start)
        else:  # playing, or finished: the view (and game_over) follow
            sess.send(table.game_started_message())
            sess.charge_history(len(table.history))
            table.submit("arrived", (sess, None, None))

    @staticmethod
    def _past_chat(sess: Session, table: Table[Session]) -> None:
        """The table's last chat lines, marked ``past``, for a member who arrives."""
        for line in table.chat:
            sess.send({**line, "past": True})

    def _on_leave(self, sess: Session, msg: dict[str, Any]) -> None:
        table = sess.table
        if table is not None:
            self._drop_token(sess, table)
            table.vacate(sess)
            sess.table = None
            sess.seat = None
            sess.send({"type": "left", "table": table.id})
            if not self._left_waiting(table, sess, dropped=False):
                table.broadcast_table()

    def _on_start(self, sess: Session, msg: dict[str, Any]) -> None:
        table = sess.table
        if table is None:
            return
        if table.creator != sess.id:
            sess.error("not_creator", "only the table's creator may start it")
            return
        if table.status == "waiting" and self.storage_failing is not None:
            sess.error("storage_unavailable", STORAGE_MESSAGE)
            return
        table.submit("start", sess)

    def _on_resync(self, sess: Session, msg: dict[str, Any]) -> None:
        if sess.table is not None:
            sess.table.submit("resync", (sess, sess.seat))

    def _on_action(self, sess: Session, msg: dict[str, Any]) -> None:
        table = sess.table
        if table is None or sess.seat is None:
            sess.send({"type": "result", "seq": msg["seq"], "ok": False, "code": "not_seated",
                       "message": "spectators cannot act"})
            return
        table.submit("action", (sess.seat, msg))

    def _on_chat(self, sess: Session, msg: dict[str, Any]) -> None:
        table = sess.table
        if table is None:
            return
        text = clean_text(msg["text"], MAX_CHAT)
        if not text:  # nothing printable: nothing to relay
            return
        out = {"type": "chat", "table": table.id, "seat": sess.seat, "name": sess.name,
               "text": text}
        table.chat.append(out)
        table.chat_lines += 1
        if self.storage is not None and self.tables.get(table.id) is table:
            # kept with the table: a restarted server (kaitaku play continuing a
            # closed game) gives the lines back to the windows that come back
            self.storage.save_chat(table.id, table.chat_lines, sess.seat, sess.name, text)
        for member, _ in table.members():
            member.send(out)

    # -- bots -------------------------------------------------------------------------

    def _fill_with_bots(self, table: Table[Session], empties: list[int], by: Any) -> bool:
        """``start``: random bots for the empty seats, within the bot caps (else
        ``by``, the session that asked, is told and nothing happens)."""
        if isinstance(by, Session) and self._bots_refused(by, len(empties)):
            return False
        address = by.address if isinstance(by, Session) else None
        self._launch_bots(table, table.reserve_bots(["random"] * len(empties)), address)
        return True

    def _launch_bots(self, table: Table[Session], spawn: list[tuple[int, str, str]],
                     address: str | None) -> None:
        """Start a ``kaitaku bot`` process for each reserved bot seat (counted
        against the caps, for ``address``, while it runs)."""
        if not self.spawn_bots:
            return
        for seat, kind, key in spawn:
            self._bots_running += 1
            if address is not None:
                self._bots_by_address[address] += 1
            self._spawn(self._run_bot_process(table.id, seat, kind, key, address))

    async def _run_bot_process(self, table_id: str, seat: int, kind: str, key: str,
                               address: str | None) -> None:
        """One bot process. Its seat key goes to it on its standard input (never
        in its command line, which any local user can read), and the pipe stays
        open: when this server dies, even by ``kill -9``, the bot reads the end
        of its input and exits."""
        proc: asyncio.subprocess.Process | None = None
        try:
            host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
            cmd = [sys.executable, "-m", "kaitaku", "bot", "--connect", f"{host}:{self.port}",
                   "--bot", kind, "--table", table_id, "--seat", str(seat), "--key-stdin",
                   "--exit-with-stdin", "--name", bot_name(kind, seat + 1)]
            if self.tls_cert is not None:
                cmd += ["--tls-pin", self.tls_cert]
            proc = await asyncio.create_subprocess_exec(
                *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, env=dict(os.environ))
            self.bot_processes.append(proc)
            assert proc.stdin is not None and proc.stderr is not None
            proc.stdin.write(key.encode("ascii") + b"\n")
            with contextlib.suppress(ConnectionError):
                await proc.stdin.drain()
            log.info("table %s: started %s bot for seat %d (pid %d)", table_id, kind, seat,
                     proc.pid)
            err = b""
            while chunk := await proc.stderr.read(65536):
                err = (err + chunk)[-2000:]  # the end of what it said, for the log
            await proc.wait()
            if proc.returncode not in (0, None, -15):
                log.warning("bot for table %s seat %d exited %s: %r", table_id, seat,
                            proc.returncode, err.decode(errors="replace")[-500:])
        finally:
            self._bots_running -= 1
            if address is not None:
                self._bots_by_address[address] -= 1
                if self._bots_by_address[address] <= 0:
                    del self._bots_by_address[address]
            if proc is not None and proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()

    # -- the host's commands (kaitaku admin; server.admin) -----------------------------

    def admin_status(self) -> dict[str, Any]:
        """A summary: connections, tables by state, bots, bans, drain."""
        states = Counter(t.status for t in self.tables.values())
        return {"name": self.name, "port": self.port, "tls": self.tls is not None,
                "connections": self._open_total, "sessions": len(self.sessions),
                "tables": dict(states), "bot_processes": self._bots_running,
                "bans": len(self.bans), "storage_failing": self.storage_failing,
                "draining": self.draining is not None}

    def admin_tables(self) -> list[dict[str, Any]]:
        """Every listed table: id, name, status, version, seats, spectators."""
        out = []
        for t in self.tables.values():
            out.append({"id": t.id, "name": t.name, "status": t.status, "paused": t.paused,
                        "version": t.version, "players": t.settings.players,
                        "spectators": len(t.spectators), "creator_address": t.creator_address,
                        "seats": [{"name": s.name, "kind": s.kind,
                                   "connected": s.session is not None, "auto": s.auto,
                                   "session": s.session.id if s.session is not None else None}
                                  for s in t.seats]})
        return out

    def admin_connections(self) -> list[dict[str, Any]]:
        """Every session (after its TLS handshake): id, name, role, address, table."""
        return [{"session": s.id, "name": s.name, "role": s.role, "peer": s.peer,
                 "address": s.address, "protocol": f"1.{s.minor}",
                 "table": s.table.id if s.table is not None else None, "seat": s.seat}
                for s in sorted(self.sessions, key=lambda s: s.peer)]

    def _tell_closed(self, member: Session, table: Table[Session], reason: str) -> None:
        """A member of a table the host closed is told why (1.4: ``table_closed``;
        older clients: ``error closed_by_host``)."""
        if member.minor >= 4:
            member.send({"type": "table_closed", "table": table.id,
                         "reason": clip(reason, MAX_ANNOUNCEMENT)})
        else:
            member.error("closed_by_host", "the server's host closed the table"
                         + (f": {reason}" if reason else ""))

    def close_by_host(self, table_id: str, reason: str) -> dict[str, Any]:
        """Close a table at once (``kaitaku admin close-table``): its members
        are told why and leave it; a game it had is kept in the database
        (status ``closed``: never restored, replayable like a finished one).
        Raises KeyError for an unknown table."""
        table = self.tables[table_id]
        if table.id in self._foreign:
            raise ValueError(f"table {table_id} belongs to the ladder: kick or ban its bots "
                             "instead (a dropped bot's seat forfeits after the grace)")
        reason = clean_text(reason, MAX_ANNOUNCEMENT)
        if self.metrics is not None:
            self.metrics.tables_closed.inc()
        log.warning("table %s closed by the host (%s): %r", table.id, table.status, reason)
        if table.status == "waiting":
            self._close_waiting(table, reason, quiet=True, host=True)
            return {"table": table_id, "game_kept": False}
        had_game = table.status in ("playing", "finished")
        if table.status == "playing":
            table.status = "closed"  # the table's task does nothing more with it
            for seat in table.seats:
                seat.deadline = None
        for member, _ in table.members():
            table.vacate(member)
            member.table = None
            member.seat = None
            self._tell_closed(member, table, reason)
            member.send({"type": "left", "table": table.id})
        del self.tables[table.id]
        self._drop_tokens(table.id)
        if self.storage is not None and table.status == "closed" and table.on_changed:
            self.storage.save_table(table)
        table.on_changed = None
        table.submit("stop", None)
        if self.draining is not None:
            self._drain_check()
        return {"table": table_id, "game_kept": had_game and self.storage is not None}

    def kick(self, target: str, reason: str, code: str = "kicked") -> list[str]:
        """Close every connection whose session id or name is ``target``; its
        client is told why. Returns the session ids closed."""
        reason = clean_text(reason, MAX_ANNOUNCEMENT)
        hit = [s for s in self.sessions if s.id == target or s.name == target]
        for sess in hit:
            self._close_session(sess, code, reason)
        return [s.id for s in hit]

    @staticmethod
    def _close_session(sess: Session, code: str, reason: str) -> None:
        text = ("the server's host closed your connection" if code == "kicked"
                else "you are banned from this server")
        sess.log(logging.WARNING, "%r closed by the host (%s)", sess.name, code)
        sess.error(code, text + (f": {reason}" if reason else ""))
        sess.send({"type": "bye", "reason": clip(code, 256)})
        sess.close_soon()

    def ban(self, kind: str, value: str, reason: str) -> dict[str, Any]:
        """Ban an address (or network) or a name: kept in the database (it
        holds after a restart), checked from now on, and the connections it
        covers are closed. Raises BanError (bad target) or StorageError (it
        could not be saved: then it is not in force either)."""
        key = parse_target(kind, value)
        reason = clean_text(reason, MAX_REASON)
        if len(self.bans) >= MAX_BANS:
            raise BanError(f"at most {MAX_BANS} bans")
        ban = Ban(kind, key, reason, time.time())
        if self.storage is not None:
            self.storage.save_ban(kind, key, reason, ban.created)
            self._commit_or_raise()
        self.bans.add(ban)
        probe = Bans([ban])
        hit = [s for s in self.sessions
               if (probe.address(s.address) if kind == "address" else probe.name(s.name))]
        for sess in hit:
            self._close_session(sess, "banned", reason)
        log.warning("banned %s %s (%r); %d connections closed", kind, key, reason, len(hit))
        return {**ban.to_dict(), "closed": [s.id for s in hit],
                "persisted": self.storage is not None}

    def unban(self, kind: str, value: str) -> bool:
        key = parse_target(kind, value)
        if not self.bans.remove(kind, key):
            return False
        if self.storage is not None:
            self.storage.drop_ban(kind, key)
            self._commit_or_raise()
        log.warning("unbanned %s %s", kind, key)
        return True

    def _commit_or_raise(self) -> None:
        if self.storage_failing is not None or not self._commit():
            raise StorageError(f"not saved: {self.storage_failing or 'the commit failed'}")

    def announce(self, text: str) -> int:
        """Show ``text`` to every client (1.4: ``announce``; older clients: a
        chat line from the server at their table, else ``error announcement``).
        Returns how many clients were sent it."""
        text = clean_text(text, MAX_ANNOUNCEMENT)
        if not text:
            raise ValueError("an announcement needs a printable character")
        sent = 0
        for sess in list(self.sessions):
            if sess.conn.phase in (ConnPhase.HANDSHAKE, ConnPhase.CLOSED) or sess.role == "bot":
                continue
            if sess.minor >= 4:
                sess.send({"type": "announce", "text": text})
            elif sess.table is not None:
                sess.send({"type": "chat", "table": sess.table.id, "seat": None,
                           "name": clip(self.name, MAX_NAME), "text": clip(text, MAX_CHAT)})
            else:
                sess.error("announcement", text)
            sent += 1
        log.warning("announced to %d clients: %r", sent, text)
        return sent

    def drain(self, deadline: float | None) -> dict[str, Any]:
        """Refuse new tables; close the waiting ones; once no game runs (or
        ``deadline`` seconds have passed) :attr:`drained` is set and the
        server's command exits. Games still running at the deadline are in the
        database: the next server restores them."""
        loop = asyncio.get_running_loop()
        if self.draining is None:
            self.draining = loop.time() + (deadline if deadline is not None else 1e9)
            for table in [t for t in self.tables.values() if t.status == "waiting"]:
                self._close_waiting(table, "the server is restarting", quiet=True, host=True)
        elif deadline is not None:
            self.draining = min(self.draining, loop.time() + deadline)
        if self._drain_handle is not None:
            self._drain_handle.cancel()
        self._drain_handle = loop.call_at(self.draining, self._drain_over, "its deadline")
        playing = sum(1 for t in self.tables.values() if t.status == "playing")
        log.warning("draining: no new tables; %d games running; exit when they end%s",
                    playing, f" or in {deadline:g} s" if deadline is not None else "")
        self._drain_check()
        return {"playing": playing, "deadline": deadline}

    def _drain_check(self) -> None:
        if self.draining is not None and not any(
                t.status == "playing" for t in self.tables.values()):
            asyncio.get_running_loop().call_soon(self._drain_over, "the last game ended")

    def _drain_over(self, why: str) -> None:
        if self.drained is not None and not self.drained.is_set():
            playing = sum(1 for t in self.tables.values() if t.status == "playing")
            log.warning("drained (%s); %d games left for the next start", why, playing)
            self.drained.set()
