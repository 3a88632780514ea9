"""Competitions in the league: sandboxed ``cmd:`` entries on their standard input
and output, chess clocks (in-process and over the protocol), forfeits, duplicate
games with external programs. Real processes, real sandboxes, real clocks."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kaitaku.cli import main
from league import Entry, connect, load_games, load_log, run_league
from league.games import check_command
from league.report import render
from league.sandbox import probe
from protocol.rules import GameLog, new_game, replay
from protocol.rules import apply as apply_action
from server.clock import Clock

STDIO = ("cmd:{python} -m kaitaku bot --stdio --table {table} --seat {seat} --key={key} "
         "--bot greedy --seed {bot_seed}")
TCP = ("cmd:{python} -m kaitaku bot --connect {host}:{port} --table {table} --seat {seat} "
       "--key={key} --bot greedy --seed {bot_seed}")

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandboxes")


def _rows(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM games ORDER BY idx")]


def _steps(log: str) -> Counter[tuple[int, str]]:
    """A game's decisions as a multiset: simultaneous decisions (discards, trade
    answers) are logged in the order they reach the server."""
    game = GameLog.from_dict(json.loads(log))
    return Counter((seat, json.dumps(action.to_dict(), sort_keys=True))
                   for seat, action, _ in game.steps)


# --- the sandbox in a league --------------------------------------------------------------


@linux
def test_a_sandboxed_stdio_entry_plays_the_same_games_as_an_unsandboxed_one(
        tmp_path: Path) -> None:
    boxed = [Entry("r", "random"), Entry("ext", STDIO), Entry("g", "greedy")]
    trusted = [Entry("r", "random"), Entry("ext", TCP), Entry("g", "greedy")]
    secret = bytes(range(32))  # the same chance for both leagues
    a = run_league(boxed, 3, players=3, seed=3, db=tmp_path / "boxed.db", secret=secret)
    b = run_league(trusted, 3, players=3, seed=3, db=tmp_path / "tcp.db", sandbox=False,
                   secret=secret)
    assert a.standings.played == b.standings.played == 3
    for x, y in zip(_rows(tmp_path / "boxed.db"), _rows(tmp_path / "tcp.db"), strict=True):
        assert x["status"] == y["status"] == "ok"
        for key in ("seats", "seed", "winner", "vp", "turns", "decisions", "ranks"):
            assert x[key] == y[key], key
        assert _steps(x["log"]) == _steps(y["log"])
        final = replay(GameLog.from_dict(json.loads(x["log"])))
        assert final.winner == x["winner"]
        ext = json.loads(x["seats"]).index("ext")
        assert len(json.loads(x["times"])[ext]) > 20  # the server timed its decisions


PROBE_BOT = """
import os, socket, sys
port, victim, private = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    socket.create_connection(("127.0.0.1", port), 2).close()
    sys.exit(7)  # the network is reachable
except OSError:
    pass
try:
    with open(victim, "w") as f:
        f.write("x")
    sys.exit(8)  # a file outside its directory was written
except OSError:
    pass
try:  # under /tmp: the sandbox's own private /tmp, never the organiser's
    with open(private, "w") as f:
        f.write("x")
except OSError:
    pass
with open("mine.txt", "w") as f:  # its own directory is writable
    f.write("ok")
