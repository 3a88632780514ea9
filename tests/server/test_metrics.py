"""The metrics port (``kaitaku server --metrics``): scraped over real HTTP and
parsed with the Prometheus library's own parser; counters move after a real
game; the port serves nothing else, has caps, and cannot keep players out."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

prometheus_client = pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from server.app import Limits, Server  # noqa: E402
from server.metrics import Metrics  # noqa: E402

from .conftest import RawClient, assert_finished, run_bot_game  # noqa: E402

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def http_get(port: int, path: str = "/metrics", method: str = "GET") -> tuple[int, bytes]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
    try:
        writer.write(f"{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


async def scrape(port: int) -> Samples:
    status, body = await http_get(port)
    assert status == 200
    out: Samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


@pytest.fixture
async def metered(tmp_path: Path) -> AsyncIterator[tuple[Server, int]]:
    metrics = Metrics()
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=tmp_path / "m.db", metrics=metrics,
                 limits=Limits(tables_per_address=2))
    await srv.start()
    http = metrics.serve("127.0.0.1", 0, max_connections=6, max_per_address=3, deadline=1.0)
    try:
        yield srv, http.port
    finally:
        metrics.stop()
        await srv.close()


async def until_scraped(port: int, pred: object, timeout: float = 5.0) -> Samples:
    """Scrape until ``pred(samples)`` (the gauges refresh once a second)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        samples = await scrape(port)
        if pred(samples):  # type: ignore[operator]
            return samples
        if loop.time() > end:
            raise AssertionError(f"never true: {samples}")
        await asyncio.sleep(0.1)


async def test_metrics_move_after_a_game(metered: tuple[Server, int]) -> None:
    srv, port = metered
    before = await scrape(port)
    assert value(before, "kaitaku_actions_total", via="player") == 0
    assert value(before, "kaitaku_games_finished_total") == 0
    assert ("kaitaku_info", (("protocol", "1.4"),)) in before
    assert ("process_open_fds", ()) in before
    game = await run_bot_game(srv, {"players": 3, "vp_target": 6}, ["random"] * 3)
    assert_finished(game, srv)
    after = await until_scraped(port, lambda s: value(s, "kaitaku_tables", state="finished")
                                == 1)
    actions = sum(o.actions for o in game.outcomes)
    assert value(after, "kaitaku_actions_total", via="player") == actions
    assert value(after, "kaitaku_games_finished_total") == 1
    assert value(after, "kaitaku_action_latency_seconds_count") == actions
    assert value(after, "kaitaku_action_latency_seconds_sum") > 0
    assert value(after, "kaitaku_commit_latency_seconds_count") >= actions / 10
    assert value(after, "kaitaku_connections_accepted_total") == 3
    assert value(after, "kaitaku_storage_pauses_total") == 0
    assert value(after, "kaitaku_bot_processes") == 0
    for cap in ("tables", "connections", "banned", "draining"):
        assert value(after, "kaitaku_refusals_total", cap=cap) == 0


async def test_metrics_gauges_and_refusals(metered: tuple[Server, int]) -> None:
    srv, port = metered
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    maker = RawClient(reader, writer, "maker")
    await maker.hello()
    await maker.send({"type": "create_table", "settings": {"players": 3}})
    await maker.recv_type("joined")
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    watcher = RawClient(reader, writer, "watcher")
    await watcher.hello()
    tid = maker.table
    await watcher.send({"type": "spectate", "table": tid})
    await watcher.recv_type("joined")
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    third = RawClient(reader, writer, "third")
    await third.hello()
    await third.send({"type": "create_table", "settings": {"players": 3}, "seat": False})
    await third.recv_type("joined")  # the address's second table: its cap
    samples = await until_scraped(
        port, lambda s: value(s, "kaitaku_connections", state="watching") == 2)
    assert value(samples, "kaitaku_connections", state="seated") == 1
    assert value(samples, "kaitaku_spectators") == 2
    assert value(samples, "kaitaku_tables", state="waiting") == 2
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    fourth = RawClient(reader, writer, "fourth")
    await fourth.hello()
    await fourth.send({"type": "create_table", "settings": {"players": 3}})
    err = await fourth.recv_type("error")
    assert err["code"] == "too_many_tables"
    samples = await until_scraped(  # a scrape may repeat the text of the last 0.5 s
        port, lambda s: value(s, "kaitaku_refusals_total", cap="tables_per_address") == 1)
    assert value(samples, "kaitaku_refusals_total", cap="tables") == 0
    for c in (maker, watcher, third, fourth):
        await c.close()


