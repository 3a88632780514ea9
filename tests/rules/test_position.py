"""Positions: built from a description, validated, with the derived facts the
engine computes; the text form round-trips."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.rules import (
    BuildRoad,
    CancelTrade,
    ConfirmTrade,
    Discard,
    EndTurn,
    GameState,
    MoveRobber,
    OfferTrade,
    Phase,
    ProposeTrade,
    RejectTrade,
    RollDice,
    RulesError,
    Settings,
    Steal,
    StopRoadBuilding,
    apply,
    legal_actions,
    may_propose,
    new_game,
    observe,
    to_act,
)
from protocol.rules import position as pos_mod
from protocol.rules.board import LUMBER, ORE, WOOL
from protocol.rules.position import (
    Position,
    SeatPosition,
    build,
    describe,
    from_text,
    parse,
    position_of,
    to_text,
)

from .helpers import BOARD, cards, edge, path

ROOT = Path(__file__).resolve().parents[2]


def _plain(s: GameState) -> dict[str, object]:
    return s.to_dict(include_log=False)


# --- round trips of real games ------------------------------------------------------


@dataclass(frozen=True)
class Game:
    settings: Settings
    seed: int
    policy: int
    steps: int


GAMES = st.builds(
    Game,
    settings=st.builds(Settings, players=st.sampled_from([2, 3, 4]),
                       vp_target=st.sampled_from([10, 7]), balanced_map=st.booleans(),
                       shuffle_harbors=st.booleans(), harbor_delay=st.booleans(),
                       strict_phases=st.booleans()),
    seed=st.integers(0, 2**40), policy=st.integers(0, 2**32),
    steps=st.sampled_from([60, 400, 1500]))


def _trade_move(s: GameState, rnd: random.Random) -> tuple[int, object] | None:
    n = s.settings.players
    q = rnd.randrange(n)
    have = [r for r in range(5) if s.hands[q][r]]
    if not have:
        return None
    g = rnd.choice(have)
    w = rnd.choice([r for r in range(5) if r != g])
    give = tuple(1 if r == g else 0 for r in range(5))
    get = tuple(1 if r == w else 0 for r in range(5))
    if s.phase == Phase.MAIN and q == s.current:
        return q, OfferTrade(give, get, None)  # type: ignore[arg-type]
    if may_propose(s, q):
        return q, ProposeTrade(give, get)  # type: ignore[arg-type]
    return None


def _round_trips(game: Game) -> int:
    s = new_game(game.settings, game.seed)
    rnd = random.Random(game.policy)
    checked = 0
    for step in range(game.steps):
        if s.phase == Phase.GAME_OVER:
            break
        move = _trade_move(s, rnd) if rnd.random() < 0.15 else None
        if move is None:
            seat = to_act(s)[0]
            move = (seat, rnd.choice(legal_actions(s, seat)))
        try:
            apply(s, move[1], move[0])  # type: ignore[arg-type]
        except RulesError:
            continue
        if rnd.random() < 0.05 or step == game.steps - 1 or s.phase == Phase.GAME_OVER:
            text = to_text(s)
            back = from_text(text)
            assert _plain(back) == _plain(s), text
            assert to_text(back) == text  # canonical
            assert _plain(build(position_of(s))) == _plain(s)
            assert back.log is None
            for q in [None, *range(s.settings.players)]:
                assert observe(back, q) == observe(s, q)
            checked += 1
    return checked


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_position_text_round_trips_on_random_games(game: Game) -> None:
    assert _round_trips(game) >= 1


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_position_text_round_trips_on_random_games_slow(game: Game) -> None:
    _round_trips(game)


def test_position_round_trip_covers_every_phase() -> None:
    seen: set[str] = set()
    for players in (2, 3, 4, 5, 6):
        for seed in range(8 if players <= 4 else 2):
            s = new_game(Settings(players=players, harbor_delay=True), seed)
            rnd = random.Random(seed)
            while s.phase != Phase.GAME_OVER:
                seat = to_act(s)[0]
                apply(s, rnd.choice(legal_actions(s, seat)), seat)
                name = Phase(s.phase).name.lower()
                if name not in seen or rnd.random() < 0.01:
                    seen.add(name)
                    assert _plain(from_text(to_text(s))) == _plain(s)
            assert _plain(from_text(to_text(s))) == _plain(s)
    assert seen >= {p.name.lower() for p in Phase} - {"trade"}


# --- positions described by a person ----------------------------------------------


def _three_seats() -> dict[str, object]:
    """A 3-player game on the fixed board, seat 1 to play after the roll."""
    return dict(
        settings=Settings(players=3), board=BOARD, current=1, turn=14, dice=(2, 4),
        seats=[
            dict(settlements=(0, 20), roads=(*path(0, 4, 8, 13, 9), edge(20, 15)),
                 hand=cards(lumber=2, brick=1), dev=(1, 0, 0, 0, 1), knights=3),
            dict(settlements=(28,), cities=(40,), roads=(*path(28, 33, 38), edge(40, 44)),
                 hand=cards(wool=1, grain=2, ore=3)),
            dict(settlements=(32, 42), roads=(edge(32, 37), edge(42, 46)),
                 hand=cards(ore=1), knights=1),
        ],
    )


def test_position_built_from_a_description_computes_the_derived_facts() -> None:
    s = describe(**_three_seats())  # type: ignore[arg-type]
    assert s.phase == Phase.MAIN and s.rolled and s.current == 1 and s.turn == 14
    assert s.road_len == [4, 2, 1]
    assert s.la_holder == 0  # 3 knights, nobody ahead (R-LA-1)
    assert s.lr_holder == -1  # 4 roads is not enough (R-LR-2)
    assert s.vp == [4, 3, 2]
    assert s.total_vp(0) == 5  # and a hidden VP card
    assert s.bank == [17, 18, 18, 17, 15]
    assert s.dev_deck == [9, 2, 2, 2, 4]  # 14 knights: 4 played, 1 in a hand
    assert s.dev_out == [4, 0, 0, 0, 0]
    assert s.pieces[1] == [12, 4, 3]
    assert s.ratios[0] == [3, 3, 3, 3, 3]  # a generic harbor on intersection 0
    assert s.ratios[2] == [3, 3, 2, 3, 3]  # generic on 32, wool 2:1 on 42
    assert s.ratios[1] == [4, 4, 4, 4, 4]
    assert s.robber == 9  # the desert
    assert s.log is None
    # It plays on like any game.
    apply(s, EndTurn(), 1)
    assert s.current == 2 and s.phase == Phase.PRE_ROLL
    apply(s, RollDice(), 2, chance=(3, 3))


def test_position_harbors_and_pending_harbors_R_OPT_3() -> None:
    kw = _three_seats()
    kw["settings"] = Settings(players=3, harbor_delay=True)
    seats = list(kw["seats"])  # type: ignore[call-overload]
    seats[1] = dict(seats[1], settlements=(28, 38), pending=(38,))
    kw["seats"] = seats
    kw["built"] = True
    s = describe(**kw)  # type: ignore[arg-type]
    assert s.pending_harbors == [(1, 38)]
    assert s.ratios[1] == [4, 4, 4, 4, 4]  # the brick harbor waits for the next turn
    apply(s, EndTurn(), 1)
    assert s.ratios[1][1] == 2


def test_position_phases_play_on() -> None:
    kw = _three_seats()
    # Discard: seat 1 holds 9 cards after a 7.
    d = describe(**{**kw, "phase": "discard", "dice": (3, 4),  # type: ignore[arg-type]
                    "seats": [kw["seats"][0],  # type: ignore[index]
                              dict(kw["seats"][1], hand=cards(wool=3, grain=3, ore=3)),  # type: ignore[index]
                              kw["seats"][2]]})  # type: ignore[index]
    assert d.discard_owed == [0, 4, 0] and to_act(d) == (1,)
    apply(d, Discard(cards(wool=2, grain=2)), 1)
    assert d.phase == Phase.MOVE_ROBBER
    # Road building after the first free road: the stop is listed.
    r = describe(**{**kw, "phase": "road_building", "free_roads": 1,  # type: ignore[arg-type]
                    "dev_played": True, "played": (4, 1, 0, 0, 0)})
    assert StopRoadBuilding() in legal_actions(r, 1)
    apply(r, StopRoadBuilding(), 1)
    assert r.phase == Phase.MAIN
    # A knight before the roll: the robber returns to pre_roll.
    k = describe(**{**kw, "phase": "move_robber", "rolls": 0, "dice": None,  # type: ignore[arg-type]
                    "dev_played": True})
    assert k.return_phase == Phase.PRE_ROLL
    apply(k, MoveRobber(13), 1)
    assert k.phase == Phase.PRE_ROLL
    # A steal with two victims on the hex (seat 0 on 20, seat 2 on 32).
    t = describe(**{**kw, "phase": "steal", "robber": 11})  # type: ignore[arg-type]
    assert t.steal_from == (0, 2)
    apply(t, Steal(2), 1, chance=(ORE,))
    assert t.hands[1][ORE] == 4 and t.phase == Phase.MAIN
    # An open offer: seat 0 accepted, seat 2 has not answered.
    o = describe(**{**kw, "phase": "trade",  # type: ignore[arg-type]
                    "offer": (cards(wool=1), cards(lumber=1)), "answers": "y-?"})
    assert to_act(o) == (2,)
    assert legal_actions(o, 1) == [ConfirmTrade(0), CancelTrade()]
    apply(o, RejectTrade(), 2)
    apply(o, ConfirmTrade(0), 1)
    assert o.hands[1][LUMBER] == 1 and o.hands[0][WOOL] == 1


def test_position_text_is_short_and_readable() -> None:
    s = describe(**_three_seats())  # type: ignore[arg-type]
    text = to_text(s)
    assert text.startswith("kaitaku/1 p=3 board=")
    assert "#0 s=0,20" in text and "h=L2B1" in text and "d=K1V1" in text and "k=3" in text
    assert len(text) < 400
    assert _plain(from_text(text)) == _plain(s)


def test_position_examples_in_the_docs_are_legal() -> None:
    """Every example in docs/ENGINE.md (one per line) and the module's docstring
    (continued on indented lines) is a legal position."""
    doc = (ROOT / "docs" / "ENGINE.md").read_text(encoding="utf-8")
    texts = re.findall(r"^kaitaku/1 .*$", doc, re.M)
    m = re.search(r"^ {4}(kaitaku/1 .*(?:\n {6}.*)*)", pos_mod.__doc__ or "", re.M)
    assert m is not None
    texts.append(" ".join(m.group(1).split()))
    assert len(texts) >= 3
    for text in texts:
        s = from_text(text)
        assert to_text(s) == text


# --- errors -------------------------------------------------------------------------


def _text(**changes: str) -> str:
    base = to_text(describe(**_three_seats()))  # type: ignore[arg-type]
    for old, new in changes.items():
        assert old.replace("_", " ") in base or old in base, (old, base)
        base = base.replace(old.replace("_", " "), new, 1)
    return base


BAD_TEXTS = {
    "header": ("kaitaku/9 p=3", "starts with"),
    "no players": ("kaitaku/1 cur=0", "p= (the number of players)"),
    "unknown key": ("kaitaku/1 p=3 colour=red", "unknown key 'colour'"),
    "twice": ("kaitaku/1 p=3 cur=0 cur=1", "given twice"),
    "not key=value": ("kaitaku/1 p=3 hello", "not key=value"),
    "bad seat": ("kaitaku/1 p=3 #5 s=1", "a seat 0..2"),
    "bad cards": ("kaitaku/1 p=3 #0 h=X2", "a letter of LBWGO"),
    "bad number": ("kaitaku/1 p=3 turn=ten", "not a number"),
    "bad option": ("kaitaku/1 p=3 opt=fast", "opt: 'fast'"),
    "players": ("kaitaku/1 p=7", "settings"),
}


@pytest.mark.parametrize("name", sorted(BAD_TEXTS))
def test_position_text_errors(name: str) -> None:
    text, message = BAD_TEXTS[name]
    with pytest.raises(RulesError) as info:
        from_text(text)
    assert info.value.code == "bad_position"
    assert message in str(info.value), str(info.value)


def _seats(**changes: dict[str, object]) -> dict[str, object]:
    kw = _three_seats()
    seats = [dict(x) for x in kw["seats"]]  # type: ignore[attr-defined]
    for key, change in changes.items():
        q = int(key[1:])
        seats[q].update(change)
    kw["seats"] = seats
    return kw


BAD_POSITIONS: dict[str, tuple[dict[str, object], str]] = {
    "overlap": (_seats(s2=dict(settlements=(0, 42))), "intersection 0 has two buildings"),
    "road twice": (_seats(s2=dict(roads=(edge(0, 4), edge(42, 46)))), "has two roads"),
    "distance": (_seats(s2=dict(settlements=(32, 42, 3), roads=(edge(32, 37), edge(42, 46),
                                                              edge(3, 7)))),
                 "distance rule"),
    "detached road": (_seats(s2=dict(roads=(edge(32, 37), edge(42, 46), edge(12, 17)))),
                      "not connected"),
    "no road": (_seats(s2=dict(settlements=(32, 42, 50), roads=(edge(32, 37), edge(42, 46)))),
                "touches none of its roads"),
    "cards": (_seats(s0=dict(hand=cards(ore=10)), s1=dict(hand=cards(ore=10))),
              "the hands hold 21 ore"),
    "dev cards": (_seats(s0=dict(dev=(0, 0, 0, 0, 6))), "more development cards of kind V"),
    "bought off turn": (_seats(s0=dict(dev=(1, 0, 0, 0, 1), dev_new=(0, 0, 0, 0, 1))),
                        "not on turn"),
    "holder": ({**_three_seats(), "largest_army": 2}, "Largest Army: owner 2 cannot hold it"),
    "one building": (_seats(s2=dict(settlements=(32,), roads=(edge(32, 37),))),
                     "set-up gives everyone two"),
    "phase": ({**_three_seats(), "phase": "lunch"}, "unknown phase"),
    "no dice": ({**_three_seats(), "dice": None}, "give the dice"),
    "discard without a 7": ({**_three_seats(), "phase": "discard"},
                            "the discard phase needs a seat that owes"),
    "neutrals in 3p": ({**_three_seats(), "neutrals": [dict(), dict()]},
                       "2-player game only"),
    "proposal by the current seat": (_seats(s1=dict(proposal=(cards(ore=1), cards(wool=1)))),
                                     "does not propose to itself"),
    "road_building without a card": ({**_three_seats(), "phase": "road_building"},
                                     "follows a played Road Building"),
}


@pytest.mark.parametrize("name", sorted(BAD_POSITIONS))
def test_position_errors_say_what_is_wrong(name: str) -> None:
    kw, message = BAD_POSITIONS[name]
    with pytest.raises(RulesError) as info:
        describe(**kw)  # type: ignore[arg-type]
    assert info.value.code == "bad_position"
    assert message in str(info.value), str(info.value)


def test_position_seat_on_turn_cannot_have_won() -> None:
    kw = _seats(s1=dict(dev=(0, 0, 0, 0, 2)))  # 3 VP on the board, 2 hidden
    kw["settings"] = Settings(players=3, vp_target=5)
    with pytest.raises(RulesError, match="would be over"):
        describe(**kw)  # type: ignore[arg-type]
    done = describe(**{**kw, "phase": "game_over", "winner": 1})  # type: ignore[arg-type]
    assert done.winner == 1 and observe(done, 0)["winner"] == 1


def test_position_two_player_game() -> None:
    s = describe(settings=Settings(players=2), board=BOARD, current=0, turn=5, dice=(1, 2),
                 seats=[dict(settlements=(0, 20), roads=(edge(0, 4), edge(20, 15)),
                             hand=cards(lumber=1, brick=1), tokens=4),
                        dict(settlements=(32, 42), roads=(edge(32, 37), edge(42, 46)),
                             tokens=6)],
                 neutrals=[dict(settlements=(22,), roads=(edge(22, 28),)), dict(
                     settlements=(31,))])
    assert s.token_stock == 10 and s.road_len[2] == 1
    apply(s, BuildRoad(edge(4, 8)), 0)
    assert s.phase == Phase.NEUTRAL_ROAD
    text = to_text(s)
    assert "#n2 s=22 r=" in text and "phase=neutral_road" in text
    assert _plain(from_text(text)) == _plain(s)


def test_position_parse_and_build_are_separate() -> None:
    p = parse("kaitaku/1 p=3 cur=2 phase=pre_roll turn=7")
    assert isinstance(p, Position) and p.current == 2 and p.turn == 7
    assert p.seats == (SeatPosition(),) * 3
    with pytest.raises(RulesError, match="two settlements"):
        build(p)
    q = replace(p, phase="setup_settlement", turn=0, first_seat=2)
    s = build(q)
    assert s.phase == Phase.SETUP_SETTLEMENT and s.current == 2
    assert legal_actions(s, 2)[0].name == "build_settlement"
