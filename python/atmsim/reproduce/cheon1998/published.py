"""What Cheon & Panwar publish (1998, "On the Performance of ATM-UBR with Early Selective
Packet Discard", the extended version of their LCN'97 paper), each number with where it
stands in the paper; nothing measured here."""

from __future__ import annotations

from dataclasses import dataclass

from atmsim.reproduce.framework import Published

CITATION = (
    "Cheon & Panwar 1998, On the Performance of ATM-UBR with Early Selective Packet Discard "
    "(extended version of their LCN'97 paper)"
)


@dataclass(frozen=True)
class Table:
    """One of the paper's Tables 1-8 (section 4), transcribed: per column the packets
    delivered by each RTT group in 2.5 s, the sum's standard deviation over five seeds and
    Jain's fairness index."""

    number: int
    packet: int  # TCP payload bytes
    scheme: str  # "epd" or "espd"
    varied: str  # the policy field each column sets
    fixed: dict[str, float]  # the policy fields all columns share
    columns: tuple[float, ...]  # the varied field's values (fractions of the buffer)
    groups: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # packets, g1..g3
    sums: tuple[int, ...]
    sum_pct: tuple[int, ...]
    sd: tuple[int, ...]
    fairness: tuple[float, ...]

    @property
    def ref(self) -> str:
        return f"Table {self.number}"

    def column_name(self, col: int) -> str:
        return f"{self.varied} {self.columns[col] * 100:g}%"

    @property
    def caption(self) -> str:
        fixed = ", ".join(f"{k} {v * 100:g}%" for k, v in self.fixed.items())
        what = "EPD" if self.scheme == "epd" else f"ESPD ({fixed})"
        return f"Table {self.number}: {what}, {self.packet} B packets, {self.varied} varied"


TABLES: tuple[Table, ...] = (
    Table(1, 500, "epd", "threshold", {}, (0.95, 0.90, 0.80, 0.70, 0.60),
          ((12429, 11873, 11601, 11448, 11945), (16363, 16311, 17692, 15701, 15354),
           (30262, 31348, 29781, 31574, 29261)),
          (59054, 59532, 59074, 58723, 56560), (77, 78, 77, 77, 74),
          (837, 848, 1015, 414, 1366), (0.837, 0.802, 0.830, 0.791, 0.834)),
    Table(2, 1500, "epd", "threshold", {}, (0.95, 0.90, 0.80, 0.70, 0.60),
          ((5618, 6016, 6014, 5962, 5768), (7477, 6842, 7107, 6937, 6570),
           (12693, 12634, 12132, 12204, 12116)),
          (25788, 25492, 25253, 25103, 24454), (93, 92, 91, 90, 88),
          (174, 177, 147, 162, 247), (0.867, 0.860, 0.884, 0.875, 0.864)),
    Table(3, 500, "espd", "low", {"high": 0.95}, (0.90, 0.85, 0.80, 0.70, 0.60),
          ((17332, 14929, 17243, 16830, 13559), (19544, 20479, 19501, 17769, 18107),
           (33791, 36151, 33797, 33733, 33289)),
          (70673, 71559, 70541, 68332, 64955), (92, 94, 92, 89, 85),
          (1182, 555, 516, 1605, 608), (0.859, 0.798, 0.858, 0.802, 0.774)),
    Table(4, 1500, "espd", "low", {"high": 0.95}, (0.90, 0.85, 0.80, 0.70, 0.60),
          ((6579, 6983, 6423, 6496, 7024), (7279, 7451, 7343, 7223, 6937),
           (12724, 12278, 12839, 12634, 11842)),
          (26582, 26712, 26615, 26353, 25803), (96, 96, 96, 95, 93),
          (124, 410, 188, 169, 315), (0.881, 0.866, 0.864, 0.839, 0.864)),
    Table(5, 500, "espd", "low", {"high": 1.0}, (0.95, 0.90, 0.80, 0.70, 0.60),
          ((18710, 19522, 17506, 21058, 18919), (23426, 23927, 25388, 21661, 22991),
           (26052, 27141, 22794, 24298, 23186)),
          (68188, 70590, 65688, 67017, 65096), (89, 92, 86, 88, 85),
          (866, 1620, 793, 1966, 1252), (0.912, 0.902, 0.917, 0.910, 0.887)),
    Table(6, 1500, "espd", "low", {"high": 1.0}, (0.95, 0.90, 0.80, 0.70, 0.60),
          ((8369, 7902, 9176, 9187, 8920), (8810, 8950, 8878, 9628, 9361),
           (8072, 9614, 8480, 7174, 6870)),
          (25251, 26466, 26534, 25989, 25251), (91, 95, 95, 94, 91),
          (296, 233, 330, 201, 251), (0.941, 0.924, 0.938, 0.915, 0.909)),
    Table(7, 500, "espd", "high", {"low": 0.50}, (0.55, 0.60, 0.70, 0.80, 0.90),
          ((14505, 14795, 16998, 15323, 13518), (16774, 19265, 18615, 17424, 17913),
           (35365, 34474, 32611, 31470, 31302)),
          (66644, 68534, 68224, 64217, 62733), (87, 90, 89, 84, 82),
          (1277, 1785, 1346, 1629, 2538), (0.805, 0.822, 0.845, 0.783, 0.791)),
    Table(8, 1500, "espd", "high", {"low": 0.50}, (0.55, 0.60, 0.70, 0.80, 0.90),
          ((6089, 6440, 6980, 6593, 6852), (7312, 6781, 6828, 6555, 7236),
           (12059, 12680, 12142, 11955, 11227)),
          (25400, 25901, 25950, 25593, 25315), (91, 93, 93, 92, 91),
          (456, 272, 231, 193, 268), (0.858, 0.850, 0.851, 0.831, 0.872)),
)  # fmt: skip

