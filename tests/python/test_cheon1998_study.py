"""The Cheon & Panwar sensitivity study's rules, on hand-made scores (no runs): a reading is
named as the cause only if it holds every criterion with the paper's seeds and again on every
held-out seed set, and the notes values (the study's section, the alternative's verdict and
the further seed sets) say which case applies."""

from __future__ import annotations

from atmsim.reproduce import cheon1998
from atmsim.reproduce.cheon1998 import notes, scoring, study
from atmsim.reproduce.cheon1998.published import TABLES


def _score(
    variant: str, failing: tuple[str, ...] = (), seeds: tuple[int, ...] = ()
) -> scoring.Score:
    return scoring.Score(
        variant,
        {
            c: scoring.Criterion(
                c not in failing, f"paper | ours for {c}", scoring.EXAMPLE_EVIDENCE[c]
            )
            for c in study.CRITERIA
        },
        seeds,
    )


def _held(variant: str, failing: dict[int, tuple[str, ...]] | None = None) -> list[scoring.Score]:
    """``variant`` on every held-out set, failing on ``failing[i]`` for the i-th set."""
    f = failing or {}
    return [_score(variant, f.get(i, ()), s) for i, s in enumerate(study.SEEDS_HELD_OUT)]


def _further(variant: str, failing: dict[int, tuple[str, ...]]) -> list[scoring.Score]:
    """``variant`` on every further set, failing on ``failing[i]`` for the i-th set."""
    return [_score(variant, failing.get(i, ()), s) for i, s in enumerate(study.SEEDS_FURTHER)]


def _fails(criteria: list[dict]) -> list[str]:
    return [c["name"] for c in criteria if not c["ok"]]


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
    # The atlas takes the readings from the package.
    assert cheon1998.VARIANTS is study.VARIANTS


def test_a_reading_is_named_only_if_it_holds_on_every_seed_set() -> None:
    a, b = "bsd_reno", "reno_eighth_periodic"
    scores = [_score("main", ("totals",)), _score(a), _score(b)]
    held = _held(a) + _held(b, {0: ("threshold insensitivity",)})
    assert scoring.named(scores, held) == [a]
    assert scoring.named(scores, []) == []
    # Holding on one held-out set is not enough, whichever set fails.
    assert scoring.named(scores, _held(a, {len(study.SEEDS_HELD_OUT) - 1: ("totals",)})) == []
    assert scoring.named(scores, _held(a)[:1]) == []
    values = notes.study_values(scoring.Scored(scores, held), quick=False)
    assert values["named"] == [a]
    assert values["explaining"] == [a, b]
    hb = [h for h in values["held"] if h["variant"] == b]
    assert [h["explains"] for h in hb] == [False, True]
    assert _fails(hb[0]["fails"]) == ["threshold insensitivity"]
    assert "threshold insensitivity" not in hb[0]["held"]
    main = values["variants"][0]
    assert main["name"] == "main" and _fails(main["criteria"]) == ["totals"]
    values = notes.study_values(scoring.Scored(scores, _held(a, {0: ("totals",)})), quick=False)
    assert values["named"] == []


def test_with_no_variant_explaining_the_closest_are_those_holding_most_criteria() -> None:
    scores = [_score("main", ("totals", "ESPD gain")), _score("bsd_reno", ("synchronisation",))]
    values = notes.study_values(scoring.Scored(scores), quick=True)
    assert values["explaining"] == [] and values["named"] == []
    assert values["most"] == len(study.CRITERIA) - 1
    assert [b["variant"] for b in values["best"]] == ["bsd_reno"]
    assert _fails(values["best"][0]["fails"]) == ["synchronisation"]
    assert values["closer"] == ["bsd_reno"]


