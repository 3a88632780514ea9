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
from typing import TYPE_CHECKING, Any

from protocol.wire import (
    PROTOCOL_VERSION,
    SERVER,
    VERSION_STRING,
    Connection,
    ConnPhase,
    LocalProtocolError,
    RemoteProtocolError,
    compatible,
    parse_version,
)

if TYPE_CHECKING:
    from .app import Server
    from .table import Table

log = logging.getLogger("kaitaku.session")

OUTBOUND_LIMIT = 512
"""Frames queued for one client before it counts as not reading."""
WRITE_BUFFER_HIGH = 1 << 20
"""Bytes buffered in the transport before the writer waits for the client."""
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
READ_CHUNK = 65536


class Session:
    def __init__(self, server: Server, reader: asyncio.StreamReader,
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
        self.table: Table | None = None
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
        self.tables_created = 0
        self._allowance = BURST
        self._last_message = 0.0
        self._last_rx = 0.0
        self._watchdog: asyncio.TimerHandle | None = None
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = peer[0] if isinstance(peer, tuple) else str(peer)

    # -- sending --------------------------------------------------------------------

    def send(self, msg: dict[str, Any]) -> None:
        """Queue ``msg``; drop the client if it stopped reading."""
        if self.closed or self.conn.phase is ConnPhase.CLOSED:
            return
        try:
            data = self.conn.send(msg)
        except LocalProtocolError:
            log.exception("session %s: refused to send %s", self.id, msg.get("type"))
            return
        self._queue(data)

    def send_encoded(self, msg: dict[str, Any], data: bytes) -> None:
        """Queue a message validated and encoded once for many recipients."""
        if self.closed or self.conn.phase is ConnPhase.CLOSED:
            return
        try:
            self.conn.send_encoded(msg, data)
        except LocalProtocolError:
            log.exception("session %s: refused to send %s", self.id, msg.get("type"))
            return
        self._queue(data)

    def _queue(self, data: bytes) -> None:
        if self._blocked:
            if len(self._backlog) >= OUTBOUND_LIMIT:
                log.warning("session %s (%s): not reading, disconnecting", self.id, self.name)
                self.abort()
                return
            self._backlog.append(data)
            return
        self._pending.append(data)
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

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
        self.send({"type": "error", "code": code, "message": message})

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
        log.info("connection %s from %s", self.id, self.peer)
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
            log.info("connection %s (%s) closed", self.id, self.name)

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
            log.info("session %s: protocol error %s: %s", self.id, exc.code, exc)
            self._send_raw_error(exc.code, str(exc))
            return False
        if not self._within_rate(len(messages) + len(self.conn.stale), loop.time()):
            log.warning("session %s (%s): rate limit, disconnecting", self.id, self.name)
            self.error("rate_limited", f"more than {RATE:g} messages per second")
            return False
        for msg in messages:
            self.server.dispatch(self, msg)
            if self.closed:
                return False
        while self.conn.stale:
            late = self.conn.stale.pop(0)
            if late["type"] == "action":
                self.send({"type": "result", "seq": late["seq"], "ok": False,
                           "code": "unexpected_message",
                           "message": "not at a table with a game any more"})
            else:
                self.error("unexpected_message",
                           f"{late['type']!r} is not allowed now; it was ignored")
        return True

    def _within_rate(self, count: int, now: float) -> bool:
        """Token bucket: RATE messages a second, BURST at once."""
        self._allowance = min(BURST, self._allowance + (now - self._last_message) * RATE)
        self._last_message = now
        self._allowance -= count
        return self._allowance >= 0

    def _send_raw_error(self, code: str, message: str) -> None:
        """An error frame after the connection broke the protocol (bypasses the
        phase machine, which is closed by then)."""
        from protocol.wire import encode_frame

        self._queue(encode_frame({"type": "error", "code": code, "message": message[:500]}))

    # -- handshake ------------------------------------------------------------------

    def hello(self, msg: dict[str, Any]) -> bool:
        """Answer a hello; False when refused (the session then closes)."""
        if not compatible(msg["version"]):
            self.error("version_unsupported",
                       f"server speaks protocol {VERSION_STRING}, not {msg['version']}")
            self.closed = True
            return False
        self.name = msg["name"]
        self.role = msg["role"]
        version = parse_version(msg["version"])
        if version is not None:
            self.minor = version[1]
        self.send({"type": "welcome", "version": VERSION_STRING, "session": self.id,
                   "resume_token": self.resume_token, "server": self.server.name})
        return True
