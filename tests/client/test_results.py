"""The end of a game in the window: the statistics screen (from what the window
was sent), reopening it, and the rematch (same seats and settings, a new board)
on a LAN server and in ``kaitaku play``."""

from __future__ import annotations

import time
from collections.abc import Callable

from client import dialogs
from client.app import App
from client.canned import play_until
from client.rematch import rematch_request
from client.table_scene import TableScene
from protocol.rules import Phase
from protocol.wire.witness import ChanceWitness
from server.app import Server
from tests.client.test_evening import click, frames, table_app
from tests.client.test_full_game import ScriptedMouse, play_client_game


def over_dialog(app: App) -> dialogs.GameOverDialog:
    top = app.ctx.stack.top
    assert isinstance(top, dialogs.GameOverDialog), app.ctx.stack.scenes
    return top


async def test_the_results_show_statistics_of_the_whole_game(server: Server) -> None:
    async def after(app: App, mouse: ScriptedMouse) -> None:
        await frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.GameOverDialog),
                     timeout=8)
        dlg = over_dialog(app)
        app.step(1 / 60)
        stats = app.model.stats
        assert stats.complete and stats.final == app.model.game_over["scores"]
        assert sum(stats.dice) == sum(app.model.dice) > 0
        assert stats.seats[app.model.seat].produced_total > 0
        seen = dlg.ui.text.seen
        for key in ("table.stats.vp_title", "table.stats.cards_title",
                    "table.stats.produced", "table.stats.expected"):
            assert app.ctx.tr(key) in seen, key
        assert app.ctx.tr("table.stats.dice_title", n=sum(stats.dice)) in seen
        assert str(stats.seats[0].produced_total) in seen
        assert not any(app.ctx.tr("table.stats.missing_gap") in s for s in seen)
        # this window created the table: it may start a rematch (the bots that joined by
        # themselves are not the server's: their seats would be open)
        assert dlg.buttons["again"].label == app.ctx.tr("table.dlg.rematch")
        assert rematch_request(app.model, app.lobby.created)["bots"] == []
        # committed chance: the window checked the dice itself, and says how
        assert app.model.chance_verdict is not None and app.model.chance_verdict.ok
        assert app.model.chance_verdict.checked["dice"] == sum(stats.dice)
        assert dlg.buttons["dice"].label == app.ctx.tr("table.chance.verified")
        click(dlg.buttons["dice"].rect.center)
        await frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.ChanceDialog))
        how = app.ctx.stack.top
        assert isinstance(how, dialogs.ChanceDialog)
        app.step(1 / 60)
        assert how.title() == app.ctx.tr("table.chance.title_ok")
        said = " ".join(how.ui.text.seen)
        assert app.model.announced is not None and app.model.announced[:16] in said
        click(how.buttons["close"].rect.center)
        await frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.GameOverDialog))
        # View board, then the Results button opens them again
        click(dlg.buttons["board"].rect.center)
        await frames(app, lambda: isinstance(app.ctx.stack.top, TableScene))
        table = app.ctx.stack.top
        assert isinstance(table, TableScene) and table.buttons["results"].visible
        click(table.buttons["results"].rect.center)
        await frames(app, lambda: isinstance(app.ctx.stack.top, dialogs.GameOverDialog))

    await play_client_game(server, players=4, vp_target=4, seed=6, timeout=60, after=after)


def test_a_window_that_joined_late_says_the_statistics_are_partial() -> None:
    state, history = play_until(lambda s: s.phase == Phase.GAME_OVER, seed=3,
                                max_steps=1 << 30)
    app, net = table_app()
    try:
        app.model.stats.reset()
        for i, batch in enumerate(history[200:], start=201):  # what a late joiner saw
            app.model.stats.feed(i, [e.to_dict() for e in batch], players=4)
        net.inbox.append({"type": "game_over", "winner": 1, "scores": [5, 10, 6, 7]})
        for _ in range(3):
            app.step(1 / 60)
        dlg = over_dialog(app)
        first = app.model.stats.vp_series[0][0]
        assert app.ctx.tr("table.stats.missing_start", turn=first) in " ".join(
            dlg.ui.text.seen)  # (wrapped over lines: its words are on screen)
    finally:
        app.close()


def test_the_rematch_request_keeps_settings_and_the_servers_bots() -> None:
    app, net = table_app()
    try:
        m = app.model
        m.settings = {"players": 4, "vp_target": 12, "balanced_map": True}
        m.table_seats = [{"name": "Aiko", "kind": "human"},
                         {"name": "Ben", "kind": "human"},
                         {"name": "heuristic-bot 3", "kind": "bot"},
                         {"name": "mybot", "kind": "bot"}]  # joined by itself: left open
        spec = rematch_request(m, {"name": "Friday", "turn_timer": 60, "bots": ["greedy"]})
        assert spec == {"settings": {"players": 4, "vp_target": 12, "balanced_map": True},
                        "bots": ["heuristic"], "name": "Friday", "turn_timer": 60}
        assert rematch_request(type(m)()) is None  # no table
    finally:
        app.close()


def wait(app: App, until: Callable[[], bool], timeout: float = 30.0,
         mouse: ScriptedMouse | None = None) -> None:
    end = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < end, (app.ctx.stack.scenes, app.model.table_status)
        app.step(1 / 60)
        if mouse is not None:
            mouse.tick()
        time.sleep(0.002)


