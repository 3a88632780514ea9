"""The ladder end to end, as an organiser and bot authors run it: ``kaitaku server
--ladder`` in its own process, ``kaitaku ladder register`` and two ``kaitaku bot
--ladder`` processes from "elsewhere", the standings and the page."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from kaitaku.cli import main

KAITAKU = [sys.executable, "-m", "kaitaku"]


def _run(*args: str, stdin: str | None = None, timeout: float = 60) -> str:
    done = subprocess.run([*KAITAKU, *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_organiser_runs_a_ladder_and_two_authors_play_on_it(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    server = subprocess.Popen(
        [*KAITAKU, "server", "--port", "0", "--db", ":none:", "--no-advertise",
         "--log-level", "warning", "--ladder", str(db), "--ladder-players", "2",
         "--ladder-clock", "20+1", "--ladder-seed", "3", "--ladder-http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while not any(line.startswith("ladder page:") for line in lines):
            assert time.monotonic() < deadline and server.poll() is None, lines
            lines.append(server.stdout.readline().strip())
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", "\n".join(lines))
        page = re.search(r"ladder page: (http://\S+)", "\n".join(lines))
        assert port and page, lines
        address = f"127.0.0.1:{port.group(1)}"
        # One author registers over the network; the organiser registers the
        # other on the server's machine (names registered from one address share
        # an owner, and one owner's bots never meet in a rated game).
        keys = {"alpha": _run("ladder", "register", "alpha", "--connect", address).strip(),
                "beta": _run("ladder", "register", "beta", "--db", str(db)).strip()}
        bots = [subprocess.Popen([*KAITAKU, "bot", "--connect", address, "--ladder", name,
                                  "--key-stdin", "--games", "2", "--bot", kind, "--seed", "1"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for name, kind in (("alpha", "greedy"), ("beta", "random"))]
        for bot, name in zip(bots, ("alpha", "beta"), strict=True):
            assert bot.stdin is not None
            bot.stdin.write(keys[name] + "\n")  # the key, out of the process list
            bot.stdin.flush()
        outs = []
        for bot in bots:
            out, err = bot.communicate(timeout=120)
            assert bot.returncode == 0, err
            outs.append([json.loads(line) for line in out.splitlines()])
        for out, name in zip(outs, ("alpha", "beta"), strict=True):
            assert len(out) == 3 and out[-1] == {"ladder": name, "played": 2, "remaining": 0}
        table = json.loads(_run("ladder", "standings", "--connect", address, "--json"))
        assert table["games"] == 2 and table["total"] == 2
        assert {e["name"]: e["games"] for e in table["entries"]} == {"alpha": 2, "beta": 2}
        with urllib.request.urlopen(page.group(1), timeout=10) as resp:
            html = resp.read().decode()
        assert "alpha" in html and "beta" in html and "<svg" in html
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert server.returncode == 0
    # The organiser reads (and adds to) the database afterwards.
    offline = json.loads(_run("ladder", "standings", "--db", str(db), "--json"))
    assert offline["games"] == 2
    replay = _run("replay", "--ladder-db", str(db), "1")
    assert replay.startswith("ladder game 1") and "alpha" in replay and "turn" in replay.lower()
    assert "alpha" in _run("replay", "--ladder-db", str(db), "--list")
    assert main(["ladder", "register", "gamma", "--db", str(db)]) == 0
    assert main(["ladder", "register", "GAMMA", "--db", str(db)]) == 1  # names ignore case
