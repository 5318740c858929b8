"""The judge documents of a run folder: how much of the headline an LLM judge decided, and how well a judge
agrees with the rules (and with another judge).

`JudgeAudit` (`judge_audit.json`) is derived from the run's records each time the run is scored: per
benchmark, the answers the rules could not read, the scoring units (question groups, images, questions)
whose verdict hangs on them, and the headline score with every such answer counted right and counted wrong,
the judge-free bounds. `JudgeAgreement` (`judge_agreement.json`) holds the studies `mmgauge audit-judge` ran:
a sample of rule-read answers read again by a judge, with Cohen's kappa and the raw agreement.

Like `results.py`, this module needs no benchmark code.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from mmgauge.stats.agreement import Kappa

JUDGE_AUDIT_SCHEMA_VERSION = 1


class ScoreBounds(BaseModel):
    """One headline number as scored, and its judge-free bounds."""

    measure: str
    #: "%" (accuracies) or "points" (MME totals).
    unit: str
    value: float
    #: Every answer the rules could not read counted right / counted wrong (no judge needed for either).
    all_right: float
    all_wrong: float
    #: Units whose verdict depends on at least one such answer (they differ between the two bounds).
    decided: int
    #: Units the number is computed over.
    units: int
    unit_name: str

    @property
    def points_at_stake(self) -> float:
        """Headline points the unreadable answers decide: the width of the judge-free bounds."""
        return self.all_right - self.all_wrong


class BenchmarkJudgeAudit(BaseModel):
    benchmark: str
    #: Scored answers (failed requests excluded).
    answers: int
    #: Answers the rules could not read: read by the judge, left unresolved, or given a random letter.
    rule_unresolved: int
    #: Of those, answers the judge read.
    judged: int
    #: Of those, answers still unread after the judge (they count wrong).
    unresolved: int
    #: Of those, answers given a seeded random letter (--random-fallback).
    random: int = 0
    #: Of those, answers cut at the token limit (finish_reason "length"): the rules might have read them
    #: whole, so a larger --max-tokens can narrow the bounds.
    truncated: int = 0
    bounds: list[ScoreBounds] = Field(default_factory=list)


class JudgeAudit(BaseModel):
    """`judge_audit.json`: what the judge decided in this run, per benchmark."""

    schema_version: int = JUDGE_AUDIT_SCHEMA_VERSION
    #: The judge the run was scored with (its spec label), or None for a run without one.
    judge: str | None = None
    benchmarks: dict[str, BenchmarkJudgeAudit] = Field(default_factory=dict)

    @property
    def relevant(self) -> bool:
        """Whether any benchmark had answers the rules could not read (else there is nothing to show)."""
        return any(entry.rule_unresolved for entry in self.benchmarks.values())


class AgreementItem(BaseModel):
    """One re-read answer: what the rules read and what each judge read ("none" for no readable answer)."""

    benchmark: str
    sample_id: str
    round: int = 0
    rule: str
    judge: str
    against: str | None = None


class Agreement(BaseModel):
    """Agreement on one set of re-read answers."""

    items: int
    #: The judge vs the rules (None: no items).
    judge_vs_rules: Kappa | None = None
    #: The second judge vs the rules, and vs the first judge, when one was given.
    against_vs_rules: Kappa | None = None
    against_vs_judge: Kappa | None = None
    #: Answers a judge could not read at all (no readable reply, or unavailable): label "none".
    judge_unreadable: int = 0
    against_unreadable: int = 0


class AgreementStudy(BaseModel):
    """One `mmgauge audit-judge` run: a seeded sample of rule-read answers read again by a judge."""

    judge: str
    against: str | None = None
    #: Answers asked for, and the seed of the sample.
    sample: int
    seed: int
    created_at: str = ""
    overall: Agreement
    #: Per benchmark (their labels differ: yes/no for MME, option letters for MMBench and M3GIA).
    per_benchmark: dict[str, Agreement] = Field(default_factory=dict)
    items: list[AgreementItem] = Field(default_factory=list)


class JudgeAgreement(BaseModel):
    """`judge_agreement.json`: every agreement study run on this folder, newest last."""

    schema_version: int = JUDGE_AUDIT_SCHEMA_VERSION
    studies: list[AgreementStudy] = Field(default_factory=list)
