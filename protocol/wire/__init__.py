"""Kaitaku's wire protocol, sans-I/O: frames, messages, the connection phases.

See ``docs/PROTOCOL.md`` for the specification. This package does no I/O:
:class:`Connection` turns received bytes into validated messages and
messages into bytes; the server and the clients wrap it with asyncio.
"""

from .connection import Connection, ConnPhase, encode_message
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import MAX_CLIENT_FRAME, MAX_FRAME, FrameDecoder, decode_body, encode_frame
from .messages import (
    ACTIONS_SINCE,
    CLIENT,
    ERROR_CODES,
    PROTOCOL_VERSION,
    SERVER,
    SETTINGS,
    SPECS,
    TRADE_ANSWERS,
    TRADE_REASONS,
    VERSION_STRING,
    Message,
    check_settings,
    compatible,
    parse_version,
    unknown_actions,
    validate,
)
from .text import clean_text, clip

__all__ = [
    "ACTIONS_SINCE", "CLIENT", "ERROR_CODES", "MAX_CLIENT_FRAME", "MAX_FRAME",
    "PROTOCOL_VERSION", "SERVER", "SETTINGS", "SPECS", "TRADE_ANSWERS",
    "TRADE_REASONS", "VERSION_STRING", "ConnPhase",
    "Connection", "FrameDecoder", "LocalProtocolError", "Message", "ProtocolError",
    "RemoteProtocolError", "check_settings", "clean_text", "clip", "compatible", "decode_body",
    "encode_frame", "encode_message", "parse_version", "unknown_actions", "validate",
]
