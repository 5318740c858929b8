"""What every ``--json`` option prints: `core/json_output.py` (below the benchmarks, whose own commands print
it too), under the name the command line's modules import."""

from __future__ import annotations

from mmgauge.core.json_output import finite_or_null as finite_or_null
from mmgauge.core.json_output import print_json as print_json
