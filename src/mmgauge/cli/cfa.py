"""``mmgauge cfa``: fit a lavaan-syntax CFA (``fit``) and check a data set's factorability (``check``).

``fit --json`` prints ``chisq``, ``df``, ``pvalue``, ``cfi``, ``tli``, ``rmsea``, ``srmr``, ``aic``,
``bic``, ``loglik``, ``converged`` and ``loadings`` (factor -> indicator -> estimate), plus
``loadings_se`` (robust with MLR), ``parameters`` and the other fields of ``mmgauge.cfa.fit.CfaResult``.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import click

from mmgauge.core.json_output import print_json
from mmgauge.core.params import Arg, Opt
from mmgauge.datasources.text_files import read_csv, read_text


class EstimatorChoice(str, Enum):
    ML = "ML"
    MLR = "MLR"


def fit_command(
    data: Annotated[Path, Opt("--data", help="CSV of observations, one column per indicator.")],
    model: Annotated[Path, Opt("--model", help="Model in lavaan syntax (=~, ~~, modifiers).")],
    estimator: Annotated[
        EstimatorChoice, Opt("--estimator", help="ML (lavaan's default) or MLR (robust errors).")
    ] = EstimatorChoice.ML,
    std_lv: Annotated[
        bool,
        Opt(
            "--std-lv/--marker",
            help="--std-lv: unit latent variances, every loading free (lavaan std.lv = TRUE); "
            "--marker: the first loading of each factor fixed at 1 (lavaan's default).",
        ),
    ] = False,
    orthogonal: Annotated[
        bool,
        Opt(
            "--orthogonal/--oblique",
            help="--orthogonal: covariances among exogenous latents fixed at 0; "
            "--oblique: correlated factors (lavaan's default).",
        ),
    ] = False,
    as_json: Annotated[bool, Opt("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Fit the model and print lavaan-convention fit measures and loadings.

    The defaults are lavaan's cfa(): ML, marker indicator, correlated factors. The M3GIA models were fitted
    with --estimator MLR --std-lv --orthogonal.
    """
    from mmgauge.cfa.fit import fit_cfa

    syntax = read_text(model)
    result = fit_cfa(
        read_csv(data),
        syntax,
        estimator=estimator.value,
        std_lv=std_lv,
        orthogonal=orthogonal,
        data_source=str(data),
        model_source=str(model),
    )
    if as_json:
        print_json(result.model_dump())
        return
    click.echo(
        f"{result.estimator}  N={result.nobs}  converged={result.converged}  chisq={result.chisq:.3f} "
        f"df={result.df}  p={result.pvalue}  CFI={result.cfi}  TLI={result.tli}  RMSEA={result.rmsea}  "
        f"SRMR={result.srmr:.4f}  AIC={result.aic:.2f}  BIC={result.bic:.2f}  logLik={result.loglik:.3f}"
    )
    for factor, row in result.loadings.items():
        for indicator, value in row.items():
            se = result.loadings_se[factor][indicator]
            click.echo(
                f"{factor} =~ {indicator}: {value:.4f}" + (f" (se {se:.4f})" if se is not None else "")
            )


def check_command(
    data: Annotated[Path, Arg(help="CSV of observations (numeric columns).")],
    as_json: Annotated[bool, Opt("--json", help="Print the result as JSON.")] = False,
) -> None:
    """KMO (overall and per variable) and Bartlett's test of sphericity."""
    from mmgauge.cfa.check import check_data

    result = check_data(read_csv(data), source=str(data))
    if as_json:
        print_json(result.model_dump())
        return
    click.echo(f"N={result.nobs}  KMO={result.kmo.overall:.4f}")
    click.echo(
        f"Bartlett chi2={result.bartlett.chi2:.3f}  df={result.bartlett.df}  p={result.bartlett.pvalue:.3g}"
    )
    for name, value in result.kmo.per_variable.items():
        click.echo(f"  KMO {name}: {value:.4f}")
