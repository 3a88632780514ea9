"""One client connection: the protocol state, an outbound queue, the reader loop.

The acting seat of every action is the seat this session holds, never a
field of the message. Outbound messages go through a bounded queue drained
by a writer task: a client that does not read is disconnected instead of
slowing its table down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import TYPE_CHECKING, Any, Protocol

from protocol.wire import (
    PROTOCOL_VERSION,
    SERVER,
    VERSION_STRING,
    Connection,
    ConnPhase,
    LocalProtocolError,
    RemoteProtocolError,
    clean_text,
    clip,
    compatible,
    encode_frame,
    parse_version,
)
from protocol.wire.messages import MAX_NAME, MAX_TEXT

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("kaitaku.session")

OUTBOUND_LIMIT = 512
"""Frames queued for one client before it counts as not reading."""
WRITE_BUFFER_HIGH = 1 << 20
"""Bytes buffered in the transport before the writer waits for the client."""
SPECTATOR_FLUSH = 0.05
"""Seconds a spectator's frames may wait to go out together."""
HANDSHAKE_DEADLINE = 10.0
"""Seconds from accept to a hello."""
IDLE_PING = 30.0
"""Seconds of silence after which the server pings the client."""
IDLE_TIMEOUT = 90.0
"""Seconds of silence after which the server closes (a ping was not answered)."""
RATE = 1000.0
"""Messages per second a client may send, sustained (a token bucket)..."""
BURST = 2000.0
"""...with this many in a burst."""
HISTORY_PER_MESSAGE = 20
"""Event batches of a table's history sent to an arriving client that count as
one message it sent, for the rate limit."""
FRAME_DEADLINE = 10.0
"""Seconds a client may take to finish a frame it started (a parked partial
frame would hold its buffer for ever)."""
LOG_RATE = 2.0
"""Log lines a second one connection may cause, sustained..."""
LOG_BURST = 20.0
"""...with this many at once; the rest are counted and reported in one line."""
READ_CHUNK = 65536


class LogLimit:
    """A token bucket for the log lines one connection causes: at most
    LOG_RATE a second (LOG_BURST at once); what is dropped is counted and
    reported with the next line that is allowed."""

    __slots__ = ("_allowance", "_last", "dropped")

    def __init__(self) -> None:
        self._allowance = LOG_BURST
        self._last = 0.0
        self.dropped = 0

    def allow(self, now: float) -> bool:
        self._allowance = min(LOG_BURST, self._allowance + (now - self._last) * LOG_RATE)
        self._last = now
        if self._allowance < 1:
            self.dropped += 1
            return False
        self._allowance -= 1
        return True


class Host(Protocol):
    """What a session needs from the server that accepted it."""

    name: str

    def dispatch(self, sess: Session, msg: dict[str, Any]) -> None:
        """Handle one validated message from ``sess``."""

    def before_write(self) -> None:
        """Called before any bytes go to a client (the durable log commits here)."""

    def forget(self, sess: Session) -> None:
        """``sess`` has ended."""


