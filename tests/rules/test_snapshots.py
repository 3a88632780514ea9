"""Snapshots (``GameState.to_dict``/``from_dict``): derived facts recomputed,
contradictions refused, older formats loaded; the view's plain facts."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.rules import (
    GameState,
    Phase,
    RulesError,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)
from protocol.rules.board import EDGE_NODES, HARBOR_EDGES
from protocol.rules.check import holder

from .helpers import cards, edge, path


def played(seed: int, steps: int, settings: Settings | None = None) -> GameState:
    s = new_game(settings or Settings(players=4), seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if s.phase == Phase.GAME_OVER:
            break
        seat = to_act(s)[0]
        apply(s, rnd.choice(legal_actions(s, seat)), seat)
    return s


def midgame(seed: int, steps: int) -> GameState:
    """A random game after ``steps`` actions, not over yet (the first such seed)."""
    for k in range(seed, seed + 50):
        s = played(k, steps)
        if s.phase != Phase.GAME_OVER:
            return s
    raise AssertionError("every game ended")


def with_longest_road() -> GameState:
    """A random game in which someone holds Longest Road."""
    for seed in range(200):
        s = new_game(Settings(players=4), seed)
        rnd = random.Random(seed)
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            apply(s, rnd.choice(legal_actions(s, seat)), seat)
            if s.lr_holder >= 0 and s.phase == Phase.MAIN:
                return s
    raise AssertionError("no game with Longest Road")


def test_from_dict_recomputes_stale_road_lengths() -> None:
    s = with_longest_road()
    d = s.to_dict()
    d["road_len"] = [0] * len(d["road_len"])  # an older snapshot's stale lengths
    d["lr_holder"] = -1
    restored = GameState.from_dict(d)
    assert restored.road_len == s.road_len
    assert restored.lr_holder == s.lr_holder  # the one longest owner takes it back
    assert restored.vp == s.vp
    assert observe(restored, 0)["longest_road"] == s.lr_holder


def test_from_dict_recomputes_holders_and_vp() -> None:
    s = with_longest_road()
    d = s.to_dict()
    holder_seat = s.lr_holder
    d["lr_holder"] = (holder_seat + 1) % 4  # not the longest: corrected
    restored = GameState.from_dict(d)
    if s.road_len[(holder_seat + 1) % 4] < s.road_len[holder_seat]:
        assert restored.lr_holder == holder_seat
    assert restored.vp == [GameState.from_dict(s.to_dict()).vp[q] for q in range(4)]


def test_from_dict_loads_the_previous_format() -> None:
    s = midgame(3, 700)
    d = s.to_dict()
    # The format before proposals: winner -1, no proposal keys, first_sum stored.
    d["winner"] = -1
    del d["proposals"]
    del d["proposals_made"]
    d["first_sum"] = 9
    restored = GameState.from_dict(d)
    assert restored.winner is None
    assert restored.proposals == {} and restored.proposals_made == [0] * 4
    assert restored.to_dict() == s.to_dict()
    over = played(1, 100_000)
    assert over.phase == Phase.GAME_OVER and over.winner is not None
    d = over.to_dict()
    assert GameState.from_dict(d).winner == over.winner


def test_from_dict_winner_is_none_or_a_seat() -> None:
    s = played(3, 40)
    assert s.winner is None and s.to_dict()["winner"] is None
    assert observe(s, 1)["winner"] is None
    over = played(1, 100_000)
    assert observe(over, 2)["winner"] == over.winner == over.to_dict()["winner"]


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        d[key] = value
    return change


def _poke(key: str, index: int, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        d[key][index] = value
    return change


def _hand(q: int, r: int, delta: int) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        d["hands"][q][r] += delta
    return change


def _many_roads(d: dict[str, Any]) -> None:
    d["edge_owner"] = [0] * 72  # 72 roads for seat 0


def _city_without_owner(d: dict[str, Any]) -> None:
    d["node_level"][0] = 2
    d["node_owner"][0] = -1


def _trade_outside_trade(d: dict[str, Any]) -> None:
    d["trade"] = {"offerer": d["current"], "give": [1, 0, 0, 0, 0], "get": [0, 1, 0, 0, 0],
                  "status": [-1, 0, 0, 0], "counters": [None] * 4}


def _proposal_by_the_current_player(d: dict[str, Any]) -> None:
    d["proposals"] = [[d["current"], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]]
    d["proposals_made"][d["current"]] = 1


def _dev_card_twice(d: dict[str, Any]) -> None:
    d["dev_hand"][1][0] += 1  # a knight in a hand and still in the deck


CORRUPTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "bank": _poke("bank", 0, 0),
    "hand": _hand(1, 2, 1),
    "negative hand": _hand(2, 0, -50),
    "dev deck": _dev_card_twice,
    "pieces": _many_roads,
    "building without owner": _city_without_owner,
    "trade outside the trade phase": _trade_outside_trade,
    "proposal by the current player": _proposal_by_the_current_player,
    "phase name": _set("phase", "lunch"),
    "current seat": _set("current", 7),
    "turn type": _set("turn", "12"),
    "rolled": _set("rolled", 1),
    "winner mid-game": _set("winner", 2),
    "discard outside discard": _poke("discard_owed", 1, 3),
    "settings": _set("settings", {"players": 9}),
    "board": _set("board", {"terrain": [0] * 19, "numbers": [0] * 19, "harbors": [5] * 9}),
    "missing field": lambda d: d.pop("hands"),
    "not a list": _set("node_owner", 5),
    "log": _set("log", [["x"]]),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_from_dict_refuses_inconsistent_snapshots(name: str) -> None:
    s = midgame(7, 600)
    d = copy.deepcopy(s.to_dict())
    CORRUPTIONS[name](d)
    with pytest.raises(RulesError) as info:
        GameState.from_dict(d)
    assert info.value.code == "bad_position"
    assert str(info.value)


def test_from_dict_refuses_a_trade_answer_by_a_seat_without_the_cards() -> None:
    s = midgame(11, 400)
    # Find a main phase with an opponent short of some resource, then pretend it accepted.
    for _ in range(2000):
        if s.phase == Phase.MAIN:
            short = [(q, r) for q in range(4) for r in range(5)
                     if q != s.current and s.hands[q][r] == 0 and s.hands[s.current][0] > 0]
            if short:
                break
        seat = to_act(s)[0]
        apply(s, random.Random(1).choice(legal_actions(s, seat)), seat)
    q, r = short[0]
    d = s.to_dict()
    d["phase"] = "trade"
    get = [0] * 5
    get[r] = 1
    status = [0] * 4
    status[s.current] = -1
    status[q] = 1
    d["trade"] = {"offerer": s.current, "give": [1, 0, 0, 0, 0] if r else [0, 1, 0, 0, 0],
                  "get": get, "status": status, "counters": [None] * 4}
    with pytest.raises(RulesError, match="bad_position|accepted|holds"):
        GameState.from_dict(d)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_from_dict_mutations_load_or_refuse(data: st.DataObject) -> None:
    """Any mutation of a snapshot either loads into a state that round-trips, or
    raises RulesError: never another exception."""
    s = played(data.draw(st.integers(0, 5)), data.draw(st.sampled_from([0, 10, 300, 600])))
    d = s.to_dict(include_log=False)
    key = data.draw(st.sampled_from(sorted(d)))
    value = d[key]
    if isinstance(value, list) and value and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(value) - 1))
        value = list(value)
        value[i] = data.draw(st.one_of(st.integers(-3, 30), st.none(), st.text(max_size=2),
                                       st.lists(st.integers(-1, 5), max_size=6)))
    else:
        value = data.draw(st.one_of(st.integers(-3, 100), st.none(), st.booleans(),
                                    st.text(max_size=3), st.lists(st.integers(0, 3),
                                                                  max_size=5)))
    d[key] = value
    try:
        restored = GameState.from_dict(d)
    except RulesError as exc:
        assert exc.code == "bad_position"
        return
    again = GameState.from_dict(msgpack.unpackb(msgpack.packb(restored.to_dict())))
    assert again == restored


def test_holder_rules() -> None:
    assert holder(-1, [5, 4, 3], 5) == 0
    assert holder(-1, [5, 5, 3], 5) == -1  # a tie: aside (R-LR-3)
    assert holder(1, [5, 5, 3], 5) == 1  # the holder keeps it on a tie (R-LR-2)
    assert holder(1, [6, 5, 3], 5) == 0
    assert holder(0, [4, 3, 3], 5) == -1
    assert holder(-1, [3, 0, 0], 3) == 0


# --- the view's plain facts (harbors, winner, two-player owners) ------------------------


def test_view_lists_the_harbors_with_their_nodes() -> None:
    s = new_game(Settings(players=3, shuffle_harbors=True), 5)
    harbors = observe(s, 0)["harbors"]
    assert [h[0] for h in harbors] == list(HARBOR_EDGES)
    for (e, a, b, kind), printed in zip(harbors, s.board.harbors, strict=True):
        assert (a, b) == EDGE_NODES[e]
        assert kind == printed
    assert observe(s, None)["harbors"] == harbors


def test_view_in_the_two_player_game_names_the_neutral_owners() -> None:
    s = played(2, 60, Settings(players=2))
    view = observe(s, 0)
    assert len(view["seats"]) == 2
    assert [nt["owner"] for nt in view["neutrals"]] == [2, 3]
    assert {o for _, o, _ in view["buildings"]} >= {2, 3}


def test_scenario_positions_snapshot() -> None:
    from .helpers import build, give, scenario

    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12, 17, 23, 29, 35))
    give(s, 0, cards(lumber=1))
    assert s.road_len[0] == 5
    d = s.to_dict()
    d["road_len"][0] = 0
    restored = GameState.from_dict(d)
    assert restored.road_len[0] == 5 and restored.lr_holder == 0 and restored.vp[0] == 3
    assert edge(7, 12) in restored.roads[0]


def test_from_dict_loads_snapshots_of_the_previous_engine() -> None:
    """Snapshots written by the engine of protocol 1.2 (tests/rules/data: 30 of
    them, every phase, 2-4 players, sea3D options) load, with the same VP, road
    lengths and holders, and the same legal actions, except what the corrected
    rules add: the stop of Road Building (R-DEV-5) and, with strict phases,
    maritime and forced trade after a build (R-OPT-4)."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "snapshots_1_2.json").read_text())
    assert len(data) == 30
    for case in data:
        s = GameState.from_dict(case["snapshot"])
        why = case["why"]
        assert s.vp == case["vp"] and s.road_len == case["road_len"], why
        assert (s.lr_holder, s.la_holder) == (case["lr"], case["la"]), why
        old = case["legal"]
        new = [a.to_dict() for a in legal_actions(s, case["seat"])]
        assert all(a in new for a in old), why
        added = {a["type"] for a in new if a not in old}
        allowed = {"stop_road_building"}
        if s.settings.strict_phases and s.built:
            allowed |= {"maritime_trade", "token_forced_trade"}
        assert added <= allowed, (why, added)
        if s.phase != Phase.GAME_OVER:  # and it plays on
            seat = to_act(s)[0]
            apply(s, legal_actions(s, seat)[0], seat)
        again = GameState.from_dict(s.to_dict())
        assert again == s
