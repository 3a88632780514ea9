"""A whole evening at the window: the real App against a real server, driven by
posted mouse and key events (SDL's dummy driver), past the end of the game."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pygame

from client import dialogs
from client.app import App
from client.table_scene import TableScene
from server.app import Server
from tests.client.test_full_game import ScriptedMouse, play_client_game


async def frames(app: App, until: Callable[[], bool], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < end, f"timed out: {app.ctx.stack.scenes}"
        app.step(1 / 60)
        await asyncio.sleep(0.005)


def click(pos: tuple[int, int]) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0),
                                         buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))


async def test_view_board_then_leave_goes_back_to_the_lobby(server: Server) -> None:
    """After game over, "View board" keeps the table; its Leave button then goes to
    the lobby (it opened a confirmation that closed itself at once, game over)."""

    async def after(app: App, mouse: ScriptedMouse) -> None:
        await frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.GameOverDialog))
        over = app.ctx.stack.top
        assert isinstance(over, dialogs.GameOverDialog)
        click(over.buttons["board"].rect.center)
        await frames(app, lambda: isinstance(app.ctx.stack.top, TableScene))
        table = app.ctx.stack.top
        assert isinstance(table, TableScene)
        for _ in range(10):  # the table stays, with the final board
            app.step(1 / 60)
        assert app.ctx.stack.top is table
        click(table.buttons["leave"].rect.center)
        await frames(app, lambda: app.ctx.stack.scenes == [app.lobby]
                     and app.model.table is None)

    await play_client_game(server, players=4, vp_target=3, seed=5, timeout=60, after=after)


class FakeNet:
    """Stands in for NetClient: what ``poll`` returns is up to the test."""

    def __init__(self, *args: object) -> None:
        self.inbox: list[dict[str, object]] = []
        self.sent: list[dict[str, object]] = []

    def start(self) -> None:
        pass

    def poll(self) -> list[dict[str, object]]:
        out, self.inbox = self.inbox, []
        return out

    def send(self, msg: dict[str, object]) -> None:
        self.sent.append(msg)

    def close(self) -> None:
        pass


def test_an_idle_window_draws_nothing_until_something_changes() -> None:
    """Each idle window burnt 30-50% of a core redrawing at 60 frames a second; now
    a frame is drawn on news, input or a running animation only."""
    from client.canned import canned_model

    net = FakeNet()
    app = App(connect="127.0.0.1:1", discover=False, net_factory=lambda *a: net)
    try:
        canned = canned_model(0)
        for name, value in vars(canned).items():
            setattr(app.model, name, value)
        for _ in range(5):
            app.step(1 / 60)
        assert isinstance(app.ctx.stack.top, TableScene)
        drawn = app.frames_drawn
        for _ in range(100):  # well under a second: nothing asks for a frame
            assert not app.step(1 / 60)
        assert app.frames_drawn == drawn
        # news: one frame
        net.inbox.append({"type": "chat", "table": app.model.table, "seat": 1, "name": "Ben",
                          "text": "hello"})
        assert app.step(1 / 60)
        assert not app.step(1 / 60)
        # input: one frame
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(300, 300), rel=(0, 0),
                                             buttons=(0, 0, 0)))
        assert app.step(1 / 60)
        assert not app.step(1 / 60)
        # an animation: every frame until it ends
        scene = app.ctx.stack.top
        version = app.model.version + 1
        net.inbox.append({"type": "events", "version": version,
                          "events": [{"type": "dice_rolled", "seat": 1, "dice": [3, 4]}]})
        assert app.step(1 / 60)
        assert scene.dice_anim > 0
        assert all(app.step(1 / 60) for _ in range(10))
        while scene.animating:
            app.step(0.1)
        app.step(1 / 60)
        assert not app.step(1 / 60)
    finally:
        app.close()


def table_app(lang: str = "en", players: int = 4) -> tuple[App, FakeNet]:
    """The real App at the canned table, its network a FakeNet (with 5 or 6
    ``players``: the 30-hex board, the client's seat in a special building phase)."""
    from client.canned import canned_model

    net = FakeNet()
    app = App(connect="127.0.0.1:1", discover=False, net_factory=lambda *a: net, lang=lang)
    canned = canned_model(0, lang=lang, players=players)
    for name, value in vars(canned).items():
        setattr(app.model, name, value)
    for _ in range(3):
        app.step(1 / 60)
    assert isinstance(app.ctx.stack.scenes[0], TableScene)
    return app, net


def key(k: int, text: str = "") -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=text))


