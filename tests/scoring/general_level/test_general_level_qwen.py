"""The release's example, Qwen2.5-7B-Instruct, scored in both modes.

The file holds 5 NLP scores written as fractions (0.745, 0.555, 0.3359, 0.815, 0.28) and nothing else, so:

- official: every modality level is 0; the 5 Audio-Generation WER tasks count as wins (a missing WER
  becomes 0, the SoTA WER percentage becomes 1 - 5.6 = -460 and 0 >= -460); NLP has 5 supported tasks,
  0 wins (0.745 < 50), S_L = 0, Level-5 = 0.
- corrected: no modality wins; NLP fractions are read x 100, so only Analogical Reasoning (74.5 >= 50) wins:
  S_L = 74.5 / 115, w_L = S_L / 100; Level-5 = Level-4 x w_L = 0.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from mmgauge.general_level import load_results, load_specialist_table
from mmgauge.scoring.general_level import ResultTable, disagreements, score_levels

FIXTURE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "general_level" / "Qwen2.5-7B-Instruct_result.xlsx"
)
MODEL = "Qwen2.5-7B-Instruct"
RELEASE_T: dict[str, float | None] = {
    "MAE": 50, "RMS": 50, "MSE": 5, "RMSE": 5, "ABSREL": 0.1, "EPE": 1, "FID": 25, "FVD": 100, "FAD": 10,
    "PSNR": None, "SAD": 10, "RTE": 0.5, "CD": 1, "MCD": 5, "WER": None, "MS-SSIM": None, "MOS": None,
}  # fmt: skip


def release_value(metric: str, x: float) -> float:
    """The release's special-metric rule, written out independently of the package."""
    name = metric.upper()
    if name not in RELEASE_T:
        return x
    if math.isnan(x) or x == 0:
        return 0.0
    formulas = {"PSNR": math.tanh(x / 20), "WER": 1 - x, "MS-SSIM": (x + 1) / 2, "MOS": (x - 1) / 4}
    if name in formulas:
        return 100 * formulas[name]
    t = RELEASE_T[name]
    assert t is not None
    return 100 * (2 / (1 + math.exp(-t / x)) - 1)


def release_levels(sota_file: Path, results_file: Path) -> dict[str, float]:
    """The release's Level-2..5 and counts, computed straight from the two workbooks with pandas."""
    sota = pd.read_excel(sota_file, sheet_name=None)
    ours = pd.read_excel(results_file, sheet_name=None)
    out: dict[str, float] = {}
    level = {2: 0.0, 3: 0.0, 4: 0.0}
    for modality in ("Image", "Video", "Audio", "3D"):
        parts = []
        wins = 0
        for paradigm in ("Comprehension", "Generation"):
            s_df, m_df = sota[f"{modality}-{paradigm}"], ours[f"{modality}-{paradigm}"]
            s = [
                release_value(k, float(v))
                for k, v in zip(s_df["Metrics"], s_df["SoTA Performance"], strict=True)
            ]
            m = [release_value(k, float(v)) for k, v in zip(s_df["Metrics"], m_df[MODEL], strict=True)]
            present = [x for x in m if not math.isnan(x)]
            pairs = [(a, b) for a, b in zip(s, m, strict=True) if not math.isnan(b)]
            wins += sum(b >= a for a, b in pairs)
            parts.append((sum(present) / len(m), sum(b for a, b in pairs if b >= a) / len(m)))
        (l2c, s_c), (l2g, s_g) = parts
        level[2] += (l2c + l2g) / 2 / 4
        level[3] += (s_c + s_g) / 2 / 4
        level[4] += (0.0 if s_c == 0 or s_g == 0 else 2 * s_c * s_g / (s_c + s_g + 1e-6)) / 4
        out[f"{modality}.wins"] = wins
    nlp_s, nlp_m = sota["NLP"]["SoTA Performance"].tolist(), ours["NLP"][MODEL].tolist()
    present_nlp = [(a, b) for a, b in zip(nlp_s, nlp_m, strict=True) if not math.isnan(b)]
    s_l = sum(b for a, b in present_nlp if b >= a) / len(nlp_s)  # no RMSE score in this file to map
    out.update({"level2": level[2], "level3": level[3], "level4": level[4], "level5": level[4] * s_l / 100})
    out.update(
        {"nlp.supported": len(present_nlp), "nlp.wins": sum(b >= a for a, b in present_nlp), "s_l": s_l}
    )
    return out


@pytest.fixture(scope="module")
def table() -> ResultTable:
    return load_results(FIXTURE, load_specialist_table())


def test_official_matches_an_independent_computation(table: ResultTable) -> None:
    from mmgauge.general_level import default_sota_path

    expected = release_levels(default_sota_path(), FIXTURE)
    report = score_levels(table, "official")
    for key in ("level2", "level3", "level4", "level5"):
        assert getattr(report, key) == pytest.approx(expected[key], abs=1e-12)
    for modality, levels in report.modalities.items():
        assert levels.wins == expected[f"{modality}.wins"]
    assert (report.nlp.supported, report.nlp.wins) == (expected["nlp.supported"], expected["nlp.wins"])
    assert report.nlp.score == pytest.approx(expected["s_l"])
    # The values themselves, derived in the module docstring.
    assert (report.level2, report.level3, report.level4, report.level5) == (0.0, 0.0, 0.0, 0.0)
    assert {k: (v.supported, v.total, v.wins) for k, v in report.modalities.items()} == {
        "Image": (0, 316, 0), "Video": (0, 172, 0), "Audio": (0, 44, 5), "3D": (0, 52, 0),
    }  # fmt: skip
    assert (report.nlp.supported, report.nlp.total, report.nlp.wins, report.nlp.weight) == (5, 115, 0, 0.0)
    assert report.highest_level is None


def test_corrected(table: ResultTable) -> None:
    report = score_levels(table, "corrected")
    assert (report.level2, report.level3, report.level4, report.level5) == (0.0, 0.0, 0.0, 0.0)
    assert all((v.supported, v.wins) == (0, 0) for v in report.modalities.values())
    assert (report.nlp.supported, report.nlp.wins) == (5, 1)
    assert report.nlp.score == pytest.approx(74.5 / 115)
    assert report.nlp.weight == pytest.approx(0.745 / 115)
    values = [report.level2, report.level3, report.level4, report.level5]
    assert values == sorted(values, reverse=True) and all(0 <= v <= 100 for v in values)


def test_disagreements(table: ResultTable) -> None:
    found = disagreements(table)
    by_sheet: dict[str, int] = {}
    for d in found:
        by_sheet[d.sheet] = by_sheet.get(d.sheet, 0) + 1
    # 5 NLP fractions + the NLP RMSE SoTA; 5 WER wins; RTE; 5 CD SoTA values.
    assert by_sheet == {"NLP": 6, "Audio-Generation": 5, "3D-Comprehension": 1, "3D-Generation": 5}
    wer = [d for d in found if d.metric == "WER"]
    assert all({f.field for f in d.differences} == {"sota", "win"} for d in wer)
