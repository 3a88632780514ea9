"""Every action rejection code of docs/PROTOCOL.md section 9.2, driven over real
loopback TCP against the real server: a seated client sends an action and gets
``result {ok: false, code}``, at the table's version, and the game is exactly
as it was.

Most positions are reached by normal play from a fixed seed (set-up with the
first legal placement, then the dice). The few that play does not reach
quickly (an empty development deck, a bank short of a resource, a seat
without settlements, a 7 with a discard owed, a winning build) are built with
the engine's position builder (:mod:`protocol.rules.position`) from the game
the table reached, and installed into the server's table at its version; the
actions and their refusals still go over TCP.

``DRIVEN`` names the test of this file that makes the server send each code,
``DRIVEN_ELSEWHERE`` the test of another file of ``tests/server`` that does;
``NEVER_SENT`` the documented codes no refusal carries (checked against the
engine's source). A test checks that together they are exactly the codes of
section 9.2.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import replace
from pathlib import Path
from typing import Any

from protocol.rules import GameState, Phase, legal_actions
from protocol.rules.board import HEX_NODES, NODE_EDGES, NODE_NODES, NUM_NODES
from protocol.rules.position import Position, build, position_of
from server.app import Server

from ..wire.test_protocol_doc import section, table_codes
from .conftest import Connect, RawClient, RawTable, raw_table

DRIVEN: dict[str, str] = {
    "cannot_afford": "test_refusals_in_play",
    "no_card": "test_refusals_in_play",
    "bad_resource": "test_refusals_in_play",
    "bad_trade": "test_refusals_in_play",
    "bad_victim": "test_refusals_in_play",
    "no_tokens": "test_refusals_in_play",
    "proposal_limit": "test_refusals_in_play",
    "trade_closed": "test_trade_closes_after_a_build_with_strict_phases",
    "nothing_to_draw": "test_two_player_refusals",
    "token_limit": "test_two_player_refusals",
    "bad_neutral": "test_two_player_refusals",
    "deck_empty": "test_refusals_in_built_positions",
    "dev_card_limit": "test_refusals_in_built_positions",
    "bank_short": "test_refusals_in_built_positions",
    "no_pieces": "test_refusals_in_built_positions",
    "wrong_count": "test_refusals_in_built_positions",
    "game_over": "test_actions_after_the_end",
}

DRIVEN_ELSEWHERE: dict[str, str] = {
    "not_your_turn": "test_errors.test_action_out_of_turn",
    "wrong_phase": "test_errors.test_illegal_actions_get_the_engine_codes",
    "illegal_placement": "test_errors.test_illegal_actions_get_the_engine_codes",
    "bad_location": "test_errors.test_illegal_actions_get_the_engine_codes",
    "malformed_action": "test_errors.test_illegal_actions_get_the_engine_codes",
    "stale_seq": "test_errors.test_a_repeated_seq_is_answered_again_not_applied_twice",
    "offer_limit": "test_protocol_limits.test_offers_per_turn_and_the_offerers_early_legal",
    "game_not_started": "test_protocol_limits.test_results_of_actions_without_a_game",
    "not_seated": "test_protocol_limits.test_results_of_actions_without_a_game",
    "unexpected_message": "test_protocol_limits.test_out_of_phase_messages",
    "internal_error": "test_protocol_limits.test_internal_errors_are_contained",
    "storage_unavailable": "test_protocol_limits.test_a_full_database_refuses_actions",
    "forfeited": "test_protocol_limits.test_a_chess_clock_forfeit",
}

NEVER_SENT = frozenset({"illegal_action"})
"""The base code of :class:`protocol.rules.IllegalAction`: every refusal names
a more specific one (``test_no_refusal_is_the_bare_base_code``)."""

SETUP = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
ROOT = Path(__file__).resolve().parents[2]


# -- the codes of section 9.2 ---------------------------------------------------------


def test_every_rejection_code_is_driven_over_tcp() -> None:
    documented = table_codes(section(r"9\.2 .*"))
    assert not set(DRIVEN) & set(DRIVEN_ELSEWHERE)
    assert set(DRIVEN) | set(DRIVEN_ELSEWHERE) | NEVER_SENT == documented
    for code, name in DRIVEN.items():
        test = globals().get(name)
        assert callable(test), name
        assert f'"{code}"' in inspect.getsource(test), (code, name)
    for code, where in DRIVEN_ELSEWHERE.items():
        module, name = where.split(".")
        test = getattr(importlib.import_module(f"tests.server.{module}"), name, None)
        assert callable(test), where
        assert f'"{code}"' in inspect.getsource(test), (code, where)


def test_no_refusal_is_the_bare_base_code() -> None:
    """Every refusal of the rules engine names a code of its own: each
    ``_require`` passes one (its default, ``illegal_action``, is the only place
    the name appears), each ``IllegalAction`` too; the server only forwards
    the engine's codes and never names this one."""
    requires = 0
    for path in sorted((ROOT / "protocol" / "rules").glob("*.py")):
        src = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "_require" and path.name == "engine.py":
                    requires += 1
                    assert len(node.args) == 3 and not node.keywords, (path, node.lineno)
                elif node.func.id == "IllegalAction":
                    assert len(node.args) == 2, (path, node.lineno)
        named = src.count('"illegal_action"')
        assert named == {"engine.py": 1, "errors.py": 1}.get(path.name, 0), path
    assert requires > 50
    assert 'def _require(cond: bool, message: str, code: str = "illegal_action")' in (
        ROOT / "protocol" / "rules" / "engine.py").read_text(encoding="utf-8")
    for path in (ROOT / "server").glob("*.py"):
        assert "illegal_action" not in path.read_text(encoding="utf-8"), path


