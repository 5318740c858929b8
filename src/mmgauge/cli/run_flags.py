"""`mmgauge run`'s flags as `RunConfig` settings: only the flags given on the command line, so that they
override a run configuration file (`--config`) and leave the rest of it alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import click

#: Flags that are a `RunConfig` field of the same name.
SAME_NAME = (
    "model", "out", "limit", "judge", "temperature", "max_tokens", "seed", "system_prompt", "concurrency",
    "batch_size", "timeout", "max_retries", "api_key_env", "judge_api_key_env", "cache_path",
    "cache_namespace", "keep_reasoning", "accept_empty", "force_cache", "executor", "ray_address",
    "ray_workers", "ray_gpus_per_worker", "ray_inline_images",
)
#: Flags that are benchmark options shared by every benchmark that declares them (`RunConfig.options`).
SHARED_OPTIONS = ("parser", "rounds", "language", "prompt_language", "shuffle_options", "random_fallback",
                  "prompt", "literal_options")


def given_flags(ctx: click.Context, file: Mapping[str, Any]) -> dict[str, Any]:
    """The `RunConfig` settings of the flags typed on the command line (`file`: the configuration file's
    settings, which say what `--data PATH` belongs to when `--bench` is not typed)."""
    from mmgauge.api.options import parse_assignments

    values = {name: value for name, value in ctx.params.items() if _typed(ctx, name)}
    settings: dict[str, Any] = {name: values[name] for name in SAME_NAME if name in values}
    if "executor" in settings and settings["executor"] not in ("local", "ray"):
        raise UserError(f"unknown executor '{settings['executor']}'; use local or ray", field="--executor")
    if "bench" in values:
        settings["benchmarks"] = [n.strip().lower() for n in values["bench"].split(",") if n.strip()]
    if "no_cache" in values:
        settings["cache"] = not values["no_cache"]
    if values.get("data"):
        names = settings.get("benchmarks", file.get("benchmarks"))
        settings["data"] = parse_data_option(values["data"], names)
    options: dict[str, Any] = {}
    for name in SHARED_OPTIONS:
        if name not in values or values[name] is None:
            continue
        if name == "language":
            options["languages"] = [x.strip() for x in values[name].split(",")]
        elif name == "rounds" and values[name] == 1 and "rounds" not in file.get("options", {}):
            continue  # the default typed out: no benchmark without rounds should refuse it
        else:
            options[name] = values[name]
    for bench, assigned in parse_assignments(values.get("settings") or []).items():
        options.setdefault(bench, {}).update(assigned)
    if options:
        settings["options"] = options
    return settings


def parse_data_option(values: list[str], benches: list[str] | None) -> dict[str, str]:
    """`--data PATH` for one benchmark, or `--data NAME=PATH` (repeatable) for several."""
    paths: dict[str, str] = {}
    for value in values:
        name, eq, rest = value.partition("=")
        if eq and benches is not None and name in benches:
            paths[name] = rest
        elif benches is not None and len(benches) == 1:
            paths[benches[0]] = value
        else:
            raise UserError(f"with several benchmarks give --data NAME=PATH, got '{value}'", field="--data")
    return paths


def _typed(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    if source is None or source.name != "COMMANDLINE":
        return False
    value = ctx.params[name]
    # A flag that is off, or a repeatable option never given, is no setting (they cannot turn a file's off).
    return value is not False and value != []