#: The paper's maxima (footnote of every table): packets an OC-3 carries in 2.5 s.
PAPER_MAX = {
    500: Published(76415, "Tables 1, 3, 5, 7 (footnote)", "packets"),
    1500: Published(27787, "Tables 2, 4, 6, 8 (footnote)", "packets"),
}
#: The round-trip groups of Fig. 1 as the tables name them.
GROUP_NAMES = ("sessions 1-5 (10 ms)", "sessions 6-10 (8 ms)", "sessions 11-15 (6 ms)")
#: ESPD's gain over EPD in points of the maximum, (EPD table, ESPD table) -> gain (abstract:
#: "by up to 16%"; conclusion: "3% to 16%").
ESPD_GAIN = {
    (1, 3): Published(16, "abstract; section 5; Tables 1 and 3", "points"),
    (2, 4): Published(3, "section 5; Tables 2 and 4", "points"),
    (1, 5): Published(14, "section 5; Tables 1 and 5", "points"),
    (2, 6): Published(3, "section 5; Tables 2 and 6", "points"),
}
#: ESPD 95/90 over EPD 95% (500 B): the gain of sessions 1-5 and of sessions 11-15.
GAIN_LONG = Published(39.4, "section 4", "%")
GAIN_SHORT = Published(11.7, "section 4", "%")
#: EPD's best sum minus its worst over the thresholds 70-95%, by table ("the best ... gets
#: only an 1% improvement over the worst"; 3% at 1,500 B).
THRESHOLD_SPREAD = {
    1: Published(1, "section 4", "points"),
    2: Published(3, "section 4", "points"),
}
#: The varied threshold of the best column of an ESPD table ("a gap of about 10% between
#: the thresholds").
BEST_THRESHOLD = {
    3: Published(85, "Table 3", "%"),
    5: Published(90, "Table 5", "%"),
    7: Published(60, "Table 7", "%"),
    8: Published(70, "Table 8", "%"),
}
