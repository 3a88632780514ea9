"""Fonts: one font for every text of the window, Japanese and Latin alike.

Japanese text needs a font with CJK glyphs, and pygame's default font has
none. :func:`choose_font` looks for one that also covers Latin letters,
digits and the symbols the UI draws (:data:`LATIN_SAMPLE`,
:data:`UI_SYMBOLS`): some CJK fonts have none of those (Droid Sans Fallback,
which ghostscript, ImageMagick and CUPS pull in, draws every letter as an
empty box). It tries ``$KAITAKU_FONT``, then the system's fonts (fontconfig's
``fc-list :lang=ja``, well-known files on Linux, macOS and Windows,
``pygame.font.match_font``), then the font the client ships with: Noto Sans
CJK JP from the ``noto-cjk-sans-jp-regular`` package (SIL Open Font License
1.1), read from its installed files. A system font wins when it covers
everything; nothing is downloaded.

Font files are checked like any input from outside: a missing, unreadable,
oversized or broken file, or one without the glyphs, is passed over (and
when ``$KAITAKU_FONT`` names it, :attr:`Fonts.problems` says why). The
chosen font is used for every language (player names may be Japanese in an
English UI). Without any Japanese font, :class:`Fonts` falls back to English
and keeps a :attr:`Fonts.notice` for the UI to show.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygame

from protocol.wire.text import clean_text

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
JAPANESE_SAMPLE = "開拓資源街道あアー"
"""Kanji, hiragana, katakana and the long vowel mark: a font must have them all."""
LATIN_SAMPLE = "AZaz09?!%+()/:"
"""Latin letters, digits and plain punctuation (numbers, names, English)."""
UI_SYMBOLS = "·×–—…→⇄−▶◀▼●“”§✓"
"""The symbols the UI draws besides letters and digits (arrows, the minus sign of
the steppers, the ellipsis of cut texts, ...)."""
MAX_FONT_BYTES = 64 << 20
"""Bigger files are not taken as fonts (the largest CJK collections are ~25 MB)."""
BUNDLED_FONT = ("noto_cjk_sans_jp_regular", "NotoSansCJKjp-Regular.otf")
"""The package and file of the font the client ships with (the ``client`` extra)."""

_keep_open = contextlib.ExitStack()  # a bundled font extracted from a zip stays on disk


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=5,
                              check=False).stdout
    except (OSError, subprocess.SubprocessError, ValueError):
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
        try:
            path = pygame.font.match_font(family.replace(" ", "").lower())
        except Exception:  # pygame's font scan runs fc-list or reads the registry
            path = None
        if path:
            out.append(str(path))
    return out


def bundled_font() -> str | None:
    """The path of the font the client ships with (None: the package is missing)."""
    package, name = BUNDLED_FONT
    try:
        from importlib.resources import as_file, files

        resource = files(package).joinpath(name)
        if not resource.is_file():
            return None
        path = Path(str(resource))
        if not path.is_file():  # installed inside a zip: a temporary copy for this run
            path = _keep_open.enter_context(as_file(resource))
        return str(path)
    except (ImportError, OSError, TypeError, ValueError):
        return None


def file_problem(path: str) -> str | None:
    """Why ``path`` cannot be a font file (None: it may be one)."""
    try:
        p = Path(path)
        if not p.is_file():
            return "no such file"
        size = p.stat().st_size
    except OSError as exc:  # a path too long, no permission, ...
        return f"unreadable ({exc.strerror or type(exc).__name__})"
    except ValueError:  # a NUL in the name
        return "not a valid file name"
    if size == 0:
        return "empty file"
    if size > MAX_FONT_BYTES:
        return f"too large for a font ({size >> 20} MB)"
    return None


def missing_glyphs(path: str, text: str) -> str | None:
    """The characters of ``text`` the font at ``path`` has no glyph for ("" when it
    has them all), or None when the file is not a font pygame can draw with."""
    if file_problem(path) is not None:
        return None
    missing: str | None = None
    try:
        import pygame.freetype as freetype

        if not freetype.get_init():
            freetype.init()
        metrics = freetype.Font(path, 16).get_metrics(text)  # None for a missing glyph
        if metrics is None or len(metrics) != len(text):
            return None
        missing = "".join(ch for ch, m in zip(text, metrics, strict=True) if m is None)
    except ImportError:
        pass
    except Exception:  # a broken file: FreeType refuses it in many ways
        return None
    # the renderer the window uses must take it too (and without freetype, a
    # missing glyph is drawn as the font's "missing glyph" box)
    try:
        if not pygame.font.get_init():
            pygame.font.init()
        font = pygame.font.Font(path, 16)
        if font.size("Ag")[0] <= 0:
            return None

        def image(ch: str) -> bytes:
            return bytes(pygame.image.tobytes(font.render(ch, True, (0, 0, 0)), "RGBA"))

        if missing is None:
            box = image("\ufdd0")  # a noncharacter: never in a font
            missing = "".join(ch for ch in text if not ch.isspace() and image(ch) == box)
        else:
            image(text)
    except Exception:
        return None
    return missing


def has_japanese(path: str) -> bool:
    """True if the font at ``path`` has glyphs for kanji and kana."""
    return missing_glyphs(path, JAPANESE_SAMPLE) == ""


@dataclass
class FontCheck:
    """What one candidate file covers."""

    path: str
    usable: bool  # a font file pygame can draw with
    japanese: bool = False
    latin: bool = False
    missing_symbols: str = ""
    reason: str = ""  # why it is not taken (empty when it covers everything)

    @property
    def complete(self) -> bool:
        return self.usable and self.japanese and self.latin and not self.missing_symbols


def check_font(path: str) -> FontCheck:
    """Check one candidate: Japanese, Latin letters and digits, the UI's symbols."""
    problem = file_problem(path)
    if problem is not None:
        return FontCheck(path, False, reason=problem)
    missing = missing_glyphs(path, JAPANESE_SAMPLE + LATIN_SAMPLE + UI_SYMBOLS)
    if missing is None:
        return FontCheck(path, False, reason="not a font file pygame can use")
    japanese = not any(ch in missing for ch in JAPANESE_SAMPLE)
    latin = not any(ch in missing for ch in LATIN_SAMPLE)
    symbols = "".join(ch for ch in UI_SYMBOLS if ch in missing)
    reasons = []
    if not japanese:
        reasons.append("no Japanese glyphs")
    if not latin:
        reasons.append("no Latin letters or digits")
    if symbols:
        reasons.append(f"no glyphs for {symbols}")
    return FontCheck(path, True, japanese, latin, symbols, "; ".join(reasons))


