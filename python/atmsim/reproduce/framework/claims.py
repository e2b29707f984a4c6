"""Claims as data: a paper's published numbers, the rule that decides agreement, and the
comparison rows every reproduction publishes.

A :class:`Tolerance` is fixed *before* anything is measured: a reproduction package defines
its tolerances as constants, each with the reason for its width written next to it, and
:func:`compare` only applies them. Nothing here adjusts a tolerance after seeing a
measurement, and a reproduction must never widen one to make a row agree: a row that
disagrees stays in the table, and its notes say what is known of why.

The rules (``measured`` m, the paper's value p):

- ``rel(f)``: ``|m - p| <= f * |p|`` (a relative band around the paper's number);
- ``absolute(d)``: ``|m - p| <= d`` in the row's unit (``absolute(0)`` is exact equality,
  used for the paper's exact zeros: zero cell loss under credit flow control);
- ``between(lo, hi)``: ``lo <= m <= hi``, for a band stated outright;
- ``factor(k)``: ``p / k <= m <= p * k``, for quantities the paper reads off one run of a
  different simulator and that depend on details it leaves open;
- ``above(x)`` / ``below(x)``: ``m > x`` / ``m < x`` for qualitative claims ("higher",
  "lower"), with ``x`` the threshold the claim implies (usually 0 or 1);
- ``at_least(x)`` / ``at_most(x)``: ``m >= x`` / ``m <= x``.

A NaN or missing measurement never agrees.

A row measured over several seeds (``compare(measured=over_seeds(values))``, or
:func:`combine_seeds` over one list of rows per seed) carries the mean, the half-width of its
95 % Student-t interval and the number of seeds; its rule judges the *mean*, as it would a
single run, and :attr:`Claim.settled` says whether the whole interval lies on the mean's side
of the rule's edge (the verdict would not change anywhere in the interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from atmsim.reproduce.framework.measures import CONFIDENCE, Estimate, over_seeds

__all__ = [
    "Claim",
    "Claims",
    "Published",
    "Tolerance",
    "above",
    "absolute",
    "at_least",
    "at_most",
    "below",
    "between",
    "combine_seeds",
    "compare",
    "factor",
    "fmt_ci",
    "fmt_value",
    "rel",
    "slug",
    "with_causes",
]


@dataclass(frozen=True)
class Published:
    """One number the paper publishes, with where it stands in the paper (``ref``: "Table 1,
    row 2", "Fig. 4", "section 4.1.1") and its unit. Nothing else: what atmsim measures
    against it is a :class:`Claim`."""

    value: Any
    ref: str
    unit: str = ""


@dataclass(frozen=True)
class Tolerance:
    """An agreement rule (see the module docstring); build one with :func:`rel`,
    :func:`absolute`, :func:`between`, :func:`factor`, :func:`above`, :func:`below`,
    :func:`at_least` or :func:`at_most`. Immutable: a rule is fixed before measuring."""

    kind: str
    a: float = 0.0
    b: float = 0.0

    def check(self, measured: float, paper: float | None = None) -> bool:
        m = _number(measured)
        if m is None:
            return False
        p = _number(paper)
        k = self.kind
        if k in ("rel", "abs", "factor") and p is None:
            raise ValueError(f"tolerance {self.describe()} needs a numeric paper value")
        if k == "rel":
            return abs(m - p) <= self.a * abs(p)
        if k == "abs":
            return abs(m - p) <= self.a
        if k == "factor":
            lo, hi = sorted((p / self.a, p * self.a))
            return lo <= m <= hi
        if k == "between":
            return self.a <= m <= self.b
        if k == "above":
            return m > self.a
        if k == "below":
            return m < self.a
        if k == "at_least":
            return m >= self.a
        if k == "at_most":
            return m <= self.a
        raise ValueError(f"unknown tolerance kind {k!r}")

    def band(self, paper: float | None = None) -> tuple[float, float]:
        """The values that agree, as an interval ``(lo, hi)`` (infinite on an open side; an
        edge of ``above``/``below`` itself does not agree)."""
        p = _number(paper)
        k, a, b = self.kind, self.a, self.b
        if k in ("rel", "abs", "factor") and p is None:
            raise ValueError(f"tolerance {self.describe()} needs a numeric paper value")
        if k == "rel":
            return p - a * abs(p), p + a * abs(p)
        if k == "abs":
            return p - a, p + a
        if k == "factor":
            lo, hi = sorted((p / a, p * a))
            return lo, hi
        if k == "between":
            return a, b
        if k in ("above", "at_least"):
            return a, math.inf
        if k in ("below", "at_most"):
            return -math.inf, a
        raise ValueError(f"unknown tolerance kind {k!r}")

    def settled(self, low: float, high: float, paper: float | None = None) -> bool:
        """Whether every value in ``[low, high]`` gets the same verdict: the interval lies
        wholly inside the band of agreeing values or wholly outside it."""
        if _number(low) is None or _number(high) is None:
            return False
        lo, hi = self.band(paper)
        inside = self.check(low, paper) and self.check(high, paper)
        a, b = max(low, lo), min(high, hi)
        overlaps = a <= b and self.check((a + b) / 2, paper)
        return inside or not overlaps

    def describe(self, unit: str = "") -> str:
        u = f" {unit}" if unit and unit != "%" else unit
        k = self.kind
        if k == "rel":
            return f"±{_g(self.a * 100)}% of paper"
        if k == "abs":
            return "exact" if self.a == 0 else f"±{_g(self.a)}{u}"
        if k == "factor":
            return f"within a factor of {_g(self.a)} of paper"
        if k == "between":
            return f"{_g(self.a)}-{_g(self.b)}{u}"
        if k == "above":
            return f"> {_g(self.a)}{u}"
        if k == "below":
            return f"< {_g(self.a)}{u}"
        if k == "at_least":
            return f">= {_g(self.a)}{u}"
        if k == "at_most":
            return f"<= {_g(self.a)}{u}"
        return k


def rel(fraction: float) -> Tolerance:
    """``|measured - paper| <= fraction * |paper|``."""
    return Tolerance("rel", float(fraction))


def absolute(delta: float) -> Tolerance:
    """``|measured - paper| <= delta`` (``absolute(0)``: exact)."""
    return Tolerance("abs", float(delta))


def between(lo: float, hi: float) -> Tolerance:
    """``lo <= measured <= hi``."""
    return Tolerance("between", float(lo), float(hi))


def factor(k: float) -> Tolerance:
    """``paper / k <= measured <= paper * k``."""
    if k < 1:
        raise ValueError("factor(k) needs k >= 1")
    return Tolerance("factor", float(k))


def above(x: float) -> Tolerance:
    """``measured > x``."""
    return Tolerance("above", float(x))


def below(x: float) -> Tolerance:
    """``measured < x``."""
    return Tolerance("below", float(x))


def at_least(x: float) -> Tolerance:
    """``measured >= x``."""
    return Tolerance("at_least", float(x))


def at_most(x: float) -> Tolerance:
    """``measured <= x``."""
    return Tolerance("at_most", float(x))


@dataclass
class Claim:
    """One row of the comparison with the paper.

    ``claim`` names the figure or table and states what the paper says; ``paper`` is the
    paper's number (or a short text such as ``"> AN2"`` for a qualitative claim);
    ``measured`` is ours; ``tolerance`` is the rule's text; ``note`` (not in the CSV, shown
    in the report) says where the measurement comes from. ``id`` names the row for code
    and tests (``Claims.by_id``); it defaults to a slug of ``claim``.

    Over several seeds ``measured`` is the mean of the seeds' values, ``ci`` the half-width
    of its ``level`` confidence interval, ``seeds`` their number and ``by_seed`` each seed's
    value; a single run has ``seeds`` 0 (or 1) and ``ci`` NaN. ``rule`` and ``ref`` are the
    tolerance and the number it compares with (what :func:`combine_seeds` judges the mean
    by); ``cause`` is what is known of why the row might disagree, added to the note by
    :func:`with_causes` only when it does.
    """

    claim: str
    paper: float | str
    measured: float
    unit: str
    tolerance: str
    agrees: bool
    note: str = ""
    id: str = ""
    ci: float = math.nan
    seeds: int = 0
    level: float = CONFIDENCE
    by_seed: dict[int, float] = field(default_factory=dict)
    rule: Tolerance | None = field(default=None, repr=False)
    ref: float | None = field(default=None, repr=False)
    cause: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.id:
            self.id = slug(self.claim)

    @property
    def over_seeds(self) -> bool:
        """Whether ``measured`` is a mean over two seeds or more (with an interval)."""
        return self.seeds >= 2 and _number(self.ci) is not None

    @property
    def settled(self) -> bool | None:
        """Whether the verdict holds over the whole confidence interval (see
        :meth:`Tolerance.settled`); None for a single run or a row without its rule."""
        if not self.over_seeds or self.rule is None:
            return None
        return self.rule.settled(self.measured - self.ci, self.measured + self.ci, self.ref)

    def agrees_alone(self, seed: int) -> bool:
        """The verdict ``seed``'s value alone would get from the row's rule."""
        if self.rule is None or seed not in self.by_seed:
            raise ValueError(f"row {self.id!r} has no rule or no value of seed {seed}")
        return self.rule.check(self.by_seed[seed], self.ref)

    def as_row(self) -> dict[str, str]:
        """The row as comparison.csv writes it: ``measured_ci`` and ``seeds`` are empty for a
        single run."""
        many = self.over_seeds
        return {
            "claim": self.claim,
            "paper": fmt_value(self.paper),
            "measured": fmt_value(self.measured),
            "measured_ci": fmt_ci(self.ci, self.measured) if many else "",
            "seeds": str(self.seeds) if many else "",
            "unit": self.unit,
            "tolerance": self.tolerance,
            "agrees": "true" if self.agrees else "false",
        }


def compare(
    claim: str,
    *,
    paper: float | str,
    measured: float | Estimate,
    unit: str,
    tol: Tolerance,
    paper_value: float | None = None,
    tolerance_text: str | None = None,
    note: str = "",
    id: str = "",
    cause: str = "",
) -> Claim:
    """A :class:`Claim` with ``agrees`` decided by ``tol``.

    ``paper`` is what the table shows; ``paper_value`` is the number the rule compares with
    when that differs from ``paper`` (e.g. ``paper="0.63"`` shown, ``paper_value=63`` in %),
    and defaults to ``paper`` when it is a number. ``tolerance_text`` replaces the rule's
    own description (keep it faithful to the rule: it is what the CSV reports).
    ``measured`` may be an :class:`Estimate` over seeds (:func:`over_seeds`): the rule then
    judges its mean, and the row carries its interval and number of seeds. ``cause``: see
    :func:`with_causes`.
    """
    ref = paper_value if paper_value is not None else _number(paper)
    ci, n, level = math.nan, 0, CONFIDENCE
    if isinstance(measured, Estimate):
        ci, n, level = measured.ci, measured.n, measured.level
        measured = measured.mean
    agrees = tol.check(measured, ref)
    return Claim(
        claim=claim,
        paper=paper,
        measured=float(measured) if _number(measured) is not None else math.nan,
        unit=unit,
        tolerance=tolerance_text or tol.describe(unit),
        agrees=bool(agrees),
        note=note,
        id=id,
        ci=ci,
        seeds=n,
        level=level,
        rule=tol,
        ref=ref,
        cause=cause,
    )


def combine_seeds(
    per_seed: Sequence[Sequence[Claim]], seeds: Sequence[int], level: float = CONFIDENCE
) -> list[Claim]:
    """One row per claim from the same rows computed on each seed's runs (``per_seed[k]``
    from seed ``seeds[k]``, the same ids in the same order): ``measured`` is the mean of the
    seeds' values (NaNs left out) with its ``level`` interval, judged by the row's own rule
    as a single run would be. The claim, paper value, tolerance and cause are the first
    seed's; so is the note, marked as that seed's when the seeds' notes differ (it quotes
    values of that seed's runs)."""
    if len(per_seed) != len(seeds) or not per_seed:
        raise ValueError(f"{len(per_seed)} lists of rows for {len(seeds)} seed(s)")
    ids = [r.id for r in per_seed[0]]
    for seed, rows in zip(seeds, per_seed, strict=True):
        if [r.id for r in rows] != ids:
            raise ValueError(f"the rows of seed {seed} are not those of seed {seeds[0]}")
    out = []
    for i, first in enumerate(per_seed[0]):
        if first.rule is None:
            raise ValueError(f"row {first.id!r} has no rule to judge its mean by (use compare)")
        values = {int(s): float(rows[i].measured) for s, rows in zip(seeds, per_seed, strict=True)}
        est = over_seeds(values.values(), level)
        note = first.note
        if len({rows[i].note for rows in per_seed}) > 1:  # it quotes the first seed's values
            note = f"Seed {seeds[0]}: {note}"
        out.append(
            Claim(
                claim=first.claim,
                paper=first.paper,
                measured=est.mean,
                unit=first.unit,
                tolerance=first.tolerance,
                agrees=bool(first.rule.check(est.mean, first.ref)),
                note=note,
                id=first.id,
                ci=est.ci,
                seeds=est.n,
                level=level,
                by_seed=values,
                rule=first.rule,
                ref=first.ref,
                cause=first.cause,
            )
        )
    return out


