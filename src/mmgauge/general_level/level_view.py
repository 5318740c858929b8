"""The fields of a General-Level report that the report reads (from `mmgauge score level` or from runs)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ModalityView(BaseModel):
    model_config = ConfigDict(extra="ignore")

    level2: float
    level3: float
    level4: float
    supported: int
    total: int
    wins: int


class NlpView(BaseModel):
    model_config = ConfigDict(extra="ignore")

    supported: int
    wins: int
    weight: float
    total: int | None = None
    score: float | None = None


class LevelView(BaseModel):
    """The fields of a General-Level report the report shows (percent, 0..100, except level5's weight)."""

    model_config = ConfigDict(extra="ignore")

    model: str = ""
    mode: str = ""
    level2: float
    level3: float
    level4: float
    level5: float
    modalities: dict[str, ModalityView]
    nlp: NlpView
    highest_level: int | None
    #: Tags and sentences of the runs' caveats (built-in sample data, a baseline model); absent in reports
    #: of result files and of mmgauge before it wrote them.
    labels: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


def as_level_report(data: Any) -> dict[str, Any] | None:
    """`data` if it is a General-Level report (a dumped LevelReport or `score level --json`), else None."""
    if not isinstance(data, dict) or "highest_level" not in data or "modalities" not in data:
        return None
    try:
        LevelView.model_validate(data)
    except ValidationError:
        return None
    return data
