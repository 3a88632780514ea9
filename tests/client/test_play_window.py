"""``kaitaku play``'s window: the game is kept in the local server's database, closing
the window asks first, the next start (and the lobby) offers to continue, a finished
game is not offered, and "Play again" starts a new one. The real App, the real local
server (its bots are real ``kaitaku bot`` processes), posted mouse and key events."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client import dialogs
from client.app import App
from client.state_file import StateFile
from client.table_scene import TableScene
from kaitaku.play import SEAT_KEY, LocalServer, PlayHooks, play_dir
from tests.client.test_full_game import ScriptedMouse

SETTINGS = {"players": 3, "vp_target": 3}


def click(pos: tuple[int, int]) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0),
                                         buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))


def frames(app: App, until: Callable[[], bool], timeout: float = 20.0,
           mouse: ScriptedMouse | None = None) -> None:
    end = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < end, (f"timed out: {app.ctx.stack.scenes} "
                                        f"{app.model.connection} {app.model.table_status}")
        app.step(1 / 60)
        if mouse is not None:
            mouse.tick()
        time.sleep(0.003)


class Session:
    """One ``kaitaku play``: a local server on the kept database, and its window."""

    def __init__(self, seed: int = 4) -> None:
        folder = play_dir()
        self.local = LocalServer(db=folder / "play.db", seed=seed)
        self.local.start()
        self.hooks = PlayHooks(self.local, StateFile(folder / "play-seat.json"),
                               {"settings": dict(SETTINGS), "bots": ["greedy", "greedy"],
                                "turn_timer": 0, "player": "Aiko"})
        last = self.hooks.last_game()
        self.hooks.keep_only(last["table"] if last else None)
        self.app = App(connect=f"127.0.0.1:{self.local.port}", name="Aiko", lang="en",
                       discover=False, play=self.hooks)

    def close(self) -> None:
        self.app.close()
        self.local.stop()


@pytest.fixture
def sessions() -> Iterator[Callable[..., Session]]:
    made: list[Session] = []

    def make(**kw: Any) -> Session:
        s = Session(**kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def in_game(app: App) -> bool:
    return isinstance(app.ctx.stack.scenes[0], TableScene) and app.model.view is not None


def test_the_game_is_kept_closing_asks_and_the_next_start_continues_it(
        sessions: Callable[..., Session]) -> None:
    first = sessions()
    app = first.app
    frames(app, lambda: in_game(app))
    table, seat = app.model.table, app.model.seat
    assert app.model.table_status == "playing"
    assert app.model.table_seats[1]["kind"] == "bot"
    scene = app.ctx.stack.scenes[0]
    assert isinstance(scene, TableScene)
    assert scene.ui.seat_name(1) == "Bot 2 (Easy)"  # a level, not "greedy-bot 2"
    mouse = ScriptedMouse(app, 3)
    frames(app, lambda: app.model.view is not None and app.model.view["phase"] == "main"
           or app.model.version > 12, mouse=mouse)
    version = app.model.version
    # the window's close button asks first; "Keep playing" keeps the window
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.ConfirmQuitDialog))
    assert app.running
    quit_dialog = app.ctx.stack.top
    assert isinstance(quit_dialog, dialogs.ConfirmQuitDialog) and quit_dialog.saved
    click(quit_dialog.buttons["stay"].rect.center)
    frames(app, lambda: isinstance(app.ctx.stack.top, TableScene))
    assert app.running
    # asked again, "Quit" quits
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.ConfirmQuitDialog))
    click(app.ctx.stack.top.buttons["quit"].rect.center)
    frames(app, lambda: not app.running)
    first.close()
    assert (play_dir() / "play.db").is_file()

    # the next kaitaku play offers the kept game in the lobby
    second = sessions()
    app = second.app
    assert app.offer is not None and app.offer["table"] == table
    frames(app, lambda: app.lobby.mode == "lobby")
    app.step(1 / 60)
    assert app.ctx.stack.scenes == [app.lobby]  # no new table was made
    button = app.lobby.continue_button
    click(button.rect.center)
    frames(app, lambda: in_game(app) and app.model.version >= version)
    assert app.model.table == table and app.model.seat == seat
    # the restarted server sent the game's history: the log, the dice counts
    # and the statistics cover the whole game, not only what follows
    assert app.model.stats.complete
    assert app.model.events[0]["type"] == "settlement_built"
    rolls = [e for e in app.model.events if e["type"] == "dice_rolled"]
    assert sum(app.model.dice) == len(rolls) > 0

    # leaving the running game keeps it too: the lobby offers it again
    app.leave_table()
    frames(app, lambda: app.ctx.stack.scenes == [app.lobby] and app.lobby.mode == "lobby")
    assert app.offer is not None and app.offer["table"] == table
    click(app.lobby.continue_button.rect.center)
    frames(app, lambda: in_game(app) and app.model.table == table)

    # played to the end: nothing is offered any more; "Play again" starts a new game
    mouse = ScriptedMouse(app, 5)
    frames(app, lambda: app.model.game_over is not None, timeout=60, mouse=mouse)
    frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.GameOverDialog))
    assert second.hooks.last_game() is None
    over = app.ctx.stack.top
    assert isinstance(over, dialogs.GameOverDialog)
    click(over.buttons["again"].rect.center)
    frames(app, lambda: in_game(app) and app.model.table not in (None, table)
           and app.model.game_over is None)
    new_table = app.model.table
    assert [s["kind"] for s in app.model.table_seats] == ["human", "bot", "bot"]
    second.close()

    third = sessions()
    assert third.app.offer is not None and third.app.offer["table"] == new_table


def test_a_new_game_gives_up_the_kept_one(sessions: Callable[..., Session]) -> None:
    first = sessions()
    app = first.app
    frames(app, lambda: in_game(app))
    table = app.model.table
    app.running = False
    first.close()
    second = sessions()
    app = second.app
    assert app.offer is not None
    frames(app, lambda: app.lobby.mode == "lobby")
    click(app.lobby.new_game_button.rect.center)
    frames(app, lambda: in_game(app) and app.model.table != table)
    assert second.hooks.last_game() is not None
    assert table not in second.local.server.tables  # given up, not left running
    second.close()
    third = sessions()
    assert third.app.offer is not None and third.app.offer["table"] == app.model.table


def test_a_broken_database_still_plays_and_says_so(tmp_path: Path,
                                                   sessions: Callable[..., Session]) -> None:
    play_dir().mkdir(parents=True, exist_ok=True)
    (play_dir() / "play.db").write_bytes(b"this is not a database" * 100)
    s = sessions()
    assert s.local.storage_error
    frames(s.app, lambda: in_game(s.app))
    assert any(t.text.startswith("Games are not kept this time") for t in s.app.toasts)
    assert (play_dir() / "play.db").read_bytes().startswith(b"this is not")  # left alone
    assert s.hooks.key == SEAT_KEY


def key(k: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=""))


def test_a_window_that_comes_back_gets_the_chat_back(sessions: Callable[..., Session]) -> None:
    """Closing kaitaku play stops its server; the next one restores the table from
    the database, and now its chat lines too (they were lost)."""
    first = sessions()
    app = first.app
    frames(app, lambda: in_game(app))
    table = app.model.table
    key(pygame.K_RETURN)
    app.step(1 / 60)
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="よろしく / good luck"))
    key(pygame.K_RETURN)
    frames(app, lambda: any(m.get("text") == "よろしく / good luck" for m in app.model.chat))
    first.close()

    second = sessions()
    app = second.app
    frames(app, lambda: app.lobby.mode == "lobby")
    app.step(1 / 60)
    click(app.lobby.continue_button.rect.center)
    frames(app, lambda: in_game(app) and app.model.table == table)
    frames(app, lambda: bool(app.model.chat))
    line = app.model.chat[-1]
    assert line["text"] == "よろしく / good luck" and line["name"] == "Aiko"
    assert line["seat"] == app.model.seat
    scene = app.ctx.stack.scenes[0]
    assert isinstance(scene, TableScene)
    app.draw(app.screen)
    assert any("good luck" in text for text, _, _ in scene._chat_lines)


def test_a_solo_player_gets_a_simple_continue_or_new_screen(
        sessions: Callable[..., Session]) -> None:
    """kaitaku play with a kept game: its own screen (continue or a new game), the
    kept game's line clear of the Continue button; the LAN lobby on request, the
    line clear of the button there too (it was covered, ja and en)."""
    first = sessions()
    frames(first.app, lambda: in_game(first.app))
    table = first.app.model.table
    first.close()
    second = sessions()
    app = second.app
    frames(app, lambda: app.lobby.mode == "lobby")
    lobby = app.lobby
    for lang in ("en", "ja"):
        app.set_lang(lang)
        app.step(1 / 60)
        app.draw(app.screen)
        assert lobby.solo_screen()
        assert app.offer is not None
        assert lobby._play_text() == app.ctx.tr("play.kept", turn=app.offer.get("turn", 0),
                                                bots=2)
        assert lobby.play_text_rect.h > 0
        assert not lobby.play_text_rect.colliderect(lobby.continue_button.rect)
        assert lobby.continue_button.rect.bottom <= lobby.new_game_button.rect.top
        assert lobby.table_list not in lobby._widgets("lobby")  # no LAN lobby here
    click(lobby.show_lobby_button.rect.center)
    frames(app, lambda: not lobby.solo_screen())
    for lang in ("en", "ja"):
        app.set_lang(lang)
        app.step(1 / 60)
        app.draw(app.screen)
        assert lobby.play_text_rect.h > 0
        assert not lobby.play_text_rect.colliderect(lobby.continue_button.rect), lang
    click(lobby.continue_button.rect.center)
    frames(app, lambda: in_game(app) and app.model.table == table)
