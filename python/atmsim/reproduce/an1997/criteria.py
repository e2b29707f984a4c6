"""Every claim of the thesis about FMMRA (:data:`CRITERIA`) and about EFCI
(:data:`EFCI_CRITERIA`), as tests on one setting's runs: each setting of the sensitivity grids
is scored on all of them at once."""

from __future__ import annotations

import numpy as np

from atmsim.reproduce.an1997.measure import Measured, mean_response
from atmsim.reproduce.an1997.published import PAPER_N10_FMMRA

#: The thesis's claims about FMMRA, as (short name, test on a setting's runs): each FMMRA
#: setting of the sensitivity grid is scored on all of them.
CRITERIA = (
    "N=2 queue smallest",
    "N=5 queue smallest",
    "N=5 transient fairest",
    "ACR response fastest",
    "1,500 cells: no loss",
    "1,500 cells: best goodput",
    "N=10 queue > 3,000",
    "N=10 queue < ERICA's",
)


#: Every claim of the thesis about EFCI, as :func:`efci_criteria` scores an EFCI setting.
EFCI_CRITERIA = (
    "N=2 queue above FMMRA's",
    "N=5 queue above FMMRA's",
    "N=5 transient less fair than FMMRA",
    "ACR response slower than FMMRA's",
    "1,500 cells: goodput below FMMRA's",
    "1,500 cells: least fair",
)


def efci_criteria(m: Measured, key: str) -> dict[str, tuple[bool, str]]:
    """For the EFCI setting ``key``, each of :data:`EFCI_CRITERIA`: (holds, the measured
    value). The fairness ones are means over the seeds of the fairness claims."""
    out: dict[str, tuple[bool, str]] = {}
    for fam, name in (("n2", EFCI_CRITERIA[0]), ("n5", EFCI_CRITERIA[1])):
        q = m.max_queue(fam, key)
        out[name] = (q > m.max_queue(fam, "fmmra"), f"{q:,}")
    j = float(np.mean(m.seed_transient_fairness("n5", key)))
    out[EFCI_CRITERIA[2]] = (
        j < float(np.mean(m.seed_transient_fairness("n5", "fmmra"))),
        f"{j:.4f}",
    )
    r = mean_response(m, key)
    out[EFCI_CRITERIA[3]] = (r > mean_response(m, "fmmra"), f"{r * 1e3:.1f} ms")
    t = m.total("buffer", key)
    out[EFCI_CRITERIA[4]] = (t < m.total("buffer", "fmmra"), f"{t:.1f}")
    jb = float(np.mean(m.seed_fairness("buffer", key)))
    others = min(float(np.mean(m.seed_fairness("buffer", o))) for o in ("erica", "fmmra"))
    out[EFCI_CRITERIA[5]] = (jb < others, f"{jb:.4f}")
    return out


def fmmra_criteria(m: Measured, key: str) -> dict[str, tuple[bool, str]]:
    """For the FMMRA setting ``key``, each of :data:`CRITERIA`: (holds, the measured value)."""
    out: dict[str, tuple[bool, str]] = {}
    for fam, name in (("n2", CRITERIA[0]), ("n5", CRITERIA[1])):
        q = m.max_queue(fam, key)
        others = min(m.max_queue(fam, o) for o in ("erica", "efci"))
        out[name] = (q < others, f"{q:,}")
    j = m.transient_fairness("n5", key)
    out[CRITERIA[2]] = (
        j > max(m.transient_fairness("n5", o) for o in ("erica", "efci")),
        f"{j:.4f}",
    )
    r = mean_response(m, key)
    out[CRITERIA[3]] = (
        r < min(mean_response(m, o) for o in ("erica", "efci")),
        f"{r * 1e3:.1f} ms",
    )
    d = m.dropped("buffer", key)
    out[CRITERIA[4]] = (d == 0, f"{d:,}")
    t = m.total("buffer", key)
    out[CRITERIA[5]] = (t > max(m.total("buffer", o) for o in ("erica", "efci")), f"{t:.1f}")
    q10 = m.max_queue("n10", key)
    out[CRITERIA[6]] = (q10 >= PAPER_N10_FMMRA.value, f"{q10:,}")
    out[CRITERIA[7]] = (q10 < m.max_queue("n10", "erica"), f"{q10:,}")
    return out
