"""The admin console's server side (``kaitaku admin``; docs/HOSTING.md).

Two ways in, one protocol:

* a unix socket (``kaitaku server --admin-socket PATH``), mode 0600 in a
  directory of the server's user: whoever may open it is the server's user
  (or root); the server also checks the peer's uid (``SO_PEERCRED``);
* over TLS (``--admin-listen HOST:PORT`` with ``--admin-token-file FILE``
  and the server's certificate), for a remote admin: every request carries
  the token, compared in constant time; wrong tokens are counted per
  address and refused for a while after a few.

One request a connection: a JSON object on one line (``{"command": ...,
"args": {...}, "token": ...}``), answered by one JSON line (``{"ok": true,
"result": ...}`` or ``{"ok": false, "error": "..."}``), then the connection
closes. Connections are capped (:data:`MAX_CONNECTIONS`), a request has a
deadline, and a request line at most :data:`MAX_REQUEST` bytes. Every command
is logged (at warning level: what the host did stays in the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import socket
import ssl
import stat
import struct
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bans import BanError
from .logs import IntervalLog
from .storage import StorageError

if TYPE_CHECKING:
    from .app import Server

log = logging.getLogger("kaitaku.admin")

MAX_CONNECTIONS = 8
"""Admin connections open at once (more are closed at once)."""
MAX_REQUEST = 65536
"""Bytes of one request line."""
DEADLINE = 10.0
"""Seconds for one request: reading it, doing it, answering."""
MAX_BAD_TOKENS = 5
"""Wrong tokens from one address within BAD_TOKEN_WINDOW before it is refused..."""
BAD_TOKEN_WINDOW = 300.0
"""...for the rest of this many seconds."""
MAX_DRAIN = 7 * 86400.0
"""Longest drain deadline, in seconds."""
COMMANDS = ("status", "tables", "connections", "close-table", "kick", "ban", "unban", "bans",
            "announce", "drain")


def default_socket(port: int) -> Path:
    """``$XDG_RUNTIME_DIR/kaitaku/admin-PORT.sock`` (``/run/kaitaku`` under the
    systemd unit, which sets the runtime directory), else
    ``~/.local/share/kaitaku/admin-PORT.sock``."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    root = (Path(base) if base else
            Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"))
    return root / "kaitaku" / f"admin-{port}.sock"


def read_token(path: str | os.PathLike[str]) -> str:
    """The token in ``path`` (its first line, at least 16 characters)."""
    text = Path(path).read_text(encoding="utf-8").strip().splitlines()
    token = text[0].strip() if text else ""
    if len(token) < 16:
        raise ValueError(f"{path}: the admin token is at least 16 characters")
    return token


class AdminError(Exception):
    """A request that cannot be done; its text goes back to the admin."""


