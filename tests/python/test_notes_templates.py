"""Every reproduction's notes are a template over measured values, and say nothing the runs
did not show.

- The lint: no number is written into a template's result text (outside placeholders,
  method sections and citations such as "Table 2").
- The perturbation test: each notes template is rendered with the values of a quick run
  (``notes-values.json``, what the reproduction rendered) and again with every number in them
  changed and every measured yes/no flipped; a result sentence that states a number and
  reads the same both times is fixed text, and fails. Sentences whose words do not depend on
  any value are method, and live in the method sections the lint exempts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from atmsim.reproduce import available
from atmsim.reproduce.framework import notes

#: Reproductions whose quick run plain pytest makes anyway (the others are marked
#: ``reproduction``: their quick runs take from 15 s to minutes).
PLAIN = {"fang1994"}


def _package(name: str) -> str:
    return f"atmsim.reproduce.{name}"


def _params() -> list[Any]:
    return [
        pytest.param(n, marks=() if n in PLAIN else pytest.mark.reproduction) for n in available()
    ]


@pytest.mark.parametrize("name", available())
def test_no_number_is_written_into_result_text(name: str) -> None:
    problems = notes.lint(notes.template_source(_package(name)))
    assert not problems, "\n".join(problems)


def test_the_lint_finds_a_written_number_and_passes_citations_and_method() -> None:
    source = (
        "{# method #}\nLinks are 155.52 Mb/s.\n{# end method #}\n"
        "Table 2 and Fig. 4.7 (1996): ours {{ x|fmt('.1f') }} Mb/s against the paper's 73.\n"
        "`fang1994-an2-n3` is AAL5 over OC-3.\n"
    )
    problems = notes.lint(source)
    assert len(problems) == 1 and "'73'" in problems[0], problems


_SHIFT = str.maketrans("0123456789", "1234567890")


def perturbed(values: Any) -> Any:
    """Every number changed (so each printed one differs), the digits in every text moved
    (a claim's name, a run length) and every yes/no flipped."""
    if isinstance(values, dict):
        return {k: perturbed(v) for k, v in values.items()}
    if isinstance(values, list):
        return [perturbed(v) for v in values]
    if isinstance(values, bool):
        return not values
    if isinstance(values, int):
        return values * 3 + 7
    if isinstance(values, float):
        return values if math.isnan(values) else values * 1.7 + 0.37
    if isinstance(values, str):
        return values.translate(_SHIFT)
    return values


def _has_digit(s: str) -> bool:
    """Whether ``s`` states a number (citations such as "Fig. 7" left out)."""
    return notes.NUMBER.search(notes.CITATION.sub(" ", s)) is not None


@pytest.mark.parametrize("name", _params())
def test_every_result_sentence_moves_with_its_measure(name: str, quick_reproductions) -> None:
    out, _ = quick_reproductions(name)
    values = json.loads((out / notes.NOTES_VALUES).read_text(encoding="utf-8"))
    source = notes.template_source(_package(name))
    base = notes.result_text(source, values)
    moved = set(notes.result_text(source, {**perturbed(values), "quick": values["quick"]}))
    still = [s for s in base if s in moved and _has_digit(s)]
    assert not still, "fixed result sentences:\n" + "\n".join(still[:10])


def test_rendered_notes_are_the_template_over_the_values(quick_reproductions) -> None:
    out, _ = quick_reproductions("fang1994")
    values = json.loads((out / notes.NOTES_VALUES).read_text(encoding="utf-8"))
    rendered = notes.render(_package("fang1994"), values)
    assert rendered == (out / "notes.md").read_text(encoding="utf-8")


def test_notes_values_must_be_plain_data() -> None:
    with pytest.raises(TypeError, match="plain data"):
        notes.plain({"x": Path("a")})