# -- helpers ----------------------------------------------------------------------------


async def play(table: RawTable, client: RawClient, action: dict[str, Any]) -> None:
    """``client`` acts and the action is applied."""
    v = table.version
    res = await client.act(action)
    assert res == {"type": "result", "seq": client.seq, "ok": True, "version": v + 1}, res


async def refused(table: RawTable, client: RawClient, action: dict[str, Any],
                  code: str) -> None:
    """``client`` acts and is refused with ``code`` at the table's version;
    nothing changed."""
    before = table.game().to_dict()
    v = table.version
    res = await client.act(action)
    assert res == {"type": "result", "seq": client.seq, "ok": False, "code": code,
                   "message": res.get("message"), "version": v}, (action, res)
    assert res["message"]
    assert table.version == v
    assert table.game().to_dict() == before


async def set_up(table: RawTable) -> None:
    """The set-up, each seat taking its first legal placement."""
    while table.game().phase in SETUP:
        actor = table.actor()
        await play(table, actor, (await table.legal_for(actor))[0])


async def roll(table: RawTable) -> None:
    """The current player rolls, once (a 7 stops in the robber's phases)."""
    assert table.game().phase == Phase.PRE_ROLL
    await play(table, table.clients[table.game().current], {"type": "roll_dice"})


async def install(table: RawTable, pos: Position) -> GameState:
    """Put the game of ``pos`` in place of the table's (started) game, at the
    table's version, and have every seat fetch it with a ``resync``: each gets
    the view and legal actions of the new position."""
    tab = table.server.tables[table.id]
    assert tab.status == "playing" and tab.game is not None and not tab.spectators
    assert pos.settings == tab.settings
    for c in table.clients:  # read everything sent so far: no stale legal list is left
        await c.send({"type": "ping", "nonce": table.version})
        await c.recv_until(lambda m: m["type"] == "pong")
    state = build(pos)
    tab.game = state
    v = tab.version
    for c in table.clients:
        assert c.seat is not None
        await c.send({"type": "resync"})
        view = await c.recv_until(lambda m: m["type"] == "view" and m["version"] == v)
        assert view["view"]["phase"] == pos.phase
        legal = await c.recv_until(lambda m: m["type"] == "legal" and m["version"] == v)
        assert legal["actions"] == [a.to_dict() for a in legal_actions(state, c.seat)]
    return state


