"""ClientModel: every server message (and the network layer's notices) applied."""

from __future__ import annotations

from typing import Any

import pytest

from client.model import CONNECTING, OFFLINE, ONLINE, RECONNECTING, ClientModel
from protocol.rules import BuildSettlement, Settings, legal_actions, new_game, observe

SETTINGS = Settings(players=3).to_dict()


def seated(model: ClientModel | None = None, table: str = "t1", seat: int | None = 0
           ) -> ClientModel:
    model = model or ClientModel()
    model.apply({"type": "welcome", "version": "1.1", "session": "s", "resume_token": "r",
                 "server": "srv"})
    model.apply({"type": "joined", "table": table, "seat": seat, "settings": SETTINGS})
    return model


def game_messages(version: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    state = new_game(Settings(players=3), seed=5)
    seat = state.current
    view = {"type": "view", "version": version, "view": observe(state, seat)}
    legal = {"type": "legal", "version": version,
             "actions": [a.to_dict() for a in legal_actions(state, seat)]}
    return view, legal


def test_starts_connecting_and_goes_online() -> None:
    m = ClientModel()
    assert m.connection == CONNECTING
    m.apply({"type": "_status", "state": "connecting", "detail": "127.0.0.1:7878", "attempt": 0})
    assert m.connection_detail == "127.0.0.1:7878"
    m.apply({"type": "welcome", "version": "1.1", "session": "abc", "resume_token": "tok",
             "server": "Friday"})
    assert (m.connection, m.session, m.server_name, m.connection_detail) == (
        ONLINE, "abc", "Friday", "")


def test_status_reconnecting_keeps_the_table_and_offline_drops_it() -> None:
    m = seated()
    m.apply({"type": "_status", "state": RECONNECTING, "detail": "attempt 3: refused",
             "attempt": 3})
    assert (m.connection, m.attempt, m.table) == (RECONNECTING, 3, "t1")
    m.apply({"type": "_status", "state": ONLINE, "detail": "", "attempt": 0})
    assert m.attempt == 0 and m.table == "t1"
    m.apply({"type": "_status", "state": OFFLINE, "detail": "gave up"})
    assert m.connection == OFFLINE and m.table is None and m.seat is None


def test_tables_and_table_updates() -> None:
    m = ClientModel()
    summary = {"id": "t1", "name": "Friday", "settings": SETTINGS, "status": "waiting",
               "spectators": 0, "seats": [{"name": "Ann", "kind": "human", "connected": True}]}
    m.apply({"type": "tables", "tables": [summary]})
    assert m.tables == [summary]
    seated(m)
    assert (m.table, m.seat, m.settings) == ("t1", 0, SETTINGS)
    seats = [{"name": "Ann", "kind": "human", "connected": True, "auto": False},
             {"name": None, "kind": "empty", "connected": False, "auto": False}]
    m.apply({"type": "table", "table": "other", "seats": [], "status": "playing"})
    assert m.table_seats == [] and m.table_status is None  # another table's news
    m.apply({"type": "table", "table": "t1", "seats": seats, "status": "waiting"})
    assert m.table_seats == seats and m.table_status == "waiting"


def test_spectator_has_no_seat() -> None:
    m = seated(seat=None)
    assert m.table == "t1" and m.seat is None


def test_game_started_view_and_legal() -> None:
    m = seated()
    m.apply({"type": "game_started", "table": "t1"})
    assert m.table_status == "playing"
    view, legal = game_messages(0)
    m.apply(view)
    assert m.view == view["view"] and m.version == 0
    m.apply({**legal, "timer_ms": 30000})
    assert m.my_turn() and m.legal_version == 0 and m.timer_ms == 30000
    assert all(isinstance(a, BuildSettlement) for a in m.legal)
    assert m.legal_of(BuildSettlement) == m.legal
    left = m.time_left(now=m.legal_at + 10)
    assert left == pytest.approx(20.0)
    assert m.time_left(now=m.legal_at + 99) == 0.0
    # a newer view makes the older legal list stale
    m.apply({**view, "version": 1})
    assert m.legal == [] and m.time_left() is None


def test_legal_truncated_and_bad_actions() -> None:
    m = seated()
    m.apply({"type": "legal", "version": 4, "actions": [{"type": "roll_dice"}],
             "truncated": True, "discard": 5})
    assert m.legal_truncated and m.discard_count == 5 and len(m.legal) == 1
    m.apply({"type": "legal", "version": 5, "actions": [{"type": "no_such_action"}]})
    assert m.legal == [] and m.errors[-1][0] == "bad_message" and m.error_count == 1


def test_events_fill_the_log_and_the_dice_histogram() -> None:
    m = seated()
    m.apply({"type": "events", "version": 3, "events": [
        {"type": "turn_started", "seat": 0, "turn": 1},
        {"type": "dice_rolled", "seat": 0, "dice": [3, 4]},
    ]})
    m.apply({"type": "events", "version": 4, "events": [
        {"type": "dice_rolled", "seat": 1, "dice": [1, 1]},
        {"type": "dice_rolled", "seat": 2, "dice": [6, 1]},
        {"type": "some_future_event", "x": 1},
    ]})
    assert m.version == 4
    assert len(m.events) == 5
    assert m.dice[7] == 2 and m.dice[2] == 1 and sum(m.dice) == 3


def test_results_and_errors() -> None:
    m = seated()
    m.apply({"type": "result", "seq": 1, "ok": True})
    assert m.rejected is None and m.error_count == 0
    rejected = {"type": "result", "seq": 2, "ok": False, "code": "cannot_afford",
                "message": "not enough"}
    m.apply(rejected)
    assert m.rejected == rejected and list(m.errors) == [("cannot_afford", "not enough")]
    m.apply({"type": "error", "code": "not_creator", "message": "only the creator"})
    assert m.error_count == 2
    assert m.new_errors(1) == [("not_creator", "only the creator")]
    assert m.new_errors(2) == []
    for i in range(30):  # the deque is bounded, the count is not
        m.apply({"type": "error", "code": "x", "message": str(i)})
    assert m.error_count == 32 and len(m.errors) == 20
    assert m.new_errors(30) == [("x", "28"), ("x", "29")]
    assert len(m.new_errors(0)) == 20


def test_resync_after_a_rejection() -> None:
    """A rejected action, a resync: the fresh view and legal list replace the old ones."""
    m = seated()
    view, legal = game_messages(7)
    m.apply(view)
    m.apply(legal)
    m.apply({"type": "result", "seq": 3, "ok": False, "code": "illegal_placement",
             "message": "taken"})
    before = m.legal
    m.apply(view)  # the resync answers with the same version: the legal list stays valid
    assert m.legal == before
    m.apply(legal)
    assert m.legal == before and m.legal_version == 7


def test_game_over_chat_and_leaving() -> None:
    m = seated()
    view, legal = game_messages(0)
    m.apply({"type": "game_started", "table": "t1"})
    m.apply(view)
    m.apply(legal)
    m.apply({"type": "events", "version": 1,
             "events": [{"type": "dice_rolled", "seat": 0, "dice": [2, 2]}]})
    m.apply({"type": "chat", "table": "t1", "seat": 1, "name": "Bob", "text": "hi"})
    assert m.chat[-1]["text"] == "hi"
    over = {"type": "game_over", "winner": 1, "scores": [4, 10, 3]}
    m.apply(over)
    assert m.game_over == over and m.legal == [] and m.table_status == "finished"
    m.apply({"type": "left", "table": "t1"})
    assert m.table is None and m.seat is None and m.view is None and m.settings is None
    assert m.dice == [0] * 13 and not m.events and not m.chat and m.game_over is None
    assert m.table_seats == [] and m.table_status is None


def test_joining_another_table_resets_the_game() -> None:
    m = seated(table="t1")
    view, _ = game_messages(0)
    m.apply(view)
    m.apply({"type": "events", "version": 1,
             "events": [{"type": "dice_rolled", "seat": 0, "dice": [2, 2]}]})
    m.apply({"type": "joined", "table": "t1", "seat": 0, "settings": SETTINGS, "last_seq": 4})
    assert m.view is not None and m.dice[4] == 1  # a resume of the same table keeps it
    m.apply({"type": "joined", "table": "t2", "seat": 1, "settings": SETTINGS})
    assert m.view is None and m.dice[4] == 0 and m.seat == 1


def test_a_failed_resume_leaves_the_table() -> None:
    m = seated()
    m.apply({"type": "error", "code": "bad_resume", "message": "unknown token"})
    assert m.table is None and m.errors[-1][0] == "bad_resume"
    m2 = ClientModel()
    m2.apply({"type": "error", "code": "no_such_table", "message": "gone"})
    assert m2.table is None and m2.error_count == 1


def test_reset_forgets_everything_but_counts_changes_up() -> None:
    m = seated()
    m.apply({"type": "error", "code": "x", "message": ""})
    changes = m.changes
    m.reset()
    assert m.table is None and m.error_count == 0 and m.connection == CONNECTING
    assert m.changes == changes + 1
    fresh = ClientModel()
    assert m.errors == fresh.errors and m.dice == fresh.dice


def test_an_accepted_action_makes_the_legal_list_stale() -> None:
    # The server sends the result before the events, view and legal list the action
    # caused; between the two the old choices must not be offered again (a dialog
    # would reopen and the same decision could be sent twice).
    m = seated()
    view, legal = game_messages(version=3)
    m.apply({"type": "view", "version": 3, "view": view["view"]})
    m.apply(legal)
    assert m.legal
    m.apply({"type": "result", "seq": 1, "ok": True})
    assert m.legal == []
    m.apply({"type": "legal", "version": 4, "actions": [{"type": "end_turn"}]})
    assert [a.name for a in m.legal] == ["end_turn"]
    m.apply({"type": "result", "seq": 2, "ok": False, "code": "cannot_afford",
             "message": "no"})
    assert [a.name for a in m.legal] == ["end_turn"]  # a refusal leaves the choices open
