from __future__ import annotations
def notes(m, rows, quick):
    return {}
