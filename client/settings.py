"""The window's own settings, kept between runs: sound on or off, its volume,
and the colour palette.

The file is ``$KAITAKU_CONFIG_DIR/settings.json``, else
``$XDG_CONFIG_HOME/kaitaku/settings.json``, else
``~/.config/kaitaku/settings.json``. What is read from it is checked like
anything else from outside: a missing, unreadable, oversized or corrupt file,
or a value of the wrong type or out of range, counts as the default for that
setting (and the next save writes a clean file). Unknown keys are ignored.
Writes are atomic (a temporary file in the same folder, then
:func:`os.replace`); a failed write is ignored (the settings still apply to
this run). Deleting the file is always safe.

No pygame here.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

FILE_NAME = "settings.json"
MAX_BYTES = 64 * 1024
"""A settings file larger than this is not read (it cannot be ours)."""
PALETTES = ("standard", "colorblind")
"""The seat colour palettes (:mod:`client.palette`)."""


def config_dir() -> Path:
    """The folder of the settings file (``KAITAKU_CONFIG_DIR`` overrides)."""
    override = os.environ.get("KAITAKU_CONFIG_DIR", "").strip()
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "kaitaku"


@dataclass(frozen=True)
class Settings:
    """The window's settings (every field has a safe default)."""

    muted: bool = False
    volume: float = 0.7  # 0.0 - 1.0
    palette: str = "standard"  # one of PALETTES

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def parse(data: object) -> Settings:
    """Settings from decoded JSON, each bad or missing value replaced by its default."""
    if not isinstance(data, dict):
        return Settings()
    default = Settings()
    muted = data.get("muted")
    volume = data.get("volume")
    palette = data.get("palette")
    return Settings(
        muted=muted if isinstance(muted, bool) else default.muted,
        volume=(float(volume) if isinstance(volume, int | float) and not isinstance(volume, bool)
                and math.isfinite(volume) and 0.0 <= volume <= 1.0 else default.volume),
        palette=palette if isinstance(palette, str) and palette in PALETTES
        else default.palette,
    )


class SettingsFile:
    """``load()`` and ``save(settings)`` of one settings file (default: in
    :func:`config_dir`, read when constructed)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else config_dir() / FILE_NAME

    def load(self) -> Settings:
        try:
            with self.path.open("rb") as f:
                raw = f.read(MAX_BYTES + 1)
        except OSError:
            return Settings()
        if len(raw) > MAX_BYTES:
            return Settings()
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return Settings()
        return parse(data)

    def save(self, settings: Settings) -> bool:
        """Write ``settings`` atomically; False when it could not be written."""
        data = {"version": 1, "muted": settings.muted, "volume": round(settings.volume, 3),
                "palette": settings.palette}
        tmp: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
            tmp = None
            return True
        except OSError:
            return False
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
