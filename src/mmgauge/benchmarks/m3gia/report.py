"""M3GIA: the five CHC factors (Gc, Gv, Grw, Gq, Gf) per language as a radar, clusters, and the GIA.

The paper reports human averages as GIA per language (Table 2), not as factor accuracies, so the radar shows
the model's factor accuracies alone and the human reference appears as GIA beside the model's GIA.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Final

from mmgauge.benchmarks.m3gia.gia import human_gia
from mmgauge.benchmarks.m3gia.scoring import CLUSTERS, LanguageScores, M3GIAResult, MeanScores, Stat
from mmgauge.core.errors import UserError
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, Point, interval_point, with_n
from mmgauge.parts.report.section import Card, Section, baseline_series, charts, note, pct
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row

RADAR_FACTORS: Final = ("Gc", "Gv", "Grw", "Gq", "Gf")


def _result(bench: BenchView) -> M3GIAResult:
    return M3GIAResult.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    M3GIAResult.model_validate(result)


def _sd(value: Stat) -> str | None:
    return None if value.std is None else f"± {100 * value.std:.1f} sd over {len(value.rounds)} rounds"


def _human(language: str) -> float | None:
    try:
        return human_gia(language)
    except UserError:  # a language outside the paper's six has no human reference
        return None


def _cards(bench: BenchView) -> list[Card]:
    r = _result(bench)
    cards: list[Card] = []
    if r.mean is not None:
        cards.append(Card(f"M3GIA accuracy ({len(r.mean.languages)} languages)", pct(r.mean.overall.mean),
                          _sd(r.mean.overall), measure=f"M3GIA mean over {len(r.mean.languages)} languages"))
    for language, scores in r.per_language.items():
        ci = scores.overall_ci95
        cards.append(Card(f"M3GIA {language}", pct(scores.overall.mean),
                          f"95% CI {pct(ci[0], 1)}–{pct(ci[1], 1)}, n={scores.questions}" if ci
                          else _sd(scores.overall), measure=f"M3GIA {language} overall"))
        if scores.gia is not None:
            g = scores.gia
            interval = (f"95% CI {g.gia_ci.low:.2f}–{g.gia_ci.high:.2f}, n={g.gia_ci.n} · "
                        if g.gia_ci is not None else "")
            cards.append(Card(f"GIA {language}", f"{g.gia.mean:.2f}",
                              f"{interval}{g.gia_normalised.mean:.1f}% of human ({g.human_gia:.2f})"))
    if not any(s.gia for s in r.per_language.values()):
        cards.append(Card("GIA", "not computed", "needs all 300 questions of a language", warn=True))
    return cards


def _tables(bench: BenchView) -> list[Table]:
    r = _result(bench)
    factors: list[list[Cell]] = []
    clusters: list[list[Cell]] = []
    gia: list[list[Cell]] = []
    for language, s in r.per_language.items():
        for name, value in s.factors.items():
            factors.append([language, name, 100 * value.mean, None if value.std is None else 100 * value.std])
        for name in CLUSTERS:
            if name in s.clusters:
                value = s.clusters[name]
                clusters.append([language, name, 100 * value.mean,
                                 None if value.std is None else 100 * value.std])
        g = s.gia
        gia.append([
            language, s.questions, 100 * s.overall.mean, g.gia.mean if g else None,
            g.gia_normalised.mean if g else None, g.human_gia if g else _human(language),
            s.gia_note or (g.standardised_note if g else None),
        ])
    return [
        Table("m3gia_factors", ["language", "factor", "accuracy %", "sd %"], factors),
        Table("m3gia_clusters", ["language", "cluster", "accuracy %", "sd %"], clusters),
        Table("m3gia_gia", ["language", "questions", "accuracy %", "GIA", "GIA % of human", "human GIA",
                            "note"], gia),
    ]


def _cluster(r: M3GIAResult, language: str, cluster: str) -> float | None:
    value = r.per_language[language].clusters.get(cluster)
    return None if value is None else 100 * value.mean


def _counts(rows: list[Row], field: str) -> dict[str, dict[str, int]]:
    """Questions per language per factor (`field="factors"`, multi-label) or cluster, from the records."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        language = str(row.metadata.get("language", ""))
        labels = row.metadata.get(field) or []
        for label in labels if isinstance(labels, list) else [labels]:
            seen[language][str(label)].add(str(row.metadata.get("question_id", row.sample_id)))
    return {language: {label: len(ids) for label, ids in found.items()} for language, found in seen.items()}


def _pooled(counts: dict[str, dict[str, int]], label: str, languages: list[str]) -> int | None:
    got = [counts[lang][label] for lang in languages if label in counts.get(lang, {})]
    return sum(got) if got else None


