"""The table scene: it renders for a seat and a spectator, shows only what the
seat may know, sends exactly the legal action a click means, and nothing else."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pygame
import pytest

from client import dialogs
from client.board_view import LastMove
from client.canned import canned_model, model_from_state, play_until
from client.i18n import Translator
from client.model import ClientModel
from client.scene import Context
from client.table_scene import BUTTON_LABELS, TableScene
from protocol.rules import (
    BuildRoad,
    BuildSettlement,
    Phase,
    Settings,
    action_from_dict,
    new_game,
    to_act,
)

SIZE = (1280, 800)


def make_scene(ctx: Context, model: ClientModel, size: tuple[int, int] = SIZE) -> TableScene:
    ctx.model = model
    scene = TableScene(ctx)
    ctx.stack.push(scene)
    scene.resized(size)
    scene.update(0.0)
    return scene


def click(ctx: Context, pos: tuple[float, float], button: int = 1) -> None:
    p = (round(pos[0]), round(pos[1]))
    ctx.stack.handle(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(0, 0, 0)))
    ctx.stack.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=p, button=button))
    ctx.stack.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=p, button=button))
    ctx.stack.update(0.0)


def actions(sent: list[dict[str, Any]]) -> list[Any]:
    return [action_from_dict(m["action"]) for m in sent if m["type"] == "action"]


def frame(ctx: Context, surface: pygame.Surface) -> None:
    ctx.stack.update(1 / 60)
    ctx.stack.draw(surface)


# --- rendering --------------------------------------------------------------------------


def test_renders_for_a_seat_and_changes_nothing(ctx: Context, surface: pygame.Surface,
                                                sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    view_before = copy.deepcopy(model.view)
    changes = model.changes
    for _ in range(3):
        frame(ctx, surface)
    assert model.view == view_before and model.changes == changes
    assert sent == []
    # a frame is cheap: the board and the panels are cached, the mouse redraws neither
    builds = scene.chrome_builds
    for x in range(100, 800, 70):
        ctx.stack.handle(pygame.event.Event(pygame.MOUSEMOTION, pos=(x, 300), rel=(0, 0),
                                            buttons=(0, 0, 0)))
        frame(ctx, surface)
    assert scene.chrome_builds == builds and scene.board.static_builds == 1
    # news from the server redraws only what it changes
    model.apply({"type": "chat", "table": "canned", "seat": 1, "name": "Ben", "text": "hi"})
    regions = dict(scene.region_builds)
    frame(ctx, surface)
    changed = {k for k, v in scene.region_builds.items() if v != regions.get(k)}
    assert changed == {"chat"}
    seen = scene.ui.text.seen
    assert "Aiko (you)" in seen and "Ben" in seen
    # each seat's card count is on its panel
    for q in range(4):
        assert str(model.view["seats"][q]["cards"]) in seen
    # the screen is not blank: the board and panels differ from the background
    colours = {surface.get_at((x, y))[:3] for x in range(0, 1280, 37) for y in range(0, 800, 29)}
    assert len(colours) > 40


@pytest.mark.parametrize("size", [(1280, 800), (1024, 640), (1920, 1080), (900, 700)])
def test_window_sizes(ctx: Context, size: tuple[int, int]) -> None:
    scene = make_scene(ctx, canned_model(0), size)
    surf = pygame.Surface(size)
    frame(ctx, surf)
    lay = scene.board.layout
    assert lay is not None and surf.get_rect().contains(lay.rect)
    for name in ("road", "end", "roll", "trade", "bank"):
        assert surf.get_rect().contains(scene.buttons[name].rect), name
    # the board scales with the window
    if size == (1920, 1080):
        assert lay.size > 70


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("size", [(800, 500), (1024, 600), (1280, 800), (1920, 1080)])
def test_six_seats_fit_every_window(make_ctx: Any, size: tuple[int, int], lang: str) -> None:
    """Six players (R-56): the 30-hex board, six seat panels one under the other,
    the log and the chat all inside the window, in both languages; the seat
    building in a special building phase has the Pass button and the banner."""
    ctx = make_ctx(lang=lang)
    model = canned_model(0, players=6, lang=lang)
    scene = make_scene(ctx, model, size)
    surf = pygame.Surface(size)
    frame(ctx, surf)
    window = surf.get_rect()
    lay = scene.board.layout
    assert lay is not None and lay.geo.num_hexes == 30 and window.contains(lay.rect)
    assert all(lay.rect.collidepoint(p) for p in lay.node_xy)  # the whole island shows
    panels = [scene.rects[f"player{q}"] for q in range(6)]
    assert all(window.contains(r) for r in panels)
    assert all(a.bottom <= b.top for a, b in zip(panels, panels[1:], strict=False))
    for name in ("log", "chat"):
        r = scene.rects[name]
        assert window.contains(r) and r.h > 40 and r.top >= panels[-1].bottom, name
    for name in ("road", "end", "roll", "trade", "bank"):
        assert window.contains(scene.buttons[name].rect), name
    tr = Translator(lang)
    assert scene.buttons["end"].label == tr("table.btn.pass") and scene.buttons["end"].enabled
    assert scene.prompt == tr("table.prompt.special_build") and scene.prompt_mine


def test_a_six_seat_trade_panel_fits_a_small_window(make_ctx: Any) -> None:
    """An offer to five seats in an 800×500 window: the panel and its buttons
    stay in the window; it may cover the chat line, which then waits."""
    state, history = play_until(
        lambda s: s.phase == Phase.TRADE and s.trade is not None and 0 in s.trade.status
        and s.turn >= 10, players=6, seed=11, max_steps=1 << 30)
    assert state.trade is not None
    seat = state.trade.status.index(0)
    ctx = make_ctx()
    scene = make_scene(ctx, model_from_state(state, seat, history), (800, 500))
    surf = pygame.Surface((800, 500))
    frame(ctx, surf)
    panel = scene.trade_panel
    assert panel.visible and surf.get_rect().contains(panel.rect)
    shown = [b for b in panel.buttons.values() if b.visible]
    assert shown and all(panel.rect.contains(b.rect) for b in shown)
    assert scene._chat_covered() == panel.rect.colliderect(scene.chat.rect)


def test_spectator_sees_no_hand_and_no_buttons(ctx: Context, surface: pygame.Surface,
                                               sent: list[dict[str, Any]]) -> None:
    model = canned_model(None)
    assert model.view is not None and model.view["you"] is None and model.legal == []
    scene = make_scene(ctx, model)
    frame(ctx, surface)
    assert all(not b.visible for name, b in scene.buttons.items() if name != "leave")
    assert "You are watching this table" in scene.ui.text.seen
    for rect in scene.dev_rects.values():
        click(ctx, rect.center)
    click(ctx, scene.rects["board"].center)
    assert sent == []


def test_only_own_hand_is_known_and_shown(ctx: Context, surface: pygame.Surface) -> None:
    model = canned_model(1)  # Ben's seat: Aiko's, Chie's and Dan's hands are unknown
    view = model.view
    assert view is not None
    assert set(view["you"]) >= {"hand", "dev_cards"}
    for q, seat in enumerate(view["seats"]):
        assert set(seat) & {"hand", "dev_hand"} == set(), q
        assert isinstance(seat["cards"], int) and isinstance(seat["dev_cards"], int)
    # robberies between other seats arrive without the resource, and the log says so
    hidden = [e for e in model.events if e["type"] == "stolen" and e["count"]
              and 1 not in (e["thief"], e["victim"])]
    assert hidden and all(e["resource"] is None for e in hidden)
    bought = [e for e in model.events if e["type"] == "dev_card_bought" and e["seat"] != 1]
    assert bought and all(e["card"] is None for e in bought)
    scene = make_scene(ctx, model)
    frame(ctx, surface)
    log = [text for text, _ in scene._log_lines]
    assert any("steals a card from" in line for line in log)
    assert not any(line.startswith("Aiko buys a development card:") for line in log)


# --- clicks ------------------------------------------------------------------------------


def test_build_road_mode_sends_the_clicked_legal_edge(ctx: Context, surface: pygame.Surface,
                                                      sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    roads = [a.edge for a in model.legal if isinstance(a, BuildRoad)]
    assert roads
    scene = make_scene(ctx, model)
    lay = scene.board.layout
    assert lay is not None
    # without the build mode a click on the board does nothing
    click(ctx, lay.edge_xy[roads[0]])
    assert sent == []
    click(ctx, scene.buttons["road"].rect.center)
    assert scene.mode == "road"
    frame(ctx, surface)
    assert scene.highlights is not None and sorted(scene.highlights.edges) == sorted(roads)
    # an edge that is not legal: nothing
    other = next(e for e in range(72) if e not in roads)
    click(ctx, lay.edge_xy[other])
    assert sent == []
    click(ctx, lay.edge_xy[roads[-1]])
    assert actions(sent) == [BuildRoad(roads[-1])]
    assert scene.mode is None
    # a second click before the server answers sends nothing more
    click(ctx, scene.buttons["road"].rect.center)
    click(ctx, lay.edge_xy[roads[0]])
    assert len(sent) == 1


def test_right_click_leaves_the_build_mode(ctx: Context, sent: list[dict[str, Any]]) -> None:
    scene = make_scene(ctx, canned_model(0))
    click(ctx, scene.buttons["settlement"].rect.center)
    assert scene.mode == "settlement"
    click(ctx, scene.rects["board"].center, button=3)
    assert scene.mode is None
    assert sent == []


def test_setup_placement_is_a_click_on_the_board(ctx: Context,
                                                 sent: list[dict[str, Any]]) -> None:
    s = new_game(Settings(players=3), seed=5)
    seat = to_act(s)[0]
    model = model_from_state(s, seat)
    scene = make_scene(ctx, model)
    spots = [a.node for a in model.legal if isinstance(a, BuildSettlement)]
    assert len(spots) == 54
    assert scene.highlights is not None and len(scene.highlights.nodes) == 54
    lay = scene.board.layout
    assert lay is not None
    click(ctx, lay.node_xy[17])
    assert actions(sent) == [BuildSettlement(17)]


def test_setup_road_only_next_to_the_new_settlement(ctx: Context,
                                                    sent: list[dict[str, Any]]) -> None:
    s = new_game(Settings(players=3), seed=5)
    from protocol.rules import apply

    seat = to_act(s)[0]
    history = [apply(s, BuildSettlement(17), seat)]
    model = model_from_state(s, seat, history)
    scene = make_scene(ctx, model)
    legal = {a.edge for a in model.legal if isinstance(a, BuildRoad)}
    lay = scene.board.layout
    assert lay is not None
    far = next(e for e in range(72) if e not in legal)
    click(ctx, lay.edge_xy[far])
    assert sent == []
    edge = sorted(legal)[0]
    click(ctx, lay.edge_xy[edge])
    assert actions(sent) == [BuildRoad(edge)]


def test_robber_goes_where_clicked(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = play_until(lambda s: s.phase == Phase.MOVE_ROBBER)
    model = model_from_state(s, s.current, history)
    scene = make_scene(ctx, model)
    lay = scene.board.layout
    assert lay is not None
    click(ctx, lay.hex_xy[s.robber])  # where it stands: not a legal move
    assert sent == []
    target = (s.robber + 4) % 19
    click(ctx, lay.hex_xy[target])
    assert actions(sent)[0].name == "move_robber" and actions(sent)[0].hex == target


def test_buttons_are_disabled_when_not_legal(ctx: Context, sent: list[dict[str, Any]]) -> None:
    model = canned_model(2)  # seat 0's turn: seat 2 has nothing to decide
    assert model.legal == []
    scene = make_scene(ctx, model)
    # (Trade stays open to seat 2: it may propose a trade to the current player,
    # R-TRADE-2; tests/client/test_proposals.py covers it.)
    for name in ("roll", "end", "road", "settlement", "city", "buy", "bank"):
        assert not scene.buttons[name].enabled, name
        click(ctx, scene.buttons[name].rect.center)
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e"))
    assert sent == []
    assert "Aiko's turn" in scene.prompt


def test_end_turn_button_and_hotkey(ctx: Context, sent: list[dict[str, Any]]) -> None:
    scene = make_scene(ctx, canned_model(0))
    assert scene.buttons["end"].enabled and not scene.buttons["roll"].enabled
    click(ctx, scene.buttons["roll"].rect.center)
    assert sent == []
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e"))
    assert [a.name for a in actions(sent)] == ["end_turn"]


def test_one_decision_goes_out_once_until_the_server_answers_it(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    scene = make_scene(ctx, canned_model(0))
    m = ctx.model
    end = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e")
    ctx.stack.handle(end)
    assert len(sent) == 1 and scene.ui.pending()
    # Others acting meanwhile (as in a discard round: new events, a new version, the
    # same choices listed again because the server had not read ours yet) does not
    # end the wait: only the answer to this action does.
    legal = [a.to_dict() for a in m.legal]
    m.apply({"type": "events", "version": m.version + 1,
             "events": [{"type": "turn_ended", "seat": 1}]})
    m.apply({"type": "view", "version": m.version, "view": m.view})
    m.apply({"type": "legal", "version": m.version, "actions": legal})
    assert m.legal and scene.ui.pending()
    ctx.stack.handle(end)
    assert len(sent) == 1
    m.apply({"type": "result", "seq": 1, "ok": True})
    assert not scene.ui.pending()
    assert m.legal == []  # the old choices are stale until the server sends new ones
    ctx.stack.handle(end)
    assert len(sent) == 1


def test_chat_input(ctx: Context, surface: pygame.Surface, sent: list[dict[str, Any]]) -> None:
    scene = make_scene(ctx, canned_model(0))
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r"))
    assert scene.chat.focused
    ctx.stack.handle(pygame.event.Event(pygame.TEXTINPUT, text="gg! 開拓"))
    # typing keys go to the box, not to the shortcuts
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e"))
    frame(ctx, surface)
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r"))
    assert sent == [{"type": "chat", "text": "gg! 開拓"}]


def test_discard_opens_its_dialog(ctx: Context) -> None:
    s, history = play_until(lambda s: s.phase == Phase.DISCARD)
    seat = to_act(s)[0]
    make_scene(ctx, model_from_state(s, seat, history))
    ctx.stack.update(0.0)
    assert isinstance(ctx.stack.top, dialogs.DiscardDialog)


def test_game_over_shows_the_scores(ctx: Context, surface: pygame.Surface,
                                    sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    model.apply({"type": "game_over", "winner": 1, "scores": [7, 10, 6, 5]})
    frame(ctx, surface)
    top = ctx.stack.top
    assert isinstance(top, dialogs.GameOverDialog)
    assert "Ben wins!" in scene.ui.text.seen
    click(ctx, top.buttons["lobby"].rect.center)
    assert sent == [{"type": "leave"}]


# --- the screenshot and the benchmark ---------------------------------------------------------


def test_screenshot(tmp_path: Path) -> None:
    from client.screenshot import render_screenshot

    out = render_screenshot(tmp_path / "table.png", size=(1024, 640))
    img = pygame.image.load(str(out))
    assert img.get_size() == (1024, 640)


def test_the_verified_screenshot_is_a_committed_game_that_verifies(tmp_path: Path) -> None:
    from client.screenshot import render_screenshot, screenshot_model

    model = screenshot_model("verified")
    assert model.chance_verdict is not None and model.chance_verdict.ok
    assert model.chance_verdict.checked["dice"] == sum(model.dice) > 20
    out = render_screenshot(tmp_path / "verified.png", scene="verified")
    assert pygame.image.load(str(out)).get_size() == (1280, 800)


def test_frame_bench_reports() -> None:
    from client.bench import frame_bench

    result = frame_bench(frames=40, size=(1280, 800))
    for key in ("frames", "mean_ms", "p50_ms", "p99_ms", "fps_equiv", "static_cache_build_ms"):
        assert key in result
    assert result["frames"] == 40 and result["static_builds"] == 1
    assert result["mean_ms"] > 0


# --- the last move and the language ---------------------------------------------------------


def test_the_last_move_marker_follows_the_latest_build_event(ctx: Context,
                                                             surface: pygame.Surface) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    frame(ctx, surface)
    first = scene.last_move()
    assert first.piece is not None and first.rolled is not None
    builds = scene.region_builds.get("board", 0)
    frame(ctx, surface)
    assert scene.region_builds.get("board", 0) == builds  # nothing new: no redraw
    view = model.view
    assert view is not None
    taken = {b[0] for b in view["buildings"]}
    node = next(n for n in range(54) if n not in taken)
    model.apply({"type": "events", "version": model.version + 1, "events": [
        {"type": "settlement_built", "seat": 1, "node": node, "free": False}]})
    frame(ctx, surface)
    assert scene.last_move().piece == ("node", node)
    assert scene.last_move().rolled == first.rolled  # still the same turn
    assert scene.region_builds["board"] == builds + 1
    model.apply({"type": "events", "version": model.version + 1, "events": [
        {"type": "road_built", "seat": 1, "edge": 7, "free": False},
        {"type": "turn_ended", "seat": 0}, {"type": "turn_started", "seat": 1, "turn": 99}]})
    frame(ctx, surface)
    assert scene.last_move() == LastMove(("edge", 7), None)
    assert scene.board.static_builds == 1


def test_switching_the_language_relabels_the_table(make_ctx: Any, surface: pygame.Surface) -> None:
    ctx = make_ctx("en")
    scene = make_scene(ctx, canned_model(0))
    frame(ctx, surface)
    en = {name: b.label for name, b in scene.buttons.items()}
    en_prompt, en_log = scene.prompt, list(scene._log_lines)
    assert en["roll"] == Translator("en")("table.btn.roll")
    ctx.tr = Translator("ja")  # what App.set_lang does
    frame(ctx, surface)
    ja = Translator("ja")
    assert {name: b.label for name, b in scene.buttons.items()} == {
        name: ja(key) for name, key in BUTTON_LABELS.items()}
    assert all(en[name] != scene.buttons[name].label for name in ("roll", "end", "road"))
    assert scene.prompt != en_prompt and scene.prompt
    assert scene._log_lines != en_log and len(scene._log_lines) > 0


def test_f2_switches_the_language_through_the_app(ctx: Context, surface: pygame.Surface) -> None:
    langs: list[str] = []

    class FakeApp:
        def set_lang(self, lang: str) -> str:
            langs.append(lang)
            ctx.tr = Translator(lang)
            return lang

    ctx.options["app"] = FakeApp()
    scene = make_scene(ctx, canned_model(0))
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F2, mod=0, unicode=""))
    frame(ctx, surface)
    assert langs == ["ja"] and scene.buttons["leave"].label == Translator("ja")("table.btn.leave")


@pytest.mark.parametrize("size", [(800, 500), (1024, 600), (1280, 800), (1920, 1080)])
def test_the_big_buttons_cover_no_card(ctx: Context, size: tuple[int, int]) -> None:
    scene = make_scene(ctx, canned_model(0), size)
    cards = list(scene.hand_rects.values()) + list(scene.dev_rects.values())
    for name in ("roll", "end"):
        rect = scene.buttons[name].rect
        assert rect.w > 0 and not any(rect.colliderect(c) for c in cards), (name, size)
        assert scene.rects["bottom"].contains(rect)
