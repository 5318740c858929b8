"""Column-wise fixed-point text is Python's `f"{x:.{digits}f}"` of each number, to the last character:
exact halves rounded to even, numbers a hair off a half rounded by their exact value, negative numbers
rounding to zero keeping their sign, and numbers beyond the exact range (huge, NaN, infinities) as Python
spells them."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.textformat.fixed_text import MAX_DIGITS, fixed_parts, fixed_texts


def reference(values: np.ndarray, digits: int) -> list[str]:
    return [f"{value:.{digits}f}" for value in values.tolist()]


def halves(digits: int, rng: np.random.Generator) -> np.ndarray:
    """Decimal halves at `digits` (k + 0.5) / 10**digits as the nearest floats, their neighbours on both
    sides, and binary fractions that are exact halves at that many digits (1/32 = 0.03125)."""
    near = (rng.integers(-10**6, 10**6, 3000) + 0.5) / 10**digits
    exact = (2 * rng.integers(-10**5, 10**5, 3000) + 1) / 2.0 ** rng.integers(1, 12, 3000)
    return np.concatenate([near, np.nextafter(near, np.inf), np.nextafter(near, -np.inf), exact])


@pytest.mark.parametrize("digits", [1, 2, 4, MAX_DIGITS])
def test_halves_and_their_neighbours_round_as_python_rounds_them(digits: int) -> None:
    values = halves(digits, np.random.default_rng(digits))
    assert fixed_texts(values, digits).to_pylist() == reference(values, digits)


@pytest.mark.parametrize("digits", [1, 2, 4])
def test_numbers_of_every_magnitude_and_sign(digits: int) -> None:
    rng = np.random.default_rng(10 + digits)
    values = np.concatenate([rng.normal(0.0, 3.0, 5000), rng.normal(0.0, 1e-4, 2000),
                             rng.normal(0.0, 1e6, 2000), rng.uniform(-1e12, 1e12, 2000)])
    assert fixed_texts(values, digits).to_pylist() == reference(values, digits)


def test_zeros_tiny_huge_and_non_finite_numbers() -> None:
    values = np.array([0.0, -0.0, -0.00001, 0.00004, -0.49, 5e-324, -5e-324, 4.5e11, 4.6e11, 2.0**52,
                       -(2.0**53), 1e300, -1e300, np.nan, np.inf, -np.inf, 0.125, 0.375, 2.5, -2.5])
    for digits in (1, 2, 4):
        assert fixed_texts(values, digits).to_pylist() == reference(values, digits)


def test_parts_join_to_the_text() -> None:
    values = np.array([-1.23456, 0.5, np.nan, -0.0])
    sign, units, fraction = fixed_parts(values, 2)
    assert [a + b + c for a, b, c in zip(sign.to_pylist(), units.to_pylist(), fraction.to_pylist(),
                                        strict=True)] == ["-1.23", "0.50", "nan", "-0.00"]


def test_no_numbers_and_unsupported_digits() -> None:
    assert fixed_texts(np.zeros(0), 4).to_pylist() == []
    with pytest.raises(ValueError, match="digits"):
        fixed_texts(np.ones(3), MAX_DIGITS + 1)
