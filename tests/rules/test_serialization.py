"""Plain-data forms: actions (round trip and MalformedAction), events (msgpack-able),
settings validation, game logs."""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.rules import (
    ACTION_TYPES,
    EVENT_TYPES,
    AcceptProposal,
    AcceptTrade,
    Action,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    Discard,
    DiscardKnight,
    EndTurn,
    Event,
    GameLog,
    GameState,
    GiveBack,
    InvalidLog,
    MalformedAction,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    RollDice,
    RulesError,
    Settings,
    Steal,
    StopRoadBuilding,
    TokenForcedTrade,
    TokenRobberHome,
    WithdrawProposal,
    action_from_dict,
    apply,
    event_from_dict,
    legal_actions,
    new_game,
    redact,
    replay,
    to_act,
)
from protocol.rules import events as ev_mod

SMALL = st.integers(0, (1 << 16) - 1)
CARDS = st.tuples(SMALL, SMALL, SMALL, SMALL, SMALL)


def is_cards(cls: type[Action], field: str) -> bool:
    """Fields that hold 5 resource counts (the others are single integers)."""
    return field == "cards" or (cls in (OfferTrade, CounterOffer, ProposeTrade)
                                and field in ("give", "get"))


ACTIONS: st.SearchStrategy[Action] = st.one_of(
    st.builds(BuildRoad, SMALL),
    st.builds(BuildSettlement, SMALL),
    st.builds(BuildCity, SMALL),
    st.just(BuyDevCard()),
    st.just(PlayKnight()),
    st.just(PlayRoadBuilding()),
    st.builds(PlayYearOfPlenty, SMALL, st.none() | SMALL),
    st.builds(PlayMonopoly, SMALL),
    st.just(RollDice()),
    st.builds(Discard, CARDS),
    st.builds(MoveRobber, SMALL),
    st.builds(Steal, SMALL),
    st.builds(MaritimeTrade, SMALL, SMALL),
    st.builds(OfferTrade, CARDS, CARDS, st.none() | SMALL),
    st.just(AcceptTrade()),
    st.just(RejectTrade()),
    st.builds(CounterOffer, CARDS, CARDS),
    st.builds(ConfirmTrade, SMALL),
    st.just(CancelTrade()),
    st.just(EndTurn()),
    st.builds(BuildNeutralRoad, SMALL, SMALL),
    st.builds(BuildNeutralSettlement, SMALL, SMALL),
    st.just(TokenForcedTrade()),
    st.builds(GiveBack, CARDS),
    st.just(TokenRobberHome()),
    st.just(DiscardKnight()),
    st.just(StopRoadBuilding()),
    st.builds(ProposeTrade, CARDS, CARDS),
    st.builds(AcceptProposal, SMALL),
    st.builds(RejectProposal, SMALL),
    st.just(WithdrawProposal()),
)


def example_of(cls: type[Action]) -> Action:
    """One valid instance of each action type."""
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        kwargs[f.name] = (1, 0, 2, 0, 3) if is_cards(cls, f.name) else 3
    return cls(**kwargs)


ALL_EXAMPLES = [example_of(cls) for cls in ACTION_TYPES.values()]


# --- actions: round trip -------------------------------------------------------------


def test_action_types_are_complete() -> None:
    assert len(ACTION_TYPES) == 31
    for name, cls in ACTION_TYPES.items():
        assert cls.name == name
    # Every Action subclass is registered (by name: slotted dataclasses leave
    # their pre-slots class behind among the subclasses).
    assert {c.name for c in Action.__subclasses__()} == set(ACTION_TYPES)


@pytest.mark.parametrize("action", ALL_EXAMPLES, ids=lambda a: a.name)
def test_every_action_type_round_trips(action: Action) -> None:
    d = action.to_dict()
    assert d["type"] == action.name
    assert action_from_dict(d) == action
    assert action_from_dict(msgpack.unpackb(msgpack.packb(d))) == action


@settings(max_examples=300, deadline=None)
@given(ACTIONS)
def test_random_actions_round_trip(action: Action) -> None:
    d = action.to_dict()
    assert action_from_dict(d) == action
    wire = msgpack.unpackb(msgpack.packb(d))
    assert wire == d
    assert action_from_dict(wire) == action


