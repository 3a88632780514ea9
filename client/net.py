"""The client's network side: one server connection run in a background thread.

:class:`NetClient` owns an asyncio event loop in a daemon thread and speaks
the protocol through :class:`protocol.wire.Connection` (framing, validation,
the phase machine). The UI thread talks to it with two calls only:
:meth:`NetClient.send` (thread-safe, never blocks) and :meth:`NetClient.poll`
(the messages received since the last poll). Besides the server's messages,
``poll`` returns ``{"type": "_status", "state": ..., "detail": ..., "attempt":
n}`` notices (``connecting``, ``online``, ``reconnecting``, ``offline``) that
:class:`client.model.ClientModel` understands.

What it does by itself:

- fills the ``seq`` of every ``action`` (increasing; above ``joined.last_seq``
  after a resume);
- answers pings, and pings a silent server (a dead link is noticed even
  without a TCP reset);
- when the connection drops after it was once online, reconnects with
  exponential backoff and says ``hello`` with the ``resume`` token from the
  last ``welcome`` and ``seen`` = the last event version received, so the
  server seats it again and sends what it missed; a spectator spectates the
  same table again;
- with a :class:`client.state_file.StateFile` (``state=``, as the window uses
  it), stores the seat's resume token per server address and presents it in
  the first ``hello`` of a new NetClient (without ``seen``: the server sends
  the whole view), so a restarted window takes its seat back; a token the
  server refuses (``bad_resume``) is dropped quietly and the client stays in
  the lobby; the entry goes when the game is over or the seat is left
  (``state_key`` files it under another key than ``host:port``; with
  ``reclaim=False`` the token is stored but the first hello does not present it);
- gives up (``offline``) with a clear reason on a refused first connection,
  ``version_unsupported``, ``replaced``, or too many failed attempts;
- does not trust the server: a message it cannot read ends the connection
  with a reason that says so, and the inbox is bounded (:data:`MAX_INBOX`
  messages, :data:`MAX_INBOX_BYTES` bytes): while the UI does not poll, the
  connection stops reading (the server then treats it as a slow reader), so a
  flooding server cannot make the window's memory grow;
- speaks TLS with ``tls=`` (an :class:`ssl.SSLContext`, see :mod:`bots.tls`).

This module never imports pygame (tests check that).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import ssl
import threading
import time
from collections import deque

from protocol.wire import (
    CLIENT,
    VERSION_STRING,
    Connection,
    ConnPhase,
    LocalProtocolError,
    Message,
    RemoteProtocolError,
    compatible,
)

from .state_file import StateFile

STATUS = "_status"
CONNECTING, ONLINE, RECONNECTING, OFFLINE = "connecting", "online", "reconnecting", "offline"
DEFAULT_PORT = 7878

#: error codes after which reconnecting would not help
FATAL_CODES = frozenset({"version_unsupported", "replaced", "banned", "kicked"})
MAX_INBOX = 2048
"""Messages waiting for the UI's poll before the connection stops reading."""
MAX_INBOX_BYTES = 4 << 20
"""Bytes of frames waiting for the UI's poll before the connection stops reading."""


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"host:port"``, ``"host"``, ``"[::1]:7878"`` → (host, port); ValueError if bad."""
    text = text.strip()
    if not text:
        raise ValueError("empty address")
    host, port_text = text, ""
    if text.startswith("["):  # [IPv6]:port
        end = text.find("]")
        if end < 0:
            raise ValueError(f"bad address {text!r}")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"bad address {text!r}")
            port_text = rest[1:]
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    if not host:
        raise ValueError(f"bad address {text!r}: no host")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"bad port {port_text!r}")
    return host, int(port_text)


def describe_error(exc: BaseException) -> str:
    """A short human reason for a connection failure."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the server running?)"
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, RemoteProtocolError):
        return f"protocol error ({exc.code}): {exc}"
    text = str(exc) or type(exc).__name__
    return text


def error_kind(exc: BaseException) -> str:
    """The kind of a connection failure, for the window's words (``status.why.*``):
    refused, unknown_host, timed_out, reset, protocol or lost."""
    if isinstance(exc, ConnectionRefusedError):
        return "refused"
    if isinstance(exc, socket.gaierror):
        return "unknown_host"
    if isinstance(exc, TimeoutError):
        return "timed_out"
    if isinstance(exc, ConnectionResetError):
        return "reset"
    if isinstance(exc, RemoteProtocolError):
        return "protocol"
    return "lost"


class _Dropped(Exception):
    """The current connection ended; ``fatal``: do not reconnect; ``kind``: as
    :func:`error_kind` says it."""

    def __init__(self, reason: str, fatal: bool = False, kind: str = "lost") -> None:
        super().__init__(reason)
        self.reason = reason
        self.fatal = fatal
        self.kind = kind


