"""The sweep file: a base scenario, fixed overrides, a grid of overrides and the seeds.

::

    # examples/sweep-fang-buffers.toml
    name = "fang-buffers"
    scenario = "fang1994-cell-drop"        # built-in name, or a path relative to this file
    seeds = [1, 2]

    [set]                                  # overrides every run gets
    "run.duration" = "1 s"

    [grid]                                 # the cartesian product of these lists
    "switch.*.vc_buffer" = ["256 cells", "1368 cells"]
    "tcp.mss" = ["8192 B", "4096 B"]

Keys of ``[set]`` and ``[grid]`` are the key paths of ``atmsim run --set``; values are
written as they would be after ``--set KEY=`` (strings such as ``"2 s"``, numbers, booleans,
inline tables). Every key is checked: an unknown one is refused with the file, its line and
what is allowed. :func:`check_spec` then checks the sweep against the scenario schema: the
base scenario and ``[set]`` must validate, and at least one grid point.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.sweep.stats import Until

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["GridPoint", "SweepError", "SweepSpec", "check_spec", "load_spec", "parse_spec"]

TOP_KEYS = {
    "name": "a short name for the sweep (text)",
    "description": "free text",
    "scenario": "the base scenario: a built-in name or a path to a .toml file",
    "seeds": "a list of seeds (integers from 0 to 2^63 - 1), e.g. [1, 2, 3], or seeds run "
    'until a precision: { until = "5%", of = "totals.goodput_mbps", first = 3, max = 30 }',
    "confidence": "the level of the aggregate's confidence intervals, between 0 and 1 "
    "(default 0.95)",
    "set": "a table of overrides every run gets: KEY = VALUE",
    "grid": "a table of overrides to sweep: KEY = [VALUE, VALUE, ...]",
}


class SweepError(ValueError):
    """A sweep file that cannot be used; the message names the file, the field and what is
    allowed."""


@dataclass(frozen=True)
class GridPoint:
    """One combination of the grid's values (``index`` in grid order)."""

    index: int
    values: tuple[tuple[str, Any], ...]

    def overrides(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass
class SweepSpec:
    """A parsed sweep file."""

    scenario: str
    #: The seeds of every grid point; with ``until``, the first ones (1 .. until.first).
    seeds: list[int]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    name: str = "sweep"
    description: str = ""
    source: str = "<sweep>"
    text: str = field(default="", repr=False, compare=False)  # the file, for line numbers
    #: Seeds run until the confidence interval is narrow enough (None: ``seeds`` as listed).
    until: Until | None = None
    #: The level of the aggregate's confidence intervals.
    confidence: float = 0.95

    def points(self) -> Iterator[GridPoint]:
        """The grid points in order: the first key varies slowest."""
        keys = list(self.grid)
        for i, combo in enumerate(itertools.product(*(self.grid[k] for k in keys))):
            yield GridPoint(i, tuple(zip(keys, combo, strict=True)))

    @property
    def size(self) -> int:
        n = 1
        for values in self.grid.values():
            n *= len(values)
        return n * len(self.seeds)


def _line_of(text: str, needle: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith((needle, f'"{needle}"', f"'{needle}'", f"[{needle}]")):
            return i
    return None


def _fail(source: str, text: str, field_name: str, message: str, needle: str | None = None):
    line = _line_of(text, needle or field_name.split(".")[0])
    where = f"{source}:{line}" if line else source
    raise SweepError(f"{where}: {field_name}: {message}")


def _scalar_ok(value: Any) -> bool:
    if isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _scalar_ok(v) for k, v in value.items())
    return False


def _check_writable(source: str, text: str, field_name: str, key: str, value: Any) -> None:
    """Refuses a value an override cannot carry (an integer outside TOML's 64 bits), with
    the reason the Python API gives for it."""
    from atmsim.api import _plain, _Unwritable

    try:
        _plain(value)
    except _Unwritable as exc:
        where = field_name + ("" if not exc.path or exc.path.startswith("[") else ".") + exc.path
        _fail(source, text, where, exc.reason, key)


def parse_spec(
    text: str, source: str = "<sweep>", base_dir: str | os.PathLike[str] = "."
) -> SweepSpec:
    """Parse and check a sweep file's text (``base_dir`` resolves a relative scenario path)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{source}: not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise SweepError(f"{source}: cannot be read as TOML: {exc}") from None
    for key in raw:
        if key not in TOP_KEYS:
            allowed = ", ".join(TOP_KEYS)
            _fail(source, text, key, f"unknown key (allowed: {allowed})")
    if "scenario" not in raw:
        raise SweepError(f"{source}: scenario: missing ({TOP_KEYS['scenario']})")
    scenario = raw["scenario"]
    if not isinstance(scenario, str) or not scenario:
        _fail(source, text, "scenario", f"expected {TOP_KEYS['scenario']}")
    scenario = _resolve_scenario(scenario, Path(base_dir))
    seeds = raw.get("seeds", [1])
    until = None
    if isinstance(seeds, dict):
        until = _parse_until(source, text, seeds)
        seeds = list(range(1, until.first + 1))
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**63 for s in seeds)
    ):
        _fail(source, text, "seeds", f"expected {TOP_KEYS['seeds']}, got {seeds!r}")
    if len(set(seeds)) != len(seeds):
        _fail(source, text, "seeds", f"a seed is listed twice: {seeds}")
    confidence = raw.get("confidence", 0.95)
    if (
        not isinstance(confidence, (int, float))
        or isinstance(confidence, bool)
        or not 0 < confidence < 1
    ):
        _fail(source, text, "confidence", f"expected {TOP_KEYS['confidence']}, got {confidence!r}")
    fixed = raw.get("set", {})
    if not isinstance(fixed, dict):
        _fail(source, text, "set", f"expected {TOP_KEYS['set']}")
    for key, value in fixed.items():
        _check_writable(source, text, f"set.{key}", key, value)
        if not _scalar_ok(value):
            _fail(source, text, f"set.{key}", f"expected one value, got {value!r}", key)
    grid = raw.get("grid", {})
    if not isinstance(grid, dict):
        _fail(source, text, "grid", f"expected {TOP_KEYS['grid']}")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            _fail(source, text, f"grid.{key}", "expected a non-empty list of values", key)
        for i, v in enumerate(values):
            _check_writable(source, text, f"grid.{key}[{i}]", key, v)
        if not all(_scalar_ok(v) for v in values):
            _fail(source, text, f"grid.{key}", f"expected a list of values, got {values!r}", key)
        if len({repr(v) for v in values}) != len(values):
            _fail(source, text, f"grid.{key}", f"a value is listed twice: {values}", key)
        if key in fixed:
            _fail(source, text, f"grid.{key}", "also set in [set]; keep it in one place", key)
    for key in ("name", "description"):
        if key in raw and not isinstance(raw[key], str):
            _fail(source, text, key, "expected text")
    return SweepSpec(
        scenario=scenario,
        seeds=list(seeds),
        grid={k: list(v) for k, v in grid.items()},
        fixed=dict(fixed),
        name=raw.get("name", Path(source).stem if source != "<sweep>" else "sweep"),
        description=raw.get("description", ""),
        source=source,
        text=text,
        until=until,
        confidence=float(confidence),
    )


def _parse_until(source: str, text: str, raw: dict[str, Any]) -> Until:
    """``seeds = { until = "5%", of = COLUMN, first = N, max = M }``."""
    allowed = {"until", "of", "first", "max"}
    for key in raw:
        if key not in allowed:
            _fail(
                source,
                text,
                f"seeds.{key}",
                f"unknown key (allowed: {', '.join(sorted(allowed))})",
                "seeds",
            )
    target = raw.get("until")
    relative = None
    if isinstance(target, str) and target.strip().endswith("%"):
        try:
            relative = float(target.strip()[:-1]) / 100
        except ValueError:
            relative = None
    if relative is None or not 0 < relative < 1:
        _fail(
            source,
            text,
            "seeds.until",
            "expected the half-width of the confidence interval as a share of the mean, "
            f'such as "5%" (between 0% and 100%), got {target!r}',
            "seeds",
        )
    of = raw.get("of", "totals.goodput_mbps")
    if not isinstance(of, str) or not of.startswith(("totals.", "goodput_mbps.")):
        _fail(
            source,
            text,
            "seeds.of",
            "expected a column of results.parquet: totals.NAME (e.g. totals.goodput_mbps) or "
            f"goodput_mbps.CONNECTION, got {of!r}",
            "seeds",
        )
    first, most = raw.get("first", 3), raw.get("max", 30)
    for key, v, lo in (("first", first, 2), ("max", most, 2)):
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= 10_000:
            _fail(
                source,
                text,
                f"seeds.{key}",
                f"expected a whole number from {lo} to 10000, got {v!r}",
                "seeds",
            )
    if most < first:
        _fail(source, text, "seeds.max", f"expected at least first ({first}), got {most}", "seeds")
    return Until(relative=float(relative), of=of, first=first, max=most)


def _resolve_scenario(scenario: str, base_dir: Path) -> str:
    """A relative path is read from the sweep file's folder: the scenario is that file when it
    exists there, or when it is written as a path (a folder in it, or a ``.toml`` name that
    is no built-in); otherwise it is a built-in name."""
    from atmsim import scenarios

    path = Path(scenario)
    if path.is_absolute():
        return scenario
    candidate = base_dir / path
    builtin = scenario.removesuffix(".toml") in scenarios.names()
    looks_like_path = len(path.parts) > 1 or (scenario.endswith(".toml") and not builtin)
    if candidate.exists() or looks_like_path:
        return str(candidate.resolve())
    return scenario


def check_spec(spec: SweepSpec) -> None:
    """Check a sweep against the scenario schema before anything runs; raises
    :class:`SweepError` naming the field when the base scenario does not validate, when
    ``[set]`` does not apply to it, or when no grid point validates (a grid point that fails
    while others validate is not an error here: it is recorded as a failed run)."""
    from atmsim import ScenarioError
    from atmsim.api import validate

    try:
        validate(spec.scenario, overrides=spec.fixed)
    except ScenarioError as exc:
        if not spec.fixed:
            _fail(spec.source, spec.text, "scenario", str(exc))
        try:
            validate(spec.scenario)
        except ScenarioError as base_exc:
            _fail(spec.source, spec.text, "scenario", str(base_exc))
        key = next((k for k in spec.fixed if k in str(exc)), None)
        _fail(spec.source, spec.text, f"set.{key}" if key else "set", str(exc), key)
    first_error = ""
    for point in spec.points():
        try:
            validate(spec.scenario, overrides={**spec.fixed, **point.overrides()})
            return
        except ScenarioError as exc:
            first_error = first_error or str(exc)
    key = next((k for k in spec.grid if k in first_error), None)
    _fail(
        spec.source,
        spec.text,
        f"grid.{key}" if key else "grid",
        f"no grid point validates; the first: {first_error}",
        key,
    )


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and check a sweep file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SweepError(f"{p}: no such sweep file") from None
    except OSError as exc:
        raise SweepError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_spec(text, str(p), p.parent)
