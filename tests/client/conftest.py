"""Fixtures for the client tests: pygame without a screen, a scene context, a server.

``SDL_VIDEODRIVER=dummy`` (and a silent audio driver) are set before pygame
is imported, so every test runs headless. Fixtures:

- ``fonts``: a :class:`client.fonts.Fonts` (English; the CJK font when the
  system has one), shared by the session;
- ``surface``: a 1280×800 surface to draw on (a dummy display is set up so
  ``convert``/``convert_alpha`` work);
- ``sent``: the list that captures what ``ctx.send`` sends;
- ``ctx``: a :class:`client.scene.Context` with a fresh model, an English
  translator, ``fonts``, ``send=sent.append`` and ``options`` holding
  ``size``, ``surface``, ``sent`` and ``fonts``;
- ``make_ctx(lang="ja")``: the same for another language;
- ``state_dir`` (automatic): ``KAITAKU_STATE_DIR`` points at a fresh folder, and so
  do ``KAITAKU_DATA_DIR`` (``kaitaku play``'s kept game) and ``KAITAKU_CONFIG_DIR``
  (the window's settings);
- ``server``, ``bot_server`` (it starts ``kaitaku bot`` processes for bot seats) and
  ``connect``: a real server on a loopback port and raw clients
  to it (from ``tests/server/conftest.py``).
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import pygame  # noqa: E402
import pytest  # noqa: E402

from client.fonts import Fonts  # noqa: E402
from client.i18n import Translator  # noqa: E402
from client.model import ClientModel  # noqa: E402
from client.scene import Context  # noqa: E402
from tests.server.conftest import bot_server, connect, server  # noqa: E402, F401  (fixtures)

SIZE = (1280, 800)


@pytest.fixture(autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory,
              monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every test gets its own client state folder (never the real home)."""
    path = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("KAITAKU_STATE_DIR", str(path))
    monkeypatch.setenv("KAITAKU_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("KAITAKU_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    return path


@pytest.fixture(scope="session")
def fonts() -> Fonts:
    pygame.font.init()
    return Fonts("en")


@pytest.fixture
def surface() -> pygame.Surface:
    pygame.display.init()
    if pygame.display.get_surface() is None:
        pygame.display.set_mode(SIZE)
    return pygame.Surface(SIZE)


@pytest.fixture
def sent() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def make_ctx(surface: pygame.Surface, sent: list[dict[str, Any]],
             fonts: Fonts) -> Callable[..., Context]:
    def make(lang: str = "en") -> Context:
        return Context(model=ClientModel(), tr=Translator(lang), font=fonts.get,
                       send=sent.append,
                       options={"size": surface.get_size(), "surface": surface, "sent": sent,
                                "fonts": fonts})

    return make


@pytest.fixture
def ctx(make_ctx: Callable[..., Context]) -> Context:
    return make_ctx("en")
