"""A sans-I/O protocol connection: bytes in → messages out, messages → bytes.

Both ends keep the same phase machine::

    handshake --welcome--> lobby --joined--> table --game_started--> playing
        |                    ^                 |                        |
        +--error/bye--> closed   <----left-----+------------------------+

Every message received is validated (frame, msgpack limits, catalogue,
phase); every message sent is validated too. Nothing here does I/O: the
server and the clients wrap it with asyncio, tests drive two of them with
plain byte strings.
"""

from __future__ import annotations

from enum import Enum

from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import MAX_CLIENT_FRAME, MAX_DEPTH, MAX_FRAME, FrameDecoder, encode_frame
from .messages import CLIENT, SERVER, Message, validate


class ConnPhase(Enum):
    HANDSHAKE = "handshake"
    LOBBY = "lobby"
    TABLE = "table"
    PLAYING = "playing"
    CLOSED = "closed"


H, L, T, P = ConnPhase.HANDSHAKE, ConnPhase.LOBBY, ConnPhase.TABLE, ConnPhase.PLAYING

_CLIENT_MAY: dict[ConnPhase, frozenset[str]] = {
    H: frozenset({"hello"}),
    L: frozenset({"list_tables", "create_table", "join", "spectate", "ping", "pong", "bye",
                  "ladder_register", "ladder_ready", "ladder_standings"}),
    T: frozenset({"list_tables", "start", "leave", "chat", "ping", "pong", "resync", "bye",
                  "ladder_standings"}),
    P: frozenset({"list_tables", "start", "leave", "chat", "ping", "pong", "resync", "bye",
                  "action", "ladder_standings"}),
}
_LADDER = frozenset({"ladder_registered", "ladder_queued", "ladder"})
_HOST = frozenset({"announce"})
"""1.4: what the server's host says (any phase after the handshake)."""
_AT_TABLE = frozenset({"tables", "table", "joined", "left", "game_started", "view", "events",
                       "legal", "chat", "error", "ping", "pong", "bye", "game_over",
                       "result", "table_closed"}) | _LADDER | _HOST
_SERVER_MAY: dict[ConnPhase, frozenset[str]] = {
    H: frozenset({"welcome", "error", "bye"}),
    L: frozenset({"tables", "joined", "error", "ping", "pong", "bye", "result"}) | _LADDER
    | _HOST,
    T: _AT_TABLE,
    P: _AT_TABLE,
}
_CLIENT_AFTER_HANDSHAKE = _CLIENT_MAY[L] | _CLIENT_MAY[T] | _CLIENT_MAY[P] | {"hello"}
_NEXT: dict[str, ConnPhase] = {
    "welcome": L,
    "joined": T,
    "game_started": P,
    "left": L,
    "bye": ConnPhase.CLOSED,
}


def encode_message(msg: Message, sender: str) -> bytes:
    """Validate ``msg`` as sent by ``sender`` and encode its frame, once, for
    :meth:`Connection.send_encoded` to many connections."""
    try:
        validate(msg, sender)
    except ProtocolError as exc:
        raise LocalProtocolError(str(exc), exc.code) from exc
    return encode_frame(msg)


