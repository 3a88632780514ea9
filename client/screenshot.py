"""``kaitaku client --screenshot FILE.png [--scene ...]``: render a scene headless.

The game comes from :mod:`client.canned` (seeded games played by the engine
and heuristic bots: up to a turn of seat 0, to an open trade offer, or to
the end), drawn by the real :class:`~client.table_scene.TableScene` (and its
game-over screen) with the real fonts, and saved.
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


SCENES = ("table", "stats", "trade", "colorblind", "verified")
"""What ``kaitaku client --screenshot`` can draw: the table in a build mode, the
end-of-game statistics, the trade panel answering an offer, the colour-blind
palette, the dice verified at the end of a game of committed chance."""

VERIFIED_SECRET = bytes(range(64))
"""The committed game of the ``verified`` screenshot (a fixed secret: the
same picture every time)."""


def screenshot_model(scene: str, lang: str = "en", players: int = 4) -> Any:
    """The model a screenshot shows (see :data:`SCENES`); ``players``: of the
    table scenes (5 or 6: seat 0 in a special building phase)."""
    from protocol.rules import Phase

    from .canned import CHAT, NAMES, model_from_state, play_until

    reveal = None
    if scene == "stats":
        state, history = play_until(lambda s: s.phase == Phase.GAME_OVER, seed=11,
                                    max_steps=1 << 30)
    elif scene == "verified":
        from protocol.rules.chance import Reveal, new_committed_game

        reveal = Reveal.new(VERIFIED_SECRET, bytes(range(16)))
        state, history = play_until(lambda s: s.phase == Phase.GAME_OVER, seed=11,
                                    max_steps=1 << 30, secret=reveal.secret)
    elif scene == "trade":
        def answering(s: Any) -> bool:  # one seat still to answer, others have, one yes
            t = s.trade
            if s.phase != Phase.TRADE or t is None or 0 not in t.status or s.turn < 20:
                return False
            asked = t.status.index(0)
            return (sum(1 for v in t.status if v > 0) >= 2 and any(v in (1, 3) for v in t.status)
                    and all(h >= n for h, n in zip(s.hands[asked], t.get, strict=True)))

        state, history = play_until(answering, seed=11, max_steps=1 << 30)
    else:
        return canned_model(0, lang=lang, players=players)
    seat = state.trade.status.index(0) if scene == "trade" and state.trade else 0
    m = model_from_state(state, seat, history, table="canned", session="canned",
                         kinds=["human" if q in (0, 1, seat) else "bot" for q in range(4)],
                         chance=None if reveal is None else reveal.announced(),
                         start=None if reveal is None
                         else new_committed_game(state.settings, reveal.secret))
    for q, text in CHAT.get(lang, CHAT["en"]):
        m.apply({"type": "chat", "table": "canned", "seat": q, "name": NAMES[q], "text": text})
    if state.phase == Phase.GAME_OVER:
        over = next(e for e in reversed(history[-1]) if e.name == "game_over")
        m.apply({"type": "game_over", "winner": over.to_dict()["winner"],
                 "scores": list(over.to_dict()["scores"]),
                 **({"chance": reveal.to_dict()} if reveal is not None else {})})
    return m


def render_screenshot(path: str | os.PathLike[str], lang: str = "en",
                      size: tuple[int, int] = (1280, 800), scene: str = "table",
                      players: int = 4) -> Path:
    """Draw ``scene`` (:data:`SCENES`) at ``size`` and save it as a PNG at ``path``."""
    from . import palette
    from .table_scene import TableScene

    if scene not in SCENES:
        raise ValueError(f"unknown screenshot {scene!r} (choose from {', '.join(SCENES)})")
    screen = headless_display(size)
    previous = palette.name()
    palette.use("colorblind" if scene == "colorblind" else "standard")
    try:
        model = screenshot_model(scene, lang, players)
        ctx, _shown = make_context(model, lang)
        ctx.options["size"] = size
        table = TableScene(ctx)
        ctx.stack.push(table)
        table.resized(size)
        if scene in ("table", "colorblind"):
            _build_mode(table)
        table.update(0.0)
        table.pulse = 0.25
        ctx.stack.update(0.0)
        if scene == "verified":
            from .dialogs import ChanceDialog

            ctx.stack.push(ChanceDialog(ctx, table.ui))
            ctx.stack.update(0.0)
        ctx.stack.draw(screen)
        out = Path(path)
        if out.parent and not out.parent.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(screen, str(out))
    finally:
        palette.use(previous)
    return out


def _build_mode(scene: Any) -> None:
    """A build mode with its lit spots and the mouse over one, as a player sees it."""
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