class Admin:
    """Serves the admin console for ``server``."""

    def __init__(self, server: Server, socket_path: str | os.PathLike[str] | None, *,
                 listen: tuple[str, int] | None = None, token: str | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        if listen is not None and (token is None or tls is None):
            raise ValueError("a remote admin port needs a token file and the server's TLS "
                             "certificate")
        self.server = server
        self.socket_path = Path(socket_path) if socket_path is not None else None
        self.listen = listen
        self.token = token
        self.tls = tls
        self.port: int | None = None
        self._servers: list[asyncio.base_events.Server] = []
        self._open = 0
        self._bad: dict[str, list[float]] = {}
        self._errors = IntervalLog(log, 60.0)
        self._refusals: Counter[str] = Counter()

    async def start(self) -> None:
        """Listen; raises OSError (or ValueError) with the reason if it cannot."""
        if self.socket_path is not None:
            self._servers.append(await self._unix(self.socket_path))
        if self.listen is not None:
            host, port = self.listen
            srv = await asyncio.start_server(self._remote, host, port, limit=MAX_REQUEST)
            self.port = srv.sockets[0].getsockname()[1]
            self._servers.append(srv)

    async def _unix(self, path: Path) -> asyncio.base_events.Server:
        if not path.parent.exists():
            path.parent.mkdir(parents=True, mode=0o700)
        if path.exists() or path.is_symlink():
            if not stat.S_ISSOCK(path.lstat().st_mode):
                raise ValueError(f"{path} exists and is not a socket")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(str(path))
            except OSError:
                path.unlink()  # left by a server that died: nobody listens
            else:
                raise ValueError(f"{path}: another server answers there (give "
                                 "--admin-socket another path)")
            finally:
                probe.close()
        old = os.umask(0o177)  # the socket is born 0600: no moment it is open to others
        try:
            srv = await asyncio.start_unix_server(self._local, str(path), limit=MAX_REQUEST)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        log.info("admin socket %s", path)
        return srv

    async def close(self) -> None:
        for srv in self._servers:
            srv.close()
        for srv in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(srv.wait_closed(), 2)
        self._servers = []
        if self.socket_path is not None:
            with contextlib.suppress(OSError):
                self.socket_path.unlink()

    # -- connections ------------------------------------------------------------------

    async def _local(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        uid = _peer_uid(sock) if sock is not None else None
        if uid is not None and uid not in (0, os.getuid()):
            self._errors("uid", logging.WARNING, "admin socket: refused uid %d", uid)
            writer.transport.abort()
            return
        await self._serve(reader, writer, "local", None)

    async def _remote(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else str(peer)
        now = time.monotonic()
        bad = [t for t in self._bad.get(address, []) if now - t < BAD_TOKEN_WINDOW]
        if bad:
            self._bad[address] = bad
        else:
            self._bad.pop(address, None)
        if len(bad) >= MAX_BAD_TOKENS or self._open >= MAX_CONNECTIONS:
            self._errors(address, logging.WARNING, "admin port: refused %s (%s)", address,
                         "wrong tokens" if bad else "too many connections")
            writer.transport.abort()
            return
        assert self.tls is not None
        self._open += 1
        try:
            try:
                await writer.start_tls(self.tls, ssl_handshake_timeout=DEADLINE)
            except (OSError, TimeoutError) as exc:
                self._errors("tls", logging.INFO, "admin port: TLS with %s failed: %s",
                             address, exc)
                writer.transport.abort()
                return
            await self._serve(reader, writer, address, self.token)
        finally:
            self._open -= 1

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     who: str, token: str | None) -> None:
        local = token is None
        if local:
            if self._open >= MAX_CONNECTIONS:
                writer.transport.abort()
                return
            self._open += 1
        try:
            async with asyncio.timeout(DEADLINE):
                try:
                    line = await reader.readuntil(b"\n")
                except (asyncio.LimitOverrunError, asyncio.IncompleteReadError):
                    await _reply(writer, {"ok": False, "error": "one JSON line, at most "
                                          f"{MAX_REQUEST} bytes"})
                    return
                answer = await self._request(line, who, token)
                await _reply(writer, answer)
        except (TimeoutError, ConnectionError, OSError):
            pass
        finally:
            if local:
                self._open -= 1
            writer.close()

    async def _request(self, line: bytes, who: str, token: str | None) -> dict[str, Any]:
        try:
            req = json.loads(line)
        except ValueError:
            return {"ok": False, "error": "not JSON"}
        if not isinstance(req, dict):
            return {"ok": False, "error": "a request is a JSON object"}
        if token is not None:
            given = req.get("token")
            if not isinstance(given, str) or not hmac.compare_digest(
                    given.encode("utf-8", "replace"), token.encode("utf-8")):
                self._bad.setdefault(who, []).append(time.monotonic())
                self._errors(f"token {who}", logging.WARNING,
                             "admin port: a wrong token from %s", who)
                return {"ok": False, "error": "wrong token"}
        command = req.get("command")
        args = req.get("args") or {}
        if command not in COMMANDS or not isinstance(args, dict):
            return {"ok": False, "error": f"commands: {', '.join(COMMANDS)}"}
        log.warning("admin (%s): %s %s", who, command,
                    json.dumps(args, ensure_ascii=False)[:300])
        try:
            return {"ok": True, "result": self.run(str(command), args)}
        except AdminError as exc:
            return {"ok": False, "error": str(exc)}

    # -- the commands -----------------------------------------------------------------

    def run(self, command: str, args: dict[str, Any]) -> Any:
        """Do one command; raises AdminError with a message for the admin."""
        srv = self.server
        reason = _text(args, "reason", "")
        try:
            if command == "status":
                return srv.admin_status()
            if command == "tables":
                return srv.admin_tables()
            if command == "connections":
                return srv.admin_connections()
            if command == "close-table":
                return srv.close_by_host(_text(args, "table"), reason)
            if command == "kick":
                closed = srv.kick(_text(args, "target"), reason)
                if not closed:
                    raise AdminError(f"no connection {_text(args, 'target')!r}")
                return {"closed": closed}
            if command == "ban":
                return srv.ban(_text(args, "kind"), _text(args, "value"), reason)
            if command == "unban":
                if not srv.unban(_text(args, "kind"), _text(args, "value")):
                    raise AdminError("no such ban")
                return {"unbanned": True}
            if command == "bans":
                return [b.to_dict() for b in srv.bans.all()]
            if command == "announce":
                return {"sent": srv.announce(_text(args, "text"))}
            if command == "drain":
                deadline = args.get("deadline")
                if deadline is not None and (
                        not isinstance(deadline, int | float) or isinstance(deadline, bool)
                        or not 0 <= deadline <= MAX_DRAIN):
                    raise AdminError(f"deadline: 0 to {MAX_DRAIN:g} seconds")
                message = _text(args, "message", "")
                if message:
                    srv.announce(message)
                return srv.drain(None if deadline is None else float(deadline))
        except KeyError as exc:
            raise AdminError(f"no such table {exc}") from None
        except (BanError, ValueError) as exc:
            raise AdminError(str(exc)) from None
        except StorageError as exc:
            raise AdminError(f"the database could not be written: {exc}") from None
        raise AdminError(f"unknown command {command!r}")


def _text(args: dict[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str) or (default is None and not value):
        raise AdminError(f"{key!r} is missing (a string)")
    return value[:1000]


async def _reply(writer: asyncio.StreamWriter, answer: dict[str, Any]) -> None:
    writer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
    await writer.drain()


def _peer_uid(sock: socket.socket) -> int | None:
    """The uid of a unix socket's peer (Linux: SO_PEERCRED), or None."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


# -- the client side (kaitaku admin) ----------------------------------------------------


async def request(command: str, args: dict[str, Any], *, socket_path: str | None = None,
                  connect: tuple[str, int] | None = None, token: str | None = None,
                  tls: ssl.SSLContext | None = None, timeout: float = DEADLINE + 5
                  ) -> dict[str, Any]:
    """Send one admin request and return the answer (``{"ok": ..., ...}``).
    Raises OSError if the server cannot be reached."""
    if connect is not None:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(connect[0], connect[1], ssl=tls), timeout)
    else:
        assert socket_path is not None
        reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(socket_path),
                                                timeout)
    try:
        body: dict[str, Any] = {"command": command, "args": args}
        if token is not None:
            body["token"] = token
        writer.write(json.dumps(body).encode("utf-8") + b"\n")
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout)
    finally:
        writer.close()
    if not line:
        raise ConnectionError("the server closed the admin connection without an answer")
    answer = json.loads(line)
    if not isinstance(answer, dict):
        raise ConnectionError("not an admin answer")
    return answer
