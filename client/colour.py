"""Colour arithmetic for accessibility: contrast, perceptual distance and
colour-vision-deficiency simulation.

- :func:`contrast_ratio`: WCAG 2 relative luminance contrast (1 to 21).
- :func:`delta_e2000`: the CIEDE2000 colour difference of two sRGB colours
  (through CIELAB, D65); about 2 is "just noticeable", 10 and more is clearly a
  different colour at a glance.
- :func:`simulate`: what a colour looks like with protanopia, deuteranopia or
  tritanopia, by the matrices of Machado, Oliveira and Fernandes (2009),
  severity 1.0, applied to linear RGB.

No pygame here; the palettes (:mod:`client.palette`) are checked with these
functions in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Color = tuple[int, int, int]
Lab = tuple[float, float, float]

MACHADO_2009: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
"""Machado et al. (2009), severity 1.0, for linear RGB."""
VISIONS = ("normal", "protanopia", "deuteranopia", "tritanopia")


def to_linear(c: int) -> float:
    """One sRGB channel (0-255) in linear light (0-1)."""
    v = c / 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def from_linear(v: float) -> int:
    v = max(0.0, min(1.0, v))
    s = v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return round(s * 255)


def luminance(c: Sequence[int]) -> float:
    """WCAG relative luminance of an sRGB colour."""
    r, g, b = (to_linear(int(x)) for x in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: Sequence[int], b: Sequence[int]) -> float:
    """WCAG contrast ratio of two colours (1: none, 21: black on white)."""
    la, lb = luminance(a), luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def simulate(c: Sequence[int], vision: str) -> Color:
    """``c`` as seen with ``vision`` (one of :data:`VISIONS`)."""
    rgb = (int(c[0]), int(c[1]), int(c[2]))
    if vision == "normal":
        return rgb
    m = MACHADO_2009[vision]
    lin = [to_linear(x) for x in rgb]
    out = [sum(m[i][j] * lin[j] for j in range(3)) for i in range(3)]
    return (from_linear(out[0]), from_linear(out[1]), from_linear(out[2]))


def to_lab(c: Sequence[int]) -> Lab:
    """CIELAB (D65 white) of an sRGB colour."""
    r, g, b = (to_linear(int(x)) for x in c[:3])
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = (0.2126729 * r + 0.7151522 * g + 0.0721750 * b) / 1.0
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(lab1: Lab, lab2: Lab) -> float:
    """The CIEDE2000 difference of two CIELAB colours (Sharma, Wu and Dalal, 2005)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    cp_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_bar = (h1p + h2p + 360) / 2
    else:
        hp_bar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hp_bar - 30))
         + 0.24 * math.cos(math.radians(2 * hp_bar))
         + 0.32 * math.cos(math.radians(3 * hp_bar + 6))
         - 0.20 * math.cos(math.radians(4 * hp_bar - 63)))
    d_theta = 30 * math.exp(-(((hp_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2
                     + r_t * (dc / s_c) * (d_h / s_h))


def delta_e2000(a: Sequence[int], b: Sequence[int]) -> float:
    """CIEDE2000 difference of two sRGB colours."""
    return ciede2000(to_lab(a), to_lab(b))


def min_distance(colours: Sequence[Sequence[int]], vision: str = "normal") -> float:
    """The smallest CIEDE2000 difference between any two of ``colours`` as seen
    with ``vision``."""
    seen = [simulate(c, vision) for c in colours]
    return min((delta_e2000(seen[i], seen[j]) for i in range(len(seen))
                for j in range(i + 1, len(seen))), default=math.inf)
