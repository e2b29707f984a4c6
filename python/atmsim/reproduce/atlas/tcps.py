"""The atlas's TCP axis: the schemes on the same networks with today's TCPs beside the ones
the papers had, to ask which of each paper's conclusions still hold.

Each setting changes only how a connection's TCP reacts to congestion: the segment size,
the windows, the timer granularity, the minimum RTO and the delayed ACKs stay each network's
own (its paper's), so that a difference is the algorithm's, not the stack's other settings.

- ``paper``: each network's TCP as its paper had it (Fang: Tahoe; Cheon & Panwar and
  Kalyanaraman: Reno, Kalyanaraman's without fast retransmit; An: Tahoe).
- ``sack``: NewReno with SACK loss recovery (RFC 6675), fast retransmit on the third
  duplicate ACK: the loss recovery of every stack since about 2000.
- ``cubic``: the same with CUBIC's window growth and its 0.7 reduction (RFC 9438), the
  default congestion control of Linux, Windows and macOS.
- ``cubic_ecn``: CUBIC with ECN (RFC 3168). Every switch port marks EFCI on the AAL5 data
  cells that arrive to a queue of :data:`ECN_MARK_SHARE` of its buffer or more (under RED,
  RED marks the frames it would drop early instead, RFC 3168 section 7), and the
  receiving host's edge maps a frame with a marked cell to Congestion Experienced. Where a
  port's buffer is unlimited (the ABR networks' switches) the mark is set at that share of
  the atlas's buffer of the run. The threshold is the atlas's choice (the ECN standard
  leaves marking to the queue's manager); the marks reach an ABR destination too, which
  turns them into CI on its backward RM cells as TM 4.0 has it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AN_ECN_BUFFER", "ECN_MARK_SHARE", "TCPS", "Tcp", "TCP_CHECK_SCHEMES"]

#: Where the ``cubic_ecn`` setting's switches start marking: this share of the switch buffer
#: of the run (cells per port; per-VC schemes: the whole port's, since the mark is taken on
#: the class's queue). A quarter leaves three quarters of the buffer to absorb the round trip
#: before the reduction takes hold (the marks reach the sender a round trip later).
ECN_MARK_SHARE = 0.25

#: The buffer the ``cubic_ecn`` setting's marks are a share of on An 1997's network, whose
#: buffers are unlimited as the thesis's: its quarter, 500 cells, is the ABR queue from which
#: An's EFCI switches mark (atmsim's EFCI default, the reproduction's main setting).
AN_ECN_BUFFER = 2000

_SACK = {"tcp.variant": "sack", "tcp.dupack_threshold": 3}


@dataclass(frozen=True)
class Tcp:
    """One TCP setting of the axis: the overrides it adds to a run (on top of the scheme's)."""

    key: str
    label: str
    what: str
    tcp: dict[str, Any] = field(default_factory=dict)
    ecn: bool = False

    def overrides(self, buffer: int, policy: dict[str, Any] | None = None) -> dict[str, Any]:
        """The overrides of this TCP for a run with ``buffer`` cells per switch port, whose
        switches run ``policy`` (the scheme's). With ECN, RED marks the frames its random
        rule chooses instead of dropping them (RFC 3168 section 7) and no threshold marks
        beside it; every other policy's ports mark from :data:`ECN_MARK_SHARE` of the
        buffer."""
        ov = dict(self.tcp)
        if self.ecn:
            ov["tcp.ecn"] = True
            if policy is not None and policy.get("kind") == "red":
                ov["switch.*.policy"] = {**policy, "ecn_mark": True}
            else:
                cells = max(1, round(ECN_MARK_SHARE * buffer))
                ov["switch.*.efci_threshold"] = f"{cells} cells"
        return ov


TCPS: dict[str, Tcp] = {
    t.key: t
    for t in (
        Tcp("paper", "paper's TCP", "each network's TCP as its paper had it"),
        Tcp("sack", "NewReno+SACK", "SACK loss recovery, fast retransmit at 3 dupacks", _SACK),
        Tcp(
            "cubic",
            "CUBIC",
            "CUBIC (RFC 9438) with SACK loss recovery",
            {**_SACK, "tcp.congestion_control": "cubic"},
        ),
        Tcp(
            "cubic_ecn",
            "CUBIC+ECN",
            "CUBIC with ECN, switches marking EFCI from a quarter of the buffer",
            {**_SACK, "tcp.congestion_control": "cubic"},
            ecn=True,
        ),
    )
}

#: The schemes the atlas's checks compare, by network: the quick atlas runs the TCP axis on
#: these only (the full atlas on every scheme).
TCP_CHECK_SCHEMES = {
    "fang": ("credits", "drop_whole", "ppd", "cell_drop"),
    "parking": ("epd", "espd"),
    "kaly": ("erica",),
    "kaly-vbr": ("erica_plus",),
}
