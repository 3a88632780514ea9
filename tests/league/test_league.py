"""The bot league runner (``kaitaku league``) and ``kaitaku replay``."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bots import Bot, RandomBot
from kaitaku.cli import main
from kaitaku.replay import main_replay
from league import (
    Entry,
    block_size,
    game_seed,
    rank_seats,
    run_league,
    schedule,
)
from protocol.rules import Action, EndTurn

RANDOM3 = [Entry("r1", "random"), Entry("r2", "random"), Entry("r3", "random")]

SECRET = bytes(range(32))
"""A fixed league secret: runs that must be the same games share it."""


# --- bots that misbehave (importable as tests.league.test_league:Class) ----------------------


class CrashBot(Bot):
    """Plays randomly, then raises on its 30th decision."""

    name = "crash"

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)
        self.calls = 0

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        self.calls += 1
        if self.calls == 30:
            raise RuntimeError("boom")
        return self.inner.act(view, legal)


class IllegalBot(Bot):
    """Ends its turn when it may not."""

    name = "illegal"

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        return EndTurn()


class SlowBot(Bot):
    """Takes 20 ms a decision."""

    name = "slow"

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        time.sleep(0.02)
        return self.inner.act(view, legal)


def _ratings(result: Any) -> list[dict[str, Any]]:
    """The standings without the (timing-dependent) decision times."""
    return [{k: v for k, v in e.items() if not k.startswith("decision_ms")}
            for e in result.to_dict()["entries"]]


def _games(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT idx, seats, status, error, winner, vp, log FROM games "
                            "ORDER BY idx").fetchall()


# --- schedule ------------------------------------------------------------------------------


@pytest.mark.parametrize(("entries", "players", "games"), [
    (2, 4, 8), (3, 4, 12), (4, 4, 8), (5, 4, 40), (5, 4, 7), (6, 3, 60), (8, 4, 50),
    (3, 3, 9), (2, 2, 10), (7, 4, 1000),
])
def test_seats_rotate_fairly(entries: int, players: int, games: int) -> None:
    seats = schedule(entries, players, games, seed=3)
    size = block_size(entries, players, games)
    assert len(seats) % size == 0 and games <= len(seats) < games + size
    per_seat = Counter((e, q) for lineup in seats for q, e in enumerate(lineup))
    counts = {per_seat[(e, q)] for e in range(entries) for q in range(players)}
    assert len(counts) == 1 and counts.pop() > 0  # every entry in every seat equally often
    per_entry = Counter(e for lineup in seats for e in lineup)
    assert len(set(per_entry.values())) == 1
    if entries >= players:
        assert all(len(set(lineup)) == players for lineup in seats)


def test_full_design_covers_every_combination() -> None:
    seats = schedule(5, 4, 20)
    assert len(seats) == 20
    assert len({frozenset(s) for s in seats}) == 5
    assert schedule(5, 4, 20, seed=1) == schedule(5, 4, 20, seed=2)


def test_game_seeds_and_ranks() -> None:
    assert game_seed(1, 0) == game_seed(1, 0) != game_seed(1, 1) != game_seed(2, 1)
    assert rank_seats([10, 7, 7, 3], 0) == [0, 1, 1, 3]
    assert rank_seats([8, 10, 9, 9], 1) == [3, 0, 1, 1]
    assert rank_seats([5, 5, 2], None) == [0, 0, 2]


# --- running ---------------------------------------------------------------------------------


def test_same_seed_same_games_different_seed_different(tmp_path: Path) -> None:
    a = run_league(RANDOM3, 9, players=3, seed=5, db=tmp_path / "a.db", secret=SECRET)
    b = run_league(RANDOM3, 9, players=3, seed=5, db=tmp_path / "b.db", workers=2, secret=SECRET)
    # the seed seats the entries; the chance comes from the league's secret
    c = run_league(RANDOM3, 9, players=3, seed=6, db=tmp_path / "c.db", secret=bytes(32))
    assert a.ran == b.ran == c.ran == 9
    ga, gb, gc = (_games(tmp_path / f"{n}.db") for n in "abc")
    assert ga == gb  # same winners, scores and full logs, in parallel or not
    assert [g[4] for g in ga] != [g[4] for g in gc] or [g[6] for g in ga] != [g[6] for g in gc]
    assert _ratings(a) == _ratings(b)


def test_resume_after_interruption(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    part = run_league(RANDOM3, 12, players=3, seed=2, db=db, max_games=5, secret=SECRET)
    assert (part.ran, part.skipped, part.standings.played) == (5, 0, 5)

    def stop(done: int, total: int, elapsed: float) -> None:
        if done == 8:
            raise KeyboardInterrupt

    cut = run_league(RANDOM3, 12, players=3, seed=2, db=db, progress=stop, secret=SECRET)
    assert cut.interrupted and (cut.ran, cut.skipped) == (3, 5)
    assert len(_games(db)) == 8
    rest = run_league(RANDOM3, 12, players=3, seed=2, db=db, secret=SECRET)
    assert (rest.ran, rest.skipped, rest.standings.played) == (4, 8, 12)
    again = run_league(RANDOM3, 12, players=3, seed=2, db=db, secret=SECRET)
    assert (again.ran, again.skipped) == (0, 12)
    whole = run_league(RANDOM3, 12, players=3, seed=2, db=tmp_path / "whole.db", secret=SECRET)
    assert [g[:6] for g in _games(db)] == [g[:6] for g in _games(tmp_path / "whole.db")]
    assert _ratings(rest) == _ratings(whole)


def test_failing_bots_are_recorded(tmp_path: Path) -> None:
    entries = [Entry("ok", "random"), Entry("crash", "tests.league.test_league:CrashBot"),
               Entry("illegal", "tests.league.test_league:IllegalBot")]
    result = run_league(entries, 6, players=3, seed=1, db=tmp_path / "f.db", secret=SECRET)
    rows = _games(tmp_path / "f.db")
    assert len(rows) == 6 and all(r[2] == "failed" for r in rows)
    errors = " ".join(r[3] for r in rows)
    assert "IllegalBotAction" in errors
    assert result.to_dict()["failed"] == 6 and result.standings.played == 0
    assert all(e["failed_games"] == 6 for e in result.to_dict()["entries"])
    assert any(r[6] is not None for r in rows)  # the partial log is kept

    slow = [Entry("slow", "tests.league.test_league:SlowBot"), Entry("r", "random")]
    res = run_league(slow, 2, players=2, seed=1, db=tmp_path / "t.db", timeout=0.2, secret=SECRET)
    rows = _games(tmp_path / "t.db")
    assert res.standings.failed == 2 and all("GameTimeout" in r[3] for r in rows)
    kept = run_league(slow, 2, players=2, seed=1, db=tmp_path / "t.db", timeout=0.2, secret=SECRET)
    assert (kept.ran, kept.skipped) == (0, 2)
    retried = run_league(slow, 2, players=2, seed=1, db=tmp_path / "t.db", timeout=0.2,
                         retry_failed=True, secret=SECRET)
    assert (retried.ran, retried.standings.failed, len(_games(tmp_path / "t.db"))) == (2, 2, 2)


def test_heuristic_rates_above_random(tmp_path: Path) -> None:
    entries = [Entry("random", "random"), Entry("heuristic", "heuristic")]
    result = run_league(entries, 8, players=4, seed=1, db=tmp_path / "h.db", secret=SECRET)
    names = [s.name for s in result.standings.entries]
    assert names == ["heuristic", "random"]
    top = result.standings.entries[0]
    assert top.games == 16 and top.wins >= 6 and top.mean_decision_ms > 0


# --- command line, report, replay ----------------------------------------------------------------


def test_progress_line_without_a_tty() -> None:
    import io

    from league import ProgressLine

    out = io.StringIO()
    line = ProgressLine(out, every=3600)
    for done in range(1, 11):
        line(done, 10, done * 0.5)
    text = out.getvalue().splitlines()
    assert len(text) == 2 and text[-1].startswith("league: 10/10 games") and "ETA" in text[0]


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    rc = main(["league", "--entry", "a=random", "--entry", "b=greedy", "--games", "4",
               "--players", "2", "--workers", "1", "--db", db, "--json", "--quiet"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["failed"] == 0 and out["seconds"] >= 0
    assert {e["name"] for e in out["entries"]} == {"a", "b"}
    for e in out["entries"]:
        assert set(e) >= {"name", "mu", "sigma", "ordinal", "games", "wins", "win_rate",
                          "mean_vp"}
        assert e["games"] == 4 and 0 <= e["win_rate"] <= 1
    assert main(["league", "--entry", "a=nope", "--games", "2", "--db", db]) == 2


def test_report_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    report = tmp_path / "report"
    rc = main(["league", "--entry", "a=random", "--entry", "g=greedy", "--entry",
               "x=tests.league.test_league:IllegalBot", "--entry", "r=random", "--games", "12",
               "--players", "3",
               "--workers", "1", "--db", db, "--report", str(report), "--quiet"])
    assert rc == 0
    table = capsys.readouterr().out
    assert "ordinal" in table and "failed" in table
    page = (report / "index.html").read_text()
    md = (report / "report.md").read_text()
    assert page.startswith("<!doctype html>") and "<svg" in page and "<style>" in page
    assert "<table>" in page and "Head to head" in page and "kaitaku replay 1 --db" in page
    assert "| # | entry | ordinal |" in md and "| g |" in md and "failed: " in md
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org", "")

    with sqlite3.connect(db) as conn:
        ok = conn.execute("SELECT id FROM games WHERE status = 'ok' LIMIT 1").fetchone()[0]
        bad = conn.execute("SELECT id FROM games WHERE status = 'failed' AND log IS NOT NULL "
                           "LIMIT 1").fetchone()[0]
    assert main(["replay", str(ok), "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"game {ok} ") and "turn 1" in out and "rolls" in out
    assert "game over" in out
    assert main(["replay", str(bad), "--db", db]) == 0
    assert "the game failed: IllegalBotAction" in capsys.readouterr().out
    assert main_replay(999, db) == 2

    lines: list[str] = []
    waits: list[int] = []
    assert main_replay(ok, db, step=True, out=lines.append, wait=lambda: waits.append(1)) == 0
    assert len(waits) > 3 and any("turn 2" in x for x in lines)


def test_dask_cluster_matches_local(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cl:
        with distributed.Client(cl) as client:
            remote = run_league(RANDOM3, 6, players=3, seed=4, db=tmp_path / "d.db",
                                cluster=client, secret=SECRET)
        by_address = run_league(RANDOM3, 6, players=3, seed=4, db=tmp_path / "a.db",
                                cluster=cl.scheduler_address, secret=SECRET)
    run_league(RANDOM3, 6, players=3, seed=4, db=tmp_path / "l.db", secret=SECRET)
    assert remote.ran == by_address.ran == 6
    assert _games(tmp_path / "d.db") == _games(tmp_path / "l.db") == _games(tmp_path / "a.db")


EXTERNAL = ("cmd:{python} -m kaitaku bot --connect {host}:{port} --table {table} "
            "--seat {seat} --key={key} --bot greedy --seed {bot_seed}")


def test_external_command_entries_play_over_the_protocol(tmp_path: Path) -> None:
    from protocol.rules import GameLog, replay

    ext = [Entry("r", "random"), Entry("ext", EXTERNAL), Entry("g", "greedy")]
    local = [Entry("r", "random"), Entry("ext", "greedy"), Entry("g", "greedy")]
    a = run_league(ext, 3, players=3, seed=3, db=tmp_path / "ext.db", sandbox=False, secret=SECRET)
    run_league(local, 3, players=3, seed=3, db=tmp_path / "local.db", secret=SECRET)
    assert a.standings.played == 3 and a.standings.entries[0].games == 3
    for (idx, seats, status, _, winner, vp, log), other in zip(
            _games(tmp_path / "ext.db"), _games(tmp_path / "local.db"), strict=True):
        assert status == "ok" and (idx, seats) == other[:2]
        game_log = GameLog.from_dict(json.loads(log))
        local_log = json.loads(other[6])
        assert game_log.seed == local_log["seed"] and game_log.to_dict()["board"] == \
            local_log["board"]  # the same game; simultaneous decisions may arrive in any order
        final = replay(game_log)
        assert final.winner == winner and [final.total_vp(q) for q in range(3)] == \
            json.loads(vp)

    broken = [Entry("r", "random"), Entry("bad", "cmd:{python} -c 'raise SystemExit(3)'")]
    b = run_league(broken, 2, players=2, seed=3, db=tmp_path / "bad.db", secret=SECRET)
    rows = _games(tmp_path / "bad.db")
    assert b.standings.failed == 2 and all("exited with 3" in r[3] for r in rows)
