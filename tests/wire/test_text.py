"""Untrusted text (protocol.wire.text): what may be displayed."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.wire import clean_text, clip
from protocol.wire.text import BIDI_CONTROLS


def _unsafe(ch: str) -> bool:
    cp = ord(ch)
    return (cp < 0x20 or 0x7F <= cp < 0xA0 or 0xD800 <= cp < 0xE000 or ch in BIDI_CONTROLS
            or ch in "\u2028\u2029")


@pytest.mark.parametrize(("raw", "clean"), [
    ("Ann", "Ann"),
    ("山田　太郎", "山田　太郎"),  # Japanese and the ideographic space stay
    ("👩‍👩‍👧 family", "👩‍👩‍👧 family"),  # emoji with zero-width joiners stay
    ("a\x00b", "ab"),  # NUL: the character pygame refuses to draw
    ("\x1b[31mred\x1b[0m", "[31mred[0m"),  # ESC: no terminal escapes in a log or window
    ("line\nforged", "line forged"),
    ("tab\there\r\n", "tab here"),
    ("\u202egnp.exe", "gnp.exe"),  # a right-to-left override
    ("\u2066iso\u2069late\u200f", "isolate"),
    ("a\x85b\u2028c\u2029d", "a b c d"),
    ("\x7f\x9b\x80", ""),  # DEL and C1 controls
    ("  padded  ", "padded"),
    ("\x00\x01\x02", ""),
])
def test_item1_clean_text_removes_controls_and_bidi_overrides(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_item1_clean_text_of_a_non_string_is_empty() -> None:
    assert clean_text(None) == ""  # type: ignore[arg-type]
    assert clean_text(123) == ""  # type: ignore[arg-type]


def test_clip_keeps_the_limit() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcdef", 4) == "abc…"
    assert len(clip("x" * 5000, 512)) == 512
    assert clip("abc", 0) == ""
    assert clean_text("a" * 40, 32) == "a" * 31 + "…"


@given(st.text())
def test_item1_cleaned_text_is_safe_idempotent_and_never_longer(text: str) -> None:
    out = clean_text(text)
    assert not any(_unsafe(ch) for ch in out)
    assert clean_text(out) == out
    assert len(out) <= len(text)
    assert out == out.strip()


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))))
def test_item1_printable_text_is_kept(text: str) -> None:
    text = "".join(ch for ch in text if ch not in BIDI_CONTROLS)
    assert clean_text(text) == text.strip()


def test_item1_every_c0_and_c1_control_is_handled() -> None:
    controls = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc"]
    assert len(controls) == 65
    assert clean_text("x" + "".join(controls) + "y").replace(" ", "") == "xy"
