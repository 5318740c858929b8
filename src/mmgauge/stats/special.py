"""The special functions the intervals and tests need, in plain Python (math only, no scipy at run time).

- `betainc(a, b, x)`: the regularised incomplete beta function I_x(a, b), from its continued fraction
  (evaluated with the modified Lentz method), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the side
  where the fraction converges fast. Then P(Beta(a, b) <= x) = I_x(a, b) and, for a binomial count,
  P(X <= k) = I_{1-p}(n - k, k + 1).
- `betaincinv(a, b, q)`: the x with I_x(a, b) = q, by Newton's method kept inside a shrinking bracket
  (a step that would leave the bracket is replaced by bisection), so it always converges.
- `normal_quantile(q)`: the standard normal quantile (the standard library's `statistics.NormalDist`).

Accuracy: about 1e-13 relative for moderate a, b; for a, b near 1e6 the log-beta prefactor loses about
log10(a + b) digits (lgamma of large numbers), i.e. ~1e-9 relative, far below anything an interval shows.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_EPSILON = 1e-15
_TINY = 1e-300


def log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (without its prefactor); converges fast for x < (a+1)/(a+b+2)."""
    limit = 1000 + int(20 * math.sqrt(max(a, b)))
    # The sums below are each computed once per step, with the same operations in the same order as the
    # formulas in the comments: the intervals depend on every bit of this loop, its speed on little else.
    tiny, a_plus_b = _TINY, a + b
    c = 1.0
    d = 1.0 - a_plus_b * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, limit):
        a_2m = a + 2 * m
        # Even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
        term = m * (b - m) * x / ((a_2m - 1.0) * a_2m)
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + term / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        # Odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
        term = -(a + m) * (a_plus_b + m) * x / (a_2m * (a_2m + 1.0))
        d = 1.0 + term * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + term / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            return h
    raise ArithmeticError(f"incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if a <= 0 or b <= 0:
        raise ValueError(f"betainc needs a > 0 and b > 0, got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def beta_pdf(a: float, b: float, x: float) -> float:
    if x <= 0.0 or x >= 1.0:
        return 0.0
    return math.exp((a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - log_beta(a, b))


def betaincinv(a: float, b: float, q: float) -> float:
    """The x in [0, 1] with I_x(a, b) = q (the q-quantile of Beta(a, b))."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"betaincinv needs 0 <= q <= 1, got {q}")
    if q == 0.0:
        return 0.0
    if q == 1.0:
        return 1.0
    low, high = 0.0, 1.0
    # Start from the normal approximation of the beta distribution, kept strictly inside (0, 1).
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    x = min(max(mean + normal_quantile(q) * sd, 1e-12), 1.0 - 1e-12)
    for _ in range(400):
        f = betainc(a, b, x) - q
        if f == 0.0:
            return x
        if f < 0.0:
            low = x
        else:
            high = x
        slope = beta_pdf(a, b, x)
        step = f / slope if slope > 0.0 else math.inf
        candidate = x - step
        if not low < candidate < high:
            candidate = 0.5 * (low + high)
        if abs(candidate - x) <= 4 * _EPSILON * candidate or high - low <= 4 * _EPSILON * high:
            return candidate
        x = candidate
    return x


def binomial_cdf(k: float, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), exactly (through the incomplete beta function)."""
    k = math.floor(k)
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return betainc(n - k, k + 1.0, 1.0 - p)


def binomial_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p), from log-gamma (exact to rounding)."""
    if k < 0 or k > n:
        return 0.0
    if p <= 0.0:
        return 1.0 if k == 0 else 0.0
    if p >= 1.0:
        return 1.0 if k == n else 0.0
    log_choose = math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
    return math.exp(log_choose + k * math.log(p) + (n - k) * math.log1p(-p))


def normal_quantile(q: float) -> float:
    return NormalDist().inv_cdf(q)