def with_seat(pos: Position, seat: int, **fields: Any) -> Position:
    """``pos`` with some fields of one seat replaced."""
    seats = list(pos.seats)
    seats[seat] = replace(seats[seat], **fields)
    return replace(pos, seats=tuple(seats))


def free_spots(state: GameState, count: int) -> list[tuple[int, int]]:
    """``count`` (intersection, edge) pairs where a settlement with one road of
    its own may stand: the distance rule holds, the edge is free."""
    built = {v for v in range(NUM_NODES) if state.node_owner[v] >= 0}
    out: list[tuple[int, int]] = []
    for v in range(NUM_NODES):
        if v in built or any(m in built for m in NODE_NODES[v]):
            continue
        edges = [e for e in NODE_EDGES[v] if state.edge_owner[e] < 0]
        if edges:
            out.append((v, edges[0]))
            built.add(v)
        if len(out) == count:
            return out
    raise AssertionError("no room on the board")


def one(resource: int) -> list[int]:
    """One card of ``resource``, as five counts."""
    return [int(k == resource) for k in range(5)]


def victims_on(state: GameState, hex_id: int) -> set[int]:
    n = state.settings.players
    owners = {state.node_owner[v] for v in HEX_NODES[hex_id]}
    return {q for q in owners if 0 <= q < n and q != state.current}


# -- reached by play ---------------------------------------------------------------------


async def test_refusals_in_play(server: Server, connect: Connect) -> None:
    """Seed 2022, 3 players: the first roll is a 7; the robber goes to a hex of
    two opponents (the steal phase), then the main phase."""
    table = await raw_table(server, connect, players=3, seed=2022)
    await set_up(table)
    await roll(table)
    game = table.game()
    assert game.last_roll is not None and sum(game.last_roll) == 7
    assert game.phase == Phase.MOVE_ROBBER
    cur = game.current
    mover = table.clients[cur]
    moves = [a for a in await table.legal_for(mover) if a["type"] == "move_robber"]
    target = next(a for a in moves if len(victims_on(game, a["hex"])) >= 2)
    await play(table, mover, target)
    assert table.game().phase == Phase.STEAL
    # the thief itself is not a possible victim
    await refused(table, mover, {"type": "steal", "victim": cur}, "bad_victim")
    await play(table, mover, (await table.legal_for(mover))[0])

    game = table.game()
    assert game.phase == Phase.MAIN and game.current == cur
    hand = game.hands[cur]
    own = next(v for v in range(NUM_NODES) if game.node_owner[v] == cur)
    assert hand[3] < 2 or hand[4] < 3
    await refused(table, mover, {"type": "build_city", "node": own}, "cannot_afford")
    await refused(table, mover, {"type": "offer_trade", "give": [hand[0] + 1, 0, 0, 0, 0],
                                 "get": [0, 1, 0, 0, 0], "to": None}, "cannot_afford")
    assert sum(game.dev_hand[cur]) == 0
    await refused(table, mover, {"type": "play_monopoly", "resource": 0}, "no_card")
    await refused(table, mover, {"type": "play_knight"}, "no_card")
    await refused(table, mover, {"type": "maritime_trade", "give": 5, "get": 0},
                  "bad_resource")
    await refused(table, mover, {"type": "maritime_trade", "give": 1, "get": 1}, "bad_trade")
    await refused(table, mover, {"type": "offer_trade", "give": [0, 0, 0, 0, 0],
                                 "get": [0, 1, 0, 0, 0], "to": None}, "bad_trade")
    held = next(k for k in range(5) if hand[k])
    await refused(table, mover, {"type": "offer_trade", "give": one(held),
                                 "get": one((held + 1) % 5), "to": cur}, "bad_trade")
    await refused(table, mover, {"type": "token_robber_home"}, "no_tokens")
    await refused(table, mover, {"type": "discard_knight"}, "no_tokens")

    # Another seat proposes; a second proposal while the first is open is refused.
    q = next(s for s in range(3) if s != cur and sum(game.hands[s]) > 0)
    proposer = table.clients[q]
    r = next(k for k in range(5) if game.hands[q][k])
    terms = {"give": one(r), "get": one((r + 1) % 5)}
    await refused(table, proposer, {"type": "propose_trade", **terms,
                                    "give": [0, 0, 0, 0, 0]}, "bad_trade")
    await play(table, proposer, {"type": "propose_trade", **terms})
    assert q in table.game().proposals
    await refused(table, proposer, {"type": "propose_trade", **terms}, "proposal_limit")
    # and the current player's own proposal is an offer, not a proposal
    await refused(table, mover, {"type": "propose_trade", **terms}, "bad_trade")


