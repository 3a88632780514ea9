"""LAN discovery with mDNS/DNS-SD (the ``zeroconf`` library).

A server started with ``kaitaku server --advertise`` announces itself as a
``_kaitaku._tcp.local.`` service whose TXT properties are ``name`` (the
server's name), ``protocol`` (its protocol version), ``tables`` (how many
tables it lists, refreshed now and then) and ``tls`` (``1`` when the server
speaks TLS only: connect with TLS). The lobby runs a :class:`Browser`
that keeps a thread-safe list of the servers found.

No pygame here: :class:`Advertiser` runs inside the server's asyncio loop,
:class:`Browser` in zeroconf's own threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.wire import VERSION_STRING, compatible

log = logging.getLogger("kaitaku.discovery")

SERVICE_TYPE = "_kaitaku._tcp.local."
RESOLVE_MS = 3000
"""How long the browser waits for a found service's address and port."""


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A server announced on the LAN."""

    name: str  # the server's name (``kaitaku server --name``)
    host: str  # an address to connect to
    port: int
    version: str  # its protocol version ("1.1"); "" if it did not say
    tables: int | None  # tables listed, when announced
    service: str  # the mDNS instance name (unique on the LAN)
    tls: bool = False  # the server speaks TLS only

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def compatible(self) -> bool:
        """Same major protocol version as this client (unknown counts as compatible)."""
        return not self.version or compatible(self.version)


def service_properties(name: str, tables: int | None = None,
                       tls: bool = False) -> dict[str, str]:
    """The TXT properties a server announces."""
    props = {"name": name, "protocol": VERSION_STRING}
    if tables is not None:
        props["tables"] = str(tables)
    if tls:
        props["tls"] = "1"
    return props


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def parse_service(service: str, addresses: Sequence[str], port: int | None,
                  properties: Mapping[bytes | str, bytes | str | None]) -> FoundServer | None:
    """A :class:`FoundServer` from what mDNS resolved (None if it is unusable:
    no address or no port). IPv4 addresses are preferred; loopback last."""
    if not addresses or not port:
        return None
    props = {_text(k): _text(v) for k, v in properties.items()}

    def order(addr: str) -> tuple[int, int]:
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return (2, 0)
        return (1 if ip.is_loopback else 0, 0 if ip.version == 4 else 1)

    host = sorted(addresses, key=order)[0]
    instance = service.removesuffix("." + SERVICE_TYPE).removesuffix(SERVICE_TYPE)
    name = props.get("name") or instance or host
    tables_text = props.get("tables", "")
    tables = int(tables_text) if tables_text.isdigit() else None
    return FoundServer(name=name[:64], host=host, port=int(port),
                       version=props.get("protocol", ""), tables=tables, service=service,
                       tls=props.get("tls", "") == "1")


def instance_name(name: str, port: int) -> str:
    """A DNS-SD instance name for a server: its name, this host and the port
    (at most 63 bytes)."""
    host = socket.gethostname().split(".")[0] or "host"
    text = f"{name} on {host}:{port}"
    raw = text.encode("utf-8")[:63]
    return raw.decode("utf-8", errors="ignore").replace(".", "-")


def _host_label() -> str:
    label = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname().split(".")[0])[:40].strip("-")
    return f"{label or 'kaitaku'}.local."


def advertised_addresses(host: str) -> list[str]:
    """The addresses to announce for a server listening on ``host``: its own
    address, or (for 0.0.0.0 / ::) every non-loopback IPv4 address."""
    if host not in ("", "0.0.0.0", "::"):
        try:
            infos = socket.getaddrinfo(host, None, socket.AF_INET)
            return sorted({str(info[4][0]) for info in infos})
        except OSError:
            return [host]
    import zeroconf

    all_addresses: list[str] = getattr(zeroconf, "get_all_addresses")()  # noqa: B009
    addrs = [a for a in all_addresses if not a.startswith("127.")]
    return addrs or ["127.0.0.1"]


class Advertiser:
    """Announce a server on the LAN (from inside its asyncio loop).

    ``interfaces``: zeroconf's choice (default all interfaces; tests use
    ``["127.0.0.1"]``).
    """

    def __init__(self, name: str, port: int, host: str = "0.0.0.0", *,
                 interfaces: Any = None, tables: int | None = None,
                 addresses: Sequence[str] | None = None, tls: bool = False) -> None:
        self.name = name
        self.tls = tls
        self.port = port
        self.host = host
        self.interfaces = interfaces
        self.tables = tables
        self.addresses = list(addresses) if addresses is not None else None
        self._zc: Any = None
        self._info: Any = None

    def _service_info(self) -> Any:
        from zeroconf import ServiceInfo

        addrs = self.addresses if self.addresses is not None else advertised_addresses(self.host)
        return ServiceInfo(
            SERVICE_TYPE, f"{instance_name(self.name, self.port)}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(a) for a in addrs if _is_ipv4(a)],
            port=self.port, properties=service_properties(self.name, self.tables, self.tls),
            server=_host_label())

    async def start(self) -> None:
        from zeroconf import InterfaceChoice, IPVersion
        from zeroconf.asyncio import AsyncZeroconf

        interfaces = self.interfaces if self.interfaces is not None else InterfaceChoice.All
        self._zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        self._info = self._service_info()
        await self._zc.async_register_service(self._info, allow_name_change=True)
        log.info("advertising %s on the LAN as %r", SERVICE_TYPE, self._info.name)

    @property
    def service_name(self) -> str:
        """The instance name announced (None before :meth:`start`)."""
        return str(self._info.name) if self._info is not None else ""

    async def update(self, tables: int) -> None:
        """Announce a new table count (nothing is sent when it did not change)."""
        if self._zc is None or tables == self.tables:
            return
        self.tables = tables
        from zeroconf import ServiceInfo

        old = self._info
        self._info = ServiceInfo(SERVICE_TYPE, old.name, addresses=old.addresses,
                                 port=self.port,
                                 properties=service_properties(self.name, tables, self.tls),
                                 server=old.server)
        await self._zc.async_update_service(self._info)

    async def close(self) -> None:
        if self._zc is None:
            return
        zc, self._zc = self._zc, None
        with contextlib.suppress(Exception):
            goodbye = await zc.async_unregister_service(self._info)
            await asyncio.wait_for(goodbye, 3.0)  # the goodbye packets are sent
        await zc.async_close()


def _is_ipv4(addr: str) -> bool:
    try:
        return ipaddress.ip_address(addr).version == 4
    except ValueError:
        return False


class Browser:
    """Find servers on the LAN. :meth:`start`, then :meth:`servers` any time
    (from any thread); :meth:`close` at the end."""

    def __init__(self, interfaces: Any = None) -> None:
        self.interfaces = interfaces
        self.error: str | None = None  # why discovery is not running, if it is not
        self.changes = 0  # bumped whenever the list changes
        self._found: dict[str, FoundServer] = {}
        self._lock = threading.Lock()
        self._zc: Any = None
        self._browser: Any = None

    def start(self) -> bool:
        """Start browsing; False (and :attr:`error`) if mDNS is not available."""
        try:
            from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, Zeroconf
        except ImportError:
            self.error = "zeroconf is not installed"
            return False
        interfaces = self.interfaces if self.interfaces is not None else InterfaceChoice.All
        try:
            self._zc = Zeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
            self._browser = ServiceBrowser(self._zc, SERVICE_TYPE, handlers=[self._on_change])
        except Exception as exc:  # no multicast, no network: the lobby still works
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("LAN discovery unavailable: %s", self.error)
            self.close()
            return False
        return True

    def servers(self) -> list[FoundServer]:
        """The servers found so far, by name."""
        with self._lock:
            return sorted(self._found.values(), key=lambda s: (s.name.lower(), s.address))

    def close(self) -> None:
        browser, zc = self._browser, self._zc
        self._browser = self._zc = None
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.cancel()
        if zc is not None:
            with contextlib.suppress(Exception):
                zc.close()

    # -- called in zeroconf's threads ---------------------------------------------------

    def _on_change(self, zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change.name == "Removed":
            self.remove(name)
        else:  # Added, Updated
            self._resolve(zeroconf, service_type, name)

    def remove(self, name: str) -> None:
        with self._lock:
            if self._found.pop(name, None) is not None:
                self.changes += 1

    def _resolve(self, zc: Any, type_: str, name: str) -> None:
        try:
            info = zc.get_service_info(type_, name, timeout=RESOLVE_MS)
        except Exception:  # a closing zeroconf, a malformed record
            log.debug("could not resolve %s", name, exc_info=True)
            return
        if info is None:
            return
        found = parse_service(name, info.parsed_addresses(), info.port, info.properties or {})
        if found is None:
            return
        with self._lock:
            if self._found.get(name) != found:
                self._found[name] = found
                self.changes += 1
