"""The stdio transport (bots.stdio, ``kaitaku bot --stdio``, PROTOCOL.md 1.3): a
real ``kaitaku bot`` process whose connection is two pipes, bridged to a real
server; what the bot prints goes to its standard error, not into the frames."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
import textwrap
from pathlib import Path

from bots import RandomBot
from bots.client import run_bot_stream
from protocol.rules import Phase, Settings
from server.app import Server
from server.session import Session
from server.table import Table

PRINTER = """
from bots import RandomBot

class Printer(RandomBot):
    name = "printer"

    def act(self, view, legal):
        print("thinking about", len(legal), "actions")  # not on the connection
        return super().act(view, legal)
"""


async def _pump(reader: asyncio.StreamReader, write: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            write.write(data)
            await write.drain()
    with contextlib.suppress(Exception):
        write.close()


async def test_a_bot_plays_a_whole_game_over_two_pipes(tmp_path: Path) -> None:
    (tmp_path / "printer.py").write_text(textwrap.dedent(PRINTER))
    srv = Server("127.0.0.1", 0, spawn_bots=False)  # no port: connections are adopted
    table: Table[Session] = Table("stdio", "stdio", Settings(players=2, turn_cap=400), None,
                                  seed=3)
    srv.attach_table(table)
    keys = {i: k for i, _, k in table.reserve_bots(["t", "t"])}
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kaitaku", "bot", "--stdio", "--table", "stdio", "--seat", "1",
        f"--key={keys[1]}", "--bot", "printer:Printer", "--seed", "4",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    ours, theirs = socket.socketpair()
    srv.adopt(*await asyncio.open_connection(sock=ours))
    bridge_r, bridge_w = await asyncio.open_connection(sock=theirs)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    pumps = [asyncio.ensure_future(_pump(proc.stdout, bridge_w)),
             asyncio.ensure_future(_pump(bridge_r, proc.stdin))]
    a, b = socket.socketpair()
    srv.adopt(*await asyncio.open_connection(sock=a))
    reader, writer = await asyncio.open_connection(sock=b)
    try:
        outcome = await asyncio.wait_for(run_bot_stream(
            RandomBot(5), reader, writer, name="seat0", table="stdio", seat=0,
            key=keys[0]), 60)
        err = (await asyncio.wait_for(proc.stderr.read(), 30)).decode()
        assert await asyncio.wait_for(proc.wait(), 30) == 0, err
    finally:
        for p in pumps:
            p.cancel()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await srv.close()
    assert outcome.finished and table.game is not None
    assert table.game.phase == Phase.GAME_OVER.value
    assert "thinking about" in err  # its prints went to standard error
    summary = json.loads(err.strip().splitlines()[-1])
    assert summary["seat"] == 1 and summary["winner"] == table.game.winner
    assert table.seats[1].name == "bot" and table.seats[1].last_seq > 10

