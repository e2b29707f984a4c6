"""A self-contained HTML report for a reproduction (or any set of runs).

:func:`write_report` writes ``out_dir/report.html``: one file with inline CSS and the PNG
figures embedded as base64 data URIs, so it can be mailed or archived alone. It shows the
comparison with the paper (a row per claim, coloured by agreement), the figures with their
captions, the modelling notes (Markdown), the scenario files in collapsible sections, and
the metadata (atmsim version, seeds, mode, wall time).

The pages are Jinja2 templates shipped in the package (``atmsim/templates/*.html.j2``, with
the inline ``report.css`` and ``report.js``), rendered with autoescaping: every text is
escaped except the Markdown rendered here, by markdown-it-py (CommonMark with tables; raw
HTML in the Markdown is shown as text, images are not fetched, links only to http(s),
mailto or an anchor).

The comparison rows may be :class:`atmsim.reproduce.framework.Claim` objects or dicts with the
keys ``claim, paper, measured, unit, tolerance, agrees`` (and optionally ``measured_ci``,
``seeds`` and ``note``: a row over several seeds shows "mean ± half-width (n seeds, 95 %)";
rows without them, as comparison.csv files written before they existed, show the value).
"""

from __future__ import annotations

import base64
import functools
import html
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atmsim.storage import atomic_write

if TYPE_CHECKING:
    import jinja2
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

__all__ = ["markdown_to_html", "network_figure", "write_index", "write_report"]


def write_report(
    out_dir: str | os.PathLike[str],
    title: str,
    comparison_rows: Sequence[Any],
    figures: Sequence[tuple[str | os.PathLike[str], str]],
    notes_md: str,
    scenarios: Mapping[str, str],
    meta: Mapping[str, Any],
    *,
    intro: str = "",
    tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]]]] | None = (),
    networks: Sequence[Any] = (),
) -> Path:
    """Write ``out_dir/report.html`` and return its path.

    ``comparison_rows``: claims (objects with attributes or dicts) as in ``comparison.csv``;
    ``figures``: ``(png_path, caption)`` pairs, embedded in that order; ``notes_md``: the
    notes in Markdown (CommonMark with tables); ``scenarios``: ``{name: TOML text}``;
    ``meta``: shown as a key/value table (version, seeds, mode, ...); ``intro``: an optional
    paragraph (Markdown) under the title; ``tables``: ``(caption, header, rows)`` triples
    shown under *Tables* (cells are text, e.g. ``"77 | 99.8 ± 0.1"`` for a paper | ours
    pair), in that order; ``networks``: pictures of the networks run
    (:class:`atmsim.pictures.NetworkPicture`, from :func:`atmsim.pictures.network_pictures`), shown
    under *Network*. A claim's note and a figure's caption may hold inline Markdown.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = [_row(r) for r in comparison_rows]
    meta_all = {str(k): _meta_value(v) for k, v in meta.items()}
    meta_all.setdefault("report written", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    page = render(
        "report.html.j2",
        title=title,
        intro=markdown_to_html(intro) if intro and intro.strip() else "",
        tables=[data_table(c, h, b) for c, h, b in tables or ()],
        rows=rows,
        n_agree=sum(1 for r in rows if r["agrees"]),
        has_notes=any(r["note"] for r in rows),
        figures=[figure(Path(path), caption) for path, caption in figures],
        networks=[network_figure(n) for n in networks],
        notes=markdown_to_html(notes_md) if notes_md and notes_md.strip() else "",
        scenarios=dict(scenarios or {}),
        meta=meta_all,
    )
    return atomic_write(out / "report.html", page)


def write_index(out_dir: str | os.PathLike[str], names: Sequence[str]) -> Path:
    """``out_dir/index.html``: one line per reproduction in ``out_dir/<name>/``, linking its
    report with its agreement count (read from its ``comparison.csv``)."""
    import csv

    out = Path(out_dir)
    items = []
    for name in names:
        comp = out / name / "comparison.csv"
        agree = total = 0
        if comp.is_file():
            with comp.open(newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    total += 1
                    agree += row.get("agrees") == "true"
        title = _report_title(out / name / "report.html", name)
        items.append({"name": name, "title": title, "agree": agree, "total": total})
    page = render("index.html.j2", title="atmsim reproductions", items=items)
    return atomic_write(out / "index.html", page)


# --------------------------------------------------------------------------------------------
# Rendering (used by atmsim.sweep.report too)


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("atmsim", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **context: Any) -> str:
    """The page of ``atmsim/templates/<template>``, autoescaped (pass rendered HTML as
    :class:`markupsafe.Markup`, as :func:`markdown_to_html` returns it)."""
    return _environment().get_template(template).render(**context)


def data_table(
    caption: str, header: Sequence[Any], body: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """A ``<table class="data">`` for the templates' ``data_table`` macro."""
    return {
        "caption": str(caption),
        "header": [str(h) for h in header],
        "rows": [[str(c) for c in row] for row in body],
    }