def test_trade_offers_round_trip() -> None:
    for a in (
        OfferTrade((1, 0, 0, 0, 0), (0, 2, 0, 0, 0)),
        OfferTrade((1, 0, 0, 0, 0), (0, 2, 0, 0, 0), to=2),
        OfferTrade((0, 0, 0, 0, 0), (0, 0, 0, 0, 0), to=0),
        CounterOffer((0, 0, 1, 1, 0), (3, 0, 0, 0, 0)),
        PlayYearOfPlenty(4, None),
    ):
        assert action_from_dict(a.to_dict()) == a
        assert action_from_dict(msgpack.unpackb(msgpack.packb(a.to_dict()))) == a
    # ``to`` may be left out: an offer to everybody.
    d = OfferTrade((1, 0, 0, 0, 0), (0, 1, 0, 0, 0)).to_dict()
    del d["to"]
    assert action_from_dict(d) == OfferTrade((1, 0, 0, 0, 0), (0, 1, 0, 0, 0), None)


def test_parsed_cards_are_tuples() -> None:
    a = action_from_dict({"type": "discard", "cards": [1, 2, 3, 4, 5]})
    assert a == Discard((1, 2, 3, 4, 5))
    assert isinstance(a, Discard) and isinstance(a.cards, tuple)
    b = action_from_dict({"type": "offer_trade", "give": [1, 0, 0, 0, 0],
                          "get": [0, 1, 0, 0, 0], "to": None})
    assert isinstance(b, OfferTrade) and isinstance(b.give, tuple) and isinstance(b.get, tuple)
    assert hash(a) == hash(Discard((1, 2, 3, 4, 5)))


def test_unknown_extra_fields_are_ignored() -> None:
    assert action_from_dict({"type": "build_road", "edge": 4, "colour": "red"}) == BuildRoad(4)
    assert action_from_dict({"type": "end_turn", "edge": "x"}) == EndTurn()


# --- actions: MalformedAction ---------------------------------------------------------

BAD_SCALARS: list[object] = [
    -1, -(1 << 20), 1 << 16, 1 << 70, True, False, 1.0, 2.5, "3", "", None, [1], (1,), {}, b"1",
]
BAD_CARDS: list[object] = [
    [1, 0, 0, 0], [1, 0, 0, 0, 0, 0], [], [0] * 10, [True, 0, 0, 0, 0], [0, 0, 0, 0, False],
    [-1, 0, 0, 0, 0], [0, 0, 0, 0, 1 << 16], ["1", 0, 0, 0, 0], [1.0, 0, 0, 0, 0],
    [None, 0, 0, 0, 0], [[1], 0, 0, 0, 0], "12345", "abcde", 5, None, {"0": 1}, True,
    {0: 1, 1: 0, 2: 0, 3: 0, 4: 0}, b"\x01\x00\x00\x00\x00",
]


@pytest.mark.parametrize("data", [
    None, 1, "build_road", [], ["build_road", 1], (("type", "end_turn"),), b"x",
    {}, {"edge": 1}, {"type": None}, {"type": 1}, {"type": True}, {"type": ["end_turn"]},
    {"type": "nope"}, {"type": "BuildRoad", "edge": 1}, {"type": "Build_Road", "edge": 1},
    {"type": " end_turn"}, {"type": "action"}, {"type": "event"}, {"type": "stolen"},
    {"type": b"end_turn"},
])
def test_not_an_action_is_malformed(data: object) -> None:
    with pytest.raises(MalformedAction):
        action_from_dict(data)


def test_malformed_action_is_a_rules_error() -> None:
    assert issubclass(MalformedAction, RulesError)
    with pytest.raises(RulesError) as info:
        action_from_dict({"type": "nope"})
    assert info.value.code == "malformed_action"


def _fieldful() -> list[tuple[type[Action], str]]:
    return [(cls, f.name) for cls in ACTION_TYPES.values() for f in fields(cls)]


@pytest.mark.parametrize(("cls", "field"), _fieldful(), ids=lambda x: getattr(x, "name", x))
def test_missing_field_is_malformed(cls: type[Action], field: str) -> None:
    d = example_of(cls).to_dict()
    del d[field]
    if field == "to":  # documented default: an offer to everybody
        assert action_from_dict(d) == replace_to_none(example_of(cls))
        return
    with pytest.raises(MalformedAction):
        action_from_dict(d)


def replace_to_none(a: Action) -> Action:
    assert isinstance(a, OfferTrade)
    return OfferTrade(a.give, a.get, None)