def test_japanese_toasts_say_the_error_in_japanese() -> None:
    app, net = table_app("ja")
    try:
        assert app.fonts.lang == "ja"
        net.inbox += [{"type": "result", "seq": 1, "ok": False, "code": "cannot_afford",
                       "message": "not enough resources for a city"},
                      {"type": "error", "code": "bad_settings", "message": "bots must be x"},
                      {"type": "result", "seq": 2, "ok": False, "code": "brand_new_code",
                       "message": "an English reason"}]
        app.step(1 / 60)
        texts = [t.text for t in app.toasts]
        assert texts[0] == app.ctx.tr("error.cannot_afford")
        assert not any("resources" in t or "bots must" in t or "English" in t for t in texts)
    finally:
        app.close()


def test_chat_forgets_its_draft_on_esc_and_lets_go_after_sending() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        key(pygame.K_RETURN)
        app.step(1 / 60)
        assert scene.chat.focused
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="half a thought"))
        key(pygame.K_ESCAPE)
        app.step(1 / 60)
        assert not scene.chat.focused and scene.chat.text == ""
        key(pygame.K_RETURN)
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="gg"))
        key(pygame.K_RETURN)
        app.step(1 / 60)
        assert {"type": "chat", "text": "gg"} in net.sent
        assert not scene.chat.focused  # the next keys are the table's (R rolls, E ends)
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="r"))
        app.step(1 / 60)
        assert scene.chat.text == ""
    finally:
        app.close()


def test_play_card_is_lit_only_when_a_card_can_be_played() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        view = app.model.view
        assert view is not None
        playable = any(scene._playable(c, view) for c in range(4))
        assert scene.buttons["cards"].enabled == playable
        view["you"]["dev_playable"] = []  # cards in hand, none playable (bought this turn)
        app.model.changes += 1
        app.step(1 / 60)
        assert any(view["you"]["dev_cards"]) and not scene.buttons["cards"].enabled
    finally:
        app.close()


def test_at_game_over_the_panels_show_the_final_scores() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        net.inbox.append({"type": "game_over", "winner": 1, "scores": [7, 19, 6, 5]})
        app.step(1 / 60)
        over = app.ctx.stack.top
        assert isinstance(over, dialogs.GameOverDialog)
        click(over.buttons["board"].rect.center)
        app.step(1 / 60)
        assert "19" in scene.ui.text.seen  # the final score (hidden points too), not public
    finally:
        app.close()


def test_the_log_shows_the_roll_once_the_dice_settle() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        net.inbox.append({"type": "events", "version": app.model.version + 1,
                          "events": [{"type": "dice_rolled", "seat": 0, "dice": [6, 5]}]})
        app.step(1 / 60)
        assert scene.dice_anim > 0
        rolled = app.ctx.tr("table.log.dice_rolled", name=scene.ui.seat_name(0), a=6, b=5,
                            total=11)
        assert not any(rolled in line for line, _ in scene._log_lines)
        while scene.dice_anim:
            app.step(0.1)
        app.step(1 / 60)
        assert any(rolled in line for line, _ in scene._log_lines)
    finally:
        app.close()


def test_a_disabled_button_says_why_under_the_mouse() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        view = app.model.view
        assert view is not None
        view["you"]["hand"] = [0, 0, 0, 0, 0]  # nothing to pay with
        view["you"]["dev_playable"] = []
        app.model.changes += 1
        app.step(1 / 60)
        city = scene.buttons["city"]
        assert not city.enabled
        assert city.reason == app.ctx.tr("table.why.cannot_afford",
                                         cards=app.ctx.tr("table.count_res", n=2,
                                                          res=app.ctx.tr("table.res.grain"))
                                         + app.ctx.tr("table.list_sep")
                                         + app.ctx.tr("table.count_res", n=3,
                                                      res=app.ctx.tr("table.res.ore")))
        assert scene.buttons["roll"].reason  # rolled already, or not the time
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=city.rect.center,
                                             rel=(0, 0), buttons=(0, 0, 0)))
        app.step(1 / 60)
        assert city.reason in scene.ui.text.seen
    finally:
        app.close()


def test_the_log_keeps_its_place_says_what_is_new_and_goes_back() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        log = scene.rects["log"]
        rows = (log.h - scene.ui.px(30)) // scene.ui.px(16)
        assert rows >= 11  # it was 9
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=log.center, rel=(0, 0),
                                             buttons=(0, 0, 0)))
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=3))
        app.step(1 / 60)
        assert scene.log_scroll == 3
        top_line = scene._log_lines[-1 - 3]
        for i in range(2):
            net.inbox.append({"type": "chat", "table": "t", "seat": 1, "name": "Ben",
                              "text": "x"})
            net.inbox.append({"type": "events", "version": app.model.version + 1 + i,
                              "events": [{"type": "turn_ended", "seat": 1}]})
        app.step(1 / 60)
        app.step(1 / 60)
        assert scene.log_new == 2 and scene._log_lines[-1 - scene.log_scroll] == top_line
        assert app.ctx.tr("table.log_new", n=2) in scene.ui.text.seen
        click(scene.log_cue.center)
        app.step(1 / 60)
        assert scene.log_scroll == 0 and scene.log_new == 0
    finally:
        app.close()


