"""Fonts: finding a Japanese font, and falling back to English without one."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from client import fonts as fonts_module
from client.fonts import NO_CJK_NOTICE, Fonts, find_cjk_font, fontconfig_candidates, has_japanese

PYGAME_FONT = str(Path(pygame.__file__).parent / pygame.font.get_default_font())
"""A real font file without Japanese glyphs (pygame's own)."""


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


def test_find_prefers_the_environment_then_fontconfig(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    fake = tmp_path / "not-a-font.ttf"
    fake.write_bytes(b"nope")
    good = tmp_path / "good.ttf"
    good.write_bytes(Path(PYGAME_FONT).read_bytes())
    monkeypatch.setattr(fonts_module, "fontconfig_candidates", lambda: [str(fake), str(good)])
    monkeypatch.setattr(fonts_module, "known_path_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "pygame_candidates", lambda: [])
    monkeypatch.setattr(fonts_module, "has_japanese", lambda p: Path(p).name == "good.ttf")
    monkeypatch.delenv("KAITAKU_FONT", raising=False)
    assert find_cjk_font() == str(good)
    other = tmp_path / "other-good.ttf"
    other.write_bytes(good.read_bytes())
    monkeypatch.setattr(fonts_module, "has_japanese", lambda p: "good" in Path(p).name)
    monkeypatch.setenv("KAITAKU_FONT", str(other))
    assert find_cjk_font() == str(other)
    monkeypatch.setattr(fonts_module, "has_japanese", lambda p: False)
    assert find_cjk_font() is None


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


def test_has_japanese_checks_the_glyphs() -> None:
    assert not has_japanese(PYGAME_FONT)
    assert not has_japanese("/no/such/font.ttf")
    found = find_cjk_font()
    if found is None:
        pytest.skip("no CJK font on this system (the fallback is tested above)")
    assert has_japanese(found)
    f = Fonts("ja")
    assert f.lang == "ja" and f.notice is None
    assert all(m is not None for m in f.get(16).metrics("開拓"))


def test_has_japanese_without_freetype(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pygame.freetype", None)  # the import fails
    assert not has_japanese(PYGAME_FONT)
    found = fonts_module.fontconfig_candidates() + fonts_module.known_path_candidates()
    if found:
        assert has_japanese(found[0])
