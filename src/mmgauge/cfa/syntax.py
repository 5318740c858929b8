"""A small parser for the part of lavaan's model syntax a CFA needs, and lavaan's ``cfa()`` defaults.

Supported: ``=~`` (loadings, also of latents on latents for second-order models), ``~~`` (variances and
covariances), ``~`` (regressions), modifiers ``1*x`` (fixed), ``NA*x`` (free), ``a*x`` (label; a label
used twice is an equality constraint), ``start(0.5)*x``, comments with ``#`` or ``!``, statements
separated by new lines or ``;`` and continued over lines. Anything else (``:=``, ``==``, ``~1``,
``c(...)``, ...) is refused with a ``UserError`` rather than misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mmgauge.core.errors import UserError

_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.]*$")
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_START = re.compile(r"^start\(\s*([-+0-9.eE]+)\s*\)$")
_OPERATORS = ("=~", "~~", "~")
_REFUSED = (":=", "==", "<", ">", "|", "~*~", "<~")


@dataclass
class Term:
    """One parameter statement: ``lhs op rhs`` with its modifiers."""

    lhs: str
    op: str
    rhs: str
    fixed: float | None = None
    label: str | None = None
    start: float | None = None
    force_free: bool = False  # NA*x: lavaan frees a loading it would otherwise fix as the marker


@dataclass
class Model:
    """A CFA specification after lavaan's defaults: every parameter explicit, free or fixed."""

    observed: list[str]
    latent: list[str]
    terms: list[Term] = field(default_factory=list)

    def loadings(self) -> list[Term]:
        return [t for t in self.terms if t.op == "=~"]


def _statements(text: str) -> list[tuple[int, str]]:
    pieces: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.split(r"[#!]", raw, maxsplit=1)[0]
        for part in line.split(";"):
            part = part.strip()
            if not part:
                continue
            continues = pieces and (pieces[-1][1].endswith(("+", "*")) or part.startswith(("+", "*")))
            # A piece with no operator continues the statement before; a refused operator (:=, ==, ...) starts
            # its own statement, so its error names its own line.
            if continues or (pieces and not any(op in part for op in _OPERATORS + _REFUSED)):
                pieces[-1] = (pieces[-1][0], pieces[-1][1] + " " + part)
            else:
                pieces.append((number, part))
    return pieces


def _parse_term(lhs: str, op: str, token: str, line: int, source: str) -> Term:
    parts = [p.strip() for p in token.split("*")]
    name = parts[-1]
    if not _NAME.match(name):
        raise UserError(f"cannot read variable name {name!r} in lavaan syntax", file=source, line=line)
    term = Term(lhs=lhs, op=op, rhs=name)
    for modifier in parts[:-1]:
        start = _START.match(modifier)
        if modifier == "NA":
            term.force_free = True
        elif _NUMBER.match(modifier):
            term.fixed = float(modifier)
        elif start:
            term.start = float(start.group(1))
        elif _NAME.match(modifier):
            term.label = modifier
        else:
            raise UserError(f"unsupported modifier {modifier!r} in lavaan syntax", file=source, line=line)
    return term


def parse(text: str, source: str = "model syntax") -> list[Term]:
    """Parse lavaan model syntax into the terms written by the user (no defaults added); errors name
    ``source`` (the model file) and the line."""
    terms: list[Term] = []
    for line, statement in _statements(text):
        for refused in _REFUSED:
            if refused in statement:
                raise UserError(
                    f"lavaan operator {refused!r} is not supported: {statement}", file=source, line=line
                )
        op = next((o for o in _OPERATORS if o in statement), None)
        if op is None:
            raise UserError(f"no =~, ~~ or ~ in statement: {statement}", file=source, line=line)
        lhs, rhs = (s.strip() for s in statement.split(op, 1))
        if not _NAME.match(lhs):
            raise UserError(f"cannot read left-hand side {lhs!r}", file=source, line=line)
        if re.search(r"(^|\+)\s*1\s*$", rhs) and op == "~":
            raise UserError("intercepts (~ 1) are not supported", file=source, line=line)
        for token in rhs.split("+"):
            if token.strip():
                terms.append(_parse_term(lhs, op, token.strip(), line, source))
    if not any(t.op == "=~" for t in terms):
        raise UserError("the model defines no latent variable (no =~ statement)", file=source)
    return terms


def _same_pair(term: Term, a: str, b: str) -> bool:
    return term.op == "~~" and {term.lhs, term.rhs} == {a, b}


def build(
    terms: list[Term],
    columns: list[str],
    *,
    std_lv: bool,
    orthogonal: bool,
    source: str = "model syntax",
    data: str = "the data",
) -> Model:
    """Apply lavaan's ``cfa()`` defaults to the user's terms.

    Marker identification (first loading fixed at 1 unless written ``NA*``) or, with ``std_lv``, all loadings
    free and every latent (residual) variance fixed at 1; residual variances of indicators free; covariances
    among exogenous latents free, or fixed at 0 when ``orthogonal``.
    """
    latent: list[str] = []
    for t in terms:
        if t.op == "=~" and t.lhs not in latent:
            latent.append(t.lhs)
    observed: list[str] = []
    for t in terms:
        for name in (t.lhs, t.rhs):
            if name not in latent and name not in observed:
                if name not in columns:
                    raise UserError(
                        f"model variable is neither a latent (=~) nor a column of {data}",
                        file=source,
                        field=name,
                    )
                observed.append(name)
    explicit = [Term(t.lhs, t.op, t.rhs, t.fixed, t.label, t.start, t.force_free) for t in terms]
    first_seen: set[str] = set()
    for t in explicit:
        if t.op != "=~":
            continue
        is_first = t.lhs not in first_seen
        first_seen.add(t.lhs)
        if is_first and not std_lv and t.fixed is None and not t.force_free:
            t.fixed = 1.0
    indicators_of_latents = {t.rhs for t in explicit if t.op == "=~"}
    outcomes = {t.lhs for t in explicit if t.op == "~"}
    added: list[Term] = []

    def has(a: str, b: str) -> bool:
        return any(_same_pair(t, a, b) for t in explicit + added)

    for name in latent:
        if not has(name, name):
            added.append(Term(name, "~~", name, fixed=1.0 if std_lv else None))
    for name in observed:
        if not has(name, name):
            added.append(Term(name, "~~", name))
    exogenous = [f for f in latent if f not in indicators_of_latents and f not in outcomes]
    for i, a in enumerate(exogenous):
        for b in exogenous[i + 1 :]:
            if not has(a, b):
                added.append(Term(a, "~~", b, fixed=0.0 if orthogonal else None))
    return Model(observed=observed, latent=latent, terms=explicit + added)
