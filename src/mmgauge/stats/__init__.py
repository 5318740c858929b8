"""Statistics for honest intervals and paired comparisons: pure functions, numpy and math only.

No scipy at run time: the special functions are in `mmgauge.stats.special`. Methods and formulas are in
docs/statistics.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mmgauge.stats.agreement import Kappa, cohen_kappa
    from mmgauge.stats.bootstrap import PairedBootstrap, Statistic, paired_bootstrap, sum_of_group_means
    from mmgauge.stats.paired import (
        HolmResult,
        McNemarResult,
        PairedDifference,
        PairedTable,
        holm,
        mcnemar_exact,
        minimum_detectable_difference,
        paired_difference,
    )
    from mmgauge.stats.proportion import Interval, clopper_pearson_bounds, proportion_interval, wilson_bounds

#: Where each name lives: a submodule is imported on first use, so that importing one of them (scoring needs
#: only `proportion`) does not import every other one and its models.
_EXPORTS = {
    "Kappa": "agreement", "cohen_kappa": "agreement",
    "PairedBootstrap": "bootstrap", "Statistic": "bootstrap", "paired_bootstrap": "bootstrap",
    "sum_of_group_means": "bootstrap",
    "HolmResult": "paired", "McNemarResult": "paired", "PairedDifference": "paired", "PairedTable": "paired",
    "holm": "paired", "mcnemar_exact": "paired", "minimum_detectable_difference": "paired",
    "paired_difference": "paired",
    "Interval": "proportion", "clopper_pearson_bounds": "proportion", "proportion_interval": "proportion",
    "wilson_bounds": "proportion",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mmgauge.stats' has no attribute {name!r}")
    return getattr(importlib.import_module(f"mmgauge.stats.{module}"), name)


__all__ = [
    "HolmResult",
    "Interval",
    "Kappa",
    "McNemarResult",
    "PairedBootstrap",
    "PairedDifference",
    "PairedTable",
    "Statistic",
    "clopper_pearson_bounds",
    "cohen_kappa",
    "holm",
    "mcnemar_exact",
    "minimum_detectable_difference",
    "paired_bootstrap",
    "paired_difference",
    "proportion_interval",
    "sum_of_group_means",
    "wilson_bounds",
]
