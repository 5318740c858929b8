"""What a benchmark section provides, and the generic section used when no module fits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from mmgauge.core.baselines import baseline_labels
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row


@dataclass(frozen=True)
class Card:
    """One headline figure: a label, the value as shown and its confidence interval if there is one."""

    label: str
    value: str
    ci: str | None = None
    warn: bool = False
    #: The headline measure it shows (its summary label), whose baselines the card shows; default `label`.
    measure: str | None = None


def _no_cards(bench: BenchView) -> list[Card]:
    return [Card(label, value) for label, value in bench.headline[:6]]


def _nothing(bench: BenchView) -> str:
    return ""


def _no_tables(bench: BenchView) -> list[Table]:
    return []


def _no_leaderboard(bench: BenchView) -> dict[str, float | None]:
    return {}


def _no_breakdowns(bench: BenchView) -> list[Breakdown]:
    return []


def default_category(row: Row) -> str:
    for key in ("category", "subtask", "question_type"):
        value = row.metadata.get(key)
        if value:
            return str(value)
    return ""


def _accept(result: dict[str, Any]) -> None:
    pass


@dataclass(frozen=True)
class Section:
    """How one benchmark appears in the report. Every callable gets the benchmark's view of one run.

    `validate` raises (pydantic ValidationError, ValueError, KeyError) when the stored result cannot be read
    by this section; `category` names the browser's category of a record (MME subtask, MMBench L3, ...);
    `breakdowns` gives the per-category scores the cross-run charts line up over runs.
    """

    title: str
    validate: Callable[[dict[str, Any]], None] = _accept
    cards: Callable[[BenchView], list[Card]] = _no_cards
    body: Callable[[BenchView], str] = _nothing
    tables: Callable[[BenchView], list[Table]] = _no_tables
    leaderboard: Callable[[BenchView], dict[str, float | None]] = _no_leaderboard
    category: Callable[[Row], str] = default_category
    breakdowns: Callable[[BenchView], list[Breakdown]] = _no_breakdowns
    needs_result: bool = True
    notes: list[str] = field(default_factory=list)


def baseline_series(
    bench: BenchView, series: Mapping[str, str], labels: Sequence[str]
) -> dict[str, dict[str, list[float | None]]]:
    """`plots.hbars`'s `baselines` for a chart: baseline -> chart series -> value per label, from the
    breakdown each series draws (`series`: chart series name -> breakdown name in the baselines)."""
    found: dict[str, dict[str, list[float | None]]] = {}
    for name, scores in bench.baselines.items():
        drawn = {shown: [scores.breakdowns[breakdown].get(label) for label in labels]
                 for shown, breakdown in series.items() if breakdown in scores.breakdowns}
        if any(value is not None for values in drawn.values() for value in values):
            found[name] = drawn
    return found


def baselines_table(bench: BenchView) -> Table | None:
    """One row per baseline: what it answers and its value of each headline measure."""
    if not bench.baselines:
        return None
    labels = baseline_labels(bench.baselines)
    rows: list[list[Cell]] = [
        [name, scores.description, *[scores.headline.get(label) for label in labels]]
        for name, scores in bench.baselines.items()
    ]
    return Table(f"{bench.name}_baselines", ["baseline", "answers", *labels], rows)


def pct(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{100 * value:.{digits}f}%"


def figure_row(*images: str) -> str:
    """Charts side by side (they wrap on narrow screens)."""
    return '<div class="figs">' + "".join(f"<figure>{image}</figure>" for image in images if image) + "</div>"


def charts(*builders: Callable[[], str]) -> str:
    """The charts side by side, or a one-line note where they would be when matplotlib is missing."""
    if not plots.available():
        return note(plots.MISSING)
    return figure_row(*(build() for build in builders))


def note(text: str, *, warn: bool = False) -> str:
    cls = "callout warn" if warn else "callout"
    return f'<p class="{cls}">{escape(text)}</p>'


def _flatten(value: Any, prefix: str, out: list[list[Cell]], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out, limit)
    elif isinstance(value, list) and len(value) <= 8 and all(not isinstance(v, dict | list) for v in value):
        out.append([prefix, ", ".join(str(v) for v in value)])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _flatten(item, f"{prefix}[{i}]", out, limit)
    elif value is None or isinstance(value, str | int | float | bool):
        out.append([prefix, value])
    else:
        out.append([prefix, str(value)])


def _generic_table(bench: BenchView) -> list[Table]:
    if bench.result is None:
        return []
    rows: list[list[Cell]] = []
    _flatten(bench.result, "", rows, 2000)
    return [Table(f"{bench.name}_result", ["field", "value"], rows, digits=4)]


def _generic_body(bench: BenchView) -> str:
    parts = []
    if bench.headline:
        rows: list[list[Cell]] = [[label, value] for label, value in bench.headline]
        parts.append(table_html(Table(f"{bench.name}_headline", ["measure", "value"], rows)))
    for table in _generic_table(bench):
        parts.append(f"<details><summary>All result values ({len(table.rows)})</summary>"
                     f"{table_html(table, limit=400)}</details>")
    return "".join(parts)


def generic_section(name: str) -> Section:
    return Section(title=name, body=_generic_body, tables=_generic_table, needs_result=False)
