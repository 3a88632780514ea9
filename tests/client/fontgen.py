"""Small font files made for the font tests (fontTools' FontBuilder).

:func:`make_font` writes a TrueType font whose glyphs are plain boxes for the
characters given and nothing else: ``make_font(path, KANA_KANJI)`` is a CJK
font without Latin letters or digits, like Droid Sans Fallback.
"""

from __future__ import annotations

from pathlib import Path

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen

KANA_KANJI = "".join(chr(c) for c in range(0x3041, 0x3097)) + \
    "".join(chr(c) for c in range(0x30A1, 0x30FD)) + \
    "開拓資源街道日本語港次手番卓材料両方枚以上必要都市開拓地騎士力最長交易路大"
"""Hiragana, katakana (with ー) and the kanji the font checks and a few UI words use."""


def _box(width: int, inset: int) -> object:
    pen = TTGlyphPen(None)
    pen.moveTo((inset, 0))
    pen.lineTo((inset, 700))
    pen.lineTo((width - inset, 700))
    pen.lineTo((width - inset, 0))
    pen.closePath()
    return pen.glyph()


def make_font(path: Path, chars: str, family: str = "Kaitaku Test") -> Path:
    """Write a font with a glyph for each of ``chars`` (and only those) to ``path``."""
    chars = "".join(dict.fromkeys(chars))
    names = [".notdef", "space"] + [f"u{ord(c):04X}" for c in chars]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    cmap = {32: "space"} | {ord(c): f"u{ord(c):04X}" for c in chars}
    fb.setupCharacterMap(cmap)
    glyphs = {".notdef": _box(500, 50), "space": TTGlyphPen(None).glyph()}
    glyphs |= {f"u{ord(c):04X}": _box(1000, 80) for c in chars}
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({n: (1000 if n.startswith("u") else 500, 0) for n in names})
    fb.setupHorizontalHeader(ascent=880, descent=-120)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120)
    fb.setupPost()
    fb.save(str(path))
    return path
