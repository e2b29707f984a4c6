"""Replication statistics of sweeps: the Student-t interval in aggregate.parquet, seeds run
until the interval is narrow enough, and a warning when seeds change nothing."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from atmsim import ScenarioWarning
from atmsim.sweep import SweepError, parse_spec, run_sweep, write_sweep_report
from atmsim.sweep.stats import Until, half_width, seeds_wanted
from htmlpage import meta, parse_file


def test_the_half_width_is_students_t() -> None:
    # 1..5: mean 3, s = sqrt(2.5) = 1.58114, t(0.975, 4) = 2.77645: 2.77645 x 1.58114 / sqrt(5).
    assert half_width([1, 2, 3, 4, 5], 0.95) == pytest.approx(1.96324, rel=1e-5)
    # t(0.95, 4) = 2.1318 at the 90% level.
    assert half_width([1, 2, 3, 4, 5], 0.90) == pytest.approx(2.13185 * 1.58114 / 5**0.5, rel=1e-4)
    assert math.isnan(half_width([3.0], 0.95)) and math.isnan(half_width([], 0.95))


def test_the_quantiles_are_scipy_stats_own_to_the_bit() -> None:
    """half_width and the seed-count guess take scipy.special's quantile functions (to spare
    importing scipy.stats); they are the very ones scipy.stats.t and .norm evaluate."""
    from scipy.stats import norm, t

    from atmsim.sweep.stats import _normal_quantile

    x = np.array([1.0, 2.5, 2.0, 4.0, 7.0, 3.0, 3.5, 1.5, 9.0, 4.0])
    for n in range(2, len(x) + 1):
        for level in (0.8, 0.9, 0.95, 0.99):
            q = 1 - (1 - level) / 2
            expected = float(t.ppf(q, n - 1) * x[:n].std(ddof=1) / math.sqrt(n))
            assert half_width(x[:n], level) == expected
            assert _normal_quantile(q) == float(norm.ppf(q))


def test_seeds_wanted_stops_at_the_precision_or_the_maximum() -> None:
    until = Until(relative=0.05, first=3, max=10)
    assert seeds_wanted([100.0, 100.5, 99.5], until, 0.95) == 3  # 100 ± 1.24: within 5%
    wide = seeds_wanted([100.0, 140.0, 60.0], until, 0.95)
    assert 3 < wide <= 10  # 100 ± 99: more seeds, at most the maximum
    assert seeds_wanted([100.0, 140.0, 60.0] * 4, Until(0.05, first=3, max=12), 0.95) == 12
    assert seeds_wanted([0.0, 0.0, 0.0], until, 0.95) == 3  # no spread at zero: precise


@pytest.mark.parametrize(
    ("seeds", "needle"),
    [
        ('{ until = "5" }', "seeds.until"),
        ('{ until = "150%" }', "seeds.until"),
        ('{ until = "5%", of = "events" }', "seeds.of"),
        ('{ until = "5%", first = 1 }', "seeds.first"),
        ('{ until = "5%", first = 5, max = 4 }', "seeds.max"),
        ('{ until = "5%", every = 2 }', "seeds.every"),
    ],
)
def test_bad_until_settings_are_refused_with_the_field(seeds: str, needle: str) -> None:
    with pytest.raises(SweepError, match=needle):
        parse_spec(f'scenario = "fang1994-an2"\nseeds = {seeds}\n', "s.toml")


def test_a_bad_confidence_is_refused() -> None:
    with pytest.raises(SweepError, match="confidence"):
        parse_spec('scenario = "fang1994-an2"\nconfidence = 95\n', "s.toml")


#: TCPs beside an ON-OFF source with exponential periods: each seed draws other periods and
#: the TCPs' goodput over 0.5 s varies by tens of Mb/s from seed to seed.
_SOURCE = '{ kind = "on_off", period = "20 ms", duty_cycle = 0.5, durations = "exponential" }'
NOISY = f"""
name = "noisy"
scenario = "vbr-priority-5tcp"
seeds = {{ until = "10%", of = "totals.goodput_mbps", first = 3, max = 12 }}
[set]
"run.duration" = "0.5 s"
"run.warmup" = "0 s"
"connection.vbr.source" = {_SOURCE}
[grid]
"connection.vbr.source.duty_cycle" = [0.3, 0.5]
"""


def test_until_runs_seeds_until_the_interval_is_narrow_or_the_maximum(tmp_path: Path) -> None:
    path = tmp_path / "noisy.toml"
    path.write_text(NOISY, encoding="utf-8")
    res = run_sweep(path, tmp_path / "out", workers=2, progress=False)
    agg = pd.read_parquet(tmp_path / "out" / "aggregate.parquet")
    col = "totals.goodput_mbps"
    for _, row in agg.iterrows():
        n, mean, hw = row["runs"], row[f"{col}.mean"], row[f"{col}.ci"]
        assert 3 <= n <= 12
        assert n == 12 or hw <= 0.10 * abs(mean), (n, mean, hw)
        seeds = sorted(res.results[res.results["point"] == row["point"]]["seed"])
        assert seeds == list(range(1, n + 1))
    assert (agg["runs"] > 3).any()  # the spread needed more than the first seeds somewhere
    assert res.ran == len(res.results)
    # The report's figure and table show the intervals, and its run table the seeds' rule.
    page = parse_file(write_sweep_report(tmp_path / "out"))
    assert meta(page)["seeds"].startswith("until")
    # The same sweep again: the same seeds, every run from the cache, the same tables.
    again = run_sweep(path, tmp_path / "out", workers=1, progress=False)
    assert again.ran == 0
    pd.testing.assert_frame_equal(again.aggregate, res.aggregate)


def test_seeds_that_change_nothing_are_warned_of(tmp_path: Path) -> None:
    path = tmp_path / "same.toml"
    path.write_text(
        'scenario = "goyal1998-fig3"\nseeds = [1, 2]\n'
        '[set]\n"run.duration" = "20 ms"\n"run.warmup" = "5 ms"\n',
        encoding="utf-8",
    )
    with pytest.warns(ScenarioWarning, match="identical runs"):
        res = run_sweep(path, tmp_path / "out", workers=1, progress=False)
    assert res.aggregate["distinct"].tolist() == [1]
    assert res.aggregate["totals.goodput_mbps.ci"].tolist() == [0.0]
