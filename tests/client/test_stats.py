"""End-of-game statistics folded from the events a client received
(:mod:`client.stats`), checked against the engine's own record of a real game."""

from __future__ import annotations

from typing import Any

from client.canned import model_from_state, play_until
from client.model import ClientModel
from client.stats import GameStats, expected_rolls
from protocol.rules import Phase


def finished_game(players: int = 4, seed: int = 3) -> tuple[Any, list[list[Any]]]:
    return play_until(lambda s: s.phase == Phase.GAME_OVER, players=players, seed=seed,
                      max_steps=1 << 30)


def full_events(history: list[list[Any]]) -> list[dict[str, Any]]:
    return [e.to_dict() for batch in history for e in batch]


def test_a_whole_game_adds_up_to_what_the_engine_recorded() -> None:
    state, history = finished_game()
    events = full_events(history)
    m = model_from_state(state, 0, history)
    stats = m.stats
    assert stats.complete and stats.missing is None
    assert stats.version == len(history)
    # the dice: every roll, and the model's own histogram agrees
    rolls = [sum(e["dice"]) for e in events if e["type"] == "dice_rolled"]
    assert sum(stats.dice) == len(rolls) == sum(m.dice)
    assert all(stats.dice[t] == rolls.count(t) for t in range(2, 13))
    # production is public: each seat's total equals the engine's events
    for q in range(4):
        produced = [0] * 5
        for e in events:
            if e["type"] == "produced":
                produced = [a + b for a, b in zip(produced, e["gains"][q], strict=True)]
            elif e["type"] == "setup_income" and e["seat"] == q:
                produced = [a + b for a, b in zip(produced, e["cards"], strict=True)]
        assert stats.seats[q].produced == produced
    # steals: the counts are public
    for q in range(4):
        took = sum(e["count"] for e in events if e["type"] == "stolen" and e["thief"] == q)
        lost = sum(e["count"] for e in events if e["type"] == "stolen" and e["victim"] == q)
        assert (stats.seats[q].stole, stats.seats[q].robbed) == (took, lost)
    # trades: what one seat gave the other received
    assert sum(s.traded_gave for s in stats.seats) == sum(s.traded_got for s in stats.seats)
    bank = [e for e in events if e["type"] == "maritime_traded"]
    assert sum(s.bank_got for s in stats.seats) == len(bank)
    assert sum(s.bank_gave for s in stats.seats) == sum(e["count"] for e in bank)
    # victory points: the last sample is the final score, the one before it the public
    # points (and this seat's own cards) at the last turn's start
    over = next(e for e in events if e["type"] == "game_over")
    assert stats.final == list(over["scores"]) and stats.winner == over["winner"]
    assert stats.vp_series[-1][1][:4] == list(over["scores"])
    turns = [e["turn"] for e in events if e["type"] == "turn_started"]
    assert [t for t, _ in stats.vp_series[:-1]] == turns
    public = [state.vp[q] for q in range(4)]
    assert [stats.public_vp[q] for q in range(4)] == public
    assert stats.vp_series[0][1][:4] == [2, 2, 2, 2]  # two settlements each after set-up


def test_only_this_seats_steals_show_which_resource() -> None:
    state, history = finished_game(seed=5)
    events = full_events(history)
    steals = [e for e in events if e["type"] == "stolen" and e["count"]]
    assert steals, "the game had no steal: pick another seed"
    for seat in range(4):
        stats = model_from_state(state, seat, history).stats
        for q in range(4):
            known = [0] * 5
            for e in steals:
                if e["thief"] == q and seat in (e["thief"], e["victim"]):
                    known[e["resource"]] += 1
            assert stats.seats[q].stole_cards == known, (seat, q)
    spectator = model_from_state(state, None, history).stats
    assert all(not any(s.stole_cards) and not any(s.robbed_cards) for s in spectator.seats)
    # ...but the counts are the same for everyone
    assert [s.stole for s in spectator.seats] == [s.stole for s in stats.seats]


def test_a_client_that_joined_mid_game_says_history_is_missing() -> None:
    state, history = finished_game()
    late = ClientModel()
    for i, batch in enumerate(history[100:], start=101):
        late.apply({"type": "events", "version": i, "events": [e.to_dict() for e in batch]})
    assert not late.stats.complete and late.stats.missing == "start"
    gap = GameStats()
    for i, batch in enumerate(history, start=1):
        if i not in (40, 41):  # two batches lost on the way
            gap.feed(i, [e.to_dict() for e in batch])
    assert not gap.complete and gap.missing == "gap" and gap.gaps == 2
    # the table's history from the start (a resuming client): complete again
    for i, batch in enumerate(history, start=1):
        gap.feed(i, [e.to_dict() for e in batch])
    assert gap.complete and gap.final is not None
    # a batch seen twice counts once
    again = GameStats()
    for i, batch in enumerate(history[:50], start=1):
        again.feed(i, [e.to_dict() for e in batch])
        again.feed(i, [e.to_dict() for e in batch])
    once = GameStats()
    for i, batch in enumerate(history[:50], start=1):
        once.feed(i, [e.to_dict() for e in batch])
    assert again.dice == once.dice and again.seats == once.seats


def test_the_two_player_game_leaves_the_neutrals_out() -> None:
    state, history = finished_game(players=2, seed=4)
    stats = model_from_state(state, 0, history).stats
    assert stats.players == 2
    assert stats.public_vp[2:] == [0, 0, 0, 0]  # neutral settlements score nothing
    assert stats.final is not None and len(stats.final) == 2


def test_hostile_events_are_ignored() -> None:
    stats = GameStats()
    stats.feed(1, [{"type": "produced", "gains": "x"}, {"type": "stolen", "thief": 9,
                                                       "victim": -1, "count": 10**9},
                   {"type": "dice_rolled", "dice": ["a", 3]}, {"type": "settlement_built",
                                                               "seat": True},
                   "not an event", {"type": "game_over", "scores": [None]}])
    assert stats.dice == [0] * 13 and stats.final is None
    assert all(s == type(s)() for s in stats.seats)


def test_expected_rolls() -> None:
    assert expected_rolls(7, 36) == 6 and expected_rolls(2, 36) == 1
    assert abs(sum(expected_rolls(t, 100) for t in range(2, 13)) - 100) < 1e-9