async def test_the_creator_of_a_lan_table_gets_a_rematch(bot_server: Server) -> None:
    """On a server, the window that created the table may start a rematch: a new
    table with the same settings and the same server bots (others can join it)."""
    import asyncio

    app = App(connect=f"127.0.0.1:{bot_server.port}", name="Host", discover=False,
              create={"settings": {"players": 3, "vp_target": 3},
                      "bots": ["greedy", "random"], "name": "Friday"})
    try:
        mouse = ScriptedMouse(app, 2)
        end = time.monotonic() + 60
        while app.model.game_over is None:
            assert time.monotonic() < end, app.model.table_status
            app.step(1 / 60)
            mouse.tick()
            await asyncio.sleep(0.002)
        first = app.model.table
        settings = dict(app.model.settings or {})
        while not isinstance(app.ctx.stack.top, dialogs.GameOverDialog):
            app.step(0.1)
            await asyncio.sleep(0.002)
        dlg = over_dialog(app)
        assert dlg.buttons["again"].label == app.ctx.tr("table.dlg.rematch")
        click(dlg.buttons["again"].rect.center)
        end = time.monotonic() + 30
        while not (app.model.table not in (None, first) and app.model.view is not None
                   and app.model.game_over is None):
            assert time.monotonic() < end, (app.model.table, app.model.table_status)
            app.step(1 / 60)
            await asyncio.sleep(0.005)
        assert app.model.settings == settings
        names = [s["name"] for s in app.model.table_seats]
        assert [s["kind"] for s in app.model.table_seats] == ["human", "bot", "bot"]
        assert names[1:] == ["Bot 2 (Easy)", "Bot 3 (Random)"]
        assert bot_server.tables[app.model.table].name == "Friday"
        assert isinstance(app.ctx.stack.scenes[0], TableScene)
    finally:
        app.close()


def test_play_again_keeps_the_finished_games_settings() -> None:
    """``kaitaku play``'s Play again: the finished table's settings and bots, even when
    the command that continued it was given others."""
    from kaitaku.play import PlayHooks

    class Local:
        storage_error = None

    hooks = PlayHooks(Local(), None, {"settings": {"players": 4, "vp_target": 10},  # type: ignore[arg-type]
                                      "bots": ["heuristic"] * 3, "turn_timer": 0,
                                      "player": "Aiko"})
    fresh = hooks.new_game("en")
    assert fresh["settings"] == {"players": 4, "vp_target": 10} and len(fresh["bots"]) == 3
    again = hooks.new_game("ja", like={"settings": {"players": 3, "vp_target": 7},
                                       "bots": ["search", "greedy"]})
    assert again["settings"] == {"players": 3, "vp_target": 7}
    assert again["bots"] == ["search", "greedy"] and again["name"].startswith("Aiko")
    short = hooks.new_game("en", like={"settings": {"players": 4}, "bots": ["search"]})
    assert short["bots"] == ["search"] * 3  # the window's seat plus three bots


def _reveal_game(announced: str, chance: dict[str, str], lang: str = "en") -> App:
    """The canned table told that its game started with ``announced`` and ended
    with ``chance``: the window as it then stands (the game-over screen)."""
    app, net = table_app(lang)
    app.model.game_over = None
    app.model.chance = ChanceWitness()
    net.inbox += [{"type": "game_started", "table": app.model.table,
                   "chance": {"scheme": "kaitaku-chance/1", "commitment": announced}},
                  {"type": "game_over", "winner": 1, "scores": [5, 10, 6, 7],
                   "chance": chance}]
    for _ in range(3):
        app.step(1 / 60)
    return app


def test_a_reveal_that_does_not_match_the_commitment_is_called_out() -> None:
    from protocol.rules.chance import Reveal

    reveal = Reveal.new(bytes(range(64)), bytes(16))
    for lang in ("en", "ja"):
        app = _reveal_game("ab" * 32, reveal.to_dict(), lang)
        try:
            verdict = app.model.chance_verdict
            assert verdict is not None and not verdict.ok
            assert "does not match the commitment" in verdict.message
            dlg = over_dialog(app)
            assert dlg.buttons["dice"].label == app.ctx.tr("table.chance.failed")
            click(dlg.buttons["dice"].rect.center)
            for _ in range(3):
                app.step(1 / 60)
            how = app.ctx.stack.top
            assert isinstance(how, dialogs.ChanceDialog)
            assert how.title() == app.ctx.tr("table.chance.title_bad")
            assert any(app.ctx.tr("table.chance.bad", why=verdict.message)[:20] in s
                       for s in how.ui.text.seen)
        finally:
            app.close()
    # a secret whose hash is the commitment, but a forged one (not the salt's)
    forged = {**reveal.to_dict(), "commitment": reveal.commitment}
    forged["secret"] = bytes(64).hex()
    app = _reveal_game(reveal.commitment, forged)
    try:
        assert app.model.chance_verdict is not None and not app.model.chance_verdict.ok
    finally:
        app.close()


def test_a_duplicate_set_game_says_its_dice_are_revealed_later() -> None:
    app = _reveal_game("cd" * 32, {"scheme": "kaitaku-chance/1", "commitment": "cd" * 32})
    try:
        assert app.model.chance_pending and app.model.chance_verdict is None
        assert over_dialog(app).buttons["dice"].label == app.ctx.tr("table.chance.pending")
    finally:
        app.close()
