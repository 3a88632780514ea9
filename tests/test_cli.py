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


def test_six_bots_play_the_extension_in_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["play", "--terminal", "--seed", "3", "--bots", "heuristic", "greedy", "heuristic",
               "greedy", "random", "heuristic"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "special building: [" in out and "[茶 Brown]" in out and "game over" in out


@pytest.mark.parametrize("players", [5, 6])
def test_bench_engine_large_tables(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "engine", "--games", "2", "--players", str(players), "--seed", "2",
               "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    assert result["players"] == players and result["finished"] == 2


def test_bench_engine_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "engine", "--games", "3", "--players", "3", "--seed", "2", "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("games", "finished", "seconds", "games_per_s", "decisions_per_s",
                "mean_turns", "mean_decisions", "peak_rss_mb", "copy_us", "observe_us"):
        assert key in result
    assert result["games"] == 3
    assert result["mean_decisions"] > 0


def test_bench_server_json_with_floor(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "server", "--games", "2", "--concurrency", "2", "--json", "--floor"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("games", "seconds", "games_per_s", "actions", "actions_per_s", "latency_ms_p50",
                "latency_ms_p99", "errors", "peak_rss_mb", "server_us_per_action",
                "engine_games_per_s", "ratio_vs_engine"):
        assert key in result
    assert result["games"] == 2 and result["errors"] == 0 and result["actions"] > 100
    assert 0 < result["ratio_vs_engine"] < 1
    floor = result["floor"]
    assert floor["games"] == 2 and floor["actions"] == 2 * 968
    assert 0 < floor["latency_ms_p50"] <= floor["latency_ms_p99"]
    assert result["floor_ratio_vs_engine"] > 0


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


def test_bench_duplicate_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "duplicate", "--hero", "greedy", "--villain", "random",
               "--blocks", "3", "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games_per_mode"] == 12
    for mode in ("ordinary", "duplicate"):
        m = result[mode]
        assert m["games"] == 12 and 0 <= m["wins"] <= 12
        assert m["games_to_separate_95"] is None or m["games_to_separate_95"] >= 0
    # Each mode plays bench bots' games 0-11 (duplicate mode: its duplicate
    # sets), so either can be replayed or extended with `bench bots`.
    for mode, flag in (("ordinary", []), ("duplicate", ["--duplicate"])):
        assert main(["bench", "bots", "--bots", "greedy", "--opponents", "random",
                     "--games", "12", "--json", *flag]) == 0
        (pairing,) = json.loads(capsys.readouterr().out)["pairings"]
        assert pairing["wins"] == result[mode]["wins"]
        assert pairing["ci95"] == result[mode]["ci95"]


def test_games_to_separate() -> None:
    from league.stats import games_to_separate

    # Independent games at p = 0.5 against parity 0.25: n = 1.96² · 0.25 / 0.25² ≈ 15.4.
    needed = games_to_separate([1.0, 0.0] * 500, 0.25, 1)
    assert needed is not None and 15 < needed < 16
    assert games_to_separate([0.25] * 10, 0.25, 4) is None
    # Blocks that always score the same need almost nothing.
    tight = games_to_separate([0.5, 0.5001, 0.4999] * 10, 0.25, 4)
    assert tight is not None and tight < 1


def test_bench_bots_two_players_in_two_processes_plays_the_same_games(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "bots", "--games", "4", "--bots", "heuristic", "--opponents", "greedy",
            "--players", "2", "--json"]
    runs = []
    for workers in ("1", "2"):
        assert main([*args, "--workers", workers]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    one, two = runs
    assert one["players"] == two["players"] == 2
    (p1,), (p2,) = one["pairings"], two["pairings"]
    assert p1["opponents"] == ["greedy"]
    assert len(p1["won"]) == 4 and p1["wins"] == sum(p1["won"])
    assert p1["won"] == p2["won"]  # the games do not depend on the processes
    # Games 2 and 3 again, on their own: a run played in parts is the same run.
    assert main([*args[:2], "--games", "2", "--first", "2", *args[4:]]) == 0
    (part,) = json.loads(capsys.readouterr().out)["pairings"]
    assert part["first"] == 2 and part["won"] == p1["won"][2:]
    with pytest.raises(SystemExit):
        main([*args, "--first", "-1"])
    assert "at least 0" in capsys.readouterr().err
    assert set(two["decision_ms"]) == {"heuristic", "greedy"}
    assert all(d["mean"] <= d["p99"] <= d["max"] for d in two["decision_ms"].values())


def test_bench_bots_duplicate_sets_replay_one_game_per_set(
        capsys: pytest.CaptureFixture[str]) -> None:
    """In a duplicate set every rotation has the same board, the same committed
    chance and the same bot in each seat, so with the same deterministic bot in
    every seat the four games are one game: the bot under test wins exactly
    the rotation that seats it where the winner sat, and the interval over
    the sets is exactly parity."""
    args = ["bench", "bots", "--bots", "greedy", "--opponents", "bots:GreedyBot",
            "--duplicate", "--json"]
    assert main([*args, "--games", "12"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["duplicate"] is True
    (p,) = result["pairings"]
    sets = [p["won"][i:i + 4] for i in range(0, 12, 4)]
    assert all(sum(s) == 1 for s in sets), sets
    assert p["ci95"] == [0.25, 0.25]
    # The second set on its own is the same set.
    assert main([*args, "--games", "4", "--first", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["pairings"][0]["won"] == sets[1]
    # Ordinary games of the same seeds are different games.
    assert main(["bench", "bots", "--bots", "greedy", "--opponents", "bots:GreedyBot",
                 "--games", "12", "--json"]) == 0
    ordinary = json.loads(capsys.readouterr().out)["pairings"][0]["won"]
    assert any(sum(ordinary[i:i + 4]) != 1 for i in range(0, 12, 4))
    # A set is whole or not played.
    assert main([*args, "--games", "6"]) == 2
    assert "multiples of 4" in capsys.readouterr().err


def test_mean_interval() -> None:
    from league.stats import mean_interval

    assert mean_interval([0.5]) == (0.0, 1.0)
    assert mean_interval([0.25] * 10) == (0.25, 0.25)
    lo, hi = mean_interval([0.0, 0.5] * 50)  # mean 0.25, sd 0.2513, n 100
    assert lo == pytest.approx(0.25 - 1.96 * 0.2513 / 10, abs=1e-3)
    assert hi == pytest.approx(0.25 + 1.96 * 0.2513 / 10, abs=1e-3)
    assert mean_interval([0.0, 1.0]) == (0.0, 1.0)


def test_bench_bots_no_trade_table(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--games", "2", "--bots", "search", "--opponents", "heuristic",
               "--budget", "0.005", "--no-trade"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "4 players, domestic trade off" in out
    assert "search vs 3 x heuristic" in out


def test_the_text_replays_say_the_resources_as_the_window_does() -> None:
    """One Japanese term for each resource: the text replays (and the terminal
    game) say 鉱石 as the window does, not 鉄."""
    from client.i18n import Translator
    from kaitaku.terminal import RESOURCE_JA
    from protocol.rules import RESOURCES

    tr = Translator("ja")
    assert tuple(tr(f"table.res.{r}") for r in RESOURCES) == RESOURCE_JA


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "bots", "--games", "0"], "at least 1"),
    (["bench", "bots", "--games", "-4"], "at least 1"),
    (["bench", "bots", "--workers", "0"], "at least 1"),
    (["bench", "bots", "--budget", "-0.5"], "must be positive"),
    (["bench", "engine", "--games", "0"], "at least 1"),
    (["bench", "server", "--concurrency", "0"], "at least 1"),
    (["bench", "duplicate", "--blocks", "0"], "at least 1"),
    (["bench", "ladder", "--bots", "0"], "at least 1"),
    (["bench", "client", "--frames", "-1"], "at least 1"),
    (["bench", "client", "--idle", "-1"], "zero or more"),
    (["league", "--entry", "random", "--games", "0"], "at least 1"),
    (["league", "--entry", "random", "--timeout", "0"], "must be positive"),
    (["league", "--entry", "random", "--sandbox-cpu", "-1"], "at least 0"),
    (["play", "--terminal", "--vp", "21"], "between 3 and 20"),
    (["play", "--terminal", "--delay", "-1"], "zero or more"),
    (["play", "--terminal", "--timer", "-5"], "at least 0"),
    (["bot", "--stdio", "--budget", "0"], "must be positive"),
])
def test_counts_and_times_out_of_range_are_refused(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A count of zero or less, a negative time or a VP target the rules refuse
    # is a usage error (exit 2, the reason on stderr), not a traceback or a
    # run that quietly does something else.
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["bench", "bots", "--bots", "no_such_module:Bot", "--opponents", "random", "--games", "1"],
    ["bench", "bots", "--bots", "random", "--opponents", "bots:NoSuchBot", "--games", "1"],
    ["bench", "duplicate", "--hero", "genius", "--blocks", "1"],
    ["bench", "duplicate", "--villain", "no_such_module:Bot", "--blocks", "1"],
])
def test_a_bot_spec_that_makes_no_bot_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Checked before any game is played: the reason on stderr, exit 2.
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kaitaku bench {argv[1]}: ")
    assert "no_such_module" in err or "NoSuchBot" in err or "genius" in err
