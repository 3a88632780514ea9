"""LAN discovery: parsing announcements, and a real announcement found by a
real browser over multicast on the loopback interface."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Callable

import pytest

from client.discovery import (
    SERVICE_TYPE,
    Advertiser,
    Browser,
    FoundServer,
    instance_name,
    parse_service,
    service_properties,
)
from protocol.wire import VERSION_STRING

LOOPBACK = ["127.0.0.1"]


def test_properties_announced() -> None:
    assert service_properties("Friday") == {"name": "Friday", "protocol": VERSION_STRING}
    assert service_properties("Friday", 3)["tables"] == "3"


def test_tls_is_announced_and_found() -> None:
    assert "tls" not in service_properties("Friday")
    props = service_properties("Friday", 2, tls=True)
    assert props["tls"] == "1"
    found = parse_service(f"Friday on box:7878.{SERVICE_TYPE}", ["192.168.1.20"], 7878,
                          {k.encode(): v.encode() for k, v in props.items()})
    assert found is not None and found.tls
    plain = parse_service("x", ["10.0.0.2"], 1, {"tls": "yes"})
    assert plain is not None and not plain.tls  # only "1" means TLS


def test_parse_service() -> None:
    found = parse_service(f"Friday on box:7878.{SERVICE_TYPE}",
                          ["127.0.0.1", "fe80::1", "192.168.1.20"], 7878,
                          {b"name": "金曜日".encode(), b"protocol": b"1.1", b"tables": b"2"})
    assert found == FoundServer(name="金曜日", host="192.168.1.20", port=7878, version="1.1",
                                tables=2, service=f"Friday on box:7878.{SERVICE_TYPE}")
    assert found.address == "192.168.1.20:7878" and found.compatible


def test_parse_service_fallbacks_and_refusals() -> None:
    bare = parse_service(f"box.{SERVICE_TYPE}", ["::1"], 9000, {})
    assert bare is not None
    assert (bare.name, bare.version, bare.tables, bare.compatible) == ("box", "", None, True)
    assert bare.address == "[::1]:9000"
    odd = parse_service("x", ["10.0.0.2"], 1, {"tables": "many", "protocol": "2.0",
                                                "name": None})
    assert odd is not None and odd.tables is None and not odd.compatible and odd.name == "x"
    assert parse_service("x", [], 7878, {}) is None
    assert parse_service("x", ["10.0.0.2"], None, {}) is None
    assert parse_service("x", ["10.0.0.2"], 0, {}) is None


def test_instance_names_fit_a_dns_label() -> None:
    name = instance_name("開拓" * 40, 7878)
    assert len(name.encode()) <= 63 and "." not in name
    assert instance_name("a.b", 1).startswith("a-b on ")


async def until(pred: Callable[[], bool], timeout: float = 8.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)


async def test_a_browser_finds_an_advertised_server() -> None:
    # A name and port of this run only: other test runs may advertise at the same time.
    name = f"Friday night {secrets.token_hex(3)}"
    port = random.randrange(20000, 60000)
    adv = Advertiser(name, port, "127.0.0.1", interfaces=LOOPBACK, tables=1,
                     addresses=["127.0.0.1"])
    browser = Browser(interfaces=LOOPBACK)
    try:
        await adv.start()
    except OSError as exc:  # pragma: no cover - no multicast in this sandbox
        pytest.skip(f"multicast is not available: {exc}")
    try:
        assert browser.start(), browser.error
        await until(lambda: any(s.port == port for s in browser.servers()))
        found = next(s for s in browser.servers() if s.port == port)
        assert (found.name, found.host, found.version, found.tables) == (
            name, "127.0.0.1", VERSION_STRING, 1)
        assert found.service == adv.service_name
        changes = browser.changes
        await adv.update(4)
        await until(lambda: any(s.port == port and s.tables == 4 for s in browser.servers()))
        assert browser.changes > changes
        await adv.close()
        await until(lambda: not any(s.port == port for s in browser.servers()))
    finally:
        await adv.close()
        browser.close()


def test_a_browser_without_zeroconf_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "zeroconf", None)
    b = Browser()
    assert not b.start()
    assert b.error == "zeroconf is not installed"
    assert b.servers() == []
    b.close()