class NetClient:
    """A connection to a Kaitaku server, run in its own thread.

    ``NetClient(host, port, name)``; :meth:`start`; then each frame
    :meth:`poll` for what arrived and :meth:`send` what the user wants.
    :meth:`close` says ``bye`` and stops the thread.
    """

    def __init__(self, host: str, port: int, name: str, role: str = "player", *,
                 reconnect: bool = True, max_attempts: int = 30,
                 backoff: tuple[float, float] = (0.25, 5.0), connect_timeout: float = 5.0,
                 keepalive: float = 15.0, dead_after: float = 45.0,
                 version: str = VERSION_STRING, state: StateFile | None = None,
                 state_key: str | None = None, reclaim: bool = True,
                 tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.tls = tls
        self.port = port
        self.name = name
        self.role = role
        self.reconnect = reconnect
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.connect_timeout = connect_timeout
        self.keepalive = keepalive
        self.dead_after = dead_after
        self.version = version
        # shared between the threads (under the lock)
        self._lock = threading.Lock()
        self._inbox: list[Message] = []
        self._inbox_bytes = 0  # frame bytes behind the messages in the inbox
        self._full = False  # the reader waits for the UI to poll
        self._outbox: deque[Message] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closing = False  # close() was called
        self._stopped = False  # gave up (offline)
        # the loop thread's own state
        self._wake: asyncio.Event | None = None
        self._room: asyncio.Event | None = None  # set when the UI polled a full inbox
        self._main_task: asyncio.Task[None] | None = None
        self._conn: Connection | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._ready = False  # handshake (and resume) done: the outbox may be sent
        self._expect_join = False  # a resume or re-spectate is pending
        self._last_rx = 0.0
        self._ping_sent = False
        # what survives a reconnect
        self.token: str | None = None  # the resume token of the last welcome
        self.seen = 0  # the last event version received
        self.seq = 0  # the last action sequence number used
        self.table: str | None = None
        self.seat: int | None = None
        self.table_status: str | None = None
        self.attempt = 0
        self.online = False
        self.ever_online = False
        # the seat to reclaim after a restart of the client (see client/state_file.py)
        self.state = state
        self.state_key = state_key or self.address
        self._stored = False  # the first hello presents a token from the state file
        if state is not None and role == "player" and reclaim:
            stored = state.get(self.state_key)
            if stored is not None and not stored.held_elsewhere():
                self.token, self.table, self.seat = stored.token, stored.table, stored.seat
                self._stored = True

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    # -- the UI thread's side -------------------------------------------------------

    def start(self) -> None:
        """Connect in a background (daemon) thread."""
        if self._thread is not None:
            raise RuntimeError("NetClient.start() called twice")
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._wake = asyncio.Event()
            self._room = asyncio.Event()
            self._main_task = loop.create_task(self._main())
            ready.set()
            try:
                loop.run_until_complete(self._main_task)
            except asyncio.CancelledError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(target=run, name=f"kaitaku-net-{self.address}",
                                        daemon=True)
        self._thread.start()
        ready.wait(5.0)

    def send(self, msg: Message) -> None:
        """Queue ``msg`` for the server (any thread; never blocks).

        Messages wait while the client connects or reconnects and go out in
        order once it is online. An ``action`` gets its ``seq`` when it is sent.
        """
        with self._lock:
            if self._closing or self._stopped:
                return
            self._outbox.append(dict(msg))
        self._kick()

    def poll(self) -> list[Message]:
        """The messages (and ``_status`` notices) received since the last poll."""
        with self._lock:
            out, self._inbox = self._inbox, []
            self._inbox_bytes = 0
            full, self._full = self._full, False
        if full:  # the reader waits for room
            loop, room = self._loop, self._room
            if loop is not None and room is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(room.set)
        return out

    def close(self, timeout: float = 2.0) -> None:
        """Say bye, close the connection and stop the thread."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._outbox.clear()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._shutdown)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        """The background thread runs (False after close or when it gave up)."""
        return self._thread is not None and self._thread.is_alive()

    # -- helpers shared by both threads ----------------------------------------------

    def _kick(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(wake.set)

    def _emit(self, msg: Message) -> None:
        with self._lock:
            self._inbox.append(msg)

    def _status(self, state: str, detail: str = "", why: str = "") -> None:
        self._emit({"type": STATUS, "state": state, "detail": detail, "attempt": self.attempt,
                    "why": why})

    # -- the loop thread ---------------------------------------------------------------

    def _shutdown(self) -> None:
        conn, writer = self._conn, self._writer
        if conn is not None and writer is not None and conn.phase not in (
                ConnPhase.HANDSHAKE, ConnPhase.CLOSED):
            with contextlib.suppress(Exception):
                writer.write(conn.send({"type": "bye", "reason": "client closed"}))
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
        if self._main_task is not None:
            self._main_task.cancel()

    async def _main(self) -> None:
        self._status(CONNECTING, self.address)
        try:
            while not self._closing:
                try:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection(self.host, self.port, ssl=self.tls),
                        self.connect_timeout)
                except (OSError, TimeoutError) as exc:
                    if not await self._retry(describe_error(exc), error_kind(exc)):
                        return
                    continue
                try:
                    await self._session(reader, writer)
                except _Dropped as drop:
                    if drop.fatal:
                        self._offline(drop.reason)
                        return
                    if not await self._retry(drop.reason, drop.kind):
                        return
        except asyncio.CancelledError:
            pass
        finally:
            self.online = False
            if self._writer is not None:
                with contextlib.suppress(Exception):
                    self._writer.close()
            if self._closing and not self._stopped:
                self._status(OFFLINE, "closed")

    async def _retry(self, reason: str, kind: str = "lost") -> bool:
        """After a failure: wait and return True to try again, or go offline."""
        self.online = False
        self._ready = False
        if self._closing:
            return False
        if not self.ever_online:
            self._offline(f"cannot connect to {self.address}: {reason}")
            return False
        if not self.reconnect:
            self._offline(f"connection lost: {reason}")
            return False
        self.attempt += 1
        if self.attempt > self.max_attempts:
            self._offline(f"gave up after {self.max_attempts} attempts: {reason}")
            return False
        self._status(RECONNECTING, f"attempt {self.attempt}: {reason}", kind)
        low, high = self.backoff
        delay = min(high, low * 2 ** (self.attempt - 1)) * random.uniform(0.8, 1.2)
        await asyncio.sleep(delay)
        return not self._closing

    def _offline(self, detail: str) -> None:
        self.online = False
        with self._lock:
            self._stopped = True
            self._outbox.clear()
        self._status(OFFLINE, detail)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Run one connection until it ends (raises :class:`_Dropped`)."""
        conn = Connection(CLIENT)
        self._conn, self._writer = conn, writer
        self._ready = False
        self._expect_join = False
        self._ping_sent = False
        self._last_rx = time.monotonic()
        hello: Message = {"type": "hello", "version": self.version, "role": self.role,
                          "name": self.name}
        resuming = self.token is not None and self.seat is not None and self.table is not None
        if resuming:
            hello["resume"] = self.token
            if not self._stored:  # from the state file: no seen, the server sends a view
                hello["seen"] = self.seen
        writer.write(conn.send(hello))
        tasks = [asyncio.create_task(self._read(reader)),
                 asyncio.create_task(self._write()),
                 asyncio.create_task(self._keep_alive())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                exc = task.exception()
                if exc is not None:
                    raise exc
            raise _Dropped("connection closed", kind="closed")
        except _Dropped:
            raise
        except RemoteProtocolError as exc:
            raise _Dropped(describe_error(exc), kind=error_kind(exc)) from exc
        except (OSError, ConnectionError) as exc:
            raise _Dropped(describe_error(exc), kind=error_kind(exc)) from exc
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                writer.close()
            self._conn = self._writer = None
            self.online = False

    async def _read(self, reader: asyncio.StreamReader) -> None:
        conn = self._conn
        assert conn is not None
        while True:
            await self._wait_for_room()
            data = await reader.read(65536)
            if not data:
                raise _Dropped("the server closed the connection", kind="closed")
            self._last_rx = time.monotonic()
            self._ping_sent = False
            for msg in conn.receive_data(data):
                try:
                    self._on_message(msg)
                except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                    raise _Dropped(f"the server sent a malformed {msg.get('type')!r} message "
                                   f"({exc!r:.200})") from exc
            with self._lock:
                self._inbox_bytes += len(data)
            if conn.phase is ConnPhase.CLOSED:
                raise _Dropped("the server closed the connection", kind="closed")

    async def _wait_for_room(self) -> None:
        """Wait while the inbox is full (the UI has not polled): the socket is not
        read meanwhile, so memory stays bounded whatever the server sends."""
        room = self._room
        assert room is not None
        while True:
            with self._lock:
                full = len(self._inbox) >= MAX_INBOX or self._inbox_bytes >= MAX_INBOX_BYTES
                self._full = full
            if not full:
                return
            room.clear()
            await room.wait()
            self._last_rx = time.monotonic()  # the silence was ours, not the server's

    def _on_message(self, msg: Message) -> None:
        kind = msg["type"]
        if kind == "ping":
            self._send_now({"type": "pong", "nonce": msg.get("nonce")})
            return
        if kind == "pong":
            return
        if (kind == "error" and msg["code"] == "bad_resume" and self._stored
                and self._expect_join):
            # a stale token from the state file: forget it and carry on in the lobby
            # (the connection stays open; nothing to tell the user)
            self._stored = False
            self._forget_seat()
            self.table = self.seat = self.table_status = None
            self._expect_join = False
            self._set_ready()
            return
        if kind in ("game_over", "left"):  # before the UI sees it (it may close at once)
            self._forget_seat()
        self._emit(msg)
        if kind == "welcome":
            if not compatible(msg["version"]):
                raise _Dropped(f"the server speaks protocol {msg['version']}, this client "
                               f"{VERSION_STRING}", fatal=True)
            self.token = msg["resume_token"]
            self.online = self.ever_online = True
            attempts, self.attempt = self.attempt, 0
            self._status(ONLINE, f"reconnected after {attempts} attempt(s)" if attempts else "")
            if self.table is not None and self.seat is not None:
                self._expect_join = True  # the hello carried the resume token
            elif self.table is not None:  # a spectator watches again
                self._expect_join = True
                self._send_now({"type": "spectate", "table": self.table})
            else:
                self.table_status = None
                self._set_ready()
        elif kind == "joined":
            if msg["table"] != self.table:
                self.seen = 0
            self.table = msg["table"]
            self.seat = msg.get("seat")
            self.seq = max(self.seq, msg.get("last_seq") or 0)
            if self._expect_join:
                self._expect_join = False
                self._set_ready()
            self._stored = False
            self._remember_seat()
        elif kind == "table":
            if msg["table"] == self.table:
                self.table_status = msg["status"]
        elif kind == "left":
            self.table = self.seat = self.table_status = None
            self.seen = 0
        elif kind in ("view", "events"):
            self.seen = max(self.seen, msg["version"])
        elif kind == "error":
            code = msg["code"]
            assert self._conn is not None
            if self._conn.phase is ConnPhase.CLOSED:  # refused in the handshake
                raise _Dropped(f"{code}: {msg.get('message', '')}",
                               fatal=code in FATAL_CODES or not self.ever_online)
            if code in FATAL_CODES:
                raise _Dropped(f"{code}: {msg.get('message', '')}", fatal=True)
            if self._expect_join and code in ("bad_resume", "no_such_table"):
                # the seat (or table) is gone: back to the lobby, or sit down again
                # at a table that had not started
                table, status = self.table, self.table_status
                self.table = self.seat = self.table_status = None
                self._expect_join = False
                if code == "bad_resume" and table is not None and status == "waiting":
                    self._expect_join = True
                    self._send_now({"type": "join", "table": table})
                else:
                    self._set_ready()
            elif self._expect_join and code in ("table_full", "seat_taken"):
                self._expect_join = False
                self._set_ready()
        elif kind == "bye":
            raise _Dropped(f"the server said bye: {msg.get('reason') or 'no reason'}")

    def _remember_seat(self) -> None:
        """Store the seat's resume token (a player's seat only)."""
        if (self.state is not None and self.token is not None and self.table is not None
                and self.seat is not None):
            self.state.put(self.state_key, self.token, self.table, self.seat)

    def _forget_seat(self) -> None:
        if self.state is not None:
            self.state.drop(self.state_key)

    def _set_ready(self) -> None:
        self._ready = True
        if self._wake is not None:
            self._wake.set()

    def _send_now(self, msg: Message) -> None:
        conn, writer = self._conn, self._writer
        if conn is None or writer is None:
            return
        try:
            writer.write(conn.send(msg))
        except LocalProtocolError as exc:
            self._emit({"type": "error", "code": exc.code or "unexpected_message",
                        "message": f"not sent ({msg.get('type')}): {exc}"})

    async def _write(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            await wake.wait()
            wake.clear()
            if not self._ready or self._conn is None or self._writer is None:
                continue
            while True:
                with self._lock:
                    if not self._outbox:
                        break
                    msg = self._outbox.popleft()
                if msg.get("type") == "action":
                    self.seq += 1
                    msg["seq"] = self.seq
                self._send_now(msg)
                if self._conn.phase is ConnPhase.CLOSED:  # we sent bye
                    raise _Dropped("closed by the client", fatal=True)
            await self._writer.drain()

    async def _keep_alive(self) -> None:
        """Ping a silent server; drop a connection that stays silent."""
        step = max(0.05, min(self.keepalive, self.dead_after) / 4)
        nonce = 0
        while True:
            await asyncio.sleep(step)
            if self._full:  # not reading (the UI is behind): the silence is ours
                continue
            quiet = time.monotonic() - self._last_rx
            if quiet >= self.dead_after:
                raise _Dropped(f"no answer from the server for {quiet:.0f} s", kind="timed_out")
            if quiet >= self.keepalive and not self._ping_sent and self._ready:
                nonce += 1
                self._ping_sent = True
                self._send_now({"type": "ping", "nonce": nonce})
