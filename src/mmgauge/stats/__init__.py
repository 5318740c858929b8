"""Statistics for honest intervals and paired comparisons: pure functions, numpy and math only.

No scipy at run time: the special functions are in `mmgauge.stats.special`. Methods and formulas are in
docs/statistics.md.
"""

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
