"""The report page: one self-contained HTML file (styles, script, charts and thumbnails inline).

Every value from a run goes through `html.escape` here or in `tables.table_html`; data for the sample browser
goes through `browser.json_block`. The Content-Security-Policy names the one inline script and style by hash:
nothing else can run, and the page may load nothing but `data:` images.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape

from mmgauge.core.baselines import BaselineScores, baselines_text, belonging_text
from mmgauge.core.version import __version__
from mmgauge.parts.report.section import baselines_table, note
from mmgauge.parts.report.tables import Cell, Table, collapsed, table_html
from mmgauge.parts.report.views import BenchView
from mmgauge.report.across import across_section
from mmgauge.report.assets import CSS, JS
from mmgauge.report.browser import BrowserData
from mmgauge.report.compare import compare, is_partial, leaderboard
from mmgauge.report.judge_view import agreement_html, audit_html
from mmgauge.report.load import RunView
from mmgauge.report.provenance import ERRORS_SHOWN, errors_table, provenance_table
from mmgauge.report.sections import Card, checked
from mmgauge.report.significance import TIE, compare_runs, leaderboard_marks, significance_section

CHANGED_SHOWN = 100


@dataclass
class Page:
    html: str
    tables: list[Table] = field(default_factory=list)


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _csp() -> str:
    return (f"default-src 'none'; img-src data:; style-src {_hash(CSS)}; script-src {_hash(JS)}; "
            "base-uri 'none'; form-action 'none'")


def _cards(cards: list[Card], baselines: Mapping[str, BaselineScores]) -> str:
    out = []
    own = {card.measure or card.label for card in cards}
    for card in cards:
        cls = "card warn" if card.warn else "card"
        ci = f'<div class="ci">{escape(card.ci)}</div>' if card.ci else ""
        measure = card.measure or card.label
        # With the baselines of what the card's value gives beside its headline (a split's F1).
        trivial = "; ".join(text for text in (baselines_text(baselines, measure),
                                              belonging_text(baselines, measure, own)) if text)
        if trivial:
            ci += f'<div class="baselines">baselines: {escape(trivial)}</div>'
        out.append(f'<div class="{cls}"><div class="label">{escape(card.label)}</div>'
                   f'<div class="value">{escape(card.value)}</div>{ci}</div>')
    return '<div class="cards">' + "".join(out) + "</div>"


def _prefixed(tables: list[Table], prefix: str) -> list[Table]:
    return [Table(f"{prefix}{t.name}", t.columns, t.rows, t.digits, t.sortable) for t in tables]


def _bench_section(run_no: int, bench: BenchView, tables: list[Table], run: RunView) -> tuple[str, str]:
    """(anchor id, HTML) of one benchmark of one run; its export tables are appended to `tables`."""
    section, problem = checked(bench)
    anchor = f"run{run_no + 1}-{bench.name}"
    parts = [f'<section id="{escape(anchor)}" data-bench="{escape(bench.name)}">'
             f"<h3>{escape(section.title)}</h3>"]
    if problem:
        parts.append(note(problem, warn=True))
    if bench.partial:
        parts.append(note(f"Partial: {bench.coverage} questions x rounds answered. These scores cover only "
                          "the answered part of the dataset.", warn=True))
    parts.append(_cards(section.cards(bench), bench.baselines))
    parts.append(section.body(bench))
    own = section.tables(bench)
    trivial = baselines_table(bench)
    if trivial is not None:
        parts.append(f"<details><summary>Baselines: what trivial answerers score here "
                     f"({len(trivial.rows)})</summary>{table_html(trivial)}"
                     + note("Scored by the same rules as the model, on the same questions; chance is the "
                            "exact expected score of uniformly random answers.") + "</details>")
        own = [*own, trivial]
    audit = run.judge_audit.benchmarks.get(bench.name) if run.judge_audit is not None else None
    if audit is not None:
        judge = run.judge_audit.judge if run.judge_audit is not None else None
        html, audit_tables = audit_html("", judge, audit)
        parts.append(html)
        own = [*own, *audit_tables]
    if bench.rows:
        prov, errs = provenance_table(bench), errors_table(bench)
        parts.append(f"<h4>Extraction provenance</h4>{table_html(prov)}")
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in bench.counts.items())
        if counts:
            parts.append(f'<p class="note">{escape(counts)}</p>')
        if errs.rows:
            parts.append(f"<h4>Failed requests ({len(errs.rows)})</h4>"
                         + note("Failed requests are not scored; the same command run again retries them.",
                                warn=True)
                         + collapsed(errs, "failed requests", limit=ERRORS_SHOWN))
        else:
            parts.append('<p class="note">No failed requests.</p>')
        own = [*own, prov, errs]
    tables.extend(_prefixed(own, f"run{run_no + 1}_"))
    parts.append("</section>")
    return anchor, "".join(parts)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def manifest_tables(run: RunView) -> list[Table]:
    m = run.manifest
    if m is None:
        return []
    rows: list[list[Cell]] = [
        ["model", m.model.label()], ["backend", m.model.backend], ["model name", m.model.model],
        ["base url", m.model.base_url], ["model path", m.model.path],
        ["API key variable", m.model.api_key_env],
        ["model options", _json(m.model.options)], ["model fingerprint", m.model_fingerprint],
        ["judge", m.judge.label() if m.judge else "none"],
        ["generation", _json(m.generation.model_dump(exclude={"schema_version"}))],
        ["seeds", _json(m.seeds)], ["toolkit version", m.toolkit_version], ["started", m.started_at],
        ["updated", m.updated_at], ["finished", m.finished_at or "not finished"],
        ["host", f"{m.host.hostname} · {m.host.platform} · Python {m.host.python}"],
        ["command", " ".join(m.command)],
    ]
    datasets: list[list[Cell]] = [
        [d.benchmark, d.data, d.fingerprint, d.samples, _json(d.options)] for d in m.datasets
    ]
    return [Table("manifest", ["field", "value"], rows),
            Table("datasets", ["benchmark", "data", "fingerprint", "samples", "options"], datasets)]


def _run_section(run_no: int, run: RunView, tables: list[Table]) -> tuple[list[tuple[str, str]], str]:
    anchor = f"run{run_no + 1}"
    links = [(anchor, f"Run {run_no + 1}: {run.model}")]
    parts = [f'<section id="{anchor}" class="run"><h2>Run {run_no + 1}: {escape(run.model)}</h2>',
             f'<p class="note">{escape(str(run.path))}</p>']
    parts.extend(note(text, warn=True) for text in run.caveats)
    parts.extend(note(text, warn=True) for text in run.notes)
    if not run.benchmarks:
        parts.append(note("This run has no benchmark results and no answers yet.", warn=True))
    for bench in run.benchmarks.values():
        bench_anchor, html = _bench_section(run_no, bench, tables, run)
        links.append((bench_anchor, f"· {bench.name}"))
        parts.append(html)
    agreement, agreement_tables = agreement_html(f"run{run_no + 1}_", run.judge_agreement)
    parts.append(agreement)
    tables.extend(agreement_tables)
    manifest = _prefixed(manifest_tables(run), f"run{run_no + 1}_")
    if manifest:
        parts.append("<details><summary>Run manifest: model, generation settings, judge, versions, data "
                     f"fingerprints</summary>{table_html(manifest[0])}{table_html(manifest[1])}</details>")
        tables.extend(manifest)
    parts.append("</section>")
    return links, "".join(parts)


def _comparisons(runs: list[RunView], tables: list[Table]) -> str:
    parts = ['<section id="compare"><h2>Run comparison</h2>',
             note("Each run against run 1, sample by sample. The sample browser's 'changed vs run 1' filter "
                  "shows the changed samples in full.")]
    for number in range(1, len(runs)):
        summary, changed = compare(runs[0], runs[number], number)
        tables.extend([summary, changed])
        parts.append(f"<h3>Run 1 ({escape(runs[0].label)}) vs run {number + 1} ({escape(runs[number].label)})"
                     f"</h3>{table_html(summary)}")
        parts.append(collapsed(changed, "changed samples", limit=CHANGED_SHOWN) if changed.rows
                     else '<p class="note">No sample changed outcome.</p>')
    parts.append("</section>")
    return "".join(parts)


def render_page(runs: list[RunView], browser: BrowserData) -> Page:
    tables: list[Table] = []
    links: list[tuple[str, str]] = []
    body: list[str] = []
    if len(runs) > 1:
        complete = [i for i, run in enumerate(runs) if not is_partial(run)]
        partial = [i for i, run in enumerate(runs) if is_partial(run)]
        board = leaderboard([runs[i] for i in complete])
        compared = compare_runs(runs)
        marks, neighbours = leaderboard_marks(board, runs, compared, complete)
        tables.extend([board, neighbours])
        ties = (f"{TIE}: not distinguishable from the run ranked just above it on that number (paired test "
                "on the items both answered; hover for the p-value). ") if marks else ""
        html = ('<section id="leaderboard"><h2>Leaderboard</h2>' + note(f"{ties}Click a column header to "
                "sort.") + table_html(board, marks=marks))
        if partial:
            apart = leaderboard([runs[i] for i in partial], "leaderboard_partial")
            tables.append(apart)
            why = ("These runs answered only part of some benchmark's data (n says how much): their numbers "
                   "rest on fewer questions and are not ranked with complete runs.")
            html += "<h3>Partial runs (ranked apart)</h3>" + note(why, warn=True) + table_html(apart)
        body.append(html + "</section>")
        body.append(significance_section(runs, compared, tables))
        body.append(across_section(runs, tables))
        body.append(_comparisons(runs, tables))
        links += [("leaderboard", "Leaderboard"), ("significance", "Significance"), ("across", "Across runs"),
                  ("compare", "Comparison")]
    for number, run in enumerate(runs):
        run_links, html = _run_section(number, run, tables)
        links += run_links
        body.append(html)
    body.append('<section id="browser"><h2>Samples</h2>'
                + "".join(note(text, warn=True) for text in browser.notes)
                + f'<p class="note">{browser.rows} answers; search their text, filter them and page through '
                '50 at a time.</p>'
                '<div id="browser-root"></div><noscript>The sample browser needs JavaScript.</noscript>'
                "</section>")
    links.append(("browser", "Samples"))
    title = "mmgauge report: " + ", ".join(run.model for run in runs)
    nav = "".join(f'<a href="#{escape(anchor)}">{escape(text)}</a>' for anchor, text in links)
    html = (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(_csp())}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<header class="top"><h1>{escape(title)}</h1><p>{len(runs)} run(s) · mmgauge {escape(__version__)}'
        "</p></header>"
        f'<nav class="toc">{nav}</nav><main>{"".join(body)}</main>'
        + "\n".join(browser.blocks)
        + f"<script>{JS}</script></body></html>\n"
    )
    return Page(html, tables)
