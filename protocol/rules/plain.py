"""Helpers shared by the plain-data forms of actions and events."""

from __future__ import annotations

from dataclasses import fields

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, computed once per class."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names
