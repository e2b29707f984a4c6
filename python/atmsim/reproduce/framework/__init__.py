"""The reproduction framework: what every paper's package uses, written once.

- :mod:`.claims`: published numbers (:class:`Published`), tolerance rules fixed before
  measuring, comparison rows (:class:`Claim`, :func:`compare`);
- :mod:`.runs`: runs as :class:`Job` values, run through the cache and read back;
- :mod:`.measures`: measures shared by the papers (Jain's index, windows, mean and spread,
  the mean over seeds with its confidence interval);
- :mod:`.notes`: notes as Jinja2 templates over measured values, and the checks of them;
- :mod:`.reproduction`: a :class:`Reproduction` description, and running, rebuilding and
  publishing it (comparison.csv/.json, tables.csv, notes.md, report.html).

docs/architecture.md ("Reproductions") says how to add one.
"""

from atmsim.reproduce.framework.claims import (
    Claim,
    Claims,
    Published,
    Tolerance,
    above,
    absolute,
    at_least,
    at_most,
    below,
    between,
    combine_seeds,
    compare,
    factor,
    fmt_ci,
    fmt_value,
    rel,
    with_causes,
)
from atmsim.reproduce.framework.measures import (
    CONFIDENCE,
    Estimate,
    MeanSd,
    by_label,
    jain,
    mean_sd,
    over_seeds,
    window_means,
)
from atmsim.reproduce.framework.reproduction import (
    COMPARISON_COLUMNS,
    Figure,
    HtmlTable,
    Reproduction,
    format_claims,
    publish,
    write_claims_json,
    write_comparison,
)
from atmsim.reproduce.framework.runs import (
    RUN_INFO,
    Job,
    Stopwatch,
    load_results,
    read_run_info,
    run_many,
    run_path,
    scenario_texts,
    write_run_info,
)

__all__ = [
    "COMPARISON_COLUMNS",
    "CONFIDENCE",
    "RUN_INFO",
    "Claim",
    "Claims",
    "Estimate",
    "Figure",
    "HtmlTable",
    "Job",
    "MeanSd",
    "Published",
    "Reproduction",
    "Stopwatch",
    "Tolerance",
    "above",
    "absolute",
    "at_least",
    "at_most",
    "below",
    "between",
    "by_label",
    "combine_seeds",
    "compare",
    "factor",
    "fmt_ci",
    "fmt_value",
    "format_claims",
    "jain",
    "load_results",
    "mean_sd",
    "over_seeds",
    "publish",
    "read_run_info",
    "rel",
    "run_many",
    "run_path",
    "scenario_texts",
    "window_means",
    "with_causes",
    "write_claims_json",
    "write_comparison",
    "write_run_info",
]
