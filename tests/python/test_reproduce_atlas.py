"""The scheme atlas on a reduced configuration: Fang's four schemes, EPD, ESPD, RED, ERICA and
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
  asserted, except credits' zero loss), and the parking lot's run under the closest reading
  of Cheon & Panwar's TCP is in the notes' values;
- a second run of the same atlas runs nothing (the run cache), and `report` rebuilds the
  same table from the stored runs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import atmsim
from atmsim.reproduce import atlas, available
from atmsim.reproduce.atlas import NETWORKS, SCHEMES, SPREADS_QUICK
from atmsim.reproduce.atlas.notes import cause
from atmsim.reproduce.framework import Claims, load_results
from atmsim.reproduce.framework.notes import lint, template_source
from htmlpage import data_tables, parse_file

pytestmark = pytest.mark.reproduction

SCHEMES_SMALL = ("cell_drop", "ppd", "drop_whole", "credits", "epd", "espd", "red", "gfr", "erica")
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


@pytest.fixture(scope="module")
def evaluated(small: Path) -> tuple[Any, Claims]:
    js = atlas.jobs(True, CFG)
    return atlas.reproduction(CFG).evaluate(js, load_results(js, small / "runs"), True)


def _values(out: Path) -> dict[str, Any]:
    return json.loads((out / "notes-values.json").read_text(encoding="utf-8"))


def test_listed_by_reproduce_all() -> None:
    assert "atlas" in available()


def test_the_notes_template_writes_no_number_into_result_text() -> None:
    assert lint(template_source("atmsim.reproduce.atlas")) == []


def test_causes_of_disagreeing_checks() -> None:
    assert cause("cheon-espd-above-epd") == "cheon-share"
    assert cause("cheon-espd-long-rtt") == "cheon-ratio"
    assert cause("kaly-queue-at-sources") == "kaly-sources"
    assert cause("fang-ppd-vs-cell_drop") == "none"


@pytest.mark.reproduction
def test_every_scheme_is_valid_on_every_network() -> None:
    for net in NETWORKS.values():
        for sch in SCHEMES.values():
            ov = {**net.run_overrides(True), **sch.overrides(net, net.reference)}
            atmsim.validate(net.scenario, overrides=ov)


def test_red_times_its_idle_decay_by_the_networks_segment() -> None:
    # RED's s is one TCP segment's frame: Fang's 8192 B + 40 B of TCP/IP + AAL5's 8 B trailer
    # in 48 B payloads is 172 cells; the parking lot's 500 B + 40 B + 14 B is 12.
    for key, cells in (("fang", 172), ("parking", 12)):
        net = NETWORKS[key]
        policy = SCHEMES["red"].overrides(net, net.reference)["switch.*.policy"]
        assert policy["packet_size"] == f"{cells} cells"
        assert "packet_size" not in SCHEMES["red"].policy, "the scheme itself is not changed"


@pytest.mark.reproduction
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


@pytest.mark.reproduction
def test_credits_lose_no_cell(small: Path) -> None:
    runs = pd.read_csv(small / "runs.csv")
    cr = runs[runs["scheme"] == "credits"]
    assert len(cr) == len(CFG.networks) * len(CFG.grid)
    assert (cr["switch_drops"] == 0).all()
    assert (cr["cell_loss_pct"] == 0).all()
    # and cell drop at the smallest buffer does lose cells on the congested LAN
    cd = runs[(runs["scheme"] == "cell_drop") & (runs["network"] == "fang")]
    assert (cd["switch_drops"] > 0).any()


@pytest.mark.reproduction
def test_source_queues_only_for_abr(small: Path) -> None:
    runs = pd.read_csv(small / "runs.csv")
    abr = runs[runs["scheme"] == "erica"]
    assert (abr["source_queue_max_cells"] > 0).all()
    assert runs[runs["scheme"] != "erica"]["source_queue_max_cells"].isna().all()


def test_ordering_checks_are_computed(small: Path, evaluated: tuple[Any, Claims]) -> None:
    _, rows = evaluated
    fang = [r for r in rows if r.id.startswith("fang-")]
    cheon = [r for r in rows if r.id.startswith("cheon-")]
    an = [r for r in rows if r.id.startswith("an-")]
    assert len(fang) == 4 and len(cheon) == 2 and len(an) == 2
    for r in fang + cheon + an:
        assert math.isfinite(r.measured), r
    assert rows.by_id("fang-credits-no-loss").agrees
    values = _values(small)
    assert [c["id"] for c in values["claims"]] == [r.id for r in rows]
    assert values["causes"] == {r.id: cause(r.id) for r in rows}
    # the parking lot's EPD and ESPD again under the closest reading of the paper's TCP
    reading = values["reading"]
    assert reading is not None
    assert reading["share_holds"] == (reading["espd_share"] > reading["epd_share"])
    assert reading["ratio_holds"] == (reading["espd_ratio"] > reading["epd_ratio"])
    epd = values["epd"]
    assert epd["busy"] == (epd["utilisation"] >= epd["busy_at"])


@pytest.mark.reproduction
def test_round_trip_spread_study(small: Path) -> None:
    """The spread study runs every scheme of the configuration at each quick ratio R on the
    parking lot, and its table, figure and notes come from those runs."""
    spread = pd.read_csv(small / "spread.csv")
    got = set(zip(spread["ratio"], spread["scheme"], strict=True))
    assert got == {(r, s) for r in SPREADS_QUICK for s in CFG.schemes}
    assert (spread["group_ratio"] > 0).all() and (spread["fairness"] <= 1).all()
    values = _values(small)["spread"]
    assert values["ratios"] == sorted(SPREADS_QUICK)
    m = spread.groupby(["scheme", "ratio"])["group_ratio"].mean()
    by_label = {x["scheme"]: x for x in values["group_ratio"]}
    for sk in CFG.schemes:
        x = by_label[SCHEMES[sk].label]
        assert x["lo"] == pytest.approx(m[(sk, min(SPREADS_QUICK))])
        assert x["hi"] == pytest.approx(m[(sk, max(SPREADS_QUICK))])
    assert values["credits"] is not None
    assert values["credits"]["below_fair"] == (
        values["credits"]["cap_mbps"] < values["credits"]["fair_mbps"]
    )
    if (spread[spread["scheme"] == "credits"]["switch_drops"] == 0).all():
        assert SCHEMES["credits"].label in values["drops"]["never"]
    # The report shows the study as a table: a row per scheme, a column per R.
    shown = [
        rows
        for _, head, rows in data_tables(parse_file(small / "report.html"))
        if head[0] == "scheme"
        and [h.split(" = ")[0] for h in head[1:]] == ["R"] * len(SPREADS_QUICK)
    ]
    assert [len(rows) for rows in shown] == [len(CFG.schemes)]


@pytest.mark.reproduction
def test_rerun_runs_nothing_and_report_rebuilds(small: Path) -> None:
    stamps = {p: p.stat().st_mtime_ns for p in (small / "runs").glob("*/run.json")}
    before = (small / "atlas.csv").read_text(encoding="utf-8")
    assert atlas.main(small, quick=True, workers=2, cfg=CFG) == 0
    assert {p: p.stat().st_mtime_ns for p in (small / "runs").glob("*/run.json")} == stamps
    (small / "atlas.csv").unlink()
    assert atlas.report(small) == 0
    assert (small / "atlas.csv").read_text(encoding="utf-8") == before


def test_tcp_settings_change_only_the_congestion_response() -> None:
    """Each TCP of the axis adds only congestion-control keys (and, with ECN, the switches'
    marking threshold at a quarter of the run's buffer); the paper's TCP adds nothing and
    runs nothing of its own."""
    from atmsim.reproduce.atlas.tcps import AN_ECN_BUFFER, ECN_MARK_SHARE, TCPS

    assert TCPS["paper"].overrides(2000) == {}
    assert TCPS["sack"].overrides(2000) == {"tcp.variant": "sack", "tcp.dupack_threshold": 3}
    assert TCPS["cubic"].overrides(2000)["tcp.congestion_control"] == "cubic"
    ecn = TCPS["cubic_ecn"].overrides(2000)
    assert ecn["tcp.ecn"] is True and ecn["switch.*.efci_threshold"] == "500 cells"
    assert ECN_MARK_SHARE * AN_ECN_BUFFER == 500  # where An's EFCI switches mark
    red = {"kind": "red", "min_th": 0.25, "max_th": 0.75, "packet_size": "12 cells"}
    with_red = TCPS["cubic_ecn"].overrides(2000, red)
    assert with_red["switch.*.policy"] == {**red, "ecn_mark": True}
    assert "switch.*.efci_threshold" not in with_red
    run = next(j for j in atlas.jobs(False) if j.name == "tcp-cubic_ecn-parking-red-b2000-s1")
    assert run.overrides["switch.*.policy"]["ecn_mark"] is True
    assert all(
        k.startswith("tcp.") or k == "switch.*.efci_threshold"
        for t in TCPS.values()
        for k in t.overrides(1536)
    )
    assert atlas.DEFAULT.tcp_list() == ("sack", "cubic", "cubic_ecn")
    assert atlas.Config(tcps=("paper",)).tcp_list() == ()
    assert atlas.DEFAULT.tcp_schemes("parking", quick=True) == ("epd", "espd")
    assert atlas.DEFAULT.tcp_schemes("parking", quick=False) == atlas.DEFAULT.schemes


@pytest.mark.reproduction
def test_tcp_axis(small: Path, evaluated: tuple[Any, Claims]) -> None:
    """The quick atlas runs each check's schemes at the reference buffer under every TCP of
    the axis, scores every check under each (the same rows the checks compute from those
    runs) and lists the axis in tcp-axis.csv and the notes."""
    from atmsim.reproduce.atlas.claims import claims
    from atmsim.reproduce.atlas.tcps import TCP_CHECK_SCHEMES, TCPS

    a, rows = evaluated
    assert a.tcps() == ("paper", *CFG.tcp_list())
    t = pd.read_csv(small / "tcp-axis.csv")
    for tk in CFG.tcp_list():
        for nk in CFG.networks:
            got = set(t[(t["tcp"] == tk) & (t["network"] == nk)]["scheme"])
            assert got == set(TCP_CHECK_SCHEMES[nk]) & set(CFG.schemes)
            on = t[(t["tcp"] == tk) & (t["network"] == nk)]
            assert (on["buffer_cells"] == a.reference(nk)).all()
    axis = _values(small)["tcp_axis"]
    assert [x["key"] for x in axis["tcps"]] == list(a.tcps())
    assert [c["claim"] for c in axis["checks"]] == [r.claim for r in rows]
    for k, tk in enumerate(a.tcps()):
        under = {r.claim: r for r in claims(a.under_tcp(tk), True)}
        for c in axis["checks"]:
            cell = c["cells"][k]
            assert cell["agrees"] == under[c["claim"]].agrees
            assert cell["measured"] == pytest.approx(under[c["claim"]].measured, nan_ok=True)
            assert (TCPS[tk].label in c["held"]) == cell["agrees"]
    notes = (small / "notes.md").read_text(encoding="utf-8")
    assert "## With today's TCPs: which conclusions still hold" in notes
    for tk in a.tcps():
        assert TCPS[tk].label in notes
    # ECN keeps the Fang LAN's per-VC queues below their limits: fewer cells lost than CUBIC
    loss = t[t["network"] == "fang"].groupby("tcp")["cell_loss_pct"].mean()
    assert loss["cubic_ecn"] < loss["cubic"]
