"""The scheme atlas: every switching scheme atmsim has, with TCP on top, on the networks of
the studies it reproduces, measured the same way (issue 15).

Schemes (each with the parameters of the paper that studied it, :data:`.schemes.SCHEMES`):
UBR with cell drop, drop-tail (PPD) and drop-whole on per-VC queues (Fang 1994); EPD and
ESPD on a shared FIFO (Cheon & Panwar 1998); RED, a frame at a time, on a shared FIFO (Floyd
& Jacobson 1993); Selective Drop and FBA (atmsim's UBR+ defaults); the GFR buffer policy
(Goyal et al. 1998); AN2 credits (Fang 1994); ABR with EFCI and FMMRA (An 1997), ERICA and
ERICA+ (Kalyanaraman et al. 1996) and EPRCA (Roberts 1994, as Jain et al. 1996 describe it).

Networks: Fang's LAN, Cheon & Panwar's parking lot, and Kalyanaraman's 15 sources on
1000 km links with and without a VBR ON-OFF background; each swept over the switch buffer,
with several seeds. Measured per run: TCP goodput as a share of what the bottleneck can
carry, Jain's fairness, the long/short round-trip group ratio, cell loss, the bottleneck's
maximum and 99th-percentile queue (the p99 of the sampled queue, as a delay at the rate the
port drains it), the ABR sources' queues. Per (scheme, network): the smallest buffer of the
grid with no switch loss and the smallest from which on the goodput reaches 95% of the
network's best.

Checks (``comparison.csv``): each paper's ordering of its own schemes on its own network,
with its own settings (Fang, Cheon & Panwar, Kalyanaraman, An).

``atmsim reproduce atlas [--quick] --out DIR``: full mode 3 seeds and 6-7 buffer sizes per
network; quick one seed and three buffer sizes.

Parts: :mod:`.published`, :mod:`.networks`, :mod:`.schemes`, :mod:`.config` (what an atlas
runs), :mod:`.runs`, :mod:`.measure` (with the model facts), :mod:`.claims`, :mod:`.study`
(the readings), :mod:`.tables` (with atlas.csv, runs.csv, spread.csv and atlas-config.json),
:mod:`.figures`, :mod:`.notes` with ``notes.md.j2``.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

from atmsim.reproduce.atlas.claims import claims
from atmsim.reproduce.atlas.config import DEFAULT, SPREADS_FULL, SPREADS_QUICK, Config
from atmsim.reproduce.atlas.figures import figures
from atmsim.reproduce.atlas.measure import Atlas, measure, measure_run, model_facts
from atmsim.reproduce.atlas.networks import NETWORKS, Network
from atmsim.reproduce.atlas.notes import notes
from atmsim.reproduce.atlas.published import CITATION
from atmsim.reproduce.atlas.runs import jobs, spread_access_delays, spread_overrides
from atmsim.reproduce.atlas.schemes import SCHEMES, Scheme
from atmsim.reproduce.atlas.tables import CONFIG_FILE, extra, html_tables, summary_table
from atmsim.reproduce.framework import Reproduction

__all__ = [
    "CONFIG_FILE",
    "DEFAULT",
    "NETWORKS",
    "REPRODUCTION",
    "SCHEMES",
    "SPREADS_FULL",
    "SPREADS_QUICK",
    "Atlas",
    "Config",
    "Network",
    "Scheme",
    "claims",
    "jobs",
    "main",
    "measure",
    "measure_run",
    "model_facts",
    "report",
    "reproduction",
    "spread_access_delays",
    "spread_overrides",
    "summary_table",
]

TITLE = "The scheme atlas: every ATM switching scheme with TCP, on the studies' own networks"

INTRO = (
    "Every switching scheme atmsim has, with greedy TCPs on top, on the networks of the "
    "studies it reproduces, each scheme with its own paper's parameters and each network "
    "with its own paper's TCP. Rows: schemes; columns: measures; one table per network. "
    "The comparison checks each paper's own ordering of its schemes on its own network."
)


def mode(quick: bool) -> str:
    return "quick (one seed, three buffer sizes)" if quick else "full (3 seeds)"


def reproduction(cfg: Config = DEFAULT) -> Reproduction:
    """The atlas of ``cfg`` (the default: the atlas; tests build a reduced one)."""
    return Reproduction(
        name="atlas",
        title=TITLE,
        citation=CITATION,
        intro=INTRO,
        package=__name__,
        jobs=partial(jobs, cfg=cfg),
        measure=partial(measure, cfg=cfg),
        claims=claims,
        notes=notes,
        mode=mode,
        figures=figures,
        html_tables=html_tables,
        extra=extra,
        meta={
            "networks": ", ".join(cfg.networks),
            "schemes": ", ".join(SCHEMES[s].label for s in cfg.schemes),
        },
    )


REPRODUCTION = reproduction()


def main(
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    cfg: Config = DEFAULT,
) -> int:
    """Run the atlas of ``cfg`` into ``out_dir`` (see :meth:`Reproduction.main`)."""
    return reproduction(cfg).main(out_dir, quick, workers=workers, scheduler=scheduler)


def report(out_dir: str | os.PathLike[str]) -> int:
    """Rebuild an earlier atlas from the runs stored in ``out_dir``, with the configuration
    it ran (``atlas-config.json``)."""
    path = Path(out_dir) / CONFIG_FILE
    cfg = DEFAULT
    if path.is_file():
        raw = json.loads(path.read_text(encoding="utf-8"))
        cfg = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})
    return reproduction(cfg).report(out_dir)