class Connection:
    """One end of a Kaitaku connection; ``role`` is our side (CLIENT or SERVER)."""

    def __init__(self, role: str) -> None:
        if role not in (CLIENT, SERVER):
            raise ValueError("role is 'client' or 'server'")
        self.role = role
        self.peer = SERVER if role == CLIENT else CLIENT
        self.phase = ConnPhase.HANDSHAKE
        self.stale: list[Message] = []
        """Server side: valid client messages that arrived after the server had
        moved to a phase where they are not allowed (the client sent them
        before it saw ``joined``/``left``/``welcome``). They are not errors of
        the peer: the server answers each with a non-fatal error."""
        # The server bounds the nesting and the size of what clients send (small
        # messages); a client trusts msgpack's own nesting limit for the server's
        # large views.
        self._decoder = (FrameDecoder(MAX_DEPTH, MAX_CLIENT_FRAME) if role == SERVER
                         else FrameDecoder(None, MAX_FRAME))

    # -- receiving ----------------------------------------------------------------

    def receive_data(self, data: bytes) -> list[Message]:
        """Feed received bytes; return the complete, valid messages.

        Raises :class:`RemoteProtocolError` (with a ``code``) on anything
        invalid; the connection is then closed.
        """
        if self.phase is ConnPhase.CLOSED:
            return []
        try:
            raw = self._decoder.feed(data)
            out = []
            for msg in raw:
                if self._is_stale(msg):
                    self.stale.append(msg)
                    continue
                self._check(msg, self.peer)
                out.append(msg)
                self._advance(msg)
                if self._closed():
                    break
            return out
        except ProtocolError as exc:
            self.phase = ConnPhase.CLOSED
            if isinstance(exc, RemoteProtocolError):
                raise
            raise RemoteProtocolError(str(exc), exc.code) from exc

    # -- sending ------------------------------------------------------------------

    def send(self, msg: Message) -> bytes:
        """The bytes for ``msg``; raises :class:`LocalProtocolError` if we may
        not send it now (nothing is sent and the phase is unchanged)."""
        if self.phase is ConnPhase.CLOSED:
            raise LocalProtocolError("the connection is closed", "closed")
        try:
            self._check(msg, self.role)
        except ProtocolError as exc:
            raise LocalProtocolError(str(exc), exc.code) from exc
        data = encode_frame(msg)
        self._advance(msg)
        return data

    def send_encoded(self, msg: Message, data: bytes) -> bytes:
        """Like :meth:`send` for a message already validated and encoded once
        (by :func:`encode_message`) to go to many peers: only the phase is
        checked here."""
        if self.phase is ConnPhase.CLOSED:
            raise LocalProtocolError("the connection is closed", "closed")
        kind = msg["type"]
        if kind not in (_CLIENT_MAY if self.role == CLIENT else _SERVER_MAY)[self.phase]:
            raise LocalProtocolError(
                f"{self.role} may not send {kind!r} in phase {self.phase.value}",
                "unexpected_message")
        self._advance(msg)
        return data

    @property
    def partial(self) -> bool:
        """Bytes of an unfinished frame are buffered (a receiver bounds how long
        a started frame may take)."""
        return self._decoder.buffered > 0

    def close(self) -> None:
        self.phase = ConnPhase.CLOSED

    def _closed(self) -> bool:
        return self.phase is ConnPhase.CLOSED

    # -- the phase machine ------------------------------------------------------

    def _is_stale(self, msg: Message) -> bool:
        if self.role != SERVER or self.phase in (ConnPhase.HANDSHAKE, ConnPhase.CLOSED):
            return False
        kind = msg.get("type") if isinstance(msg, dict) else None
        if not isinstance(kind, str):  # a list or a map is not hashable: bad_message below
            return False
        if kind not in _CLIENT_AFTER_HANDSHAKE or kind in _CLIENT_MAY[self.phase]:
            return False
        validate(msg, CLIENT)  # a malformed message is still a protocol error
        return True

    def _check(self, msg: Message, sender: str) -> None:
        validate(msg, sender)
        allowed = (_CLIENT_MAY if sender == CLIENT else _SERVER_MAY)[self.phase]
        kind = msg["type"]
        if kind not in allowed:
            raise ProtocolError(
                f"{sender} may not send {kind!r} in phase {self.phase.value}",
                "unexpected_message",
            )

    def _advance(self, msg: Message) -> None:
        nxt = _NEXT.get(msg["type"])
        if nxt is not None and not (nxt is T and self.phase is P and msg["type"] == "joined"):
            self.phase = nxt
        if msg["type"] == "error" and self.phase is ConnPhase.HANDSHAKE:
            self.phase = ConnPhase.CLOSED  # a refused hello ends the connection
