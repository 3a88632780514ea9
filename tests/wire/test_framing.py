"""Frames: length prefix, incremental decoding, msgpack limits, and a fuzz test."""

from __future__ import annotations

import contextlib
import struct
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.wire import (
    MAX_FRAME,
    SPECS,
    FrameDecoder,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    decode_body,
    encode_frame,
    validate,
)
from protocol.wire.framing import MAX_ARRAY, MAX_DEPTH, MAX_MAP, MAX_STR


def pack(obj: Any) -> bytes:
    body: bytes = msgpack.packb(obj, use_bin_type=True)
    return body


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def nested(depth: int) -> dict[str, Any]:
    """A message with ``depth`` nested containers, the top-level map included."""
    inner: Any = 0
    for i in range(depth - 1):
        inner = [inner] if i % 2 else {"k": inner}
    return {"type": "ping", "deep": inner}


def rejected(data: bytes, decoder: FrameDecoder | None = None) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        (decoder or FrameDecoder()).feed(data)
    return info.value


MESSAGES: list[dict[str, Any]] = [
    {"type": "ping"},
    {"type": "ping", "nonce": 7},
    {"type": "hello", "version": "1.0", "role": "player", "name": "Ann — 開拓"},
    {"type": "action", "seq": 2**53, "action": {"type": "discard", "cards": [0, 1, 2, 3, 4]}},
    {"type": "result", "seq": -1, "ok": False, "code": "x", "message": "é" * 512},
    {"type": "events", "version": 3, "events": [{"type": "stolen", "resource": None}] * 256},
]


# -- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize("msg", MESSAGES, ids=[m["type"] for m in MESSAGES])
def test_round_trip(msg: dict[str, Any]) -> None:
    data = encode_frame(msg)
    assert struct.unpack(">I", data[:4])[0] == len(data) - 4
    assert FrameDecoder().feed(data) == [msg]
    assert decode_body(data[4:]) == msg


def test_encoding_is_plain_msgpack_with_a_big_endian_length() -> None:
    data = encode_frame({"type": "ping", "nonce": 7})
    assert data.hex(" ") == "00 00 00 12 82 a4 74 79 70 65 a4 70 69 6e 67 a5 6e 6f 6e 63 65 07"


def test_one_byte_at_a_time() -> None:
    data = b"".join(encode_frame(m) for m in MESSAGES)
    dec = FrameDecoder()
    out: list[dict[str, Any]] = []
    for i in range(len(data)):
        got = dec.feed(data[i : i + 1])
        out.extend(got)
    assert out == MESSAGES
    assert dec.buffered == 0


def test_several_frames_in_one_chunk_and_a_partial_tail() -> None:
    data = b"".join(encode_frame(m) for m in MESSAGES)
    tail = encode_frame({"type": "bye"})
    dec = FrameDecoder()
    assert dec.feed(data + tail[:7]) == MESSAGES
    assert dec.buffered == 3  # the header is consumed, 3 body bytes wait
    assert dec.feed(tail[7:]) == [{"type": "bye"}]
    assert dec.feed(b"") == []


@pytest.mark.parametrize("cut", [1, 3, 4, 5, 10])
def test_split_anywhere(cut: int) -> None:
    data = encode_frame(MESSAGES[2]) + encode_frame(MESSAGES[1])
    dec = FrameDecoder()
    assert dec.feed(data[:cut]) == []
    assert dec.feed(data[cut:]) == [MESSAGES[2], MESSAGES[1]]


# -- the length header ----------------------------------------------------------------


def test_max_frame_is_accepted() -> None:
    msg: dict[str, Any] = {"type": "ping", "pad": ["x" * (MAX_STR - 10)] * 64 + [""]}
    room = MAX_FRAME - len(pack(msg))  # the empty string costs 1 byte, a str16 3 + n
    assert 256 <= room - 2 <= MAX_STR
    msg["pad"][-1] = "y" * (room - 2)
    body = pack(msg)
    assert len(body) == MAX_FRAME
    assert FrameDecoder().feed(frame(body)) == [msg]
    assert len(encode_frame(msg)) == MAX_FRAME + 4
    msg["pad"][-1] += "z"
    with pytest.raises(LocalProtocolError):
        encode_frame(msg)
    assert rejected(frame(pack(msg))).code == "too_large"


@pytest.mark.parametrize("length", [MAX_FRAME + 1, 2**31, 0xFFFFFFFF])
def test_oversize_length_is_rejected_from_the_header_alone(length: int) -> None:
    dec = FrameDecoder()
    header = struct.pack(">I", length)
    assert dec.feed(header[:3]) == []
    err = rejected(header[3:], dec)
    assert err.code == "too_large"


def test_oversize_length_is_rejected_before_the_body_is_buffered() -> None:
    dec = FrameDecoder()
    with pytest.raises(RemoteProtocolError) as info:
        dec.feed(struct.pack(">I", MAX_FRAME + 1) + b"\x00" * 1000)
    assert info.value.code == "too_large"