def _body(bench: BenchView) -> str:
    r = _result(bench)
    parts = [note(line, warn=True) for line in r.notes]
    series: dict[str, list[float | None]] = {
        language: [s.factors[f].mean if f in s.factors else None for f in RADAR_FACTORS]
        for language, s in r.per_language.items()
        if any(f in s.factors for f in RADAR_FACTORS)
    }
    factors, clusters, gia = _tables(bench)
    if series:
        languages = list(r.per_language)
        by_factor, by_cluster = _counts(bench.rows, "factors"), _counts(bench.rows, "cluster")
        axes = [with_n(f, [by_factor.get(lang, {}).get(f) for lang in series]) for f in RADAR_FACTORS]
        named = {with_n(lang, [r.per_language[lang].questions]): values for lang, values in series.items()}
        parts.append(charts(
            lambda: plots.radar(axes, named, title="M3GIA factor accuracy by language"),
            lambda: plots.hbars(
                [with_n(c, [by_cluster.get(lang, {}).get(c) for lang in languages]) for c in CLUSTERS],
                {lang: [_cluster(r, lang, c) for c in CLUSTERS] for lang in languages},
                title="M3GIA clusters", xlabel="accuracy (%) (n: questions, per language in legend order; "
                                               "baselines: what trivial answerers score)",
                xmax=100,
                baselines=baseline_series(bench, {lang: f"clusters/{lang}" for lang in languages},
                                          list(CLUSTERS)),
            ),
        ))
        missing = [
            f"{language}: {', '.join(f for f, v in zip(RADAR_FACTORS, values, strict=True) if v is None)}"
            for language, values in series.items()
            if None in values
        ]
        if missing:
            parts.append(note("No questions of these factors were scored, so the radar leaves them out "
                              f"(they are not 0%): {'; '.join(missing)}.", warn=True))
    parts.append(note(
        "Human reference: the paper reports human averages as GIA per language (Table 2: En 16.01, Zh 16.69, "
        "Fr 19.52, Sp 16.22, Pt 16.00, Ko 18.05), not per factor; the radar shows the model's factor "
        "accuracies and the table compares its GIA with the human GIA."))
    parts.append(table_html(gia, caption="GIA against the human average"))
    parts.append(f"<details><summary>Factors and clusters</summary>{table_html(factors)}"
                 f"{table_html(clusters)}</details>")
    return "".join(parts)


def _breakdowns(bench: BenchView) -> list[Breakdown]:
    """Accuracy per language (with its interval), and per CHC factor and cluster over all languages run.

    Factors and clusters have no stored interval (their spread is over rounds), so they get no whiskers.
    """
    r = _result(bench)
    languages = list(r.per_language)
    by_language = Breakdown("language", "M3GIA accuracy per language", "accuracy (%)", 100, {
        lang: interval_point(s.overall.mean, s.overall_ci, 100, n=None if s.overall_ci else s.questions)
        for lang, s in r.per_language.items()}, "95% CI (Clopper-Pearson)")
    # The mean over languages where there is one; a single language's own scores otherwise.
    summary: MeanScores | LanguageScores | None = r.mean
    if summary is None and len(languages) == 1:
        summary = r.per_language[languages[0]]
    if summary is None:
        return [by_language]
    by_factor, by_cluster = _counts(bench.rows, "factors"), _counts(bench.rows, "cluster")
    factors = Breakdown("factors", "M3GIA CHC factors (all languages run)", "accuracy (%)", 100, {
        f: Point(100 * summary.factors[f].mean, None, _pooled(by_factor, f, languages))
        for f in RADAR_FACTORS if f in summary.factors}, radar=True)
    clusters = Breakdown("clusters", "M3GIA clusters (all languages run)", "accuracy (%)", 100, {
        c: Point(100 * summary.clusters[c].mean, None, _pooled(by_cluster, c, languages))
        for c in CLUSTERS if c in summary.clusters})
    return [by_language, factors, clusters]


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    r = _result(bench)
    out: dict[str, float | None] = {"M3GIA accuracy %": 100 * r.mean.overall.mean if r.mean else None}
    for language, s in r.per_language.items():
        if s.gia is not None:
            out[f"M3GIA GIA {language}"] = s.gia.gia.mean
    return out


def _category(row: Row) -> str:
    language = row.metadata.get("language", "")
    return f"{language}: {row.metadata.get('question_type', '')}"


SECTION = Section(
    title="M3GIA", validate=_validate, cards=_cards, body=_body, tables=_tables, leaderboard=_leaderboard,
    category=_category, breakdowns=_breakdowns,
)