os.execv(sys.executable, [sys.executable, "-m", "kaitaku", "bot", *sys.argv[4:]])
"""


@linux
def test_a_sandboxed_entry_reaches_nothing_but_its_game(tmp_path: Path) -> None:
    iso = probe()
    if not (iso.network and iso.readonly):
        pytest.skip("this machine cannot isolate network and files: " + "; ".join(iso.notes))
    script = tmp_path / "probe_bot.py"
    script.write_text(textwrap.dedent(PROBE_BOT))
    victim = Path.home() / f".kaitaku-sandbox-victim-{os.getpid()}"
    private = tmp_path / "private.txt"
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    spec = (f"cmd:{{python}} {script} {port} {victim} {private} --stdio --table {{table}} "
            "--seat {seat} --key={key} --bot random --seed {bot_seed}")
    try:
        result = run_league([Entry("r", "random"), Entry("probe", spec)], 2, players=2,
                            seed=5, db=tmp_path / "p.db")
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()
    rows = _rows(tmp_path / "p.db")
    assert [r["status"] for r in rows] == ["ok", "ok"], [r["error"] for r in rows]
    assert result.standings.played == 2
    assert not victim.exists() and not private.exists()


DAEMON_BOT = """
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)  # kaitaku-outlive-probe"],
                 start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
os.execv(sys.executable, [sys.executable, "-m", "kaitaku", "bot", *sys.argv[1:]])
"""


def _daemons() -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if b"kaitaku-outlive-probe" in cmd and b"bwrap" not in cmd \
                    and b"unshare" not in cmd and b"daemon_bot" not in cmd:
                out.append(int(entry))
    return out


@linux
def test_a_sandboxed_entry_does_not_outlive_its_game(tmp_path: Path) -> None:
    script = tmp_path / "daemon_bot.py"
    script.write_text(textwrap.dedent(DAEMON_BOT))
    spec = (f"cmd:{{python}} {script} --stdio --table {{table}} --seat {{seat}} --key={{key}} "
            "--bot random --seed {bot_seed}")
    assert not _daemons()
    result = run_league([Entry("r", "random"), Entry("d", spec)], 2, players=2, seed=4,
                        db=tmp_path / "d.db")
    assert result.standings.played == 2
    assert not _daemons()  # the daemon it left behind died with its game


def test_host_and_port_are_refused_for_sandboxed_entries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no network"):
        check_command(TCP, sandbox=True)
    check_command(TCP, sandbox=False)
    check_command(STDIO, sandbox=True)
    with pytest.raises(ValueError, match="unknown placeholder"):
        check_command("cmd:run {nope}", sandbox=True)
    with pytest.raises(ValueError, match="no network"):
        run_league([Entry("r", "random"), Entry("ext", TCP)], 2, players=2,
                   db=tmp_path / "x.db")
    rc = main(["league", "--entry", "random", "--entry", f"ext={TCP}", "--games", "2",
               "--players", "2", "--db", str(tmp_path / "y.db"), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "entry ext" in err and "--no-sandbox" in err and "--stdio" in err
    assert not (tmp_path / "y.db").exists()


@linux
def test_the_league_says_what_the_sandbox_enforces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["league", "--entry", "random", "--entry", f"ext={STDIO}", "--games", "2",
               "--players", "2", "--db", str(tmp_path / "s.db"), "--quiet", "--workers", "1"])
    assert rc == 0
    err = capsys.readouterr().err
    for line in probe().lines():
        assert line in err


# --- chess clocks ---------------------------------------------------------------------------


SLOW_BOT = """
import sys, time
from bots import RandomBot

class Slow(RandomBot):
    name = "slow"

    def act(self, view, legal):
        time.sleep(0.12)
        return super().act(view, legal)

if __name__ == "__main__":
    from kaitaku.cli import main
    sys.exit(main(["bot", *sys.argv[1:]]))
