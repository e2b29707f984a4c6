"""What Fang, Chen & Hutchins publish in "A simulation study of TCP performance in ATM
networks" (1994), each number with where it stands in the paper; nothing measured here.

Our copy of the paper is its text without the figure images, so every number of Figs. 9-12
is quoted from the text; none is read off a plot.
"""

from __future__ import annotations

from atmsim.reproduce.framework import Published

CITATION = "Fang, Chen & Hutchins 1994, A simulation study of TCP performance in ATM networks"

#: Table 1: the link serialises one 53-byte cell in 2.75 us.
CELL_TIME = Published(2.75, "Table 1", "us")
#: The link's payload rate as the paper rounds it ("139.5 Mbps").
PAYLOAD_RATE = Published(139.5, "section 4 (Fig. 7 text)", "Mb/s")
#: Table 1's "TCP processing and OS overhead" per packet.
CPU_PER_PACKET = Published(300, "Table 1", "us")
#: An 8 KB segment in the paper's framing (8192 / 48 rounded up).
PAPER_CELLS_PER_SEGMENT = Published(171, "section 5 (Fig. 12 text)", "cells")

AN2_SESSION = Published(23.3, "Fig. 4 text", "Mb/s")  # "roughly one-sixth ..., 23.3 Mbps"
CD_REDUCTION = Published(36.0, "Fig. 4 text", "%")  # "a 36% TCP throughput degradation"
CD_LOSS = Published(6.5, "Fig. 5 text", "%")
CD_RETX = Published(38.0, "Fig. 5 text", "%")
CD_EFFECTIVE = Published(63.0, "Fig. 8 text", "%")
CD_WASTE = Published(32.0, "Fig. 8 text", "% pts")  # raw - effective "approximately 32%"
MSS64_ALONE = Published(0.758, "Table 2 footnote", "Mb/s")
MSS64_BUSY = Published(0.754, "Table 2", "Mb/s")
MSS8K = Published((27.95, 28.19, 27.79, 28.15, 27.88), "Table 2", "Mb/s")

DT_RATE = Published(18.5, "Fig. 9 text", "Mb/s")  # "average TCP throughput of 18.5 Mbps"
DW_RATE = Published(22.5, "Fig. 9 text", "Mb/s")  # "approximately 22.5 Mbps"
DT_VS_AN2 = Published(-20.0, "Fig. 9 text", "%")  # "a 20% decrease ... over the flow-controlled"
DT_VS_CD = Published(24.0, "Fig. 9 text", "%")  # "a 24% improvement over ... simple cell-drop"
DW_VS_AN2 = Published(-3.0, "Fig. 9 text", "%")  # "a 3% decrease"
DW_VS_CD = Published(50.0, "Fig. 9 text", "%")  # "a 50% improvement"
DT_LOSS = Published(7.5, "Fig. 10 text", "%")
DT_RETX = Published(25.0, "Fig. 10 text", "%")
DW_LOSS = Published(17.0, "Fig. 11 text", "%")
DW_RETX = Published(18.0, "Fig. 11 text", "%")
DW_WASTE = Published(0.0, "Fig. 11 text", "% pts")  # "the raw link utilization is the effective"
FLOW_RATE = Published(23.2, "Fig. 12 text", "Mb/s")  # the flow-controlled throughput
DW_256_RETX = Published(17.0, "Fig. 12 text", "%")  # "a 17% TCP retransmission rate at ... 256"
DW_512_RETX = Published(7.5, "Fig. 12 text", "%")  # "around 7.5%"
DW_OF_OPTIMAL = Published(0.98, "Fig. 12 text", "ratio")  # "already at 98% of the optimal"
WINDOW_CELLS = Published(1368, "Fig. 12 text", "cells")  # "64 KBytes (1368 cells)"
