"""Listening sockets and an accept loop that survives running out of descriptors.

asyncio's own accept loop, when ``accept()`` fails for lack of descriptors
or memory, reports the failure and schedules a retry once per pending
connection (up to its backlog of 100 each time) and logs a traceback each
time; the retries it scheduled fire on a closed socket after the server
stops. :func:`accept_forever` instead waits a moment and tries again, and
says so in one log line per :data:`ACCEPT_LOG_INTERVAL` with a count.

Each accepted socket is handed to ``on_connection(reader, writer)`` as an
asyncio stream pair, exactly as ``asyncio.start_server`` would (its writer
may be upgraded to TLS with ``writer.start_tls``).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import Awaitable, Callable

from .logs import ACCEPT_LOG_INTERVAL, IntervalLog

log = logging.getLogger("kaitaku.listen")

BACKLOG = 512
"""Connections the kernel holds for us while we are busy (or out of descriptors)."""
RETRY = 0.25
"""Seconds before accepting again after ``accept()`` ran out of a resource."""
_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)

OnConnection = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def bind(host: str, port: int, backlog: int = BACKLOG) -> list[socket.socket]:
    """Listening sockets for ``host`` (a name may give several addresses:
    ``localhost`` is 127.0.0.1 and ::1; ``""``: every address), all on one
    port (``0``: a free one, the same for all). Non-blocking; raises OSError."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(socks) > 1:  # the port the first one got
                address = (address[0], socks[0].getsockname()[1], *address[2:])
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks


async def accept_forever(sock: socket.socket, on_connection: OnConnection,
                         limit: int = 2 ** 16, name: str = "game") -> None:
    """Accept connections on ``sock`` until cancelled; each runs
    ``on_connection`` in a task of its own (a StreamReader of ``limit``)."""
    loop = asyncio.get_running_loop()
    failures = IntervalLog(log, ACCEPT_LOG_INTERVAL)
    while True:
        try:
            conn, _ = await loop.sock_accept(sock)
        except OSError as exc:
            if exc.errno in _RESOURCES:
                failures("resources", logging.WARNING, "%s port: accept() fails (%s); new "
                         "connections wait in the backlog until it works again", name, exc)
                await asyncio.sleep(RETRY)
                continue
            if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM, errno.EAGAIN):
                continue  # that connection is gone already (or a firewall said no)
            failures("other", logging.ERROR, "%s port: accept() fails: %s", name, exc)
            await asyncio.sleep(RETRY)
            continue
        conn.setblocking(False)
        reader = asyncio.StreamReader(limit=limit)
        protocol = asyncio.StreamReaderProtocol(reader, on_connection)
        try:
            await loop.connect_accepted_socket(lambda p=protocol: p, conn)  # type: ignore[misc]
        except OSError:
            conn.close()
