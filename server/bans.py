"""Bans: addresses (or networks) and names the server refuses.

An address ban is checked when a connection is accepted, before anything is
read from it (before the TLS handshake too); a name ban when the ``hello``
names it, before the ``welcome``. Names are compared as displayed: cleaned
like every name (:func:`protocol.wire.clean_text`), NFKC-normalised and
case-folded, so ``Ｇriefer`` and ``griefer`` are one name. The list is kept
in the server's database (``bans``; :meth:`server.storage.Storage.save_ban`)
and read back at start.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass

from protocol.wire import clean_text
from protocol.wire.messages import MAX_NAME

MAX_BANS = 100_000
"""Bans kept at most (a sane bound on what the admin socket may make us hold)."""
MAX_REASON = 200


class BanError(ValueError):
    """Not an address, network or name that can be banned."""


@dataclass(frozen=True, slots=True)
class Ban:
    kind: str  # address or name
    value: str  # a network in CIDR form, or a normalised name
    reason: str
    created: float

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "value": self.value, "reason": self.reason,
                "created": self.created}


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def name_key(name: str) -> str:
    """How names are compared: cleaned, NFKC, case-folded."""
    return unicodedata.normalize("NFKC", clean_text(name, MAX_NAME)).casefold()


def parse_target(kind: str, value: str) -> str:
    """The stored form of a ban target: a network (``203.0.113.7`` becomes
    ``203.0.113.7/32``; ``2001:db8::/48`` stays) or a name key."""
    if kind == "address":
        try:
            net = ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise BanError(f"{value!r} is not an IP address or network") from None
        if isinstance(net, ipaddress.IPv6Network) and net.network_address.ipv4_mapped:
            mapped = net.network_address.ipv4_mapped
            net = ipaddress.ip_network(f"{mapped}/{max(0, net.prefixlen - 96)}")
        return str(net)
    if kind == "name":
        key = name_key(value)
        if not key:
            raise BanError("a name needs a printable character")
        return key
    raise BanError(f"unknown kind {kind!r} (address or name)")


class Bans:
    """The bans in force (memory); the server keeps them in its database."""

    def __init__(self, bans: list[Ban] | None = None) -> None:
        self._by_key: dict[tuple[str, str], Ban] = {}
        self._networks: list[tuple[Network, Ban]] = []
        self._names: dict[str, Ban] = {}
        for ban in bans or []:
            self.add(ban)

    def add(self, ban: Ban) -> None:
        if ban.kind == "address":
            net = ipaddress.ip_network(ban.value, strict=False)
            self._networks = [(n, b) for n, b in self._networks if b.value != ban.value]
            self._networks.append((net, ban))
        else:
            self._names[ban.value] = ban
        self._by_key[(ban.kind, ban.value)] = ban

    def remove(self, kind: str, value: str) -> bool:
        ban = self._by_key.pop((kind, value), None)
        if ban is None:
            return False
        if kind == "address":
            self._networks = [(n, b) for n, b in self._networks if b.value != value]
        else:
            self._names.pop(value, None)
        return True

    def __len__(self) -> int:
        return len(self._by_key)

    def all(self) -> list[Ban]:
        return sorted(self._by_key.values(), key=lambda b: b.created)

    def counts(self) -> dict[str, int]:
        return {"address": len(self._networks), "name": len(self._names)}

    def address(self, address: str) -> Ban | None:
        """The ban that covers ``address`` (a peer's address as the socket gives
        it; IPv4-mapped IPv6 counts as IPv4), or None."""
        if not self._networks:
            return None
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return None  # a unix socket pair: no address to ban
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        for net, ban in self._networks:
            if ip.version == net.version and ip in net:
                return ban
        return None

    def name(self, name: str) -> Ban | None:
        return self._names.get(name_key(name)) if self._names else None
