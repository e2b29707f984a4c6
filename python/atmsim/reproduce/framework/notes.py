"""Notes as templates over measured values.

Each reproduction package holds ``notes.md.j2``, a Jinja2 template of its ``notes.md``. The
template is rendered with plain data only (numbers, strings, booleans, lists and dicts: the
package's ``notes`` function computes them from the runs), which is also written beside the
notes as ``notes-values.json``, so what a sentence says can be traced to the value behind it.

The rule the templates keep, checked by the tests (:func:`lint`, :func:`result_text`): every
number and every sentence that states a result is a placeholder or a branch on a measured
value or a claim. Fixed text is only method and citation, and it sits between the comments
``{# method #}`` and ``{# end method #}``; outside them, a number written into the template
is a citation (``Table 2``, ``Fig. 4.7``, ``section 4.1``, a year) or a name with letters in
it (``AAL5``, ``OC-3``), never a result.

Filters the templates use: ``fmt(spec)`` (Python's format mini-language: ``{{ x|fmt(",.0f")
}}``), ``pct(digits)`` (a fraction as a percentage), ``join_fmt(spec, sep)`` (a list of
numbers formatted and joined) and ``plural(word)``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from atmsim.storage import atomic_write

__all__ = [
    "CITATION",
    "METHOD_END",
    "METHOD_START",
    "NOTES_TEMPLATE",
    "NOTES_VALUES",
    "NUMBER",
    "environment",
    "lint",
    "render",
    "render_source",
    "result_text",
    "template_source",
    "write_notes",
    "write_values",
]

#: The template file in each reproduction package, and the values file beside notes.md.
NOTES_TEMPLATE = "notes.md.j2"
NOTES_VALUES = "notes-values.json"

METHOD_START = "{# method #}"
METHOD_END = "{# end method #}"


def _fmt(value: Any, spec: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return format(value, spec)


def _pct(value: Any, digits: int = 0) -> str:
    return _fmt(100 * float(value), f".{digits}f") + "%"


def _join_fmt(values: Sequence[Any], spec: str = "", sep: str = " / ") -> str:
    return sep.join(_fmt(v, spec) for v in values)


def _plural(n: Any, word: str, many: str | None = None) -> str:
    return word if n == 1 else (many or word + "s")


def environment() -> Any:
    """The Jinja2 environment of every notes template: undefined names are errors, block
    tags on their own line leave no blank line, and the filters above."""
    import jinja2

    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(fmt=_fmt, pct=_pct, join_fmt=_join_fmt, plural=_plural)
    return env


def template_source(package: str) -> str:
    """The text of ``package``'s notes template."""
    return resources.files(package).joinpath(NOTES_TEMPLATE).read_text(encoding="utf-8")


def render_source(source: str, values: Mapping[str, Any]) -> str:
    """``source`` (a notes template's text) rendered with ``values``; runs of blank lines are
    folded into one."""
    text = environment().from_string(source).render(**values)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def render(package: str, values: Mapping[str, Any]) -> str:
    """``package``'s notes rendered with ``values``."""
    return render_source(template_source(package), values)


def plain(values: Any) -> Any:
    """``values`` as JSON data (numpy scalars and tuples made plain); raises ``TypeError``
    naming the first value that is not data."""
    if isinstance(values, Mapping):
        return {str(k): plain(v) for k, v in values.items()}
    if isinstance(values, (list, tuple)):
        return [plain(v) for v in values]
    if values is None or isinstance(values, (bool, int, float, str)):
        return values
    if hasattr(values, "item") and callable(values.item):  # numpy scalars
        return values.item()
    raise TypeError(f"notes values must be plain data, got {type(values).__name__}: {values!r}")


def write_values(values: Mapping[str, Any], out: Path) -> Path:
    """Keep ``values`` (made plain) in ``out/notes-values.json``."""
    return atomic_write(out / NOTES_VALUES, json.dumps(plain(values), indent=1) + "\n")


def write_notes(package: str, values: Mapping[str, Any], out: Path) -> Path:
    """Render ``package``'s notes with ``values`` into ``out/notes.md``."""
    return atomic_write(out / "notes.md", render(package, plain(values)))


# --------------------------------------------------------------------------------------------
# What the tests check of a template


def result_source(source: str) -> str:
    """``source`` without its method sections."""
    pattern = re.escape(METHOD_START) + r".*?" + re.escape(METHOD_END)
    return re.sub(pattern, "", source, flags=re.S)


#: Numbers that cite rather than state: tables, figures, sections, equations, rows, years.
CITATION = re.compile(
    r"\b(?:Tables?|Figs?\.|Figures?|[Ss]ections?|[Ee]quations?|[Ee]q\.|[Rr]ows?|[Cc]olumns?|"
    r"[Cc]hapters?|pp?\.)\s*[\d.]+(?:\s*(?:-|–|,|and|to)\s*[\d.]+)*[a-z]?"
    r"|\((?:19|20)\d\d\)|\b(?:19|20)\d\d\b"
)
#: A number standing alone (not part of a name such as AAL5, OC-3, n1 or ERICA+).
NUMBER = re.compile(r"(?<![\w.\-/])(?:\d[\d,.]*\d|\d)(?![\w\-])")


def lint(source: str) -> list[str]:
    """The numbers written into ``source``'s result text (outside placeholders, tags,
    comments, method sections and citations), each with its line; empty when the template
    keeps the rule."""
    text = result_source(source)
    problems = []
    for lineno, line in enumerate(text.splitlines(), 1):
        bare = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", " ", line)
        bare = re.sub(r"`[^`]*`", " ", bare)  # code: names of scenarios, keys and functions
        bare = CITATION.sub(" ", bare)
        for hit in NUMBER.finditer(bare):
            problems.append(f"line {lineno}: {hit.group(0)!r} in {line.strip()[:80]!r}")
    return problems


def result_text(source: str, values: Mapping[str, Any]) -> list[str]:
    """The sentences of ``source``'s result text rendered with ``values`` (headings and
    method sections left out)."""
    text = render_source(result_source(source), values)
    out = []
    for para in re.split(r"\n\s*\n", text):
        if para.lstrip().startswith("#"):
            continue
        flat = " ".join(para.split())
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(*`])", flat) if s.strip()]
    return out
