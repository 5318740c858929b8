"""Settings files in YAML or JSON (model configs, run configurations), read safely and strictly.

YAML aliases are refused: an alias bomb cannot expand, and a settings file stays explicit (every value where
it applies). Errors name the file, and the line where YAML gives one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from mmgauge.core.errors import UserError


class _AliasRefused(Exception):
    def __init__(self, line: int, anchor: str) -> None:
        super().__init__(anchor)
        self.line = line
        self.anchor = anchor


class _NoAliasLoader(yaml.SafeLoader):
    """A safe loader that refuses aliases."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event: Any = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML's stubs leave it untyped
            raise _AliasRefused(event.start_mark.line + 1, str(getattr(event, "anchor", "")))
        return super().compose_node(parent, index)


def read_yaml_or_json(path: Path, *, what: str) -> Any:
    """The document in `path` (JSON for a .json file, else YAML); `what` names it in errors."""
    try:
        raw = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            return json.loads(raw)
        return yaml.load(raw, Loader=_NoAliasLoader)  # a SafeLoader subclass
    except _AliasRefused as refused:
        raise UserError(
            f"YAML aliases (*{refused.anchor}) are not allowed in a {what}; write the value out",
            file=str(path),
            line=refused.line,
        ) from None
    except (json.JSONDecodeError, yaml.YAMLError, UnicodeDecodeError) as error:
        raise UserError(f"cannot parse {what}: {error}".splitlines()[0], file=str(path)) from None