@pytest.mark.parametrize(("cls", "field"), _fieldful(), ids=lambda x: getattr(x, "name", x))
def test_wrong_field_values_are_malformed(cls: type[Action], field: str) -> None:
    bad = BAD_CARDS if is_cards(cls, field) else BAD_SCALARS
    for value in bad:
        if value is None and field in ("to", "second"):
            continue  # nil is allowed there
        d = example_of(cls).to_dict()
        d[field] = value
        with pytest.raises(MalformedAction):
            action_from_dict(d)
            pytest.fail(f"{cls.name}.{field} = {value!r} was accepted")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(
    st.sampled_from(["type", "edge", "node", "hex", "victim", "give", "get", "to", "cards",
                     "first", "second", "resource", "seat", "x"]),
    st.none() | st.booleans() | st.integers(-3, 1 << 17) | st.floats() | st.text(max_size=3)
    | st.sampled_from(sorted(ACTION_TYPES)) | st.lists(st.integers(-2, 3), max_size=7),
))
def test_fuzzed_dicts_parse_or_raise_malformed(d: dict[str, Any]) -> None:
    """Any map either parses into an action that round-trips, or raises MalformedAction."""
    try:
        a = action_from_dict(d)
    except MalformedAction:
        return
    assert isinstance(a, Action)
    assert action_from_dict(a.to_dict()) == a
    for f in fields(a):
        v = getattr(a, f.name)
        if isinstance(v, tuple):
            assert len(v) == 5 and all(type(x) is int and x >= 0 for x in v)
        else:
            assert v is None or (type(v) is int and v >= 0)


# --- events -------------------------------------------------------------------------


def test_event_types_are_complete() -> None:
    assert len(EVENT_TYPES) == 35
    for name, cls in EVENT_TYPES.items():
        assert cls.name == name
    assert {c.name for c in Event.__subclasses__()} == set(EVENT_TYPES)


def sample_events() -> list[Event]:
    """One instance of each event type, with every optional field set and unset."""
    c = (1, 0, 2, 0, 0)
    return [
        ev_mod.TurnStarted(1, 5), ev_mod.TurnEnded(1), ev_mod.DiceRolled(2, (3, 4)),
        ev_mod.Produced((c, c, (0, 0, 0, 0, 0)), (3,)), ev_mod.Produced((c,), ()),
        ev_mod.SetupIncome(0, c), ev_mod.DiscardsOwed((4, 0, 5)), ev_mod.Discarded(2, c),
        ev_mod.RobberMoved(0, 7), ev_mod.Stolen(0, 1, 1, 3), ev_mod.Stolen(0, 1, 0, None),
        ev_mod.RoadBuilt(1, 30, True), ev_mod.SettlementBuilt(1, 20, False),
        ev_mod.CityBuilt(1, 20), ev_mod.DevCardBought(2, 4), ev_mod.DevCardBought(2, None),
        ev_mod.DevCardPlayed(2, 0), ev_mod.YearOfPlentyTaken(1, c),
        ev_mod.MonopolyTaken(1, 2, (0, 3, 0, 1)), ev_mod.MaritimeTraded(0, 1, 4, 2),
        ev_mod.TradeOffered(0, c, (0, 1, 0, 0, 0), (1, 2, 3)), ev_mod.TradeAnswered(2, True),
        ev_mod.TradeCountered(2, (0, 1, 0, 0, 0), c), ev_mod.TradeCompleted(0, 2, c, c),
        ev_mod.TradeCancelled(0), ev_mod.LongestRoadChanged(None, 5),
        ev_mod.LongestRoadChanged(3, 6), ev_mod.LargestArmyChanged(1, 3),
        ev_mod.LargestArmyChanged(None, 3), ev_mod.GameOver(2, (10, 4, 5), (1, 0, 0)),
        ev_mod.GameOver(None, (3, 4, 5), (0, 0, 0)),
        ev_mod.TokensGained(0, 2, "settlement"), ev_mod.TokensSpent(1, 2, "forced_trade"),
        ev_mod.ForcedTradeDrawn(0, 1, 2, (1, 1, 0, 0, 0)), ev_mod.GaveBack(0, 1, 2, c),
        ev_mod.KnightDiscarded(1, 2), ev_mod.TradeProposed(1, c, (0, 1, 0, 0, 0)),
        ev_mod.ProposalRejected(1), ev_mod.ProposalWithdrawn(2), ev_mod.RoadBuildingStopped(0),
        ev_mod.SpecialBuildStarted(1),
    ]


def test_events_parse_from_their_plain_form() -> None:
    for e in sample_events():
        for seat in (None, 0, 1, 2, 3):
            r = e.for_seat(seat)
            assert event_from_dict(msgpack.unpackb(msgpack.packb(r.to_dict()))) == r
    assert event_from_dict({"type": "from_a_newer_server", "seat": 1}) is None
    assert event_from_dict({"type": "turn_ended"}) is None  # a field missing
    assert event_from_dict({"type": ["not", "a", "name"]}) is None
    assert event_from_dict([1, 2]) is None


