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
import math
from pathlib import Path
from typing import Any

import pytest

from atmsim.reproduce import fang1994
from atmsim.reproduce import framework as fw
from atmsim.reproduce.fang1994 import notes as fang_notes
from atmsim.reproduce.fang1994 import runs as runs_mod
from atmsim.reproduce.fang1994.claims import seed_claims
from atmsim.reproduce.framework import Claims, load_results
from atmsim.reproduce.framework import notes as notes_mod
from conftest import rendered
from htmlpage import assert_self_contained, embedded_pngs, parse_file

PACKAGE = "atmsim.reproduce.fang1994"


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
    path = fw.run_path(job, out / "runs") / "summary.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_outputs_exist(quick_run: tuple[Path, int, float]) -> None:
    out, code, _ = quick_run
    assert code == 0
    outputs = ("comparison.csv", "comparison.json", "notes.md", "notes-values.json", "report.html")
    for name in outputs:
        assert (out / name).is_file(), name
    figs = ("fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "table2", "fig9", "fig10")
    for fig in (*figs, "fig11", "fig12"):
        png = out / "figures" / f"{fig}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", fig
    jobs = fang1994.jobs(quick=True)
    paths = [fw.run_path(job, out / "runs") for job in jobs]
    # The series are cached for the runs whose series some job reads, and only for them.
    wanted = {p.name for job, p in zip(jobs, paths, strict=True) if job.wants_series}
    for job, path in zip(jobs, paths, strict=True):
        assert (path / "summary.json").is_file(), job.name
        assert (path / "series.parquet").is_file() == (path.name in wanted), job.name
    assert any(j.wants_series for j in jobs) and not all(j.wants_series for j in jobs)


def test_comparison_csv_shape(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header == list(fw.COMPARISON_COLUMNS)
    rows = _rows(out)
    assert len(rows) >= 12
    n = str(len(fang1994.seeds(True)))
    for row in rows:
        assert row["claim"].startswith(("Fig ", "Figs ", "Table ")), row["claim"]
        assert row["agrees"] in ("true", "false")
        assert row["tolerance"]
        # Every row is a mean over the quick mode's seeds, with its interval.
        assert row["seeds"] == n and row["measured_ci"] not in ("", "nan"), row


def test_report_is_self_contained(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    page = parse_file(out / "report.html")
    assert len(embedded_pngs(page)) == 11  # every figure, as a PNG data URI
    rows = page.one("table", "comparison").one("tbody").all("tr")
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        marks = [r["agrees"] == "true" for r in csv.DictReader(fh)]
    assert ["agree" in tr.classes for tr in rows] == marks
    assert "fang1994-an2" in {d.one("summary").words for d in page.all("details")}
    assert_self_contained(page)  # no src but data: URIs, and no href at all


@pytest.fixture(scope="module")
def evaluated(quick_run: tuple[Path, int, float]) -> tuple[Any, Claims]:
    """The measurements and claims of the quick run, rebuilt from its stored runs."""
    out, _, _ = quick_run
    js = fang1994.jobs(quick=True)
    return fang1994.REPRODUCTION.evaluate(js, load_results(js, out / "runs"), True)


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


def test_key_claims_agree(evaluated: tuple[Any, Claims]) -> None:
    _, rows = evaluated
    for id in ("fig4-an2-session", "fig5-an2-loss", "fig5-an2-retx", "fig7-cd-below-an2"):
        assert rows.by_id(id).agrees, rows.by_id(id)


def test_claims_match_comparison_csv(
    quick_run: tuple[Path, int, float], evaluated: tuple[Any, Claims]
) -> None:
    """The claims rebuilt from the stored runs are the rows of comparison.csv, in order, and
    every id is distinct."""
    out, _, _ = quick_run
    _, rows = evaluated
    assert [r.as_row() for r in rows] == _rows(out)
    assert len({r.id for r in rows}) == len(rows)


def test_tolerances() -> None:
    # The rules of the framework (claims.py) on fixed inputs.
    assert fw.rel(0.05).check(104.9, 100) and not fw.rel(0.05).check(105.1, 100)
    assert fw.absolute(0).check(0.0, 0) and not fw.absolute(0).check(1e-9, 0)
    assert fw.factor(2).check(3.25, 6.5) and not fw.factor(2).check(3.2, 6.5)
    assert fw.factor(2).check(13.0, 6.5) and not fw.factor(2).check(13.1, 6.5)
    assert fw.between(15, 55).check(15) and not fw.between(15, 55).check(55.01)
    assert fw.above(0).check(0.1) and not fw.above(0).check(0)
    assert not fw.rel(0.5).check(float("nan"), 1.0)
    row = fw.compare("x", paper=1.0, measured=1.2, unit="u", tol=fw.rel(0.1))
    assert not row.agrees and row.tolerance == "±10% of paper"


def test_write_comparison_columns(tmp_path: Path) -> None:
    rows = [
        fw.compare("Fig 0: a", paper=2.0, measured=2.0, unit="u", tol=fw.absolute(0)),
        fw.compare("Fig 0: b", paper="> 0", measured=-1.0, unit="u", tol=fw.above(0)),
    ]
    path = fw.write_comparison(rows, tmp_path / "c.csv")
    got = list(csv.DictReader(path.open(encoding="utf-8")))
    assert list(got[0]) == list(fw.COMPARISON_COLUMNS)
    assert [r["agrees"] for r in got] == ["true", "false"]


#: Figs. 9-12: every row the reproduction must report, by id, with the paper's value (the
#: numbers the paper's text states, and "> 0" for its orderings).
PACKET_DISCARD_ROWS: dict[str, float | str] = {
    "fig9-drop-tail-goodput": 18.5,
    "fig9-drop-whole-goodput": 22.5,
    "fig9-drop-tail-vs-an2": -20.0,
    "fig9-drop-tail-vs-cell-drop": 24.0,
    "fig9-drop-whole-vs-an2": -3.0,
    "fig9-drop-whole-vs-cell-drop": 50.0,
    "fig9-order": "> 0",
    "fig10-drop-tail-loss": 7.5,
    "fig10-drop-tail-retx": 25.0,
    "fig11-drop-whole-loss": 17.0,
    "fig11-drop-whole-retx": 18.0,
    "fig11-loss-equals-retx": 0.944,
    "fig11-no-waste": 0.0,
    "figs5-11-loss-order": "> 0",
    "figs5-11-retx-order": "> 0",
    "fig12-cell-drop-gain": "> 0",
    "fig12-drop-tail-gain": "> 0",
    "fig12-gain-order": "> 0",
    "fig12-dw-of-optimal": 0.98,
    "fig12-dw-256-retx": 17.0,
    "fig12-dw-512-retx": 7.5,
}
SCHEMES = ("cell-drop", "drop-tail", "drop-whole")
for _s in SCHEMES:
    PACKET_DISCARD_ROWS[f"fig12-{_s}-1368-loss"] = 0.0
    PACKET_DISCARD_ROWS[f"fig12-{_s}-1368-retx"] = 0.0
    PACKET_DISCARD_ROWS[f"fig12-{_s}-1368-goodput"] = 23.2


def test_packet_discard_rows_present(evaluated: tuple[Any, Claims]) -> None:
    """Figs. 9-12: one row per number and claim of the paper's text, with its value."""
    _, rows = evaluated
    for id, paper in PACKET_DISCARD_ROWS.items():
        row = rows.by_id(id)
        assert row.paper == paper, row
        assert not math.isnan(row.measured), row


def test_packet_discard_claims(
    quick_run: tuple[Path, int, float], evaluated: tuple[Any, Claims]
) -> None:
    """Figs. 9-12, the claims that must hold whatever the loss dynamics: zero loss and zero
    retransmission at 1368 cells per VC for every scheme (exact), goodput there equal to
    our AN2 run's; the orderings drop-whole > drop-tail > cell drop in goodput and the
    reverse in retransmission (gaps of several Mb/s and points); and drop-whole wasting no
    link capacity on cells of damaged frames (the purge removes them before the link)."""
    out, _, _ = quick_run
    m, rows = evaluated
    an2 = m.mean_goodput("fang1994-an2")
    for scheme in SCHEMES:
        for what in ("loss", "retx"):
            row = rows.by_id(f"fig12-{scheme}-1368-{what}")
            assert row.agrees and row.measured == 0.0, row
        name = f"fang1994-{scheme}-buf1368"
        assert m.totals(name)["cells_dropped"] == 0, name
        assert m.mean_goodput(name) == pytest.approx(an2, rel=1e-3), name
    for id in ("fig9-order", "figs5-11-retx-order", "fig11-no-waste"):
        assert rows.by_id(id).agrees, rows.by_id(id)
    # The 256-cell selective runs keep the series Figs. 9-11 plot against time.
    for name in ("drop-tail", "drop-whole"):
        job = next(j for j in fang1994.jobs(quick=True) if j.name == f"fang1994-{name}-buf256")
        assert job.metrics and "goodput_mbps" in job.metrics and "cells_dropped" in job.metrics
    assert fang1994.buffers(True)[0] == 256 and fang1994.buffers(True)[-1] == 1368
    assert fang1994.buffers(False) == tuple(sorted(fang1994.buffers(False)))


# --------------------------------------------------------------------------------------------
# Notes: values, not prose


def _values(out: Path) -> dict[str, Any]:
    return json.loads((out / "notes-values.json").read_text(encoding="utf-8"))


def test_notes_render_from_their_values_alone(quick_run: tuple[Path, int, float]) -> None:
    out, _, _ = quick_run
    rendered_notes = notes_mod.render(PACKAGE, _values(out))
    assert rendered_notes == (out / "notes.md").read_text(encoding="utf-8")


def test_notes_template_has_no_number_in_result_text() -> None:
    assert notes_mod.lint(notes_mod.template_source(PACKAGE)) == []


def test_notes_values(quick_run: tuple[Path, int, float], evaluated: tuple[Any, Claims]) -> None:
    """What the notes say, as values: the paper's conflict (its Table 2 footnote implies
    ~675 us per 64-B segment, its Fig. 7 curve at most ~470 us per 8 KB segment), our lone
    sessions at our CPU bounds, and the packet-discard readings."""
    out, _, _ = quick_run
    v = _values(out)
    c = v["conflict"]
    assert c["per_seg_64_us"] == pytest.approx(675, abs=1)
    assert c["per_seg_8k_us"] == pytest.approx(470, abs=1)
    assert c["cap_8k_mbps"] < v["paper"]["payload_rate"]
    assert c["n1_at_bound"] and c["b64_at_bound"]
    d = v["discard"]
    assert d["no_waste"] and d["big_all_lossless"]
    assert [s["name"] for s in d["schemes"]] == ["simple cell drop", "drop-tail", "drop-whole"]
    assert v["dw_loss_equals_retx"] == evaluated[1].by_id("fig11-loss-equals-retx").agrees
    assert v["agree"] == evaluated[1].agreeing and v["total"] == len(evaluated[1])


def test_conflict_values_on_stand_in_measurements() -> None:
    """The notes' reading of the lone sessions, on stand-in values: at the bound within the
    5 % rate band, or not."""
    f = fang1994.model_facts()
    at = fang_notes.conflict_values(f, f.cpu_bound_8k_mbps * 1.02, f.cpu_bound_64_mbps * 0.99)
    assert at["n1_at_bound"] and at["b64_at_bound"] and not at["b64_above_bound"]
    off = fang_notes.conflict_values(f, 139.0, 0.758)
    assert not off["n1_at_bound"] and not off["b64_at_bound"]


def test_model_facts() -> None:
    """The facts the package uses until atmsim.describe gives them: our framing (172 cells per
    8 KB segment, 1376 per window) and CPU bounds (8192 B and 64 B per 600 us)."""
    f = fang1994.model_facts()
    assert f.cells_per_segment == 172 and f.window_cells == 1376
    assert f.cpu_bound_8k_mbps == pytest.approx(109.2, abs=0.05)
    assert f.cpu_bound_64_mbps == pytest.approx(0.853, abs=0.001)
    assert f.session_ceiling_mbps == pytest.approx(23.09, abs=0.01)


def test_report_renders_in_headless_chromium(quick_run: tuple[Path, int, float], browser) -> None:
    """The report opens offline in a real browser: every figure decodes (naturalWidth > 0
    once loaded) and the comparison table has one row per line of comparison.csv."""
    out, _, _ = quick_run
    attrs = rendered(browser(out / "report.html"))
    # every figure and every network picture (network-N.svg beside the report)
    shown = 11 + len(list(out.glob("network-*.svg")))
    assert attrs.get("images") == attrs.get("images-rendered") == str(shown), attrs
    assert attrs.get("comparison-rows") == str(len(_rows(out))), attrs


# --------------------------------------------------------------------------------------------
# Seeds


def test_seed_1_runs_are_the_single_seed_runs() -> None:
    """Seed 1 is the scenarios' own: its jobs carry no seed override and their plain names,
    so they are the runs (and cache entries) of a one-seed reproduction; the other seeds'
    jobs are the same runs with their seed."""
    for quick in (True, False):
        js = fang1994.jobs(quick)
        seeds = fang1994.seeds(quick)
        one = runs_mod.seed_jobs(quick)
        assert len(js) == len(one) * len(seeds) and seeds[0] == runs_mod.SCENARIO_SEED
        assert [(j.name, j.seed) for j in js[: len(one)]] == [(j.name, None) for j in one]
        for k, seed in enumerate(seeds[1:], 1):
            block = js[k * len(one) : (k + 1) * len(one)]
            assert [j.seed for j in block] == [seed] * len(one)
            assert [runs_mod.unseeded(j.name, seed) for j in block] == [j.name for j in one]
            assert [dict(j.overrides) for j in block] == [dict(j.overrides) for j in one]
    import atmsim

    assert atmsim.describe(runs_mod.CELL_DROP)["seed"] == runs_mod.SCENARIO_SEED


def test_rows_are_means_over_the_seeds_of_each_seeds_rows(evaluated: tuple[Any, Claims]) -> None:
    """Each row's value is the mean of the values the rows of each seed's runs alone give,
    its interval the sweeps' t-interval of them, and its verdict the tolerance on the mean."""
    from atmsim.sweep.stats import half_width

    m, rows = evaluated
    assert m.seeds == list(fang1994.seeds(True)) and len(m.runs) == len(m.seeds)
    alone = {x.seed: Claims(seed_claims(x, True)) for x in m.runs}
    for row in rows:
        values = [alone[s].by_id(row.id).measured for s in m.seeds]
        assert row.by_seed == dict(zip(m.seeds, values, strict=True)), row.id
        assert row.measured == pytest.approx(sum(values) / len(values), rel=1e-12, abs=1e-12)
        assert row.ci == half_width(values, fw.CONFIDENCE) or (row.ci != row.ci), row.id
        assert row.agrees == row.rule.check(row.measured, row.ref), row.id
    # Runs without loss barely move between seeds (only the start times differ).
    an2 = rows.by_id("fig4-an2-session")
    assert an2.ci < 0.01 * an2.measured


def test_notes_say_what_the_seeds_changed(
    quick_run: tuple[Path, int, float], evaluated: tuple[Any, Claims]
) -> None:
    _, rows = evaluated
    sd = _values(quick_run[0])["seeds"]
    assert sd["n"] == len(fang1994.seeds(True)) and sd["first"] == 1
    assert sd["start_jitter"] == "1 ms" and sd["cpu_jitter_zero"]
    flipped = [r.claim for r in rows if r.agrees_alone(1) != r.agrees]
    assert [r["claim"] for r in sd["verdict_changed"]] == flipped
    unsettled = [r.claim for r in rows if r.settled is False]
    assert [r["claim"] for r in sd["unsettled"]] == unsettled
    assert sd["rows_over_seeds"] == len(rows) and sd["lossless_spread"] < sd["lossy_spread"]
