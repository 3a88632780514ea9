"""UI text from message catalogs (Japanese and English).

Catalogs are JSON objects in ``client/locale/<lang>/*.json`` (all files of a
language are merged, so each part of the client keeps its own file). Keys are
dotted (``lobby.connect``); values may hold ``{name}`` placeholders filled by
:meth:`Translator.tr`. A key missing from a catalog falls back to English,
then to the key itself, so a missing string is visible but never fatal.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("ja", "en")
_LOCALE = Path(__file__).parent / "locale"


@cache
def catalog(lang: str) -> dict[str, str]:
    """All strings of ``lang`` (merged from its files)."""
    merged: dict[str, str] = {}
    folder = _LOCALE / lang
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise ValueError(f"{path}: key {key!r} is defined twice in {lang!r}")
            merged[key] = value
    return merged


class Translator:
    """``tr(key, **fields)`` in one language, falling back to English."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGS)})")
        self.lang = lang
        self._strings = catalog(lang)
        self._fallback = catalog("en")

    def tr(self, key: str, **fields: Any) -> str:
        text = self._strings.get(key)
        if text is None:
            text = self._fallback.get(key, key)
        if fields:
            try:
                return text.format(**fields)
            except (KeyError, IndexError, ValueError):
                return text
        return text

    def has(self, key: str) -> bool:
        """True if ``key`` has a text (in this language or in English)."""
        return key in self._strings or key in self._fallback

    __call__ = tr
