"""Helpers shared by the plain-data forms of actions and events."""

from __future__ import annotations

from dataclasses import dataclass, fields

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, computed once per class."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class Items:
    """``Annotated[list[...], Items(n)]``: a list of exactly ``n`` items (the
    JSON Schema of the plain-data forms, docs/protocol/schema.py, reads it)."""

    count: int


@dataclass(frozen=True, slots=True)
class Choices:
    """``Annotated[str, Choices(names)]``: a string that is one of ``names``."""

    names: tuple[str, ...]
