"""Duplicate matches (league.duplicate): the same chance in every rotation of a
block, whatever the entries decide; logs of duplicate games replay exactly and
verify against the set's secret once the whole set is stored."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from bots import make_bot, play_game
from league import Entry, connect, load_games, load_log, run_league
from league.duplicate import seeded_chance, seeded_secret
from league.report import render
from league.store import league_key
from protocol.rules import Action, Event, GameLog, GameState, Settings, new_game, replay
from protocol.rules import apply as apply_action
from protocol.rules import events as ev
from protocol.rules.chance import ordinary_roll, play_key, verify


def _play(specs: list[str], seed: int, players: int = 4) -> tuple[GameState, dict[str, list]]:
    """Play one duplicate game; return the final state and what chance gave:
    dice per (turn, roll), the bought cards in order, steals per (turn, hand)."""
    seen: dict[str, list] = defaultdict(list)
    settings = Settings(players=players, turn_cap=300)
    start, chance = seeded_chance(seed, settings)
    rolls: dict[int, int] = defaultdict(int)

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, ev.DiceRolled):
                seen["dice"].append((s.turn, rolls[s.turn], e.dice))
                rolls[s.turn] += 1
            elif isinstance(e, ev.DevCardBought):
                seen["cards"].append(e.card)

    bots = [make_bot(spec, seed * 8 + q) for q, spec in enumerate(specs)]
    result = play_game(bots, settings, start, on_step=hook, chance=chance)
    return result.state, seen


def test_dice_and_deck_are_the_same_in_every_rotation_of_a_block() -> None:
    entries = ["heuristic", "greedy", "random", "greedy"]
    runs = [_play(entries[r:] + entries[:r], seed=77) for r in range(4)]
    play = play_key(seeded_secret(77))
    longest = max((seen["cards"] for _, seen in runs), key=len)
    for _state, seen in runs:
        # Every roll of every rotation is the block's roll for that turn and roll index.
        for turn, roll, dice in seen["dice"]:
            assert dice == ordinary_roll(play, turn, roll, 0)
        # The k-th card bought is the same in every rotation, whoever buys it.
        assert seen["cards"] == longest[:len(seen["cards"])]
        assert seen["dice"], "the game rolled"
    # Different decisions: the games differ, the chance does not.
    assert len({tuple(s.vp) for s, _ in runs}) > 1


def test_second_roll_of_a_two_player_turn_differs_from_the_first() -> None:
    _, seen = _play(["heuristic", "greedy"], seed=5, players=2)
    by_turn: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for turn, _, dice in seen["dice"]:
        by_turn[turn].append(dice)
    doubles = [d for d in by_turn.values() if len(d) == 2]
    assert doubles
    assert all(sum(a) != sum(b) for a, b in doubles)


def test_a_duplicate_game_log_replays_exactly() -> None:
    state, _ = _play(["heuristic", "heuristic", "greedy", "random"], seed=11)
    again = replay(GameLog.of(state))
    assert again.to_dict() == state.to_dict()


def test_ordinary_games_are_unchanged_without_a_chance_source() -> None:
    bots = [make_bot("greedy", q) for q in range(4)]
    a = play_game(bots, Settings(players=4, turn_cap=200), 21)
    bots = [make_bot("greedy", q) for q in range(4)]
    b = play_game(bots, Settings(players=4, turn_cap=200), 21, chance=None)
    assert a.state.to_dict() == b.state.to_dict()


def test_duplicate_league_plays_each_rotation_group_on_one_board(tmp_path: Path) -> None:
    db = tmp_path / "dup.db"
    entries = [Entry("h", "heuristic"), Entry("g", "greedy"), Entry("r", "random")]
    result = run_league(entries, 6, players=3, seed=4, db=db, duplicate=True)
    assert result.standings.played == 6
    conn = connect(db)
    games = load_games(conn, result.league)
    logs = [load_log(conn, g.id)[1] for g in games]
    conn.close()
    # The schedule's rotation groups (3 entries, 3 seats: one group of 3 per block).
    groups: dict[int, list[int]] = defaultdict(list)
    for g in games:
        groups[g.index // 3].append(g.seed)
    assert all(len(set(seeds)) == 1 for seeds in groups.values())
    assert len({seeds[0] for seeds in groups.values()}) == len(groups)

    def dice_by_turn(log: GameLog) -> dict[int, tuple[int, ...]]:
        s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
        out: dict[int, tuple[int, ...]] = {}
        for seat, action, outcome in log.steps:
            if action.to_dict()["type"] == "roll_dice" and outcome is not None:
                out[s.turn] = tuple(outcome)
            apply_action(s, action, seat, outcome)
        return out

    for g0, g1 in zip(games[:3], games[1:3], strict=False):
        la, lb = logs[g0.index], logs[g1.index]
        assert la is not None and lb is not None
        a, b = dice_by_turn(la), dice_by_turn(lb)
        common = set(a) & set(b)
        assert len(common) > 20
        assert all(a[t] == b[t] for t in common)
    # the whole set is stored: each game's secret is revealed and verifies
    assert all(log is not None and verify(log).ok for log in logs)
    page, md = render(str(db), result.league)
    assert "Boards (duplicate)" in page and "## Boards (duplicate)" in md


def test_ordinary_league_keys_are_unchanged() -> None:
    entries = [Entry("a", "random")]
    s = Settings(players=4)
    assert league_key(1, s, entries, 4) == league_key(1, s, entries, 4, "ordinary")
    assert league_key(1, s, entries, 4) != league_key(1, s, entries, 4, "duplicate")
