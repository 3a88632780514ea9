"""Sound, the window title and the celebration toasts: the real App at the canned
table (its network a FakeNet), driven by posted events, with SDL's dummy audio
driver, and without any audio at all."""

from __future__ import annotations

import pygame
import pytest

from client import dialogs, palette, sound
from client.app import App
from client.celebration import WIN_SECONDS
from client.settings import Settings, SettingsFile
from client.sound import CUES, SoundBoard, synth, to_pcm
from client.table_scene import TableScene
from tests.client.test_evening import FakeNet, click, key, table_app


def scene_of(app: App) -> TableScene:
    scene = app.ctx.stack.scenes[0]
    assert isinstance(scene, TableScene)
    return scene


def news(app: App, net: FakeNet, *events: dict[str, object]) -> None:
    net.inbox.append({"type": "events", "version": app.model.version + 1,
                      "events": list(events)})
    app.step(1 / 60)


@pytest.mark.parametrize("name", CUES)
def test_every_cue_is_synthesised(name: str) -> None:
    samples = synth(name, 22050)
    assert 0.2 * 22050 < len(samples) < 2 * 22050
    assert max(abs(v) for v in samples) > 0.05  # not silence
    data = to_pcm(samples, 2)
    assert len(data) == 2 * 2 * len(samples)


def test_the_dummy_driver_plays_and_mute_silences() -> None:
    board = SoundBoard()
    assert board.available, board.error
    assert board.play("roll") and board.played == ["roll"]
    board.toggle_mute()
    assert not board.play("build") and board.played == ["roll"]
    assert board.requested == ["roll", "build"]
    board.close()


def test_without_audio_the_window_is_silent_and_plays_on(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    def broken(*args: object, **kw: object) -> None:
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "init", broken)
    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    app, net = table_app()
    try:
        assert not app.sound.available and "audio device" in (app.sound.error or "")
        news(app, net, {"type": "dice_rolled", "seat": 1, "dice": [3, 4]})
        for _ in range(5):
            app.step(1 / 60)
        assert app.sound.requested and app.sound.played == []
        key(pygame.K_m)  # muting without a mixer is fine too
        app.step(1 / 60)
        assert app.sound.muted
    finally:
        app.close()


def test_news_makes_sounds_history_does_not() -> None:
    app, net = table_app()
    try:
        assert app.sound.available
        before = list(app.sound.requested)
        assert "roll" not in before  # the canned history: no sound
        news(app, net, {"type": "dice_rolled", "seat": 1, "dice": [2, 4]})
        news(app, net, {"type": "road_built", "seat": 1, "edge": 3, "free": False},
             {"type": "settlement_built", "seat": 1, "node": 5, "free": False})
        news(app, net, {"type": "robber_moved", "seat": 1, "hex": 4})
        news(app, net, {"type": "maritime_traded", "seat": 1, "give": 0, "count": 4,
                        "get": 1})
        got = app.sound.requested[len(before):]
        assert [c for c in got if c != "turn"] == ["roll", "build", "robber", "trade"]
    finally:
        app.close()


def test_m_mutes_and_the_setting_is_kept() -> None:
    app, net = table_app()
    try:
        key(pygame.K_m)
        app.step(1 / 60)
        assert app.sound.muted
        assert SettingsFile().load().muted
        assert any("M" in t.text for t in app.toasts)
    finally:
        app.close()
    again, _ = table_app()
    try:
        assert again.sound.muted  # read back at start
        key(pygame.K_m)
        again.step(1 / 60)
        assert not again.sound.muted and not SettingsFile().load().muted
    finally:
        again.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_title_and_a_chime_say_it_is_your_turn(lang: str) -> None:
    app, net = table_app(lang)
    try:
        view = app.model.view
        assert view is not None and app.model.seat in view["to_act"]
        want = "● Your turn — Kaitaku" if lang == "en" else "● あなたの番です — 開拓"
        assert pygame.display.get_caption()[0] == want
        assert app.sound.requested.count("turn") == 1
        for _ in range(10):  # once, not every frame
            app.step(1 / 60)
        assert app.sound.requested.count("turn") == 1
        # another player's turn: the plain title
        other = dict(view, current=1, to_act=[1], turn=view["turn"] + 1)
        net.inbox.append({"type": "view", "version": app.model.version + 1, "view": other})
        app.step(1 / 60)
        assert pygame.display.get_caption()[0] == app.ctx.tr("app.title")
        # asked to discard in that turn: the title again and one chime
        asked = dict(other, phase="discard", to_act=[0, 1])
        net.inbox.append({"type": "view", "version": app.model.version + 1, "view": asked})
        app.step(1 / 60)
        assert pygame.display.get_caption()[0] == want
        assert app.sound.requested.count("turn") == 2
        # the next own turn chimes again
        mine = dict(view, turn=view["turn"] + 4)
        net.inbox.append({"type": "view", "version": app.model.version + 1, "view": mine})
        app.step(1 / 60)
        assert app.sound.requested.count("turn") == 3
    finally:
        app.close()


