"""The wire protocol's JSON Schema (docs/protocol/schema.py) for the tests: the
schemas built in memory, a registry that resolves their references to one
another, and compiled validators."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def generator() -> ModuleType:
    """docs/protocol/schema.py, imported."""
    spec = importlib.util.spec_from_file_location("kaitaku_schema_gen",
                                                  ROOT / "docs" / "protocol" / "schema.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def registry(schemas: dict[str, dict[str, Any]]) -> Registry[Any]:
    return Registry().with_resources(
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012))
        for s in schemas.values())


@functools.cache
def validator(name: str = "messages", pointer: str = "", strict: bool = False
              ) -> Draft202012Validator:
    """A validator of ``name``.schema.json (at ``#/$defs/<pointer>`` if given)."""
    schemas = generator().build(strict=strict)
    root = schemas[name]
    schema: dict[str, Any] = {"$ref": root["$id"] + (f"#/$defs/{pointer}" if pointer else "")}
    return Draft202012Validator(schema, registry=registry(schemas))


def server_frame_errors(msg: Any) -> list[str]:
    """Why ``msg`` is not a message the server may send (strict: no unknown
    field, known codes only); empty when it is."""
    errors = list(validator("messages", "server_message", strict=True).iter_errors(msg))
    best = best_match(errors)
    return [] if best is None else [f"{best.json_path}: {best.message[:300]}"]
