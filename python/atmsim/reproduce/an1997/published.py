"""What Liping An's M.S. thesis (NJIT, 1997) publishes that atmsim measures against, each
number with where it stands in the thesis; nothing measured here. The thesis gives its results
as figures and sentences, not tables."""

from __future__ import annotations

from atmsim.reproduce.framework import Published

CITATION = "Liping An, M.S. thesis, New Jersey Institute of Technology, January 1997"

#: Figs. 4.17-4.18 (text): with 10 TCPs and the 10 ms VBR, "the queue length using FMMRA
#: reaches more than 3000 cells, that using ERICA is above 7000 cells".
PAPER_N10_ERICA = Published(7_000, "Figs. 4.17-4.18 (text)", "cells")
PAPER_N10_FMMRA = Published(3_000, "Figs. 4.17-4.18 (text)", "cells")

#: The set-up the notes cite (section 4.2 and Fig. 4.1; section 2.1 for the TCP).
LINK_MBPS = Published(155, "Fig. 4.1", "Mb/s")
BACKBONE_KM = Published(1, "Fig. 4.1", "km")
VBR_MBPS = Published(100, "Fig. 4.1", "Mb/s")
VBR_START_MS = Published(300, "section 4.2", "ms")
VBR_PERIODS_MS = Published((10, 100), "Figs. 4.8-4.13", "ms")
MSS = Published(9180, "section 4.2", "bytes")
WINDOW_KB = Published(64, "section 4.2", "KB")
PROCESSING_US = Published((200, 50), "section 4.2", "us")
ICR_MBPS = Published(10, "section 4.2", "Mb/s")
N10_VBR_MS = Published(10, "Figs. 4.17-4.18", "ms")
