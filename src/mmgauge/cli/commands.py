"""The one table of `mmgauge`'s commands: where each lives, its one-line help and its old spellings.

The tree (`tree.py`) reads it: a listing (`mmgauge --help`, `mmgauge score --help`) shows the help written
here without importing any command's module, and a command line imports only the module of the command it
runs. A benchmark's `score NAME` and `export NAME` are not here: they come from the benchmark's
`score_command` and `export_command` hooks (`tree.HOOKED_GROUPS`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A command (`target`: "module:function") or a group (`target` None), by its path (`score level`)."""

    path: str
    target: str | None
    help: str
    #: Old spellings, still accepted (hidden) with a note naming `path`.
    aliases: tuple[str, ...] = ()


#: In the order of `mmgauge --help`.
COMMANDS: tuple[Command, ...] = (
    Command("run", "mmgauge.cli.run:run", "Evaluate a model."),
    Command("list", "mmgauge.cli.listing:list_command",
            "List the benchmarks (options, presets) and model backends."),
    Command("sample", "mmgauge.cli.sample:sample", "Write the built-in sample data of a benchmark."),
    Command("report", "mmgauge.cli.report:report_command",
            "Write one HTML file for RUN_DIR...: scores with CIs, charts."),
    Command("compare", "mmgauge.cli.compare:compare_command",
            "Is run A really better than run B? Paired tests."),
    Command("audit-judge", "mmgauge.cli.audit:audit_judge_command",
            "Re-read N answers the rules read with the judge."),
    Command("schema", "mmgauge.cli.schema:schema", "Print the JSON Schema of a file mmgauge reads."),
    Command("completion", "mmgauge.cli.completion:completion", "Print the shell completion script."),
    Command("score", None, "Score existing answers without any model."),
    Command("score level", "mmgauge.cli.level:level_command",
            "Score RESULTS against General-Level's specialist table.", aliases=("level",)),
    Command("export", None, "Write runs' answers or scores in other formats."),
    Command("export table", "mmgauge.cli.export_table:table_command",
            "One tidy table of every headline metric of every run."),
    Command("cache", None, "Inspect or clear the response cache."),
    Command("cache stats", "mmgauge.cli.cache:stats", "Responses per model, and the cache folder's parts."),
    Command("cache clear", "mmgauge.cli.cache:clear", "Delete cached responses (all, or one model's)."),
    Command("cfa", None, "Confirmatory factor analysis (lavaan syntax, semopy)."),
    Command("cfa fit", "mmgauge.cli.cfa:fit_command", "Fit the model; print lavaan-convention fit measures."),
    Command("cfa check", "mmgauge.cli.cfa:check_command",
            "KMO (overall and per variable) and Bartlett's test of sphericity."),
)

def by_path() -> dict[str, Command]:
    return {command.path: command for command in COMMANDS}


def aliases() -> dict[str, str]:
    """The table's old spellings, with the path each now is (a benchmark's are its `command_aliases`)."""
    return {old: command.path for command in COMMANDS for old in command.aliases}


def children(path: str) -> list[Command]:
    """The table's commands and groups directly under `path` ("" for the root), in order."""
    depth = len(path.split()) + 1 if path else 1
    return [command for command in COMMANDS
            if len(command.path.split()) == depth and command.path.startswith(f"{path} " if path else "")]
