"""The scheme atlas's networks: each a built-in scenario with overrides, the study it comes
from, its bottleneck, buffer grid and run length."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["KALY_JITTER", "KALY_QUICK_RUN", "KALY_RUN", "KALY_VBR_SOURCE", "NETWORKS", "Network"]


@dataclass(frozen=True)
class Network:
    """One network family of the atlas, derived from a built-in scenario by overrides."""

    key: str
    title: str
    scenario: str
    source: str
    base: dict[str, Any]
    tcp: tuple[str, ...]
    switches: tuple[str, ...]
    bottleneck: str
    grid: tuple[int, ...]
    quick_grid: tuple[int, ...]
    reference: int
    full_run: tuple[str, str]
    quick_run: tuple[str, str]
    sample_every: str
    #: RTT groups, longest first (None: every TCP has the same round trip).
    groups: tuple[tuple[str, ...], ...] | None = None
    vbr: str | None = None

    def run_overrides(self, quick: bool) -> dict[str, Any]:
        dur, warm = self.quick_run if quick else self.full_run
        return {
            **self.base,
            "run.duration": dur,
            "run.warmup": warm,
            "run.sample_every": self.sample_every,
        }

    def buffers(self, quick: bool) -> tuple[int, ...]:
        return self.quick_grid if quick else self.grid


def _tcps(n: int) -> tuple[str, ...]:
    return tuple(f"s{i}" for i in range(1, n + 1))


#: Kalyanaraman et al.'s sources all start at once, which makes every seed the same run; the
#: atlas spreads their starts over the first millisecond (as Fang's scenario does), drawn
#: from the seed, so that the seeds differ.
KALY_JITTER = {f"connection.s{i}.start_jitter": "1 ms" for i in range(1, 16)}

#: The Kalyanaraman VBR background of the atlas: Table 2's (d 0.8, p 100 ms) case, one the
#: paper finds bounded under ERICA+ (its (0.8, 10 ms) case, the built-in's, diverges).
KALY_VBR_SOURCE = {"kind": "on_off", "rate": "124.416 Mb/s", "period": "100 ms", "duty_cycle": 0.8}

#: Run length and warm-up on the Kalyanaraman networks (see the `kaly` network below).
KALY_RUN = ("8 s", "3 s")
KALY_QUICK_RUN = ("6 s", "2 s")

NETWORKS: dict[str, Network] = {
    n.key: n
    for n in (
        Network(
            key="fang",
            title="Fang LAN (6 sessions, 2 switches, 100 m links)",
            scenario="fang1994-cell-drop",
            source="Fang, Chen & Hutchins 1994, Fig. 2 and Table 1",
            base={},
            tcp=_tcps(6),
            switches=("A", "B"),
            bottleneck="A->B",
            # Cells per port; per-VC schemes get 1/6 of it per VC (1536 = Fang's 256 per VC).
            grid=(192, 384, 768, 1536, 3072, 6144, 12288),
            quick_grid=(384, 1536, 12288),
            reference=1536,
            full_run=("10 s", "1 s"),
            quick_run=("5 s", "1 s"),
            sample_every="5 ms",
        ),
        Network(
            key="parking",
            title="Cheon & Panwar parking lot (15 sessions, RTT 10 / 8 / 6 ms)",
            scenario="cheon1998-epd-500",
            source="Cheon & Panwar 1998, Fig. 1 and section 2 (500 B packets)",
            base={},
            tcp=_tcps(15),
            switches=("sw1", "sw2", "sw3", "sw4"),
            bottleneck="sw3->sw4",
            grid=(250, 500, 1000, 2000, 4000, 8000, 16000),
            quick_grid=(500, 2000, 8000),
            reference=2000,
            full_run=("3 s", "0.5 s"),
            quick_run=("3 s", "0.5 s"),
            sample_every="2 ms",
            groups=(
                _tcps(5),
                tuple(f"s{i}" for i in range(6, 11)),
                tuple(f"s{i}" for i in range(11, 16)),
            ),
        ),
        Network(
            key="kaly",
            title="Kalyanaraman WAN (15 sessions, 1000 km links), no VBR",
            scenario="kalyanaraman1996-table1",
            source="Kalyanaraman et al. 1996, section 2 (Table 1's network)",
            base=KALY_JITTER,
            tcp=_tcps(15),
            switches=("A", "B"),
            bottleneck="A->B",
            grid=(1024, 2048, 4096, 8192, 16384, 32768),
            quick_grid=(2048, 8192, 32768),
            reference=32768,
            # With 15 windows of 1 MiB, no fast retransmit and a 200 ms minimum RTO, the UBR
            # schemes take seconds to recover from their slow-start losses: measured from 1 s
            # their shares are still climbing (cell drop at 32,768 cells 0.35 in 3 s runs,
            # 0.99 from 3 s in 8 s runs, 1.00 from 4 s in 12 s runs).
            full_run=KALY_RUN,
            quick_run=KALY_QUICK_RUN,
            sample_every="2 ms",
        ),
        Network(
            key="kaly-vbr",
            title="Kalyanaraman WAN with VBR ON-OFF (d 0.8, p 100 ms)",
            scenario="kalyanaraman1996-table2",
            source="Kalyanaraman et al. 1996, section 2 and Table 2 (row d 0.8, p 100 ms)",
            base={**KALY_JITTER, "connection.vbr.source": KALY_VBR_SOURCE},
            tcp=_tcps(15),
            switches=("A", "B"),
            bottleneck="A->B",
            grid=(1024, 2048, 4096, 8192, 16384, 32768),
            quick_grid=(2048, 8192, 32768),
            reference=32768,
            full_run=KALY_RUN,
            quick_run=KALY_QUICK_RUN,
            sample_every="2 ms",
            vbr="vbr",
        ),
    )
}
