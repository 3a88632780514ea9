"""docs/protocol/schema/ (the JSON Schema of the protocol) matches the code.

The files are what docs/protocol/schema.py writes now; each is a valid
draft 2020-12 schema; it accepts the documented examples and real engine data
(legal actions, redacted events, views of seats and spectators in 2-, 3- and
4-player games) and refuses hand-made bad messages, as the catalogue's own
``validate`` does. (tests/conftest.py holds every frame the server sends in
the test suite to the strict schema.)
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from protocol.rules import (
    ACTION_TYPES,
    EVENT_TYPES,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    redact,
    to_act,
)
from protocol.rules.board import Board
from protocol.rules.state import Trade
from protocol.wire import ERROR_CODES, SETTINGS, SPECS, ProtocolError, validate
from tests.schemas import ROOT, generator, validator

SCHEMA_DIR = ROOT / "docs" / "protocol" / "schema"


def errors(msg: Any, pointer: str = "message", name: str = "messages",
           strict: bool = False) -> list[str]:
    return [e.message for e in validator(name, pointer, strict).iter_errors(msg)]


# -- the files -----------------------------------------------------------------------


def test_the_files_are_fresh() -> None:
    gen = generator()
    built = gen.build()
    assert sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json")) == sorted(
        f"{n}.schema.json" for n in built)
    for name, schema in built.items():
        text = (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
        assert text == gen.render(schema), f"{name}.schema.json is stale: run " \
                                           "python docs/protocol/schema.py"
        assert json.loads(text) == schema
    assert gen.main(["--check"]) == 0


@pytest.mark.parametrize("strict", [False, True])
def test_each_schema_is_a_valid_2020_12_schema(strict: bool) -> None:
    for schema in generator().build(strict).values():
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)


def test_every_reference_resolves() -> None:
    """Walk every ``$ref`` of every file and resolve it in the registry."""
    from tests.schemas import registry

    schemas = generator().build()
    reg = registry(schemas)

    def refs(v: Any) -> list[str]:
        if isinstance(v, dict):
            return ([v["$ref"]] if "$ref" in v else []) + [r for x in v.values() for r in refs(x)]
        if isinstance(v, list):
            return [r for x in v for r in refs(x)]
        return []

    count = 0
    for schema in schemas.values():
        resolver = reg.resolver(base_uri=schema["$id"])
        for r in refs(schema):
            assert resolver.lookup(r).contents is not None, r
            count += 1
    assert count > 100


def test_the_catalogue_is_all_there() -> None:
    built = generator().build()
    msgs, acts, evs = (built[n]["$defs"] for n in ("messages", "actions", "events"))
    assert set(SPECS) <= set(msgs)
    assert set(ACTION_TYPES) <= set(acts) and set(EVENT_TYPES) <= set(evs)
    for kind, spec in SPECS.items():
        d = msgs[kind]
        assert set(d["properties"]) == {"type", *spec.fields}
        assert set(d["required"]) == {"type"} | {n for n, f in spec.fields.items()
                                                 if not f.optional}
    codes = built["errors"]["$defs"]["connection_code"]["oneOf"]
    assert [c["const"] for c in codes] == list(ERROR_CODES)
    refusals = {c["const"] for c in built["errors"]["$defs"]["refusal_code"]["oneOf"]}
    assert {"not_your_turn", "cannot_afford", "stale_seq", "not_seated"} <= refusals
    assert set(built["settings"]["$defs"]["settings"]["properties"]) == set(SETTINGS)


def test_the_codecs_write_the_fields_the_schema_derives_from() -> None:
    """The schema of a board, a trade and the settings is their dataclass fields:
    their ``to_dict`` writes exactly those."""
    s = new_game(Settings(players=3), 5)
    assert list(s.board.to_dict()) == [f.name for f in dataclasses.fields(Board)]
    assert list(s.settings.to_dict()) == [f.name for f in dataclasses.fields(Settings)
                                          if f.name != "balanced_dice"]  # only when on
    on = Settings(players=3, balanced_dice=True)
    assert list(on.to_dict()) == [f.name for f in dataclasses.fields(Settings)]
    trade = Trade(0, (1, 0, 0, 0, 0), (0, 1, 0, 0, 0), (-1, 0, 0), (None, None, None))
    assert list(trade.to_dict()) == [f.name for f in dataclasses.fields(Trade)]
    view = observe(s, 0)
    schema = generator().build()["view"]
    assert list(view) == schema["required"]
    # 5–6 player views add the optional special_from (1.4).
    large = observe(new_game(Settings(players=6), 5), 0)
    assert list(large) == list(schema["properties"]) == [*schema["required"], "special_from"]


# -- good messages -------------------------------------------------------------------


def _gen_examples() -> list[dict[str, Any]]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("kaitaku_doc_gen",
                                                  ROOT / "docs" / "protocol" / "gen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # The view examples of PROTOCOL.md show a few keys of a view only.
    return [m for kind, ms in mod.EXAMPLES.items() if kind != "view" for m in ms]


def test_the_documented_examples_are_valid() -> None:
    examples = _gen_examples()
    assert len(examples) > 40
    for msg in examples:
        assert errors(msg) == [], msg
        side = "client_message" if SPECS[msg["type"]].sender == "client" else "server_message"
        assert errors(msg, side) == [], msg


def _frames(players: int, seed: int, turns: int = 40) -> list[dict[str, Any]]:
    """Real frames of a random game: every legal list, the events as each seat
    and a spectator get them, views of every seat and a spectator."""
    s = new_game(Settings(players=players, balanced_map=seed % 2 == 0), seed)
    r = random.Random(seed)
    out: list[dict[str, Any]] = []
    version = 0
    while s.phase != Phase.GAME_OVER and s.turn < turns:
        seat = to_act(s)[0]
        legal = legal_actions(s, seat)
        out.append({"type": "legal", "version": version,
                    "actions": [a.to_dict() for a in legal[:1000]]})
        action = r.choice(legal)
        out.append({"type": "action", "seq": version + 1, "action": action.to_dict()})
        events = apply(s, action, seat)
        version += 1
        for viewer in [*range(players), None]:
            out.append({"type": "events", "version": version,
                        "events": [e.to_dict() for e in redact(events, viewer)]})
        if version % 7 == 0 or s.phase in (Phase.TRADE, Phase.DISCARD, Phase.GAME_OVER):
            for viewer in [*range(players), None]:
                out.append({"type": "view", "version": version, "view": observe(s, viewer)})
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_real_game_data_is_valid(players: int) -> None:
    seen: set[str] = set()
    for seed in range(3):
        for msg in _frames(players, seed):
            assert errors(msg, strict=True) == [], msg["type"]
            for key in ("actions", "events"):
                seen |= {x["type"] for x in msg.get(key, ())}
            if msg["type"] == "action":
                seen.add(msg["action"]["type"])
    assert len(seen) > 15  # the games got somewhere


# -- bad messages --------------------------------------------------------------------

HELLO = {"type": "hello", "version": "1.3", "role": "bot", "name": "mybot"}
BAD: dict[str, dict[str, Any]] = {
    "wrong type": {**HELLO, "version": 13},
    "bool for an int": {"type": "ping", "nonce": True},
    "missing field": {"type": "welcome", "version": "1.3", "resume_token": "t",
                      "server": "kaitaku"},
    "too long": {"type": "chat", "text": "x" * 301},
    "too short": {**HELLO, "name": ""},
    "unknown choice": {**HELLO, "role": "admin"},
    "unknown type": {"type": "hullo", "version": "1.3"},
    "no type": {"version": "1.3"},
    "too many items": {"type": "game_over", "winner": 0, "scores": [10, 1, 2, 3, 4, 5, 6]},
    "int out of range": {"type": "result", "seq": 2**60, "ok": True},
}
BAD_DATA: dict[str, dict[str, Any]] = {
    "unknown action": {"type": "action", "seq": 1, "action": {"type": "fly"}},
    "action field missing": {"type": "action", "seq": 1, "action": {"type": "build_road"}},
    "no such edge": {"type": "action", "seq": 1,
                     "action": {"type": "build_road", "edge": 109}},
    "four cards": {"type": "action", "seq": 1,
                   "action": {"type": "discard", "cards": [1, 1, 1, 1]}},
    "negative count": {"type": "action", "seq": 1,
                       "action": {"type": "offer_trade", "give": [1, 0, 0, 0, -1],
                                  "get": [0, 1, 0, 0, 0]}},
    "event field missing": {"type": "events", "version": 3,
                            "events": [{"type": "dice_rolled", "seat": 0}]},
    "a die of 7": {"type": "events", "version": 3,
                   "events": [{"type": "dice_rolled", "seat": 0, "dice": [7, 1]}]},
    "settings out of bounds": {"type": "create_table", "settings": {"players": 7}},
    "setting of a wrong type": {"type": "create_table", "settings": {"balanced_map": 1}},
    "unknown bot kind": {"type": "create_table", "settings": {}, "bots": ["genius"]},
    "a view without its keys": {"type": "view", "version": 1, "view": {"seat": 0}},
    "a seat without auto": {"type": "table", "table": "t", "status": "playing",
                            "seats": [{"name": "Ann", "kind": "human", "connected": True}]},
    "unknown table status": {"type": "table", "table": "t", "status": "paused", "seats": []},
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_messages_are_refused_like_the_catalogue_does(case: str) -> None:
    msg = BAD[case]
    assert errors(msg), case
    with pytest.raises(ProtocolError):
        validate(msg)


@pytest.mark.parametrize("case", list(BAD_DATA))
def test_bad_game_data_is_refused(case: str) -> None:
    assert errors(BAD_DATA[case]), case


def test_optional_fields_may_be_nil_or_missing() -> None:
    for msg in ({"type": "joined", "table": "t", "seat": None, "settings": {
                    "players": 3, "vp_target": 10, "turn_cap": 0, "balanced_map": False,
                    "shuffle_harbors": False, "harbor_delay": False, "strict_phases": False}},
                {"type": "ping"}, {"type": "ping", "nonce": None}, {"type": "bye"}):
        validate(msg)
        assert errors(msg) == [], msg


def test_the_published_schema_is_open_and_the_strict_one_closed() -> None:
    """Unknown fields are allowed (the compatibility rule); the suite's strict
    schema refuses them, and codes it does not know."""
    msg = {"type": "result", "seq": 1, "ok": False, "code": "flux_capacitor",
           "message": "m", "extra": 1}
    assert errors(msg) == []
    strict = errors(msg, "server_message", strict=True)
    assert len(strict) == 2
    assert errors({"type": "result", "seq": 1, "ok": False, "code": "cannot_afford",
                   "message": "m"}, "server_message", strict=True) == []


def test_a_client_message_is_not_a_server_message() -> None:
    assert errors(HELLO, "client_message") == []
    assert errors(HELLO, "server_message")
    ping = {"type": "ping", "nonce": 3}  # either side
    assert errors(ping, "client_message") == errors(ping, "server_message") == []
