"""What Kalyanaraman, Jain, Fahmy, Goyal, Jiang & Kim publish in ATM Forum 96-1294 (1996),
each number with where it stands in the paper; nothing measured here."""

from __future__ import annotations

from atmsim.reproduce.framework import Published

CITATION = "Kalyanaraman, Jain, Fahmy, Goyal, Jiang & Kim, ATM Forum 96-1294 (1996)"

#: The receiver window, 1024 KB = 24,576 cells, and the round trip, 30 ms = 11,040 cells at
#: 368 cells/ms.
WINDOW = Published(24_576, "section 2", "cells")
RTT = Published(11_040, "section 4.1.1", "cells")
#: The maximum TCP throughput, the product 155.52 x 0.9 x 48/53 x 512/568 x 31/32 the paper
#: prints (it evaluates to 110.69; the paper rounds it to "approximately 110.9").
MAX_TCP = Published(155.52 * 0.9 * 48 / 53 * 512 / 568 * 31 / 32, "section 4.1.1", "Mb/s")
#: "The switch buffering requirement is under 3 x RTT".
SWITCH_BOUND_RTTS = Published(3, "section 4.1.1", "RTT")

#: Table 1: source buffer [cells] -> (max source queue, overflow, max switch queue, Mb/s).
T1 = {
    100: (100, True, 8_624, 73.27),
    1_000: (1_000, True, 17_171, 83.79),
    10_000: (10_000, True, 17_171, 95.48),
    100_000: (23_901, False, 17_171, 110.90),
}
T1_REF = "Table 1"

#: Table 2: (duty cycle, period ms) -> max switch queue [cells], None = DIVERGENT.
T2: dict[tuple[float, int], int | None] = {
    (0.95, 100): 2_588,
    (0.8, 100): 5_217,
    (0.7, 100): 5_688,
    (0.95, 10): 2_709,
    (0.8, 10): None,
    (0.7, 10): None,
    (0.95, 1): 2_589,
    (0.8, 1): 4_077,
    (0.7, 1): 2_928,
}
T2_REF = "Table 2"

#: Table 3 (its values are not in our copy of the paper, only its text): the divergent case
#: of Table 2 with the feedback delay varied. Feedback delay [ms] -> divergent (text: "the
#: queues are small when the feedback delay is 1 ms"; "entries 2 and 3 have a feedback delay
#: longer than the OFF time. This is one of the factors causing the divergence"). The paper's
#: links "may assume values 1000, 500, 100 and 1 km", and the feedback delay is twice the
#: source-to-switch link: 10, 5, 1 and 0.01 ms. Entry 1 is 1 ms (100 km); the two longer than
#: the 2 ms OFF time are 5 ms (500 km) and 10 ms (1000 km, Table 2's own run).
T3_CASE = (0.8, 10)
T3 = {1: False, 5: True, 10: True}
T3_REF = "Table 3 (text)"

#: Table 4: d = 0.7, p = 20 ms; setting -> max switch queue (both converge). "none" is the
#: same case without averaging, which the text calls "a formerly divergent case".
T4_CASE = (0.7, 20)
T4: dict[str, int | None] = {"none": None, "na-z": 5_223, "na-500": 5_637}
T4_REF = "Table 4"
