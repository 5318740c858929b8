"""The incomplete beta function's continued fraction gives the textbook loop's bits exactly (the fast loop
only keeps shared sums and writes `abs` out), on the sizes intervals meet: up to a million question groups."""

from __future__ import annotations

import math
import random

from mmgauge.stats.special import _continued_fraction

EPSILON = 1e-15
TINY = 1e-300


def textbook(a: float, b: float, x: float) -> float:
    """The modified Lentz loop as first written (the reference)."""
    limit = 1000 + int(20 * math.sqrt(max(a, b)))
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > TINY else TINY)
    h = d
    for m in range(1, limit):
        term = m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m))
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > TINY else TINY)
        c = 1.0 + term / c
        c = c if abs(c) > TINY else TINY
        h *= d * c
        term = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > TINY else TINY)
        c = 1.0 + term / c
        c = c if abs(c) > TINY else TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < EPSILON:
            return h
    raise ArithmeticError("no convergence")


def test_the_loop_gives_the_textbook_bits() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        n = rng.choice([3, 40, 500, 31_250, 250_000, 1_000_000])
        k = rng.randint(0, n)
        for a, b in ((k + 1.0, n - k + 1.0), (rng.uniform(0.05, 80), rng.uniform(0.05, 80))):
            x = min(rng.random(), (a + 1.0) / (a + b + 2.0) * rng.random())  # the side betainc uses
            assert _continued_fraction(a, b, x) == textbook(a, b, x), (a, b, x)
