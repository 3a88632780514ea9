"""The window's settings file: what it keeps, and that what it reads is checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.settings import MAX_BYTES, Settings, SettingsFile, config_dir, parse


def test_roundtrip(tmp_path: Path) -> None:
    f = SettingsFile(tmp_path / "settings.json")
    assert f.load() == Settings()
    assert f.save(Settings(muted=True, volume=0.25, palette="colorblind"))
    assert SettingsFile(tmp_path / "settings.json").load() == Settings(True, 0.25, "colorblind")


def test_the_default_place_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("KAITAKU_CONFIG_DIR", str(tmp_path / "k"))
    assert config_dir() == tmp_path / "k"
    monkeypatch.delenv("KAITAKU_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "kaitaku"


@pytest.mark.parametrize("content", [
    b"", b"not json", b"[1, 2]", b"\xff\xfe\x00", b'{"muted": "yes", "volume": 7, '
    b'"palette": "sepia"}', b'{"muted": 1, "volume": NaN, "palette": 3}',
    b'{"volume": true}', b"[" * 100000,
])
def test_a_hostile_file_gives_the_defaults(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    assert SettingsFile(path).load() == Settings()


def test_each_bad_value_falls_back_alone() -> None:
    got = parse({"muted": True, "volume": "loud", "palette": "colorblind", "extra": [1]})
    assert got == Settings(muted=True, volume=Settings().volume, palette="colorblind")


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"muted": True, "pad": "x" * MAX_BYTES}))
    assert SettingsFile(path).load() == Settings()


def test_an_unwritable_place_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert not SettingsFile(blocker / "settings.json").save(Settings(muted=True))
