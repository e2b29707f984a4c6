"""The scheme atlas on a reduced configuration: Fang's four schemes, EPD and ESPD, ERICA and
the GFR policy on the Fang LAN and the parking lot, two buffer sizes, one seed, 0.5 s runs,
and An 1997's check runs shortened the same way (the full atlas is no test: `atmsim
reproduce atlas --out DIR`).

Asserted, each a property of the schemes rather than a tolerance chosen after the fact:
- every (network, scheme, buffer) of the configuration ran, and the table has one row per
  (network, scheme);
- AN2 credits lose no cell in any switch (the credit protocol never sends a cell the next
  hop has no room for);
- ERICA's ABR sources hold a queue and the UBR schemes' report none (source buffering is a
  rate-based scheme's);
- the ordering checks of Fang 1994, Cheon & Panwar 1998 and An 1997 are computed from these
  runs (finite measured values; their agreement is what the full atlas reports, not
  asserted, except credits' zero loss), and the parking lot's ACK-rule sensitivity is in the
  notes;
- a second run of the same atlas runs nothing (the run cache), and `report` rebuilds the
  same table from the stored runs.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim.reproduce import atlas, available
from atmsim.reproduce._atlas_setup import NETWORKS, SCHEMES
from htmlpage import data_tables, parse_file

pytestmark = pytest.mark.reproduction

SCHEMES_SMALL = ("cell_drop", "ppd", "drop_whole", "credits", "epd", "espd", "gfr", "erica")
CFG = atlas.Config(
    networks=("fang", "parking"),
    schemes=SCHEMES_SMALL,
    grid=(1536, 3072),
    seeds=(1,),
    run=("0.5 s", "0.2 s"),
)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("atlas")
    assert atlas.main(out, quick=True, workers=2, cfg=CFG) == 0
    return out


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_listed_by_reproduce_all() -> None:
    assert "atlas" in available()


def test_every_scheme_is_valid_on_every_network() -> None:
    for net in NETWORKS.values():
        for sch in SCHEMES.values():
            ov = {**net.run_overrides(True), **sch.overrides(net, net.reference)}
            atmsim.validate(net.scenario, overrides=ov)


def test_every_run_and_table_row(small: Path) -> None:
    runs = pd.read_csv(small / "runs.csv")
    got = set(zip(runs["network"], runs["scheme"], runs["buffer"], strict=True))
    want = {(n, s, b) for n in CFG.networks for s in CFG.schemes for b in CFG.grid}
    assert got == want
    table = pd.read_csv(small / "atlas.csv")
    assert sorted(zip(table["network"], table["scheme"], strict=True)) == sorted(
        (n, s) for n in CFG.networks for s in CFG.schemes
    )
    assert (table["goodput_share_mean"] > 0).all()
    # At most the bottleneck's capacity, give or take the segments counted at the edges of a
    # 0.3 s measurement window (one 8 KB segment in 0.3 s is 0.2 Mb/s, 0.16% of Fang's link).
    assert (table["goodput_share_mean"] <= 1.01).all()
    for name in ("report.html", "notes.md", "comparison.csv", "atlas-config.json"):
        assert (small / name).is_file(), name
    assert len(list((small / "figures").glob("*.png"))) == 3


def test_credits_lose_no_cell(small: Path) -> None:
    runs = pd.read_csv(small / "runs.csv")
    cr = runs[runs["scheme"] == "credits"]
    assert len(cr) == len(CFG.networks) * len(CFG.grid)
    assert (cr["switch_drops"] == 0).all()
    assert (cr["cell_loss_pct"] == 0).all()
    # and cell drop at the smallest buffer does lose cells on the congested LAN
    cd = runs[(runs["scheme"] == "cell_drop") & (runs["network"] == "fang")]
    assert (cd["switch_drops"] > 0).any()


def test_source_queues_only_for_abr(small: Path) -> None:
    runs = pd.read_csv(small / "runs.csv")
    abr = runs[runs["scheme"] == "erica"]
    assert (abr["source_queue_max_cells"] > 0).all()
    assert runs[runs["scheme"] != "erica"]["source_queue_max_cells"].isna().all()


def test_ordering_checks_are_computed(small: Path) -> None:
    rows = _rows(small)
    fang = [r for r in rows if r["claim"].startswith("Fang 1994")]
    cheon = [r for r in rows if r["claim"].startswith("Cheon")]
    an = [r for r in rows if r["claim"].startswith("An 1997")]
    assert len(fang) == 4 and len(cheon) == 2 and len(an) == 2
    for r in fang + cheon + an:
        assert math.isfinite(float(r["measured"])), r
    credits = next(r for r in fang if "lose no cell" in r["claim"])
    assert credits["agrees"] == "true"
    notes = (small / "notes.md").read_text(encoding="utf-8")
    for r in fang + cheon:
        assert r["claim"] in notes
    # the parking lot's EPD and ESPD again under the closest reading of the paper's TCP
    assert "Sensitivity: Cheon & Panwar's TCP read as the BSD Reno of its time" in notes
    assert '`tcp.cwnd_growth = "per_ack_plus_eighth"`' in notes


def test_round_trip_spread_study(small: Path) -> None:
    """The spread study runs every scheme of the configuration at each quick ratio R on the
    parking lot, and its table, figure and notes come from those runs."""
    from atmsim.reproduce._atlas_setup import SPREADS_QUICK

    spread = pd.read_csv(small / "spread.csv")
    got = set(zip(spread["ratio"], spread["scheme"], strict=True))
    assert got == {(r, s) for r in SPREADS_QUICK for s in CFG.schemes}
    assert (spread["group_ratio"] > 0).all() and (spread["fairness"] <= 1).all()
    notes = (small / "notes.md").read_text(encoding="utf-8")
    section = notes.split("### Round-trip spread", 1)[1].split("\n## ", 1)[0]
    m = spread.groupby(["scheme", "ratio"])["group_ratio"].mean()
    for sk in CFG.schemes:
        lo, hi = m[(sk, min(SPREADS_QUICK))], m[(sk, max(SPREADS_QUICK))]
        assert f"{SCHEMES[sk].label} {lo:.2f} -> {hi:.2f}" in section
    assert "AN2 credits hold a VC to its credits" in section
    assert "Cells lost in the switches (mean over seeds)" in section
    if (spread[spread["scheme"] == "credits"]["switch_drops"] == 0).all():
        assert "none at any R: AN2 credits" in section
    # The report shows the study as a table: a row per scheme, a column per R.
    shown = [
        rows
        for _, head, rows in data_tables(parse_file(small / "report.html"))
        if head[0] == "scheme"
        and [h.split(" = ")[0] for h in head[1:]] == ["R"] * len(SPREADS_QUICK)
    ]
    assert [len(rows) for rows in shown] == [len(CFG.schemes)]


def test_rerun_runs_nothing_and_report_rebuilds(small: Path) -> None:
    stamps = {p: p.stat().st_mtime_ns for p in (small / "runs").glob("*/run.json")}
    before = (small / "atlas.csv").read_text(encoding="utf-8")
    assert atlas.main(small, quick=True, workers=2, cfg=CFG) == 0
    assert {p: p.stat().st_mtime_ns for p in (small / "runs").glob("*/run.json")} == stamps
    (small / "atlas.csv").unlink()
    assert atlas.report(small) == 0
    assert (small / "atlas.csv").read_text(encoding="utf-8") == before
