"""Zooming and panning the island: the mouse wheel zooms around the cursor, a drag
pans, 0 resets; clicks hit the right spots at any zoom; the cached static layer
is drawn again on a zoom change only. The real App at the canned table."""

from __future__ import annotations

import math

import pygame
import pytest

from client.board_view import MAX_ZOOM
from client.table_scene import TableScene
from protocol.rules import BuildRoad, action_from_dict
from tests.client.test_evening import FakeNet, click, key, table_app


def scene_of(app: object) -> TableScene:
    scene = app.ctx.stack.scenes[0]  # type: ignore[attr-defined]
    assert isinstance(scene, TableScene)
    return scene


def wheel(pos: tuple[int, int], y: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0),
                                         buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=y, flipped=False))


def drag(start: tuple[int, int], end: tuple[int, int], button: int = 3) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=start, rel=(0, 0),
                                         buttons=(0, 0, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=button))
    for k in range(1, 6):
        p = (start[0] + (end[0] - start[0]) * k // 5, start[1] + (end[1] - start[1]) * k // 5)
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=(0, 0),
                                             buttons=(0, 0, 1)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=button))


def sent_actions(net: FakeNet) -> list[object]:
    return [action_from_dict(m["action"]) for m in net.sent  # type: ignore[arg-type]
            if m.get("type") == "action"]


def test_the_wheel_zooms_around_the_cursor_and_0_resets() -> None:
    app, net = table_app()
    try:
        scene = scene_of(app)
        lay = scene.board.layout
        assert lay is not None
        hex_id = 4
        at = (round(lay.hex_xy[hex_id][0]) + 7, round(lay.hex_xy[hex_id][1]) - 5)
        before = lay.hit_hex(at)
        assert before == hex_id
        wheel(at, 3)
        app.step(1 / 60)
        lay = scene.board.layout
        assert lay is not None
        assert math.isclose(scene.board.zoom, 1.25 ** 3, rel_tol=1e-3)
        assert lay.hit_hex(at) == hex_id  # the island grew around the cursor
        off = math.hypot(lay.hex_xy[hex_id][0] - at[0], lay.hex_xy[hex_id][1] - at[1])
        assert off > math.hypot(7, 5) * 1.5  # ...and is bigger
        for _ in range(10):
            wheel(at, 3)
        app.step(1 / 60)
        assert scene.board.zoom == MAX_ZOOM
        key(pygame.K_0)
        app.step(1 / 60)
        assert scene.board.zoom == 1.0 and scene.board.pan == (0.0, 0.0)
        wheel(at, -2)  # never smaller than the whole island
        app.step(1 / 60)
        assert scene.board.zoom == 1.0
    finally:
        app.close()


@pytest.mark.parametrize("players", [4, 6])
def test_a_click_after_zooming_and_panning_builds_where_it_points(players: int) -> None:
    """Also on the 30-hex board of six players, in the special building phase."""
    app, net = table_app(players=players)
    try:
        scene = scene_of(app)
        board = scene.rects["board"]
        wheel(board.center, 3)  # about 2x
        app.step(1 / 60)
        assert scene.board.zoom > 1.9
        drag((board.centerx + 60, board.centery + 40), (board.centerx - 90, board.centery - 70))
        app.step(1 / 60)
        assert scene.board.pan != (0.0, 0.0)
        click(scene.buttons["road"].rect.center)
        app.step(1 / 60)
        assert scene.mode == "road" and scene.highlights is not None
        lay = scene.board.layout
        assert lay is not None
        visible = [e for e in scene.highlights.edges
                   if board.inflate(-40, -40).collidepoint(lay.edge_xy[e])]
        assert visible, "no lit edge in view"
        edge = visible[len(visible) // 2]
        x, y = lay.edge_xy[edge]
        click((round(x), round(y)))
        app.step(1 / 60)
        assert sent_actions(net) == [BuildRoad(edge)]
    finally:
        app.close()


def test_a_drag_on_the_island_pans_and_a_right_click_still_cancels() -> None:
    app, net = table_app()
    try:
        scene = scene_of(app)
        board = scene.rects["board"]
        key(pygame.K_PLUS)
        key(pygame.K_PLUS)
        app.step(1 / 60)
        assert scene.board.zoom > 1.5
        pan = scene.board.pan
        drag((board.centerx, board.centery), (board.centerx + 50, board.centery + 30),
             button=1)  # beside any lit spot (none are lit)
        app.step(1 / 60)
        assert scene.board.pan == (max(0.0, pan[0] - 50), max(0.0, pan[1] - 30))
        assert sent_actions(net) == []
        click(scene.buttons["settlement"].rect.center)
        app.step(1 / 60)
        assert scene.mode == "settlement"
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=board.center, button=3))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=board.center, button=3))
        app.step(1 / 60)
        assert scene.mode is None
    finally:
        app.close()


def test_the_static_board_is_drawn_again_on_zoom_only() -> None:
    app, net = table_app()
    try:
        scene = scene_of(app)
        board = scene.rects["board"]
        builds = scene.board.static_builds
        wheel(board.center, 2)
        app.step(1 / 60)
        assert scene.board.static_builds == builds + 1
        for dx in (40, -30, 25):  # panning reuses it
            drag((board.centerx, board.centery), (board.centerx + dx, board.centery + dx))
            app.step(1 / 60)
        assert scene.board.static_builds == builds + 1
        static = scene.board._static
        assert static is not None
        assert static.get_width() >= round(board.w * scene.board.zoom) - 1
    finally:
        app.close()


def test_a_zoomed_island_stays_inside_its_place() -> None:
    """Pieces and lit spots of a zoomed island are not drawn over the top bar, the
    hand or the player panels."""
    app, net = table_app()
    try:
        scene = scene_of(app)
        click(scene.buttons["road"].rect.center)
        wheel(scene.rects["board"].center, 0)  # the mouse over the island, in both pictures
        app.step(1 / 60)
        app.draw(app.screen)
        shot = app.screen.copy()
        for _ in range(4):
            wheel(scene.rects["board"].center, 3)
        app.step(1 / 60)
        app.draw(app.screen)
        after = app.screen
        for name in ("top", "bottom", "right"):
            r = scene.rects[name].clip(pygame.Rect((0, 0), after.get_size()))
            # the regions outside the board look the same at any zoom
            assert pygame.image.tobytes(shot.subsurface(r), "RGB") == \
                pygame.image.tobytes(after.subsurface(r), "RGB"), name
    finally:
        app.close()