def test_the_threshold_criterion_is_the_papers_best_minus_worst_over_70_to_95() -> None:
    assert study.THRESHOLD_COLUMNS == (0, 1, 2, 3)
    assert {(n, c) for n in (1, 2) for c in study.THRESHOLD_COLUMNS} <= set(study.POINTS)
    for n, spread in study.PAPER_THRESHOLD_SPREAD.items():
        t = TABLES[n - 1]
        assert [round(t.columns[c] * 100) for c in study.THRESHOLD_COLUMNS] == [95, 90, 80, 70]
        vals = [t.sum_pct[c] for c in study.THRESHOLD_COLUMNS]
        # The text's 1 and 3 points are the tables' own best minus worst over those columns.
        assert max(vals) - min(vals) == spread


def test_the_alternatives_verdict_follows_the_held_out_seeds() -> None:
    alt = cheon1998.ALTERNATIVE
    scores = [_score(alt)]
    pooled = [_score(alt, (), tuple(range(1, 16)))]
    named = notes.verdict_values(scoring.Scored(scores, _held(alt), pooled))
    assert named["kind"] == "named"
    missed = notes.verdict_values(
        scoring.Scored(scores, _held(alt, {1: ("threshold insensitivity",)}), pooled)
    )
    assert missed["kind"] == "not_named"
    assert [(h["seeds"], _fails(h["fails"])) for h in missed["misses"]] == [
        ("11-15", ["threshold insensitivity"])
    ]
    assert missed["pooled"]["seeds"] == 15 and missed["pooled"]["explains"]
    failing = notes.verdict_values(scoring.Scored([_score(alt, ("totals",))]))
    assert failing == {"kind": "fails", "failed": ["totals"]}
    assert notes.verdict_values(scoring.Scored([_score(alt)]))["kind"] == "unheld"
    assert notes.verdict_values(None)["kind"] == "unscored"


def test_the_further_seed_sets_say_how_often_a_reading_holds_and_do_not_name_it() -> None:
    a = "bsd_reno"
    # Holds on every criterion in 2 of 10 sets; totals fail in 6, synchronisation in 2.
    failing = {i: ("totals",) for i in range(6)}
    failing |= {6: ("synchronisation",), 7: ("synchronisation",)}
    further = _further(a, failing)
    pooled = _score(a, ("totals",), tuple(range(16, 66)))
    f = notes.further_values(a, further, pooled)
    assert (f["sets"], f["held"], f["first"], f["last"]) == (10, 2, 16, 65)
    per = {c["name"]: c["held"] for c in f["per"]}
    assert per["totals"] == 4 and per["threshold insensitivity"] == 10
    assert per["synchronisation"] == 8
    assert f["pooled"]["seeds"] == 50 and _fails(f["pooled"]["criteria"]) == ["totals"]
    assert f["atypical"] and f["missed"] == ["totals"]
    assert notes.further_values("reno_eighth_periodic", further, None) is None
    good = notes.further_values(a, _further(a, {0: ("totals",)}), None)
    assert good["held"] == 9 and not good["atypical"]
    # The naming rule is the held-out sets' alone: the further sets change neither verdict.
    scores = [_score(a)]
    values = notes.study_values(scoring.Scored(scores, _held(a), [], further, [pooled]), False)
    assert values["named"] == [a]
    assert [x["held"] for x in values["further"]] == [2]
    verdict = notes.verdict_values(
        scoring.Scored(scores, _held(a, {1: ("totals",)}), [], further, [pooled])
    )
    assert verdict["kind"] == "not_named" and verdict["further"]["held"] == 2


def test_model_facts_give_the_papers_cells_per_packet_and_maxima() -> None:
    """The paper counts 12 cells per 500 B packet and 33 per 1,500 B one, and an OC-3 carries
    76,415 and 27,787 of them in 2.5 s (the footnote of every table)."""
    from atmsim.reproduce.cheon1998.measure import max_packets, model_facts
    from atmsim.reproduce.cheon1998.published import PAPER_MAX

    assert model_facts(500)["cells_per_packet"] == 12
    assert model_facts(1500)["cells_per_packet"] == 33
    for packet, published in PAPER_MAX.items():
        assert max_packets(packet, 2.5) == published.value


