"""The An 1997 reproduction in --quick mode (0.9 s runs): its outputs exist and are well
formed, every claim of the thesis's chapter 4 has a row, and the claims that hold by wide
margins in our model are asserted.

Asserted, with the reason it is not a tolerance chosen after the fact:
- FMMRA's largest ABR queue is below ERICA's and EFCI's at N = 2 and 5 (the thesis's first
  finding): in our runs by a factor of more than 5, so the ordering is asserted, not the factor;
- with 1,500-cell buffers FMMRA loses no cell (exact);
- with 10 TCPs ERICA's queue passes the thesis's 7,000 cells (its own bound).
Rows that disagree (see notes.md) are reported, not asserted either way.

The tests of the quick run are marked ``reproduction`` (its 215 runs take about 40 s of two
cores): the README's test command runs them, plain pytest leaves them out.
"""

from __future__ import annotations

import csv
import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from atmsim.reproduce import an1997
from atmsim.reproduce.an1997 import (
    findings_efci,
    findings_fair,
    findings_rows,
    findings_seeds,
    studies,
)
from atmsim.reproduce.an1997.measure import collapse_times, lone_collapses, source_goodput
from atmsim.reproduce.an1997.schemes import (
    ROW_SCHEMES,
    ROW_SEEDS,
    TRANSIENT_S,
    WIDE_SEEDS,
    row_label,
    wide_label,
)
from atmsim.reproduce.framework import jain, notes
from conftest import rendered
from htmlpage import data_tables, parse_file


@pytest.fixture(scope="module")
def quick_run(quick_reproductions) -> tuple[Path, int]:
    return quick_reproductions("an1997")


@functools.cache
def _measured(out: Path) -> an1997.Measured:
    """The quick run's results, loaded once for the tests that measure them."""
    from atmsim.reproduce.framework import load_results

    js = an1997.jobs(quick=True)
    return an1997.measure(js, load_results(js, out / "runs"))


class _OneSeries:
    """A stand-in for a run that holds one metric's wide series (``Results.wide``)."""

    def __init__(self, metric: str, w: pd.DataFrame) -> None:
        self.metric, self.w = metric, w

    def wide(self, metric: str, kind: str) -> pd.DataFrame:
        assert (metric, kind) == (self.metric, "connection")
        return self.w


@functools.cache
def _values(out: Path) -> dict:
    """The notes' values, as the run wrote them beside notes.md."""
    return json.loads((out / "notes-values.json").read_text(encoding="utf-8"))


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.reproduction
def test_outputs_exist(quick_run: tuple[Path, int]) -> None:
    out, code = quick_run
    assert code == 0
    for name in ("comparison.csv", "comparison.json", "notes.md", "report.html", "tables.csv"):
        assert (out / name).is_file(), name
    pngs = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert len(pngs) == 5, pngs


@pytest.mark.reproduction
def test_every_claim_has_a_row(quick_run: tuple[Path, int]) -> None:
    claims = [r["claim"] for r in _rows(quick_run[0])]
    for fig in ("Figs 4.2-4.4", "Figs 4.5-4.7", "Figs 4.8-4.10", "Figs 4.11-4.13"):
        assert sum(c.startswith(fig) for c in claims) == 2, fig
    assert sum(c.startswith("Figs 4.14-4.16") for c in claims) == 5
    assert sum(c.startswith("Figs 4.17-4.18") for c in claims) == 4


@pytest.mark.reproduction
def test_fmmra_keeps_the_smallest_queue_and_loses_nothing(quick_run: tuple[Path, int]) -> None:
    rows = _rows(quick_run[0])
    for r in rows:
        if "keeps a smaller ABR queue" in r["claim"]:
            assert float(r["measured"]) < 1, r
    loss = next(r for r in rows if "FMMRA loses no cell" in r["claim"])
    assert float(loss["measured"]) == 0
    erica = next(r for r in rows if "ERICA's ABR queue exceeds 7,000" in r["claim"])
    assert float(erica["measured"]) >= 7_000


@pytest.mark.reproduction
def test_schemes_are_the_theses(quick_run: tuple[Path, int]) -> None:
    assert an1997.SCHEMES["efci"]["abr.rdf"] == "0.0625"
    assert an1997.SCHEMES["erica"]["switch.*.rate_control"]["subtract_real_time"] is False
    assert {j.name for j in an1997.jobs(quick=True)} >= {"n10-erica", "n10-fmmra"}


@pytest.mark.reproduction
def test_report_renders_in_headless_chromium(quick_run: tuple[Path, int], browser) -> None:
    out, _ = quick_run
    attrs = rendered(browser(out / "report.html"))
    # every figure and every network picture (network-N.svg beside the report)
    shown = 5 + len(list(out.glob("network-*.svg")))
    assert attrs.get("images") == attrs.get("images-rendered") == str(shown), attrs
    assert attrs.get("comparison-rows") == str(len(_rows(out))), attrs