@dataclass
class FontChoice:
    """The font :func:`choose_font` found: ``path`` (None: no Japanese font at all),
    where it came from (``KAITAKU_FONT``, ``system`` or ``bundled``), and the
    problems worth telling the user (a ``$KAITAKU_FONT`` that cannot be used)."""

    path: str | None
    source: str = ""
    problems: list[str] = field(default_factory=list)


def choose_font(env: str | None = None, system: Iterable[str] | None = None,
                bundled: str | None | bool = True) -> FontChoice:
    """The UI font: the first candidate that covers Japanese, Latin and the UI's
    symbols; failing that, the first with Japanese and Latin (a symbol may show as
    a box); a font with Japanese but no Latin letters is never taken.

    ``env`` defaults to ``$KAITAKU_FONT``, ``system`` to the system's candidates,
    ``bundled`` (True) to the shipped font (None or False: none)."""
    if env is None:
        env = os.environ.get("KAITAKU_FONT", "").strip() or None
    candidates: list[tuple[str, str]] = []
    if env:
        candidates.append((env, "KAITAKU_FONT"))
    if system is None:
        system = [*fontconfig_candidates(), *known_path_candidates(), *pygame_candidates()]
    candidates += [(p, "system") for p in system]
    ship = bundled_font() if bundled is True else (bundled or None)
    if isinstance(ship, str):
        candidates.append((ship, "bundled"))
    problems: list[str] = []
    fallback: tuple[str, str] | None = None
    seen: set[str] = set()
    for path, source in candidates:
        if path in seen:
            continue
        seen.add(path)
        check = check_font(path)
        if check.complete:
            return FontChoice(path, source, problems)
        if source == "KAITAKU_FONT":
            shown = path if len(path) <= 120 else path[:117] + "..."
            problems.append(f"KAITAKU_FONT={shown}: {check.reason}")
        if fallback is None and check.usable and check.japanese and check.latin:
            fallback = (path, source)
    if fallback is not None:
        return FontChoice(fallback[0], fallback[1], problems)
    return FontChoice(None, "", problems)


