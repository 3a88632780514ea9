"""The ``kaitaku`` command line."""

from __future__ import annotations

import json

import pytest

from kaitaku.cli import main


def test_play_prints_the_game_and_final_scores(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["play", "--terminal", "--seed", "4"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "rolls" in out
    assert "game over" in out and "winner" in out


def test_bench_engine_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "engine", "--games", "3", "--players", "3", "--seed", "2", "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("games", "finished", "seconds", "games_per_s", "decisions_per_s",
                "mean_turns", "mean_decisions", "peak_rss_mb", "copy_us", "observe_us"):
        assert key in result
    assert result["games"] == 3
    assert result["mean_decisions"] > 0


def test_bench_bots_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--games", "4", "--bots", "random,greedy", "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    assert {p["bot"] for p in result["pairings"]} == {"random", "greedy"}
    for p in result["pairings"]:
        assert p["games"] == 4 and 0 <= p["wins"] <= 4
        assert p["opponents"] == [("greedy" if p["bot"] == "random" else "random")] * 3
        lo, hi = p["ci95"]
        assert 0 <= lo <= p["win_rate"] <= hi <= 1
    assert set(result["decision_ms"]) == {"random", "greedy"}
    assert all(d["p99"] >= 0 for d in result["decision_ms"].values())