@pytest.mark.reproduction
def test_every_fmmra_setting_is_scored_on_every_claim(quick_run: tuple[Path, int]) -> None:
    """The sensitivity grid: each FMMRA setting ran on every network FMMRA appears on, and
    tables.csv holds a row per run (quick mode: two settings)."""
    out, _ = quick_run
    with (out / "tables.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for setting in an1997.QUICK_FMMRA_GRID:
        key = an1997.fmmra_key(*setting)
        fams = {r["family"] for r in rows if r["scheme"] == key}
        assert fams == set(an1997.FMMRA_FAMILIES), (key, fams)
    assert len(an1997.CRITERIA) == 8
    assert an1997.FMMRA_GRID[0] == (0.95, 200, 1_000)  # atmsim's documented defaults


@pytest.mark.reproduction
def test_each_disagreement_says_what_is_known(quick_run: tuple[Path, int]) -> None:
    """Every disagreeing row points to its study, and a cause is named only from enough seeds
    with every criterion of the study measured to hold."""
    out, _ = quick_run
    v = _values(out)
    assert v["n_wide"] < findings_rows.MIN_CAUSE_SEEDS  # quick mode: no cause is named
    for r in v["bad"]:
        assert not r["cause"], r["claim"]
    kinds = {r["kind"] for r in v["bad"]}
    assert kinds <= {"", "n10", "start", "efci"}
    f = v["fairness"]
    # What holds the TCPs in the transient is measured: with the thesis's 64 KB windows
    # ERICA's sources are held by their windows (the FIFO holding all five), FMMRA's by ACR.
    assert f["limits"]["erica_window_held"] and f["limits"]["fmmra_acr_held"]
    # the mechanism test: with windows large enough, the ACRs hold ERICA's TCPs too
    assert f["wide_windows"]["held"]
    spans = f["smoothed"]["spans"]
    assert [x["ms"] for x in spans] == [5 * k for k in studies.SMOOTHING]
    assert f["smoothed"]["any"] == any(x["beyond_chance"] for x in spans)


@pytest.mark.reproduction
def test_notes_template_keeps_numbers_out_of_result_text(quick_run: tuple[Path, int]) -> None:
    """No number is written into the notes' result text, and every result sentence with a
    number changes when the values change."""
    src = notes.template_source("atmsim.reproduce.an1997")
    assert notes.lint(src) == []
    v = _values(quick_run[0])
    assert notes.render_source(src, v) == (quick_run[0] / "notes.md").read_text(encoding="utf-8")


@pytest.mark.reproduction
def test_ericas_other_capacity_is_measured(quick_run: tuple[Path, int]) -> None:
    """The other reading of ERICA (its ABR capacity less the VBR load, where the thesis's 3.2
    leaves the VBR out) is run and judged on the queue rows as well as the fairness row: in
    atmsim it stays as fair as FMMRA, and its queue falls below FMMRA's, against Figs.
    4.5-4.7, so it cannot be the thesis's ERICA."""
    v = _values(quick_run[0])["fairness"]["vbr_subtracted"]
    assert not v["less_fair"]
    assert v["queue_below_fmmra"] == (v["peak"] < v["fmmra_peak"])
    assert v["queue_below_fmmra"]


@pytest.mark.reproduction
def test_efci_thresholds_are_scored_on_every_efci_claim(quick_run: tuple[Path, int]) -> None:
    """EFCI's unstated marking thresholds run on every network EFCI appears on, with the
    fairness networks over the seeds, and each setting is scored on all of the thesis's EFCI
    claims at once; the 1,500-cell network runs each setting on the wider seeds too, and the
    notes name the thresholds as a cause only with the thesis's account (the less-served
    source times out more, by a sign test over those seeds) seen in the runs."""
    out, _ = quick_run
    m = _measured(out)
    assert m.seeds() == an1997.QUICK_FAIRNESS_SEEDS
    for hi, lo in an1997.QUICK_EFCI_GRID:
        c = an1997.efci_criteria(m, an1997.efci_key(hi, lo))
        assert list(c) == list(an1997.EFCI_CRITERIA)
        key = an1997.efci_key(hi, lo)
        assert all(m.run_of("buffer", key, x) is not None for x in m.wide_seeds())
        (tw, tn), (sw, sn) = findings_efci.served_less_tally(m, key, m.wide_seeds())
        assert 0 <= tw <= tn <= len(m.wide_seeds()) and 0 <= sw <= sn <= len(m.wide_seeds())
    # no hysteresis is in the full grid: the thesis names only a high threshold
    assert any(hi == lo for hi, lo in an1997.EFCI_GRID)
    h = _values(out)["efci"]["thresholds"]
    assert h["cause"] == (h.get("found", False) and h["enough_seeds"])
    assert not h["cause"]  # quick mode: too few seeds to name a cause
    # The thesis's "a proper threshold can control the cell loss": each setting's loss in
    # the 1,500-cell run, as measured, and the verdict on it follows the numbers.
    lost = [m.dropped("buffer", an1997.efci_key(hi, lo)) for hi, lo in an1997.QUICK_EFCI_GRID]
    assert [g["lost"] for g in h["settings"]] == lost
    assert (h["fewest"] is not None) == (min(lost) > 0)
    # The report shows the scoring as a table: a row per setting, a column per claim.
    shown = [
        rows
        for _, head, rows in data_tables(parse_file(out / "report.html"))
        if head == ["marking from / clearing at (cells)", *an1997.EFCI_CRITERIA]
    ]
    assert [len(rows) for rows in shown] == [len(an1997.QUICK_EFCI_GRID)]


@pytest.mark.reproduction
def test_the_per_vc_buffer_test_reports_the_losses_pairing_per_seed(
    quick_run: tuple[Path, int],
) -> None:
    """The 1,500-cell buffer split per VC (a test of the mechanism) runs for EFCI and ERICA
    with every fairness seed, and the notes give the share of paired collapses per seed, in
    the shared FIFO and per VC, with a verdict that follows those shares."""
    out, _ = quick_run
    m = _measured(out)
    for s in an1997.PER_VC_SCHEMES:
        for seed in m.seeds():
            assert an1997.label("buffer", an1997.per_vc_key(s), seed) in m.res
    per_vc = [
        an1997.collapse_sync(m, "buffer", an1997.per_vc_key("efci"), seed=x) for x in m.seeds()
    ]
    v = _values(out)["efci"]["per_vc"]
    assert v["buffer"] == "750 cells"
    assert v["sync_efci"] == pytest.approx(per_vc, nan_ok=True)
    assert v["paired"] == (float(np.nanmean(per_vc)) >= 0.5)


@pytest.mark.reproduction
def test_the_unequal_round_trip_test_runs_every_scheme_and_reports_what_it_found(
    quick_run: tuple[Path, int],
) -> None:
    """The second source's 100 km access link (a test of the mechanism) runs for every scheme
    with the fairness seeds; the notes give each scheme's mean Jain index and call EFCI the
    least fair only when the runs make it so, never naming it as the cause."""
    out, _ = quick_run
    m = _measured(out)
    mean = {}
    for s in an1997.LONG_ACCESS_SCHEMES:
        key = an1997.long_access_key(s)
        for seed in m.seeds():
            assert an1997.label("buffer", key, seed) in m.res
        mean[s] = float(np.mean(m.seed_fairness("buffer", key)))
    v = _values(out)["efci"]["long_access"]
    assert v["efci"] == pytest.approx(mean["efci"])
    assert v["fmmra"] == pytest.approx(mean["fmmra"])
    assert v["efci_least"] == (min(mean, key=lambda s: mean[s]) == "efci")
    lo, hi = int(np.argmin(v["goodput"])), int(np.argmax(v["goodput"]))
    assert v["served_less_times_out_more"] == (v["timeouts"][lo] > v["timeouts"][hi])


@pytest.mark.reproduction
def test_each_reading_reruns_what_it_touches_and_is_scored_on_every_claim(
    quick_run: tuple[Path, int],
) -> None:
    """A reading of the thesis's simulator (exponential VBR periods, EFCI marked on departure)
    runs every network and scheme it touches again, the fairness networks with every fairness
    seed; the notes give its count of agreeing rows computed from those runs, and name it a
    cause only if it turns a disagreeing row round and breaks none."""
    out, _ = quick_run
    m = _measured(out)
    main = {r.claim: r for r in an1997.claims(m, quick=True)}
    values = {g["what"]: g for g in _values(out)["readings"]}
    assert m.readings() == an1997.readings(quick=True)
    for reading in m.readings():
        what, _, per_scheme = an1997.READINGS[reading]
        for fam, (_, _, _, schemes) in an1997.FAMILIES.items():
            for s in set(schemes) & set(per_scheme):
                seeds = m.seeds() if fam in an1997.FAIRNESS_FAMILIES else (1,)
                for seed in seeds:
                    lab = an1997.reading_label(reading, an1997.label(fam, s, seed))
                    # a reading restricted to some networks leaves the others' runs alone
                    assert (lab in m.res) == (fam in an1997.reading_families(reading)), lab
        under = an1997.claims(m.under(reading), quick=True, sensitivity=False)
        assert {r.claim for r in under} <= set(main)
        g = values[what]
        assert (g["agree"], g["total"]) == (sum(r.agrees for r in under), len(under))
        turned = [r for r in under if r.agrees and not main[r.claim].agrees]
        broken = [r for r in under if not r.agrees and main[r.claim].agrees]
        # a fairness row it turns round must hold on the wider seeds too
        unheld = [
            r
            for r in turned
            if an1997.pair_of(r.claim)
            and not findings_rows.wide_holds(m, *an1997.pair_of(r.claim), reading)
        ]
        assert g["turned"] == bool(turned) and g["broken"] == bool(broken)
        assert g["unheld"] == [r.claim for r in unheld]
        assert [p["n"] for p in g["pairs"]] == [3] * len(studies.FAIRNESS_PAIRS)
    # A reading's runs differ from the main ones where it touches a scheme.
    under = m.under("efci_departure")
    assert under.r("buffer", "efci") is not m.r("buffer", "efci")
    assert under.r("buffer", "erica") is m.r("buffer", "erica")
    # The 100 ms VBR reading runs on N = 2 and the 1,500-cell network only, and its VBR source
    # is ON for 100 ms: its cells in the first 100 ms after the start are the nominal rate's.
    assert an1997.reading_families("vbr_100ms") == ("n2", "buffer")
    under = m.under("vbr_100ms")
    assert under.r("n5", "efci") is m.r("n5", "efci")
    for fam in ("n2", "buffer"):
        assert under.r(fam, "erica") is not m.r(fam, "erica")
        assert m.run_of(fam, "erica", 1, "vbr_100ms") is under.r(fam, "erica")
    assert m.run_of("n5", "erica", 1, "vbr_100ms") is m.r("n5", "erica")
    ov = an1997.reading_overrides("vbr_100ms", "buffer", "efci")
    assert ov["connection.vbr.source.period"] == "200 ms"


@pytest.mark.reproduction
def test_efci_steps_that_control_the_loss_are_run_and_reported(
    quick_run: tuple[Path, int],
) -> None:
    """The thesis's "proper RIF, RDF ... control the cell lost": EFCI with larger steps runs
    on the 1,500-cell network with every fairness seed; the notes give each setting's cells
    lost (summed over the seeds), and count as loss-free only the settings that lost none."""
    out, _ = quick_run
    m = _measured(out)
    v = _values(out)["efci"]["rate"]
    free = 0
    for g in an1997.QUICK_EFCI_RATE_GRID:
        key = an1997.efci_rate_key(*g)
        lost = sum(int(m.r("buffer", key, x).totals["cells_dropped"]) for x in m.seeds())
        row = next(x for x in v["settings"] if (x["rif"], x["rdf"], x["high"]) == g)
        assert row["lost"] == lost
        free += lost == 0
    assert v["lossless"] == free


@pytest.mark.reproduction
def test_fairness_rows_are_scored_on_the_wider_seeds(quick_run: tuple[Path, int]) -> None:
    """The fairness rows are scored on the wider seeds (quick mode: 1-3) for the main model and
    for every reading on the schemes it touches: a row agrees only when the sign test of
    studies.VISIBLE separates the schemes on the Jain index and on the starved spans (never on
    quick mode's three seeds, whose smallest two-sided p is 0.25). The notes give each row's
    mean difference and the seeds it holds in, computed from those runs."""
    out, _ = quick_run
    m = _measured(out)
    wide = an1997.QUICK_WIDE_SEEDS
    assert m.wide_seeds() == wide
    assert m.seeds() == an1997.QUICK_FAIRNESS_SEEDS  # the grids' seeds are unchanged
    for fam, a, b in studies.FAIRNESS_PAIRS:
        for reading in (None, *m.readings()):
            xa, xb = m.wide_pair(fam, a, b, reading)
            assert len(xa) == len(xb) == len(wide)
    # seed 3 is a run of its own, kept out of the tables; a reading's own run of it takes
    # the main one's place under the reading, as on the fairness seeds
    main_s3 = wide_label(an1997.label("buffer", "efci", 3))
    assert main_s3 in m.res
    assert "buffer-efci-s3" not in m.under("adtf_10ms").res
    for reading in m.readings():
        own = wide_label(studies.reading_label(reading, an1997.label("buffer", "efci", 3)))
        under = m.under(reading).res[main_s3]
        assert under is (m.res[own] if own in m.res else m.res[main_s3])
    w = _values(out)["wide"]
    for got, (fam, a, b) in zip(w["pairs"], studies.FAIRNESS_PAIRS, strict=True):
        assert got == pytest.approx(findings_rows.wide_pair(m, fam, a, b))
    rows = an1997.claims(m, quick=True)
    fair = [r for r in rows if an1997.pair_of(r.claim) is not None]
    assert len(fair) == len(studies.FAIRNESS_PAIRS)
    for r in fair:
        fam, a, b = an1997.pair_of(r.claim)
        xa, xb = m.wide_pair(fam, a, b)
        assert r.seeds == len(wide) and sorted(r.by_seed) == list(wide)
        assert r.measured == pytest.approx(np.mean(xa) - np.mean(xb))
        assert findings_seeds.verdict(xa, xb, higher=True)["verdict"] != "holds"
        assert not r.agrees


class _Totals:
    """A run reduced to its totals (all a fairness row on the 1,500-cell network reads)."""

    def __init__(self, fairness: float) -> None:
        self.totals = {"fairness_index": fairness}


def test_the_buffer_row_is_measured_on_a_hundred_seeds_in_full_mode() -> None:
    """Full mode runs ERICA and EFCI on the 1,500-cell network for every seed of ROW_SEEDS
    beyond the wider seeds (totals only); quick mode runs none. The summary gives the mean
    difference, its standard error and a sign test over them."""
    full = [j for j in an1997.jobs(quick=False) if j.name.startswith("row:")]
    assert {j.seed for j in full} == set(ROW_SEEDS) - set(WIDE_SEEDS)
    assert len(full) == len(ROW_SCHEMES) * (len(ROW_SEEDS) - len(WIDE_SEEDS))
    assert all(j.metrics == () for j in full)
    assert not [j for j in an1997.jobs(quick=True) if j.name.startswith("row:")]

    def measured(erica: list[float], efci: list[float]) -> an1997.Measured:
        res = {}
        for x, (a, b) in zip(ROW_SEEDS, zip(erica, efci, strict=True), strict=True):
            res[row_label(an1997.label("buffer", "erica", x))] = _Totals(a)
            res[row_label(an1997.label("buffer", "efci", x))] = _Totals(b)
        return an1997.Measured(res)

    n = len(ROW_SEEDS)
    # ERICA fairer by 0.01 in 75 of 100 seeds, less fair by 0.01 in 25: mean +0.005
    erica = [0.99 if i < 75 else 0.97 for i in range(n)]
    got = findings_rows.row_seeds(measured(erica, [0.98] * n))
    assert (got["first"], got["last"], got["wins"], got["n"]) == (1, 100, 75, 100)
    assert got["diff"] == pytest.approx(0.005) and round(got["se"], 4) == 0.0009
    assert got["p"] < 0.001 and got["significant"] and got["better"] == "ERICA"
    even = findings_rows.row_seeds(
        measured([0.99 if i % 2 else 0.97 for i in range(n)], [0.98] * n)
    )
    assert (even["wins"], even["n"], even["p"], even["significant"]) == (50, 100, 1.0, False)
    assert findings_rows.row_seeds(an1997.Measured({})) is None  # not run (quick mode)


@pytest.mark.reproduction
def test_jain_starvation_and_the_late_start_test(quick_run: tuple[Path, int]) -> None:
    """A starved span is one where one source's mean goodput is below a third of the other's;
    the late-start test (second source from 0.5 s) runs every scheme with every fairness seed
    and the notes report its shares."""
    t = 0.3 + 0.005 * np.arange(1, 41)  # 40 samples after the VBR start: 4 spans of 10
    s1 = np.full(40, 30.0)
    s2 = np.full(40, 30.0)
    s2[10:20] = 5.0  # span 2: starved (5 < 30 / 3)
    s2[20:30] = 12.0  # span 3: not (12 > 10)
    g = pd.DataFrame({"s1": s1, "s2": s2, "vbr": 100.0}, index=t)
    assert an1997.starved_share(_OneSeries("goodput_mbps", g)) == 0.25
    assert jain([1, 1]) == 1.0
    assert jain([1, 0]) == 0.5
    assert an1997.pair_of("Figs 4.14-4.16: x (Jain index ERICA - EFCI, mean)") == (
        "buffer",
        "erica",
        "efci",
    )
    assert an1997.pair_of("Figs 4.8-4.10: y (Jain index FMMRA - ERICA, 0.3-0.6 s)")[0] == "n5"

    out, _ = quick_run
    m = _measured(out)
    for s in studies.LATE_START_SCHEMES:
        for x in m.seeds():
            r = m.r("buffer", studies.late_start_key(s), x)
            late = source_goodput(r)["s2"]
            assert float(late[late.index <= studies.LATE_START_S].sum()) == 0.0
    v = _values(out)["efci"]
    assert v["late_start"]["start"] == studies.LATE_START_S
    assert v["late_start"]["behind"] == (v["late_start"]["shares"][0]["later"] < 0.45)
    shares = {x["scheme"]: x["share"] for x in v["starved"]["shares"]}
    assert v["starved"]["most"] == max(shares, key=lambda k: shares[k])


@pytest.mark.reproduction
def test_lone_slow_starts_are_counted_per_source(quick_run: tuple[Path, int]) -> None:
    """A window collapse (cwnd below 60% of the sample before, after the VBR start) is a lone
    one when no other source collapses within 10 ms; the notes count them per scheme on the
    1,500-cell network over the wider seeds."""
    t = 0.3 + 0.005 * np.arange(1, 21)
    s1 = np.full(20, 60_000.0)
    s2 = np.full(20, 60_000.0)
    s1[4:] = 9_180.0  # collapse at sample 4 (0.325 s) ...
    s2[5:] = 9_180.0  # ... and the other's 5 ms later: together
    s1[10:] = 50_000.0
    s1[15:] = 9_180.0  # s1 alone at 0.38 s
    w = pd.DataFrame({"s1": s1, "s2": s2, "vbr": 0.0}, index=t)
    falls = collapse_times(_OneSeries("cwnd_bytes", w))
    assert list(falls) == ["s1", "s2"]
    assert np.allclose(falls["s1"], [0.325, 0.38])
    assert an1997.solo_collapses(_OneSeries("cwnd_bytes", w)) == {"s1": 1, "s2": 0}
    assert an1997.solo_collapses(_OneSeries("cwnd_bytes", w), within_s=0.001) == {"s1": 2, "s2": 1}
    # in time order, with the pairs whose second lone collapse repeats the first's source
    assert lone_collapses(_OneSeries("cwnd_bytes", w), within_s=0.001) == [
        (pytest.approx(0.325), "s1"),
        (pytest.approx(0.33), "s2"),
        (pytest.approx(0.38), "s1"),
    ]
    assert an1997.lone_repeats(_OneSeries("cwnd_bytes", w)) == (0, 0)  # one lone collapse

    def lone(falls: dict[str, list[int]]) -> tuple[int, int]:
        """lone_repeats on windows that collapse at the given samples (5 ms apart)."""
        n = 60
        cols = {}
        for c, at in falls.items():
            x = np.full(n, 60_000.0)
            for i in at:
                x[i] = 9_180.0  # a collapse, then back up at the next sample
            cols[c] = x
        return an1997.lone_repeats(
            _OneSeries("cwnd_bytes", pd.DataFrame(cols, index=0.3 + 0.005 * np.arange(1, n + 1)))
        )

    assert lone({"s1": [10], "s2": [20]}) == (0, 1)  # s1 then s2: they alternate
    assert lone({"s1": [10, 30], "s2": [20]}) == (0, 2)
    assert lone({"s1": [10, 20], "s2": [40]}) == (1, 2)  # s1 twice in a row, then s2
    assert lone({"s1": [10, 20], "s2": [21, 40]}) == (0, 1)  # 20 and 21 together: not lone

    out, _ = quick_run
    m = _measured(out)
    for x in m.wide_seeds():  # the runs beyond the fairness seeds keep the windows too
        assert "cwnd_bytes" in set(m.run_of("buffer", "efci", x).series["metric"])
    st = findings_efci.solo_stats(m)
    v = _values(out)["efci"]
    assert v["solo"]["efci_per_run"] == pytest.approx(st.per_run["efci"])
    assert v["solo"]["follows"] == st.follows()
    for s in studies.FINE_SCHEMES:  # the overflows, seen every 0.2 ms, are counted from runs
        assert an1997.label("buffer", studies.fine_key(s), 1) in m.res
    assert v["overflow"] is not None and v["overflow"]["sample"] == studies.FINE_SAMPLE


def test_overflows_are_runs_of_samples_with_drops() -> None:
    """An overflow is a run of samples in which the sources lose cells (the counts are
    cumulative), gaps under 1 ms joined; each gives its length and its cells per source."""
    t = 0.3 + 0.0002 * np.arange(0, 41)  # 0.3 s (the VBR start) to 0.308 s
    d1 = np.zeros(41)
    d2 = np.zeros(41)
    d1[5:] += 10  # s1 loses 10 cells in sample 5 ...
    d2[7:] += 4  # ... s2 4 cells 0.4 ms later: one overflow of both
    d1[30:] += 3  # 4.6 ms later s1 alone: a second
    w = pd.DataFrame({"s1": d1, "s2": d2, "vbr": 0.0}, index=t)
    ov = an1997.overflows(_OneSeries("cells_dropped", w))
    assert len(ov) == 2
    assert ov[0][0] == pytest.approx(0.0006)  # samples 5-7, 0.2 ms each
    assert ov[0][1].tolist() == [10, 4]
    assert ov[1][1].tolist() == [3, 0]
    assert len(an1997.overflows(_OneSeries("cells_dropped", w), gap_s=0.0001)) == 3


@pytest.mark.reproduction
def test_the_perturbations_of_the_buffer_row_run_and_are_reported(
    quick_run: tuple[Path, int],
) -> None:
    """Each perturbation of the 1,500-cell network runs EFCI and ERICA with its seeds and its
    overrides on top of the scheme's, and the notes give its tally computed from those runs."""
    out, _ = quick_run
    m = _measured(out)
    js = {j.label: j for j in an1997.jobs(quick=True)}
    for p in studies.perturbations(quick=True):
        what, extra = studies.PERTURBATIONS[p]
        for s in studies.PERTURB_SCHEMES:
            for x in studies.perturb_seeds(quick=True):
                lab = an1997.label("buffer", studies.perturb_key(s, p), x)
                assert lab in m.res
                want = {**an1997.SCHEMES[s], **extra}
                assert all(js[lab].overrides[k] == v for k, v in want.items())
        j = {
            s: [
                m.res[an1997.label("buffer", studies.perturb_key(s, p), x)].totals["fairness_index"]
                for x in studies.perturb_seeds(quick=True)
            ]
            for s in studies.PERTURB_SCHEMES
        }
        less = sum(e < r for e, r in zip(j["efci"], j["erica"], strict=True))
        each = {e["what"]: e for e in _values(out)["efci"]["perturb"]["each"]}
        assert each[what]["less"] == less


@pytest.mark.reproduction
def test_start_time_readings_set_every_source_and_are_judged_on_every_criterion(
    quick_run: tuple[Path, int],
) -> None:
    """The start-time readings start source i at (i - 1) x the spacing on every network; the
    notes name the start times as the transient row's cause only if every spacing with sources
    joining in the transient turns the row, breaks no claim, holds on the wider seeds and gives
    a late source a smaller part under ERICA than under FMMRA, and no spacing with every source
    started earlier makes it hold on the wider seeds."""
    out, _ = quick_run
    m = _measured(out)
    for fam, (_, n, _, _) in an1997.FAMILIES.items():
        o = an1997.reading_overrides("start_100ms", fam, "erica")
        assert o == {f"connection.s{i}.start": f"{(i - 1) * 100} ms" for i in range(1, n + 1)}
    # the reading's run starts the fifth source at 0.4 s: no goodput before
    g = source_goodput(m.run_of("n5", "fmmra", 1, "start_100ms"))
    assert float(g.loc[g.index <= 0.4, "s5"].sum()) == 0.0
    assert float(g.loc[g.index > 0.45, "s5"].sum()) > 0.0
    assert findings_fair.late_share(m, "start_50ms", "erica") is None  # all started by 0.2 s
    share = {s: findings_fair.late_share(m, "start_100ms", s) for s in an1997.SCHEMES}
    rows = an1997.claims(m, quick=True)
    st = findings_fair.starts(m, rows, quick=True)
    late = next(x for x in st["spacings"] if x["shares"])
    got = {x["scheme"]: x["share"] for x in late["shares"]}
    assert got["ERICA"] == pytest.approx(share["erica"])
    assert got["FMMRA"] == pytest.approx(share["fmmra"])
    main = {r.claim: r for r in rows}
    claim = next(c for c in main if an1997.pair_of(c) == ("n5", "fmmra", "erica"))
    ok = []
    for r in m.readings():
        if r not in studies.START_READINGS:
            continue
        under = {c.claim: c for c in an1997.claims(m.under(r), quick=True, sensitivity=False)}
        broken = any(main[c].agrees and not under[c].agrees for c in under)
        late = findings_fair.late_share(m, r, "erica")
        if late is None:
            ok.append(not findings_rows.wide_holds(m, "n5", "fmmra", "erica", r))
        else:
            ok.append(
                under[claim].agrees
                and not broken
                and findings_rows.wide_holds(m, "n5", "fmmra", "erica", r)
                # the visible measure in the row's own window holds on the wide seeds too
                and findings_seeds.row(m, "n5", "fmmra", "erica", TRANSIENT_S, r)["visible"][
                    "verdict"
                ]
                == "holds"
                and late < findings_fair.late_share(m, r, "fmmra")
            )
    assert st["holds"] == all(ok)
    assert st["cause"] == (all(ok) and st["enough_seeds"])
    bad = {r["claim"]: r for r in _values(out)["bad"]}
    if not main[claim].agrees:
        assert bad[claim]["cause"] == st["cause"]


def test_a_fairness_row_over_seeds_holds_only_when_a_sign_test_separates_the_schemes() -> None:
    """The rule fixed before the 40-seed runs (studies.VISIBLE): the named scheme on its side
    of the mean and a sign test p < 0.05 over the seeds; reversed with the other side and that
    p; otherwise not separated. Lower is fairer on the visible measure."""

    assert studies.VISIBLE == {"samples": 10, "ratio": 0.5, "p": 0.05}
    n = 40
    up = findings_seeds.verdict([0.99] * 30 + [0.97] * 10, [0.98] * n, higher=True)
    assert (up["wins"], up["n"], up["verdict"]) == (30, 40, "holds")
    assert up["claimed"]["mean"] == pytest.approx(0.985)
    assert up["other"]["sd"] == pytest.approx(0, abs=1e-12)
    down = findings_seeds.verdict([0.99] * 10 + [0.97] * 30, [0.98] * n, higher=True)
    assert (down["wins"], down["verdict"]) == (10, "reversed")
    even = findings_seeds.verdict([0.99, 0.97] * 20, [0.98] * n, higher=True)
    assert even["verdict"] == "not separated" and even["p"] == 1.0
    # the visible share: fewer starved spans is fairer
    fewer = findings_seeds.verdict([0.1] * 30 + [0.3] * 10, [0.2] * n, higher=False)
    assert (fewer["wins"], fewer["verdict"]) == (30, "holds")
    assert studies.TRANSIENTS == {
        "start-up": (0.0, studies.VBR_START_S),
        "after the VBR start": (studies.VBR_START_S, 0.6),
    }


def test_the_starved_share_counts_spans_inside_its_window() -> None:
    """starved_share over a window: spans of the samples inside it only."""
    from atmsim.reproduce.an1997.measure import starved_share

    t = np.round(np.arange(1, 241) * 0.005, 6)
    a = np.where(t <= 0.3, 1.0, 10.0)  # source a starved (1 of 10) until 0.3 s
    w = pd.DataFrame({"s1": a, "s2": np.full_like(a, 10.0)}, index=pd.Index(t, name="time_s"))
    run = _OneSeries("goodput_mbps", w)
    assert starved_share(run, 10, 0.5, window=(0.0, 0.3)) == 1.0
    assert starved_share(run, 10, 0.5) == 0.0  # after the VBR start, the default
    # two spans: 0.255-0.3 s starved, 0.305-0.35 s not
    assert starved_share(run, 10, 0.5, window=(0.25, 0.35)) == 0.5


def test_the_readings_of_issue_36_run_in_full_mode_and_one_in_quick() -> None:
    """The minimum-RTO readings (10, 20, 50 ms), the destination's CI rule and exponential
    CPU times run every network and scheme they touch in full mode, on every wide seed;
    quick mode runs only the CI rule's (EFCI's runs)."""
    full = an1997.jobs(quick=False)
    quick = an1997.jobs(quick=True)
    for reading in studies.NEW_READINGS:
        per_scheme = an1997.READINGS[reading][2]
        mine = [j for j in full if reading + ":" in j.name]
        assert mine, reading
        for s in per_scheme:
            seeds = {j.seed for j in mine if f"buffer-{s}" in j.name}
            assert seeds == set(WIDE_SEEDS), (reading, s)
        in_quick = [j for j in quick if reading + ":" in j.name]
        assert bool(in_quick) == (reading in studies.QUICK_NEW_READINGS), reading
    ov = an1997.reading_overrides("min_rto_20ms", "buffer", "erica")
    assert ov["tcp.min_rto"] == "20 ms"
    ov = an1997.reading_overrides("destination_ci_any", "buffer", "efci")
    assert ov["abr.destination_ci"] == "any_since_rm"
    ov = an1997.reading_overrides("cpu_exponential", "n5", "fmmra")
    assert ov["host.processing_distribution"] == "exponential"
    assert len(WIDE_SEEDS) >= 40


@pytest.mark.reproduction
def test_the_fairness_rows_on_the_wide_seeds_are_in_the_notes(quick_run: tuple[Path, int]) -> None:
    """The notes give every fairness row over the wide seeds on the Jain index and the visible
    share, N = 5 under both readings of the transient, computed from the runs; the min-RTO
    table is absent in quick mode (its readings run in full mode only)."""

    out, _ = quick_run
    m = _measured(out)
    v = _values(out)
    got = v["seeds40"]
    assert got["n"] == len(an1997.QUICK_WIDE_SEEDS)
    windows = [r["window"] for r in got["rows"]]
    assert windows.count("start-up") == 2 and windows.count("after the VBR start") == 4
    want = findings_seeds.fairness_rows(m, list(an1997.claims(m, quick=True)))
    assert got == json.loads(json.dumps(want))
    first = got["rows"][0]
    assert first["where"].startswith("N = 5") and first["window"] == "start-up"
    run = m.run_of("n5", "fmmra", 1)
    assert first["jain"]["claimed"]["mean"] == pytest.approx(
        np.mean(
            [
                findings_seeds._measures(m.run_of("n5", "fmmra", x), (0.0, 0.3))[0]
                for x in m.wide_seeds()
            ]
        )
    )
    assert run is not None
    assert v["min_rto"] is None
    causes = {c["what"]: c for c in v["causes"]}
    assert set(causes) == {an1997.READINGS[r][0] for r in m.readings()}
    assert not any(c["candidate"] for c in causes.values()), "quick mode has too few seeds"
    assert all("seeds" in c["fails"] for c in causes.values())
    text = (out / "notes.md").read_text(encoding="utf-8")
    assert "on what the figures show" in text


def test_a_reading_is_a_candidate_only_if_its_neighbours_keep_the_row_it_turns() -> None:
    """The rule of findings_seeds.candidate: a reading that turns a disagreeing row round,
    breaks none and whose turned row holds on the wide seeds on both measures is a candidate,
    unless a neighbouring value of the same setting reverses that row (sensitivity)."""

    claim = (
        "Figs 4.14-4.16: N = 2, 1,500-cell buffer: EFCI is the least fair "
        "(Jain index ERICA - EFCI, mean over seeds)"
    )
    g = {"turned": True, "broken": False, "unheld": [], "moved": [{"claim": claim, "agrees": True}]}
    row = {
        "pair": ("buffer", "erica", "efci"),
        "main_window": True,
        "jain": {"verdict": "holds"},
        "visible": {"verdict": "holds"},
    }
    assert findings_seeds.candidate(g, [row], True, []) == (True, [])
    assert findings_seeds.candidate(g, [row], True, ["10 ms"]) == (False, ["neighbours reverse"])
    assert findings_seeds.candidate(g, [row], False, []) == (False, ["seeds"])
    flat = {**row, "visible": {"verdict": "not separated"}}
    assert findings_seeds.candidate(g, [flat], True, []) == (False, ["spans"])
    none = {**g, "turned": False, "moved": []}
    assert findings_seeds.candidate(none, [row], True, []) == (False, ["turns none"])