def find_cjk_font() -> str | None:
    """The path of a font with Japanese and Latin glyphs, or None."""
    return choose_font().path


def find_latin_font() -> str | None:
    """A plain sans-serif for English when no CJK font exists (None: pygame's own)."""
    for name in LATIN_NAMES:
        try:
            path = pygame.font.match_font(name)
        except Exception:
            path = None
        if path and missing_glyphs(str(path), LATIN_SAMPLE) == "":
            return str(path)
    return None


def _bold_variant(path: str | None) -> str | None:
    """``...-Regular.ttc`` → ``...-Bold.ttc`` (``DejaVuSans.ttf`` → ``DejaVuSans-Bold.ttf``)
    when that file exists and is a usable font."""
    if path is None:
        return None
    p = Path(path)
    names = [p.name.replace("Regular", "Bold"), f"{p.stem}-Bold{p.suffix}"]
    for name in names:
        candidate = p.with_name(name)
        if (name != p.name and candidate.is_file()
                and missing_glyphs(str(candidate), LATIN_SAMPLE) == ""):
            return str(candidate)
    return None


class SafeFont(pygame.font.Font):
    """A font that draws any string it is given: the one place the client's
    text is drawn and measured, so text from a server (names, table names,
    chat, error messages; a server may be hostile) is cleaned here with
    :func:`protocol.wire.text.clean_text` — no NUL, control or bidirectional
    override character reaches SDL_ttf, which refuses NUL and draws the rest
    as boxes or reorders the line."""

    def render(self, text: Any, antialias: Any, color: Any,
               bgcolor: Any = None) -> pygame.Surface:
        return super().render(_drawable(text), antialias, color, bgcolor)

    def size(self, text: Any) -> tuple[int, int]:
        w, h = super().size(_drawable(text))
        return int(w), int(h)


def _drawable(text: Any) -> str:
    s = (text.decode("utf-8", "replace") if isinstance(text, bytes)
         else text if isinstance(text, str) else str(text))
    return s if s.isprintable() else clean_text(s)  # the common case costs one scan


class Fonts:
    """``fonts.get(size, bold=False)`` (or ``fonts(size)``): a cached pygame font.

    ``lang`` is what the user asked for; :attr:`lang` is what can be shown
    (English when Japanese was asked for and no CJK font exists; then
    :attr:`notice` says why). ``finder`` replaces :func:`choose_font` (tests):
    it returns the path of a font to use for everything, or None.
    """

    def __init__(self, lang: str = "en",
                 finder: Callable[[], str | None] | None = None) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        choice = choose_font() if finder is None else FontChoice(finder(), "finder")
        self.cjk_path = choice.path
        self.source = choice.source
        self.problems: list[str] = list(choice.problems)
        """Fonts that were asked for and could not be used (shown once by the App)."""
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
                font = SafeFont(path, key[0])
                font.size("Ag")  # a file that stopped being a font fails here, not later
            except Exception:
                font = SafeFont(None, key[0])
            if bold and path is not self.bold_path:
                font.set_bold(True)  # no bold file: pygame emboldens
            self._cache[key] = font
        return font

    __call__ = get
