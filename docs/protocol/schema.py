"""Write the JSON Schema (draft 2020-12) of the wire protocol into docs/protocol/schema/.

Run from the repository root: ``.venv/bin/python docs/protocol/schema.py``;
``--check`` writes nothing and exits 1 when a file is missing or stale.
tests/wire/test_schema.py checks that the files match the code, and
tests/conftest.py validates every frame the server sends in the test suite
against :func:`build` ``(strict=True)``.

Everything is derived from the code:

- messages.schema.json: ``protocol.wire.messages.SPECS`` (fields, kinds,
  lengths, choices, optional), with the game data of a few fields refined by
  :data:`REFINE` (``legal.actions`` are actions, ``view.view`` is a view, ...).
- errors.schema.json: ``ERROR_CODES``; the refusal codes of ``result.code``
  read from the engine's and the server's source, as tests/wire/
  test_protocol_doc.py reads them.
- actions.schema.json, events.schema.json: the dataclasses of
  ``protocol.rules.actions``/``events`` (their type hints; a field with a
  default may be left out), with the value ranges of :data:`DOMAINS`.
- view.schema.json: the ``View`` TypedDict of ``protocol.rules.view`` (mypy
  checks that ``observe`` builds exactly it).
- settings.schema.json: ``SETTINGS`` (bounds, defaults) and ``Settings``.

The published files are open (unknown fields are allowed: the protocol's
compatibility rule). ``build(strict=True)`` closes every object and lists the
known codes of ``error.code`` and ``result.code``: what the test suite holds
this server to.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from protocol.rules import ACTION_TYPES, DEV_CARDS, Settings  # noqa: E402
from protocol.rules.actions import _MAX_INT  # noqa: E402
from protocol.rules.board import MAX_EDGES, MAX_HEXES, MAX_NODES  # noqa: E402
from protocol.rules.errors import IllegalAction, MalformedAction, NotYourTurn  # noqa: E402
from protocol.rules.events import EVENT_TYPES  # noqa: E402
from protocol.rules.plain import Choices, Items  # noqa: E402
from protocol.rules.view import View  # noqa: E402
from protocol.wire import ERROR_CODES, SETTINGS, SPECS, VERSION_STRING  # noqa: E402
from protocol.wire.messages import BOTH_WAYS, CLIENT, MAX_SEATS, SERVER, Field  # noqa: E402
from server.storage import BOT_KINDS  # noqa: E402

OUT = ROOT / "docs" / "protocol" / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://kaitaku.invalid/protocol/schema/"
"""The files' ``$id`` prefix: a name, never fetched (``.invalid`` resolves nowhere);
a validator is given all the files and resolves the references among them."""
FILES = ("messages", "errors", "actions", "events", "view", "settings")

Schema = dict[str, Any]


def ref(file: str, name: str | None = None) -> Schema:
    return {"$ref": f"{file}.schema.json" + (f"#/$defs/{name}" if name else "")}


def nullable(s: Schema) -> Schema:
    """``s`` or nil (msgpack nil, JSON null)."""
    t = s.get("type")
    if isinstance(t, str) and "$ref" not in s:
        return {**s, "type": [t, "null"]}
    return {"anyOf": [s, {"type": "null"}]}


def rng(lo: int, hi: int | None = None, doc: str | None = None) -> Schema:
    s: Schema = {"type": "integer", "minimum": lo}
    if hi is not None:
        s["maximum"] = hi
    if doc:
        s["description"] = doc
    return s


def doc_of(obj: Any) -> str | None:
    """A class's own docstring on one line (not the one dataclass makes up)."""
    d = obj.__dict__.get("__doc__")
    if not d or d.startswith(obj.__name__ + "("):
        return None
    text = " ".join(inspect.cleandoc(d).split()).replace("``", "`")
    return re.sub(r"\bNone\b", "nil", text)  # the wire's word


# -- game data: Python type hints -> JSON Schema ----------------------------------------

