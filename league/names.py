"""Names that display alike are the same name (the ladder's registered names).

:func:`name_keys` maps a name to its *skeletons*: two names with a common
skeleton look the same (or nearly) on a page or in a terminal, so the ladder
holds at most one of them. The skeleton is made in this order:

1. NFKC normalisation (compatibility forms: fullwidth ``ａ``, ligatures,
   mathematical letters, superscripts become their plain letters);
2. the invisible characters removed: every format character (Unicode
   category Cf: zero-width spaces and joiners, bidirectional marks, soft
   hyphen, tags, ...) and the other default-ignorable code points (variation
   selectors, the combining grapheme joiner, Hangul fillers, ...); runs of
   whitespace become one space;
3. each character replaced by the representative of its class of Unicode
   confusables (UTS #39 ``confusables.txt``, as the ``confusable-homoglyphs``
   package ships it: Cyrillic ``а`` and Latin ``a``; ``l``, ``I`` and ``1``; Greek
   ``Ο``, Latin ``O`` and ``0``; ...), once as written and once case folded.

Two names are the same when they share one of their keys (:func:`name_keys`):
``PAYPAL``, ``paypal``, ``paypaI`` and ``pаypаl`` (Cyrillic ``а``) are one name.
Look-alikes of several characters (``rn`` and ``m``) are not caught.
"""

from __future__ import annotations

import unicodedata
from functools import cache

_IGNORABLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x2800]
    + list(range(0x180B, 0x1810)) + list(range(0xFE00, 0xFE10))
    + list(range(0xE0100, 0xE01F0)))
"""Default-ignorable code points outside category Cf (variation selectors,
the combining grapheme joiner, Hangul and Khmer fillers), and the blank
braille pattern, which displays as a space."""


@cache
def _classes() -> dict[str, str]:
    """Each confusable character's class representative: the classes are the
    connected sets of the package's confusable pairs; the representative is the
    class's smallest code point."""
    from confusable_homoglyphs import confusables

    data: dict[str, list[dict[str, str]]] = confusables.confusables_data
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, glyphs in data.items():
        if len(char) != 1:
            continue
        for g in glyphs:
            other = g["c"].strip("\u200e\u200f")
            if len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in parent}


def _invisible(c: str) -> bool:
    return unicodedata.category(c) == "Cf" or ord(c) in _IGNORABLE


def _skeleton(text: str) -> str:
    classes = _classes()
    return "".join(classes.get(c, c) for c in text)


def name_keys(name: str) -> frozenset[str]:
    """The keys of ``name``; names that share a key look alike (see the
    module's docstring): its skeleton as written (``l``, ``I`` and ``1`` are one
    character), the skeleton of its case-folded form (``BOT`` and ``bot``), and
    the skeleton of its skeleton case folded (``PAYPAL`` and ``paypaI``)."""
    text = unicodedata.normalize("NFKC", name)
    text = " ".join("".join(c for c in text if not _invisible(c)).split())
    plain = _skeleton(text)
    return frozenset({plain, _skeleton(unicodedata.normalize("NFKC", text.casefold())),
                      _skeleton(plain.casefold())})


def look_alike(a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` count as the same."""
    return not name_keys(a).isdisjoint(name_keys(b))
