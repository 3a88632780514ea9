"""Connections count from accept, before a TLS handshake (half-open handshakes
cannot hold descriptors past the caps); a handshake has a deadline; failing
``accept()`` calls are logged once per interval.

The attacks run against a real TLS server over real sockets: raw TCP
connections from 127.0.0.2 (Linux routes all of 127/8 to loopback) that
never send a byte of a TLS handshake, while a legitimate client from
127.0.0.1 gets in."""

from __future__ import annotations

import asyncio
import contextlib
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

trustme = pytest.importorskip("trustme")

from bots.tls import client_context  # noqa: E402
from server.app import Limits, Server  # noqa: E402

from .conftest import RawClient  # noqa: E402
from .test_tls import Certs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ATTACKER = "127.0.0.2"


@pytest.fixture
def certs(tmp_path: Path) -> Iterator[Certs]:
    yield Certs(tmp_path)


def _can_bind(address: str) -> bool:
    s = socket.socket()
    try:
        s.bind((address, 0))
        return True
    except OSError:
        return False
    finally:
        s.close()


pytestmark = pytest.mark.skipif(not _can_bind(ATTACKER), reason="no 127.0.0.2 here")


async def _raw(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection from ``source`` that sends nothing (a TLS handshake never begun)."""
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 5)


async def _closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    """True if the server closes the connection within ``within`` seconds."""
    try:
        data = await asyncio.wait_for(reader.read(1), within)
    except TimeoutError:
        return False
    except (ConnectionError, OSError):
        return True
    return data == b""


async def _player(port: int, certs: Certs, name: str) -> RawClient:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(
        "127.0.0.1", port, ssl=client_context(str(certs.ca))), 5)
    client = RawClient(reader, writer, name)
    await client.hello()
    return client


async def test_item14_half_open_tls_connections_count_against_the_caps(certs: Certs) -> None:
    """Connections that never start their TLS handshake count from accept: past
    the per-address cap the next one from that address is closed at once
    (nothing read, no handshake), the others are not slowed, and a player
    from another address still gets in."""
    srv = Server("127.0.0.1", 0, spawn_bots=False, tls_cert=str(certs.chain),
                 tls_key=str(certs.key), limits=Limits(connections_per_address=4,
                                                       connections=10))
    await srv.start()
    held = []
    try:
        for _ in range(4):
            held.append(await _raw(srv.port, ATTACKER))
        await asyncio.sleep(0.1)
        assert srv.admin_status()["connections"] == 4  # counted before any handshake
        reader, writer = await _raw(srv.port, ATTACKER)
        held.append((reader, writer))
        assert await _closed_by_server(reader, 2.0)  # over the cap: closed at once
        for r, _ in held[:4]:  # the four within the cap are still open (handshake pending)
            assert not await _closed_by_server(r, 0.05)
        player = await _player(srv.port, certs, "legit")  # another address gets in
        await player.send({"type": "list_tables"})
        assert (await player.recv_type("tables"))["tables"] == []
        await player.close()
    finally:
        for _, w in held:
            w.close()
        await srv.close()


async def test_item14_the_total_cap_counts_handshakes_too(certs: Certs) -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False, tls_cert=str(certs.chain),
                 tls_key=str(certs.key), limits=Limits(connections_per_address=3,
                                                       connections=5))
    await srv.start()
    held = []
    try:
        for source in ("127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"):
            held.append(await _raw(srv.port, source))
        reader, writer = await _raw(srv.port, "127.0.0.4")
        held.append((reader, writer))
        assert await _closed_by_server(reader, 2.0)  # the server is full: refused at once
        for _, w in held[:5]:  # the attack ends: the slots come back
            w.close()
        async def poll() -> None:
            while srv.admin_status()["connections"]:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(poll(), 5)
        player = await _player(srv.port, certs, "legit")
        await player.close()
    finally:
        for _, w in held:
            w.close()
        await srv.close()


async def test_item14_a_handshake_that_never_comes_is_dropped_at_its_deadline(
        certs: Certs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.app.TLS_HANDSHAKE_DEADLINE", 0.5)
    srv = Server("127.0.0.1", 0, spawn_bots=False, tls_cert=str(certs.chain),
                 tls_key=str(certs.key), limits=Limits(connections_per_address=1))
    await srv.start()
    try:
        reader, writer = await _raw(srv.port, "127.0.0.1")
        began = time.monotonic()
        assert await _closed_by_server(reader, 5.0)
        assert time.monotonic() - began < 4.0
        writer.close()

        async def poll() -> None:
            while srv.admin_status()["connections"]:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(poll(), 5)
        player = await _player(srv.port, certs, "legit")  # its slot is free again
        await player.close()
    finally:
        await srv.close()


def test_item14_failing_accepts_are_logged_once_per_interval(certs: Certs) -> None:
    """A server out of descriptors (its RLIMIT_NOFILE set low, connections
    flooding in) cannot accept; asyncio retries every second. The log gets one
    short line for it per interval (not a traceback a second), and once the
    flood is gone a player gets in."""
    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    proc = subprocess.Popen(
        [sys.executable, "-m", "kaitaku", "server", "--port", "0", "--db", ":none:",
         "--no-advertise", "--admin-socket", "none", "--tls-cert", str(certs.chain),
         "--tls-key", str(certs.key), "--max-connections", "1000",
         "--max-connections-per-address", "1000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=low_limit)
    flood: list[socket.socket] = []
    try:
        assert proc.stdout is not None
        m = re.search(r"listening on \S+:(\d+)", proc.stdout.readline())
        assert m
        port = int(m.group(1))
        for _ in range(120):  # far past the descriptors the server has left
            s = socket.socket()
            s.settimeout(2)
            with contextlib.suppress(OSError):
                s.connect(("127.0.0.1", port))
            flood.append(s)
        time.sleep(3.5)  # asyncio retries the accept each second
        for s in flood:
            s.close()
        flood.clear()
        time.sleep(1.5)

        async def play() -> None:
            player = await _player(port, certs, "legit")
            await player.close()

        asyncio.run(play())
    finally:
        for s in flood:
            s.close()
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    failures = [line for line in err.splitlines() if "accept" in line]
    assert len(failures) == 1, err[-3000:]
    assert "Too many open files" in failures[0] and "Traceback" not in err


async def test_a_banned_address_is_closed_before_the_tls_handshake(certs: Certs) -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False, tls_cert=str(certs.chain),
                 tls_key=str(certs.key))
    await srv.start()
    try:
        srv.ban("address", "127.0.0.0/30", "flooding")  # 127.0.0.0 to 127.0.0.3
        reader, writer = await _raw(srv.port, ATTACKER)
        assert await _closed_by_server(reader, 2.0)  # at once, nothing read
        writer.close()
        with pytest.raises((ConnectionError, OSError)):  # no handshake happens
            await asyncio.wait_for(asyncio.open_connection(
                "127.0.0.1", srv.port, ssl=client_context(str(certs.ca)),
                local_addr=(ATTACKER, 0)), 5)
        reader, writer = await _raw(srv.port, "127.0.0.5")  # outside the network
        assert not await _closed_by_server(reader, 0.3)
        writer.close()
        assert srv.admin_status()["bans"] == 1
    finally:
        await srv.close()
