"""Expand docs/protocol/PROTOCOL.tmpl.md into docs/PROTOCOL.md.

Run from the repository root: ``.venv/bin/python docs/protocol/gen.py``.
tests/wire/test_protocol_doc.py checks that the result matches the code.

@@MSG kind@@  -> direction, phases and the field table, from SPECS
@@EX kind@@   -> every example of that message: ```json + ```hex (encode_frame)
@@JSON {...}@@ -> one json + hex pair for an inline message
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from protocol.wire import SPECS, encode_frame, validate  # noqa: E402
from protocol.wire.connection import _CLIENT_MAY, _SERVER_MAY  # noqa: E402
from protocol.wire.messages import BOTH_WAYS  # noqa: E402

SETTINGS = {"players": 3, "vp_target": 10, "turn_cap": 0, "balanced_map": False,
            "shuffle_harbors": False, "harbor_delay": False, "strict_phases": False}
TOKEN = "q2V0dGxlcnMtb2YtY2F0YW4tMjAyNiEh"
SEATS = [{"name": "Ann", "kind": "human", "connected": True, "auto": False},
         {"name": "greedy-bot", "kind": "bot", "connected": True, "auto": False},
         {"name": None, "kind": "empty", "connected": False, "auto": False}]
PLAYING = [{"name": "Ann", "kind": "human", "connected": False, "auto": True},
           {"name": "greedy-bot", "kind": "bot", "connected": True, "auto": False},
           {"name": "Bob", "kind": "human", "connected": True, "auto": False}]

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "hello": [
        {"type": "hello", "version": "1.4", "role": "player", "name": "Ann"},
        {"type": "hello", "version": "1.4", "role": "bot", "name": "mybot", "resume": TOKEN,
         "seen": 41},
    ],
    "welcome": [{"type": "welcome", "version": "1.4", "session": "3f9c2a7d51e0b846",
                 "resume_token": TOKEN, "server": "kaitaku"}],
    "list_tables": [{"type": "list_tables"}, {"type": "list_tables", "offset": 100}],
    "tables": [
        {"type": "tables", "tables": [
            {"id": "8e30bc72", "name": "Friday night", "settings": SETTINGS, "seats": SEATS,
             "status": "waiting", "spectators": 1}]},
        {"type": "tables", "tables": [
            {"id": "0c94d1aa", "name": "table 101", "settings": SETTINGS, "seats": SEATS,
             "status": "finished", "spectators": 0}], "total": 101, "offset": 100},
    ],
    "create_table": [
        {"type": "create_table", "settings": {"players": 3, "vp_target": 10},
         "name": "Friday night", "bots": ["greedy"]},
        {"type": "create_table", "settings": {"players": 2}},
    ],
    "join": [
        {"type": "join", "table": "8e30bc72"},
        {"type": "join", "table": "8e30bc72", "seat": 2},
        {"type": "join", "table": "8e30bc72", "seat": 1, "key": "Jm1r3xQv0bq9Zt2KcW8y6A"},
    ],
    "spectate": [{"type": "spectate", "table": "8e30bc72"}],
    "joined": [
        {"type": "joined", "table": "8e30bc72", "seat": 0, "settings": SETTINGS},
        {"type": "joined", "table": "8e30bc72", "seat": None, "settings": SETTINGS},
        {"type": "joined", "table": "8e30bc72", "seat": 0, "settings": SETTINGS,
         "last_seq": 16},
    ],
    "table": [
        {"type": "table", "table": "8e30bc72", "seats": SEATS, "status": "waiting",
         "can_start": False},
        {"type": "table", "table": "8e30bc72", "seats": PLAYING, "status": "playing"},
        {"type": "table", "table": "8e30bc72", "seats": PLAYING, "status": "playing",
         "paused": "storage"},
    ],
    "start": [{"type": "start"}],
    "leave": [{"type": "leave"}],
    "left": [{"type": "left", "table": "8e30bc72"}],
    "game_started": [{"type": "game_started", "table": "8e30bc72"}],
    "view": [{"type": "view", "version": 41, "view": {
        "seat": 0, "players": 3, "phase": "main", "turn": 9, "current": 0, "to_act": [0],
        "robber": 9, "bank": [15, 17, 16, 18, 14],
        "you": {"hand": [1, 1, 0, 2, 0], "vp_total": 3}}},
             {"type": "view", "version": 7, "view": {"seat": 1, "phase": "setup_road"},
              "clocks": [59250, 61500, 62000]}],
    "events": [{"type": "events", "version": 41, "events": [
        {"type": "dice_rolled", "seat": 0, "dice": [4, 2]},
        {"type": "produced", "gains": [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
         "withheld": []}]}],
    "legal": [
        {"type": "legal", "version": 41, "actions": [
            {"type": "build_road", "edge": 23}, {"type": "build_road", "edge": 30},
            {"type": "maritime_trade", "give": 3, "get": 4}, {"type": "end_turn"}]},
        {"type": "legal", "version": 42, "actions": []},
        {"type": "legal", "version": 57, "actions": [
            {"type": "discard", "cards": [20, 0, 0, 0, 0]},
            {"type": "discard", "cards": [9, 8, 3, 0, 0]}], "truncated": True, "discard": 20},
        {"type": "legal", "version": 63, "actions": [], "propose": True},
    ],
    "action": [
        {"type": "action", "seq": 17, "action": {"type": "build_road", "edge": 23}},
        {"type": "action", "seq": 18, "action": {"type": "offer_trade", "give": [0, 0, 0, 1, 0],
                                                 "get": [0, 1, 0, 0, 0], "to": None}},
        {"type": "action", "seq": 19, "action": {"type": "propose_trade",
                                                 "give": [0, 0, 0, 0, 1],
                                                 "get": [0, 1, 0, 0, 0]}},
    ],
    "result": [
        {"type": "result", "seq": 17, "ok": True, "version": 42},
        {"type": "result", "seq": 18, "ok": False, "code": "cannot_afford",
         "message": "you do not hold the cards you offer", "version": 42},
    ],
    "resync": [{"type": "resync"}],
    "announce": [{"type": "announce", "text": "The server restarts at 03:00 UTC after the "
                                             "running games end."}],
    "table_closed": [{"type": "table_closed", "table": "8e30bc72",
                      "reason": "abuse in the chat"}],
    "game_over": [
        {"type": "game_over", "winner": 2, "scores": [7, 8, 10]},
        {"type": "game_over", "winner": None, "scores": [6, 5, 6]},
    ],
    "chat": [
        {"type": "chat", "text": "good luck!"},
        {"type": "chat", "table": "8e30bc72", "seat": 0, "name": "Ann", "text": "good luck!"},
    ],
    "ping": [{"type": "ping", "nonce": 7}],
    "pong": [{"type": "pong", "nonce": 7}],
    "error": [
        {"type": "error", "code": "no_such_table", "message": "no table 'ffffffff'"},
        {"type": "error", "code": "version_unsupported",
         "message": "server speaks protocol 1.3, not 2.0"},
    ],
    "bye": [{"type": "bye", "reason": "server shutting down"}],
    "ladder_register": [{"type": "ladder_register", "name": "mybot"}],
    "ladder_registered": [{"type": "ladder_registered", "name": "mybot",
                           "key": "Jm1r3xQv0bq9Zt2KcW8y6AJm1r3xQv0b"}],
    "ladder_ready": [{"type": "ladder_ready", "name": "mybot",
                      "key": "Jm1r3xQv0bq9Zt2KcW8y6AJm1r3xQv0b", "games": 20}],
    "ladder_queued": [{"type": "ladder_queued", "games": 20, "name": "mybot"},
                      {"type": "ladder_queued", "games": 0, "name": "mybot"}],
    "ladder_standings": [{"type": "ladder_standings"},
                         {"type": "ladder_standings", "offset": 100, "limit": 50}],
    "ladder": [{"type": "ladder", "entries": [
        {"rank": 1, "name": "mybot", "mu": 31.5, "sigma": 2.5, "ordinal": 24.0, "games": 120,
         "wins": 51, "forfeits": 0, "timeouts": 2, "ready": True},
        {"rank": 2, "name": "Aiko", "mu": 27.25, "sigma": 3.0, "ordinal": 18.25, "games": 64,
         "wins": 20, "forfeits": 1, "timeouts": 3, "ready": False}],
        "total": 2, "offset": 0, "games": 92}],
}

KIND = {"str": "string", "int": "integer", "bool": "boolean", "map": "map", "list": "array",
        "any": "any"}


def compact(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def pretty(v: Any, indent: int = 0, width: int = 88) -> str:
    one = compact(v)
    if len(one) + indent <= width or not isinstance(v, dict | list) or not v:
        return one
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        items = [f"{pad}{json.dumps(k)}: {pretty(x, indent + 2, width)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + pretty(x, indent + 2, width) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def hexdump(data: bytes) -> str:
    return "\n".join(" ".join(f"{b:02x}" for b in data[i:i + 16])
                     for i in range(0, len(data), 16))


def example(msg: dict[str, Any]) -> str:
    validate(msg)
    frame = encode_frame(msg)
    assert json.loads(pretty(msg)) == msg
    return (f"```json\n{pretty(msg)}\n```\n\n{len(frame)} bytes on the wire:\n\n"
            f"```hex\n{hexdump(frame)}\n```")


PHASE_ORDER = ["handshake", "lobby", "table", "playing"]


def phases(kind: str, side: str) -> list[str]:
    table = _CLIENT_MAY if side == "client" else _SERVER_MAY
    return [p.value for p, allowed in table.items() if kind in allowed]


def msg_header(kind: str) -> str:
    spec = SPECS[kind]
    if kind in BOTH_WAYS:
        direction = "either side (client → server and server → client)"
        ph = ("client: " + ", ".join(f"`{x}`" for x in phases(kind, "client"))
              + "; server: " + ", ".join(f"`{x}`" for x in phases(kind, "server")))
    else:
        direction = "client → server" if spec.sender == "client" else "server → client"
        ph = ", ".join(f"`{x}`" for x in phases(kind, spec.sender))
    lines = [f"*{spec.doc}*", "", f"- Direction: **{direction}**", f"- Phases: {ph}"]
    if not spec.fields:
        lines += ["- Fields: none besides `type`."]
        return "\n".join(lines)
    lines += ["", "| field | type | required | limits | meaning |",
              "| --- | --- | --- | --- | --- |"]
    for name, f in spec.fields.items():
        lim = []
        unit = "characters" if f.kind == "str" else "items"
        if f.min_len and f.max_len is not None:
            lim.append(f"{f.min_len}–{f.max_len} {unit}")
        elif f.max_len is not None:
            lim.append(f"≤ {f.max_len} {unit}")
        if f.choices:
            lim.append("one of " + ", ".join(f"`{c}`" for c in f.choices))
        if f.kind == "int":
            lim.append("−2^53 … 2^53")
        req = "no (missing or nil)" if f.optional else "**yes**"
        lines.append(f"| `{name}` | {KIND[f.kind]} | {req} | {'; '.join(lim) or '—'} | "
                     f"{f.doc.replace('|', '/')} |")
    return "\n".join(lines)


ERROR_NOTES: dict[str, tuple[str, str]] = {
    "bad_frame": ("yes", "1.0; a length header of 0 (section 2.2)"),
    "too_large": ("yes", "1.0; a length header above MAX_CLIENT_FRAME (16384), before any "
                  "body byte is read"),
    "bad_msgpack": ("yes", "1.0 (section 2.1)"),
    "bad_message": ("yes", "1.0; also a `hello.name` with no printable character"),
    "unexpected_message": ("during the handshake; afterwards no (section 5.2)",
                           "1.0; also the answer to `chat` in the lobby"),
    "version_unsupported": ("yes", "1.0; a `hello.version` of another major version, or "
                            "not `major.minor`"),
    "bad_resume": ("no (stays in the lobby)", "1.0; after the `welcome`"),
    "handshake_timeout": ("yes", "1.0; no `hello` within 10 s of the connection"),
    "idle_timeout": ("yes", "1.0; nothing received for 90 s (the server pings after 30 s of "
                     "silence, and every 30 s after that)"),
    "rate_limited": ("yes", "1.0; over 1000 messages a second sustained, 2000 in a burst"),
    "too_many_connections": ("yes", "1.0; instead of a `welcome`: 2000 connections in all, "
                             "256 from one address (the server's flags), counted from the "
                             "accept; with TLS such a connection is closed before the "
                             "handshake, unanswered"),
    "too_many_tables": ("no", "1.0; `create_table` when 500 tables are open (waiting or "
                        "playing), or 8 created from your address are; closed and finished "
                        "tables do not count"),
    "too_many_bots": ("no", "1.3; `create_table`/`start` past 32 bot processes, or 12 for "
                      "your address"),
    "too_many_spectators": ("no", "1.3; `spectate` past 64 spectators of the table, or 32 "
                            "watching connections of your address"),
    "frame_timeout": ("yes", "1.3; a started frame not finished within 10 s"),
    "storage_unavailable": ("no", "1.3; also a `result` code (section 7.10)"),
    "acted_for_you": ("no", "1.0; to a connected seat the server played for (timer, stand-in, "
                      "a drop during a trade)"),
    "no_such_table": ("no", "1.0; `join`/`spectate`"),
    "seat_taken": ("no", "1.0; `join` with a `seat` that is not free (or no such seat)"),
    "table_full": ("no", "1.0; `join` without `seat` and no free seat"),
    "not_seated": ("no", "never as an error: only as a `result` code (9.2)"),
    "not_creator": ("no", "1.0; `start` by a member without `can_start`"),
    "table_closed": ("no", "1.2; a `left` follows"),
    "bad_settings": ("no", "1.0; `create_table` (and `ladder_ready.games`)"),
    "game_not_started": ("no", "never as an error: only as a `result` code (9.2)"),
    "server_shutdown": ("yes", "1.0; followed by `bye`"),
    "replaced": ("yes", "1.0; the old connection closes after it"),
    "internal_error": ("no", "1.0; also a `result` code (not applied)"),
    "forfeited": ("no", "1.3, tables with a chess clock; also a `result` code"),
    "no_ladder": ("no", "1.3; a ladder message to a server without a ladder"),
    "bad_key": ("no", "1.3, ladder"),
    "name_taken": ("no", "1.3, ladder"),
    "ladder_busy": ("no", "1.3, ladder"),
    "banned": ("yes", "1.4; instead of a `welcome` (a banned name), or to a connection a new "
               "ban covers, then `bye`; a banned address gets it instead of anything else "
               "(with TLS it is closed before the handshake, unanswered)"),
    "kicked": ("yes", "1.4; `kaitaku admin kick`, then `bye`"),
    "closed_by_host": ("no", "1.4, to clients older than 1.4 instead of `table_closed`; a "
                       "`left` follows"),
    "announcement": ("no", "1.4, to clients older than 1.4 outside a table, instead of "
                     "`announce`"),
    "draining": ("no", "1.4; `create_table` while the server drains"),
    "version_too_old": ("no", "1.4; `create_table` with 5 or 6 players, `join`, "
                        "`spectate` or a resume of such a table, or `ladder_ready` on a "
                        "5–6 seat ladder, by a client older than 1.4 (7.15)"),
}


def settings_table() -> str:
    from protocol.wire import SETTINGS as CATALOGUE
    rows = ["| setting | type | values | default | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, st in CATALOGUE.items():
        values = f"{st.low}–{st.high}" if st.kind == "int" else "true, false"
        default = json.dumps(st.default)
        rows.append(f"| `{name}` | {KIND[st.kind]} | {values} | {default} | {st.doc} |")
    return "\n".join(rows)


def large_board() -> str:
    """The 30-hex board's tables (5–6 players), written like the 19-hex ones."""
    from protocol.rules.board import LARGE as g

    rows = [
        "The 5–6 player island has 30 hexes in rows of 3, 4, 5, 6, 5, 4, 3, with "
        "axial coordinates\n`(q, r)`, `−3 ≤ r ≤ 3`, `−3 ≤ q ≤ 2`, `−3 ≤ q + r ≤ 2` "
        "(`r` the row, −3 at the top). Its ids\nfollow the same rule: hexes 0–29 row "
        "by row, left to right; intersections 0–79 top to\nbottom, then left to right; "
        "edges 0–108 by midpoint the same way. The positions use\nthe same formula "
        "(the board's centre is `(−√3/2, 0)`, between hexes 14 and 15). The\ntables "
        "below are normative.",
        "",
        "| hex | (q, r) | nodes, clockwise from the top corner |",
        "| --- | --- | --- |",
    ]
    for h, ((q, r), nodes) in enumerate(zip(g.hex_coords, g.hex_nodes, strict=True)):
        rows.append(f"| {h} | ({q}, {r}) | {' '.join(map(str, nodes))} |")
    rows += ["", "Edges as `edge:node-node`:", "", "```text"]
    pairs = [f"{e}:{a}-{b}" for e, (a, b) in enumerate(g.edge_nodes)]
    rows += ["  ".join(pairs[i:i + 12]) for i in range(0, len(pairs), 12)]
    rows += ["```", "",
             f"The eleven harbors sit on edges **{', '.join(map(str, g.harbor_edges))}** "
             "(in this\norder, clockwise from the top-left, where JSettlers2's 6-player "
             "board puts them);\n`view.board.harbors[i]` is the type of the harbor on the "
             "i-th of these edges\n(printed arrangement: "
             f"{', '.join(map(str, g.harbor_types))})."]
    return "\n".join(rows)


