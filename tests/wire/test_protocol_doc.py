"""docs/PROTOCOL.md stays in sync with the code it specifies.

Every message type, field and error code of the catalogue is documented;
every hex dump decodes (FrameDecoder) to a valid message equal to the JSON
shown above it; the rejection codes, game data names, limits and board tables
match the engine and the server.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from protocol.rules import ACTION_TYPES, DEV_CARDS, RESOURCES, Phase, Settings, new_game, observe
from protocol.rules.board import (
    EDGE_NODES,
    HARBOR_EDGES,
    HARBOR_TYPES,
    HEX_COORDS,
    HEX_NODES,
    LARGE,
)
from protocol.rules.events import EVENT_TYPES
from protocol.rules.state import PHASE_NAMES
from protocol.wire import (
    ERROR_CODES,
    MAX_FRAME,
    SPECS,
    VERSION_STRING,
    FrameDecoder,
    encode_frame,
    validate,
)
from protocol.wire.framing import MAX_ARRAY, MAX_DEPTH, MAX_MAP, MAX_STR
from protocol.wire.messages import BOTH_WAYS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")

PAIR = re.compile(r"```json\n(.*?)\n```\n\n(\d+) bytes on the wire:\n\n```hex\n(.*?)\n```",
                  re.S)
HEX_LINE = re.compile(r"[0-9a-f]{2}( [0-9a-f]{2}){0,15}")


def section(title_pattern: str) -> str:
    """The text from a heading matching ``title_pattern`` to the next heading of
    the same or a higher level."""
    m = re.search(rf"^(#+) {title_pattern}\s*$", DOC, re.M)
    assert m, f"no heading {title_pattern!r}"
    level = len(m.group(1))
    rest = DOC[m.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def message_section(kind: str) -> str:
    return section(re.escape(f"`{kind}`"))


def table_codes(text: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))


# -- the catalogue --------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_every_message_has_a_section_with_its_fields(kind: str) -> None:
    text = message_section(kind)
    spec = SPECS[kind]
    for name in spec.fields:
        assert f"| `{name}` |" in text, f"{kind}.{name} is not documented"
    if kind in BOTH_WAYS:
        assert "either side" in text
    elif spec.sender == "client":
        assert "client → server" in text
    else:
        assert "server → client" in text
    assert "```hex" in text, f"{kind} has no example frame"


def test_documented_fields_exist() -> None:
    for kind, spec in SPECS.items():
        documented = table_codes(message_section(kind))
        assert documented <= set(spec.fields), (kind, documented - set(spec.fields))


def test_every_connection_error_code_is_documented() -> None:
    table = table_codes(section(r"9\.1 .*"))
    assert set(ERROR_CODES) <= table
    for code in ERROR_CODES:
        assert f"`{code}`" in DOC


def test_counts_and_constants() -> None:
    from server.app import DEFAULT_PORT
    from server.session import HANDSHAKE_DEADLINE, OUTBOUND_LIMIT
    from server.table import SEQ_MEMORY

    assert f"the {len(SPECS)} types of section 6" in DOC
    assert f"# The Kaitaku wire protocol, version {VERSION_STRING}" in DOC
    assert f"**MAX_FRAME = {MAX_FRAME}** bytes" in DOC
    assert f"at most **{MAX_STR} bytes** each" in DOC
    assert f"at most **{MAX_ARRAY}** elements" in DOC
    assert f"at most **{MAX_MAP}** entries" in DOC
    assert f"at most **{MAX_DEPTH}** nested containers" in DOC
    assert f"The default port is **{DEFAULT_PORT}**" in DOC
    assert f"at most **{OUTBOUND_LIMIT} frames**" in DOC
    assert f"**{HANDSHAKE_DEADLINE:g} seconds**" in DOC
    assert f"the last **{SEQ_MEMORY}** results" in DOC
    assert f"if n == 0 or n > {MAX_FRAME}" in DOC


def test_limits_are_the_servers() -> None:
    from protocol.wire.messages import MAX_PAGE, MAX_TEXT
    from server.app import MAX_CONNECTIONS, MAX_PER_ADDRESS, Limits
    from server.session import BURST, FRAME_DEADLINE, RATE

    lim = Limits()
    assert f"complete within **{FRAME_DEADLINE:g} seconds**" in DOC
    assert f"one page of at most **{MAX_PAGE}** tables" in DOC
    assert f"(at most {MAX_TEXT} characters)" in DOC
    from protocol.wire import MAX_CLIENT_FRAME
    from server.session import SPECTATOR_FLUSH

    assert f"**MAX_CLIENT_FRAME = {MAX_CLIENT_FRAME}** bytes" in DOC
    assert f"up to {SPECTATOR_FLUSH * 1000:g} ms" in DOC
    text = section(r"7\.10 .*")
    for row in (f"| {MAX_CONNECTIONS} / {MAX_PER_ADDRESS} |",
                f"| {lim.tables} / {lim.tables_per_address} |",
                f"| {lim.bots} / {lim.bots_per_address} |",
                f"| {lim.spectators_per_table} / {lim.spectators_per_address} |",
                f"| {RATE:g} / {BURST:g} |", f"| {FRAME_DEADLINE:g} s |", f"| {MAX_PAGE} |",
                f"| {MAX_CLIENT_FRAME} bytes |"):
        assert row in text, row


def test_timings_and_game_limits_are_the_servers() -> None:
    from protocol.rules import MAX_OFFERS, MAX_PROPOSALS
    from server.app import FINISHED_TTL, WAITING_GRACE
    from server.session import IDLE_PING, IDLE_TIMEOUT
    from server.table import (
        CHAT_MEMORY,
        EVENT_MEMORY,
        GRACE,
        MAX_LEGAL,
        MAX_TIMEOUTS,
        STAND_IN_PACE,
    )

    text = section(r"7\.10 .*")
    for row in (f"| {IDLE_PING:g} s / {IDLE_TIMEOUT:g} s |", f"| {MAX_OFFERS} (`MAX_OFFERS`) |",
                f"| {MAX_PROPOSALS} / 1 (`MAX_PROPOSALS`) |", f"| {FINISHED_TTL:g} s |",
                f"| {GRACE:g} s |", f"| {WAITING_GRACE:g} s |", f"| {EVENT_MEMORY} |",
                f"| {CHAT_MEMORY} |", f"| {MAX_LEGAL} (then `truncated`) |"):
        assert row in text, row
    assert f"**{IDLE_PING:g} seconds**" in DOC and f"**{IDLE_TIMEOUT:g} seconds**" in DOC
    assert f"**{FINISHED_TTL:g} seconds**" in DOC
    stand_ins = section(r"7\.8 .*")
    assert f"last **{EVENT_MEMORY}** versions" in stand_ins
    assert f"last **{CHAT_MEMORY}**" in stand_ins
    assert f"After **{GRACE:g} seconds** away" in stand_ins
    assert {3: "three"}[MAX_TIMEOUTS] + " turn-timer timeouts in a row" in stand_ins
    assert STAND_IN_PACE == 0.5 and "one every half\nsecond" in stand_ins


# -- examples and hex dumps ----------------------------------------------------------


def _pairs() -> list[tuple[str, str, int, str]]:
    """(section kind or '', json text, byte count, hex text) for every example."""
    out = []
    for m in PAIR.finditer(DOC):
        before = DOC[: m.start()]
        heading = re.findall(r"^#### `([a-z_]+)`\s*$", before, re.M)
        last_h = max(before.rfind("\n## "), before.rfind("\n### "))
        kind = heading[-1] if heading and before.rfind("\n#### ") > last_h else ""
        out.append((kind, m.group(1), int(m.group(2)), m.group(3)))
    return out


PAIRS = _pairs()


def test_every_hex_block_is_an_example() -> None:
    assert DOC.count("```hex") == len(PAIRS)
    documented = {kind for kind, *_ in PAIRS}
    assert set(SPECS) <= documented


@pytest.mark.parametrize(("kind", "text", "count", "dump"), PAIRS,
                         ids=[f"{i}-{p[0] or 'inline'}" for i, p in enumerate(PAIRS)])
def test_hex_dump_decodes_to_the_json_example(kind: str, text: str, count: int,
                                               dump: str) -> None:
    lines = dump.split("\n")
    assert all(HEX_LINE.fullmatch(line) for line in lines), "16 bytes a line, 'xx xx ..'"
    assert all(len(line.split()) == 16 for line in lines[:-1])
    data = bytes.fromhex(dump.replace("\n", " "))
    assert len(data) == count
    messages = FrameDecoder().feed(data)
    assert len(messages) == 1
    msg = messages[0]
    sender = SPECS[msg["type"]].sender
    assert validate(msg, sender) is msg
    if kind:
        assert msg["type"] == kind
    assert json.loads(text) == msg
    assert encode_frame(json.loads(text)) == data  # the reference encoder's bytes


def test_every_json_block_parses() -> None:
    blocks = re.findall(r"```json\n(.*?)\n```", DOC, re.S)
    assert len(blocks) > len(SPECS)
    for block in blocks:
        json.loads(block)


def test_the_worked_ping_example() -> None:
    body = encode_frame({"type": "ping", "nonce": 7})[4:]
    assert f"`{body.hex(' ')}`" in DOC
    assert f"{len(body)} bytes, so its frame is" in DOC


# -- phases ------------------------------------------------------------------------


def test_phase_tables() -> None:
    from protocol.wire.connection import _CLIENT_MAY, _SERVER_MAY

    text = section(r"5\.1 .*")
    for phase, allowed in _CLIENT_MAY.items():
        row = re.search(rf"^\| `{phase.value}` \| (.*) \|$", text, re.M)
        assert row, phase
        assert set(re.findall(r"`([a-z_]+)`", row.group(1))) == set(allowed), phase
    server_rows = text[text.index("Server → client"):]
    for phase, allowed in _SERVER_MAY.items():
        row = re.search(rf"^\| [^|]*`{phase.value}`[^|]* \| (.*) \|$", server_rows, re.M)
        assert row, phase
        assert set(re.findall(r"`([a-z_]+)`", row.group(1))) == set(allowed), phase


# -- rejection codes ------------------------------------------------------------------


def _engine_codes() -> set[str]:
    tree = ast.parse((ROOT / "protocol" / "rules" / "engine.py").read_text(encoding="utf-8"))
    codes: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        pos = {"_require": 2, "IllegalAction": 1, "NotYourTurn": 1, "RulesError": 1}
        i = pos.get(node.func.id)
        if i is not None and len(node.args) > i:
            arg = node.args[i]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                codes.add(arg.value)
    from protocol.rules.errors import IllegalAction, MalformedAction, NotYourTurn

    codes |= {IllegalAction.code, NotYourTurn.code, MalformedAction.code}
    # Not reachable from an action: replays only, and settings (an error, not a result).
    return codes - {"invalid_log", "bad_settings"}


def _server_result_codes() -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "server").glob("*.py"):
        src = path.read_text(encoding="utf-8")
        for m in re.finditer(r'"type": "result",[^}]*?"code": "([a-z_]+)"', src, re.S):
            codes.add(m.group(1))
        for m in re.finditer(r'\bresult\(\s*[^,()]+,\s*"([a-z_]+)"', src):
            codes.add(m.group(1))  # table.result(seq, code, message)
    return codes


def test_rejection_codes_match_the_engine_and_the_server() -> None:
    table = table_codes(section(r"9\.2 .*"))
    engine = _engine_codes()
    server = _server_result_codes()
    assert {"stale_seq", "game_not_started", "not_seated"} <= server
    assert engine <= table, engine - table
    assert server <= table, server - table
    assert table <= engine | server, table - engine - server


def test_server_error_codes_are_documented() -> None:
    codes: set[str] = set()
    for path in (ROOT / "server").glob("*.py"):
        codes |= set(re.findall(r'\berror\(\s*"([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert codes, "no error() calls found"
    assert codes <= set(ERROR_CODES), codes - set(ERROR_CODES)


# -- game data --------------------------------------------------------------------------


def test_actions_events_phases_and_names() -> None:
    actions = section(r"8\.3 Actions")
    for name in ACTION_TYPES:
        assert f"`{name}`" in actions, name
    events = table_codes(section(r"8\.4 Events"))
    assert events == set(EVENT_TYPES)
    assert ", ".join(f"`{p}`" for p in PHASE_NAMES) in DOC
    assert ", ".join(f"{i} {r}" for i, r in enumerate(RESOURCES)) in DOC
    assert ", ".join(f"`{c}`" for c in DEV_CARDS) in DOC
    assert len(PHASE_NAMES) == len(Phase)


def test_view_keys() -> None:
    text = section(r"8\.5 The view")
    keys = set(re.findall(r"`([a-z_]+)`", "\n".join(
        line.split("|")[1] for line in text.splitlines() if line.startswith("| `"))))
    view = observe(new_game(Settings(players=2), 1), 0)
    assert set(view) | {"special_from"} == keys  # special_from: 5–6 players only
    assert set(observe(new_game(Settings(players=6), 1), 0)) == keys
    assert set(view["you"]) <= set(re.findall(r"`([a-z_]+)`", text))
    assert set(view["seats"][0]) <= set(re.findall(r"`([a-z_]+)`", text))


def test_board_tables() -> None:
    for i, (coords, nodes) in enumerate(zip(HEX_COORDS, HEX_NODES, strict=True)):
        row = f"| {i} | ({coords[0]}, {coords[1]}) | {' '.join(map(str, nodes))} |"
        assert row in DOC, row
    base, large = section(r"8\.1 .*").split("#### The 30-hex board")
    edges = re.findall(r"\b(\d+):(\d+)-(\d+)\b", base)
    assert [(int(a), int(b)) for _, a, b in edges] == list(EDGE_NODES)
    assert [int(e) for e, _, _ in edges] == list(range(len(EDGE_NODES)))
    assert ", ".join(map(str, HARBOR_EDGES)) in DOC
    assert "printed arrangement: " + ", ".join(map(str, HARBOR_TYPES)) in DOC.replace("\n", " ")
    # The 30-hex board of 5–6 players (1.4), in the same form.
    for i, (coords, nodes) in enumerate(zip(LARGE.hex_coords, LARGE.hex_nodes, strict=True)):
        row = f"| {i} | ({coords[0]}, {coords[1]}) | {' '.join(map(str, nodes))} |"
        assert row in large, row
    edges = re.findall(r"\b(\d+):(\d+)-(\d+)\b", large)
    assert [(int(a), int(b)) for _, a, b in edges] == list(LARGE.edge_nodes)
    assert [int(e) for e, _, _ in edges] == list(range(LARGE.num_edges))
    flat = large.replace("\n", " ")
    assert ", ".join(map(str, LARGE.harbor_edges)) in flat
    assert "printed arrangement: " + ", ".join(map(str, LARGE.harbor_types)) in flat