def test_longest_road_and_largest_army_are_celebrated() -> None:
    app, net = table_app()
    try:
        scene = scene_of(app)
        news(app, net, {"type": "longest_road_changed", "holder": 2, "length": 6})
        assert scene.cheers.running
        text = app.ctx.tr("table.cheer.longest_road", name=scene.ui.seat_name(2), n=6)
        assert scene.cheers.shown[-1] == text and "award" in app.sound.requested
        app.step(1 / 60)
        assert text in scene.ui.text.seen  # drawn
        news(app, net, {"type": "largest_army_changed", "holder": 0, "knights": 3})
        assert scene.cheers.shown[-1] == app.ctx.tr("table.cheer.largest_army_you", n=3,
                                                    name=scene.ui.seat_name(0))
        news(app, net, {"type": "longest_road_changed", "holder": None, "length": 5})
        assert scene.cheers.shown[-1] == app.ctx.tr("table.cheer.longest_road_open")
        assert scene.next_frame() == 0.0  # frames while they run...
        for _ in range(60):
            app.step(0.1)
        assert not scene.cheers.running and not scene.animating  # ...and none after
    finally:
        app.close()


def test_the_win_is_celebrated_then_the_scores_open() -> None:
    app, net = table_app("ja")
    try:
        scene = scene_of(app)
        news(app, net, {"type": "game_over", "winner": 0, "scores": [10, 6, 5, 4],
                        "vp_cards": [1, 0, 0, 0]})
        net.inbox.append({"type": "game_over", "winner": 0, "scores": [10, 6, 5, 4]})
        app.step(1 / 60)
        assert scene.cheers.shown[-1] == "あなたの勝利です！" and "win" in app.sound.requested
        assert app.ctx.stack.top is scene  # the board and the confetti first
        t = 0.0
        while not isinstance(app.ctx.stack.top, dialogs.GameOverDialog):
            app.step(0.1)
            t += 0.1
            assert t < WIN_SECONDS + 1
        assert t >= WIN_SECONDS - 0.3
    finally:
        app.close()


def test_a_click_skips_the_celebration() -> None:
    app, net = table_app()
    try:
        news(app, net, {"type": "game_over", "winner": 2, "scores": [6, 6, 10, 4],
                        "vp_cards": [0, 0, 0, 0]})
        net.inbox.append({"type": "game_over", "winner": 2, "scores": [6, 6, 10, 4]})
        app.step(1 / 60)
        assert app.ctx.stack.top is scene_of(app)
        click((300, 300))
        app.step(1 / 60)
        app.step(1 / 60)
        assert isinstance(app.ctx.stack.top, dialogs.GameOverDialog)
    finally:
        app.close()


def test_f3_switches_the_palette_and_keeps_it() -> None:
    app, net = table_app()
    try:
        scene = scene_of(app)
        builds = scene.region_builds.get("board", 0)
        key(pygame.K_F3)
        app.step(1 / 60)
        assert palette.name() == "colorblind"
        assert SettingsFile().load().palette == "colorblind"
        assert scene.region_builds.get("board", 0) > builds  # redrawn in the new colours
        assert scene.ui.seat_name(0)  # names unchanged
    finally:
        app.close()
    again, _ = table_app()
    try:
        assert palette.name() == "colorblind"
        key(pygame.K_F3)
        again.step(1 / 60)
        assert palette.name() == "standard" and SettingsFile().load() == Settings()
    finally:
        again.close()
        palette.use("standard")


def test_sound_pcm_is_computed_once_per_process() -> None:
    first = sound.pcm("build", 22050, 1)
    assert sound.pcm("build", 22050, 1) is first


def test_the_special_building_phase_chimes_when_it_comes_to_you() -> None:
    """Six players (R-56-8): another seat's turn ends and the phase comes to
    this seat: the title says so and the chime sounds once; the next seat's
    chance (not ours) is quiet."""
    app, net = table_app(players=6)
    try:
        view = app.model.view
        assert view is not None and view["phase"] == "special_build"
        assert view["current"] == app.model.seat == 0 and view["special_from"] is not None
        assert app.sound.requested.count("turn") == 1  # the phase came to us: chimed
        assert pygame.display.get_caption()[0] == "● Your turn — Kaitaku"
        later = view["turn"] + 1
        others = dict(view, current=2, to_act=[2], turn=later, special_from=1)
        net.inbox.append({"type": "view", "version": app.model.version + 1, "view": others})
        app.step(1 / 60)
        assert app.sound.requested.count("turn") == 1
        assert pygame.display.get_caption()[0] == app.ctx.tr("app.title")
        ours = dict(others, current=0, to_act=[0])
        net.inbox.append({"type": "view", "version": app.model.version + 1, "view": ours})
        app.step(1 / 60)
        assert app.sound.requested.count("turn") == 2
    finally:
        app.close()
