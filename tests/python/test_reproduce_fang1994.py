"""The Fang 1994 reproduction in --quick mode (3 s runs): its outputs exist and are well
formed, and the paper's central claims hold.

Tolerances here are those of the project issue, not chosen after looking at the numbers:
- AN2 credits never drop a cell: zero loss and zero retransmission, exactly;
- under AN2 each of the six sessions gets ~1/6 of the link: within 10% of 23.2 Mb/s (the
  paper's flow-controlled throughput, 23.3 Mb/s in the text, 23.2 Mb/s in the buffer study);
- simple cell drop gives less goodput than AN2.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from atmsim.reproduce import common, fang1994
from conftest import rendered


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, float]:
    out = tmp_path_factory.mktemp("fang1994")
    start = time.perf_counter()
    code = fang1994.main(out, quick=True)
    return out, code, time.perf_counter() - start


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _summary(out: Path, name: str) -> dict:
    job = next(j for j in fang1994.jobs(quick=True) if j.name == name)
    path = common.run_path(job, out / "runs") / "summary.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_outputs_exist(quick_run: tuple[Path, int, float]) -> None:
    out, code, _ = quick_run
    assert code == 0
    for name in ("comparison.csv", "comparison.json", "notes.md", "report.html"):
        assert (out / name).is_file(), name
    figs = ("fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "table2", "fig9", "fig10")
    for fig in (*figs, "fig11", "fig12"):
        png = out / "figures" / f"{fig}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", fig
    for job in fang1994.jobs(quick=True):
        assert (common.run_path(job, out / "runs") / "summary.json").is_file(), job.name
        assert (common.run_path(job, out / "runs") / "timeseries.parquet").is_file(), job.name


def test_comparison_csv_shape(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header == ["claim", "paper", "measured", "unit", "tolerance", "agrees"]
    rows = _rows(out)
    assert len(rows) >= 12
    for row in rows:
        assert row["claim"].startswith(("Fig ", "Figs ", "Table ")), row["claim"]
        assert row["agrees"] in ("true", "false")
        assert row["tolerance"]


def test_report_is_self_contained(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    text = (out / "report.html").read_text(encoding="utf-8")
    assert text.count("data:image/png;base64,") == 11
    assert "<details>" in text and "fang1994-an2" in text
    for needle in ('src="http', 'href="http', "<link ", "<script src"):
        assert needle not in text, needle


def test_an2_has_no_loss(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    for name in ["fang1994-an2", "fang1994-mss64", *(f"fang1994-an2-n{n}" for n in range(1, 7))]:
        totals = _summary(out, name)["totals"]
        assert totals["cells_dropped"] == 0, name
        assert totals["cell_loss_pct"] == 0, name
        assert totals["retransmission_pct"] == 0, name


def test_an2_sessions_share_the_link(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    conns = _summary(out, "fang1994-an2")["connections"]
    assert len(conns) == 6
    for c in conns:
        assert abs(c["goodput_mbps"] - 23.2) <= 0.10 * 23.2, c


def test_cell_drop_below_an2(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    an2 = _summary(out, "fang1994-an2")["totals"]["goodput_mbps"]
    drop = _summary(out, "fang1994-cell-drop")["totals"]["goodput_mbps"]
    assert drop < an2
    assert _summary(out, "fang1994-cell-drop")["totals"]["cells_dropped"] > 0


def test_key_claims_agree(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    rows = {r["claim"]: r for r in _rows(out)}
    for prefix in (
        "Fig 4: AN2, each of the 6 sessions",
        "Fig 5: AN2 has zero cell loss",
        "Fig 5: AN2 has zero TCP retransmission",
        "Fig 7: cell-drop goodput is below AN2's",
    ):
        (row,) = [r for c, r in rows.items() if c.startswith(prefix)]
        assert row["agrees"] == "true", row


def test_tolerances() -> None:
    # The rules of common.py on fixed inputs.
    assert common.rel(0.05).check(104.9, 100) and not common.rel(0.05).check(105.1, 100)
    assert common.absolute(0).check(0.0, 0) and not common.absolute(0).check(1e-9, 0)
    assert common.factor(2).check(3.25, 6.5) and not common.factor(2).check(3.2, 6.5)
    assert common.factor(2).check(13.0, 6.5) and not common.factor(2).check(13.1, 6.5)
    assert common.between(15, 55).check(15) and not common.between(15, 55).check(55.01)
    assert common.above(0).check(0.1) and not common.above(0).check(0)
    assert not common.rel(0.5).check(float("nan"), 1.0)
    row = common.compare("x", paper=1.0, measured=1.2, unit="u", tol=common.rel(0.1))
    assert not row.agrees and row.tolerance == "±10% of paper"


def test_write_comparison_columns(tmp_path: Path) -> None:
    rows = [
        common.compare("Fig 0: a", paper=2.0, measured=2.0, unit="u", tol=common.absolute(0)),
        common.compare("Fig 0: b", paper="> 0", measured=-1.0, unit="u", tol=common.above(0)),
    ]
    path = common.write_comparison(rows, tmp_path / "c.csv")
    got = list(csv.DictReader(path.open(encoding="utf-8")))
    assert list(got[0]) == list(common.COMPARISON_COLUMNS)
    assert [r["agrees"] for r in got] == ["true", "false"]


def test_packet_discard_claims(quick_run: tuple[Path, int, float]) -> None:
    """Figs. 9-12: every scheme has its rows, and the claims the issue names hold: zero loss
    at 1368 cells per VC for every scheme (exact), and the ordering drop-whole > drop-tail >
    cell drop in goodput (a sign)."""
    out, _, _ = quick_run
    rows = {r["claim"]: r for r in _rows(out)}
    for scheme in ("simple cell drop", "drop-tail", "drop-whole"):
        key = f"Fig 12: {scheme} at 1368 cells per VC: zero cell loss"
        assert rows[key]["agrees"] == "true", rows[key]
        assert float(rows[key]["measured"]) == 0.0
    order = "Fig 9: drop-whole > drop-tail > cell drop (smaller of the two goodput gaps)"
    assert rows[order]["agrees"] == "true", rows[order]
    for fig in ("Fig 9:", "Fig 10:", "Fig 11:", "Fig 12:"):
        assert any(k.startswith(fig) for k in rows), fig


def test_report_renders_in_headless_chromium(quick_run: tuple[Path, int, float], browser) -> None:
    """The report opens offline in a real browser: every figure decodes (naturalWidth > 0
    once loaded) and the comparison table has one row per line of comparison.csv."""
    out, _, _ = quick_run
    attrs = rendered(browser(out / "report.html"))
    assert attrs.get("images") == attrs.get("images-rendered") == "11", attrs
    assert attrs.get("comparison-rows") == str(len(_rows(out))), attrs