SEAT = (0, MAX_SEATS - 1, f"a seat (0–3; 0–{MAX_SEATS - 1} with 5–6 players, 1.4)")
RESOURCE = (0, 4, "a resource: 0 lumber, 1 brick, 2 wool, 3 grain, 4 ore")
DOMAINS: dict[str, tuple[int, int | None, str]] = {
    "edge": (0, MAX_EDGES - 1, f"an edge (0–71; 0–{MAX_EDGES - 1} with 5–6 players)"),
    "node": (0, MAX_NODES - 1, f"a node (0–53; 0–{MAX_NODES - 1} with 5–6 players)"),
    "hex": (0, MAX_HEXES - 1, f"a hex (0–18; 0–{MAX_HEXES - 1} with 5–6 players)"),
    "resource": RESOURCE, "first": RESOURCE, "second": RESOURCE, "withheld": RESOURCE,
    "seat": SEAT, "victim": SEAT, "thief": SEAT, "partner": SEAT, "to": SEAT,
    "holder": SEAT, "winner": SEAT,
    "neutral": (2, 3, "a neutral player of the two-player game (2 or 3)"),
    "card": (0, len(DEV_CARDS) - 1, "a development card: " + ", ".join(
        f"{i} {c}" for i, c in enumerate(DEV_CARDS))),
    "dice": (1, 6, "a die"),
}
"""The value range of an integer field of an action or event, by its name (an
integer ``give``/``get`` is a resource: ``maritime_trade``); other integers are
counts (0 or more)."""


def from_hint(tp: Any, where: str, field: str | None = None,
              counts: tuple[int, int | None] | None = None) -> Schema:
    """The schema of a value of Python type ``tp`` in the plain-data form
    (tuples are lists). ``counts``: the range of an integer, unless ``field``
    picks a :data:`DOMAINS` range (actions and events)."""
    extras: tuple[Any, ...] = ()
    if typing.get_origin(tp) in (typing.NotRequired, typing.Required):
        tp = typing.get_args(tp)[0]  # optional keys: TypedDict's required list says which
    if typing.get_origin(tp) is typing.Annotated:
        tp, *rest = typing.get_args(tp)
        extras = tuple(rest)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    s: Schema
    if origin in (typing.Union, types.UnionType):
        rest_args = [a for a in args if a is not type(None)]
        assert len(rest_args) == 1 and len(args) == 2, (where, tp)
        return nullable(from_hint(rest_args[0], where, field, counts))
    if tp is bool:
        s = {"type": "boolean"}
    elif tp is int:
        dom = DOMAINS.get(field or "")
        if field in ("give", "get"):
            dom = RESOURCE
        s = (rng(dom[0], dom[1]) if dom and counts else rng(*counts) if counts
             else {"type": "integer"})
    elif tp is str:
        s = {"type": "string"}
    elif tp is typing.Any:
        s = {}
    elif origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            s = {"type": "array", "items": from_hint(args[0], where, field, counts)}
        elif len(set(args)) == 1:
            s = {"type": "array", "items": from_hint(args[0], where, field, counts),
                 "minItems": len(args), "maxItems": len(args)}
        else:
            s = {"type": "array", "prefixItems": [from_hint(a, where, field, counts) for a in args],
                 "minItems": len(args), "maxItems": len(args)}
    elif origin is list:
        s = {"type": "array", "items": from_hint(args[0], where, field, counts)}
    elif origin is dict:
        s = {"type": "object", "additionalProperties": from_hint(args[1], where)}
    elif typing.is_typeddict(tp):
        s = typed_dict(tp)
    else:
        raise TypeError(f"{where}: no schema for {tp!r}")
    for x in extras:
        if isinstance(x, Items):
            s["minItems"] = s["maxItems"] = x.count
        elif isinstance(x, Choices):
            s["enum"] = list(x.names)
        elif x is Settings:
            s = ref("settings", "game")
        elif dataclasses.is_dataclass(x) and isinstance(x, type):
            s = record(x, where)
        else:
            raise TypeError(f"{where}: unknown annotation {x!r}")
    return s


