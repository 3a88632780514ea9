"""Window fixes from a newcomer's evening, each through the real App (its
network a FakeNet fed what a server sends), driven by posted input."""

from __future__ import annotations

from typing import Any

import pygame

from client import dialogs
from client.app import App
from client.canned import model_from_state, play_until
from client.table_scene import TableScene
from protocol.rules import GameState, Phase, to_act
from protocol.rules.events import Event
from tests.client.test_evening import FakeNet


def app_at(s: GameState, seat: int | None, history: list[list[Event]], lang: str = "en",
           **model: Any) -> tuple[App, FakeNet]:
    """The real App showing ``s`` from ``seat`` after ``history``."""
    m = model_from_state(s, seat, history, table="t")
    for name, value in model.items():
        setattr(m, name, value)
    net = FakeNet()
    app = App(connect="127.0.0.1:1", discover=False, net_factory=lambda *a: net, lang=lang)
    for name, value in vars(m).items():
        setattr(app.model, name, value)
    for _ in range(3):
        app.step(1 / 60)
    return app, net


def press(pos: tuple[int, int]) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0),
                                         buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))


# -- 12: the discard dialog ------------------------------------------------------------


def test_the_discard_dialog_stops_at_the_count_owed_and_says_what_is_left() -> None:
    s, history = play_until(lambda s: s.phase == Phase.DISCARD)
    seat = to_act(s)[0]
    owed = s.discard_owed[seat]
    app, net = app_at(s, seat, history)
    try:
        dlg = app.ctx.stack.top
        assert isinstance(dlg, dialogs.DiscardDialog)
        ok = dlg.buttons["ok"]
        assert not ok.enabled and ok.reason == app.ctx.tr("table.dlg.choose_more", n=owed)
        for st in dlg.steppers:  # "+" on every card: more than owed is asked for
            for _ in range(s.hands[seat][st.res] + 1):
                press(st.plus.center)
                app.step(1 / 60)
        assert sum(dlg.cards()) == owed  # it stopped at the count owed
        assert ok.enabled and ok.reason == ""
        press(dlg.steppers[next(i for i, st in enumerate(dlg.steppers) if st.value)]
              .minus.center)
        app.step(1 / 60)
        assert not ok.enabled and ok.reason == app.ctx.tr("table.dlg.choose_more", n=1)
    finally:
        app.close()


# -- 5: tooltips over the buttons --------------------------------------------------------


def test_a_disabled_buttons_reason_is_drawn_over_the_buttons() -> None:
    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.PRE_ROLL
                            and s.turn >= 12, seed=11)
    app, net = app_at(s, 0, history)
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        bank = scene.buttons["bank"]
        assert not bank.enabled and bank.reason
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=bank.rect.center,
                                             rel=(0, 0), buttons=(0, 0, 0)))
        app.step(1 / 60)
        app.draw(app.screen)
        # the tip's dark box sits above the button, over the row of Roll / End turn
        end = scene.buttons["end"].rect
        y = bank.rect.y - scene.ui.px(20)
        assert end.top < y < end.bottom
        assert any(app.screen.get_at((x, y))[:3] == (20, 26, 34)
                   for x in range(end.x, end.right))
    finally:
        app.close()


# -- 7: the colour-blind palette in the log and the chat ---------------------------------


