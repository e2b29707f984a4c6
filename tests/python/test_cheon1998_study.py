"""The Cheon & Panwar sensitivity study's rules, on hand-made scores (no runs): a reading is
named as the cause only if it holds every criterion with the paper's seeds and again on every
held-out seed set, and the notes and the alternative's verdict say which case applies."""

from __future__ import annotations

from atmsim.reproduce import _cheon1998_study as study
from atmsim.reproduce import cheon1998


def _score(variant: str, failing: tuple[str, ...] = (), seeds: tuple[int, ...] = ()) -> study.Score:
    return study.Score(
        variant, {c: (c not in failing, f"paper | ours for {c}") for c in study.CRITERIA}, seeds
    )


def _held(variant: str, failing: dict[int, tuple[str, ...]] | None = None) -> list[study.Score]:
    """``variant`` on every held-out set, failing on ``failing[i]`` for the i-th set."""
    f = failing or {}
    return [_score(variant, f.get(i, ()), s) for i, s in enumerate(study.SEEDS_HELD_OUT)]


def test_the_seed_sets_are_the_papers_five_and_five_others() -> None:
    assert study.SEEDS_FULL == (1, 2, 3, 4, 5)
    seen = set(study.SEEDS_FULL)
    for seed_set in study.SEEDS_HELD_OUT:
        assert len(seed_set) == 5 and not set(seed_set) & seen
        seen |= set(seed_set)
    for seed_set in study.SEEDS_FURTHER:  # ten more sets, none seen before
        assert len(seed_set) == 5 and not set(seed_set) & seen
        seen |= set(seed_set)
    assert len(study.SEEDS_FURTHER) == 10
    assert study.held_out(quick=True) == ()
    assert set(study.held_out(quick=False)) <= set(study.VARIANTS)
    assert cheon1998.ALTERNATIVE in study.VARIANTS


def test_a_reading_is_named_only_if_it_holds_on_every_seed_set() -> None:
    a, b = "bsd_reno", "reno_eighth_periodic"
    scores = [_score("main", ("totals",)), _score(a), _score(b)]
    held = _held(a) + _held(b, {0: ("threshold insensitivity",)})
    assert study.named(scores, held) == [a]
    assert study.named(scores, []) == []
    # Holding on one held-out set is not enough, whichever set fails.
    assert study.named(scores, _held(a, {len(study.SEEDS_HELD_OUT) - 1: ("totals",)})) == []
    assert study.named(scores, _held(a)[:1]) == []
    text = study.notes(study.Scored(scores, held), quick=False)
    assert f"Named as the cause (every criterion on every seed set): {a}." in text
    assert f"{b} holds on totals" in text and "fails on threshold insensitivity" in text
    text = study.notes(study.Scored(scores, _held(a, {0: ("totals",)})), quick=False)
    assert "none is named as the cause" in text


def test_the_threshold_criterion_is_the_papers_best_minus_worst_over_70_to_95() -> None:
    assert study.THRESHOLD_COLUMNS == (0, 1, 2, 3)
    assert {(n, c) for n in (1, 2) for c in study.THRESHOLD_COLUMNS} <= set(study.POINTS)
    for n, spread in study.PAPER_THRESHOLD_SPREAD.items():
        t = cheon1998.TABLES[n - 1]
        assert [round(t.columns[c] * 100) for c in study.THRESHOLD_COLUMNS] == [95, 90, 80, 70]
        vals = [t.sum_pct[c] for c in study.THRESHOLD_COLUMNS]
        # The text's 1 and 3 points are the tables' own best minus worst over those columns.
        assert max(vals) - min(vals) == spread


def test_the_alternatives_verdict_follows_the_held_out_seeds() -> None:
    alt = cheon1998.ALTERNATIVE
    scores = [_score(alt)]
    pooled = [_score(alt, (), tuple(range(1, 16)))]
    named = cheon1998.reading_verdict(study.Scored(scores, _held(alt), pooled))
    assert "named as the cause" in named and "not named" not in named
    missed = cheon1998.reading_verdict(
        study.Scored(scores, _held(alt, {1: ("threshold insensitivity",)}), pooled)
    )
    assert "not named as the cause" in missed
    assert "with seeds 11-15 it fails on threshold insensitivity" in missed
    assert "Over all 15 seeds together it holds on all five" in missed
    failing = cheon1998.reading_verdict(study.Scored([_score(alt, ("totals",))]))
    assert failing.startswith("It is not named as the cause")


def _further(variant: str, failing: dict[int, tuple[str, ...]]) -> list[study.Score]:
    """``variant`` on every further set, failing on ``failing[i]`` for the i-th set."""
    return [_score(variant, failing.get(i, ()), s) for i, s in enumerate(study.SEEDS_FURTHER)]


def test_the_further_seed_sets_say_how_often_a_reading_holds_and_do_not_name_it() -> None:
    a = "bsd_reno"
    # Holds on every criterion in 2 of 10 sets; totals fail in 6, synchronisation in 2.
    failing = {i: ("totals",) for i in range(6)}
    failing |= {6: ("synchronisation",), 7: ("synchronisation",)}
    further = _further(a, failing)
    pooled = _score(a, ("totals",), tuple(range(16, 66)))
    text = study.further_text(a, further, pooled)
    assert "On 10 further sets of five seeds (16-65)" in text
    assert f"{a} holds all five criteria in 2 of 10" in text
    assert "totals in 4, threshold insensitivity in 10" in text and "synchronisation in 8" in text
    assert "over those 50 seeds together: totals fails" in text
    assert "not typical of it: on most sets of five it misses the paper on totals." in text
    assert study.further_text("reno_eighth_periodic", further) == ""
    good = study.further_text(a, _further(a, {0: ("totals",)}))
    assert "in 9 of 10" in good and "not typical" not in good
    # The naming rule is the held-out sets' alone: the further sets change neither verdict.
    scores = [_score(a)]
    text = study.notes(study.Scored(scores, _held(a), [], further, [pooled]), quick=False)
    assert f"Named as the cause (every criterion on every seed set): {a}." in text
    assert "in 2 of 10" in text
    verdict = cheon1998.reading_verdict(
        study.Scored(scores, _held(a, {1: ("totals",)}), [], further, [pooled])
    )
    assert "not named as the cause" in verdict and "in 2 of 10" in verdict
