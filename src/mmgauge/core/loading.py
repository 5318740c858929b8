"""Classes named "module:Class" (registries and entry points), imported only when used."""

from __future__ import annotations

import importlib
from typing import Any

from mmgauge.core.errors import UserError


class LoadError(UserError):
    """A benchmark or backend class that cannot be used; `reason` is the message without the name."""

    def __init__(self, *, kind: str, name: str, reason: str, field: str) -> None:
        self.reason = reason
        super().__init__(f"{kind} '{name}' {reason}", field=field)


def import_class(target: str, base: type, *, kind: str, name: str, field: str) -> Any:
    """The class `target` names, checked to be a `base`; a broken plug-in is one line naming it."""
    module_name, _, attribute = target.partition(":")
    try:
        found: Any = importlib.import_module(module_name.strip())
        for part in attribute.strip().split("."):  # an entry point may name `module:Outer.Inner`
            found = getattr(found, part)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        # Importing runs the plug-in's own code, which may raise anything, `sys.exit()` included; that is a
        # fault of that plug-in alone, and must not end the command for every other benchmark or backend.
        # The cause stays chained, so that `--debug` shows the plug-in's traceback.
        raise LoadError(kind=kind, name=name, reason=f"cannot be loaded from {target}: {describe(error)}",
                        field=field) from error
    if not (isinstance(found, type) and issubclass(found, base)):
        raise LoadError(kind=kind, name=name, reason=f"({target}) is not an mmgauge {base.__name__} class",
                        field=field)
    return found


def describe(error: BaseException) -> str:
    """`Type: message` on one line (a message may span lines; `sys.exit(3)` reads `SystemExit: 3`)."""
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    try:
        text = " ".join(str(error).split())
    except Exception:  # a plug-in's own exception whose __str__ fails still gets its type named
        text = ""
    return f"{name}: {text}" if text else name
