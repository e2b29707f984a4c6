"""What the papers the atlas checks publish, each number with where it stands; nothing
measured here. The atlas's checks are each paper's ordering of its own schemes."""

from __future__ import annotations

from atmsim.reproduce.framework import Published

CITATION = (
    "Fang, Chen & Hutchins 1994; Cheon & Panwar 1998; Kalyanaraman et al. 1996; An 1997; "
    "Goyal et al. 1998"
)

#: AN2 credits per VC per hop.
FANG_CREDITS = Published(5, "Fang 1994, Table 1", "cells")
#: Cheon & Panwar's goodputs of ESPD (95/90) and EPD (95%) on the parking lot.
CHEON_ESPD_EPD = Published("> 0 (92% vs 77%)", "Cheon & Panwar 1998, Tables 1 and 3", "points")
#: Kalyanaraman et al.'s Table 1, row 4: largest source queue and largest switch queue.
KALY_T1_SOURCE_SWITCH = Published("23,901 / 17,171", "Kalyanaraman 1996, Table 1", "cells")
KALY_T1_SWITCH = Published(17_171, "Kalyanaraman 1996, Table 1", "cells")
#: Kalyanaraman et al.'s Table 2, (d 0.8, p 100 ms): the maximum switch queue.
KALY_T2_SWITCH = Published(5_217, "Kalyanaraman 1996, Table 2", "cells")
