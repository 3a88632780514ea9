"""A small read-only HTTP server with caps, for side ports: the metrics and the
ladder's web page.

It runs one of two ways:

* ``start()`` … ``stop()``: in a thread of its own with its own event loop
  (the metrics): whatever a client does to it (floods, slow requests,
  half-open connections) costs that thread and never the game loop;
* ``await serve()``: on the caller's event loop until cancelled (the ladder's
  page, in a process of its own, on a socket its parent bound).

It binds ``host:port`` itself, or serves a listening socket it is given
(``sock=``). What it may spend is capped:

* connections per address and in all, counted from ``accept`` (one over a
  cap is closed at once, before anything is read; accepting survives running
  out of descriptors, :func:`server.listen.accept_forever`);
* one deadline for the whole request, from accept to the answer's last byte:
  reading the request head (at most :data:`MAX_HEAD` bytes), answering and
  sending the answer;
* optionally (``rate``), connections per second in all (a token bucket: a
  flood of requests costs the process accepting and closing, not answering);
* optionally (``renders``), answers that take long to make: the handler
  returns a :data:`Render` instead of a :class:`Response`, and it is called
  in one worker thread, one at a time; at most ``renders`` wait or are being
  made, one more is answered 503 at once;
* one request per connection (``Connection: close``), ``GET`` and ``HEAD``
  only; everything else gets a short error status.

Per-request failures are logged as one short line per kind and interval
(:class:`server.logs.IntervalLog`); a handler that raises is answered 500.
``handler(path)`` (the path without its query) is called on the server's
event loop, in the server's thread in thread mode: it must be quick and only
read what is safe to read from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

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
    headers: tuple[tuple[str, str], ...] = ()
    """More headers of this answer (such as ``Content-Disposition``)."""


Render = Callable[[], Response]
"""Makes an answer that takes long to make (called in the render thread)."""
Handler = Callable[[str], "Response | Render | None"]
"""``handler(path)``: the answer to ``GET path``, a :data:`Render` that makes
it, or None (404)."""

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            408: "Request Timeout", 431: "Request Header Fields Too Large",
            500: "Internal Server Error", 503: "Service Unavailable"}


def _error(status: int, text: str) -> Response:
    return Response(status, "text/plain; charset=utf-8", text.encode() + b"\n")


class CappedHTTPServer:
    """``CappedHTTPServer(handler, host, port).start()`` … ``stop()``, or
    ``await CappedHTTPServer(handler, sock=sock).serve()``."""

    def __init__(self, handler: Handler, host: str = "127.0.0.1", port: int = 0, *,
                 sock: socket.socket | None = None, name: str = "http",
                 max_connections: int = 32, max_per_address: int = 4,
                 deadline: float = 5.0, rate: float | None = 20.0, renders: int = 0,
                 headers: Sequence[tuple[str, str]] = ()) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.name = name
        self.max_connections = max_connections
        self.max_per_address = max_per_address
        self.deadline = deadline
        self.rate = rate
        self.renders = renders
        self.headers = tuple(headers)
        """Headers of every answer (such as a ``Content-Security-Policy``)."""
        self._allowance = rate or 0.0
        self._last = 0.0
        self.refused = 0
        """Connections closed at once for being over a cap (read from any thread)."""
        self.served = 0
        """Requests answered (any status)."""
        self._open: Counter[str] = Counter()
        self._open_total = 0
        self._waiting = 0
        self._errors = IntervalLog(log, ERROR_LOG_INTERVAL)
        self._sock = sock
        self._tasks: set[asyncio.Task[Any]] = set()
        self._executor: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopped: asyncio.Event | None = None
        if sock is not None:
            self.port = int(sock.getsockname()[1])

    def _listening(self) -> socket.socket:
        if self._sock is None:
            family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
            self._sock = socket.create_server((self.host, self.port), family=family,
                                              backlog=64)
            self.port = int(self._sock.getsockname()[1])
        return self._sock

    # -- on the caller's loop ---------------------------------------------------------

    async def serve(self) -> None:
        """Serve on the running event loop until cancelled (binding first
        unless given a socket); then the socket is closed and the connections
        still open are dropped."""
        sock = self._listening()
        sock.setblocking(False)
        if self.renders > 0:
            self._executor = ThreadPoolExecutor(
                1, thread_name_prefix=f"kaitaku-{self.name.replace(' ', '-')}-render")
        try:
            await accept_forever(sock, self._connection, MAX_HEAD, self.name)
        finally:
            sock.close()
            tasks = list(self._tasks)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    # -- in a thread of its own ---------------------------------------------------------

    def start(self) -> None:
        """Bind (an address in use raises OSError here), then serve in a thread."""
        self._listening()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,),
                                        name=f"kaitaku-{self.name.replace(' ', '-')}",
                                        daemon=True)
        self._thread.start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._until_stopped(ready))
        finally:
            loop.close()

    async def _until_stopped(self, ready: threading.Event) -> None:
        self._stopped = asyncio.Event()
        serving = asyncio.create_task(self.serve())
        ready.set()
        await self._stopped.wait()
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in rest:  # the loop is ours: nothing of it outlives the thread
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    # -- a connection ---------------------------------------------------------------------

    def _over_caps(self, address: str) -> bool:
        if self._open_total >= self.max_connections or self._open[address] >= self.max_per_address:
            return True
        if self.rate is None:
            return False
        now = asyncio.get_running_loop().time()
        self._allowance = min(self.rate, self._allowance + (now - self._last) * self.rate)
        self._last = now
        if self._allowance < 1:
            return True
        self._allowance -= 1
        return False

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        if self._over_caps(address):
            self.refused += 1
            self._errors("cap", logging.WARNING, "%s port: refused a connection from %s "
                         "(over the connection caps)", self.name, address)
            writer.transport.abort()
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._open[address] += 1
        self._open_total += 1
        closed = False
        try:
            async with asyncio.timeout(self.deadline):
                await self._request(reader, writer, address)
                writer.close()  # the answer's last byte is within the deadline too
                await writer.wait_closed()
                closed = True
        except TimeoutError:
            self._errors("timeout", logging.INFO, "%s port: a request from %s took longer "
                         "than %g s; dropped", self.name, address, self.deadline)
        except (ConnectionError, OSError):
            pass
        except Exception:  # a bug here: logged, the port goes on
            self._errors("bug", logging.ERROR, "%s port: a request failed", self.name,
                         exc_info=True)
        finally:
            self._open_total -= 1
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]
            if not closed:
                writer.transport.abort()
            if task is not None:
                self._tasks.discard(task)

    async def _request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       address: str) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            await self._answer(writer, _error(431, "request too large"))
            return
        except asyncio.IncompleteReadError:
            return  # closed before a whole request
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self._errors("bad", logging.INFO, "%s port: a malformed request from %s",
                         self.name, address)
            await self._answer(writer, _error(400, "bad request"))
            return
        method, target = parts[0], parts[1]
        if method not in ("GET", "HEAD"):
            await self._answer(writer, _error(405, "GET and HEAD only"))
            return
        path = target.split("?", 1)[0]
        try:
            answer = self.handler(path)
            if answer is not None and not isinstance(answer, Response):
                answer = await self._render(answer)
        except Exception:  # a bug in the handler: logged, answered, the port goes on
            self._errors("bug", logging.ERROR, "%s port: a request failed", self.name,
                         exc_info=True)
            answer = _error(500, "this failed")
        await self._answer(writer, answer or _error(404, "not found"),
                           head_only=method == "HEAD")

    async def _render(self, render: Render) -> Response:
        if self._executor is None:
            return render()
        if self._waiting >= self.renders:
            self._errors("busy", logging.WARNING, "%s port: %d answers being made; more "
                         "are answered 503", self.name, self._waiting)
            return _error(503, "busy: try again in a moment")
        self._waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, render)
        finally:
            self._waiting -= 1

    async def _answer(self, writer: asyncio.StreamWriter, resp: Response,
                      head_only: bool = False) -> None:
        reason = _REASONS.get(resp.status, "")
        head = [f"HTTP/1.1 {resp.status} {reason}", f"Content-Type: {resp.content_type}",
                f"Content-Length: {len(resp.body)}", "Connection: close",
                "Cache-Control: no-store", "X-Content-Type-Options: nosniff",
                *(f"{k}: {v}" for k, v in (*self.headers, *resp.headers))]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
                     + (b"" if head_only else resp.body))
        await writer.drain()
        self.served += 1
