"""Run configuration files: the settings of `mmgauge run` (the fields of `RunConfig`, which `EvalRequest`
extends) in one YAML or JSON file, or read back from a finished run's manifest.

A file gives any of the fields; what it leaves out keeps its default. Settings given directly (the command
line's flags, `request_from_config`'s `overrides`) win over the file's. Every run folder's manifest records
the merged configuration of its latest run (`recorded_config`), so `mmgauge run --config RUN/manifest.json`
(or `--config RUN`) asks the same requests again.

Relative paths in a file are read from the current directory, as the same flags' are; a manifest records
absolute ones. The command line's display and export flags (progress, logging, `--log wandb`) are not run
settings and stay flags.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mmgauge.api.request import EvalRequest, RunConfig, build_request
from mmgauge.core.errors import UserError

#: The keys a run configuration may hold, in the schema's order.
CONFIG_KEYS: tuple[str, ...] = tuple(RunConfig.model_fields)
#: Where the package ships the schema (`schema_text()`, written out; a test keeps the two equal).
SCHEMA_FILE = Path(__file__).parents[1] / "data" / "schemas" / "run-config.schema.json"
#: A manifest is told from a configuration by keys a configuration never has.
_MANIFEST_KEYS = ("model_fingerprint", "toolkit_version")


def run_config_schema() -> dict[str, Any]:
    """The JSON Schema of a run configuration file, generated from `RunConfig`."""
    schema = RunConfig.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """`run_config_schema()` as the JSON text the package ships (`SCHEMA_FILE`)."""
    return json.dumps(run_config_schema(), indent=2, ensure_ascii=False) + "\n"


def read_run_config(path: str | Path) -> dict[str, Any]:
    """The settings a run configuration file gives (only those), checked; a manifest gives its run's.

    `path` is a .yaml/.yml/.json file, a run folder's manifest, or a run folder.
    """
    path = Path(path)
    file = str(path)
    raw = _manifest_config(path) if path.is_dir() else _read(path)
    if isinstance(raw, dict) and all(key in raw for key in _MANIFEST_KEYS):
        raw = _config_of_manifest(raw, file)
    if not isinstance(raw, dict):
        raise UserError("a run configuration must be a mapping of settings", file=file)
    for key in raw:
        if key not in CONFIG_KEYS:
            close = difflib.get_close_matches(str(key), CONFIG_KEYS, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(CONFIG_KEYS)}"
            raise UserError(f"unknown key{hint}", file=file, field=str(key))
    if "model" in raw and not isinstance(raw["model"], str):
        raise UserError("must be a model spec string", file=file, field="model")
    try:
        config = RunConfig.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise UserError(first["msg"], file=file, field=field) from None
    return config.model_dump(exclude_unset=True)


def merge_run_config(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`base` settings with `overrides` on top.

    `data` and `options` merge per benchmark (an override's `{"mme": {...}}` updates the base's; its shared
    options replace the base's). Where `overrides` name the benchmarks, the base's data and per-benchmark
    options for benchmarks no longer run are dropped: narrowing a configured run to one benchmark is not an
    error.
    """
    merged = {**base, **overrides}
    data = {**base.get("data", {}), **overrides.get("data", {})}
    options = _merged_options(base.get("options", {}), overrides.get("options", {}))
    names = overrides.get("benchmarks")
    if names is not None:
        wanted = {name.strip().lower() for name in names}
        data = {name: value for name, value in data.items() if name.lower() in wanted}
        options = {key: value for key, value in options.items()
                   if not isinstance(value, Mapping) or key.lower() in wanted}
    if data or "data" in merged:
        merged["data"] = data
    if options or "options" in merged:
        merged["options"] = options
    return merged


def _merged_options(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    # Shared options first: `benchmark_options` applies them in order, so a benchmark's own value wins.
    return dict(sorted(merged.items(), key=lambda item: isinstance(item[1], Mapping)))


def request_from_config(config: str | Path | None, overrides: Mapping[str, Any] | None = None, *,
                        command: list[str] | None = None) -> EvalRequest:
    """The `EvalRequest` of the run configuration file `config` (None: no file) with `overrides` on top."""
    file = read_run_config(config) if config is not None else {}
    return request_from_fields(merge_run_config(file, overrides or {}), command=command)


def request_from_fields(fields: Mapping[str, Any], *, command: list[str] | None = None) -> EvalRequest:
    """The `EvalRequest` of `RunConfig` settings (those not given keep their defaults)."""
    rest = dict(fields)
    model = rest.pop("model", "embedded")
    benchmarks = rest.pop("benchmarks", None)
    data = rest.pop("data", None)
    out = rest.pop("out", "runs/latest")
    return build_request(model, benchmarks, data, out, command=command or [], **rest)


def recorded_config(request: EvalRequest) -> dict[str, Any]:
    """The merged configuration of a run, as its manifest records it: every setting, written out.

    Paths that exist are made absolute, so that the configuration reads the same from any directory. A
    model given as a Python object cannot be written down: its `model` is null.
    """
    config = RunConfig.model_validate(
        request.model_dump(exclude={"command", "model"}) | {"model": None}
    ).model_dump(mode="json")
    model = request.model
    if isinstance(model, str):
        config["model"] = _absolute(model) if model.lower().endswith((".yaml", ".yml", ".json")) else model
    config["out"] = str(request.out.absolute())
    config["data"] = {name: _absolute(value) for name, value in request.data.items()}
    if request.cache_path is not None:
        config["cache_path"] = str(request.cache_path.absolute())
    return config


def _absolute(value: str) -> str:
    path = Path(value)
    return str(path.absolute()) if value and path.exists() else value


def _read(path: Path) -> Any:
    from mmgauge.core.yaml_files import read_yaml_or_json

    if not path.is_file():
        raise UserError("run configuration file not found", file=str(path))
    return read_yaml_or_json(path, what="run configuration")


def _manifest_config(folder: Path) -> Any:
    from mmgauge.store.run_folder import RunFolder

    manifest = RunFolder(folder).read_manifest() if RunFolder(folder).has_manifest() else None
    if manifest is None:
        raise UserError("is a folder without a run manifest; give a run configuration file", file=str(folder))
    return manifest.model_dump(mode="json")


def _config_of_manifest(manifest: dict[str, Any], file: str) -> Any:
    config = manifest.get("config")
    if config is None:
        raise UserError("this run's manifest records no run configuration (written before mmgauge recorded "
                        "one); give the run's settings as flags", file=file)
    if isinstance(config, dict) and config.get("model") is None:
        raise UserError("the run's model was a Python object, which a configuration cannot name; give "
                        "--model", file=file, field="model")
    return config