def check_event_plain(e: Event) -> None:
    d = e.to_dict()
    assert d["type"] == e.name
    assert set(d) == {"type"} | {f.name for f in fields(e)}
    wire = msgpack.unpackb(msgpack.packb(d))
    assert wire == d
    # Plain data only: no tuples, dataclasses or enums survive in to_dict.
    stack: list[object] = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        else:
            assert x is None or type(x) in (int, bool, str), (e, x)


def test_every_event_type_is_msgpackable() -> None:
    evs = sample_events()
    assert {e.name for e in evs} == set(EVENT_TYPES)
    for e in evs:
        for seat in (None, 0, 1, 2, 3):
            check_event_plain(e.for_seat(seat))
        check_event_plain(e)


def five(xs: list[int]) -> tuple[int, int, int, int, int]:
    return (xs[0], xs[1], xs[2], xs[3], xs[4])


def test_events_from_real_games_are_msgpackable() -> None:
    seen: set[str] = set()
    for seed in range(15):
        s = new_game(Settings(players=2 + seed % 3, turn_cap=300), seed)
        rnd = random.Random(seed)
        while s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            acts = legal_actions(s, seat)
            hand = s.hands[seat]
            if s.phase == Phase.MAIN and rnd.random() < 0.2:
                give = five([min(h, 1) for h in hand])
                get = five([0 if g else 1 for g in give])
                if sum(give) > 0 and sum(get) > 0:
                    acts = [OfferTrade(give, get)]
            elif (s.phase == Phase.TRADE and seat != s.current and rnd.random() < 0.3
                  and sum(hand) > 0):
                r = max(range(5), key=hand.__getitem__)
                acts = [CounterOffer(five([int(i == r) for i in range(5)]),
                                     five([int(i != r) for i in range(5)]))]
            events = apply(s, rnd.choice(acts), seat)
            for e in events:
                seen.add(e.name)
                check_event_plain(e)
                for q in (None, *range(s.settings.players)):
                    check_event_plain(e.for_seat(q))
            for q in (None, 0):
                msgpack.packb([e.to_dict() for e in redact(events, q)])
    # Most event types occur in random games (withheld production and the
    # like are rarer; the sample events above cover every type).
    assert len(seen) >= 25, sorted(set(EVENT_TYPES) - seen)


# --- settings -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("vp_target", [3, 10, 20])
def test_valid_settings(players: int, vp_target: int) -> None:
    s = Settings(players=players, vp_target=vp_target, turn_cap=7, balanced_map=True,
                 harbor_delay=players == 3)
    assert Settings.from_dict(s.to_dict()) == s
    assert Settings.from_dict(msgpack.unpackb(msgpack.packb(s.to_dict()))) == s
    g = new_game(s, 1)
    assert len(g.hands) == players


@pytest.mark.parametrize("kwargs", [
    {"players": 0}, {"players": 1}, {"players": 7}, {"players": 8},
    {"players": -4}, {"vp_target": 2}, {"vp_target": 0}, {"vp_target": -10},
    {"vp_target": 21}, {"vp_target": 1000}, {"turn_cap": -1},
    {"players": 3.0}, {"players": True}, {"vp_target": 10.5}, {"turn_cap": "5"},
    {"balanced_map": 1}, {"shuffle_harbors": "yes"}, {"harbor_delay": None},
    {"strict_phases": 0},
])
def test_bad_settings_raise_rules_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(RulesError) as info:
        Settings(**kwargs)  # type: ignore[arg-type]
    assert info.value.code == "bad_settings"
    with pytest.raises(RulesError):
        Settings.from_dict(kwargs)


@pytest.mark.parametrize("value", ["4", 4.0, True, None, [4], 3.5])
@pytest.mark.parametrize("key", ["players", "vp_target", "turn_cap"])
def test_settings_from_dict_checks_types(key: str, value: object) -> None:
    with pytest.raises(RulesError):
        Settings.from_dict({key: value})


@pytest.mark.parametrize("value", [1, 0, "true", None, [True]])
@pytest.mark.parametrize(
    "key", ["balanced_map", "shuffle_harbors", "harbor_delay", "strict_phases"]
)
def test_settings_flags_must_be_bools(key: str, value: object) -> None:
    with pytest.raises(RulesError):
        Settings.from_dict({key: value})


@pytest.mark.parametrize("data", [None, [], "players=4", 4, [["players", 4]]])
def test_settings_must_be_a_map(data: object) -> None:
    with pytest.raises(RulesError):
        Settings.from_dict(data)  # type: ignore[arg-type]


