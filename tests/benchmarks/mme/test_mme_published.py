"""The published figure: LaVIN's MME totals, perception 963.61 and cognition 249.64 (Fu et al., MME paper).

LaVIN's answers are not public, but its per-subtask scores are (the paper's tables). Each of them is reachable
on the official template with a definite number of right answers, so this fixture answers the official
template so as to score exactly LaVIN's published subtask scores, then checks that the official-tool folder
form, read and scored end to end by `mmgauge score mme`, gives the published totals.

Derivation, per subtask with n questions on n/2 images: let p images have both questions right and s images
exactly one (the first), the rest none; then c = 2p + s questions are right, acc = 100 c / n, acc+ = 100 p /
(n/2), score = acc + acc+. The (c, p) below reproduce the published two-decimal score, e.g. existence:
57/60 = 95.00, 27/30 = 90.00, score 185.00; posters: 176/294 = 59.864, 29/147 = 19.728, score 79.59.
Unrounded, the ten perception scores sum to 963.6114... and the four cognition scores to 249.6429..., which
round to the published totals.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

TEMPLATE = Path(__file__).resolve().parents[2] / "fixtures" / "mme" / "official_template"

#: subtask -> (published LaVIN score, right answers c, images with both right p)
LAVIN: dict[str, tuple[float, int, int]] = {
    "existence": (185.00, 57, 27),
    "count": (88.33, 37, 8),
    "position": (63.33, 32, 3),
    "color": (75.00, 35, 5),
    "OCR": (107.50, 27, 8),
    "posters": (79.59, 176, 29),
    "celebrity": (47.35, 161, 0),
    "scene": (136.75, 315, 116),
    "landmark": (93.50, 258, 58),
    "artwork": (87.25, 249, 50),
    "commonsense_reasoning": (87.14, 86, 18),
    "numerical_calculation": (65.00, 22, 2),
    "text_translation": (47.50, 19, 0),
    "code_reasoning": (50.00, 20, 0),
}


def flip(truth: str) -> str:
    return "No" if truth.strip().lower() == "yes" else "Yes"


def answer_like_lavin(template: Path, out: Path) -> None:
    out.mkdir()
    for subtask, (_, right, both) in LAVIN.items():
        lines = (template / f"{subtask}.txt").read_text(encoding="utf-8").splitlines()
        one = right - 2 * both  # images with only their first question right
        written = []
        for number, line in enumerate(lines):
            name, question, truth = line.split("\t")[:3]
            image = number // 2
            first = number % 2 == 0
            is_right = image < both or (image < both + one and first)
            written.append("\t".join((name, question, truth, truth if is_right else flip(truth))))
        (out / f"{subtask}.txt").write_text("\n".join(written) + "\n", encoding="utf-8")


@pytest.fixture
def lavin_folder(tmp_path: Path) -> Path:
    if not TEMPLATE.is_dir():
        pytest.fail(f"the official template fixture is missing: {TEMPLATE}")
    folder = tmp_path / "lavin"
    answer_like_lavin(TEMPLATE, folder)
    return folder


def test_lavin_published_totals(cli: Any, lavin_folder: Path) -> None:
    result = cli("score", "mme", lavin_folder, "--json")
    assert result.code == 0, result.err
    scores = json.loads(result.out)
    for subtask, (published, _, _) in LAVIN.items():
        assert round(scores["subtasks"][subtask]["score"], 2) == published, subtask
    assert round(scores["perception"], 2) == 963.61
    assert round(scores["cognition"], 2) == 249.64
    assert scores["perception"] == pytest.approx(963.6114, abs=1e-4)
    assert scores["cognition"] == pytest.approx(249.6429, abs=1e-4)


def test_the_fixture_really_has_the_stated_counts(lavin_folder: Path) -> None:
    for subtask, (_, right, both) in LAVIN.items():
        rows = [line.split("\t") for line in (lavin_folder / f"{subtask}.txt").read_text().splitlines()]
        hits = [row[2] == row[3] for row in rows]
        assert sum(hits) == right
        assert sum(hits[i] and hits[i + 1] for i in range(0, len(hits), 2)) == both
    shutil.rmtree(lavin_folder)
