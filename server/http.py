"""A small read-only HTTP server with caps, for side ports (the metrics).

It runs in a thread of its own with its own event loop: whatever a client
does to it (floods, slow requests, half-open connections) costs that thread
and never the game loop. What it may spend is capped:

* connections per address and in all, counted from ``accept`` (one over a
  cap is closed at once, before anything is read);
* one deadline for the whole request: reading the request head (at most
  :data:`MAX_HEAD` bytes), answering and sending the answer;
* requests per second in all (a token bucket: a flood of requests costs the
  process accepting and closing, not answering);
* one request per connection (``Connection: close``), ``GET`` and ``HEAD``
  only; everything else gets a short error status.

Per-request failures are logged as one short line per kind and interval
(:class:`server.logs.IntervalLog`). ``handler(path)`` is called in the HTTP
thread: it must only read what is safe to read from another thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .listen import accept_forever
from .logs import IntervalLog

log = logging.getLogger("kaitaku.http")

MAX_HEAD = 8192
"""Bytes of request line and headers read at most."""
ERROR_LOG_INTERVAL = 60.0
"""Seconds between two log lines about the same kind of failed request."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    content_type: str
    body: bytes


Handler = Callable[[str], "Response | None"]
"""``handler(path)``: the answer to ``GET path`` (None: 404)."""

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            408: "Request Timeout", 431: "Request Header Fields Too Large",
            500: "Internal Server Error", 503: "Service Unavailable"}


class CappedHTTPServer:
    """``CappedHTTPServer(handler, host, port).start()`` … ``stop()``."""

    def __init__(self, handler: Handler, host: str, port: int, *, name: str = "http",
                 max_connections: int = 32, max_per_address: int = 4,
                 deadline: float = 5.0, rate: float = 20.0) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.name = name
        self.max_connections = max_connections
        self.max_per_address = max_per_address
        self.deadline = deadline
        self.rate = rate
        self._allowance = rate
        self._last = 0.0
        self.refused = 0
        """Connections closed at once for being over a cap (read from any thread)."""
        self.served = 0
        """Requests answered (any status)."""
        self._open: Counter[str] = Counter()
        self._open_total = 0
        self._errors = IntervalLog(log, ERROR_LOG_INTERVAL)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._stopped: asyncio.Event | None = None

    def start(self) -> None:
        """Bind (an address in use raises OSError here), then serve in a thread."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.create_server((self.host, self.port), family=family, backlog=64)
        self._sock = sock
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(sock, ready),
                                        name=f"kaitaku-{self.name}", daemon=True)
        self._thread.start()
        ready.wait(10)

    def _run(self, sock: socket.socket, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve(sock, ready))
        finally:
            loop.close()

    async def _serve(self, sock: socket.socket, ready: threading.Event) -> None:
        self._stopped = asyncio.Event()
        sock.setblocking(False)
        accepting = asyncio.create_task(accept_forever(sock, self._connection, MAX_HEAD,
                                                       self.name))
        ready.set()
        await self._stopped.wait()
        accepting.cancel()
        sock.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else str(peer)
        now = asyncio.get_running_loop().time()
        self._allowance = min(self.rate, self._allowance + (now - self._last) * self.rate)
        self._last = now
        if (self._open_total >= self.max_connections or self._allowance < 1
                or self._open[address] >= self.max_per_address):
            self.refused += 1
            self._errors("cap", logging.WARNING, "%s port: refused a connection from %s "
                         "(over the connection caps)", self.name, address)
            writer.transport.abort()
            return
        self._allowance -= 1
        self._open[address] += 1
        self._open_total += 1
        try:
            async with asyncio.timeout(self.deadline):
                await self._request(reader, writer, address)
        except TimeoutError:
            self._errors("timeout", logging.INFO, "%s port: a request from %s took longer "
                         "than %g s; dropped", self.name, address, self.deadline)
        except (ConnectionError, OSError):
            pass
        except Exception:  # a bug in the handler: logged, the port goes on
            self._errors("bug", logging.ERROR, "%s port: a request failed", self.name,
                         exc_info=True)
        finally:
            self._open_total -= 1
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]
            writer.close()

    async def _request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       address: str) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            await self._answer(writer, Response(431, "text/plain", b"request too large\n"),
                               head_only=False)
            return
        except asyncio.IncompleteReadError:
            return  # closed before a whole request
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self._errors("bad", logging.INFO, "%s port: a malformed request from %s",
                         self.name, address)
            await self._answer(writer, Response(400, "text/plain", b"bad request\n"))
            return
        method, target = parts[0], parts[1]
        if method not in ("GET", "HEAD"):
            await self._answer(writer, Response(405, "text/plain", b"GET only\n"))
            return
        path = target.split("?", 1)[0]
        answer = self.handler(path) or Response(404, "text/plain", b"not found\n")
        await self._answer(writer, answer, head_only=method == "HEAD")

    async def _answer(self, writer: asyncio.StreamWriter, resp: Response,
                      head_only: bool = False) -> None:
        reason = _REASONS.get(resp.status, "")
        head = (f"HTTP/1.1 {resp.status} {reason}\r\nContent-Type: {resp.content_type}\r\n"
                f"Content-Length: {len(resp.body)}\r\nConnection: close\r\n"
                "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n")
        writer.write(head.encode("latin-1") + (b"" if head_only else resp.body))
        await writer.drain()
        self.served += 1