async def test_trade_closes_after_a_build_with_strict_phases(server: Server,
                                                             connect: Connect) -> None:
    """Seed 2024: the first player holds a road's cards after the first roll."""
    table = await raw_table(server, connect, players=3, seed=2024,
                            settings={"strict_phases": True})
    await set_up(table)
    await roll(table)
    game = table.game()
    assert game.phase == Phase.MAIN and game.info.strict
    cur = game.current
    builder = table.clients[cur]
    road = next(a for a in await table.legal_for(builder) if a["type"] == "build_road")
    await play(table, builder, road)
    assert table.game().built
    give = next(k for k in range(5) if table.game().hands[cur][k])
    offer = {"type": "offer_trade", "give": one(give), "get": one((give + 1) % 5), "to": None}
    await refused(table, builder, offer, "trade_closed")
    q = next(s for s in range(3) if s != cur and sum(table.game().hands[s]) > 0)
    r = next(k for k in range(5) if table.game().hands[q][k])
    await refused(table, table.clients[q], {"type": "propose_trade", "give": one(r),
                                            "get": one((r + 1) % 5)}, "trade_closed")


async def test_two_player_refusals(server: Server, connect: Connect) -> None:
    """Seed 2022, 2 players: the first roll is a 7 (the robber leaves the
    desert), and after the second the opponent holds no card."""
    table = await raw_table(server, connect, players=2, seed=2022)
    await set_up(table)
    while table.game().phase != Phase.MAIN:
        if table.game().phase == Phase.PRE_ROLL:
            await roll(table)
        else:
            actor = table.actor()
            await play(table, actor, (await table.legal_for(actor))[0])
    game = table.game()
    cur = game.current
    me = table.clients[cur]
    assert sum(game.hands[1 - cur]) == 0 and game.robber != game.info.desert
    await refused(table, me, {"type": "token_forced_trade"}, "nothing_to_draw")
    await play(table, me, {"type": "token_robber_home"})
    assert table.game().token_used
    await refused(table, me, {"type": "token_robber_home"}, "token_limit")
    await refused(table, me, {"type": "token_forced_trade"}, "token_limit")
    # A paid road: the player places a neutral road next, for owner 2 or 3.
    road = next(a for a in await table.legal_for(me) if a["type"] == "build_road")
    await play(table, me, road)
    assert table.game().phase == Phase.NEUTRAL_ROAD
    neutral = next(a for a in await table.legal_for(me) if a["type"] == "build_neutral_road")
    for owner in (cur, 1 - cur, 4):
        await refused(table, me, {**neutral, "neutral": owner}, "bad_neutral")
    await play(table, me, neutral)


# -- reached through the position builder --------------------------------------------------


