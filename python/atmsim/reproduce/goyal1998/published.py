"""What Goyal, Jain, Fahmy & Vandalore publish in "Providing Rate Guarantees to TCP over the
ATM GFR Service" (IEEE LCN 1998), each number with where it stands in the paper; nothing
measured here."""

from __future__ import annotations

from atmsim.reproduce.framework import Published

CITATION = "Goyal, Jain, Fahmy, Vandalore, IEEE LCN 1998"

#: Fig. 3: the paper's simulated throughputs (Mb/s) of one TCP losing a segment at a window
#: of 125,000 / 250,000 / 500,000 bytes or never. The paper's text prints the fourth value
#: as "25.5"; its figure caption, equation and the 126 Mb/s ceiling make it 125.5.
FIG3_SIM = Published((23.64, 47.53, 93.77, 125.5), "Fig. 3 and section 3.1", "Mb/s")
#: Fig. 3: the paper's equation-1 values from its own average windows (Mb/s).
FIG3_EQ1 = Published((24.32, 48.5, 96.9, 125.6), "Fig. 3 and equation 1", "Mb/s")
#: The round trip of Fig. 4's network, which equation 1's values take.
RTT_S = Published(0.030, "Fig. 4", "s")

#: Table 1: per-TCP thresholds (cells) of groups 1-5 in experiments 1-4.
T1 = Published(
    (
        (305, 611, 917, 1223, 1528),
        (458, 917, 1375, 1834, 2293),
        (611, 1223, 1834, 2446, 3057),
        (764, 1528, 2293, 3057, 3822),
    ),
    "Table 1",
    "cells",
)
#: Table 2: per-TCP throughputs of groups 1-5 (Mb/s), and the totals of the fifteen TCPs.
T2 = Published(
    (
        (2.78, 5.45, 8.21, 10.95, 14.34),
        (2.83, 5.52, 8.22, 10.89, 13.51),
        (2.95, 5.75, 8.48, 10.98, 13.51),
        (3.06, 5.74, 8.68, 9.69, 13.93),
    ),
    "Table 2",
    "Mb/s",
)
T2_TOTAL = Published((125.21, 122.97, 125.04, 123.35), "Table 2", "Mb/s")
#: Table 3: throughput share over threshold share of groups 1-5.
T3 = Published(
    (
        (1.00, 0.98, 0.98, 0.98, 1.02),
        (1.03, 1.01, 1.00, 0.99, 0.98),
        (1.02, 1.03, 1.00, 0.98, 0.97),
        (1.08, 1.04, 1.02, 0.88, 1.01),
    ),
    "Table 3",
    "ratio",
)
#: Table 4: per-VC thresholds (cells) of VCs 1-5 in the three sets.
T4 = Published(
    (
        (152, 305, 458, 611, 764),
        (305, 611, 917, 1223, 1528),
        (611, 1223, 1834, 2446, 3057),
    ),
    "Table 4",
    "cells",
)
#: Table 5: throughput share over threshold share of VCs 1-5.
T5 = Published(
    (
        (1.04, 1.05, 0.97, 0.93, 1.03),
        (1.01, 1.02, 0.99, 1.00, 0.99),
        (1.16, 1.06, 1.05, 1.13, 0.80),
    ),
    "Table 5",
    "ratio",
)
#: The maximum queues the text reports for the three threshold sets of Table 4 (cells).
T5_MAX_QUEUE = Published((3185, 5980, 11992), "section 4, text on Table 5", "cells")
#: "the achieved link utilization was almost 100%".
UTILISATION = Published("~1", "section 4, text on Table 5", "fraction")

# The tuples by the names the rest of the package (and older code) use.
FIG3_PAPER = FIG3_SIM.value
FIG3_FORMULA = FIG3_EQ1.value
TABLE1 = T1.value
TABLE2 = T2.value
TABLE2_TOTAL = T2_TOTAL.value
TABLE3 = T3.value
TABLE4 = T4.value
TABLE5 = T5.value
TABLE5_MAX_QUEUE = T5_MAX_QUEUE.value