def test_empty_frame_is_rejected() -> None:
    assert rejected(b"\x00\x00\x00\x00").code == "bad_frame"


def test_a_valid_frame_before_a_bad_header_is_lost_with_the_error() -> None:
    # feed() raises for the whole chunk: the decoder is unusable after an error.
    with pytest.raises(RemoteProtocolError):
        FrameDecoder().feed(encode_frame({"type": "ping"}) + b"\xff\xff\xff\xff")


def test_encode_refuses_oversize() -> None:
    msg = {"type": "ping", "pad": ["x" * 4000] * 70}
    with pytest.raises(LocalProtocolError) as info:
        encode_frame(msg)
    assert info.value.code == "too_large"


# -- malformed bodies -----------------------------------------------------------------

MAP1 = b"\x81\xa1a"  # {"a": <value follows>}

BAD_BODIES: dict[str, tuple[bytes, str]] = {
    "reserved byte c1": (b"\xc1", "bad_msgpack"),
    "c1 as a value": (MAP1 + b"\xc1", "bad_msgpack"),
    "truncated map": (pack({"type": "ping", "nonce": 7})[:-1], "bad_msgpack"),
    "truncated str": (MAP1 + b"\xa5abc", "bad_msgpack"),
    "truncated str32 length": (MAP1 + b"\xdb\x00\x00", "bad_msgpack"),
    "trailing byte": (pack({"type": "ping"}) + b"\x00", "bad_msgpack"),
    "two maps": (pack({"type": "ping"}) * 2, "bad_msgpack"),
    "invalid utf-8": (MAP1 + b"\xa2\xff\xfe", "bad_msgpack"),
    "utf-8 surrogate": (MAP1 + b"\xa3\xed\xa0\x80", "bad_msgpack"),
    "invalid utf-8 key": (b"\x81\xa2\xc3\x28\x01", "bad_msgpack"),
    "ext fixext1": (MAP1 + b"\xd4\x05\x00", "bad_msgpack"),
    "ext8 length 0": (MAP1 + b"\xc7\x00\x05", "bad_msgpack"),
    "ext16": (MAP1 + b"\xc8\x00\x02\x05ab", "bad_msgpack"),
    "timestamp 32": (MAP1 + b"\xd6\xff\x00\x00\x00\x00", "bad_msgpack"),
    "timestamp 64": (MAP1 + b"\xd7\xff" + b"\x00" * 8, "bad_msgpack"),
    "timestamp 96": (MAP1 + b"\xc7\x0c\xff" + b"\x00" * 12, "bad_msgpack"),
    "timestamp ext8 length 0": (MAP1 + b"\xc7\x00\xff", "bad_msgpack"),
    "timestamp at the top": (b"\xd6\xff\x00\x00\x00\x00", "bad_msgpack"),
    "bin8": (MAP1 + b"\xc4\x01x", "bad_msgpack"),
    "bin16": (MAP1 + b"\xc5\x00\x01x", "bad_msgpack"),
    "bin32": (MAP1 + b"\xc6\x00\x00\x00\x01x", "bad_msgpack"),
    "int key": (pack({1: 2}), "bad_msgpack"),
    "nil key": (b"\x81\xc0\x01", "bad_msgpack"),
    "bool key": (b"\x81\xc3\x01", "bad_msgpack"),
    "bin key": (b"\x81\xc4\x01a\x01", "bad_msgpack"),
    "nested int key": (pack({"a": {1: 2}}), "bad_msgpack"),
    "str over the limit": (pack({"a": "x" * (MAX_STR + 1)}), "bad_msgpack"),
    "str limit counts bytes": (pack({"a": "é" * (MAX_STR // 2 + 1)}), "bad_msgpack"),
    "key over the limit": (pack({"x" * (MAX_STR + 1): 1}), "bad_msgpack"),
    "array over the limit": (pack({"a": [0] * (MAX_ARRAY + 1)}), "bad_msgpack"),
    "map over the limit": (pack({str(i): i for i in range(MAX_MAP + 1)}), "bad_msgpack"),
    "nested map over the limit": (pack({"a": {str(i): 0 for i in range(MAX_MAP + 1)}}),
                                  "bad_msgpack"),
    "array32 header claiming 2**32-1": (MAP1 + b"\xdd\xff\xff\xff\xff", "bad_msgpack"),
    "map32 header claiming 2**32-1": (MAP1 + b"\xdf\xff\xff\xff\xff", "bad_msgpack"),
    "too deep": (pack(nested(MAX_DEPTH + 1)), "bad_msgpack"),
    "very deep": (MAP1 + b"\x91" * 5000 + b"\x00", "bad_msgpack"),
    "top-level array": (pack([{"type": "ping"}]), "bad_message"),
    "top-level int": (pack(7), "bad_message"),
    "top-level str": (pack("ping"), "bad_message"),
    "top-level nil": (b"\xc0", "bad_message"),
}


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_malformed_body(name: str) -> None:
    body, code = BAD_BODIES[name]
    with pytest.raises(RemoteProtocolError) as info:
        decode_body(body)
    assert info.value.code == code
    assert rejected(frame(body)).code == code


def test_limits_themselves_are_accepted() -> None:
    ok: list[dict[str, Any]] = [
        {"a": "x" * MAX_STR},
        {"a": "é" * (MAX_STR // 2)},
        {"x" * MAX_STR: 1},
        {"a": [0] * MAX_ARRAY},
        {str(i): i for i in range(MAX_MAP)},
        nested(MAX_DEPTH),
        {"a": 1.5, "b": None, "c": True, "d": -(2**63), "e": 2**64 - 1},
        {},
    ]
    for msg in ok:
        assert FrameDecoder().feed(encode_frame(msg)) == [msg]


def test_a_frame_full_of_empty_maps() -> None:
    msg = {"type": "ping", "x": [{}] * MAX_ARRAY}
    assert FrameDecoder().feed(encode_frame(msg)) == [msg]
    too_many = {"type": "ping", "x": [{}] * (MAX_ARRAY + 1)}
    assert rejected(encode_frame(too_many)).code == "bad_msgpack"


def test_many_maps_of_maps_within_the_limits() -> None:
    msg = {"type": "ping", "x": [{"a": {"b": [{}] * 16}}] * 256}
    assert FrameDecoder().feed(encode_frame(msg)) == [msg]


def test_depth_counts_containers_including_the_top_map() -> None:
    assert decode_body(pack({"a": [[1]]}), max_depth=3) == {"a": [[1]]}
    with pytest.raises(RemoteProtocolError):
        decode_body(pack({"a": [[1]]}), max_depth=2)
    with pytest.raises(RemoteProtocolError):
        decode_body(pack({"a": [[[]]]}), max_depth=3)  # an empty container counts too


def test_nesting_check_can_be_disabled_for_the_client_side() -> None:
    deep = nested(MAX_DEPTH + 5)
    assert FrameDecoder(None).feed(encode_frame(deep)) == [deep]
    assert rejected(encode_frame(deep)).code == "bad_msgpack"
    # msgpack's own nesting limit still applies without the walk.
    assert rejected(frame(MAP1 + b"\x91" * 5000 + b"\x00"), FrameDecoder(None)).code == (
        "bad_msgpack"
    )


@pytest.mark.parametrize("body", [MAP1 + b"\xc4\x00", b"\x82\xa4type\xa4ping\xc4\x00\x01"],
                         ids=["empty bin value", "empty bin key"])
def test_empty_bin_is_rejected(body: bytes) -> None:
    with pytest.raises(RemoteProtocolError):
        decode_body(body)


# -- fuzz: the decoder and the validator only ever raise protocol errors --------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=8)
)
keys = st.text(max_size=8) | st.sampled_from(["type", "seq", "version", "action", "text"])
structures = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(keys | st.integers(0, 3), children, max_size=5),
    max_leaves=30,
)
type_names = st.sampled_from(sorted(SPECS)) | st.text(max_size=6) | st.integers()
message_like = st.builds(
    lambda t, extra: {"type": t, **extra},
    type_names,
    st.dictionaries(
        st.sampled_from(sorted({f for s in SPECS.values() for f in s.fields}) + ["zz"]),
        structures,
        max_size=5,
    ),
)


def _consume(data: bytes, chunk: int) -> None:
    dec = FrameDecoder()
    with contextlib.suppress(ProtocolError):
        for i in range(0, len(data), chunk):
            for msg in dec.feed(data[i : i + chunk]):
                validate(msg)


def _check_structure(obj: Any) -> None:
    try:
        body = msgpack.packb(obj, use_bin_type=True)
    except (OverflowError, ValueError, TypeError):
        return  # not msgpack-able (e.g. a huge int): nothing to send
    _consume(frame(body), 7)
    with contextlib.suppress(ProtocolError):
        validate(obj)


_fuzz = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_soak = settings(max_examples=100_000, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_fuzz
@given(st.binary(max_size=64), st.integers(1, 9))
def test_fuzz_random_bytes(data: bytes, chunk: int) -> None:
    _consume(data, chunk)
    _consume(frame(data), chunk)


@_fuzz
@given(structures | message_like)
def test_fuzz_structures(obj: Any) -> None:
    _check_structure(obj)


@pytest.mark.slow
@_soak
@given(st.binary(max_size=256), st.integers(1, 64))
def test_fuzz_random_bytes_long(data: bytes, chunk: int) -> None:
    _consume(data, chunk)
    _consume(frame(data), chunk)


@pytest.mark.slow
@_soak
@given(structures | message_like)
def test_fuzz_structures_long(obj: Any) -> None:
    _check_structure(obj)
