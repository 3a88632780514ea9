"""The message catalogs: the same keys and placeholders in Japanese and English."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from client.i18n import LANGS, Translator, catalog

LOCALE = Path(__file__).resolve().parents[2] / "client" / "locale"
FILES = sorted({p.name for lang in LANGS for p in (LOCALE / lang).glob("*.json")})


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def load(lang: str, name: str) -> dict[str, str]:
    data = json.loads((LOCALE / lang / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_every_language_has_every_file() -> None:
    assert "common.json" in FILES and "lobby.json" in FILES
    for lang in LANGS:
        assert sorted(p.name for p in (LOCALE / lang).glob("*.json")) == FILES


@pytest.mark.parametrize("name", FILES)
def test_same_keys_in_both_languages(name: str) -> None:
    en, ja = load("en", name), load("ja", name)
    assert sorted(set(en) - set(ja)) == [], "missing in ja"
    assert sorted(set(ja) - set(en)) == [], "missing in en"


@pytest.mark.parametrize("name", FILES)
def test_same_placeholders_in_both_languages(name: str) -> None:
    en, ja = load("en", name), load("ja", name)
    for key in en.keys() & ja.keys():
        assert isinstance(en[key], str) and isinstance(ja[key], str), key
        # the server's own message is English: the Japanese text says it in its words
        assert placeholders(en[key]) - {"message"} == placeholders(ja[key]), key
        assert "message" not in placeholders(ja[key]), key
        assert en[key].strip() and ja[key].strip(), f"{key} is empty"


@pytest.mark.parametrize("lang", LANGS)
def test_catalogs_merge_without_repeated_keys(lang: str) -> None:
    merged = catalog(lang)  # raises on a key defined in two files
    assert merged["app.title"]
    assert len(merged) == sum(len(load(lang, name)) for name in FILES)


def test_translator_fills_fields_and_falls_back() -> None:
    ja = Translator("ja")
    assert ja("status.reconnecting", attempt=3) == "再接続中…（3 回目）"
    assert Translator("en")("status.reconnecting", attempt=3) == "Reconnecting... (attempt 3)"
    assert ja("no.such.key") == "no.such.key"
    assert ja.has("lobby.connect") and not ja.has("no.such.key")
    assert ja("lobby.connecting") == ja.tr("lobby.connecting")  # missing fields: text as is
    with pytest.raises(ValueError):
        Translator("fr")
