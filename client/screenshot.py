"""``kaitaku client --screenshot FILE.png``: render a mid-game table headless.

The table comes from :mod:`client.canned` (a seeded game played by the
engine and heuristic bots up to a turn of seat 0), drawn by the real
:class:`~client.table_scene.TableScene` with the real fonts, and saved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pygame

from .canned import canned_model
from .i18n import Translator
from .scene import Context, SceneStack


def headless_display(size: tuple[int, int]) -> pygame.Surface:
    """A display surface without a screen (SDL's dummy driver unless one is set)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    return pygame.display.set_mode(size)


def make_context(model: Any, lang: str = "en",
                 sent: list[dict[str, Any]] | None = None) -> tuple[Context, str]:
    """A Context with the real fonts; returns it and the language actually shown
    (English when Japanese was asked for without a Japanese font)."""
    from .fonts import Fonts

    fonts = Fonts(lang)
    out = sent if sent is not None else []
    ctx = Context(model=model, tr=Translator(fonts.lang), font=fonts.get, send=out.append,
                  stack=SceneStack())
    return ctx, fonts.lang


def render_screenshot(path: str | os.PathLike[str], lang: str = "en",
                      size: tuple[int, int] = (1280, 800)) -> Path:
    """Draw the canned table at ``size`` and save it as a PNG at ``path``."""
    from .table_scene import TableScene

    screen = headless_display(size)
    model = canned_model(0, lang=lang)
    ctx, _shown = make_context(model, lang)
    scene = TableScene(ctx)
    ctx.stack.push(scene)
    scene.resized(size)
    # a build mode with its lit spots and the mouse over one, as a player would see it
    if scene.buttons["road"].enabled:
        scene.buttons["road"].on_click()
    scene.update(0.0)
    if scene.highlights is not None and scene.highlights.edges:
        lay = scene.board.layout
        assert lay is not None
        cx, cy = lay.fit.center  # the lit edge nearest the middle of the island
        edge = min(scene.highlights.edges,
                   key=lambda e: (lay.edge_xy[e][0] - cx) ** 2 + (lay.edge_xy[e][1] - cy) ** 2)
        x, y = lay.edge_xy[edge]
        scene.handle(pygame.event.Event(pygame.MOUSEMOTION, pos=(round(x), round(y)),
                                        rel=(0, 0), buttons=(0, 0, 0)))
    scene.pulse = 0.25
    ctx.stack.draw(screen)
    out = Path(path)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(screen, str(out))
    return out
