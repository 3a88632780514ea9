"""Leagues of five and six (R-56): the schedule's rotations, duplicate sets of
six rotations on one board with one chance (the 34-card deck of R-56-5),
ratings over six-seat games, and the ladder's table size."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from bots import make_bot, play_game
from league import Entry, connect, load_games, load_log, run_league
from league.duplicate import seeded_chance
from league.schedule import rotation_group, schedule
from protocol.rules import Action, Event, GameLog, GameState, Settings, replay
from protocol.rules import events as ev
from protocol.rules.state import DEV_DECK_LARGE


def test_six_rotations_seat_every_entry_in_every_seat() -> None:
    games = schedule(6, 6, 12, seed=1)
    assert rotation_group(6, 6, 12) == 6
    for g in range(0, 12, 6):
        block = games[g:g + 6]
        assert sorted(block[0]) == list(range(6))
        for seat in range(6):  # each entry takes each seat once in a group
            assert sorted(lineup[seat] for lineup in block) == list(range(6))


def test_the_large_deck_is_one_order_for_every_rotation_R_56_5() -> None:
    """A duplicate set's k-th development card is the same whoever buys it, in
    every rotation, drawn from the 34 cards of R-56-5."""
    settings = Settings(players=6, turn_cap=300)
    seen_cards: list[list[int]] = []
    for rotation in range(3):
        seed, chance = seeded_chance(91, settings)
        cards: list[int] = []

        def hook(s: GameState, seat: int, action: Action, events: list[Event],
                 cards: list[int] = cards) -> None:
            cards.extend(e.card for e in events if isinstance(e, ev.DevCardBought))

        specs = ["heuristic", "greedy", "heuristic", "random", "greedy", "heuristic"]
        specs = specs[rotation:] + specs[:rotation]
        bots = [make_bot(spec, 91 * 8 + q) for q, spec in enumerate(specs)]
        result = play_game(bots, settings, seed, on_step=hook, chance=chance)
        assert result.state.settings.dev_deck == DEV_DECK_LARGE
        assert sum(result.state.dev_deck) + len(cards) == sum(DEV_DECK_LARGE) == 34
        seen_cards.append(cards)
        assert replay(GameLog.of(result.state)).to_dict() == result.state.to_dict()
    assert all(seen_cards)
    longest = max(seen_cards, key=len)
    assert all(cards == longest[:len(cards)] for cards in seen_cards)
    assert all(longest.count(k) <= n for k, n in enumerate(DEV_DECK_LARGE))


def test_a_six_player_duplicate_league_and_its_ratings(tmp_path: Path) -> None:
    db = tmp_path / "six.db"
    entries = [Entry("h1", "heuristic"), Entry("h2", "heuristic"), Entry("g1", "greedy"),
               Entry("g2", "greedy"), Entry("r1", "random"), Entry("r2", "random")]
    result = run_league(entries, 12, players=6, seed=5, db=db, duplicate=True)
    assert result.standings.played == 12
    conn = connect(db)
    games = load_games(conn, result.league)
    logs = [load_log(conn, g.id)[1] for g in games]
    conn.close()
    groups: dict[int, list[int]] = defaultdict(list)
    for g in games:
        groups[g.index // 6].append(g.seed)
    assert len(groups) == 2 and all(len(s) == 6 and len(set(s)) == 1 for s in groups.values())
    for log in logs:
        assert log is not None and log.settings.players == 6 and len(log.board.terrain) == 30
    # Every entry rated over its 6-seat games; the heuristic ones come out on top.
    rows = {r.name: r for r in result.standings.entries}
    assert set(rows) == {e.name for e in entries}
    assert all(r.games == 12 for r in rows.values())
    top_two = sorted(rows.values(), key=lambda r: -r.ordinal)[:2]
    assert {r.name for r in top_two} == {"h1", "h2"}
