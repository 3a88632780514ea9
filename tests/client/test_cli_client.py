"""The command line's client pieces: ``kaitaku client`` and ``kaitaku play``
without a display, the screenshot and bench wiring, the server's LAN flag."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from kaitaku.cli import _advertise, _is_loopback, build_parser, main
from server.app import Server

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kaitaku", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)


def env_without_display(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update(extra)
    return env


def test_client_without_a_video_driver_says_so() -> None:
    proc = run_cli("client", "--no-discovery", env=env_without_display(SDL_VIDEODRIVER="nosuch"))
    assert proc.returncode == 2
    assert "no display available" in proc.stderr
    assert "set DISPLAY or use --screenshot" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland only")
def test_client_without_display_says_so() -> None:
    """No DISPLAY: SDL would quietly pick its invisible offscreen driver."""
    proc = run_cli("client", "--no-discovery", env=env_without_display())
    assert proc.returncode == 2
    assert "kaitaku client: no display available" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_play_without_display_says_so_and_stops_its_server() -> None:
    proc = run_cli("play", "--bots", "random", env=env_without_display(SDL_VIDEODRIVER="nosuch"))
    assert proc.returncode == 2
    assert "no display available" in proc.stderr and "--terminal" in proc.stderr


def test_client_refuses_a_bad_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["client", "--connect", "host:notaport", "--no-discovery"]) == 2
    assert "--connect" in capsys.readouterr().err


def test_play_refuses_too_many_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--bots", *["random"] * 6]) == 2
    assert "1 to 5 bots" in capsys.readouterr().err
    assert main(["play", "--players", "6", "--bots", "random", "random"]) == 2
    assert "--players 6 takes 5 bots" in capsys.readouterr().err


def test_screenshot_is_drawn_by_the_screenshot_module(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    calls: list[tuple[Any, ...]] = []
    fake = types.ModuleType("client.screenshot")

    def render_screenshot(path: str, lang: str = "en", size: tuple[int, int] = (0, 0),
                          scene: str = "table", players: int = 0) -> None:
        calls.append((path, lang, size, scene, players))

    fake.render_screenshot = render_screenshot  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "client.screenshot", fake)
    out = str(tmp_path / "shot.png")
    assert main(["client", "--screenshot", out, "--lang", "ja"]) == 0
    assert calls == [(out, "ja", (1280, 800), "table", 4)]
    assert out in capsys.readouterr().out
    assert main(["client", "--screenshot", out, "--scene", "stats"]) == 0
    assert calls[-1][3] == "stats"
    assert main(["client", "--screenshot", out, "--players", "6"]) == 0
    assert calls[-1][4] == 6


def test_bench_client_prints_the_frame_bench(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    fake = types.ModuleType("client.bench")
    got: dict[str, Any] = {}

    def frame_bench(frames: int = 100, lang: str = "en") -> dict[str, Any]:
        got.update(frames=frames, lang=lang)
        return {"frames": frames, "ms_per_frame": 1.5}

    def idle_bench(seconds: float = 5.0, lang: str = "en") -> dict[str, Any]:
        got.update(idle=seconds)
        return {"idle_table_cpu_percent": 1.0}

    fake.frame_bench = frame_bench  # type: ignore[attr-defined]
    fake.idle_bench = idle_bench  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "client.bench", fake)
    assert main(["bench", "client", "--frames", "7", "--json", "--idle", "0"]) == 0
    assert json.loads(capsys.readouterr().out) == {"frames": 7, "ms_per_frame": 1.5}
    assert got == {"frames": 7, "lang": "en"}  # only the arguments it takes, given ones
    assert main(["bench", "client", "--frames", "7", "--json", "--idle", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == {"frames": 7, "ms_per_frame": 1.5,
                                                   "idle_table_cpu_percent": 1.0}
    assert got["idle"] == 2
    assert main(["bench", "client"]) == 0
    assert "ms_per_frame" in capsys.readouterr().out


def test_server_advertises_off_loopback_by_default() -> None:
    parse = build_parser().parse_args
    assert parse(["server"]).advertise is None
    assert parse(["server", "--advertise"]).advertise is True
    assert parse(["server", "--no-advertise"]).advertise is False
    with pytest.raises(SystemExit):
        parse(["server", "--advertise", "--no-advertise"])
    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("localhost")
    assert not _is_loopback("0.0.0.0") and not _is_loopback("192.168.1.2")
    assert not _is_loopback("myhost")


async def test_server_advertise_hook() -> None:
    from client.discovery import Browser

    srv = Server("127.0.0.1", 0, spawn_bots=False, name="LAN night")
    await srv.start()
    try:
        none = await _advertise(argparse.Namespace(advertise=None, host="127.0.0.1"), srv)
        assert none is None  # loopback: not advertised unless asked
        handle = await _advertise(argparse.Namespace(advertise=True, host="127.0.0.1"), srv)
        if handle is None:
            pytest.skip("no multicast here")
        browser = Browser(interfaces=["127.0.0.1"])
        try:
            assert browser.start()
            loop = asyncio.get_running_loop()
            end = loop.time() + 8
            while not any(s.port == srv.port for s in browser.servers()):
                assert loop.time() < end, "not found"
                await asyncio.sleep(0.02)
            found = next(s for s in browser.servers() if s.port == srv.port)
            assert found.name == "LAN night" and found.host == "127.0.0.1"
        finally:
            browser.close()
            await handle.stop()
    finally:
        await srv.close()