def _log_bullet_colours(app: App, scene: TableScene) -> set[tuple[int, int, int]]:
    """The colours at the centres of the log's bullets, as drawn now."""
    app.draw(app.screen)
    r = scene.log_area()
    px = scene.ui.px
    line_h = px(16)
    area = pygame.Rect(r.x + px(8), r.y + px(24), r.w - px(16), r.h - px(30))
    shown = scene._log_lines[-max(1, area.h // line_h):]
    y = area.bottom - len(shown) * line_h
    out = set()
    for _, about in shown:
        if about is not None:
            c = app.screen.get_at((area.x + px(6), y + line_h // 2))
            out.add((c[0], c[1], c[2]))
        y += line_h
    return out


def test_the_log_and_chat_follow_the_colour_blind_palette() -> None:
    from client import palette

    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    app, net = app_at(s, 0, history)
    previous = palette.name()
    try:
        palette.use("standard")
        net.inbox.append({"type": "chat", "table": "t", "seat": 1, "name": "Ben",
                          "text": "hello"})
        app.step(1 / 60)
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        standard = {palette.seat_color(q)[:3] for q in range(4)}
        assert _log_bullet_colours(app, scene) <= standard
        chat_before = scene._chat_lines[-1][1]
        app.toggle_palette()  # F3
        app.step(1 / 60)
        blind = {palette.seat_color(q)[:3] for q in range(4)}
        drawn = _log_bullet_colours(app, scene)
        assert drawn and drawn <= blind and not drawn & (standard - blind)
        assert scene._chat_lines[-1][1] == palette.seat_color(1) != chat_before
    finally:
        palette.use(previous)
        app.close()


# -- 8 and 13: the reconnect banner ------------------------------------------------------


def test_the_reconnect_banner_speaks_japanese_and_leaves_the_top_bar_alone() -> None:
    from client.model import RECONNECTING

    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    app, net = app_at(s, 0, history, lang="ja")
    try:
        net.inbox.append({"type": "_status", "state": RECONNECTING, "attempt": 2,
                          "detail": "attempt 2: connection refused (is the server running?)",
                          "why": "refused"})
        app.step(1 / 60)
        tr = app.ctx.tr
        assert app.reconnect_detail() == tr("status.why.refused") != "status.why.refused"
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        app.draw(app.screen)
        # the banner is drawn over the island, clear of the top bar (Turn, Leave)
        # and of the player panels
        banner = app.banner_rect(app.screen.get_size())
        assert banner is not None
        assert scene.banner_area().contains(banner)
        assert not banner.colliderect(scene.rects["top"])
        assert not banner.colliderect(scene.buttons["leave"].rect)
        assert not banner.colliderect(scene.rects["right"])
        # a failure the catalogue has no words for keeps the network's own
        net.inbox.append({"type": "_status", "state": RECONNECTING, "attempt": 3,
                          "detail": "attempt 3: something odd", "why": "odd"})
        app.step(1 / 60)
        assert app.reconnect_detail() == "attempt 3: something odd"
    finally:
        app.close()


# -- 8: Japanese that fits -----------------------------------------------------------------


def test_the_new_table_options_and_the_dice_title_are_not_cut_or_overdrawn() -> None:
    from client.lobby import CreateTableDialog
    from client.widgets import fit_text

    for lang in ("ja", "en"):
        net = FakeNet()
        app = App(connect="127.0.0.1:1", discover=False, net_factory=lambda *a, net=net: net,
                  lang=lang)
        try:
            net.inbox += [{"type": "welcome", "version": "1.4", "session": "s",
                           "resume_token": "r", "server": "srv"},
                          {"type": "tables", "tables": []}]
            app.step(1 / 60)
            app.lobby.open_create()
            app.step(1 / 60)
            dialog = app.ctx.stack.top
            assert isinstance(dialog, CreateTableDialog)
            font = app.ctx.font(15)
            for box in dialog.checks.values():
                room = box.rect.w - min(box.rect.h - 4, 22) - 10
                assert fit_text(font, box.label, room) == box.label, (lang, box.label)
        finally:
            app.close()
    # the dice panel: the tallest bar's count stays below the title
    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 30, seed=11)
    app, net = app_at(s, 0, history, lang="ja")
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        app.draw(app.screen)
        r = scene.rects["histogram"]
        px = scene.ui.px
        title = pygame.Rect(r.x + px(10), r.y + px(5), r.w - px(20), px(16))
        from client.table_gfx import PANEL_BG
        # nothing but the title's ink and the panel's paper in the title's band right
        # of the title's text
        text_w = scene.ui.text.font(12, True).size(
            app.ctx.tr("table.dice_title", n=sum(app.model.dice)))[0]
        band = pygame.Rect(title.x + text_w + px(4), title.y, title.right - title.x - text_w
                           - px(4), title.h)
        colours = {tuple(app.screen.get_at((x, y)))[:3] for x in range(band.x, band.right)
                   for y in range(band.y, band.bottom)}
        assert colours == {PANEL_BG[:3]}, colours
    finally:
        app.close()


# -- 6: the turn timer's notices and the stand-in --------------------------------------


def test_the_servers_moves_are_named_once_and_the_stand_in_says_how_to_come_back() -> None:
    s, history = play_until(lambda s: s.current == 0 and s.phase == Phase.MAIN
                            and s.turn >= 12, seed=11)
    for lang in ("en", "ja"):
        app, net = app_at(s, 0, history, lang=lang)
        try:
            tr = app.ctx.tr
            for what in ("roll_dice", "build_road", "end_turn", "discard"):
                net.inbox.append({"type": "error", "code": "acted_for_you",
                                  "message": f"the server played {what} for you (timeout)"})
                app.step(1 / 60)
            # one notice, the newest, in words (no raw action name, said once)
            assert [t.text for t in app.toasts] == [
                tr("acted.timeout", what=tr("acted.what.discard"))]
            assert "the server played" not in app.toasts[0].text
            # a bot stands in for this seat: the prompt says how to take it back
            seats = [dict(x, auto=(q == 0)) for q, x in enumerate(app.model.table_seats)]
            net.inbox.append({"type": "table", "table": "t", "status": "playing",
                              "seats": seats})
            app.step(1 / 60)
            scene = app.ctx.stack.scenes[0]
            assert isinstance(scene, TableScene)
            assert scene.prompt == tr("table.prompt.stand_in")
            net.inbox.append({"type": "error", "code": "acted_for_you",
                              "message": "the server played end_turn for you (stand-in)"})
            app.step(1 / 60)
            assert [t.text for t in app.toasts] == [
                tr("acted.stand_in", what=tr("acted.what.end_turn"))]
            # a message of another shape: words without the server's text
            net.inbox.append({"type": "error", "code": "acted_for_you",
                              "message": "<b>hostile</b> " * 20})
            app.step(1 / 60)
            assert app.toasts[-1].text == tr("acted.other", what=tr("acted.what.other"))
        finally:
            app.close()
