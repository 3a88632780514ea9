"""Protocol errors, split like h11's: who broke the protocol?

* :class:`LocalProtocolError` — *we* tried to send something the protocol
  does not allow (a bug on our side; nothing was sent).
* :class:`RemoteProtocolError` — the *peer* sent something invalid: a bad
  frame, bad msgpack, an unknown or malformed message, or a message not
  allowed in the connection's phase. The connection cannot be trusted any
  more: send an ``error`` with :attr:`code` and close.
"""

from __future__ import annotations


class ProtocolError(Exception):
    code = "protocol_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class LocalProtocolError(ProtocolError):
    """We tried to send something invalid."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something invalid."""
