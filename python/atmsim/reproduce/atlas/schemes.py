"""The scheme atlas's switching schemes: each a set of overrides that switches a network's TCP
connections to its service and its switches to its policy, scheduler and rate control, at a
given switch buffer, with the parameters of the paper that studied it (``Scheme.source``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atmsim.reproduce.atlas.measure import model_facts
from atmsim.reproduce.atlas.networks import Network
from atmsim.reproduce.atlas.published import FANG_CREDITS

__all__ = ["AN_ABR", "PRIORITY_FIFO", "PRIORITY_PER_VC", "SCHEMES", "Scheme", "credit_cells"]

PRIORITY_FIFO = {"kind": "priority", "cbr_vbr": "fifo", "abr": "fifo", "ubr_gfr": "fifo"}
PRIORITY_PER_VC = {
    "kind": "priority",
    "cbr_vbr": "round_robin",
    "abr": "round_robin",
    "ubr_gfr": "round_robin",
}


def credit_cells(net: Network) -> int:
    """AN2 credits per VC per hop: Fang's 5 cells, or the cells one hop's propagation round
    trip holds at the link's cell rate when that is more (5 cells cover the round trip of
    Fang's 100 m links; on the 1 ms and 5 ms links of the other networks they would cap
    each VC far below the link rate). Every link of a network has the same delay."""
    return max(FANG_CREDITS.value, model_facts(net.key)["hop_round_trip_cells"])


@dataclass(frozen=True)
class Scheme:
    """One switching scheme: its service, queueing, policy, rate control and end-system
    settings, and the paper its parameters come from."""

    key: str
    label: str
    family: str  # "ubr", "gfr", "credit" or "abr"
    queueing: str  # "fifo" (one shared queue per class) or "per_vc" (round robin)
    source: str
    params: str
    policy: dict[str, Any] = field(default_factory=lambda: {"kind": "cell_drop"})
    rate_control: dict[str, Any] | None = None
    abr: dict[str, Any] = field(default_factory=dict)

    @property
    def service(self) -> str:
        return {"ubr": "ubr", "credit": "ubr", "gfr": "gfr", "abr": "abr"}[self.family]

    def overrides(self, net: Network, buffer: int) -> dict[str, Any]:
        """The overrides that put ``net`` under this scheme with ``buffer`` cells per switch
        output port (per-VC queueing: ``buffer / VCs`` cells per VC, the VBR source's VC
        counted where there is one)."""
        n = len(net.tcp) + (net.vbr is not None)
        ov: dict[str, Any] = {}
        if self.queueing == "per_vc":
            ov["switch.*.scheduler"] = PRIORITY_PER_VC
            ov["switch.*.vc_buffer"] = f"{buffer // n} cells"
            ov["switch.*.port_buffer"] = "unlimited"
        else:
            ov["switch.*.scheduler"] = PRIORITY_FIFO
            ov["switch.*.vc_buffer"] = "unlimited"
            ov["switch.*.port_buffer"] = f"{buffer} cells"
        policy = dict(self.policy)
        if policy["kind"] == "red":
            # RED's s, the transmission time of a typical packet: a TCP segment's frame here.
            cells = model_facts(net.key)["cells_per_segment"]
            policy.setdefault("packet_size", f"{cells} cells")
        ov["switch.*.policy"] = policy
        ov["switch.*.rate_control"] = self.rate_control or {"kind": "none"}
        # AN2 credits reserve buffer at the next hop: never more than the VC's part of it.
        credits = min(credit_cells(net), buffer // n)
        ov["link.*.credits"] = f"{credits} cells" if self.family == "credit" else "off"
        for c in net.tcp:
            ov[f"connection.{c}.service"] = self.service
            if self.family == "gfr":
                ov[f"connection.{c}.share"] = {"threshold": f"{buffer // len(net.tcp)} cells"}
        if self.family == "abr":
            ov["abr.source_buffer"] = "unlimited"
            ov.update(self.abr)
        return ov


FANG = "Fang, Chen & Hutchins 1994 (Table 1 and the text)"
CHEON = "Cheon & Panwar 1998 (section 3, Tables 1 and 3)"
KALY = "Kalyanaraman et al. 1996 (ATM Forum 96-1294, sections 2-4)"
AN = "An 1997 (NJIT thesis, section 4.2)"
GOYAL = "Goyal, Jain, Fahmy & Vandalore 1998 (section 4)"
RED = "Floyd & Jacobson 1993 (its detailed algorithm; the weights of its simulations)"
UBRPLUS = "atmsim's defaults for the UBR+ policies (docs/scenarios.md)"
JAIN96 = (
    "Roberts, ATM Forum 94-0735R1, as Jain et al. 1996 (Computer Networks and ISDN Systems "
    "28(13)) describe it"
)

#: An 1997's end-system settings (section 4.2), for the schemes the atlas takes from it.
AN_ABR = {
    "abr.icr": "10 Mb/s",
    "abr.nrm": 32,
    "abr.mrm": 2,
    "abr.trm": "100 ms",
    "abr.tcr": "10 cells/s",
    "abr.tbe": "640 cells",
    "abr.cdf": 0.5,
}

SCHEMES: dict[str, Scheme] = {
    s.key: s
    for s in (
        Scheme("cell_drop", "UBR cell drop", "ubr", "per_vc", FANG,
               "per-VC queues served round robin; a cell that finds its VC's queue full is "
               "dropped", {"kind": "cell_drop"}),
        Scheme("ppd", "drop-tail (PPD)", "ubr", "per_vc", FANG,
               "per-VC queues; after a frame loses a cell the rest of it is dropped, its "
               "EOM kept (keep_eom = true)", {"kind": "ppd", "keep_eom": True}),
        Scheme("drop_whole", "drop-whole", "ubr", "per_vc", FANG,
               "per-VC queues; an overflowing frame also loses its queued cells",
               {"kind": "drop_whole"}),
        Scheme("epd", "EPD", "ubr", "fifo", CHEON,
               "shared FIFO; threshold 95% of the buffer", {"kind": "epd", "threshold": 0.95}),
        Scheme("espd", "ESPD", "ubr", "fifo", CHEON,
               "shared FIFO; high 95%, low 90% of the buffer",
               {"kind": "espd", "high": 0.95, "low": 0.9}),
        Scheme("red", "RED", "ubr", "fifo", RED,
               "shared FIFO; frames refused whole at their first cell by RED on the average "
               "queue: w_q 0.002, max_p 1/50, min_th 25% and max_th 75% of the buffer "
               "(max_th = 3 min_th, the paper's ratio; its thresholds are in packets), s = "
               "the time of one TCP segment's frame on the link",
               {"kind": "red", "min_th": 0.25, "max_th": 0.75, "w_q": 0.002, "max_p": 0.02}),
        Scheme("selective_drop", "Selective Drop", "ubr", "fifo", UBRPLUS,
               "shared FIFO; R = 0.9, Z = 0.8",
               {"kind": "selective_drop", "threshold": 0.9, "z": 0.8}),
        Scheme("fba", "FBA", "ubr", "fifo", UBRPLUS,
               "shared FIFO; R = 0.9, Z = 0.8", {"kind": "fba", "threshold": 0.9, "z": 0.8}),
        Scheme("gfr", "GFR buffer policy", "gfr", "fifo", GOYAL,
               "shared FIFO, GFR service; Z = 1.5, R = the whole buffer, equal per-VC "
               "thresholds R_i = buffer / sessions, W_i = 1, no tagging",
               {"kind": "gfr", "threshold": 1.0, "z": 1.5}),
        Scheme("credits", "AN2 credits", "credit", "per_vc", FANG,
               "per-VC queues; credits per VC on every link, host links included: Fang's 5 "
               "cells, or the cells the hop's propagation round trip holds when more, "
               "but never more than the VC's part of the buffer (credits reserve it)",
               {"kind": "cell_drop"}),
        Scheme("efci", "ABR EFCI", "abr", "fifo", AN,
               "EFCI marking from 500 cells down to 250 (atmsim's defaults, the thesis gives "
               "none); RIF 0.1, RDF 1/16, ICR 10 Mb/s, TBE 640 cells, CDF 0.5",
               {"kind": "cell_drop"}, {"kind": "efci"},
               {**AN_ABR, "abr.rif": 0.1, "abr.rdf": 0.0625}),
        Scheme("erica", "ABR ERICA", "abr", "fifo", KALY,
               "ERICA, target utilisation 0.9, averaging (500 cells, 5 ms), An = 0.9; "
               "end systems at atmsim's TM 4.0 defaults (ICR = PCR, RIF = RDF = 1/16; the "
               "paper states none but Nrm = 32)",
               {"kind": "cell_drop"},
               {"kind": "erica", "target_utilization": 0.9, "interval_cells": 500,
                "interval": "5 ms", "source_decay": 0.9}),
        Scheme("erica_plus", "ABR ERICA+", "abr", "fifo", KALY,
               "ERICA+, target utilisation 1, T0 = 500 us, a = 1.15, b = 1.05, QDLF = 0.5, "
               "averaging (100 cells, 1 ms); end systems at atmsim's TM 4.0 defaults",
               {"kind": "cell_drop"},
               {"kind": "erica_plus", "interval_cells": 100, "interval": "1 ms"}),
        Scheme("fmmra", "ABR FMMRA", "abr", "fifo", AN,
               "FMMRA, alpha 1/8 and atmsim's defaults for what the thesis leaves open; "
               "RIF 1, RDF 1/512, ICR 10 Mb/s, TBE 640 cells, CDF 0.5",
               {"kind": "cell_drop"}, {"kind": "fmmra"},
               {**AN_ABR, "abr.rif": 1.0, "abr.rdf": 0.001953125}),
        Scheme("eprca", "ABR EPRCA", "abr", "fifo", JAIN96,
               "EPRCA, AV 1/16, DPF 7/8, MRF 1/4 (the sources'), QT 200 and DQT 1,000 cells "
               "(atmsim's: the sources give none), CI when very congested; end systems at "
               "atmsim's TM 4.0 defaults (ICR = PCR, RIF = RDF = 1/16)",
               {"kind": "cell_drop"}, {"kind": "eprca"}),
    )
}  # fmt: skip