def record(cls: type, where: str) -> Schema:
    """A dataclass's ``to_dict()``: one key per field."""
    hints = typing.get_type_hints(cls)
    props = {f.name: from_hint(hints[f.name], f"{where}.{f.name}")
             for f in dataclasses.fields(cls)}
    s: Schema = {"type": "object", "properties": props, "required": list(props)}
    d = doc_of(cls)
    if d:
        s = {"description": d, **s}
    return s


def typed_dict(td: Any) -> Schema:
    hints = typing.get_type_hints(td, include_extras=True)
    props = {k: from_hint(v, f"{td.__name__}.{k}") for k, v in hints.items()}
    s: Schema = {"type": "object", "properties": props, "required": sorted(td.__required_keys__,
                                                                           key=list(props).index)}
    d = doc_of(td)
    if d:
        s = {"description": d, **s}
    return s


def tagged(cls: type, name: str, counts: tuple[int, int | None]) -> Schema:
    """An action or event: ``{"type": name, field: value, ...}``."""
    hints = typing.get_type_hints(cls)
    props: Schema = {"type": {"const": name}}
    required = ["type"]
    for f in dataclasses.fields(cls):
        props[f.name] = from_hint(hints[f.name], f"{name}.{f.name}", f.name, counts)
        no_default = (f.default is dataclasses.MISSING
                      and f.default_factory is dataclasses.MISSING)
        if no_default:
            required.append(f.name)
    s: Schema = {"type": "object", "properties": props, "required": required}
    d = doc_of(cls)
    return {"description": d, **s} if d else s


def union(names: list[str], description: str) -> Schema:
    """One of the ``$defs`` ``names``, picked by the value's ``type`` (each
    definition has ``type: {const: name}``): an ``if``/``then`` per type, so that
    a validator checks one definition and reports that one's errors."""
    return {"description": description, "type": "object",
            "properties": {"type": {"enum": names}}, "required": ["type"],
            "allOf": [{"if": {"properties": {"type": {"const": n}}},
                       "then": {"$ref": f"#/$defs/{n}"}} for n in names]}


def file_schema(name: str, title: str, description: str, body: Schema) -> Schema:
    return {"$schema": DRAFT, "$id": BASE + f"{name}.schema.json", "title": title,
            "description": description, **body}


def actions_schema() -> Schema:
    defs = {n: tagged(cls, n, (0, _MAX_INT - 1)) for n, cls in ACTION_TYPES.items()}
    defs["action"] = union(list(ACTION_TYPES), "any action")
    return file_schema("actions", "Kaitaku actions",
                       f"Protocol {VERSION_STRING}: the engine's actions (`action.action`, "
                       "`legal.actions`): a map with `type` and the action's fields; resource "
                       "counts are lists of five (lumber, brick, wool, grain, ore). "
                       "docs/ENGINE.md says what each does.",
                       {"$ref": "#/$defs/action", "$defs": defs})


def events_schema() -> Schema:
    defs = {n: tagged(cls, n, (0, None)) for n, cls in EVENT_TYPES.items()}
    defs["event"] = union(list(EVENT_TYPES), "any event")
    return file_schema("events", "Kaitaku events",
                       f"Protocol {VERSION_STRING}: the engine's events (`events.events`), as "
                       "redacted for the receiving seat (hidden facts are nil). A client "
                       "skips an event type it does not know.",
                       {"$ref": "#/$defs/event", "$defs": defs})


def view_schema() -> Schema:
    return file_schema("view", "Kaitaku view",
                       f"Protocol {VERSION_STRING}: a seat's view (`view.view`); `you` is nil "
                       "for a spectator. docs/ENGINE.md explains each key.",
                       {k: v for k, v in typed_dict(View).items() if k != "description"})


OMITTED_WHEN_OFF = ("balanced_dice",)
"""Settings a game's plain form shows only when they are on (records written
before them read the same)."""


