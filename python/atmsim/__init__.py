"""atmsim: a cell-level simulator of TCP/IP over ATM.

The simulator is Rust (``atmsim._core``); this package runs scenarios, shapes the results as
pandas tables and drives the command line (``atmsim --help``).

>>> import atmsim
>>> res = atmsim.run("fang1994-cell-drop", overrides={"run.duration": "0.5 s"})  # doctest: +SKIP
>>> res.summary["totals"]["goodput_mbps"]                                        # doctest: +SKIP
"""

from atmsim.errors import (  # noqa: I001 - before _core
    ArgumentError,
    ResultsError,
    ScenarioError,
    ScenarioWarning,
    SimulationError,
)
from atmsim._core import version as _core_version
from atmsim._build import build_id
from atmsim.api import Results, describe, run, validate
from atmsim.pictures import draw

__version__: str = _core_version()

__all__ = [
    "ArgumentError",
    "Results",
    "ResultsError",
    "ScenarioError",
    "ScenarioWarning",
    "SimulationError",
    "__version__",
    "build_id",
    "describe",
    "draw",
    "run",
    "validate",
]
