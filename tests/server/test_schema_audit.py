"""The schema audit of tests/conftest.py is on: a frame the server sends that
the schema refuses is caught, over real loopback TCP, whichever path sent it."""

from __future__ import annotations

import pytest

from server.app import Server
from tests.conftest import AUDIT, FrameAudit

from .conftest import Connect


async def test_a_bad_frame_the_server_sends_is_caught(server: Server, connect: Connect,
                                                      frame_audit: FrameAudit) -> None:
    client = await connect("ann")
    (sess,) = server.sessions
    # Valid for the catalogue (``tables`` is a list), not for the schema: a table
    # summary has an id, a name, settings, seats, a status and spectators.
    sess.send({"type": "tables", "tables": [{"id": "8e30bc72", "status": "open"}]})
    got = await client.recv_type("tables")
    assert got["tables"] == [{"id": "8e30bc72", "status": "open"}]  # it did go out
    bad = frame_audit.take()
    assert [kind for kind, _ in bad] == ["tables"]
    assert "$.tables[0]" in bad[0][1]


async def test_an_unknown_error_code_is_caught(server: Server, connect: Connect,
                                               frame_audit: FrameAudit) -> None:
    client = await connect("ann")
    (sess,) = server.sessions
    sess.error("no_such_code", "not in ERROR_CODES")
    got = await client.recv_type("error")
    assert got["code"] == "no_such_code"
    bad = frame_audit.take()
    assert len(bad) == 1 and bad[0][0] == "error" and "$.code" in bad[0][1]


async def test_good_frames_pass_and_are_counted(server: Server, connect: Connect,
                                                frame_audit: FrameAudit) -> None:
    sent = frame_audit.sent
    client = await connect("ann")
    await client.send({"type": "list_tables"})
    await client.recv_type("tables")
    assert frame_audit.sent >= sent + 2  # welcome, tables
    assert frame_audit.take() == []


def test_the_audit_is_the_runs(frame_audit: FrameAudit) -> None:
    assert frame_audit is AUDIT
    if AUDIT.sent == 0:
        pytest.skip("no server frame yet in this run")
    assert AUDIT.checked > 0
