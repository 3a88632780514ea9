"""The capped side-port HTTP server (``server.http``) as the ladder's page uses
it: served on the caller's event loop from a socket bound elsewhere, slow
answers made one at a time in a render thread with a bounded queue, headers of
its own; over real loopback TCP. (Its thread mode is the metrics port's,
tested in ``test_metrics``.)"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator, Callable

import pytest

from server.http import CappedHTTPServer, Handler, Response


async def request(port: int, path: str = "/", method: str = "GET",
                  ) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
    try:
        writer.write(f"{method} {path} HTTP/1.0\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, body


@contextlib.asynccontextmanager
async def serving(handler: Handler,
                  **caps: object) -> AsyncIterator[tuple[int, asyncio.Task[None]]]:
    """``handler`` served on this loop from a socket bound here."""
    sock = socket.create_server(("127.0.0.1", 0))
    server = CappedHTTPServer(handler, sock=sock, name="test", **caps)  # type: ignore[arg-type]
    assert server.port == sock.getsockname()[1]
    task = asyncio.ensure_future(server.serve())
    try:
        yield server.port, task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_served_on_the_callers_loop_with_its_headers_and_dropped_when_cancelled() -> None:
    def handler(path: str) -> Response | None:
        if path == "/file":
            return Response(200, "application/json", b'{"a": 1}',
                            (("Content-Disposition", "attachment"),))
        return Response(200, "text/plain", path.encode()) if path == "/" else None

    async with serving(handler, headers=[("Content-Security-Policy", "default-src 'none'")],
                       rate=None) as (port, task):
        status, headers, body = await request(port, "/file?x=1")
        assert (status, body) == (200, b'{"a": 1}')
        assert headers["content-disposition"] == "attachment"
        assert headers["content-security-policy"] == "default-src 'none'"
        assert headers["connection"] == "close" and headers["content-length"] == "8"
        status, headers, body = await request(port, "/file", "HEAD")
        assert (status, body, headers["content-length"]) == (200, b"", "8")
        assert headers["content-disposition"] == "attachment"
        status, headers, _ = await request(port, "/nothing")
        assert status == 404 and headers["content-security-policy"] == "default-src 'none'"
        assert (await request(port, "/", "POST"))[0] == 405
        # No rate: more requests than the default bucket holds are all answered.
        answers = [await request(port) for _ in range(30)]
        assert all(a[0] == 200 and a[2] == b"/" for a in answers)
        idle = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert await asyncio.wait_for(idle[0].read(), 5) == b""  # dropped at once
        idle[1].close()
        with pytest.raises(OSError):
            await request(port)  # the socket is closed


async def test_slow_answers_are_made_one_at_a_time_and_a_full_queue_gets_503() -> None:
    go = threading.Event()
    loop_thread = threading.get_ident()
    made: list[tuple[str, int]] = []
    running = 0
    most = 0
    lock = threading.Lock()

    def slow(path: str) -> Callable[[], Response]:
        def render() -> Response:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            go.wait(10)
            with lock:
                running -= 1
            made.append((path, threading.get_ident()))
            return Response(200, "text/plain", path.encode())
        return render

    asked: list[str] = []

    def handler(path: str) -> Response | Callable[[], Response]:
        asked.append(path)  # on the loop: the render is queued at once
        return Response(200, "text/plain", b"made") if path == "/made" else slow(path)

    async with serving(handler, renders=2, rate=None) as (port, _):
        waiting = [asyncio.ensure_future(request(port, f"/{i}")) for i in range(2)]
        while len(asked) < 2 or running < 1:  # both taken: one being made, one waiting
            await asyncio.sleep(0.01)
        status, _, body = await request(port, "/third")
        assert status == 503 and b"busy" in body
        assert (await request(port, "/made"))[0] == 200  # made answers are not queued
        go.set()
        answers = await asyncio.gather(*waiting)
        assert [(s, b) for s, _, b in answers] == [(200, b"/0"), (200, b"/1")]
        assert most == 1 and {t for _, t in made} != {loop_thread}
        assert (await request(port, "/again"))[0] == 200  # the queue is free again


async def test_a_failing_handler_is_answered_500_logged_once_and_the_port_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    def handler(path: str) -> Response | Callable[[], Response]:
        if path == "/bug":
            raise RuntimeError("a bug")
        if path == "/slow-bug":
            return lambda: 1 / 0  # type: ignore[return-value]
        return Response(200, "text/plain", b"ok")

    with caplog.at_level(logging.ERROR, "kaitaku.http"):
        async with serving(handler, renders=4) as (port, _):
            for path in ("/bug", "/slow-bug", "/bug"):
                status, _, body = await request(port, path)
                assert status == 500 and b"failed" in body
            assert (await request(port, "/"))[0] == 200
    failures = [r for r in caplog.records if "request failed" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None  # one line a minute
