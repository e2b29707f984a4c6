"""The values the An 1997 notes are rendered with (plain data)."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.an1997.measure import Measured
from atmsim.reproduce.framework import Claims


def notes(m: Measured, rows: Claims, quick: bool) -> dict[str, Any]:
    return {}
