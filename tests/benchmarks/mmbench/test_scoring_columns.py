"""The column forms of `score_columns` give exactly what their plain forms give."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from mmgauge.benchmarks.mmbench.scoring import circular_groups, score_columns, score_groups
from mmgauge.benchmarks.mmbench.scoring_columns import Coded, group_codes, has_repeats, lowest_copy_rows


@pytest.mark.parametrize("values", [
    np.array([5, 3, 5, 0, 3, 9], dtype=np.int64),  # counted
    np.array([5, -3, 5, 0, -3, 9], dtype=np.int64),  # negative: sorted
    np.array([10**15, 3, 10**15, 7], dtype=np.int64),  # beyond counting range: sorted
    np.random.default_rng(1).integers(0, 50, size=1000),
    np.zeros(0, dtype=np.int64),
])
def test_group_codes_are_numpy_unique(values: np.ndarray) -> None:
    uniques, codes, counts = group_codes(values)
    want_uniques, want_codes, want_counts = np.unique(values, return_inverse=True, return_counts=True)
    assert np.array_equal(uniques, want_uniques) and uniques.dtype == want_uniques.dtype
    assert np.array_equal(codes, want_codes.reshape(-1)) and np.array_equal(counts, want_counts)
    assert has_repeats(values) == (len(np.unique(values)) < len(values))


def test_lowest_copy_rows_are_the_lexsort_firsts() -> None:
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 300, size=3000)
    codes[:300] = np.arange(300)  # every group present
    copy = rng.integers(-1, 4, size=3000)
    order = np.lexsort((copy, codes))
    first = order[np.r_[True, codes[order][1:] != codes[order][:-1]]]
    assert np.array_equal(lowest_copy_rows(codes, copy, 300), first)


def test_coded_counts_are_counter_most_common() -> None:
    rng = random.Random(4)
    methods = [rng.choice(["rule-letter", "unresolved", "failure", "rule-text", "rule-regex"])
               for _ in range(500)] + ["judge"] * 3 + ["random"] * 3
    coded = Coded.of(methods)
    assert list(coded.most_common().items()) == Counter(methods).most_common()
    names = ["x", "y", "x", "z"]  # a name twice: counted together, as Counter would
    codes = np.array([1, 0, 2, 3, 2, 1], dtype=np.int64)
    assert list(Coded(codes, names).most_common().items()) == Counter(names[c] for c in codes).most_common()
    assert np.array_equal(coded.equals("failure"), np.array(methods, dtype=object) == "failure")


class _Column:
    """A label column read only for the rows asked (as a predictions file's columns are)."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.asked = 0

    def at(self, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
        self.asked += len(rows)
        coded = Coded.of(self.values[rows])
        return coded.codes, list(coded.names)


def test_coded_methods_and_label_columns_score_as_arrays() -> None:
    rng = np.random.default_rng(5)
    rows = 4000
    group = rng.integers(0, 900, size=rows)
    copy = np.zeros(rows, dtype=np.int64)
    for g in np.unique(group):  # copies 0..n-1 within each group, in row order
        where = np.flatnonzero(group == g)
        copy[where] = np.arange(len(where))
    n_copies = np.bincount(group)[group]
    correct = rng.random(rows) < 0.7
    has_answer = rng.random(rows) < 0.98
    methods = np.array(["rule-letter", "unresolved", "failure", "rule-text"], dtype=object)[
        rng.integers(0, 4, size=rows)]
    labels = {name: np.array(choices, dtype=object)[rng.integers(0, len(choices), size=rows)]
              for name, choices in (("category", ["ocr", "", "scene"]),
                                    ("l2", ["coarse_perception", "logic_reasoning", ""]), ("split", ["dev"]))}
    plain = score_columns(group=group, copy=copy, n_copies=n_copies, correct=correct, method=methods,
                          has_answer=has_answer, category=labels["category"], l2=labels["l2"],
                          split=labels["split"])
    columns = {name: _Column(values) for name, values in labels.items()}
    coded = score_columns(group=group, copy=copy, n_copies=n_copies, correct=correct,
                          method=Coded.of(methods), has_answer=has_answer, category=columns["category"],
                          l2=columns["l2"], split=columns["split"])
    assert coded.model_dump_json() == plain.model_dump_json()
    assert plain.unanswered_groups and plain.unlabelled
    assert all(column.asked == coded.n_groups for column in columns.values())


def test_groups_made_once_score_any_answers_as_score_columns_does() -> None:
    # A baseline's answer sets, or a file's answers read while its groups are made: one CircularGroups,
    # several answers, each scored exactly as by itself; failed requests leave their groups out.
    rng = np.random.default_rng(6)
    rows = 3000
    group = np.sort(rng.integers(0, 800, size=rows))
    copy = np.zeros(rows, dtype=np.int64)
    for g in np.unique(group):
        where = np.flatnonzero(group == g)
        copy[where] = np.arange(len(where))
    n_copies = np.bincount(group)[group]
    has_answer = rng.random(rows) < 0.97
    failed = rng.random(rows) < 0.02
    labels = {name: np.array(choices, dtype=object)[rng.integers(0, len(choices), size=rows)]
              for name, choices in (("category", ["ocr", "scene"]), ("l2", ["logic_reasoning", ""]),
                                    ("split", ["dev", "test"]))}
    shared = {"group": group, "copy": copy, "n_copies": n_copies, "has_answer": has_answer,
              "category": labels["category"], "l2": labels["l2"], "split": labels["split"]}
    groups = circular_groups(**shared, request_failed=failed)
    assert groups.pending_groups and groups.unanswered_groups and groups.keep is not None
    for share in (0.3, 0.7, 0.95):
        correct = rng.random(rows) < share
        methods = np.array(["rule-letter", "unresolved", "failure"], dtype=object)[rng.integers(0, 3, rows)]
        skipped = rng.random(rows) < 0.1
        alone = score_columns(**shared, correct=correct, method=methods, request_failed=failed,
                              not_judged=skipped, judged=True)
        reused = score_groups(groups, correct=correct, method=methods, not_judged=skipped, judged=True)
        assert reused.model_dump_json() == alone.model_dump_json()


def test_group_keys_are_the_numbers_as_text() -> None:
    from mmgauge.benchmarks.mmbench.scoring import _int_texts

    for numbers in ([], [7], [0, -3, 10**15, 42]):
        assert _int_texts(numbers) == [str(n) for n in numbers]
