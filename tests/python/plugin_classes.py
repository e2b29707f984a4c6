"""Python plug-ins for tests/python/test_plugins.py (imported by the simulator as
``plugin_classes:Name``)."""

from __future__ import annotations

from typing import Any

#: What the instances saw, by class name (the tests read it after a run).
SEEN: dict[str, Any] = {}


class AcceptEveryCell:
    """Per-cell mode, accepting every cell: what does not fit is still dropped as full, so this
    is the cell-drop policy."""

    per_cell = True

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.calls = 0
        SEEN["AcceptEveryCell"] = self

    def on_cell(self, now: float, view: Any, label: int, first: bool, last: bool) -> None:
        self.calls += 1


class RandomFrameDrop:
    """Refuses each frame with probability ``p``, drawing from the port's own stream."""

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.p = params["p"]
        self.rng = port.rng
        self.departures = 0
        SEEN.setdefault("RandomFrameDrop", []).append(self)

    def on_frame(self, now: float, view: Any, label: int) -> str | None:
        return "selective" if self.rng.random() < self.p else None

    def on_departure(self, now: float, view: Any, label: int) -> None:
        self.departures += 1


class Raises:
    """Raises in its tenth frame decision."""

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.n = 0

    def on_frame(self, now: float, view: Any, label: int) -> None:
        self.n += 1
        if self.n == 10:
            raise ZeroDivisionError("the tenth frame")


class BadVerdict:
    def __init__(self, params: dict[str, Any], port: Any) -> None:
        pass

    def on_frame(self, now: float, view: Any, label: int) -> int:
        return 42


class BadInit:
    def __init__(self, params: dict[str, Any], port: Any) -> None:
        raise KeyError("threshold")

    def on_frame(self, now: float, view: Any, label: int) -> None:
        return None


class NoHooks:
    def __init__(self, params: dict[str, Any], port: Any) -> None:
        pass


class FeedbackRaises:
    """A rate control whose feedback raises."""

    interval = (0.001, 100)

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        pass

    def on_backward_rm(self, vc: int, queue: int, rm: Any) -> None:
        raise RuntimeError("no feedback today")


class HalveEr:
    """A rate control that halves the ER of every backward RM cell, and tries to raise CI;
    counts its intervals."""

    interval = (0.002, 1000)

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.intervals = 0
        self.cells = 0
        SEEN.setdefault("HalveEr", []).append(self)

    def on_backward_rm(self, vc: int, queue: int, rm: Any) -> None:
        rm.er = rm.er / 2

    def end_interval(self, now: float, queue: int, m: Any) -> None:
        self.intervals += 1
        self.cells += m.abr_cells
        assert m.duration_s > 0 and len(m.vc_cells) >= 1

    def stats(self) -> dict[str, float]:
        return {"load_factor": 0.5, "active_vcs": 1.0, "fair_rate": 1.0, "capacity": 2.0}


class CountsCells:
    """Asks to see every ABR cell (per-cell mode) and keeps its own count beside the port's."""

    interval = (0.001, 0)  # by time only

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.seen = 0
        self.kinds: set[str] = set()
        self.reported = 0
        SEEN.setdefault("CountsCells", []).append(self)

    def on_abr_cell(self, vc: int, queue: int, kind: str) -> None:
        self.seen += 1
        self.kinds.add(kind)

    def on_backward_rm(self, vc: int, queue: int, rm: Any) -> None:
        pass

    def end_interval(self, now: float, queue: int, m: Any) -> None:
        self.reported += m.abr_cells
