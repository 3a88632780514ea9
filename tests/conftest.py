"""For the whole test run: every frame the server sends is held to the
protocol's JSON Schema (docs/protocol/schema/, strict: no field and no code
the schema does not know).

The server writes each outgoing frame through ``Session._queue`` (the refusal
of a connection over the limit through ``server.app.encode_frame``); both are
wrapped for the session. Validating every frame would make the suite several
times slower (a view takes ~2 ms), so a ``view``, ``legal`` or ``events`` frame
is validated when its *shape* is new (its structure: the keys of every map,
the kinds of the values, the ``type`` of every action and event, nil or not)
and otherwise one in :data:`SAMPLE` (the values of a known shape, e.g. an edge
number out of range, are checked in that sample); every other frame is
validated; a byte string seen before is not looked at again.
A test during which the server sent an invalid frame fails at its teardown
with the frames and the reasons. ``KAITAKU_SCHEMA_AUDIT=all`` validates every
frame, ``=0`` none.
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest


@dataclass
class FrameAudit:
    """What the server sent during the run, as the schema sees it."""

    checked: int = 0
    """Frames validated."""
    sent: int = 0
    """Frames the server sent."""
    bad: list[tuple[str, str]] = field(default_factory=list)
    """(message type, reason) of each invalid frame not yet reported."""
    stray: list[tuple[str, str]] = field(default_factory=list)
    """Invalid frames sent between tests (reported at the end of the run)."""
    seconds: float = 0.0
    """Time spent decoding and validating."""
    _seen: set[bytes] = field(default_factory=set)
    _shapes: set[Any] = field(default_factory=set)
    _skipped: int = 0

    def frame(self, data: bytes) -> None:
        self.sent += 1
        if data in self._seen:
            return
        if len(self._seen) > 50_000:
            self._seen.clear()
        self._seen.add(data)
        start = time.perf_counter()
        msg: Any = None
        try:
            (n,) = struct.unpack_from(">I", data)
            if n != len(data) - 4:
                self.bad.append(("?", f"not one frame: length {n}, {len(data) - 4} bytes"))
                return
            msg = msgpack.unpackb(data[4:], raw=False)
            if MODE != "all" and isinstance(msg, dict) and msg.get("type") in SAMPLED:
                outline = shape(msg)
                if outline in self._shapes:
                    self._skipped += 1
                    if self._skipped % SAMPLE:
                        return
                else:
                    self._shapes.add(outline)
            self.checked += 1
            from tests.schemas import server_frame_errors

            for why in server_frame_errors(msg):
                kind = msg.get("type") if isinstance(msg, dict) else None
                self.bad.append((str(kind), why))
        finally:
            self.seconds += time.perf_counter() - start

    def take(self) -> list[tuple[str, str]]:
        """The invalid frames so far (and forget them)."""
        bad, self.bad = self.bad, []
        return bad


SAMPLED = frozenset({"view", "legal", "events"})
"""The frames of the game (nine in ten frames, and the large ones) are sampled;
every other frame is validated."""
SAMPLE = 50
"""One in this many game frames of a shape seen before is validated."""
MODE = os.environ.get("KAITAKU_SCHEMA_AUDIT", "")


def shape(v: Any) -> Any:
    """A hashable outline of ``v``: maps by their keys, lists by the set of their
    items' outlines, scalars by their kind (a ``type`` string by its value)."""
    if type(v) is dict:
        return tuple([(k, x if k == "type" and type(x) is str else shape(x))
                      for k, x in v.items()])
    if type(v) is list:
        if all(type(x) is int for x in v):
            return "[int]"
        return frozenset([shape(x) for x in v])
    return type(v)


AUDIT = FrameAudit()


@pytest.fixture(scope="session", autouse=True)
def _audit_server_frames() -> Iterator[FrameAudit]:
    if MODE == "0":
        yield AUDIT
        return
    import server.app
    from server.session import Session

    queue = Session._queue
    encode = server.app.encode_frame

    def audited_queue(self: Session, data: bytes) -> None:
        AUDIT.frame(data)
        queue(self, data)

    def audited_encode(msg: dict[str, Any]) -> bytes:
        data = encode(msg)
        AUDIT.frame(data)
        return data

    Session._queue = audited_queue  # type: ignore[method-assign]
    server.app.encode_frame = audited_encode
    try:
        yield AUDIT
    finally:
        Session._queue = queue  # type: ignore[method-assign]
        server.app.encode_frame = encode


@pytest.fixture(autouse=True)
def _server_frames_match_the_schema(_audit_server_frames: FrameAudit) -> Iterator[None]:
    _audit_server_frames.stray += _audit_server_frames.take()  # sent between tests
    yield
    bad = _audit_server_frames.take()
    if bad:
        lines = "\n".join(f"  {kind}: {why}" for kind, why in bad[:20])
        pytest.fail(f"the server sent {len(bad)} frame(s) that do not match "
                    f"docs/protocol/schema/:\n{lines}", pytrace=False)


@pytest.fixture
def frame_audit(_audit_server_frames: FrameAudit) -> FrameAudit:
    """The run's audit of server frames (a test that sends a bad frame on
    purpose takes it with ``take()``)."""
    return _audit_server_frames


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    stray = AUDIT.stray + AUDIT.take()
    if stray:
        lines = "\n".join(f"  {kind}: {why}" for kind, why in stray[:20])
        print(f"\nthe server sent {len(stray)} frame(s) between tests that do not match "
              f"docs/protocol/schema/:\n{lines}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if AUDIT.sent:
        terminalreporter.write_line(
            f"schema audit: {AUDIT.sent} server frames, {AUDIT.checked} validated "
            f"({len(AUDIT._shapes)} shapes), {AUDIT.seconds:.1f} s")
