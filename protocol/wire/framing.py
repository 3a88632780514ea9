"""Frames: a 4-byte big-endian length, then that many bytes of one msgpack map.

The length is checked against :data:`MAX_FRAME` as soon as its four bytes
arrive, before any of the body is buffered. Bodies are decoded with explicit
limits (``raw=False``, ``strict_map_key=True``, bounded strings, arrays and
maps, no binary, no ext types, bounded nesting) and must be a map.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack

from .errors import LocalProtocolError, RemoteProtocolError

MAX_FRAME = 256 * 1024
"""Largest frame body in bytes (a full view is a few kB)."""
MAX_CLIENT_FRAME = 16 * 1024
"""Largest frame body a server accepts from a client: no client message needs
more than a few hundred bytes, and a connection that starts a frame makes the
server hold its bytes until it ends."""
MAX_STR = 4096
MAX_ARRAY = 4096
MAX_MAP = 256
MAX_DEPTH = 16

_LEN = struct.Struct(">I")


def _no_ext(code: int, data: bytes) -> Any:
    raise RemoteProtocolError("msgpack ext types are not allowed", "bad_msgpack")


def _depth(obj: Any, limit: int) -> bool:
    """True when ``obj`` nests deeper than ``limit`` containers or holds binary
    data (msgpack's ``max_bin_len=0`` still lets an empty bin through)."""
    stack = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, dict):
            if d > limit:
                return True
            if any(isinstance(k, bytes) for k in o):
                raise RemoteProtocolError("binary map keys are not allowed", "bad_msgpack")
            stack.extend((v, d + 1) for v in o.values())
        elif isinstance(o, bytes):
            raise RemoteProtocolError("binary data is not allowed", "bad_msgpack")
        elif isinstance(o, list):
            if d > limit:
                return True
            stack.extend((v, d + 1) for v in o)
    return False


def decode_body(body: bytes, max_depth: int | None = MAX_DEPTH) -> dict[str, Any]:
    """Decode one frame body; raise :class:`RemoteProtocolError` if it is not
    exactly one msgpack map within the limits.

    ``max_depth`` bounds nesting (checked after decoding, so it costs a walk
    over the message: the server checks the small messages clients send;
    clients may pass None and rely on msgpack's own nesting limit of 1024).
    """
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=MAX_STR,
            max_bin_len=0,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
            ext_hook=_no_ext,
        )
    except RemoteProtocolError:
        raise
    except msgpack.ExtraData as exc:
        raise RemoteProtocolError("trailing bytes after the msgpack map", "bad_msgpack") from exc
    except UnicodeDecodeError as exc:
        raise RemoteProtocolError("invalid UTF-8 in a string", "bad_msgpack") from exc
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise RemoteProtocolError(f"invalid msgpack: {exc}", "bad_msgpack") from exc
    except Exception as exc:  # the C unpacker has a few more failure types
        raise RemoteProtocolError(f"invalid msgpack: {exc}", "bad_msgpack") from exc
    if not isinstance(obj, dict):
        raise RemoteProtocolError("a frame holds one msgpack map", "bad_message")
    if max_depth is not None and _depth(obj, max_depth):
        raise RemoteProtocolError("message nested too deeply", "bad_msgpack")
    return obj


def encode_frame(msg: dict[str, Any]) -> bytes:
    """One frame for ``msg`` (raises :class:`LocalProtocolError` if too large)."""
    body: bytes = msgpack.packb(msg, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise LocalProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME}", "too_large")
    return _LEN.pack(len(body)) + body


class FrameDecoder:
    """Incremental frame splitter: feed bytes, get decoded maps."""

    __slots__ = ("_buf", "_need", "max_depth", "max_frame")

    def __init__(self, max_depth: int | None = MAX_DEPTH, max_frame: int = MAX_FRAME) -> None:
        self._buf = bytearray()
        self._need = -1  # body length once the header is read
        self.max_depth = max_depth
        self.max_frame = max_frame

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Add bytes; return every complete message (may raise
        :class:`RemoteProtocolError`, after which the decoder is unusable)."""
        self._buf += data
        out: list[dict[str, Any]] = []
        buf = self._buf
        while True:
            if self._need < 0:
                if len(buf) < 4:
                    break
                (n,) = _LEN.unpack_from(buf)
                if n > self.max_frame:
                    raise RemoteProtocolError(
                        f"frame length {n} exceeds the maximum of {self.max_frame}", "too_large"
                    )
                if n == 0:
                    raise RemoteProtocolError("empty frame", "bad_frame")
                del buf[:4]
                self._need = n
            if len(buf) < self._need:
                break
            body = bytes(buf[: self._need])
            del buf[: self._need]
            self._need = -1
            out.append(decode_body(body, self.max_depth))
        return out