def test_the_log_says_when_a_player_drops_and_comes_back() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        seats = [dict(s) for s in app.model.table_seats]
        q = next(i for i, s in enumerate(seats) if s.get("kind") == "human"
                 and i != app.model.seat)
        name = scene.ui.seat_name(q)

        def table(connected: bool, auto: bool = False) -> dict[str, object]:
            seats[q] = dict(seats[q], connected=connected, auto=auto)
            return {"type": "table", "table": app.model.table, "seats": [dict(s) for s in seats],
                    "status": "playing"}

        net.inbox.append(table(False))
        app.step(1 / 60)
        net.inbox.append(table(False, auto=True))
        app.step(1 / 60)
        net.inbox.append(table(True))
        app.step(1 / 60)
        app.step(1 / 60)
        lines = [line for line, _ in scene._log_lines]
        for key in ("table.presence.dropped", "table.presence.stand_in",
                    "table.presence.back"):
            assert app.ctx.tr(key, name=name) in lines, key
        # a stand-in for this window's own seat speaks to you, not of you
        me = app.model.seat
        seats[me] = dict(seats[me], auto=True)
        net.inbox.append({"type": "table", "table": app.model.table,
                          "seats": [dict(s) for s in seats], "status": "playing"})
        app.step(1 / 60)
        app.step(1 / 60)
        lines = [line for line, _ in scene._log_lines]
        assert app.ctx.tr("table.presence.stand_in_you") in lines
        assert app.ctx.tr("table.presence.stand_in", name=scene.ui.seat_name(me)) not in lines
    finally:
        app.close()


def test_the_turn_order_is_shown_on_the_player_panels() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        view = app.model.view
        assert view is not None
        first = scene.first_seat()
        assert first is not None
        n = view["players"]
        # the current player is (turn - 1) seats after the first
        assert (view["current"] - first) % n == (view["turn"] - 1) % n
        scene._chrome = None
        app.model.changes += 1
        app.step(1 / 60)
        assert {str(i) for i in range(1, n + 1)} <= scene.ui.text.seen
    finally:
        app.close()


def test_the_bank_says_what_to_pick_and_trades_several_lots() -> None:
    """The bank dialog: a line says to pick what to give, then what to get; a lot
    count sends that many trades, one after the other as the server answers."""
    import copy

    from protocol.rules import MaritimeTrade, action_from_dict

    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        view = app.model.view
        assert view is not None
        view["you"]["hand"] = [8, 0, 0, 0, 0]  # eight lumber: two lots at 4:1
        view["you"]["ratios"] = [4, 4, 4, 4, 4]
        legal = [a.to_dict() for a in app.model.legal if not isinstance(a, MaritimeTrade)]
        legal += [MaritimeTrade(0, r).to_dict() for r in range(1, 5)]
        net.inbox.append({"type": "legal", "version": app.model.version, "actions": legal})
        app.step(1 / 60)
        click(scene.buttons["bank"].rect.center)
        app.step(1 / 60)
        dlg = app.ctx.stack.top
        assert isinstance(dlg, dialogs.MaritimeDialog)
        app.step(1 / 60)
        assert app.ctx.tr("table.dlg.bank_pick_give") in scene.ui.text.seen
        click(dlg.give_tiles[0].center)
        app.step(1 / 60)
        assert app.ctx.tr("table.dlg.bank_pick_get") in scene.ui.text.seen
        click(dlg.get_tiles[4].center)
        app.step(1 / 60)
        click(dlg.plus.center)
        click(dlg.plus.center)  # only two lots are possible
        app.step(1 / 60)
        assert dlg.lots == 2
        click(dlg.buttons["ok"].rect.center)
        sent: list[object] = []
        for _ in range(20):  # the "server": answer each trade, send the new hand
            app.step(1 / 60)
            for msg in list(net.sent):
                net.sent.remove(msg)
                if msg.get("type") != "action":
                    continue
                action = action_from_dict(msg["action"])  # type: ignore[arg-type]
                sent.append(action)
                v = app.model.version + 1
                moved = copy.deepcopy(app.model.view)
                moved["you"]["hand"][0] -= 4
                moved["you"]["hand"][4] += 1
                more = legal if moved["you"]["hand"][0] >= 4 else [
                    a for a in legal if a["type"] != "maritime_trade"]
                net.inbox += [{"type": "result", "seq": len(sent), "ok": True},
                              {"type": "view", "version": v, "view": moved},
                              {"type": "legal", "version": v, "actions": more}]
        assert sent == [MaritimeTrade(0, 4), MaritimeTrade(0, 4)]
        assert app.model.view["you"]["hand"] == [0, 0, 0, 0, 2]
    finally:
        app.close()
