"""The pydantic forms of M3GIA's GIA results and of the human statistics (`mmgauge.benchmarks.m3gia.gia` gives
them by name too). Apart, because building a pydantic model class takes milliseconds (and the first one
loads pydantic's plugins): `mmgauge score m3gia --json` writes its scores from columns without them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class HumanStats(BaseModel):
    """Raw per-type mean and SD of the human sample a model was fitted on (not in the M3GIA release)."""

    model_config = ConfigDict(frozen=True)

    mean: dict[str, float]
    sd: dict[str, float]


class GiaRow(BaseModel):
    model: str | None = None  # the model's name, when the counts file names its rows (null otherwise)
    gia: float
    gia_normalised: float
    factors: dict[str, float]
    scale: Literal["official", "standardised"]  # m3gia_gia.Scale (not imported from there: no cycle)
    gia_standardised: float | None = None
    factors_standardised: dict[str, float] | None = None
    human_percentile: float | None = None


class GiaResult(BaseModel):
    language: str
    human_gia: float
    scale: Literal["official", "standardised"]
    rows: list[GiaRow]
