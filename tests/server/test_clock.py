"""Chess clocks on the server (server.clock, protocol 7.11), over loopback TCP with
raw clients: the bank in legal.timer_ms and view.clocks, the increment, a real
clock running out, the forfeit after N timeouts, and what a forfeited seat gets."""

from __future__ import annotations

import asyncio

import pytest

from protocol.rules import to_act
from server.app import Server
from server.clock import Clock, SeatClock

from .conftest import TIMEOUT, Connect, RawClient, until


async def _clocked(server: Server, connect: Connect, clock: dict[str, int],
                   players: int = 2, seed: int = 7) -> tuple[str, list[RawClient]]:
    creator = await connect("seat0")
    await creator.send({"type": "create_table", "settings": {"players": players, **clock}})
    joined = await creator.recv_type("joined")
    tid = joined["table"]
    assert {k: joined["settings"][k] for k in clock} == clock  # the settings show the clock
    server.tables[tid].use_seed(seed)
    clients = [creator]
    for i in range(1, players):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        await c.recv_type("joined")
        clients.append(c)
    return tid, clients


def test_a_seat_clock_adds_the_increment_and_spends_the_time() -> None:
    c = SeatClock(Clock(1000, 200, 2))
    assert c.start() == pytest.approx(1.2)
    assert c.spend(0.5)
    assert c.bank == pytest.approx(0.7)
    assert c.start() == pytest.approx(0.9)
    assert not c.spend(1.0)  # past the bank: a timeout, the bank is empty
    assert c.bank == 0 and c.timeouts == 1 and not c.forfeited
    assert c.start() == pytest.approx(0.2)  # the increment still comes
    c.expire()
    assert c.forfeited
    assert Clock.parse("60+1.5") == Clock(60_000, 1_500, 3)
    assert Clock.parse("0+2", 5) == Clock(0, 2_000, 5)
    for bad in ("x", "60+y", "-1", "100000"):
        with pytest.raises(ValueError):
            Clock.parse(bad)
    with pytest.raises(ValueError):
        Clock(0, 0)
    assert Clock.from_settings({"clock_timeouts": 2}) is None


async def test_clock_settings_are_bounded(server: Server, connect: Connect) -> None:
    c = await connect("c")
    for bad in ({"clock_ms": -1}, {"clock_ms": 86_400_001}, {"clock_increment_ms": True},
                {"clock_timeouts": 0, "clock_ms": 1000}):
        await c.send({"type": "create_table", "settings": {"players": 3, **bad}})
        err = await c.recv_type("error")
        assert err["code"] == "bad_settings", bad


async def test_the_bank_is_in_legal_and_view_and_the_increment_comes_per_decision(
        server: Server, connect: Connect) -> None:
    tid, clients = await _clocked(server, connect, {"clock_ms": 5000,
                                                    "clock_increment_ms": 1000,
                                                    "clock_timeouts": 3})
    table = server.tables[tid]
    assert table.game is not None
    first = to_act(table.game)[0]
    actor = clients[first]
    legal = await actor.recv_until(lambda m: m["type"] == "legal" and m["actions"])
    assert 5500 < legal["timer_ms"] <= 6000  # bank + this decision's increment
    view = actor.views[legal["version"]]
    assert view is not None
    clocks = next(m for m in actor.received if m["type"] == "view")["clocks"]
    assert len(clocks) == 2 and clocks[1 - first] == 5000
    await asyncio.sleep(0.3)
    ok = await actor.act(legal["actions"][0])
    assert ok["ok"]
    bank = table.seats[first].clock
    # 6 s minus the 0.3 s it took, plus the increment of its next decision (the road).
    assert bank is not None and 6.5 < bank.bank < 6.75
    assert table.seats[first].asked is not None
    summary = table.summary()["seats"][first]
    assert summary["clock_ms"] == round(bank.bank * 1000) and summary["timeouts"] == 0
    assert len(table.seats[first].decisions) == 0  # only tables that ask keep times


async def test_a_real_clock_runs_out_then_the_seat_forfeits(
        server: Server, connect: Connect) -> None:
    tid, clients = await _clocked(server, connect, {"clock_ms": 300,
                                                    "clock_increment_ms": 50,
                                                    "clock_timeouts": 2})
    table = server.tables[tid]
    table.stand_in_pace = 0.0
    assert table.game is not None
    first = to_act(table.game)[0]
    sleeper = clients[first]
    # The seat never acts: its bank runs out, the default action is played for it.
    note = await sleeper.recv_until(
        lambda m: m["type"] == "error" and m["code"] == "acted_for_you", 5)
    assert "timeout" in note["message"]
    seat = table.seats[first]
    assert seat.clock is not None and seat.clock.timeouts == 1 and not seat.forfeited
    forfeit = await sleeper.recv_until(
        lambda m: m["type"] == "error" and m["code"] == "forfeited", 5)
    assert "2 timeouts" in forfeit["message"]
    assert seat.forfeited and seat.auto and seat.clock.timeouts == 2
    seats = await sleeper.recv_until(lambda m: m["type"] == "table"
                                     and m["seats"][first].get("forfeited"))
    assert seats["seats"][first]["auto"] is True
    # From now on its legal lists are empty and its actions refused.
    await sleeper.send({"type": "resync"})
    legal = await sleeper.recv_until(lambda m: m["type"] == "legal")
    assert legal["actions"] == []
    refused = await sleeper.act({"type": "roll_dice"})
    assert refused["ok"] is False and refused["code"] == "forfeited"
    # The other seat plays on against the stand-in.
    other = clients[1 - first]
    played = 0
    while table.status == "playing" and played < 40:
        msg = await other.recv(TIMEOUT)
        if msg["type"] == "legal" and msg["actions"] and table.game is not None \
                and 1 - first in to_act(table.game) and msg["version"] == table.version:
            await other.act(msg["actions"][-1])
            played += 1
    assert played >= 5
    assert table.seats[1 - first].clock is not None
    assert not table.seats[1 - first].forfeited


async def test_a_forfeited_seat_stays_forfeited_after_a_resume(
        server: Server, connect: Connect) -> None:
    tid, clients = await _clocked(server, connect, {"clock_ms": 100, "clock_timeouts": 1})
    table = server.tables[tid]
    table.stand_in_pace = 10.0  # the stand-in waits: the seat stays as it was
    assert table.game is not None
    first = to_act(table.game)[0]
    await clients[first].recv_until(lambda m: m["type"] == "error"
                                    and m["code"] == "forfeited", 5)
    token = next(m for m in clients[first].received if m["type"] == "welcome")["resume_token"]
    await clients[first].close()
    back = await connect("seat-back", hello=False)
    await back.send({"type": "hello", "version": "1.3", "role": "bot", "name": "back",
                     "resume": token})
    await back.recv_type("joined")
    await until(lambda: table.seats[first].session is not None)
    assert table.seats[first].forfeited and table.seats[first].auto
    legal = await back.recv_until(lambda m: m["type"] == "legal")
    assert legal["actions"] == []


async def test_a_dropped_seat_of_a_clocked_table_forfeits_after_the_grace(
        server: Server, connect: Connect) -> None:
    tid, clients = await _clocked(server, connect, {"clock_ms": 60_000})
    table = server.tables[tid]
    table.grace = 0.2
    table.stand_in_pace = 10.0
    assert table.game is not None
    first = to_act(table.game)[0]
    await clients[first].close()
    await until(lambda: table.seats[first].forfeited)
    assert table.seats[first].auto
