"""The message catalogue: validate() against every SPECS entry, versions."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from protocol.wire import (
    CLIENT,
    ERROR_CODES,
    PROTOCOL_VERSION,
    SERVER,
    SPECS,
    VERSION_STRING,
    ProtocolError,
    compatible,
    parse_version,
    validate,
)
from protocol.wire.messages import BOTH_WAYS, ROLES

SETTINGS = {"players": 3, "vp_target": 10, "turn_cap": 0, "balanced_map": False,
            "shuffle_harbors": False, "harbor_delay": False, "strict_phases": False}
SEATS = [{"name": "Ann", "kind": "human", "connected": True},
         {"name": None, "kind": "empty", "connected": False}]

EXAMPLES: dict[str, dict[str, Any]] = {
    "hello": {"type": "hello", "version": "1.0", "role": "player", "name": "Ann",
              "resume": "tok", "seen": 41},
    "welcome": {"type": "welcome", "version": "1.0", "session": "3f9c2a7d51e0b846",
                "resume_token": "tok", "server": "kaitaku"},
    "list_tables": {"type": "list_tables", "offset": 100, "limit": 50},
    "tables": {"type": "tables", "tables": [{"id": "8e30bc72", "name": "t",
                                             "settings": SETTINGS, "seats": SEATS,
                                             "status": "waiting", "spectators": 0}],
               "total": 101, "offset": 100},
    "create_table": {"type": "create_table", "settings": {"players": 3}, "name": "t",
                     "bots": ["greedy"], "turn_timer": 0, "seat": True},
    "join": {"type": "join", "table": "8e30bc72", "seat": 1, "key": "k"},
    "spectate": {"type": "spectate", "table": "8e30bc72"},
    "joined": {"type": "joined", "table": "8e30bc72", "seat": 0, "settings": SETTINGS,
               "last_seq": 16},
    "table": {"type": "table", "table": "8e30bc72", "seats": SEATS, "status": "waiting",
              "can_start": True, "paused": "storage"},
    "start": {"type": "start"},
    "leave": {"type": "leave"},
    "left": {"type": "left", "table": "8e30bc72"},
    "game_started": {"type": "game_started", "table": "8e30bc72"},
    "view": {"type": "view", "version": 0, "view": {"seat": 0, "phase": "setup_settlement"},
             "clocks": [60000, 58250, 60000]},
    "events": {"type": "events", "version": 1,
               "events": [{"type": "dice_rolled", "seat": 0, "dice": [3, 4]}]},
    "legal": {"type": "legal", "version": 1, "actions": [
        {"type": "discard", "cards": [3, 1, 0, 0, 0]}], "truncated": True, "discard": 4,
              "timer_ms": 41250, "propose": False},
    "action": {"type": "action", "seq": 1, "action": {"type": "end_turn"}},
    "result": {"type": "result", "seq": 1, "ok": False, "version": 3, "code": "not_your_turn",
               "message": "it is seat 1's turn"},
    "resync": {"type": "resync"},
    "game_over": {"type": "game_over", "winner": 1, "scores": [7, 10, 8]},
    "chat": {"type": "chat", "text": "hi", "table": "8e30bc72", "seat": 0, "name": "Ann",
             "past": True},
    "ping": {"type": "ping", "nonce": 7},
    "pong": {"type": "pong", "nonce": 7},
    "error": {"type": "error", "code": "no_such_table", "message": "no table"},
    "bye": {"type": "bye", "reason": "done"},
    "ladder_register": {"type": "ladder_register", "name": "mybot"},
    "ladder_registered": {"type": "ladder_registered", "name": "mybot",
                          "key": "Jm1r3xQv0bq9Zt2KcW8y6AJm1r3xQv0b"},
    "ladder_ready": {"type": "ladder_ready", "name": "mybot",
                     "key": "Jm1r3xQv0bq9Zt2KcW8y6AJm1r3xQv0b", "games": 20},
    "ladder_queued": {"type": "ladder_queued", "games": 19, "name": "mybot"},
    "ladder_standings": {"type": "ladder_standings", "offset": 0, "limit": 20},
    "ladder": {"type": "ladder", "entries": [
        {"rank": 1, "name": "mybot", "mu": 29.1, "sigma": 6.2, "ordinal": 10.5, "games": 4,
         "wins": 2, "forfeits": 0, "timeouts": 1, "ready": True}],
        "total": 1, "offset": 0, "games": 4},
}
"""One valid message of every type, every optional field filled in."""

FIELDS = [(kind, name) for kind, spec in SPECS.items() for name in spec.fields]
REQUIRED = [(k, n) for k, n in FIELDS if not SPECS[k].fields[n].optional]
OPTIONAL = [(k, n) for k, n in FIELDS if SPECS[k].fields[n].optional]

WRONG: dict[str, list[Any]] = {
    "str": [1, True, 1.5, [], {}, b"x"],
    "int": ["1", True, False, 1.5, [], {}],
    "bool": [1, 0, "true", [], {}],
    "map": ["x", 1, [], True],
    "list": ["x", 1, {}, True, (1, 2)],
}


def example(kind: str) -> dict[str, Any]:
    return copy.deepcopy(EXAMPLES[kind])


def rejects(msg: Any, code: str = "bad_message", sender: str | None = None) -> None:
    with pytest.raises(ProtocolError) as info:
        validate(msg, sender)
    assert info.value.code == code, info.value


def test_every_type_has_an_example() -> None:
    assert set(EXAMPLES) == set(SPECS)
    assert len(SPECS) == 31


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_example_is_valid(kind: str) -> None:
    msg = example(kind)
    assert validate(msg) is msg
    assert validate(msg, SPECS[kind].sender) is msg


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_only_required_fields_is_valid(kind: str) -> None:
    msg = {k: v for k, v in example(kind).items()
           if k == "type" or not SPECS[kind].fields[k].optional}
    validate(msg)


@pytest.mark.parametrize(("kind", "name"), REQUIRED)
def test_required_field_missing_or_nil(kind: str, name: str) -> None:
    msg = example(kind)
    del msg[name]
    rejects(msg)
    msg[name] = None
    rejects(msg)


@pytest.mark.parametrize(("kind", "name"), OPTIONAL)
def test_optional_field_missing_or_nil(kind: str, name: str) -> None:
    msg = example(kind)
    del msg[name]
    validate(msg)
    msg[name] = None
    validate(msg)


@pytest.mark.parametrize(("kind", "name"), FIELDS)
def test_wrong_types(kind: str, name: str) -> None:
    f = SPECS[kind].fields[name]
    for bad in WRONG[f.kind]:
        msg = example(kind)
        msg[name] = bad
        rejects(msg)


def test_bool_is_not_an_int_and_int_is_not_a_bool() -> None:
    rejects({"type": "action", "seq": True, "action": {"type": "end_turn"}})
    rejects({"type": "result", "seq": 1, "ok": 1})
    rejects({"type": "ping", "nonce": False})


@pytest.mark.parametrize(("kind", "name"),
                         [(k, n) for k, n in FIELDS if SPECS[k].fields[n].kind == "int"])
def test_int_range(kind: str, name: str) -> None:
    for ok in (0, -1, 2**53, -(2**53)):
        msg = example(kind)
        msg[name] = ok
        validate(msg)
    for bad in (2**53 + 1, -(2**53) - 1, 2**64 - 1, -(2**63)):
        msg = example(kind)
        msg[name] = bad
        rejects(msg)


LIMITED = [(k, n) for k, n in FIELDS
           if SPECS[k].fields[n].max_len is not None and SPECS[k].fields[n].choices is None]


@pytest.mark.parametrize(("kind", "name"), LIMITED)
def test_length_limits(kind: str, name: str) -> None:
    f = SPECS[kind].fields[name]
    assert f.max_len is not None
    item: Any = "é" if f.kind == "str" else {}
    msg = example(kind)
    msg[name] = item * f.max_len if f.kind == "str" else [item] * f.max_len
    validate(msg)  # lengths count characters / elements, not bytes
    msg[name] = item * (f.max_len + 1) if f.kind == "str" else [item] * (f.max_len + 1)
    rejects(msg)


MIN_LIMITED = [(k, n) for k, n in FIELDS if SPECS[k].fields[n].min_len > 0]


@pytest.mark.parametrize(("kind", "name"), MIN_LIMITED)
def test_min_lengths(kind: str, name: str) -> None:
    msg = example(kind)
    msg[name] = ""
    rejects(msg)
    msg[name] = "x"
    validate(msg)


def test_min_lengths_cover_names_and_chat() -> None:
    assert set(MIN_LIMITED) == {("hello", "name"), ("chat", "text"),
                                ("ladder_register", "name"), ("ladder_ready", "name"),
                                ("ladder_ready", "key")}


def test_choices() -> None:
    for role in ROLES:
        validate({**example("hello"), "role": role})
    for bad in ("admin", "Player", "", "bot "):
        rejects({**example("hello"), "role": bad})


@pytest.mark.parametrize("bad", [None, "", "nope", "Hello", "hello ", 1, True, ["hello"]])
def test_unknown_or_missing_type(bad: Any) -> None:
    rejects({"type": bad, "version": "1.0", "role": "player", "name": "x"})


def test_type_missing() -> None:
    rejects({"version": "1.0", "role": "player", "name": "x"})


@pytest.mark.parametrize("bad", [None, [], "hello", 1, [("type", "ping")]])
def test_not_a_map(bad: Any) -> None:
    rejects(bad)


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_unknown_fields_are_ignored(kind: str) -> None:
    msg = example(kind)
    msg["x_future_field"] = {"nested": [1, 2, None]}
    msg["zz"] = None
    assert validate(msg, SPECS[kind].sender) is msg
    assert msg["x_future_field"] == {"nested": [1, 2, None]}  # left as it was


def test_map_fields_are_not_checked_inside() -> None:
    validate({"type": "action", "seq": 1, "action": {"type": "no_such_action", "x": 1.5}})
    validate({"type": "create_table", "settings": {}})


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_sender(kind: str) -> None:
    msg = example(kind)
    sender = SPECS[kind].sender
    other = SERVER if sender == CLIENT else CLIENT
    validate(msg, sender)
    if kind in BOTH_WAYS:
        validate(msg, other)
    else:
        rejects(msg, "unexpected_message", other)


def test_both_ways() -> None:
    assert {"chat", "ping", "pong", "bye"} == BOTH_WAYS
    assert all(SPECS[k].sender == CLIENT for k in BOTH_WAYS)


def test_senders() -> None:
    client = {k for k, s in SPECS.items() if s.sender == CLIENT} - BOTH_WAYS
    assert client == {"hello", "list_tables", "create_table", "join", "spectate", "start",
                      "leave", "action", "resync", "ladder_register", "ladder_ready",
                      "ladder_standings"}


def test_sender_check_comes_after_the_type_check() -> None:
    rejects({"type": "nope"}, "bad_message", CLIENT)
    rejects({"type": "welcome"}, "unexpected_message", CLIENT)  # before field checks


def test_error_codes_are_identifiers() -> None:
    for code, doc in ERROR_CODES.items():
        assert code.isidentifier() and code == code.lower() and len(code) <= 64
        assert doc


# -- versions ---------------------------------------------------------------------------


def test_version_constants() -> None:
    assert PROTOCOL_VERSION == (1, 4)
    assert VERSION_STRING == "1.4"
    assert parse_version(VERSION_STRING) == PROTOCOL_VERSION


@pytest.mark.parametrize(("text", "parsed"), [
    ("1.0", (1, 0)), ("0.0", (0, 0)), ("1.12", (1, 12)), ("10.9999", (10, 9999)),
    ("01.02", (1, 2)),
])
def test_parse_version(text: str, parsed: tuple[int, int]) -> None:
    assert parse_version(text) == parsed


@pytest.mark.parametrize("text", [
    "", "1", "1.", ".1", "1.0.0", "a.b", "1.x", "v1.0", " 1.0", "1.0 ", "1 .0", "+1.0",
    "-1.0", "1.-0", "12345.0", "1.12345", "1,0", "1.0\n",
])
def test_parse_version_rejects(text: str) -> None:
    assert parse_version(text) is None


@pytest.mark.parametrize("text", ["².0", "1.²", "１.０", "١.٠"])
def test_parse_version_ascii_digits_only(text: str) -> None:
    assert parse_version(text) is None
    assert compatible(text) is False


@pytest.mark.parametrize(("text", "ok"), [
    ("1.0", True), ("1.1", True), ("1.9999", True), ("01.0", True),
    ("2.0", False), ("0.9", False), ("0.0", False), ("garbage", False), ("", False),
    ("1", False), ("1.0.1", False),
])
def test_compatible(text: str, ok: bool) -> None:
    assert compatible(text) is ok


# -- what the server builds from the engine fits the catalogue ---------------------------


def test_a_huge_discard_is_listed_truncated_with_the_count() -> None:
    """A seat with 41 cards owes 20: over 4096 discard choices. The server lists
    an even spread of them (legal_message), says so, and says how many to drop."""
    from protocol.rules import Phase, Settings, legal_actions, new_game
    from protocol.wire import FrameDecoder, encode_frame
    from server.table import MAX_LEGAL, legal_message

    s = new_game(Settings(players=3), 1)
    s.phase = Phase.DISCARD
    s.hands[0] = [9, 8, 8, 8, 8]  # 41 cards: 20 to discard
    s.discard_owed = [20, 0, 0]
    assert len(legal_actions(s, 0)) > 4096
    msg = legal_message(s, 0, 1)
    assert msg["truncated"] is True and msg["discard"] == 20
    assert len(msg["actions"]) == MAX_LEGAL
    assert all(sum(a["cards"]) == 20 for a in msg["actions"])
    validate(msg, SERVER)
    assert FrameDecoder().feed(encode_frame(msg)) == [msg]


def test_legal_lists_only_the_action_types_the_clients_version_knows() -> None:
    """Minor versions stay compatible: a 1.2 client is never offered an action
    type of 1.3 (it could not parse it) and never gets ``propose``."""
    from protocol.rules import BuildRoad, PlayRoadBuilding, ProposeTrade, Settings, apply
    from protocol.rules.position import describe
    from protocol.wire import ACTIONS_SINCE, unknown_actions
    from server.table import legal_message

    s = describe(settings=Settings(players=3), seed=7, current=0, turn=12, dice=(3, 4),
                 seats=[dict(settlements=(3, 45), roads=(0, 1, 58, 59), dev=(0, 1, 0, 0, 0),
                             hand=(1, 0, 0, 0, 0)),
                        dict(settlements=(48,), cities=(20,), roads=(22, 63),
                             hand=(0, 0, 1, 0, 0)),
                        dict(settlements=(32,), cities=(29,), roads=(38, 43))])
    # Seat 1 may propose: a 1.3 client is told, a 1.2 client is not.
    assert legal_message(s, 1, 5)["propose"] is True
    assert "propose" not in legal_message(s, 1, 5, minor=2)
    apply(s, ProposeTrade((0, 0, 1, 0, 0), (1, 0, 0, 0, 0)), 1)
    names = {a["type"] for a in legal_message(s, 0, 6)["actions"]}
    assert {"accept_proposal", "reject_proposal"} <= names
    old = {a["type"] for a in legal_message(s, 0, 6, minor=2)["actions"]}
    assert old == names - {"accept_proposal", "reject_proposal"} and "end_turn" in old
    assert legal_message(s, 1, 6)["actions"] == [{"type": "withdraw_proposal"}]
    assert legal_message(s, 1, 6, minor=0)["actions"] == []
    apply(s, PlayRoadBuilding(), 0)
    apply(s, BuildRoad(2), 0)
    assert {"type": "stop_road_building"} in legal_message(s, 0, 8)["actions"]
    assert {"type": "stop_road_building"} not in legal_message(s, 0, 8, minor=2)["actions"]
    assert set(ACTIONS_SINCE) == {"stop_road_building", "propose_trade", "accept_proposal",
                                  "reject_proposal", "withdraw_proposal"}
    assert unknown_actions(3) is None and unknown_actions(2) == frozenset(ACTIONS_SINCE)
    validate(legal_message(s, 0, 8), SERVER)
