"""The server: accepts connections, runs the lobby, owns the tables.

``Server.dispatch`` is the one place where client messages are routed. Lobby
messages are handled at once (they only touch the table list); everything
that changes a table goes into that table's queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sys
import time
from typing import Any

from protocol.rules import RulesError, Settings

from . import table as table_module
from .session import Session
from .storage import SNAPSHOT_EVERY, Storage
from .table import Table

log = logging.getLogger("kaitaku.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7878
BOT_KINDS = ("random", "greedy", "heuristic", "search")
MAX_TABLES_LISTED = 1024
MAX_CONNECTIONS = 2000
"""Connections the server accepts at once; more are refused with an error."""
MAX_PER_ADDRESS = 256
"""Connections from one address (the server's own bots come from loopback)."""
MAX_TABLES_PER_CONNECTION = 4
"""Tables one connection may create."""
FINISHED_TTL = 600.0
"""Seconds a finished table stays listed (its log stays in the database)."""
WAITING_GRACE = 60.0
"""Seconds a waiting table that everybody dropped from stays open for them."""
PRUNE_EVERY = 3600.0
"""Seconds between prunings of old finished games (``keep_finished``)."""
PRUNE_BATCH = 50
"""Finished games deleted per step (the loop stays responsive while pruning)."""


class Server:
    """A Kaitaku game server. ``await start()``, then ``await serve_forever()``."""

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                 name: str = "kaitaku", spawn_bots: bool = True,
                 db: str | os.PathLike[str] | None = None, durable: str = "normal",
                 keep_finished: float | None = None) -> None:
        if not 1 <= len(name) <= 64:
            raise ValueError("the server name is 1 to 64 characters")
        self.host = host
        self.port = port
        self.name = name
        self.spawn_bots = spawn_bots
        self.tables: dict[str, Table[Session]] = {}
        self.sessions: set[Session] = set()
        self.resumable: dict[str, tuple[str, int]] = {}  # token -> (table id, seat)
        self.bot_processes: list[asyncio.subprocess.Process] = []
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.storage = (Storage(db, durable, background_checkpoints=True)
                        if db is not None else None)
        self.keep_finished = keep_finished
        """Seconds a finished game's log stays in the database (None: for ever)."""
        self._commit_handle: asyncio.Handle | None = None
        self._prune_handle: asyncio.TimerHandle | None = None

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        sock = self._server.sockets[0]
        self.port = sock.getsockname()[1]
        log.info("listening on %s:%d", self.host, self.port)
        if self.storage is not None:
            self._restore()
            if self.keep_finished is not None:
                self._prune()

    def _prune(self) -> None:
        """Delete finished games older than ``keep_finished``: a batch now, the
        next batch soon if there were more, else again in an hour."""
        self._prune_handle = None
        if self.storage is None or self.keep_finished is None:
            return
        try:
            removed = self.storage.prune_finished(time.time() - self.keep_finished, PRUNE_BATCH)
        except Exception:
            log.exception("could not prune finished games")
            removed = 0
        if removed:
            log.info("pruned %d finished games older than %g days", removed,
                     self.keep_finished / 86400)
        delay = 0.1 if removed == PRUNE_BATCH else PRUNE_EVERY
        self._prune_handle = asyncio.get_running_loop().call_later(delay, self._prune)

    # -- durability -------------------------------------------------------------------

    def attach_table(self, table: Table[Session]) -> None:
        """Register a table and start its task (also for tables made outside the lobby,
        e.g. a league game with a chosen seed)."""
        table.on_bots_needed = self._launch_bots
        table.on_finished = self._forget_later
        if self.storage is not None:
            table.on_applied = self._persist_action
            table.on_changed = self.storage.save_table
        self.tables[table.id] = table
        table.task = self._spawn(table.run())

    def _forget_later(self, table: Table[Session]) -> None:
        """A finished table leaves the list after FINISHED_TTL; its task ends."""

        def forget() -> None:
            if self.tables.get(table.id) is table:
                del self.tables[table.id]
                table.submit("stop", None)
                log.info("table %s removed from the list", table.id)

        asyncio.get_running_loop().call_later(FINISHED_TTL, forget)

    def _persist_action(self, table: Table[Session], seat: int, action: Any,
                        outcome: tuple[int, ...] | None) -> None:
        assert self.storage is not None
        self.storage.append_action(table.id, table.version, seat, action.to_dict(), outcome)
        if table.version % SNAPSHOT_EVERY == 0 and table.game is not None:
            self.storage.save_snapshot(table.id, table.version, table.game)
        elif self._commit_handle is None:
            # Sessions commit before they write (see before_write); this also
            # commits when nobody is listening.
            self._commit_handle = asyncio.get_running_loop().call_soon(self.before_write)

    def before_write(self) -> None:
        """Commit the queued action rows: called before any bytes go to a client,
        so nothing is acknowledged before it is durable (group commit)."""
        self._commit_handle = None
        storage = self.storage
        if storage is None or not storage.pending:
            return
        try:
            storage.commit()
        except Exception:  # the disk failed: the game goes on, the rows wait
            log.exception("could not commit %d action rows; will retry", storage.pending)

    def _restore(self) -> None:
        """Bring back every unfinished table from the log; players rejoin with
        their resume tokens, bots are started again, and absent players' seats
        get stand-ins after the grace period."""
        assert self.storage is not None
        loop = asyncio.get_running_loop()
        for st in self.storage.unfinished():
            table: Table[Session] = Table(st.id, st.name, st.settings, st.creator,
                                          st.turn_timer, st.seed)
            table.status = st.status
            table.game = st.game
            if table.game is not None and table.game.log:
                table.game.log.clear()  # replayed from the database, which keeps it
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
                elif seat.kind != "empty" and table.status == "playing":
                    loop.call_later(table_module.GRACE, table.submit, "grace", (i, seat.epoch))
            for token, seat_no in st.tokens.items():
                if table.status == "playing":  # waiting seats were freed above
                    self.resumable[token] = (table.id, seat_no)
                else:
                    self.storage.drop_token(token)
            if table.status == "waiting":
                # Its creator's session died with the old server: the first
                # person to sit down (or watch) may start it; if nobody comes
                # back within WAITING_GRACE it closes.
                table.creator = None
                loop.call_later(WAITING_GRACE, self._close_if_deserted, table)
            self.attach_table(table)
            self._launch_bots(table, spawn)
            log.info("table %s restored at version %d (%s)", table.id, table.version,
                     table.status)

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self) -> None:
        if self._prune_handle is not None:
            self._prune_handle.cancel()
            self._prune_handle = None
        if self._server is not None:
            self._server.close()
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
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        if self.storage is not None:
            self.storage.close()
            self.storage = None

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else str(peer)
        same = sum(1 for s in self.sessions if s.address == address)
        if len(self.sessions) >= MAX_CONNECTIONS or same >= MAX_PER_ADDRESS:
            log.warning("refusing a connection from %s: too many connections", address)
            from protocol.wire import encode_frame

            writer.write(encode_frame({"type": "error", "code": "too_many_connections",
                                       "message": "the server is full; try again later"}))
            with contextlib.suppress(Exception):
                await writer.drain()
            writer.close()
            return
        sess = Session(self, reader, writer)
        self.sessions.add(sess)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await sess.run()

    def forget(self, sess: Session) -> None:
        self.sessions.discard(sess)
        if sess.table is not None:
            table = sess.table
            self._drop_token(sess, table)
            seat = table.vacate(sess)
            log.info("table %s: %s left seat %s", table.id, sess.name, seat)
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
                log.info("table %s: %s may start it now", table.id, people[0].name)
        if people:
            return False
        if dropped:
            asyncio.get_running_loop().call_later(WAITING_GRACE, self._close_if_deserted,
                                                  table)
            return False
        self._close_waiting(table, "everybody left before the game started")
        return True

    @staticmethod
    def _people(table: Table[Session]) -> list[Session]:
        """The people (not bots) at a table: seated first, then spectators."""
        return [m for m, _ in table.members() if m.role != "bot"]

    def _close_if_deserted(self, table: Table[Session]) -> None:
        if (table.status == "waiting" and self.tables.get(table.id) is table
                and not self._people(table)):
            self._close_waiting(table, "nobody came back to it")

    def _close_waiting(self, table: Table[Session], why: str) -> None:
        """Close a table before its game: its members (bots by now) get
        ``table_closed`` and ``left``; it leaves the list and the database."""
        for member, _ in table.members():
            self._drop_token(member, table)
            table.vacate(member)
            member.table = None
            member.seat = None
            member.error("table_closed", f"the table closed: {why}")
            member.send({"type": "left", "table": table.id})
        del self.tables[table.id]
        table.status = "closed"  # commands still queued for it do nothing
        table.on_changed = None
        table.submit("stop", None)
        if self.storage is not None:
            self.storage.delete_table(table.id)
        log.info("table %s closed: %s", table.id, why)

    # -- routing --------------------------------------------------------------------

    def dispatch(self, sess: Session, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:  # pong and other messages that need no answer
            return
        handler(sess, msg)

    def _on_hello(self, sess: Session, msg: dict[str, Any]) -> None:
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
        tables = [t.summary() for t in list(self.tables.values())[:MAX_TABLES_LISTED]]
        sess.send({"type": "tables", "tables": tables})

    def _on_create_table(self, sess: Session, msg: dict[str, Any]) -> None:
        try:
            settings = Settings.from_dict(msg["settings"])
        except (RulesError, TypeError) as exc:
            sess.error("bad_settings", str(exc))
            return
        bots = msg.get("bots") or []
        if not all(isinstance(b, str) and b in BOT_KINDS for b in bots):
            sess.error("bad_settings", f"bots must be among {', '.join(BOT_KINDS)}")
            return
        if sess.tables_created >= MAX_TABLES_PER_CONNECTION:
            sess.error("too_many_tables",
                       f"one connection may create {MAX_TABLES_PER_CONNECTION} tables")
            return
        take_seat = msg.get("seat") is not False
        if len(bots) + (1 if take_seat else 0) > settings.players:
            sess.error("bad_settings", "more bots than free seats")
            return
        timer = msg.get("turn_timer") or 0
        if not 0 <= timer <= 3600:
            sess.error("bad_settings", "turn_timer is 0..3600 seconds")
            return
        sess.tables_created += 1
        table_id = secrets.token_hex(4)
        table: Table[Session] = Table(table_id, msg.get("name") or f"table {len(self.tables) + 1}",
                      settings, sess.id, timer)
        self.attach_table(table)
        log.info("table %s created by %s: %s, bots %s", table_id, sess.name,
                 settings.to_dict(), bots)
        spawn = table.reserve_bots(list(bots))
        if take_seat:
            i = table.free_seat(None, sess, None)
            assert i is not None
            self._seat(sess, table, i)
        else:
            self._spectate(sess, table)
        self._launch_bots(table, spawn)

    def _on_join(self, sess: Session, msg: dict[str, Any]) -> None:
        table = self.tables.get(msg["table"])
        if table is None:
            sess.error("no_such_table", f"no table {msg['table']!r}")
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
            sess.error("no_such_table", f"no table {msg['table']!r}")
            return
        self._spectate(sess, table)

    def _claim_start(self, sess: Session, table: Table[Session]) -> None:
        """At a waiting table nobody may start (its creator left or the server
        restarted), the first person to arrive may."""
        if table.status == "waiting" and table.creator is None and sess.role != "bot":
            table.creator = sess.id
            log.info("table %s: %s may start it", table.id, sess.name)

    def _seat(self, sess: Session, table: Table[Session], i: int, since: int | None = None) -> None:
        table.take_seat(i, sess)
        self._claim_start(sess, table)
        sess.table = table
        sess.seat = i
        self.resumable[sess.resume_token] = (table.id, i)
        if self.storage is not None:
            self.storage.save_token(sess.resume_token, table.id, i)
        joined: dict[str, Any] = {"type": "joined", "table": table.id, "seat": i,
                                  "settings": table.settings.to_dict()}
        if table.seats[i].last_seq >= 0:
            joined["last_seq"] = table.seats[i].last_seq
        sess.send(joined)
        table.broadcast_table()
        if table.status == "playing":
            sess.send({"type": "game_started", "table": table.id})
            if since is not None:
                table.submit("catch_up", (sess, i, since))
            else:
                table.submit("resync", (sess, i))
        else:
            table.submit("seated", None)

    def _spectate(self, sess: Session, table: Table[Session]) -> None:
        table.spectators.add(sess)
        self._claim_start(sess, table)
        sess.table = table
        sess.seat = None
        sess.send({"type": "joined", "table": table.id, "seat": None,
                   "settings": table.settings.to_dict()})
        if table.status == "waiting":
            table.broadcast_table()  # the seats so far (and who may start)
        else:
            sess.send({"type": "game_started", "table": table.id})
            table.submit("resync", (sess, None))

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
        table.submit("start", None)

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
        out = {"type": "chat", "table": table.id, "seat": sess.seat, "name": sess.name,
               "text": msg["text"]}
        for member, _ in table.members():
            member.send(out)

    # -- bots -------------------------------------------------------------------------

    def _launch_bots(self, table: Table[Session], spawn: list[tuple[int, str, str]]) -> None:
        """Start a ``kaitaku bot`` process for each reserved bot seat."""
        if not self.spawn_bots:
            return
        for seat, kind, key in spawn:
            self._spawn(self._run_bot_process(table.id, seat, kind, key))

    async def _run_bot_process(self, table_id: str, seat: int, kind: str, key: str) -> None:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        cmd = [sys.executable, "-m", "kaitaku", "bot", "--connect", f"{host}:{self.port}",
               "--bot", kind, "--table", table_id, "--seat", str(seat), f"--key={key}",
               "--name", f"{kind}-bot {seat + 1}"]  # --key=: a key may start with "-"
        env = dict(os.environ)
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, env=env)
        self.bot_processes.append(proc)
        log.info("table %s: started %s bot for seat %d (pid %d)", table_id, kind, seat, proc.pid)
        _, err = await proc.communicate()
        if proc.returncode not in (0, None, -15):
            log.warning("bot for table %s seat %d exited %s: %s", table_id, seat,
                        proc.returncode, err.decode(errors="replace")[-500:])
