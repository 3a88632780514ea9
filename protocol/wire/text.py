"""Untrusted text: what may be shown to people and written to a log.

Every string a peer sends (a player's name, a table's name, a chat line) and
every string read back from a file is untrusted. :func:`clean_text` makes one
safe to display: it removes the characters that break text rendering or
forge its direction, and turns line breaks into spaces. The server cleans
names, table names and chat before it stores or relays them; a client cleans
whatever it draws (a server may be hostile too). :func:`clip` shortens a text
to a field's limit. Log lines quote untrusted text with ``%r``, which escapes
every non-printable character (so a name holding a newline or ESC cannot
forge a log line).
"""

from __future__ import annotations

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The bidirectional formatting characters (Unicode's Bidi_Control property):
embeddings, overrides, isolates and the directional marks."""
LINE_BREAKS = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029")
"""Characters that end a line or move to a tab stop: replaced by a space."""


def _table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for cp in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *range(0xD800, 0xE000)):
        table[cp] = None  # C0, DEL, C1 controls (NUL included) and lone surrogates
    for ch in BIDI_CONTROLS:
        table[ord(ch)] = None
    for ch in LINE_BREAKS:
        table[ord(ch)] = " "
    return table


_CLEAN = _table()


def clean_text(text: str, max_len: int | None = None) -> str:
    """``text`` safe to display on one line: C0 and C1 control characters
    (NUL, ESC, DEL, ...), lone surrogates and the bidirectional controls
    (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069) are removed; tabs and
    line breaks (``\\n``, ``\\r``, U+0085, U+2028, U+2029, ...) become spaces;
    leading and trailing whitespace is trimmed. ``max_len``: at most that many
    characters (cut with :func:`clip`). Everything else, Japanese and emoji
    included, is kept as it is. Not a string: ``""``."""
    if not isinstance(text, str):
        return ""
    out = text.translate(_CLEAN).strip()
    return out if max_len is None else clip(out, max_len)


def clip(text: str, max_len: int) -> str:
    """``text`` if it has at most ``max_len`` characters, else its start and
    "…" (``max_len`` characters in all)."""
    if len(text) <= max_len:
        return text
    if max_len <= 0:
        return ""
    return text[: max_len - 1] + "…"
