"""What an atlas runs: networks, schemes, buffer grids, seeds, run lengths and the extra
studies (:class:`Config`; the default is the atlas, tests build a reduced one)."""

from __future__ import annotations

from dataclasses import dataclass

from atmsim.reproduce.atlas.measure import SPREAD_NET
from atmsim.reproduce.atlas.networks import NETWORKS, Network
from atmsim.reproduce.atlas.schemes import SCHEMES
from atmsim.reproduce.atlas.tcps import TCP_CHECK_SCHEMES, TCPS

__all__ = [
    "DEFAULT",
    "SEEDS_FULL",
    "SEEDS_QUICK",
    "SPREADS_FULL",
    "SPREADS_QUICK",
    "SPREAD_QUICK_RUN",
    "Config",
    "seeds",
    "spread_run",
]

SEEDS_FULL = (1, 2, 3)
SEEDS_QUICK = (1,)


def seeds(quick: bool) -> tuple[int, ...]:
    return SEEDS_QUICK if quick else SEEDS_FULL


#: Fairness against round-trip spread, with the spread as the controlled variable: the
#: parking lot at its reference buffer, every scheme, with the short group's propagation
#: round trip (sessions 11-15) ``SPREAD_SHORT_RTT_MS`` and the long group's (1-5) R times
#: that, the middle group's halfway, set by the sources' access links (the switches' links
#: stay as the paper has them). At R = 1 every session has the same round trip and what is
#: left is the topology: the long group crosses three loaded ports, the short one one.
SPREAD_SHORT_RTT_MS = 10
SPREADS_FULL = (1, 2, 3, 4)
SPREADS_QUICK = (1, 4)
#: Run length and warm-up of the spread study. The parking lot's 3 s runs measure how far
#: each group has recovered from its start: after an early timeout a TCP of 500 B segments
#: regains its window by one segment per round trip, which takes seconds at 40 ms (at R = 4
#: under ERICA+, seed 1, a long/short ratio of 0.16 measured from 0.5 to 3 s, 0.70 from 3 to
#: 10 s, 1.00 from 10 to 20 s and from 20 to 40 s). The full atlas measures from 10 to 20 s.
SPREAD_RUN = ("20 s", "10 s")
#: The quick atlas (the tests' run) measures from 5 to 10 s: half the cost of the spread runs,
#: which were half of the quick atlas's run time; its ratios are those of a session still
#: recovering, as the quick report's run lengths say.
SPREAD_QUICK_RUN = ("10 s", "5 s")


def spread_run(quick: bool) -> tuple[str, str]:
    """The spread study's (duration, warm-up) in full or quick mode."""
    return SPREAD_QUICK_RUN if quick else SPREAD_RUN


@dataclass(frozen=True)
class Config:
    """What an atlas runs: networks, schemes, buffer grids, seeds and run lengths. The
    default is the atlas; tests build a reduced one."""

    networks: tuple[str, ...] = tuple(NETWORKS)
    schemes: tuple[str, ...] = tuple(SCHEMES)
    #: Replace each network's grid (None: the network's own, full or quick).
    grid: tuple[int, ...] | None = None
    seeds: tuple[int, ...] | None = None
    #: Replace each network's run length: (duration, warm-up).
    run: tuple[str, str] | None = None
    an_check: bool = True
    #: EPD and ESPD on the parking lot again under ``CHEON_READING``, the reading of Cheon &
    #: Panwar's TCP closest to their results in atmsim's cheon1998 reproduction.
    cheon_check: bool = True
    #: The round-trip spread study's ratios R (None: ``SPREADS_FULL`` or ``SPREADS_QUICK``;
    #: empty: no study). It runs when the parking lot is among ``networks``.
    spreads: tuple[int, ...] | None = None
    #: The TCP axis's settings (keys of ``tcps.TCPS``; None: all of them; empty or only
    #: "paper": no axis). Each runs at each network's reference buffer.
    tcps: tuple[str, ...] | None = None

    def buffers(self, net: Network, quick: bool) -> tuple[int, ...]:
        return self.grid if self.grid is not None else net.buffers(quick)

    def seed_list(self, quick: bool) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else seeds(quick)

    def reference(self, net: Network, quick: bool) -> int:
        grid = self.buffers(net, quick)
        return net.reference if net.reference in grid else max(grid)

    def tcp_list(self) -> tuple[str, ...]:
        """The TCP axis's settings that need runs of their own (the paper's TCP is the
        atlas's own runs at the reference buffer)."""
        keys = self.tcps if self.tcps is not None else tuple(TCPS)
        return tuple(k for k in keys if k != "paper")

    def tcp_schemes(self, net: str, quick: bool) -> tuple[str, ...]:
        """The schemes the TCP axis runs on ``net``: every scheme of the atlas, or in quick
        mode those the checks compare there."""
        if not quick:
            return self.schemes
        return tuple(s for s in self.schemes if s in TCP_CHECK_SCHEMES.get(net, ()))

    def spread_list(self, quick: bool) -> tuple[int, ...]:
        if SPREAD_NET not in self.networks:
            return ()
        if self.spreads is not None:
            return self.spreads
        return SPREADS_QUICK if quick else SPREADS_FULL


DEFAULT = Config()
