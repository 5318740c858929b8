"""Classes named "module:Class" (registries and entry points), imported only when used."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path
from typing import Any, Final

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


def import_target(target: str) -> Any:
    """The object "module:attribute" names (`attribute` may be dotted), imported now."""
    module_name, _, name = target.partition(":")
    found: Any = importlib.import_module(module_name)
    for part in name.split("."):
        found = getattr(found, part)
    return found


#: What `declared_constant` returns where the source does not say plainly.
UNDECLARED: Final = object()


def declared_constant(target: str, attribute: str) -> Any:
    """The constant (a string, number, bool or None, or a tuple of those) that the class `target`
    ("module:Class") sets `attribute` to in its own body, read from its module's source without running
    it; `UNDECLARED` where the source does not say plainly (the class is not a plain top-level class there,
    has decorators, or inherits or computes the attribute), and the class must be imported and asked.

    For the command line: a benchmark's module imports everything the benchmark does, and a command that
    only needs to know which function a hook names should not pay for that."""
    body = _class_body(target)
    if body is None:
        return UNDECLARED
    found: Any = UNDECLARED
    for statement in body:
        if attribute in _bound_names(statement):
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            plain = value is not None and _plain(value)
            if found is not UNDECLARED or not plain or value is None:
                return UNDECLARED
            found = ast.literal_eval(value)
    return found


@functools.cache
def _class_body(target: str) -> tuple[ast.stmt, ...] | None:
    """The statements of class `target`'s body in its module's source, parsed once per process (the
    command line asks several attributes of each benchmark); None where it is not a plain top-level class
    there (a name bound more than once, or a class a decorator may replace, is left to the import)."""
    module_name, _, class_name = (part.strip() for part in target.partition(":"))
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    if origin is None or not origin.endswith(".py"):
        return None
    try:
        tree = ast.parse(Path(origin).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name]
    bound = [node for node in tree.body if {class_name, "*"} & _bound_names(node)]
    if len(classes) != 1 or len(bound) != 1 or classes[0].decorator_list:
        return None
    return tuple(classes[0].body)


def _bound_names(statement: ast.stmt) -> set[str]:
    """The names a top-level statement of a module or class body binds (any statement that binds by other
    means than a plain assignment, a def or a class, such as a loop or a call, counts as binding every name
    it mentions)."""
    if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {statement.name}
    if isinstance(statement, ast.Assign):
        return {name.id for target in statement.targets for name in ast.walk(target)
                if isinstance(name, ast.Name)}
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        return {statement.target.id} if isinstance(statement.target, ast.Name) else set()
    if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr)
                                            and isinstance(statement.value, ast.Constant)):  # a docstring
        return set()
    if isinstance(statement, (ast.Import, ast.ImportFrom)):  # a star import binds "*"
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    return {name.id for name in ast.walk(statement) if isinstance(name, ast.Name)}


def _plain(node: ast.expr) -> bool:
    """Whether `node` is a string, number, bool or None, or a tuple of those, written out."""
    if isinstance(node, ast.Tuple):
        return all(_plain(element) for element in node.elts)
    return isinstance(node, ast.Constant) and (node.value is None
                                               or isinstance(node.value, (str, int, float)))
