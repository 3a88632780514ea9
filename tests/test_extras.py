"""Commands that need an optional extra say so at once, with the pip command,
and exit non-zero (the real command, in a process where the extra's module
cannot be imported); a ladder client never waits for ever on a server that
failed or does not answer."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bots.ladder_client import register, standings
from kaitaku.extras import EXTRAS
from league.ladder import Ladder, LadderConfig
from protocol.wire import ProtocolError
from server.app import Server

ROOT = Path(__file__).resolve().parent.parent


def _without(tmp_path: Path, module: str) -> dict[str, str]:
    """An environment in which ``import module`` fails (a stand-in package that
    raises ImportError comes first on the path)."""
    pkg = tmp_path / "hide" / module
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\")\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "hide"), str(ROOT)])
    env["SDL_VIDEODRIVER"] = "dummy"
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaitaku", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("args", "extra", "module"), [
    (["server", "--ladder", "ladder.db", "--port", "0", "--db", ":none:"], "league",
     "openskill"),
    (["league", "--entry", "random", "--entry", "random", "--games", "1"], "league",
     "openskill"),
    (["ladder", "register", "bot", "--db", "ladder.db"], "league", "openskill"),
    (["client"], "client", "pygame"),
    (["play"], "client", "pygame"),
    (["bench", "client"], "client", "pygame"),
])
def test_a_command_needing_an_extra_says_so_and_exits(tmp_path: Path, args: list[str],
                                                      extra: str, module: str) -> None:
    done = _run(args, _without(tmp_path, module), tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"pip install 'kaitaku[{extra}]'" in done.stderr
    assert f"{module} is not installed" in done.stderr
    assert "listening" not in done.stdout  # the server never started
    assert not (tmp_path / "ladder.db").exists()


def test_the_extras_name_what_pyproject_installs() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for extra, modules in EXTRAS.items():
        deps = " ".join(extras[extra])
        for module in modules:
            assert module in deps, (extra, module)
            assert module in " ".join(extras["dev"])  # the tests get them


async def test_a_ladder_that_fails_answers_and_the_client_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ladder = Ladder(tmp_path / "ladder.db", LadderConfig(players=2, seed=5))

    def broken(*args: Any) -> bool:
        raise ModuleNotFoundError("No module named 'openskill'")

    monkeypatch.setattr(ladder.store, "add", broken)
    srv = Server("127.0.0.1", 0, spawn_bots=False, extension=ladder)
    await srv.start()
    try:
        with pytest.raises(ProtocolError) as err:
            await asyncio.wait_for(register("127.0.0.1", srv.port, "bot"), 20)
        assert err.value.code == "internal_error"
    finally:
        await asyncio.wait_for(srv.close(), 15)


async def test_a_silent_server_times_out() -> None:
    """A server that takes the connection and never answers (the hello)."""
    held: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    silent = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    try:
        for ask in (register("127.0.0.1", port, "bot", timeout=0.5),
                    standings("127.0.0.1", port, timeout=0.5)):
            with pytest.raises(ProtocolError) as err:
                await asyncio.wait_for(ask, 10)
            assert err.value.code == "timeout" and "did not answer" in str(err.value)
    finally:
        for w in held:
            w.close()
        silent.close()
        await silent.wait_closed()
