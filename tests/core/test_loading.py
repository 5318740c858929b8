"""What a class's body says of an attribute, read from its module's source without running it, and only
where the source says it plainly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mmgauge.core.loading import UNDECLARED, declared_constant

SOURCE = '''
"""A module whose import would fail: its classes are read, never run."""
import no_such_module_anywhere

from elsewhere import Base


class Plain(Base):
    """Docstring."""

    hook: str = "pkg.mod:function"
    off = None
    count = 3


class Inherits(Base):
    other = "x"


class Computed(Base):
    hook = "pkg." + "mod:function"


class Twice(Base):
    hook = "a:b"
    hook = "c:d"


class Conditional(Base):
    if True:
        hook = "a:b"


@decorate
class Decorated(Base):
    hook = "a:b"


class Rebound(Base):
    hook = "a:b"


Rebound = make_another()


class Patched(Base):
    hook = "a:b"


setattr(Patched, "hook", "c:d")
'''


@pytest.fixture()
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "declared_sample.py").write_text(SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "declared_sample"


def test_a_plain_constant_in_the_class_body_is_read_without_importing(module: str) -> None:
    assert declared_constant(f"{module}:Plain", "hook") == "pkg.mod:function"
    assert declared_constant(f"{module}:Plain", "off") is None
    assert declared_constant(f"{module} : Plain ", "count") == 3
    assert module not in sys.modules


@pytest.mark.parametrize(("name", "attribute"), [
    ("Plain", "missing"), ("Inherits", "hook"), ("Computed", "hook"), ("Twice", "hook"),
    ("Conditional", "hook"), ("Decorated", "hook"), ("Rebound", "hook"), ("Patched", "hook"),
    ("NoSuchClass", "hook"), ("Plain.Inner", "hook")])
def test_what_the_source_does_not_say_plainly_is_left_to_the_import(module: str, name: str,
                                                                   attribute: str) -> None:
    assert declared_constant(f"{module}:{name}", attribute) is UNDECLARED


def test_a_module_that_is_not_there_or_not_source_is_left_to_the_import() -> None:
    assert declared_constant("no_such_package.bench:Thing", "hook") is UNDECLARED
    assert declared_constant("sys:Thing", "hook") is UNDECLARED  # built into the interpreter
