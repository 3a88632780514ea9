"""The replay viewer: a finished game (from a league database or the game server's)
in the window, stepped, sought and played at any speed with every hand shown;
``kaitaku replay --window``, ``--server-db`` and ``--list``."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pygame
import pytest

from bots import GreedyBot, HeuristicBot
from bots.client import run_bot
from client import dialogs
from client.app import App
from client.canned import play_until
from client.replay import Replay, ReplayInfo
from client.replay_scene import SPEEDS, ReplayScene
from kaitaku.cli import main
from kaitaku.replay import ReplayError, load_server_game
from protocol.rules import GameLog, InvalidLog, Phase, replay
from server.app import Server
from tests.client.test_evening import click, key


def finished_log(players: int = 4, seed: int = 3) -> GameLog:
    state, _ = play_until(lambda s: s.phase == Phase.GAME_OVER, players=players, seed=seed,
                          max_steps=1 << 30)
    return GameLog.of(state)


def viewer(log: GameLog, lang: str = "en") -> tuple[App, ReplayScene]:
    names = ("Aiko", "heuristic-bot 2", "Chie", "Dan")[:log.settings.players]
    app = App(lang=lang, discover=False,
              replay=Replay(log, ReplayInfo("Friday", names, ("human", "bot", "human",
                                                              "human"))))
    app.step(1 / 60)
    scene = app.ctx.stack.scenes[0]
    assert isinstance(scene, ReplayScene)
    return app, scene


def test_any_step_is_the_engines_state_and_every_hand_shows() -> None:
    log = finished_log()
    r = Replay(log, ReplayInfo("", ("a", "b", "c", "d")))
    assert r.steps == len(log.steps)
    for step in (0, 1, 49, 50, 51, 333, r.steps - 1, r.steps):
        want = replay(log, step)
        assert r.state_at(step).to_dict(include_log=False) == want.to_dict(include_log=False), step
        hands = r.hands(r.state_at(step))
        assert [h["hand"] for h in hands] == [list(x) for x in want.hands]
    assert r.turn_starts()[0] == 0 and r.turn_at(r.steps) == r.final.turn


def test_a_log_that_does_not_replay_is_refused() -> None:
    log = finished_log()
    seat, action, outcome = log.steps[10]
    broken = GameLog(log.settings, log.seed, log.board, log.first_seat,
                     log.steps[:10] + ((1 - seat if seat else 1, action, outcome),)
                     + log.steps[11:])
    with pytest.raises(InvalidLog):
        Replay(broken, ReplayInfo("", ()))


def test_stepping_seeking_and_playing_in_the_window() -> None:
    log = finished_log()
    app, scene = viewer(log)
    try:
        m = app.model
        assert scene.shown == 0 and m.view is not None and m.seat is None
        assert pygame.display.get_caption()[0] == "Replay: Friday — Kaitaku"
        # a step on, a step back: the model is what a spectator was sent
        key(pygame.K_RIGHT)
        app.step(1 / 60)
        assert scene.shown == 1 and m.version == 1 and len(m.events) == len(scene.replay.events[0])
        key(pygame.K_LEFT)
        app.step(1 / 60)
        assert scene.shown == 0
        # seek with the slider: a click half way
        r = scene.slider
        click((r.x + r.w // 2, r.centery))
        app.step(1 / 60)
        half = scene.shown
        assert abs(half - scene.replay.steps // 2) <= 2
        state = replay(log, half)
        assert [h["hand"] for h in scene.hands] == [list(x) for x in state.hands]
        assert m.view["bank"] == list(state.bank)
        # every hand is drawn: each seat's count of its most-held resource is on screen
        app.draw(app.screen)
        for q in range(4):
            assert str(max(state.hands[q])) in scene.ui.text.seen
        # a turn on with Shift+Right: the next turn's first step
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT,
                                             mod=pygame.KMOD_SHIFT, unicode=""))
        app.step(1 / 60)
        assert scene.shown in scene.replay.turn_starts() and scene.shown > half
        # play at 16 steps a second for half a second of frames
        scene.speed = SPEEDS.index(16.0)
        start = scene.shown
        key(pygame.K_SPACE)
        app.step(1 / 60)
        assert scene.playing and scene.next_frame() is not None
        for _ in range(30):
            app.step(1 / 60)
        assert 6 <= scene.shown - start <= 10
        key(pygame.K_SPACE)  # pause: the window goes idle (no frames asked for)
        app.step(1 / 60)
        for _ in range(200):
            app.step(0.1)
        assert not scene.playing and not scene.animating and scene.next_frame() is None
        # the end: the final scores and statistics with every steal's resource
        key(pygame.K_END)
        app.step(1 / 60)
        assert scene.shown == scene.replay.steps and m.game_over is not None
        for _ in range(5):
            app.step(1 / 60)
        dlg = app.ctx.stack.top
        assert isinstance(dlg, dialogs.GameOverDialog) and "lobby" not in dlg.buttons
        stats = m.stats
        assert stats.complete
        events = [e for batch in scene.replay.events for e in batch]
        took = sum(1 for e in events if e["type"] == "stolen" and e["count"])
        assert sum(sum(s.stole_cards) for s in stats.seats) == took  # full information
        # Esc closes the viewer
        click(dlg.buttons["board"].rect.center)
        app.step(1 / 60)
        key(pygame.K_ESCAPE)
        app.step(1 / 60)
        assert not app.running
    finally:
        app.close()


def test_a_six_player_game_in_the_viewer() -> None:
    """A 5–6 player game (the 30-hex board): every step is the engine's, six
    hands show, and the end opens the statistics of six seats."""
    log = finished_log(players=6, seed=5)
    names = ("Aiko", "Ben", "Chie", "Dan", "Emi", "Finn")
    app = App(lang="en", discover=False, replay=Replay(log, ReplayInfo("Six", names)))
    try:
        app.step(1 / 60)
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, ReplayScene)
        r = scene.slider
        click((r.x + r.w // 2, r.centery))
        app.step(1 / 60)
        state = replay(log, scene.shown)
        assert [h["hand"] for h in scene.hands] == [list(x) for x in state.hands]
        app.draw(app.screen)
        assert scene.board.layout is not None and scene.board.layout.geo.num_hexes == 30
        key(pygame.K_END)
        for _ in range(6):
            app.step(1 / 60)
        assert app.model.game_over is not None and len(app.model.game_over["scores"]) == 6
        app.draw(app.screen)
    finally:
        app.close()


def test_the_viewer_in_japanese_and_its_buttons() -> None:
    app, scene = viewer(finished_log(players=3, seed=4), "ja")
    try:
        click(scene.controls["play"].rect.center)
        app.step(1 / 60)
        assert scene.playing
        click(scene.controls["play"].rect.center)
        click(scene.controls["next"].rect.center)
        click(scene.controls["next"].rect.center)
        app.step(1 / 60)
        assert not scene.playing and scene.shown >= 2
        click(scene.controls["last"].rect.center)
        app.step(1 / 60)
        assert scene.shown == scene.replay.steps
        app.step(1 / 60)
        over = app.ctx.stack.top
        assert isinstance(over, dialogs.GameOverDialog)  # the end: the scores
        click(over.buttons["board"].rect.center)
        app.step(1 / 60)
        click(scene.controls["first"].rect.center)
        click(scene.controls["faster"].rect.center)
        app.step(1 / 60)
        assert scene.shown == 0 and SPEEDS[scene.speed] == 4.0
        app.draw(app.screen)
        assert app.ctx.tr("replay.status", step=0, steps=scene.replay.steps, turn=0) in \
            scene.ui.text.seen
        assert "ボット2（普通）" in scene.ui.text.seen  # the server's bot, by its level
    finally:
        app.close()


async def server_game(db: Path) -> str:
    """A finished 2-player game on a real server keeping its database."""
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()
    try:
        first = asyncio.create_task(run_bot(HeuristicBot(1), "127.0.0.1", srv.port, name="Ann",
                                            create={"settings": {"players": 2,
                                                                 "vp_target": 5}}))
        end = time.monotonic() + 10
        while not srv.tables:
            assert time.monotonic() < end
            await asyncio.sleep(0.01)
        tid = next(iter(srv.tables))
        second = asyncio.create_task(run_bot(GreedyBot(2), "127.0.0.1", srv.port, name="Ben",
                                             table=tid))
        a, b = await asyncio.wait_for(asyncio.gather(first, second), 60)
        assert a.finished and b.finished
        return tid
    finally:
        await asyncio.wait_for(srv.close(), 15)


async def test_a_game_from_the_servers_database(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "kaitaku.db"
    tid = await server_game(db)
    log, names, kinds, title = load_server_game(str(db), tid)
    assert names == ["Ann", "Ben"] and replay(log).phase == Phase.GAME_OVER
    assert main(["replay", "--list", "--server-db", str(db)]) == 0
    assert tid in capsys.readouterr().out
    assert main(["replay", tid, "--server-db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"table {tid}") and "game over" in out
    # --window opens the viewer on it (the loop runs a few frames here)
    opened: list[Any] = []

    def run(self: App) -> int:
        opened.append(self.replay)
        for _ in range(3):
            self.step(1 / 60)
        self.close()
        return 0

    monkeypatch.setattr(App, "run", run)
    assert main(["replay", tid, "--server-db", str(db), "--window", "--lang", "en"]) == 0
    assert opened and opened[0].steps == len(log.steps)


async def test_a_damaged_or_unfinished_server_game_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "kaitaku.db"
    tid = await server_game(db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET action = ? WHERE table_id = ? AND version = 5",
                     (json.dumps({"type": "no_such_action"}), tid))
    with pytest.raises(ReplayError, match="cannot be read"):
        load_server_game(str(db), tid)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET action = ? WHERE table_id = ? AND version = 5",
                     (json.dumps({"type": "end_turn"}), tid))
    assert main(["replay", tid, "--server-db", str(db), "--window"]) == 2
    assert "does not replay" in capsys.readouterr().err
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tables SET status = 'playing' WHERE id = ?", (tid,))
    with pytest.raises(ReplayError, match="has not finished"):
        load_server_game(str(db), tid)
    assert main(["replay", "nope", "--server-db", str(db)]) == 2
    assert main(["replay", "1", "--server-db", str(tmp_path / "missing.db")]) == 2
    (tmp_path / "junk.db").write_bytes(b"not sqlite" * 100)
    assert main(["replay", "1", "--server-db", str(tmp_path / "junk.db")]) == 2
    assert "kaitaku replay:" in capsys.readouterr().err


def test_a_league_game_in_the_viewer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    assert main(["league", "--entry", "a=random", "--entry", "g=greedy", "--games", "2",
                 "--players", "2", "--workers", "1", "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["replay", "--list", "--db", db]) == 0
    listed = capsys.readouterr().out.splitlines()
    game = int(listed[0].split()[0])
    opened: list[Any] = []

    def run(self: App) -> int:
        opened.append(self.replay)
        self.step(1 / 60)
        self.close()
        return 0

    monkeypatch.setattr(App, "run", run)
    assert main(["replay", str(game), "--db", db, "--window"]) == 0
    assert opened and opened[0].info.names[0] in ("a", "g")
    assert main(["replay", "abc", "--db", db]) == 2


async def test_replay_finds_the_games_of_kaitaku_play(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``--server-db`` without a path reads kaitaku play's database too (it said
    "no database" after games played with kaitaku play), or says where they go."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("KAITAKU_DATA_DIR", str(tmp_path / "play"))
    assert main(["replay", "--list", "--server-db"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "xdg" / "kaitaku" / "kaitaku.db") in err
    assert str(tmp_path / "play" / "play.db") in err
    (tmp_path / "play").mkdir()
    tid = await server_game(tmp_path / "play" / "play.db")  # as kaitaku play keeps it
    assert main(["replay", "--list", "--server-db"]) == 0
    assert tid in capsys.readouterr().out
    assert main(["replay", tid, "--server-db"]) == 0
    assert capsys.readouterr().out.startswith(f"table {tid}")


def test_the_viewer_has_no_empty_chat_box() -> None:
    """A stored game keeps no chat: the log takes the chat's room (an empty chat box
    with a "Press Enter to chat" field was shown)."""
    for lang in ("en", "ja"):
        app, scene = viewer(finished_log(players=3, seed=4), lang)
        try:
            click(scene.controls["next"].rect.center)
            app.step(1 / 60)
            app.draw(app.screen)
            assert scene.rects["chat"].h == 0
            assert scene.rects["log"].bottom > scene.rects["right"].bottom - scene.ui.px(20)
            assert app.ctx.tr("table.chat_title") not in scene.ui.text.seen
            assert app.ctx.tr("table.chat_placeholder") not in scene.ui.text.seen
            key(pygame.K_RETURN)  # Enter opens no chat field
            app.step(1 / 60)
            assert not scene.chat.focused
        finally:
            app.close()
