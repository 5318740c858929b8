"""The incomplete beta function's loop, rewritten for speed, gives the first version's results to the bit."""

from __future__ import annotations

import math
import random

from mmgauge.stats.special import _continued_fraction


def _reference_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction as first written (every sum in place), the reference for the bits."""
    limit = 1000 + int(20 * math.sqrt(max(a, b)))
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, limit):
        term = m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m))
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + term / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        term = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + term / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    raise ArithmeticError("did not converge")


def test_continued_fraction_is_the_reference_to_the_bit() -> None:
    rng = random.Random(11)
    cases: list[tuple[float, float, float]] = []
    for _ in range(3000):
        n = rng.choice([1, 2, 5, 30, 400, 2374, 10**5, 2 * 10**6])
        k = rng.randint(0, n)
        # As Clopper-Pearson calls it: an int count for a, a float for b; and both as floats.
        a: float = k + 1 if rng.random() < 0.5 else float(k) + 0.5
        cases.append((a, n - k + 1.0, rng.random()))
    for a, b, x in cases:
        if x >= (a + 1.0) / (a + b + 2.0):
            a, b, x = b, a, 1.0 - x  # the side betainc evaluates
        assert _continued_fraction(a, b, x) == _reference_continued_fraction(a, b, x), (a, b, x)
