"""Turn timers, stand-in bots and disconnects during a game (over loopback TCP)."""

from __future__ import annotations

import asyncio

import pytest

from protocol.rules import Phase, to_act
from server.app import Server

from .conftest import Connect, RawClient, until


async def _table(server: Server, connect: Connect, players: int, timer: float,
                 seed: int = 7) -> tuple[str, list[RawClient]]:
    creator = await connect("seat0")
    await creator.send({"type": "create_table", "settings": {"players": players}})
    tid = (await creator.recv_type("joined"))["table"]
    table = server.tables[tid]
    table.use_seed(seed)
    table.turn_timer = timer  # fractions of a second for the tests (the wire takes ints)
    clients = [creator]
    for i in range(1, players):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        await c.recv_type("joined")
        clients.append(c)
    return tid, clients


async def test_a_timeout_plays_the_default_action(server: Server, connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=0.2)
    table = server.tables[tid]
    assert table.game is not None
    first = to_act(table.game)[0]
    # Nobody places the first settlement: the timer places one at random.
    note = await clients[first].recv_until(
        lambda m: m["type"] == "error" and m["code"] == "acted_for_you")
    assert "build_settlement" in note["message"]
    assert table.version == 1
    # ... a spot as a bot would choose it: the best production on the board, not a
    # random (often one-hex coastal) corner
    from bots.greedy import node_value
    from protocol.rules import observe
    from protocol.rules.board import NUM_NODES

    view = observe(table.game, first)
    placed = next(n for n in range(NUM_NODES) if table.game.node_owner[n] == first)
    best = max(node_value(view, n) for n in range(NUM_NODES))
    assert node_value(view, placed) == best
    assert table.seats[first].timeouts == 1
    assert not table.seats[first].auto


