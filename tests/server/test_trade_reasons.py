"""1.4: a seat's reason for its trade answer (``action.reason``) reaches every
seat and spectator with the answer's events (``events.reason``); a reason the
catalogue does not know, or one sent with another action, goes nowhere.
Real loopback TCP, raw clients."""

from __future__ import annotations

from typing import Any

from protocol.rules import Phase
from server.app import Server

from .conftest import Connect, RawTable, raw_table
from .test_refusal_codes import one, roll, set_up


def _events_at(table: RawTable, version: int) -> list[dict[str, Any]]:
    return [m for c in table.clients for m in c.received
            if m["type"] == "events" and m["version"] == version]


async def _offer(table: RawTable, to: int) -> None:
    game = table.game()
    cur = game.current
    give = next(k for k in range(5) if game.hands[cur][k])
    res = await table.clients[cur].act({"type": "offer_trade", "give": one(give),
                                        "get": one((give + 1) % 5), "to": to})
    assert res["ok"], res


async def test_a_trade_answer_carries_its_reason_to_every_seat(server: Server,
                                                              connect: Connect) -> None:
    table = await raw_table(server, connect, players=3, seed=2024)
    await set_up(table)
    await roll(table)
    game = table.game()
    assert game.phase == Phase.MAIN
    cur = game.current
    q = (cur + 1) % 3
    await _offer(table, q)
    v = table.version + 1
    res = await table.clients[q].act({"type": "reject_trade"}, reason="no_use")
    assert res["ok"], res
    await table.wait_version(v)
    batches = _events_at(table, v)
    assert len(batches) == 3
    assert all(b["reason"] == "no_use" for b in batches)
    assert all(b["events"][0]["type"] == "trade_answered" for b in batches)

    # the offerer closes the offer: a reason with an action that answers nothing
    # is not relayed, nor a reason the catalogue does not know
    v = table.version + 1
    res = await table.clients[cur].act({"type": "cancel_trade"}, reason="leader")
    assert res["ok"], res
    await table.wait_version(v)
    assert all("reason" not in b for b in _events_at(table, v))
    await _offer(table, q)
    v = table.version + 1
    res = await table.clients[q].act({"type": "reject_trade"}, reason="<script>")
    assert res["ok"], res
    await table.wait_version(v)
    assert all("reason" not in b for b in _events_at(table, v))
