"""TLS: a server with a certificate speaks TLS only; the SDK, the window's
NetClient and the server's own bots verify it (a CA made in the test with
trustme)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

trustme = pytest.importorskip("trustme")

from bots import RandomBot  # noqa: E402
from bots.client import run_bot  # noqa: E402
from bots.tls import client_context, pinned_context  # noqa: E402
from protocol.wire import (  # noqa: E402
    VERSION_STRING,
    FrameDecoder,
    RemoteProtocolError,
    encode_frame,
)
from server.app import Server  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class Certs:
    def __init__(self, root: Path) -> None:
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        self.ca = root / "ca.pem"
        self.chain = root / "server.pem"
        self.key = root / "server.key"
        ca.cert_pem.write_to_path(str(self.ca))
        cert.private_key_pem.write_to_path(str(self.key))
        self.chain.write_bytes(b"".join(c.bytes() for c in cert.cert_chain_pems))


@pytest.fixture
def certs(tmp_path: Path) -> Iterator[Certs]:
    yield Certs(tmp_path)


async def _tls_server(certs: Certs, **kw: object) -> Server:
    srv = Server("127.0.0.1", 0, tls_cert=str(certs.chain), tls_key=str(certs.key),
                 **kw)  # type: ignore[arg-type]
    await srv.start()
    return srv


async def test_tls_bots_play_a_game_over_tls(certs: Certs) -> None:
    srv = await _tls_server(certs, spawn_bots=False)
    try:
        tls = client_context(str(certs.ca))
        creator = asyncio.ensure_future(run_bot(
            RandomBot(0), "127.0.0.1", srv.port, name="b0",
            create={"settings": {"players": 3}}, tls=tls))
        while not srv.tables:
            await asyncio.sleep(0.01)
        (tid,) = srv.tables
        others = [asyncio.ensure_future(run_bot(RandomBot(i), "127.0.0.1", srv.port,
                                                name=f"b{i}", table=tid, tls=tls))
                  for i in (1, 2)]
        outcomes = await asyncio.wait_for(asyncio.gather(creator, *others), 60)
        assert all(o.finished for o in outcomes)
    finally:
        await srv.close()


async def test_tls_is_verified_and_plain_text_gets_nothing(certs: Certs) -> None:
    srv = await _tls_server(certs, spawn_bots=False)
    try:
        with pytest.raises(ssl.SSLCertVerificationError):  # the system does not trust it
            await asyncio.open_connection("127.0.0.1", srv.port, ssl=client_context())
        other = trustme.CA().issue_cert("127.0.0.1")  # a certificate of another CA
        pem = certs.ca.parent / "other.pem"
        other.cert_chain_pems[0].write_to_path(str(pem))
        with pytest.raises(ssl.SSLCertVerificationError):
            await asyncio.open_connection("127.0.0.1", srv.port, ssl=pinned_context(str(pem)))
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)  # no TLS
        writer.write(encode_frame({"type": "hello", "version": VERSION_STRING,
                                   "role": "player", "name": "plain"}))
        data = await asyncio.wait_for(reader.read(65536), 5)
        msgs: list[dict[str, object]] = []
        with contextlib.suppress(RemoteProtocolError):  # a TLS alert is no frame
            msgs = FrameDecoder().feed(data)
        assert not any(m.get("type") == "welcome" for m in msgs)
        writer.close()
    finally:
        await srv.close()


async def test_tls_the_servers_own_bots_connect_with_its_certificate(certs: Certs) -> None:
    srv = await _tls_server(certs, spawn_bots=True)
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", srv.port, ssl=client_context(str(certs.ca)))
        from .conftest import RawClient

        c = RawClient(reader, writer, "host")
        await c.hello()
        await c.send({"type": "create_table", "settings": {"players": 3},
                      "bots": ["random", "random"]})
        await c.recv_type("joined")
        await c.recv_until(lambda m: m["type"] == "game_started", 30)  # both bots joined
        await c.close()
    finally:
        await srv.close()


async def test_tls_the_window_connection_speaks_tls(certs: Certs) -> None:
    from client.net import NetClient

    srv = await _tls_server(certs, spawn_bots=False)
    net = NetClient("127.0.0.1", srv.port, "Ann", tls=client_context(str(certs.ca)))
    net.start()
    try:
        got: list[dict[str, object]] = []
        for _ in range(500):
            got += net.poll()
            if any(m["type"] == "welcome" for m in got):
                break
            await asyncio.sleep(0.01)
        assert any(m["type"] == "welcome" for m in got)
        net.send({"type": "list_tables"})
        for _ in range(500):
            got += net.poll()
            if any(m["type"] == "tables" for m in got):
                break
            await asyncio.sleep(0.01)
        assert any(m["type"] == "tables" for m in got)
    finally:
        await asyncio.get_running_loop().run_in_executor(None, net.close)
        await srv.close()


def test_tls_server_command_needs_both_files_and_says_tls(certs: Certs) -> None:
    half = subprocess.run([sys.executable, "-m", "kaitaku", "server", "--port", "0",
                           "--db", ":none:", "--tls-cert", str(certs.chain)],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert half.returncode == 2 and "--tls-key" in half.stderr
    bad = subprocess.run([sys.executable, "-m", "kaitaku", "server", "--port", "0",
                          "--db", ":none:", "--tls-cert", str(certs.key),
                          "--tls-key", str(certs.key)],
                         capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert bad.returncode == 2 and "certificate" in bad.stderr
    proc = subprocess.Popen([sys.executable, "-m", "kaitaku", "server", "--port", "0",
                             "--db", ":none:", "--no-advertise", "--tls-cert",
                             str(certs.chain), "--tls-key", str(certs.key)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"listening on \S+:(\d+) \(TLS\)", line)
        assert m, line
        bot = subprocess.run(
            [sys.executable, "-m", "kaitaku", "bot", "--connect", f"127.0.0.1:{m.group(1)}",
             "--tls-ca", str(certs.ca), "--table", "nosuch"],
            capture_output=True, text=True, timeout=30, cwd=ROOT)
        assert bot.returncode == 1 and "no table" in bot.stderr  # connected, then refused
    finally:
        proc.terminate()
        proc.wait(10)