"""


@linux
def test_a_real_clock_runs_out_for_a_sandboxed_entry(tmp_path: Path) -> None:
    script = tmp_path / "slowbot.py"
    script.write_text(textwrap.dedent(SLOW_BOT))
    spec = (f"cmd:{{python}} {script} --stdio --table {{table}} --seat {{seat}} --key={{key}} "
            "--bot slowbot:Slow --seed {bot_seed}")
    clock = Clock(bank_ms=300, increment_ms=50, timeouts=2)
    result = run_league([Entry("r", "random"), Entry("slow", spec)], 2, players=2, seed=8,
                        db=tmp_path / "c.db", clock=clock, timeout=120)
    rows = _rows(tmp_path / "c.db")
    assert len(rows) == 2
    for row in rows:
        assert row["status"] == "ok", row["error"]
        slow = json.loads(row["seats"]).index("slow")
        assert json.loads(row["forfeits"]) == [slow]
        assert json.loads(row["timeouts"])[slow] == 2
        ranks = json.loads(row["ranks"])
        assert ranks[slow] == max(ranks) and ranks[slow] > ranks[1 - slow]
        times = json.loads(row["times"])[slow]
        assert times and max(times) >= 100_000  # µs: the server timed the slow decisions
        final = replay(GameLog.from_dict(json.loads(row["log"])))
        assert final.winner == row["winner"]  # the stand-in played the game to the end
    standing = next(s for s in result.standings.entries if s.name == "slow")
    assert standing.forfeits == 2 and standing.timeouts == 4 and standing.wins == 0
    assert result.standings.entries[-1].name == "slow"


def test_an_in_process_entry_out_of_time_gets_the_default_action_then_forfeits(
        tmp_path: Path) -> None:
    slow = "tests.league.test_league:SlowBot"  # 20 ms a decision
    clock = Clock(bank_ms=60, increment_ms=5, timeouts=3)
    result = run_league([Entry("r", "random"), Entry("slow", slow)], 2, players=2, seed=9,
                        db=tmp_path / "i.db", clock=clock)
    rows = _rows(tmp_path / "i.db")
    assert [r["status"] for r in rows] == ["ok", "ok"]
    for r in rows:
        seat = json.loads(r["seats"]).index("slow")
        assert json.loads(r["forfeits"]) == [seat]
        assert json.loads(r["timeouts"])[seat] == 3
        assert json.loads(r["ranks"])[seat] == 1
    slow_standing = next(s for s in result.standings.entries if s.name == "slow")
    assert slow_standing.forfeits == 2 and slow_standing.wins == 0


def test_a_crashing_entry_forfeits_under_a_clock_and_fails_the_game_without(
        tmp_path: Path) -> None:
    crash = [Entry("r", "random"), Entry("c", "tests.league.test_league:CrashBot")]
    clock = Clock(bank_ms=10_000, increment_ms=100)
    a = run_league(crash, 2, players=2, seed=2, db=tmp_path / "a.db", clock=clock)
    assert a.standings.played == 2 and a.standings.failed == 0
    assert next(s for s in a.standings.entries if s.name == "c").forfeits == 2
    b = run_league(crash, 2, players=2, seed=2, db=tmp_path / "b.db")
    assert b.standings.failed == 2


def test_the_report_shows_timeouts_forfeits_and_decision_times(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    clock = Clock(bank_ms=60, increment_ms=5, timeouts=3)
    result = run_league([Entry("r", "random"), Entry("slow", "tests.league.test_league:SlowBot")],
                        2, players=2, seed=9, db=db, clock=clock)
    page, md = render(str(db), result.league)
    assert "timeouts" in md and "forfeits" in md and "clock 0.06+0.005 s" in md
    row = next(line for line in md.splitlines() if line.startswith("| 2 | slow"))
    assert "| 6 | 2 |" in row  # 6 timeouts, 2 forfeits
    assert "<svg" in page and "decision time" in page


# --- duplicate games with an external program ----------------------------------------------


def _dice_by_turn(log: GameLog) -> dict[int, tuple[int, ...]]:
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    out: dict[int, tuple[int, ...]] = {}
    for seat, action, outcome in log.steps:
        if action.to_dict()["type"] == "roll_dice" and outcome is not None:
            out[s.turn] = tuple(outcome)
        apply_action(s, action, seat, outcome)
    return out


@linux
def test_a_duplicate_group_with_a_cmd_entry_sees_the_same_dice_in_every_rotation(
        tmp_path: Path) -> None:
    db = tmp_path / "dup.db"
    entries = [Entry("ext", STDIO), Entry("h", "heuristic"), Entry("r", "random")]
    result = run_league(entries, 3, players=3, seed=6, db=db, duplicate=True)
    assert result.standings.played == 3
    conn = connect(db)
    games = load_games(conn, result.league)
    logs = [load_log(conn, g.id)[1] for g in games]
    conn.close()
    assert len({g.seed for g in games}) == 1  # one board for the rotation group
    dice = [_dice_by_turn(log) for log in logs if log is not None]
    assert len(dice) == 3
    for other in dice[1:]:
        common = set(dice[0]) & set(other)
        assert len(common) > 20
        assert all(dice[0][t] == other[t] for t in common)
    assert len({tuple(g.vp) for g in games}) > 1 or len({tuple(g.seats) for g in games}) == 3


@linux
def test_the_report_shows_each_seats_log(tmp_path: Path) -> None:
    """Per game and seat: why it lost its seat (timeouts; an exit), its
    decision times and the end of its standard error, escaped."""
    script = tmp_path / "slowbot.py"
    script.write_text(textwrap.dedent(SLOW_BOT))
    slow = (f"cmd:{{python}} {script} --stdio --table {{table}} --seat {{seat}} --key={{key}} "
            "--bot slowbot:Slow --seed {bot_seed}")
    crasher = tmp_path / "crashbot.py"
    crasher.write_text(textwrap.dedent(SLOW_BOT.replace(
        "time.sleep(0.12)", "sys.stderr.write('bye <b>' + chr(27) + '[31m'); "
        "sys.stderr.flush(); os._exit(3)")
        .replace("import sys, time", "import os, sys, time")))
    crash = (f"cmd:{{python}} {crasher} --stdio --table {{table}} --seat {{seat}} "
             "--key={key} --bot crashbot:Slow --seed {bot_seed}")
    clock = Clock(bank_ms=300, increment_ms=50, timeouts=2)
    run_league([Entry("r", "random"), Entry("slow", slow), Entry("crash", crash)], 3,
               players=3, seed=8, db=tmp_path / "s.db", clock=clock, timeout=120)
    with connect(tmp_path / "s.db") as conn:
        games = load_games(conn, 1)
    for g in games:
        assert g.status == "ok", g.error
        logs = dict(zip(g.seats, g.seat_logs, strict=True))
        assert logs["slow"].why == "2 timeouts or illegal actions"
        assert logs["slow"].stderr  # its end: what it and the bot SDK wrote last
        assert logs["crash"].why is not None and "exited with 3" in logs["crash"].why
        assert logs["crash"].stderr == "bye <b>[31m"  # the escape character removed
        assert logs["r"].why is None and logs["r"].stderr == ""
    page, md = render(str(tmp_path / "s.db"), 1)
    assert "bye &lt;b&gt;[31m" in page and "2 timeouts or illegal actions" in page
    assert "bye \\<b\\>\\[31m" in md and "exited with 3" in md
    seats = md[md.index("## Seats"):]
    assert seats.count("| slow |") == 3 and seats.count("| crash |") == 3


def test_a_clocked_entry_that_exits_before_joining_fails_its_game_at_once(
        tmp_path: Path) -> None:
    """It cannot be played on (it never sat down): the game fails at once with
    its stderr, instead of waiting for the game's --timeout."""
    crash = "cmd:{python} -c \"import sys; sys.stderr.write('no luck'); sys.exit(4)\""
    clock = Clock(bank_ms=300, increment_ms=50, timeouts=2)
    run_league([Entry("r", "random"), Entry("crash", crash)], 2, players=2, seed=8,
               db=tmp_path / "e.db", clock=clock, timeout=600, sandbox=False)
    rows = _rows(tmp_path / "e.db")
    assert [r["status"] for r in rows] == ["failed", "failed"]
    for r in rows:
        # its own failure, not the game's --timeout
        assert "exited with 4" in r["error"] and "no luck" in r["error"], r["error"]
