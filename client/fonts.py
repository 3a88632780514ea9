"""Fonts: a Japanese (CJK) font when the system has one, cached by size.

Japanese text needs a font with CJK glyphs, and pygame's default font has
none. :func:`find_cjk_font` looks for one: ``$KAITAKU_FONT``, then fontconfig
(``fc-list :lang=ja``, ``fc-match``), then well-known files on Linux, macOS
and Windows, then ``pygame.font.match_font``. The CJK font is used for every
language when found (player names may be Japanese in an English UI). When
Japanese is asked for but no CJK font exists, :class:`Fonts` falls back to
English and keeps a :attr:`Fonts.notice` for the UI to show.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pygame

#: families with Japanese glyphs, best first
CJK_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK JP", "Noto Sans JP", "Source Han Sans JP", "Source Han Sans",
    "IPAexGothic", "IPAGothic", "IPAPGothic", "Yu Gothic", "YuGothic", "Meiryo",
    "Hiragino Sans", "Hiragino Kaku Gothic ProN", "Hiragino Kaku Gothic Pro",
    "TakaoGothic", "TakaoPGothic", "VL Gothic", "VL PGothic", "MS Gothic",
    "Droid Sans Fallback", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR",
)

#: well-known font files (checked when fontconfig finds nothing)
KNOWN_PATHS: tuple[str, ...] = (
    # Debian/Ubuntu (fonts-noto-cjk, fonts-ipaexfont, fonts-ipafont, fonts-takao, fonts-vlgothic)
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJKjp-Regular.otf",
    "/usr/share/fonts/truetype/noto/NotoSansJP-Regular.ttf",
    "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf",
    "/usr/share/fonts/truetype/ipaexfont-gothic/ipaexg.ttf",
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/truetype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/truetype/takao-gothic/TakaoGothic.ttf",
    "/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    # Fedora/Arch
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/adobe-source-han-sans/SourceHanSans-Regular.ttc",
    # macOS
    "/System/Library/Fonts/ヒラギノ角ゴシック W3.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "/System/Library/Fonts/Supplemental/Hiragino Sans GB.ttc",
    "/Library/Fonts/Osaka.ttf",
    # Windows
    "C:/Windows/Fonts/YuGothM.ttc",
    "C:/Windows/Fonts/YuGothR.ttc",
    "C:/Windows/Fonts/meiryo.ttc",
    "C:/Windows/Fonts/msgothic.ttc",
)

#: Latin fonts tried when there is no CJK font (pygame's own font is the last resort)
LATIN_NAMES: tuple[str, ...] = ("dejavusans", "notosans", "liberationsans", "arial",
                                "helvetica", "freesans")

NO_CJK_NOTICE = ("No Japanese font was found (on Debian/Ubuntu: apt install fonts-noto-cjk; "
                 "or set KAITAKU_FONT=/path/to/font): showing English.")
SAMPLE = "開拓あア"  # kanji, hiragana, katakana


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=5,
                              check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def fontconfig_candidates() -> list[str]:
    """CJK font files fontconfig knows, best family first (empty without fc-list)."""
    if shutil.which("fc-list") is None:
        return []
    found: dict[str, tuple[int, int]] = {}  # path -> (best family rank, style rank)
    for line in _run(["fc-list", ":lang=ja", "file", "family", "style"]).splitlines():
        path, _, rest = line.partition(": ")
        path = path.rstrip(":")
        families, _, style = rest.partition(":style=")
        names = [f.strip() for f in families.split(",")]
        rank = min((CJK_FAMILIES.index(n) for n in names if n in CJK_FAMILIES),
                   default=len(CJK_FAMILIES))
        styles = style.split(",")
        style_rank = 0 if any(s in ("Regular", "Book", "Normal", "W3") for s in styles) else 1
        if path:
            old = found.get(path, (len(CJK_FAMILIES), 1))
            found[path] = (min(old[0], rank), min(old[1], style_rank))
    ranked = sorted(found, key=lambda p: (found[p], p))
    if not ranked and shutil.which("fc-match"):
        for family in CJK_FAMILIES[:6]:
            out = _run(["fc-match", "-f", "%{file}\n%{family}", f"{family}:lang=ja"])
            path, _, fam = out.partition("\n")
            if path and any(name.strip() == family for name in fam.split(",")):
                ranked.append(path)
    return ranked


def known_path_candidates(paths: Iterable[str] = KNOWN_PATHS) -> list[str]:
    out = [p for p in paths if Path(p).is_file()]
    windir = os.environ.get("WINDIR")
    if windir and sys.platform == "win32":
        for name in ("YuGothM.ttc", "YuGothR.ttc", "meiryo.ttc", "msgothic.ttc"):
            path = Path(windir) / "Fonts" / name
            if path.is_file():
                out.append(str(path))
    return out


def pygame_candidates() -> list[str]:
    out = []
    for family in CJK_FAMILIES:
        path = pygame.font.match_font(family.replace(" ", "").lower())
        if path:
            out.append(path)
    return out


def has_japanese(path: str) -> bool:
    """True if the font at ``path`` has glyphs for kanji and kana."""
    try:
        import pygame.freetype as freetype

        if not freetype.get_init():
            freetype.init()
        metrics = freetype.Font(path, 16).get_metrics(SAMPLE)  # None for a missing glyph
        return bool(metrics) and all(m is not None for m in metrics)
    except ImportError:
        pass
    except (OSError, pygame.error, ValueError):
        return False
    # without freetype: a missing glyph is drawn as the font's "missing glyph" box
    if not pygame.font.get_init():
        pygame.font.init()
    try:
        font = pygame.font.Font(path, 16)

        def image(ch: str) -> bytes:
            return bytes(pygame.image.tobytes(font.render(ch, False, (0, 0, 0)), "RGBA"))

        missing = image("\ufdd0")  # a noncharacter: never in a font
        return all(image(ch) != missing for ch in SAMPLE)
    except (OSError, pygame.error, ValueError):
        return False


def find_cjk_font() -> str | None:
    """The path of a font with Japanese glyphs, or None."""
    env = os.environ.get("KAITAKU_FONT")
    candidates: list[str] = [env] if env else []
    candidates += fontconfig_candidates()
    candidates += known_path_candidates()
    candidates += pygame_candidates()
    seen: set[str] = set()
    for path in candidates:
        if path in seen:
            continue
        seen.add(path)
        if Path(path).is_file() and has_japanese(path):
            return path
    return None


def find_latin_font() -> str | None:
    """A plain sans-serif for English when no CJK font exists (None: pygame's own)."""
    for name in LATIN_NAMES:
        path = pygame.font.match_font(name)
        if path:
            return str(path)
    return None


def _bold_variant(path: str | None) -> str | None:
    """``...-Regular.ttc`` → ``...-Bold.ttc`` (``DejaVuSans.ttf`` → ``DejaVuSans-Bold.ttf``)
    when that file exists."""
    if path is None:
        return None
    p = Path(path)
    names = [p.name.replace("Regular", "Bold"), f"{p.stem}-Bold{p.suffix}"]
    for name in names:
        candidate = p.with_name(name)
        if name != p.name and candidate.is_file():
            return str(candidate)
    return None


class Fonts:
    """``fonts.get(size, bold=False)`` (or ``fonts(size)``): a cached pygame font.

    ``lang`` is what the user asked for; :attr:`lang` is what can be shown
    (English when Japanese was asked for and no CJK font exists; then
    :attr:`notice` says why).
    """

    def __init__(self, lang: str = "en",
                 finder: Callable[[], str | None] = find_cjk_font) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.cjk_path = finder()
        self.path = self.cjk_path or find_latin_font()
        self.bold_path = _bold_variant(self.path)
        self.notice: str | None = None
        self.lang = "en"
        self._cache: dict[tuple[int, bool], pygame.font.Font] = {}
        self.set_lang(lang)

    def set_lang(self, lang: str) -> str:
        """Switch the language; return the one that can be shown."""
        if lang == "en" or self.cjk_path is not None:
            self.lang = lang
            self.notice = None
        else:
            self.lang = "en"
            self.notice = NO_CJK_NOTICE
        return self.lang

    @property
    def has_cjk(self) -> bool:
        return self.cjk_path is not None

    def get(self, size: int, bold: bool = False) -> pygame.font.Font:
        key = (max(1, int(size)), bool(bold))
        font = self._cache.get(key)
        if font is None:
            path = self.bold_path if bold and self.bold_path else self.path
            try:
                font = pygame.font.Font(path, key[0])
            except (OSError, pygame.error):
                font = pygame.font.Font(None, key[0])
            if bold and path is not self.bold_path:
                font.set_bold(True)  # no bold file: pygame emboldens
            self._cache[key] = font
        return font

    __call__ = get