async def test_three_timeouts_hand_the_seat_to_a_stand_in(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.table.STAND_IN_PACE", 0.005)
    tid, clients = await _table(server, connect, 3, timer=0.05)
    table = server.tables[tid]
    # Nobody ever acts (but everyone reads): every seat times out three times,
    # then stand-ins finish the game.
    readers = [asyncio.ensure_future(c.recv_until(lambda m: m["type"] == "game_over", 60))
               for c in clients]
    await until(lambda: table.status == "finished", 60)
    assert table.game is not None and table.game.phase == Phase.GAME_OVER
    assert all(seat.auto for seat in table.seats)
    overs = await asyncio.gather(*readers)
    assert all(over["winner"] == table.game.winner for over in overs)
    # A stand-in plays a person's cards: it answers, it never opens a trade (issue 17).
    opened = [e["type"] for m in clients[0].received if m["type"] == "events"
              for e in m["events"] if e["type"] in ("trade_offered", "trade_proposed")]
    assert opened == []


async def test_acting_again_takes_the_seat_back(server: Server, connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=0.05)
    table = server.tables[tid]
    await until(lambda: table.seats[0].auto)
    # A resume hands the seat back to the player.
    token = next(m for m in clients[0].received if m["type"] == "welcome")["resume_token"]
    await clients[0].close()
    back = await connect("seat0", hello=False)
    await back.send({"type": "hello", "version": "1.0", "role": "player", "name": "seat0",
                     "resume": token})
    await back.recv_type("joined")
    assert not table.seats[0].auto
    assert table.seats[0].timeouts == 0


async def test_a_dropped_offerer_cancels_the_trade(server: Server, connect: Connect,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    game = table.game
    assert game is not None
    # Jump to a main phase with cards (the server's state; clients only observe it).
    game.phase = Phase.MAIN
    game.rolled = True
    cur = game.current
    game.hands[cur] = [2, 0, 0, 0, 0]
    game.bank[0] -= 2
    other = (cur + 1) % 3
    game.hands[other] = [0, 0, 0, 0, 2]
    game.bank[4] -= 2
    await clients[cur].act({"type": "offer_trade", "give": [1, 0, 0, 0, 0],
                            "get": [0, 0, 0, 0, 1], "to": None})
    await until(lambda: game.phase == Phase.TRADE)
    await clients[cur].close()
    await until(lambda: game.phase == Phase.MAIN)
    cancelled = await clients[other].recv_until(
        lambda m: m["type"] == "events"
        and any(e["type"] == "trade_cancelled" for e in m["events"]))
    assert cancelled["version"] == table.version


async def test_a_dropped_responder_rejects(server: Server, connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    game = table.game
    assert game is not None
    game.phase = Phase.MAIN
    game.rolled = True
    cur = game.current
    game.hands[cur] = [2, 0, 0, 0, 0]
    game.bank[0] -= 2
    responder = (cur + 1) % 3
    await clients[cur].act({"type": "offer_trade", "give": [1, 0, 0, 0, 0],
                            "get": [0, 0, 0, 0, 1], "to": responder})
    await until(lambda: game.phase == Phase.TRADE)
    await clients[responder].close()
    await until(lambda: game.trade is not None and game.trade.status[responder] == 2)
    answered = await clients[cur].recv_until(
        lambda m: m["type"] == "events"
        and any(e["type"] == "trade_answered" for e in m["events"]))
    assert answered["events"][0]["accepted"] is False


async def test_a_dropped_proposer_withdraws_its_proposal(server: Server,
                                                         connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    game = table.game
    assert game is not None
    game.phase = Phase.MAIN
    game.rolled = True
    game.rolls_done = 1
    game.setup_step = 6
    cur = game.current
    proposer = (cur + 2) % 3
    game.hands[proposer] = [0, 0, 0, 0, 1]
    game.bank[4] -= 1
    await clients[proposer].act({"type": "propose_trade", "give": [0, 0, 0, 0, 1],
                                 "get": [1, 0, 0, 0, 0]})
    await until(lambda: proposer in game.proposals)
    await clients[proposer].close()
    await until(lambda: not game.proposals)
    gone = await clients[cur].recv_until(
        lambda m: m["type"] == "events"
        and any(e["type"] == "proposal_withdrawn" for e in m["events"]))
    assert gone["events"] == [{"type": "proposal_withdrawn", "seat": proposer}]


def test_the_default_action_stops_road_building_after_the_first_road() -> None:
    import random

    from protocol.rules import BuildRoad, PlayRoadBuilding, Settings, StopRoadBuilding, apply
    from protocol.rules.position import describe
    from server.table import default_action

    s = describe(settings=Settings(players=3), seed=7, current=0, turn=12, dice=(3, 4),
                 seats=[dict(settlements=(3, 45), roads=(0, 1, 58, 59), dev=(0, 1, 0, 0, 0)),
                        dict(settlements=(48,), cities=(20,), roads=(22, 63)),
                        dict(settlements=(32,), cities=(29,), roads=(38, 43))])
    apply(s, PlayRoadBuilding(), 0)
    first = default_action(s, 0, random.Random(1))
    assert isinstance(first, BuildRoad)  # the first free road cannot be declined
    apply(s, first, 0)
    assert default_action(s, 0, random.Random(1)) == StopRoadBuilding()


async def test_a_disconnect_past_the_grace_period_brings_a_stand_in(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.table.GRACE", 0.2)
    monkeypatch.setattr("server.table.STAND_IN_PACE", 0.005)
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    assert table.game is not None
    first = to_act(table.game)[0]
    await clients[first].close()
    await until(lambda: table.seats[first].auto)
    # The stand-in places for the absent player; the game moves on.
    await until(lambda: table.version >= 2)
    assert table.game.edge_owner.count(first) == 1


async def test_a_drop_during_a_discard_is_settled_by_a_stand_in(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.table.GRACE", 0.2)
    monkeypatch.setattr("server.table.STAND_IN_PACE", 0.005)
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    game = table.game
    assert game is not None
    # Two seats owe a discard (the server's state; clients only observe it).
    game.phase = Phase.DISCARD
    game.rolled = True
    owing = [q for q in range(3) if q != game.current]
    for q in owing:
        game.hands[q] = [2, 2, 2, 2, 0]
        for r in range(4):
            game.bank[r] -= 2
    game.discard_owed = [4 if q in owing else 0 for q in range(3)]
    stays, leaves = owing
    await clients[leaves].close()
    # The one who stays discards; the one who left is settled after the grace period.
    result = await clients[stays].act({"type": "discard", "cards": [1, 1, 1, 1, 0]})
    assert result["ok"]
    await until(lambda: game.phase == Phase.MOVE_ROBBER)
    assert sum(game.hands[leaves]) == 4
    assert table.seats[leaves].auto


async def test_legal_tells_the_time_left_for_the_decision(server: Server,
                                                         connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=30)
    table = server.tables[tid]
    assert table.game is not None
    first = to_act(table.game)[0]
    legal = await clients[first].recv_until(lambda m: m["type"] == "legal" and m["actions"])
    assert 25_000 < legal["timer_ms"] <= 30_000
    other = (first + 1) % 3
    idle = await clients[other].recv_type("legal")
    assert idle["actions"] == [] and "timer_ms" not in idle


async def test_no_timer_no_timer_ms(server: Server, connect: Connect) -> None:
    tid, clients = await _table(server, connect, 3, timer=0)
    table = server.tables[tid]
    assert table.game is not None
    first = to_act(table.game)[0]
    legal = await clients[first].recv_until(lambda m: m["type"] == "legal" and m["actions"])
    assert "timer_ms" not in legal
