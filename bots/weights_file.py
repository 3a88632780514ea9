"""The header every shipped weights file shares: a JSON object naming its format."""

from __future__ import annotations

import json
from typing import Any


def weights_document(text: str, fmt: str, source: str) -> dict[str, Any]:
    """The JSON object in a weights file's ``text``, checked to declare the
    format ``fmt``; otherwise ``ValueError`` naming ``source`` and what is
    wrong (not JSON, or not a file of that format)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{source}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ValueError(f"{source}: not a {fmt} file")
    return doc


__all__ = ["weights_document"]
