"""The Cheon & Panwar sensitivity study's rules, on hand-made scores (no runs): a reading is
named as the cause only if it holds every criterion with the paper's seeds and again on the
held-out seeds, and the notes and the alternative's verdict say which case applies."""

from __future__ import annotations

from atmsim.reproduce import _cheon1998_study as study
from atmsim.reproduce import cheon1998


def _score(variant: str, failing: tuple[str, ...] = ()) -> study.Score:
    return study.Score(
        variant, {c: (c not in failing, f"paper | ours for {c}") for c in study.CRITERIA}
    )


def test_the_seed_sets_are_the_papers_five_and_five_others() -> None:
    assert study.SEEDS_FULL == (1, 2, 3, 4, 5)
    assert not set(study.SEEDS_HELD_OUT) & set(study.SEEDS_FULL)
    assert len(study.SEEDS_HELD_OUT) == 5
    assert study.held_out(quick=True) == ()
    assert set(study.held_out(quick=False)) <= set(study.VARIANTS)
    assert cheon1998.ALTERNATIVE in study.VARIANTS


def test_a_reading_is_named_only_if_it_holds_on_both_seed_sets() -> None:
    a, b = "bsd_reno", "reno_eighth_periodic"
    scores = [_score("main", ("totals",)), _score(a), _score(b)]
    held = [_score(a), _score(b, ("threshold insensitivity",))]
    assert study.named(scores, held) == [a]
    assert study.named(scores, []) == []
    text = study.notes(scores, quick=False, held=held)
    assert f"Named as the cause (every criterion on both seed sets): {a}." in text
    assert f"{b} holds on totals" in text and "fails on threshold insensitivity" in text
    text = study.notes(scores, quick=False, held=[_score(a, ("totals",))])
    assert "none is named as the cause" in text


def test_the_alternatives_verdict_follows_the_held_out_seeds() -> None:
    alt = cheon1998.ALTERNATIVE
    scores = [_score(alt)]
    named = cheon1998.reading_verdict(scores, [_score(alt)], [_score(alt)])
    assert "named as the cause" in named and "not named" not in named
    missed = cheon1998.reading_verdict(
        scores, [_score(alt, ("threshold insensitivity",))], [_score(alt)]
    )
    assert "not named as the cause" in missed
    assert "Over all ten seeds together it holds on all five" in missed
    failing = cheon1998.reading_verdict([_score(alt, ("totals",))])
    assert failing.startswith("It is not named as the cause")
