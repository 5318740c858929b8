"""Column-wise float text is `json.dumps` of each number, to the last character, around and beyond the
range orjson writes (exponents, tiny and huge numbers, signed zeros, NaN, infinities, subnormals)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mmgauge.textformat.float_text import SAFE_HIGH, SAFE_LOW, available, json_float_texts


def reference(values: np.ndarray, comma: bool = False) -> list[str]:
    return [json.dumps(value) + ("," if comma else "") for value in values.tolist()]


def edges() -> np.ndarray:
    """Numbers at and next to every boundary of the notations, with both signs."""
    points = [0.0, SAFE_LOW, SAFE_HIGH, 1e-5, 1e16, 1e21, 1e22, 1.0, 0.1, 5e-324, 2.2250738585072014e-308,
              2.0**52, 2.0**53, 2.0**53 + 2.0, 1e-7, 123456789.123456789, 1.7976931348623157e308]
    near = [np.nextafter(p, direction) for p in points[:-1] for direction in (0.0, np.inf)]
    values = np.array(points + near + [np.nan, np.inf, -np.inf], dtype=np.float64)
    return np.concatenate([values, -values])


def test_the_installed_orjson_is_trusted() -> None:
    assert available()  # a declared dependency: without it the command falls back, but slowly


@pytest.mark.parametrize("comma", [False, True])
def test_edges_are_written_as_json_dumps_writes_them(comma: bool) -> None:
    values = edges()
    assert json_float_texts(values, comma=comma).to_pylist() == reference(values, comma)


@pytest.mark.parametrize("comma", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_numbers_of_every_magnitude(seed: int, comma: bool) -> None:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, 50_000, dtype=np.uint64).view(np.float64)  # any double at all
    scales = rng.normal(0, 1, 50_000) * 10.0 ** rng.integers(-8, 18, 50_000)
    rounded = np.concatenate([np.round(rng.normal(0, 100, 5_000), digits) for digits in range(6)])
    values = np.concatenate([bits, scales, rounded])
    assert json_float_texts(values, comma=comma).to_pylist() == reference(values, comma)


def test_empty_and_single() -> None:
    assert json_float_texts(np.zeros(0)).to_pylist() == []
    assert json_float_texts(np.zeros(0), comma=True).to_pylist() == []
    assert json_float_texts(np.array([16.01])).to_pylist() == ["16.01"]
    assert json_float_texts(np.array([-1e-7]), comma=True).to_pylist() == ["-1e-07,"]


def test_a_strided_column_is_read_in_order() -> None:
    matrix = np.arange(12.0).reshape(4, 3) / 7.0
    assert json_float_texts(matrix[:, 1], comma=True).to_pylist() == reference(matrix[:, 1], True)