def errors_table() -> str:
    from protocol.wire import ERROR_CODES
    assert set(ERROR_NOTES) == set(ERROR_CODES), set(ERROR_NOTES) ^ set(ERROR_CODES)
    return "\n".join(f"| `{c}` | {m} | {ERROR_NOTES[c][0]} | {ERROR_NOTES[c][1]} |"
                     for c, m in ERROR_CODES.items())


def real_view() -> str:
    import random

    from protocol.rules import (
        OfferTrade,
        Phase,
        Settings,
        apply,
        legal_actions,
        new_game,
        observe,
        to_act,
    )
    from protocol.rules import validate as rvalidate
    for seed in range(100):
        s = new_game(Settings(players=3), seed)
        r = random.Random(seed)
        while s.turn < 25 and s.phase != Phase.GAME_OVER:
            seat = to_act(s)[0]
            apply(s, r.choice(legal_actions(s, seat)), seat)
            if s.phase == Phase.MAIN and s.turn > 15 and s.current == 1:
                h = s.hands[1]
                have = [i for i in range(5) if h[i] > 0]
                if not have:
                    continue
                give = [0] * 5
                get = [0] * 5
                give[have[0]] = 1
                get[[i for i in range(5) if i != have[0]][0]] = 1
                a = OfferTrade(tuple(give), tuple(get), None)
                try:
                    rvalidate(s, a, 1)
                except Exception:
                    continue
                apply(s, a, 1)
                return pretty(observe(s, 0), width=100)
    raise RuntimeError("no scenario")


def main() -> None:
    src = (ROOT / "docs/protocol/PROTOCOL.tmpl.md").read_text(encoding="utf-8")
    used: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        what, arg = m.group(1), m.group(2).strip()
        if what == "MSG":
            return msg_header(arg)
        if what == "EX":
            used.add(arg)
            return "\n\n".join(example(x) for x in EXAMPLES[arg])
        if what == "JSON":
            return example(json.loads(arg))
        raise ValueError(what)

    src = (src.replace("@@ERRORS@@", errors_table()).replace("@@VIEW@@", real_view())
           .replace("@@SETTINGS@@", settings_table()).replace("@@LARGE_BOARD@@", large_board()))
    out = re.sub(r"@@(MSG|EX|JSON) (.*?)@@", sub, src, flags=re.S)
    missing = set(SPECS) - used
    assert not missing, missing
    (ROOT / "docs/PROTOCOL.md").write_text(out, encoding="utf-8")
    print("ok", len(out))


if __name__ == "__main__":
    main()
