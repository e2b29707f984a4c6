"""The built-in scenarios (TOML files shipped in the package folder ``atmsim/scenarios/``)
and the resolution of a scenario argument: a built-in name or a path to a TOML file.

>>> from atmsim import scenarios
>>> scenarios.names()                      # doctest: +SKIP
['fang1994-an2', 'fang1994-cell-drop', ...]
>>> text, source = scenarios.resolve("fang1994-cell-drop")   # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from atmsim.errors import ArgumentError, ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["names", "text", "description", "resolve", "folder"]

_SUFFIX = ".toml"


def folder() -> Traversable:
    """The package folder that holds the built-in scenario files."""
    return resources.files("atmsim").joinpath("scenarios")


def _files() -> dict[str, Traversable]:
    base = folder()
    if not base.is_dir():
        return {}
    return {
        entry.name[: -len(_SUFFIX)]: entry
        for entry in base.iterdir()
        if entry.name.endswith(_SUFFIX) and entry.is_file()
    }


def names() -> list[str]:
    """The names of the built-in scenarios, sorted."""
    return sorted(_files())


def _unknown(name: str) -> ScenarioError:
    if os.sep in name or "/" in name or name.endswith(_SUFFIX):
        return ScenarioError(
            f"{name}: no such file (the built-in scenarios are listed by `atmsim scenario list`)"
        )
    available = ", ".join(names()) or "(none installed)"
    return ScenarioError(
        f"{name}: no such built-in scenario or file; the built-ins are: {available}"
    )


def _not_a_scenario(value: object) -> ArgumentError:
    return ArgumentError(
        "scenario: expected a built-in name or a path to a TOML file, "
        f"got {type(value).__name__} {value!r:.60}"
    )


def text(name: str) -> str:
    """The TOML text of the built-in scenario ``name``."""
    try:
        return _files()[name].read_text(encoding="utf-8")
    except KeyError:
        raise _unknown(name) from None


def description(name: str) -> str:
    """One line about a built-in scenario: its top-level ``description`` key if it has one,
    else the first comment line of the file."""
    body = text(name)
    try:
        doc = tomllib.loads(body)
    except tomllib.TOMLDecodeError:
        doc = {}
    for table in (doc, doc.get("scenario"), doc.get("meta")):
        if isinstance(table, dict) and isinstance(table.get("description"), str):
            return " ".join(table["description"].split())
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            if comment:
                return comment
        elif stripped:
            break
    return ""


def resolve(name_or_path: str | os.PathLike[str]) -> tuple[str, str]:
    """``(toml_text, source)`` for a built-in name or a path to a TOML file.

    An existing file wins over a built-in of the same name. ``source`` is what error
    messages and the run's ``scenario`` name are made from: the path as given, or
    ``NAME.toml`` for a built-in.
    """
    if isinstance(name_or_path, os.PathLike):
        try:
            path = Path(name_or_path)
        except TypeError:  # a path-like object whose path is bytes
            raise _not_a_scenario(name_or_path) from None
    else:
        if not isinstance(name_or_path, str):
            raise _not_a_scenario(name_or_path)
        path = Path(name_or_path)
        if not path.exists():
            files = _files()
            key = name_or_path[: -len(_SUFFIX)] if name_or_path.endswith(_SUFFIX) else name_or_path
            if key in files:
                return files[key].read_text(encoding="utf-8"), key + _SUFFIX
            raise _unknown(name_or_path)
    if path.is_dir():
        raise ScenarioError(f"{path}: is a directory, not a scenario file")
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except FileNotFoundError:
        raise _unknown(str(path)) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except ValueError as exc:  # e.g. "embedded null byte"
        raise ScenarioError(f"{str(path)!r}: not a usable path ({exc})") from None