def test_settings_defaults_and_unknown_keys() -> None:
    assert Settings.from_dict({}) == Settings() == Settings(4, 10, 0)
    assert Settings.from_dict({"players": 3, "colour": "red"}) == Settings(players=3)
    sea = Settings.sea3d(3)
    assert sea.balanced_map and sea.shuffle_harbors and sea.harbor_delay and sea.strict_phases
    assert Settings.from_dict(msgpack.unpackb(msgpack.packb(sea.to_dict()))) == sea


@pytest.mark.parametrize("first_seat", [-1, 4, 99])
def test_new_game_rejects_a_bad_first_seat(first_seat: int) -> None:
    with pytest.raises(RulesError):
        new_game(Settings(), 1, first_seat=first_seat)


# --- game state and log --------------------------------------------------------------


def played(seed: int, steps: int, settings: Settings | None = None) -> GameState:
    s = new_game(settings or Settings(players=4), seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if s.phase == Phase.GAME_OVER:
            break
        seat = to_act(s)[0]
        apply(s, rnd.choice(legal_actions(s, seat)), seat)
    return s


@pytest.mark.parametrize("settings", [
    Settings(players=4), Settings(players=3), Settings(players=2), Settings.sea3d(4),
    Settings.sea3d(2),
], ids=["4p", "3p", "2p", "sea3d-4p", "sea3d-2p"])
@pytest.mark.parametrize("steps", [0, 1, 9, 16, 17, 100, 400, 5000])
def test_state_round_trips(steps: int, settings: Settings) -> None:
    s = played(steps, steps, settings)
    d = s.to_dict()
    assert GameState.from_dict(d) == s
    assert GameState.from_dict(msgpack.unpackb(msgpack.packb(d))) == s
    assert GameState.from_dict(s.to_dict(include_log=False)).log is None
    assert s.copy() == GameState.from_dict(s.to_dict(include_log=False))  # copy drops the log
    assert s.copy(keep_log=True) == s
    assert replay(GameLog.of(s)) == s
    if steps:
        assert s != new_game(settings, steps)


def test_log_round_trips_and_replays() -> None:
    s = played(3, 600)
    log = GameLog.of(s)
    d = msgpack.unpackb(msgpack.packb(log.to_dict()))
    assert GameLog.from_dict(d) == log
    assert replay(GameLog.from_dict(d)) == s
    with pytest.raises(RulesError):
        GameLog.of(s.copy())  # a copy keeps no log


def test_bad_logs_raise_invalid_log() -> None:
    s = played(4, 300)
    good = GameLog.of(s).to_dict()
    for key in ("settings", "seed", "board", "first_seat", "steps"):
        d = dict(good)
        del d[key]
        with pytest.raises(InvalidLog):
            GameLog.from_dict(d)
    for entry in ([0, {"type": "end_turn"}], "x", [True, {"type": "end_turn"}, None],
                  ["0", {"type": "end_turn"}, None], [0, {"type": "roll_dice"}, ["6", 1]],
                  [0, {"type": "roll_dice"}, 6]):
        d = dict(good)
        d["steps"] = [*good["steps"][:5], entry]
        with pytest.raises(InvalidLog):
            GameLog.from_dict(d)
    d = dict(good)
    d["board"] = {"terrain": [0] * 19, "numbers": [0] * 19, "harbors": [5] * 9}
    with pytest.raises(InvalidLog):
        GameLog.from_dict(d)
    # A malformed action inside a step is refused (as a RulesError).
    d = dict(good)
    d["steps"] = [*good["steps"][:5], [0, {"type": "nope"}, None]]
    with pytest.raises(RulesError):
        GameLog.from_dict(d)


def test_tampered_log_does_not_replay() -> None:
    s = played(5, 400)
    log = GameLog.of(s)
    rolls = [i for i, (_, a, _) in enumerate(log.steps) if isinstance(a, RollDice)]
    assert rolls
    i = rolls[0]
    seat, action, _ = log.steps[i]
    for bad in ((0, 3), (7, 1), (6, 9)):
        steps = list(log.steps)
        steps[i] = (seat, action, bad)
        with pytest.raises(InvalidLog):
            replay(GameLog(log.settings, log.seed, log.board, log.first_seat, tuple(steps)))
    # An illegal step (the wrong seat acts).
    steps = list(log.steps)
    steps[i] = ((seat + 1) % 4, action, None)
    with pytest.raises(InvalidLog):
        replay(GameLog(log.settings, log.seed, log.board, log.first_seat, tuple(steps)))