def figure(path: Path, caption: str) -> dict[str, Any]:
    """A figure for the templates' ``figure`` macro: the image's bytes as base64 (PNG, or
    SVG by its suffix), or, when it cannot be read, ``data`` None and the error."""
    caption_html = markdown_inline(caption)
    try:
        data: str | None = base64.b64encode(path.read_bytes()).decode("ascii")
        error = ""
    except OSError as exc:
        data, error = None, str(exc)
    mime = "image/svg+xml" if path.suffix.lower() == ".svg" else "image/png"
    return {
        "path": str(path),
        "alt": path.name,
        "mime": mime,
        "data": data,
        "error": error,
        "caption": caption_html,
    }


def network_figure(picture: Any) -> dict[str, Any]:
    """A network picture (:class:`atmsim.pictures.NetworkPicture`) for the ``figure`` macro;
    one that could not be drawn shows its caption and why."""
    if picture.path is not None:
        return figure(Path(picture.path), picture.caption)
    return {
        "path": picture.caption,
        "alt": "",
        "mime": "",
        "data": None,
        "error": picture.error,
        "caption": "",
    }


def _report_title(report: Path, default: str) -> str:
    """The <title> of a written report (unescaped: the index escapes it again)."""
    if not report.is_file():
        return default
    text = report.read_text(encoding="utf-8")
    start, end = text.find("<title>"), text.find("</title>")
    return html.unescape(text[start + 7 : end]) if 0 <= start < end else default


def _row(r: Any) -> dict[str, Any]:
    get = r.get if isinstance(r, Mapping) else (lambda k, d=None: getattr(r, k, d))
    agrees = get("agrees", False)
    if isinstance(agrees, str):
        agrees = agrees.strip().lower() in ("true", "1", "yes")
    measured = _num(get("measured", ""))
    shown = r.as_row() if hasattr(r, "as_row") else {}  # a Claim: its interval as the CSV's
    ci = shown.get("measured_ci", get("measured_ci", ""))
    seeds = shown.get("seeds", get("seeds", ""))
    try:
        n, h = int(seeds or 0), float(ci)
    except (TypeError, ValueError):
        n, h = 0, float("nan")
    if n >= 2 and h == h:
        from atmsim.reproduce.framework.measures import CONFIDENCE

        level = float(get("level", CONFIDENCE) or CONFIDENCE)
        measured = f"{measured} ± {_num(h)} ({n} seeds, {100 * level:g} %)"
    return {
        "claim": str(get("claim", "")),
        "paper": _num(get("paper", "")),
        "measured": measured,
        "unit": str(get("unit", "")),
        "tolerance": str(get("tolerance", "")),
        "agrees": bool(agrees),
        "note": markdown_inline(str(get("note", "") or "")),
    }


def _num(x: Any) -> str:
    if isinstance(x, str):
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if v != v:  # NaN
        return "n/a"
    if v == 0:
        return "0"
    return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"


def _meta_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return ", ".join(str(v) for v in value)
    return str(value)


# --------------------------------------------------------------------------------------------
# Markdown (markdown-it-py)

#: Link targets a rendered link may have: the web, mail, or an anchor in the page. Anything
#: else (a file, javascript:, data:) leaves the link as the text it was typed as.
_LINK_SCHEMES = ("http://", "https://", "mailto:", "#")


def _link_ok(url: str) -> bool:
    return url.strip().lower().startswith(_LINK_SCHEMES)


def _shift_headings(state: StateCore) -> None:
    """``#`` becomes <h2>, and so on (to <h6>): the page's <h1> is its title."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1:]) + 1, 6)}"


@functools.cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.disable("image")  # a self-contained page fetches nothing: ![alt](url) stays text
    md.validateLink = _link_ok  # type: ignore[method-assign]
    md.core.ruler.push("atmsim_heading_levels", _shift_headings)
    return md


def markdown_to_html(md: str) -> Any:
    """``md`` (CommonMark with tables) as HTML, a :class:`markupsafe.Markup` the templates
    insert as it is. Raw HTML in it is escaped; headings start at <h2>."""
    from markupsafe import Markup

    return Markup(_markdown().render(md))


def markdown_inline(text: str) -> Any:
    """One line of inline Markdown (code, emphasis, links) as :class:`markupsafe.Markup`,
    without a paragraph around it."""
    from markupsafe import Markup

    return Markup(_markdown().renderInline(text))