def with_causes(rows: Sequence[Claim]) -> list[Claim]:
    """``rows`` with each disagreeing row's ``cause`` added to its note ("Cause: ...")."""
    for row in rows:
        if not row.agrees and row.cause:
            row.note = (row.note + " " if row.note else "") + "Cause: " + row.cause
    return list(rows)


def slug(text: str) -> str:
    """A lower-case identifier made of ``text``'s letters and digits, runs of anything else
    becoming one ``-``."""
    out, dash = [], False
    for ch in text.lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-")


class Claims(list):
    """The comparison rows of one reproduction, in order, with lookups by id."""

    def by_id(self, id: str) -> Claim:
        for c in self:
            if c.id == id:
                return c
        raise KeyError(f"no claim {id!r}; ids: {', '.join(c.id for c in self[:8])}, ...")

    @property
    def agreeing(self) -> int:
        return sum(c.agrees for c in self)


def _number(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    if isinstance(x, str):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _g(x: float) -> str:
    return f"{x:.6g}"


def fmt_value(x: Any) -> str:
    """A value as comparison.csv shows it (4 significant digits; whole numbers above 10^4)."""
    if isinstance(x, str):
        return x
    v = _number(x)
    if v is None:
        return "nan"
    if v == 0:
        return "0"
    return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"


#: An interval narrower than this fraction of its mean's magnitude is floating-point rounding
#: of equal values (seeds whose runs give the same number through sums taken in another
#: order), and is shown as 0.
ROUNDING = 1e-9


def fmt_ci(ci: float, mean: float) -> str:
    """A half-width as comparison.csv shows it: :func:`fmt_value`, and "0" for an interval
    within floating-point rounding of its mean (:data:`ROUNDING`)."""
    c, m = _number(ci), _number(mean)
    if c is not None and m is not None and abs(c) <= ROUNDING * abs(m):
        return "0"
    return fmt_value(ci)