def settings_schema() -> Schema:
    def one(name: str) -> Schema:
        st = SETTINGS[name]
        s: Schema = ({"type": "boolean"} if st.kind == "bool"
                     else {"type": "integer", "minimum": st.low, "maximum": st.high})
        return {"description": st.doc, **s, "default": st.default}

    fields = [f.name for f in dataclasses.fields(Settings)]
    assert set(fields) <= set(SETTINGS), set(fields) - set(SETTINGS)
    game = [n for n in fields if n not in OMITTED_WHEN_OFF]
    defs = {
        "settings": {"description": "`create_table.settings`: any of the settings; a missing "
                     "one takes its default, unknown keys are ignored",
                     "type": "object", "properties": {n: one(n) for n in SETTINGS}},
        "game": {"description": "the rules' settings of a game (`view.settings`): all of them "
                 f"({', '.join(OMITTED_WHEN_OFF)}: only when on)",
                 "type": "object", "properties": {n: one(n) for n in fields}, "required": game},
        "table": {"description": "a table's settings (`joined.settings`, `tables`): the game's, "
                  "and the chess clock's when the table has one",
                  "type": "object", "properties": {n: one(n) for n in SETTINGS},
                  "required": game},
    }
    return file_schema("settings", "Kaitaku table settings",
                       f"Protocol {VERSION_STRING}: the game settings with their bounds and "
                       "defaults (docs/PROTOCOL.md §8.2).",
                       {"$ref": "#/$defs/settings", "$defs": defs})


# -- error codes -------------------------------------------------------------------------


def engine_codes() -> set[str]:
    """The codes the engine refuses actions with (its source: ``_require``,
    ``IllegalAction``, ... calls with a constant code)."""
    tree = ast.parse((ROOT / "protocol/rules/engine.py").read_text(encoding="utf-8"))
    codes: set[str] = set()
    pos = {"_require": 2, "IllegalAction": 1, "NotYourTurn": 1, "RulesError": 1}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            i = pos.get(node.func.id)
            if i is not None and len(node.args) > i:
                arg = node.args[i]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    codes.add(arg.value)
    codes |= {IllegalAction.code, NotYourTurn.code, MalformedAction.code}
    return codes - {"invalid_log", "bad_settings"}  # replays and settings: no action's


def server_result_codes() -> set[str]:
    """The codes of the ``result`` messages the server's source builds."""
    codes: set[str] = set()
    for path in sorted((ROOT / "server").glob("*.py")):
        src = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'"type": "result",[^}]*?"code": "([a-z_]+)"', src, re.S))
        codes |= set(re.findall(r'\bresult\(\s*[^,()]+,\s*"([a-z_]+)"', src))
    return codes


def errors_schema() -> Schema:
    engine, server = engine_codes(), server_result_codes()
    defs = {
        "connection_code": {
            "description": "`error.code`: what went wrong on the connection",
            "type": "string",
            "oneOf": [{"const": c, "description": d} for c, d in ERROR_CODES.items()]},
        "refusal_code": {
            "description": "`result.code` of a refused action (docs/PROTOCOL.md §9.2 says "
                           "when each is given)",
            "type": "string",
            "oneOf": [{"const": c, "description": "from the " + " and the ".join(
                w for w, src in (("engine", engine), ("server", server)) if c in src)}
                for c in sorted(engine | server)]},
    }
    return file_schema("errors", "Kaitaku error codes",
                       f"Protocol {VERSION_STRING}: the known codes of `error` and of a "
                       "refused action's `result`. A client accepts unknown codes (an "
                       "unknown refusal code is like `illegal_action`).",
                       {"anyOf": [{"$ref": "#/$defs/connection_code"},
                                  {"$ref": "#/$defs/refusal_code"}], "$defs": defs})


# -- messages ----------------------------------------------------------------------------

