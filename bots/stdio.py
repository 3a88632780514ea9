"""The ``stdio`` transport: the protocol's frames on standard input and output.

A program that has no network (a sandboxed league entry) gets its connection
to the game as its standard input and output: either one socket on both (what
``kaitaku league`` gives a sandboxed ``cmd:`` entry) or two pipes. The frames
and messages are those of TCP (docs/PROTOCOL.md, section 1.3).

:func:`open_stdio` takes both descriptors for the connection and puts
``/dev/null`` on standard input and standard error on standard output, so a
stray ``print`` of the bot goes to its error stream instead of corrupting the
frames.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import sys


class _Writing(asyncio.streams.FlowControlMixin):
    """The protocol of the writing pipe (what ``StreamWriter.wait_closed`` needs)."""

    def __init__(self) -> None:
        super().__init__()
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._closed.done():
            self._closed.set_result(None)

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        return self._closed


def _same_socket(a: int, b: int) -> bool:
    sa, sb = os.fstat(a), os.fstat(b)
    return (stat.S_ISSOCK(sa.st_mode) and (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino))


async def open_stdio(stdin: int = 0, stdout: int = 1) -> tuple[asyncio.StreamReader,
                                                               asyncio.StreamWriter]:
    """A stream pair on the process's standard input and output (file
    descriptors ``stdin`` and ``stdout``), which from now on belong to the
    connection; see the module's docstring."""
    conn_in, conn_out = os.dup(stdin), os.dup(stdout)
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, stdin)
    os.close(devnull)
    os.dup2(2, stdout)  # print() now writes to standard error
    if _same_socket(conn_in, conn_out):
        os.close(conn_out)
        sock = socket.socket(fileno=conn_in)
        return await asyncio.open_connection(sock=sock)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    protocol = asyncio.StreamReaderProtocol(reader)
    await loop.connect_read_pipe(lambda: protocol, os.fdopen(conn_in, "rb", buffering=0))
    transport, flow = await loop.connect_write_pipe(
        _Writing, os.fdopen(conn_out, "wb", buffering=0))
    writer = asyncio.StreamWriter(transport, flow, reader, loop)
    return reader, writer