class Session:
    def __init__(self, server: Host, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.conn = Connection(SERVER)
        self.id = secrets.token_hex(8)
        self.resume_token = secrets.token_urlsafe(24)
        self.name = "?"
        self.role = "player"
        self.minor = PROTOCOL_VERSION[1]
        """The minor protocol version the client said hello with (what it knows)."""
        self.table: Table[Session] | None = None
        self.seat: int | None = None
        # Outbound frames: collected during one turn of the event loop and
        # written with one transport.write at its end; while the transport
        # holds more than WRITE_BUFFER_HIGH bytes (the client reads too
        # slowly) they wait in the backlog, at most OUTBOUND_LIMIT of them.
        self._pending: list[bytes] = []
        self._flush_handle: asyncio.Handle | None = None
        self._blocked = False
        self._backlog: list[bytes] = []
        self._drainer: asyncio.Task[None] | None = None
        self.closed = False
        self._allowance = BURST
        self._last_message = 0.0
        self._last_rx = 0.0
        self._watchdog: asyncio.TimerHandle | None = None
        self._frame_timer: asyncio.TimerHandle | None = None
        self._log_limit = LogLimit()
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = peer[0] if isinstance(peer, tuple) else str(peer)

    # -- logging ----------------------------------------------------------------------

    def log(self, level: int, fmt: str, *args: Any) -> None:
        """A log line about this connection (rate-limited: a client cannot flood
        the log). Quote what the client sent with %r."""
        if not log.isEnabledFor(level):
            return
        if not self._log_limit.allow(asyncio.get_running_loop().time()):
            return
        dropped, self._log_limit.dropped = self._log_limit.dropped, 0
        if dropped:
            fmt += " (%d earlier lines about this connection not logged)"
            args = (*args, dropped)
        log.log(level, "session %s: " + fmt, self.id, *args)

    # -- sending --------------------------------------------------------------------

    def send(self, msg: dict[str, Any]) -> None:
        """Queue ``msg``; drop the client if it stopped reading."""
        if self.closed or self.conn.phase is ConnPhase.CLOSED:
            return
        try:
            data = self.conn.send(msg)
        except LocalProtocolError as exc:
            self.log(logging.WARNING, "not sent (%s): %r", msg.get("type"), str(exc))
            return
        self._queue(data)

    def send_encoded(self, msg: dict[str, Any], data: bytes) -> None:
        """Queue a message validated and encoded once for many recipients."""
        if self.closed or self.conn.phase is ConnPhase.CLOSED:
            return
        try:
            self.conn.send_encoded(msg, data)
        except LocalProtocolError as exc:
            self.log(logging.WARNING, "not sent (%s): %r", msg.get("type"), str(exc))
            return
        self._queue(data)

    def _queue(self, data: bytes) -> None:
        if self._blocked:
            if len(self._backlog) >= OUTBOUND_LIMIT:
                self.log(logging.WARNING, "%r is not reading; disconnecting", self.name)
                self.abort()
                return
            self._backlog.append(data)
            return
        self._pending.append(data)
        if self._flush_handle is None:
            loop = asyncio.get_running_loop()
            if self.table is not None and self.seat is None:
                # A spectator: what several actions send goes out in one write
                # (a table watched by many costs one send per spectator per
                # SPECTATOR_FLUSH, not per action); it sees the game a little later.
                self._flush_handle = loop.call_later(SPECTATOR_FLUSH, self._flush)
            else:
                self._flush_handle = loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Write what this loop turn queued, in one write."""
        self._flush_handle = None
        pending = self._pending
        if not pending:
            return
        self.server.before_write()
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        pending.clear()
        transport = self.writer.transport
        if transport.is_closing():
            return
        transport.write(data)
        if not self._blocked and transport.get_write_buffer_size() > WRITE_BUFFER_HIGH:
            self._blocked = True
            self._drainer = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        """Wait for a slow reader; then send what waited in the backlog."""
        try:
            while self._blocked:
                await self.writer.drain()
                backlog, self._backlog = self._backlog, []
                if backlog:
                    self.server.before_write()
                    self.writer.transport.write(b"".join(backlog))
                if self.writer.transport.get_write_buffer_size() <= WRITE_BUFFER_HIGH:
                    self._blocked = False
                else:
                    await asyncio.sleep(0)  # never spin without yielding
        except (ConnectionError, OSError):
            self.abort()
        finally:
            self._drainer = None
            if self.closed and not self._blocked:
                with contextlib.suppress(Exception):
                    self.writer.close()

    def error(self, code: str, message: str) -> None:
        self.send({"type": "error", "code": code, "message": clip(message, MAX_TEXT)})

    def close_soon(self) -> None:
        """Close after the frames already queued are written."""
        self.closed = True
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush()
        if not self._blocked:  # else the drainer closes once the backlog is out
            with contextlib.suppress(Exception):
                self.writer.close()

    def abort(self) -> None:
        """Close at once (queued frames are dropped)."""
        self.closed = True
        self.conn.close()
        self._pending.clear()
        self._backlog.clear()
        self._blocked = False
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        with contextlib.suppress(Exception):
            self.writer.transport.abort()
        if self._drainer is not None:
            self._drainer.cancel()

    # -- the connection's life --------------------------------------------------------

    async def run(self) -> None:
        # The transport pauses (and drain() waits) above our high-water mark.
        with contextlib.suppress(Exception):
            self.writer.transport.set_write_buffer_limits(high=WRITE_BUFFER_HIGH)
        self.log(logging.INFO, "connection from %s", self.peer)
        try:
            await self._read_loop()
        finally:
            self.close_soon()
            drainer = self._drainer
            if drainer is not None:  # a slow reader: give it a moment to take the rest
                try:
                    await asyncio.wait_for(asyncio.shield(drainer), 2.0)
                except (TimeoutError, asyncio.CancelledError):
                    self.abort()
            self.server.forget(self)
            self.log(logging.INFO, "connection of %r closed", self.name)

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HANDSHAKE_DEADLINE
        self._last_rx = self._last_message = loop.time()
        try:
            while not self.closed:
                try:
                    if self.conn.phase is ConnPhase.HANDSHAKE:
                        async with asyncio.timeout_at(deadline):
                            data = await self.reader.read(READ_CHUNK)
                    else:
                        # No timer per read: a watchdog checks for silence now and then.
                        if self._watchdog is None:
                            self._watchdog = loop.call_at(self._last_rx + IDLE_PING,
                                                          self._idle_check)
                        data = await self.reader.read(READ_CHUNK)
                except TimeoutError:
                    self.error("handshake_timeout", "no hello within the handshake deadline")
                    return
                except (ConnectionError, OSError):
                    return
                if not data:
                    return
                self._last_rx = loop.time()
                if not self._received(data, loop):
                    return
        finally:
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
            if self._frame_timer is not None:
                self._frame_timer.cancel()
                self._frame_timer = None

    def _frame_expired(self) -> None:
        """A started frame was not finished within FRAME_DEADLINE."""
        self._frame_timer = None
        if self.closed or not self.conn.partial:
            return
        self.log(logging.INFO, "a frame was not finished in %g s; closing", FRAME_DEADLINE)
        self.conn.close()
        self._send_raw_error("frame_timeout",
                             f"a frame was not finished within {FRAME_DEADLINE:g} s")
        self.close_soon()

    def _idle_check(self) -> None:
        """Ping a client that has been silent for IDLE_PING (and again every
        IDLE_PING); close it after IDLE_TIMEOUT of silence."""
        self._watchdog = None
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        quiet = now - self._last_rx
        if quiet >= IDLE_TIMEOUT:
            self.error("idle_timeout", f"nothing received for {IDLE_TIMEOUT:g} s")
            self.close_soon()  # the reader sees the end and the session ends
            return
        if quiet >= IDLE_PING - 1e-3:
            self.send({"type": "ping", "nonce": int(now)})
            when = now + IDLE_PING
        else:
            when = self._last_rx + IDLE_PING
        self._watchdog = loop.call_at(when, self._idle_check)

    def _received(self, data: bytes, loop: asyncio.AbstractEventLoop) -> bool:
        """Handle the bytes of one read: decode, check the rate, dispatch. False:
        the session ends."""
        try:
            messages = self.conn.receive_data(data)
        except RemoteProtocolError as exc:
            self.log(logging.INFO, "protocol error %s: %r", exc.code, clip(str(exc), 200))
            self._send_raw_error(exc.code, str(exc))
            return False
        # A started frame must be finished in time; every finished frame restarts the clock.
        if self._frame_timer is not None and (messages or self.conn.stale
                                              or not self.conn.partial):
            self._frame_timer.cancel()
            self._frame_timer = None
        if self.conn.partial and self._frame_timer is None:
            self._frame_timer = loop.call_later(FRAME_DEADLINE, self._frame_expired)
        if not self._within_rate(len(messages) + len(self.conn.stale), loop.time()):
            self.log(logging.WARNING, "%r is over the rate limit; disconnecting", self.name)
            self.error("rate_limited", f"more than {RATE:g} messages per second")
            return False
        for msg in messages:
            self.server.dispatch(self, msg)
            if self.closed:
                return False
        while self.conn.stale:
            late = self.conn.stale.pop(0)
            if late["type"] == "action" and self.table is not None:
                # at a table whose game has not started: the table answers
                # (game_not_started, the seq used up; a spectator: not_seated)
                self.server.dispatch(self, late)
            elif late["type"] == "action":
                self.send({"type": "result", "seq": late["seq"], "ok": False,
                           "code": "unexpected_message",
                           "message": "you are not at a table: an action needs a seat at "
                                      "a table whose game runs"})
            else:
                self.error("unexpected_message",
                           f"{late['type']!r} is not allowed now; it was ignored")
        return True

    def charge_history(self, batches: int) -> None:
        """Count a table's history this client is about to be sent against its
        rate: HISTORY_PER_MESSAGE batches weigh as much as one message it sends,
        so that joining and leaving in a loop cannot make the server send
        whole games without end (the bucket may go below zero: the client's
        next messages are then over the limit)."""
        self._allowance -= batches / HISTORY_PER_MESSAGE

    def _within_rate(self, count: int, now: float) -> bool:
        """Token bucket: RATE messages a second, BURST at once."""
        self._allowance = min(BURST, self._allowance + (now - self._last_message) * RATE)
        self._last_message = now
        self._allowance -= count
        return self._allowance >= 0

    def _send_raw_error(self, code: str, message: str) -> None:
        """An error frame after the connection broke the protocol (bypasses the
        phase machine, which is closed by then)."""
        self._queue(encode_frame({"type": "error", "code": code,
                                  "message": clip(message, MAX_TEXT)}))

    # -- handshake ------------------------------------------------------------------

    def hello(self, msg: dict[str, Any]) -> bool:
        """Answer a hello; False when refused (the session then closes)."""
        if not compatible(msg["version"]):
            self.error("version_unsupported",
                       f"server speaks protocol {VERSION_STRING}, not {msg['version']}")
            self.closed = True
            return False
        name = clean_text(msg["name"], MAX_NAME)
        if not name:
            self.error("bad_message", "hello.name has no printable character")
            self.closed = True
            return False
        self.name = name
        self.role = msg["role"]
        version = parse_version(msg["version"])
        if version is not None:
            self.minor = version[1]
        self.send({"type": "welcome", "version": VERSION_STRING, "session": self.id,
                   "resume_token": self.resume_token, "server": self.server.name})
        return True
