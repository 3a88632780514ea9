"""A bot's reason for its trade answer reaches the person at the window (1.4
``events.reason``): in the log and under the bot's row of the open offer, in
Japanese and English. The real App, its network a FakeNet fed what the
server sends."""

from __future__ import annotations

from typing import Any

import pytest

from client.app import App
from client.canned import model_from_state, play_until
from client.table_scene import TableScene
from protocol.rules import (
    OfferTrade,
    Phase,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    apply,
    legal_actions,
    observe,
)
from tests.client.test_evening import FakeNet
from tests.client.test_window_fixes import press

BOTS = ["Aiko", "Ben", "Bot 3 (Normal)", "Bot 4 (Hard)"]


def _seats() -> dict[str, Any]:
    return {"type": "table", "table": "t", "status": "playing", "seats": [
        {"name": n, "kind": "human" if q < 2 else "bot", "connected": True, "auto": False}
        for q, n in enumerate(BOTS)]}


def offer_answered(lang: str, reason: str = "no_use") -> tuple[App, TableScene]:
    """Seat 0 (the person) offered one ore for one wool to Bot 3 and Bot 4; Bot 3
    refused, saying why; Bot 4 thinks."""
    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    s.hands[0] = [1, 1, 1, 1, 2]
    s.hands[2] = [1, 0, 3, 1, 0]
    s.hands[3] = [0, 1, 2, 0, 1]
    history.append(apply(s, OfferTrade((0, 0, 0, 0, 1), (0, 0, 1, 0, 0), None), 0))
    model = model_from_state(s, 0, history, table="t")
    net = FakeNet()
    app = App(connect="127.0.0.1:1", discover=False, net_factory=lambda *a: net, lang=lang)
    for name, value in vars(model).items():
        setattr(app.model, name, value)
    net.inbox.append(_seats())
    s.trade = s.trade  # the offer stays open: seat 1 (a person) and seat 3 still think
    events = apply(s, RejectTrade(), 2)
    version = app.model.version + 1
    net.inbox.append({"type": "events", "version": version, "reason": reason,
                      "events": [e.for_seat(0).to_dict() for e in events]})
    net.inbox.append({"type": "view", "version": version, "view": observe(s, 0)})
    for _ in range(4):
        app.step(1 / 60)
    scene = app.ctx.stack.scenes[0]
    assert isinstance(scene, TableScene)
    return app, scene


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_reason_of_a_refusal_is_in_the_log_and_the_offer_panel(lang: str) -> None:
    app, scene = offer_answered(lang)
    try:
        tr = app.ctx.tr
        why = tr("table.reason.no_use")
        assert why != "table.reason.no_use"  # a text in the catalogue
        line = tr("table.reason.line",
                  line=tr("table.log.trade_rejected", name=scene.ui.seat_name(2)), why=why)
        log = "".join(text for text, _ in scene._log_lines)
        assert line.replace(" ", "") in log.replace(" ", "")
        panel = scene.trade_panel
        assert panel.visible and panel._reason(2) == why
        assert panel._reason(3) is None  # no answer yet
        # the bots' names are whole on their rows ("Bot 2 (Nor…" was cut)
        app.draw(app.screen)
        for q in (2, 3):
            assert scene.ui.seat_name(q) in scene.ui.text.seen, scene.ui.seat_name(q)
    finally:
        app.close()


def test_an_unknown_reason_is_ignored() -> None:
    app, scene = offer_answered("en", reason="bribe")
    try:
        assert scene.trade_panel._reason(2) is None
        assert not any("bribe" in text for text, _ in scene._log_lines)
    finally:
        app.close()


def test_a_proposal_names_the_player_on_turn_when_it_was_made() -> None:
    """The log named whoever was on turn when the line was drawn (after the turn
    passed, or after a reconnect: "Aiko proposes to Aiko")."""
    s, history = play_until(lambda s: s.current == 1 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    s.hands[0] = [1, 1, 1, 1, 1]
    s.hands[1] = [1, 1, 1, 1, 1]
    history.append(apply(s, ProposeTrade((1, 0, 0, 0, 0), (0, 1, 0, 0, 0)), 0))
    history.append(apply(s, RejectProposal(0), 1))
    while not (s.current == 0 and s.phase == Phase.MAIN):  # on to seat 0's own turn
        seat = 0 if s.phase != Phase.MAIN else s.current
        legal = legal_actions(s, s.current if s.phase != Phase.DISCARD else seat)
        end = [a for a in legal if a.name in ("end_turn", "roll_dice")]
        history.append(apply(s, (end or legal)[0], s.current))
        if s.phase == Phase.GAME_OVER:
            break
    model = model_from_state(s, 0, history, table="t")
    from client.describe import describe
    from client.i18n import Translator

    tr = Translator("en")
    names = {0: "Aiko", 1: "Ben"}
    lines = [text for ev in model.events if ev.get("type") in ("trade_proposed",
                                                               "proposal_rejected")
             for text, _ in describe(ev, tr, lambda q: names.get(q, f"Seat {q}"), model.view)]
    assert model.view is not None and model.view["current"] == 0  # Aiko's turn now
    assert lines[0].startswith("Aiko proposes to Ben:"), lines
    assert lines[1] == tr("table.log.proposal_rejected", name="Aiko", to="Ben")


def test_the_offer_dialogs_chips_keep_the_bots_names_whole() -> None:
    """The "to whom" chips of the offer dialog cut "Bot 2 (Nor…" (ja and en)."""
    from client import dialogs

    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    s.hands[0] = [1, 1, 1, 1, 2]
    for lang in ("en", "ja"):
        model = model_from_state(s, 0, history, table="t")
        net = FakeNet()
        app = App(connect="127.0.0.1:1", discover=False,
                  net_factory=lambda *a, net=net: net, lang=lang)
        try:
            for name, value in vars(model).items():
                setattr(app.model, name, value)
            net.inbox.append({"type": "table", "table": "t", "status": "playing", "seats": [
                {"name": n, "kind": "human" if q == 0 else "bot", "connected": True,
                 "auto": False}
                for q, n in enumerate(["Aiko", "Bot 2 (Normal)", "Bot 3 (Normal)",
                                       "Bot 4 (Normal)"])]})
            for _ in range(3):
                app.step(1 / 60)
            scene = app.ctx.stack.scenes[0]
            assert isinstance(scene, TableScene)
            press(scene.buttons["trade"].rect.center)
            app.step(1 / 60)
            dlg = app.ctx.stack.top
            assert isinstance(dlg, dialogs.TradeComposeDialog)
            app.draw(app.screen)
            px = dlg.ui.px
            for q in (1, 2, 3):
                name, chip = scene.ui.seat_name(q), dlg.target_rects[q]
                # drawn as the dialog draws it: cut to the chip's room
                assert dlg.ui.text.fit(name, 13, chip.w - px(30), True) == name, (lang, q)
                assert dlg.rect.contains(chip)
        finally:
            app.close()