def test_the_1990s_readings_are_study_variants_of_the_four_options() -> None:
    options = {
        "delay_dupacks": {"tcp.delay_duplicate_acks": True},
        "no_inflation": {"tcp.fast_recovery_inflation": False},
        "rto_oldest": {"tcp.rto_restart": "oldest_segment"},
        "ip_exponential": {"host.ip_service": "exponential"},
    }
    for name, overrides in options.items():
        assert study.VARIANTS[name][1] == overrides and study.VARIANTS[name][2] == {}
    four = {k: v for o in options.values() for k, v in o.items()}
    assert study.VARIANTS["stack_1990s"][1] == four
    literal = study.VARIANTS["stack_1990s+rfc793_reno"][1]
    assert literal == {**four, **study.VARIANTS["rfc793_reno"][1]}
    for name in study.READINGS_1990S:
        overrides = study.VARIANTS[name][1]
        # Every combination is made of the four readings (and rfc793_reno's two).
        assert set(overrides) <= set(four) | set(study.VARIANTS["rfc793_reno"][1])
        assert all(k in study.VARIANTS[name][0] for k in overrides), name
    # The full study runs all of them on the paper's five seeds.
    assert set(study.READINGS_1990S) <= set(study.variants(quick=False))


def test_the_readings_values_give_every_criterion_and_the_loss_responses() -> None:
    losses = {
        "epd_timeouts": 21.0,
        "epd_fast_retransmits": 74.0,
        "espd_timeouts": 5.0,
        "espd_fast_retransmits": 40.0,
    }
    main = _score("main", ("totals",))
    main.losses = losses
    a = _score("delay_dupacks", ("totals", "ESPD gain"))
    a.losses = {**losses, "epd_timeouts": 60.0}
    b = _score("stack_1990s")
    b.losses = losses
    values = notes.study_values(scoring.Scored([main, a, b], _held("stack_1990s")), quick=False)
    r = values["readings"]
    assert [x["name"] for x in r] == ["delay_dupacks", "stack_1990s"]
    assert r[0]["held"] == len(study.CRITERIA) - 2 and not r[0]["explains"]
    assert _fails(r[0]["criteria"]) == ["totals", "ESPD gain"]
    assert r[0]["losses"]["epd_timeouts"] == 60.0
    assert r[0]["why"] == study.READINGS_1990S["delay_dupacks"]
    # Each total's change from the main model's (the same example numbers here: none).
    assert r[0]["totals_change"] == [0.0] * 4
    assert r[0]["base"] is None and r[0]["base_change"] is None
    # A combination with another variant is also set against that variant, when it ran.
    combo = _score("stack_1990s+rfc793_reno")
    base = _score("rfc793_reno")
    base.criteria["totals"] = scoring.Criterion(
        False, "", {"pairs": [[77, 90.0], [93, 90.0], [92, 90.0], [96, 90.0]]}
    )
    for x in (combo, base):
        x.losses = losses
    rc = notes.study_values(scoring.Scored([main, base, combo]), quick=False)["readings"]
    assert rc[0]["base"] == "rfc793_reno"
    want = [o - 90.0 for _, o in scoring.EXAMPLE_EVIDENCE["totals"]["pairs"]]
    assert rc[0]["base_change"] == want
    rc = notes.study_values(scoring.Scored([main, combo]), quick=False)["readings"]
    assert rc[0]["base"] is None and rc[0]["base_change"] is None
    assert r[1]["explains"] and r[1]["held_out_run"] and r[1]["named"]
    assert values["main_losses"] == losses
    # Holding on the paper's seeds alone does not name a reading.
    values = notes.study_values(scoring.Scored([main, a, b]), quick=False)
    assert values["readings"][1]["explains"] and not values["readings"][1]["named"]
    assert not values["readings"][1]["held_out_run"]