STATUS = {"type": "string", "enum": ["waiting", "playing", "finished"]}
SUMMARIES: dict[str, Schema] = {
    # server/table.py Seat.summary, Table.summary; league/ladder.py standings
    "seat_summary": {
        "description": "one seat of a table",
        "type": "object",
        "properties": {
            "name": nullable({"type": "string"}),
            "kind": {"type": "string", "enum": ["human", "bot", "empty"]},
            "connected": {"type": "boolean"},
            "auto": {"type": "boolean", "description": "a bot stands in for the seat"},
            "clock_ms": {"type": "integer", "description": "chess clock: the seat's bank"},
            "timeouts": rng(0, None, "chess clock: the seat's timeouts so far"),
            "forfeited": {"type": "boolean", "description": "the seat forfeited the game"},
        },
        "required": ["name", "kind", "connected", "auto"]},
    "table_summary": {
        "description": "one table of a `tables` page",
        "type": "object",
        "properties": {
            "id": {"type": "string", "maxLength": 64},
            "name": nullable({"type": "string"}),
            "settings": ref("settings", "table"),
            "seats": {"type": "array", "items": {"$ref": "#/$defs/seat_summary"},
                      "maxItems": MAX_SEATS},
            "status": STATUS,
            "spectators": rng(0),
        },
        "required": ["id", "name", "settings", "seats", "status", "spectators"]},
    "ladder_entry": {
        "description": "one bot of the ladder's standings",
        "type": "object",
        "properties": {
            "rank": rng(1), "name": {"type": "string"}, "mu": {"type": "number"},
            "sigma": {"type": "number"}, "ordinal": {"type": "number"}, "games": rng(0),
            "wins": rng(0), "forfeits": rng(0), "timeouts": rng(0),
            "ready": {"type": "boolean"},
        },
        "required": ["rank", "name", "mu", "sigma", "ordinal", "games", "wins", "forfeits",
                     "timeouts", "ready"]},
}

_HEX = "^[0-9a-f]*$"
SUMMARIES["chance"] = {
    "description": "committed chance (Committed chance in PROTOCOL.md): the commitment, and "
                   "once revealed the salt and the secret, as lower-case hex",
    "type": "object",
    "properties": {
        "scheme": {"const": "kaitaku-chance/1"},
        "commitment": {"type": "string", "pattern": _HEX, "minLength": 64, "maxLength": 64},
        "salt": {"type": "string", "pattern": _HEX, "minLength": 32, "maxLength": 32},
        "secret": {"type": "string", "pattern": _HEX, "minLength": 128, "maxLength": 128},
    },
    "required": ["scheme", "commitment"]}

REFINE: dict[tuple[str, str], Schema] = {
    ("action", "action"): ref("actions", "action"),
    ("legal", "actions"): {"items": ref("actions", "action")},
    ("events", "events"): {"items": ref("events", "event")},
    ("view", "view"): ref("view"),
    ("view", "clocks"): {"items": {"type": "integer"}},
    ("create_table", "settings"): ref("settings", "settings"),
    ("create_table", "bots"): {"items": {"type": "string", "enum": list(BOT_KINDS)}},
    ("joined", "settings"): ref("settings", "table"),
    ("tables", "tables"): {"items": {"$ref": "#/$defs/table_summary"}},
    ("table", "seats"): {"items": {"$ref": "#/$defs/seat_summary"}},
    ("table", "status"): STATUS,
    ("game_over", "winner"): rng(*SEAT),
    ("game_over", "scores"): {"items": rng(0)},
    ("ladder", "entries"): {"items": {"$ref": "#/$defs/ladder_entry"}},
    ("game_started", "chance"): {"$ref": "#/$defs/chance"},
    ("game_over", "chance"): {"$ref": "#/$defs/chance"},
}
"""Game data inside messages: what the catalogue calls a map or a list, more exactly."""
STRICT_CODES: dict[tuple[str, str], Schema] = {
    ("error", "code"): ref("errors", "connection_code"),
    ("result", "code"): ref("errors", "refusal_code"),
}
"""``build(strict=True)``: only the known codes."""

KIND = {"str": "string", "int": "integer", "bool": "boolean", "map": "object", "list": "array"}


