"""Classes named "module:Class" (registries and entry points), imported only when used."""

from __future__ import annotations

import importlib
from typing import Any

from mmgauge.core.errors import UserError


def import_class(target: str, base: type, *, kind: str, name: str, field: str) -> Any:
    """The class `target` names, checked to be a `base`; a broken plug-in is one line naming it."""
    module_name, _, class_name = target.partition(":")
    try:
        cls: Any = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise UserError(f"{kind} '{name}' cannot be loaded from {target}: {error}", field=field) from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise UserError(f"{target} ({kind} '{name}') is not an mmgauge {base.__name__} class", field=field)
    return cls