async def test_the_metrics_port_serves_nothing_else(metered: tuple[Server, int]) -> None:
    _, port = metered
    assert (await http_get(port, "/"))[0] == 404
    assert (await http_get(port, "/metrics/../etc/passwd"))[0] == 404
    assert (await http_get(port, "/metrics", "POST"))[0] == 405
    status, body = await http_get(port, "/metrics", "HEAD")
    assert status == 200 and body == b""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n")  # a head past MAX_HEAD
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    assert data.startswith(b"HTTP/1.1 431")


async def test_scrapes_are_rate_limited(metered: tuple[Server, int]) -> None:
    """More requests a second than the port's rate are closed unanswered."""
    _, port = metered
    answered = refused = 0
    for _ in range(60):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /metrics HTTP/1.1\r\n\r\n")
        try:
            data = await asyncio.wait_for(reader.read(), 5)
        except ConnectionError:  # closed unanswered (a reset)
            data = b""
        writer.close()
        if data.startswith(b"HTTP/1.1 200"):
            answered += 1
        else:
            refused += 1
    assert refused > 0 and 0 < answered < 60


async def test_a_flooded_metrics_port_keeps_its_caps_and_players_get_in(
        metered: tuple[Server, int]) -> None:
    """Idle connections fill the metrics port's per-address cap: the next one is
    closed at once, and a slow request is dropped at its deadline; meanwhile
    the game port takes players as usual."""
    srv, port = metered
    held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(reader.read(), 2) == b""  # over the cap: closed
        writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        player = RawClient(reader, writer, "player")
        await player.hello()
        await player.send({"type": "list_tables"})
        await player.recv_type("tables")
        await player.close()
        # the idle ones are dropped at the request deadline (1 s here)
        for r, _ in held:
            assert await asyncio.wait_for(r.read(), 3) == b""
        await scrape(port)  # the port serves again
    finally:
        for _, w in held:
            with contextlib.suppress(Exception):
                w.close()


async def test_a_full_database_shows_in_the_metrics(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own full-database error: the failed commit, the pause of every
    table and its end are counted."""
    from .conftest import raw_table

    monkeypatch.setattr("server.app.PROBE_FIRST", 0.05)
    monkeypatch.setattr("server.app.PROBE_MAX", 0.1)
    metrics = Metrics()
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=tmp_path / "k.db", metrics=metrics)
    await srv.start()
    port = metrics.serve("127.0.0.1", 0).port
    clients: list[RawClient] = []

    async def connect(name: str = "raw", **_: object) -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        c = RawClient(reader, writer, name)
        clients.append(c)
        await c.hello()
        return c

    try:
        table = await raw_table(srv, connect, players=3)
        assert srv.storage is not None
        (pages,) = srv.storage.db.execute("PRAGMA page_count").fetchone()
        srv.storage.db.execute(f"PRAGMA max_page_count = {pages}")  # the "disk" is full
        for _ in range(500):
            actor = table.actor()
            legal = await table.legal_for(actor)
            r = await actor.act(legal[-1] if legal[-1]["type"] != "end_turn" else legal[0])
            if not r["ok"]:
                break
        assert r["code"] == "storage_unavailable"
        paused = await until_scraped(port, lambda s: value(s, "kaitaku_storage_paused") == 1)
        assert value(paused, "kaitaku_storage_pauses_total") == 1
        assert value(paused, "kaitaku_commit_failures_total") >= 1
        assert value(paused, "kaitaku_tables", state="paused") == 1
        srv.storage.db.execute("PRAGMA max_page_count = 1073741823")  # room again
        healed = await until_scraped(port, lambda s: value(s, "kaitaku_storage_paused") == 0)
        assert value(healed, "kaitaku_tables", state="playing") == 1
        assert value(healed, "kaitaku_storage_pauses_total") == 1
    finally:
        for c in clients:
            await c.close()
        metrics.stop()
        await srv.close()
