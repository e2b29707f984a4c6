"""Comparison rows over several seeds: the mean with its Student-t interval (the sweeps'
``half_width``, not a second one), the number of seeds, the verdict on the mean, whether the
interval settles the verdict; comparison.csv's ``measured_ci`` and ``seeds`` columns, and the
report reading files written before they existed."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from atmsim import plots, report
from atmsim.reproduce import framework as fw
from atmsim.sweep.stats import half_width


def test_over_seeds_is_the_sweeps_interval() -> None:
    est = fw.over_seeds([1.0, 2.0, 3.0, float("nan")])
    assert est.n == 3 and est.mean == 2.0 and est.level == fw.CONFIDENCE
    # t(0.975, 2) = 4.3027; sd 1; n 3.
    assert est.ci == pytest.approx(4.3027 / math.sqrt(3), rel=1e-4)
    assert est.ci == half_width([1.0, 2.0, 3.0], fw.CONFIDENCE)
    one = fw.over_seeds([5.0])
    assert one.n == 1 and one.mean == 5.0 and math.isnan(one.ci)


def test_a_row_over_seeds_carries_its_interval_and_a_single_run_does_not() -> None:
    many = fw.compare(
        "Fig 1: x", paper=1.0, measured=fw.over_seeds([1.0, 1.1, 0.9]), unit="", tol=fw.rel(0.05)
    )
    assert many.over_seeds and many.seeds == 3 and many.agrees
    row = many.as_row()
    assert list(row) == list(fw.COMPARISON_COLUMNS)
    assert row["seeds"] == "3" and float(row["measured_ci"]) == pytest.approx(many.ci, rel=1e-3)
    single = fw.compare("Fig 1: y", paper=1.0, measured=1.0, unit="", tol=fw.rel(0.05))
    assert not single.over_seeds and single.as_row()["measured_ci"] == ""
    assert single.as_row()["seeds"] == "" and single.settled is None
    # One seed is a single run too.
    alone = fw.compare("Fig 1: z", paper=1.0, measured=fw.over_seeds([1.0]), unit="", tol=fw.rel(1))
    assert not alone.over_seeds and alone.as_row()["seeds"] == ""


def _rows(values: list[float], cause: str = "") -> list[fw.Claim]:
    return [
        fw.compare(
            "Fig 2: a",
            paper=10.0,
            measured=values[0],
            unit="u",
            tol=fw.rel(0.1),
            note=f"runs gave {values[0]}",
            cause=cause,
        ),  # fmt: skip
        fw.compare("Fig 2: b", paper="> 0", measured=values[1], unit="u", tol=fw.above(0)),
    ]


def test_combine_seeds_judges_the_mean_by_the_rows_rule() -> None:
    # Seed 1 alone disagrees on row a (12 > 11); the mean (10.5) agrees.
    per_seed = [_rows([12.0, -1.0], "why"), _rows([9.0, 3.0], "why")]
    assert not per_seed[0][0].agrees
    rows = fw.with_causes(fw.combine_seeds(per_seed, [1, 2]))
    a, b = rows
    assert a.measured == 10.5 and a.seeds == 2 and a.by_seed == {1: 12.0, 2: 9.0}
    assert a.agrees and not a.agrees_alone(1) and a.agrees_alone(2)
    assert a.note.startswith("Seed 1: runs gave 12") and "Cause" not in a.note
    same = fw.combine_seeds([_rows([1.0, 1.0]), _rows([1.0, 2.0])], [1, 2])[0]
    assert same.note == "runs gave 1.0"  # the same under every seed: no seed named
    assert b.measured == 1.0 and b.agrees and b.settled is False  # interval reaches below 0
    assert a.ci == half_width([12.0, 9.0], fw.CONFIDENCE)
    # A disagreeing mean gets its cause.
    bad = fw.with_causes(fw.combine_seeds([_rows([20.0, 1.0], "why")] * 2, [1, 2]))
    assert not bad[0].agrees and bad[0].note.endswith("Cause: why")


def test_combine_seeds_refuses_rows_it_cannot_pair_or_judge() -> None:
    with pytest.raises(ValueError, match="not those of seed 1"):
        fw.combine_seeds([_rows([1.0, 1.0]), _rows([1.0, 1.0])[:1]], [1, 2])
    with pytest.raises(ValueError, match="1 lists of rows for 2"):
        fw.combine_seeds([_rows([1.0, 1.0])], [1, 2])
    plain = fw.Claim("Fig 3: c", 1.0, 1.0, "", "exact", True)
    with pytest.raises(ValueError, match="no rule"):
        fw.combine_seeds([[plain], [plain]], [1, 2])


@pytest.mark.parametrize(
    ("tol", "paper", "low", "high", "settled"),
    [
        (fw.above(0), None, 0.5, 1.0, True),
        (fw.above(0), None, -1.0, 1.0, False),
        (fw.above(0), None, -1.0, 0.0, True),  # 0 itself does not agree
        (fw.between(0.9, 1.1), None, 0.95, 1.05, True),
        (fw.between(0.9, 1.1), None, 0.5, 0.8, True),
        (fw.between(0.9, 1.1), None, 0.5, 2.0, False),  # the band inside the interval
        (fw.rel(0.05), 100.0, 96.0, 104.0, True),
        (fw.rel(0.05), 100.0, 96.0, 106.0, False),
        (fw.factor(2), 6.5, 1.0, 3.0, True),
        (fw.absolute(0), 0.0, 0.0, 0.0, True),
        (fw.at_most(2), None, 1.0, 3.0, False),
    ],
)
def test_settled_means_one_verdict_over_the_whole_interval(
    tol: fw.Tolerance, paper: float | None, low: float, high: float, settled: bool
) -> None:
    assert tol.settled(low, high, paper) is settled


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_the_report_reads_old_and_new_comparison_rows(tmp_path: Path) -> None:
    """comparison.csv written before measured_ci and seeds existed is read as single runs;
    a row over seeds shows its interval and its number of seeds."""
    old = ["claim", "paper", "measured", "unit", "tolerance", "agrees"]
    path = _write_csv(tmp_path / "old" / "comparison.csv", old,
                      [["Fig 1: a", "1", "1.02", "x", "±5% of paper", "true"]])  # fmt: skip
    with path.open(newline="", encoding="utf-8") as fh:
        (row,) = [report._row(r) for r in csv.DictReader(fh)]
    assert row["measured"] == "1.02" and row["agrees"]
    many = fw.compare("Fig 1: b", paper=1.0, measured=fw.over_seeds([1.0, 1.2]), unit="x",
                      tol=fw.rel(0.5))  # fmt: skip
    fw.write_comparison([many], tmp_path / "new" / "comparison.csv")
    with (tmp_path / "new" / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        (from_csv,) = [report._row(r) for r in csv.DictReader(fh)]
    shown = report._row(many)["measured"]
    assert shown == from_csv["measured"] == f"1.1 ± {fw.fmt_value(many.ci)} (2 seeds, 95 %)"
    # `atmsim reproduce all`'s index and status lines count both kinds alike.
    (tmp_path / "old" / "reproduction.json").write_text('{"reproduction": "x", "quick": true}')
    (tmp_path / "new" / "reproduction.json").write_text('{"reproduction": "x", "quick": true}')
    from atmsim.cli import status_lines

    lines = status_lines(tmp_path, ["old", "new"])[2:]  # the table's rows, under its header
    assert "| `old` | 1 of 1 |" in lines[0] and "| `new` | 1 of 1 |" in lines[1]


def test_comparison_json_gives_each_seeds_value(tmp_path: Path) -> None:
    import json

    rows = fw.combine_seeds([_rows([10.0, 1.0]), _rows([11.0, 2.0])], [1, 7])
    fw.write_claims_json(rows, tmp_path / "c.json")
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert data[0]["by_seed"] == {"1": 10.0, "7": 11.0} and data[0]["seeds"] == "2"


def test_bars_draw_error_bars_and_reference_marks() -> None:
    fig, ax = plots.figure()
    plots.bars(ax, ["a", "b"], {"paper": [1.0, 2.0], "ours": [1.1, 1.9]},
               errors={"ours": [0.1, float("nan")]}, targets={"ours": [1.0, 2.0]},
               target_label="paper value")  # fmt: skip
    assert len(ax.containers) == 3  # two bar groups and one set of error bars
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["paper value", "paper", "ours"]
    assert len(ax.collections) == 2  # the error bars' lines and the marks


def test_an_interval_within_rounding_of_its_mean_shows_as_zero() -> None:
    """Seeds whose runs give one number, summed in another order, differ in the last bits:
    that interval is shown as 0, a real one as it is."""
    assert fw.fmt_ci(1.97e-14, 109.2) == "0"
    assert fw.fmt_ci(3.869e-05, 0.8542) == "3.869e-05"
    assert fw.fmt_ci(0.0, 0.0) == "0" and fw.fmt_ci(float("nan"), 1.0) == "nan"
    row = fw.compare("Fig 1: c", paper=1.0, measured=fw.over_seeds([109.2, 109.2 + 2e-14]),
                     unit="", tol=fw.rel(0.5))  # fmt: skip
    assert row.as_row()["measured_ci"] == "0" and row.settled
