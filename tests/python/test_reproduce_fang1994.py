"""The Fang 1994 reproduction in --quick mode (3 s runs): its outputs exist and are well
formed, and the paper's central claims hold.

Tolerances here are those of the project issue, not chosen after looking at the numbers:
- AN2 credits never drop a cell: zero loss and zero retransmission, exactly;
- under AN2 each of the six sessions gets ~1/6 of the link: within 10% of 23.2 Mb/s (the
  paper's flow-controlled throughput, 23.3 Mb/s in the text, 23.2 Mb/s in the buffer study);
- simple cell drop gives less goodput than AN2;
- Figs. 9-12: every number of the paper's text has its row; zero cell loss and zero
  retransmission at 1368 cells per VC for every scheme (exact), and the orderings of the
  schemes that hold by wide margins (drop-whole > drop-tail > cell drop in goodput, the
  reverse in retransmission). Rows that depend on loss dynamics are reported, not asserted.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from atmsim.reproduce import common, fang1994
from conftest import rendered
from htmlpage import assert_self_contained, embedded_pngs, parse_file


@pytest.fixture(scope="module")
def quick_run(quick_reproductions) -> tuple[Path, int, float]:
    """The session's quick reproduction (shared with test_reproduce_all.py), its status and
    the wall seconds it took. Not marked: it is the reproduction plain `pytest` keeps (about
    10 s of 2 cores; cheon1998's and `reproduce all` are marked `reproduction`)."""
    out, code = quick_reproductions("fang1994")
    return out, code, quick_reproductions.seconds["fang1994"]


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
    page = parse_file(out / "report.html")
    assert len(embedded_pngs(page)) == 11  # every figure, as a PNG data URI
    rows = page.one("table", "comparison").one("tbody").all("tr")
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        marks = [r["agrees"] == "true" for r in csv.DictReader(fh)]
    assert ["agree" in tr.classes for tr in rows] == marks
    assert "fang1994-an2" in {d.one("summary").words for d in page.all("details")}
    notes = (out / "notes.md").read_text(encoding="utf-8")
    assert "# A conflict inside the paper" in notes and "675 us" in notes and "470 us" in notes
    assert_self_contained(page)  # no src but data: URIs, and no href at all


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


#: Figs. 9-12: every row the reproduction must report, with the paper's value as the CSV
#: shows it (the numbers the paper's text states, and "> 0" for its orderings).
PACKET_DISCARD_ROWS = {
    "Fig 9: drop-tail mean session goodput (256 cells per VC)": "18.5",
    "Fig 9: drop-whole mean session goodput (256 cells per VC)": "22.5",
    "Fig 9: drop-tail goodput change relative to AN2": "-20",
    "Fig 9: drop-tail goodput change relative to cell drop": "24",
    "Fig 9: drop-whole goodput change relative to AN2": "-3",
    "Fig 9: drop-whole goodput change relative to cell drop": "50",
    "Fig 9: drop-whole > drop-tail > cell drop (smaller of the two goodput gaps)": "> 0",
    "Fig 10: drop-tail cell loss": "7.5",
    "Fig 10: drop-tail TCP retransmission": "25",
    "Fig 11: drop-whole cell loss": "17",
    "Fig 11: drop-whole TCP retransmission": "18",
    "Fig 11: drop-whole cell loss is roughly equal to its retransmission rate "
    "(ratio, paper 17/18)": "0.944",
    "Fig 11: under drop-whole the raw link utilisation is the effective one "
    "(raw minus effective, inter-switch link)": "0",
    "Figs 5, 10, 11: cell drop has the lowest cell loss and drop-whole the highest "
    "(smaller gap)": "> 0",
    "Figs 5, 10, 11: cell drop retransmits most and drop-whole least (smaller gap)": "> 0",
    "Fig 12: a larger buffer helps simple cell drop (goodput at 1368 minus at 256 cells)": "> 0",
    "Fig 12: a larger buffer helps drop-tail (goodput at 1368 minus at 256 cells)": "> 0",
    "Fig 12: a larger buffer helps drop-tail and cell drop more than drop-whole "
    "(smaller of their gains 256 -> 1368 cells minus drop-whole's)": "> 0",
    "Fig 12: drop-whole at 256 cells is at 98% of the flow-controlled throughput "
    "(ratio to AN2)": "0.98",
    "Fig 12: drop-whole at 256 cells retransmits 17%": "17",
    "Fig 12: drop-whole at 512 cells retransmits around 7.5%": "7.5",
}
SCHEME_NAMES = ("simple cell drop", "drop-tail", "drop-whole")
for _s in SCHEME_NAMES:
    PACKET_DISCARD_ROWS[f"Fig 12: {_s} at 1368 cells per VC: zero cell loss"] = "0"
    PACKET_DISCARD_ROWS[f"Fig 12: {_s} at 1368 cells per VC: zero retransmission"] = "0"
    PACKET_DISCARD_ROWS[
        f"Fig 12: {_s} at 1368 cells per VC reaches the flow-controlled 23.2 Mb/s"
    ] = "23.2"


def test_packet_discard_rows_present(quick_run: tuple[Path, int, float]) -> None:
    """Figs. 9-12: one row per number and claim of the paper's text, with its value."""
    out, _, _ = quick_run
    rows = {r["claim"]: r for r in _rows(out)}
    for claim, paper in PACKET_DISCARD_ROWS.items():
        assert claim in rows, claim
        assert rows[claim]["paper"] == paper, rows[claim]
        assert rows[claim]["measured"] != "nan", rows[claim]
    notes = (out / "notes.md").read_text(encoding="utf-8")
    assert "What drives the packet-discard numbers" in notes
    assert "keep_eom" in notes and "drop_whole" in notes


def test_packet_discard_claims(quick_run: tuple[Path, int, float]) -> None:
    """Figs. 9-12, the claims that must hold whatever the loss dynamics: zero loss and zero
    retransmission at 1368 cells per VC for every scheme (exact), goodput there equal to
    our AN2 run's; the orderings drop-whole > drop-tail > cell drop in goodput and the
    reverse in retransmission (gaps of several Mb/s and points); and drop-whole wasting no
    link capacity on cells of damaged frames (the purge removes them before the link)."""
    out, _, _ = quick_run
    rows = {r["claim"]: r for r in _rows(out)}
    an2 = _summary(out, "fang1994-an2")["totals"]["goodput_mbps"]
    for scheme, name in zip(SCHEME_NAMES, ("cell-drop", "drop-tail", "drop-whole"), strict=True):
        for what in ("zero cell loss", "zero retransmission"):
            row = rows[f"Fig 12: {scheme} at 1368 cells per VC: {what}"]
            assert row["agrees"] == "true" and float(row["measured"]) == 0.0, row
        totals = _summary(out, f"fang1994-{name}-buf1368")["totals"]
        assert totals["cells_dropped"] == 0, name
        assert totals["goodput_mbps"] == pytest.approx(an2, rel=1e-3), name
    for claim in (
        "Fig 9: drop-whole > drop-tail > cell drop (smaller of the two goodput gaps)",
        "Figs 5, 10, 11: cell drop retransmits most and drop-whole least (smaller gap)",
        "Fig 11: under drop-whole the raw link utilisation is the effective one "
        "(raw minus effective, inter-switch link)",
    ):
        assert rows[claim]["agrees"] == "true", rows[claim]
    # The 256-cell selective runs keep the series Figs. 9-11 plot against time.
    for name in ("drop-tail", "drop-whole"):
        job = next(j for j in fang1994.jobs(quick=True) if j.name == f"fang1994-{name}-buf256")
        assert job.metrics and "goodput_mbps" in job.metrics and "cells_dropped" in job.metrics
    assert fang1994.buffers(True)[0] == 256 and fang1994.buffers(True)[-1] == 1368
    assert fang1994.buffers(False) == tuple(sorted(fang1994.buffers(False)))


def test_report_renders_in_headless_chromium(quick_run: tuple[Path, int, float], browser) -> None:
    """The report opens offline in a real browser: every figure decodes (naturalWidth > 0
    once loaded) and the comparison table has one row per line of comparison.csv."""
    out, _, _ = quick_run
    attrs = rendered(browser(out / "report.html"))
    assert attrs.get("images") == attrs.get("images-rendered") == "11", attrs
    assert attrs.get("comparison-rows") == str(len(_rows(out))), attrs