def field_schema(kind: str, name: str, f: Field, strict: bool) -> Schema:
    s: Schema = {"description": f.doc}
    if f.kind != "any":
        s["type"] = KIND[f.kind]
    if f.kind == "int":
        s["minimum"], s["maximum"] = -(2**53), 2**53
    if f.kind in ("str", "list"):
        lo, hi = ("minLength", "maxLength") if f.kind == "str" else ("minItems", "maxItems")
        if f.min_len:
            s[lo] = f.min_len
        if f.max_len is not None:
            s[hi] = f.max_len
    if f.choices is not None:
        s["enum"] = list(f.choices)
    more = REFINE.get((kind, name))
    if strict:
        more = STRICT_CODES.get((kind, name), more)
    if more is not None:  # 2020-12: a $ref applies beside the catalogue's limits
        s.update(more)
    return nullable(s) if f.optional else s


def message_schema(kind: str, strict: bool) -> Schema:
    spec = SPECS[kind]
    props: Schema = {"type": {"const": kind}}
    required = ["type"]
    for name, f in spec.fields.items():
        props[name] = field_schema(kind, name, f, strict)
        if not f.optional:
            required.append(name)
    side = ("either side" if kind in BOTH_WAYS
            else "client → server" if spec.sender == CLIENT else "server → client")
    return {"description": f"{spec.doc} ({side})", "type": "object", "properties": props,
            "required": required}


def messages_schema(strict: bool) -> Schema:
    defs: Schema = {k: message_schema(k, strict) for k in SPECS}
    client = [k for k, s in SPECS.items() if s.sender == CLIENT or k in BOTH_WAYS]
    server = [k for k, s in SPECS.items() if s.sender == SERVER or k in BOTH_WAYS]
    defs["message"] = union(list(SPECS), "any message")
    defs["client_message"] = union(client, "a message a client sends")
    defs["server_message"] = union(server, "a message a server sends")
    defs.update(copy.deepcopy(SUMMARIES))
    return file_schema("messages", "Kaitaku messages",
                       f"Protocol {VERSION_STRING}: every message, by its `type` "
                       "(docs/PROTOCOL.md). A frame's body is one msgpack map; a receiver "
                       "ignores fields it does not know. `#/$defs/client_message` and "
                       "`#/$defs/server_message` are what each side sends.",
                       {"$ref": "#/$defs/message", "$defs": defs})


# -- all of it ---------------------------------------------------------------------------


def close(s: Any) -> None:
    """Strict: every object with properties allows no other key (a union's
    definitions do, each for itself)."""
    if isinstance(s, dict):
        if "properties" in s and s.get("type") == "object" and "allOf" not in s:
            s.setdefault("additionalProperties", False)
        for v in s.values():
            close(v)
    elif isinstance(s, list):
        for v in s:
            close(v)


def build(strict: bool = False) -> dict[str, Schema]:
    """Every schema by file stem (``"messages"``, ...)."""
    out = {"messages": messages_schema(strict), "errors": errors_schema(),
           "actions": actions_schema(), "events": events_schema(), "view": view_schema(),
           "settings": settings_schema()}
    assert tuple(out) == FILES
    if strict:
        close(out)
        # create_table.settings ignores unknown keys, and a client sends it
        out["settings"]["$defs"]["settings"].pop("additionalProperties")
    return out


def render(v: Any, indent: int = 0, width: int = 100, lead: int = 0) -> str:
    """JSON, two spaces of indent, a value on one line when it fits (``lead``:
    the characters before it on its line, past the indent)."""
    one = json.dumps(v, ensure_ascii=False)
    if len(one) + indent + lead <= width or not isinstance(v, dict | list) or not v:
        return one if indent else one + "\n"
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        items = [f"{pad}{json.dumps(k)}: {render(x, indent + 2, width, len(json.dumps(k)) + 2)}"
                 for k, x in v.items()]
        text = "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    else:
        text = "[\n" + ",\n".join(pad + render(x, indent + 2, width) for x in v) + "\n" + \
            " " * indent + "]"
    return text if indent else text + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, s in build().items():
        path = OUT / f"{name}.schema.json"
        text = render(s)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not check:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if check:
        for p in stale:
            print(f"stale: {p} (run python docs/protocol/schema.py)")
        return 1 if stale else 0
    print(f"wrote {len(stale)} of {len(FILES)} files in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