async def test_refusals_in_built_positions(server: Server, connect: Connect) -> None:
    """Seed 2024, 3 players, in the first player's main phase; each position
    changes what play would take long to reach."""
    table = await raw_table(server, connect, players=3, seed=2024)
    await set_up(table)
    await roll(table)
    played = table.game()
    assert played.phase == Phase.MAIN
    base = position_of(played)
    cur = base.current
    a, b = (cur + 1) % 3, (cur + 2) % 3
    me = table.clients[cur]

    # Every development card is held: the deck is empty.
    await install(table, with_seat(base, cur, hand=(0, 0, 1, 1, 1), dev=(14, 2, 2, 2, 5)))
    assert sum(table.game().dev_deck) == 0
    await refused(table, me, {"type": "buy_dev_card"}, "deck_empty")

    # A card was played this turn: a second one is refused.
    await install(table, replace(with_seat(base, cur, dev=(1, 0, 1, 0, 0)), dev_played=True))
    await refused(table, me, {"type": "play_knight"}, "dev_card_limit")
    await refused(table, me, {"type": "play_year_of_plenty", "first": 0, "second": 1},
                  "dev_card_limit")

    # Another seat holds all 19 grain: the bank has none to give.
    short = with_seat(with_seat(with_seat(base, cur, hand=(4, 0, 0, 0, 0), dev=(0, 0, 1, 0, 0)),
                                a, hand=(0, 0, 0, 19, 0)), b, hand=(0, 0, 0, 0, 0))
    state = await install(table, short)
    assert state.bank[3] == 0
    await refused(table, me, {"type": "maritime_trade", "give": 0, "get": 3}, "bank_short")
    await refused(table, me, {"type": "play_year_of_plenty", "first": 3, "second": 3},
                  "bank_short")
    await refused(table, me, {"type": "play_year_of_plenty", "first": 0, "second": None},
                  "bank_short")  # one card only when the bank holds exactly one

    # Five settlements on the board: none left to build.
    spots = free_spots(played, 3)
    mine = base.seats[cur]
    full = with_seat(base, cur, hand=(1, 1, 1, 1, 0),
                     settlements=mine.settlements + tuple(v for v, _ in spots),
                     roads=mine.roads + tuple(e for _, e in spots))
    state = await install(table, full)
    assert state.pieces[cur][1] == 0
    free = next(v for v in range(NUM_NODES) if state.node_owner[v] < 0)
    await refused(table, me, {"type": "build_settlement", "node": free}, "no_pieces")

    # A 7 with a discard owed: the wrong number of cards.
    state = await install(table, replace(with_seat(base, a, hand=(8, 0, 0, 0, 0)),
                                         phase="discard", dice=(3, 4)))
    assert state.discard_owed[a] == 4
    for n in (3, 5):
        await refused(table, table.clients[a], {"type": "discard", "cards": [n, 0, 0, 0, 0]},
                      "wrong_count")
    await play(table, table.clients[a], {"type": "discard", "cards": [4, 0, 0, 0, 0]})
    assert table.game().phase == Phase.MOVE_ROBBER


async def test_actions_after_the_end(server: Server, connect: Connect) -> None:
    """A 3 VP game: the first player's city after the first roll wins it; any
    action after that is refused with ``game_over``."""
    table = await raw_table(server, connect, players=3, seed=2024, settings={"vp_target": 3})
    await set_up(table)
    await roll(table)
    base = position_of(table.game())
    cur = base.current
    await install(table, with_seat(base, cur, hand=(0, 0, 0, 2, 3)))
    me = table.clients[cur]
    city = base.seats[cur].settlements[0]
    await play(table, me, {"type": "build_city", "node": city})
    for c in table.clients:
        over = await c.recv_type("game_over")
        assert over["winner"] == cur
    assert table.server.tables[table.id].status == "finished"
    assert table.game().phase == Phase.GAME_OVER
    await refused(table, me, {"type": "end_turn"}, "game_over")
    for c in table.others(me):
        await refused(table, c, {"type": "roll_dice"}, "game_over")

