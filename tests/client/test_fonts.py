"""Fonts: one font for Japanese and Latin text, checked like any input from outside.

The test fonts are made here (:mod:`tests.client.fontgen`): a CJK font with no
Latin glyphs (like Droid Sans Fallback), and broken files. The bundled font
(Noto Sans CJK JP, from the ``noto-cjk-sans-jp-regular`` package) is the real one.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pygame
import pytest

from client import fonts as fonts_module
from client.fonts import (
    JAPANESE_SAMPLE,
    LATIN_SAMPLE,
    NO_CJK_NOTICE,
    UI_SYMBOLS,
    Fonts,
    bundled_font,
    check_font,
    choose_font,
    find_cjk_font,
    fontconfig_candidates,
    has_japanese,
    missing_glyphs,
)
from tests.client.fontgen import KANA_KANJI, make_font

PYGAME_FONT = str(Path(pygame.__file__).parent / pygame.font.get_default_font())
"""A real font file without Japanese glyphs (pygame's own)."""
CLIENT = Path(__file__).parents[2] / "client"


@pytest.fixture
def kana_only(tmp_path: Path) -> str:
    """A CJK font with kana and kanji and no Latin letters, digits or symbols."""
    return str(make_font(tmp_path / "kana-only.ttf", KANA_KANJI, "Kana Only"))


@pytest.fixture
def no_system_fonts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without a Japanese font of its own (and no KAITAKU_FONT)."""
    monkeypatch.setattr(fonts_module, "fontconfig_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "known_path_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "pygame_candidates", lambda: [])
    monkeypatch.delenv("KAITAKU_FONT", raising=False)


def broken_fonts(tmp_path: Path) -> list[str]:
    """Files and paths that are not fonts, in the ways a disk or a user gets them wrong."""
    good = Path(bundled_font() or PYGAME_FONT).read_bytes()
    (tmp_path / "empty.ttf").write_bytes(b"")
    (tmp_path / "garbage.ttf").write_bytes(b"\x00\x01garbage" * 999)
    (tmp_path / "truncated.otf").write_bytes(good[:4096])
    (tmp_path / "text.ttf").write_text("this is not a font\n")
    header = bytearray(good[:20000])
    header[12:60] = b"\xff" * 48  # a table directory pointing nowhere
    (tmp_path / "bad-tables.otf").write_bytes(bytes(header))
    (tmp_path / "a-folder.ttf").mkdir()
    return [str(tmp_path / n) for n in ("empty.ttf", "garbage.ttf", "truncated.otf",
                                        "text.ttf", "bad-tables.otf", "a-folder.ttf")] + [
        str(tmp_path / "missing.ttf"), "/dev/null", "x" * 5000, "bad\x00name.ttf"]


# -- the glyph checks -------------------------------------------------------------------


def test_the_bundled_font_covers_japanese_latin_and_the_ui_symbols() -> None:
    path = bundled_font()
    assert path is not None and Path(path).is_file(), "the client extra ships a font"
    assert check_font(path).complete
    f = pygame.font.Font(path, 18)
    for text in ("開拓 資源 街道", "Roll 123", "⇄ × − …"):
        assert f.size(text)[0] > 0


def test_a_cjk_font_without_latin_glyphs_is_seen_as_such(kana_only: str) -> None:
    assert has_japanese(kana_only)
    check = check_font(kana_only)
    assert check.usable and check.japanese and not check.latin and not check.complete
    assert "Latin" in check.reason
    assert missing_glyphs(kana_only, "Aa1") == "Aa1"
    assert not has_japanese(PYGAME_FONT)
    assert check_font(PYGAME_FONT).latin and not check_font(PYGAME_FONT).japanese


def test_ui_symbols_cover_every_symbol_the_ui_draws() -> None:
    """Every character of the catalogs and of the client's own strings that is not
    ASCII, kana or kanji is checked in candidate fonts (else it could be a box)."""
    texts = [v for lang in ("en", "ja")
             for f in sorted((CLIENT / "locale" / lang).glob("*.json"))
             for v in json.loads(f.read_text(encoding="utf-8")).values()]
    texts += re.findall(r'"([^"\n]*)"', "\n".join(
        p.read_text(encoding="utf-8") for p in CLIENT.glob("*.py") if p.name != "fonts.py"))
    used = {ch for text in texts for ch in text if ord(ch) > 127}

    def cjk(ch: str) -> bool:
        o = ord(ch)
        return (0x3000 <= o <= 0x30FF or 0x4E00 <= o <= 0x9FFF or 0xFF00 <= o <= 0xFFEF)

    assert sorted(ch for ch in used if not cjk(ch) and ch not in UI_SYMBOLS) == []
    bundled = bundled_font()
    assert bundled is not None
    assert missing_glyphs(bundled, "".join(sorted(used))) == ""


# -- choosing --------------------------------------------------------------------------


def test_a_latin_less_cjk_font_is_passed_over_for_the_bundled_one(kana_only: str) -> None:
    choice = choose_font(env="", system=[kana_only])
    assert choice.path == bundled_font() and choice.source == "bundled"
    # without the bundled font there is no font for both: English, not empty boxes
    assert choose_font(env="", system=[kana_only], bundled=None).path is None


def test_japanese_works_without_a_system_font(no_system_fonts: None) -> None:
    f = Fonts("ja")
    assert f.lang == "ja" and f.notice is None and f.source == "bundled"
    assert f.path == bundled_font()
    assert missing_glyphs(f.path, JAPANESE_SAMPLE + LATIN_SAMPLE + UI_SYMBOLS) == ""


def test_a_complete_system_font_wins_over_the_bundled_one(tmp_path: Path,
                                                          kana_only: str) -> None:
    bundled = bundled_font()
    assert bundled is not None
    system = str(tmp_path / "SystemGothic-Regular.otf")
    shutil.copyfile(bundled, system)
    choice = choose_font(env="", system=[kana_only, system])
    assert choice.path == system and choice.source == "system"


def test_the_window_draws_latin_text_when_the_systems_cjk_font_has_none(
        monkeypatch: pytest.MonkeyPatch, kana_only: str) -> None:
    """The blocker: with only a kana/kanji font on the system (as Droid Sans Fallback
    is on many machines) every letter and digit of the window was an empty box."""
    from client.app import App

    monkeypatch.setattr(fonts_module, "fontconfig_candidates", lambda: [kana_only])
    monkeypatch.setattr(fonts_module, "known_path_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "pygame_candidates", lambda: [])
    monkeypatch.delenv("KAITAKU_FONT", raising=False)
    app = App(lang="ja", discover=False)
    try:
        for _ in range(3):
            app.step(1 / 60)
        assert app.fonts.lang == "ja" and app.fonts.path != kana_only
        assert app.fonts.path is not None
        for text in ("Kaitaku", "127.0.0.1:7878", "Player 2", "v1.2", "(3/4)"):
            assert missing_glyphs(app.fonts.path, text.replace(" ", "")) == "", text
    finally:
        app.close()


def test_broken_font_files_never_crash_and_are_reported(
        tmp_path: Path, no_system_fonts: None, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in broken_fonts(tmp_path):
        check = check_font(path)
        assert not check.usable and check.reason, path
        assert missing_glyphs(path, "A") is None
        if "\x00" in path:  # cannot be in the environment; can be in a font list
            assert choose_font(env=path, system=[]).problems
            continue
        monkeypatch.setenv("KAITAKU_FONT", path)
        f = Fonts("ja")
        assert f.path == bundled_font() and f.lang == "ja"
        assert f.problems and f.problems[0].startswith("KAITAKU_FONT=")
        assert len(f.problems[0]) < 300
        assert f.get(16).size("Aa 開")[0] > 0
    # broken files among the system's candidates are passed over quietly
    more = tmp_path / "more"
    more.mkdir()
    choice = choose_font(env="", system=broken_fonts(more))
    assert choice.path == bundled_font() and choice.problems == []


def test_a_font_that_breaks_after_the_check_falls_back_to_pygames(tmp_path: Path) -> None:
    path = tmp_path / "gone.otf"
    shutil.copyfile(PYGAME_FONT, path)
    f = Fonts("en", finder=lambda: str(path))
    path.write_bytes(b"now garbage" * 100)
    assert f.get(23).size("Roll")[0] > 0


def test_the_app_tells_about_an_unusable_kaitaku_font(tmp_path: Path, no_system_fonts: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from client.app import App

    bad = tmp_path / "mine.ttf"
    bad.write_bytes(b"garbage")
    monkeypatch.setenv("KAITAKU_FONT", str(bad))
    app = App(lang="ja", discover=False)
    try:
        app.step(1 / 60)
        assert any(str(bad) in t.text for t in app.toasts)
        assert app.fonts.lang == "ja"
    finally:
        app.close()


# -- the fallbacks ----------------------------------------------------------------------


def test_no_cjk_font_means_english_and_a_notice() -> None:
    f = Fonts("ja", finder=lambda: None)
    assert f.lang == "en" and not f.has_cjk
    assert f.notice == NO_CJK_NOTICE and "fonts-noto-cjk" in f.notice
    font = f.get(18)
    assert isinstance(font, pygame.font.Font)
    assert font.size("Kaitaku")[0] > 0
    assert f.set_lang("en") == "en" and f.notice is None
    assert f.set_lang("ja") == "en" and f.notice == NO_CJK_NOTICE


def test_a_found_font_is_used_for_every_language() -> None:
    f = Fonts("ja", finder=lambda: PYGAME_FONT)
    assert f.lang == "ja" and f.notice is None and f.has_cjk
    assert f.path == PYGAME_FONT
    assert f.set_lang("en") == "en"
    assert f.path == PYGAME_FONT  # names may be Japanese in an English UI too


def test_fonts_are_cached_by_size_and_weight() -> None:
    f = Fonts("en", finder=lambda: None)
    assert f.get(20) is f.get(20) is f(20)
    assert f.get(20, True) is not f.get(20)
    assert f.get(20, True).get_bold() or f.bold_path is not None
    assert f.get(30).get_height() > f.get(12).get_height()


def test_the_environment_comes_first_then_the_system(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = bundled_font()
    assert bundled is not None
    one, two = tmp_path / "one.otf", tmp_path / "two.otf"
    shutil.copyfile(bundled, one)
    shutil.copyfile(bundled, two)
    monkeypatch.setattr(fonts_module, "fontconfig_candidates", lambda: [str(one)])
    monkeypatch.setattr(fonts_module, "known_path_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "pygame_candidates", lambda: [])
    monkeypatch.delenv("KAITAKU_FONT", raising=False)
    assert find_cjk_font() == str(one)
    monkeypatch.setenv("KAITAKU_FONT", str(two))
    assert find_cjk_font() == str(two)
    assert choose_font().source == "KAITAKU_FONT"


def test_fontconfig_ranks_japanese_sans_regular_first(monkeypatch: pytest.MonkeyPatch) -> None:
    listing = "\n".join([
        "/f/NotoSerifCJK-Regular.ttc: Noto Serif CJK JP:style=Regular",
        "/f/NotoSansCJK-Bold.ttc: Noto Sans CJK JP,Noto Sans CJK JP Bold:style=Bold",
        "/f/NotoSansCJK-Regular.ttc: Noto Sans CJK SC:style=Regular",
        "/f/NotoSansCJK-Regular.ttc: Noto Sans CJK JP:style=Regular",
        "/f/ipaexg.ttf: IPAexGothic,IPAexゴシック:style=Regular",
    ])
    monkeypatch.setattr("client.fonts.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(fonts_module, "_run", lambda cmd: listing)
    assert fontconfig_candidates() == ["/f/NotoSansCJK-Regular.ttc", "/f/NotoSansCJK-Bold.ttc",
                                       "/f/ipaexg.ttf", "/f/NotoSerifCJK-Regular.ttc"]
    monkeypatch.setattr("client.fonts.shutil.which", lambda name: None)
    assert fontconfig_candidates() == []


def test_the_glyph_check_works_without_freetype(monkeypatch: pytest.MonkeyPatch,
                                                kana_only: str) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pygame.freetype", None)  # the import fails
    assert not has_japanese(PYGAME_FONT)
    assert has_japanese(kana_only)
    assert missing_glyphs(kana_only, "A1") == "A1"
    bundled = bundled_font()
    assert bundled is not None and check_font(bundled).complete
