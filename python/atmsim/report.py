"""A self-contained HTML report for a reproduction (or any set of runs).

:func:`write_report` writes ``out_dir/report.html``: one file with inline CSS and the PNG
figures embedded as base64 data URIs, so it can be mailed or archived alone. It shows the
comparison with the paper (a row per claim, coloured by agreement), the figures with their
captions, the modelling notes (Markdown), the scenario files in collapsible sections, and
the metadata (atmsim version, seeds, mode, wall time).

The comparison rows may be :class:`atmsim.reproduce.common.Claim` objects or dicts with the
keys ``claim, paper, measured, unit, tolerance, agrees`` (and optionally ``note``).
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from atmsim.storage import atomic_write

__all__ = ["markdown_to_html", "write_report"]

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border: 1px solid #d0d0d0; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.agree td.verdict { background: #d8f0d8; color: #14532d; font-weight: 600; }
tr.disagree td.verdict { background: #f8d7d7; color: #7f1d1d; font-weight: 600; }
tr.disagree td { background: #fff6f6; }
td.note { color: #555; font-size: 0.92em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #e3e3e3; }
figcaption { font-size: 0.92em; color: #333; margin-top: 0.3em; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: 0.6em; overflow-x: auto;
      font-size: 0.82em; }
code { background: #f3f3f3; padding: 0 0.2em; }
details { margin: 0.4em 0; }
summary { cursor: pointer; font-family: monospace; }
.meta td:first-child { width: 14em; color: #555; }
.score { font-size: 1.05em; margin: 0.5em 0 1em; }
table.data { margin: 1em 0 1.5em; }
table.data caption { caption-side: top; text-align: left; font-weight: 600; padding: 0.3em 0; }
table.data td { font-variant-numeric: tabular-nums; white-space: nowrap; }
"""


#: The page's only script (inline, no external assets): the "only rows that disagree" filter,
#: and, once the page has loaded, a record on <body> of what rendered (images decoded,
#: comparison rows) that a headless browser test reads back from the DOM.
_JS = """
var onlyDisagree = document.getElementById("only-disagree");
if (onlyDisagree) {
  onlyDisagree.addEventListener("change", function (e) {
    document.querySelectorAll("table.comparison tr.agree").forEach(function (tr) {
      tr.style.display = e.target.checked ? "none" : "";
    });
  });
}
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-rendered", String(ok.length));
  document.body.setAttribute("data-comparison-rows",
    String(document.querySelectorAll("table.comparison tbody tr").length));
  document.body.setAttribute("data-tables", String(document.querySelectorAll("table").length));
});
"""


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
    tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]]]] = (),
) -> Path:
    """Write ``out_dir/report.html`` and return its path.

    ``comparison_rows``: claims (objects with attributes or dicts) as in ``comparison.csv``;
    ``figures``: ``(png_path, caption)`` pairs, embedded in that order; ``notes_md``: the
    notes in Markdown (headings, lists, paragraphs, inline code, bold); ``scenarios``:
    ``{name: TOML text}``; ``meta``: shown as a key/value table (version, seeds, mode, ...);
    ``intro``: an optional paragraph (Markdown) under the title; ``tables``: ``(caption,
    header, rows)`` triples shown under *Tables* (cells are text, e.g. ``"77 | 99.8 ± 0.1"``
    for a paper | ours pair), in that order.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = [_row(r) for r in comparison_rows]
    n_agree = sum(1 for r in rows if r["agrees"])

    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
    ]
    if intro:
        parts.append(markdown_to_html(intro))

    if tables:
        parts.append("<h2>Tables: paper | ours</h2>")
        for caption, header, body in tables:
            parts.append(_table(caption, header, body))

    parts.append("<h2>Comparison with the paper</h2>")
    parts.append(
        f'<p class="score"><strong>{n_agree} of {len(rows)}</strong> claims agree within '
        "their stated tolerances. "
        '<label><input type="checkbox" id="only-disagree"> show only the rows that '
        "disagree</label></p>"
    )
    parts.append(_comparison_table(rows))

    if figures:
        parts.append("<h2>Figures</h2>")
        for path, caption in figures:
            parts.append(_figure(Path(path), caption))

    if notes_md.strip():
        parts.append("<h2>Modelling notes</h2>")
        parts.append(markdown_to_html(notes_md))

    if scenarios:
        parts.append("<h2>Scenarios</h2>")
        for name, text in scenarios.items():
            parts.append(f"<details><summary>{_e(name)}</summary><pre>{_e(text)}</pre></details>")

    parts.append("<h2>Run</h2>")
    meta_all = dict(meta)
    meta_all.setdefault("report written", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    parts.append('<table class="meta">')
    for key, value in meta_all.items():
        parts.append(f"<tr><td>{_e(str(key))}</td><td>{_e(_meta_value(value))}</td></tr>")
    parts.append("</table>")
    parts.append(f"<script>{_JS}</script>")
    parts.append("</body></html>")

    return atomic_write(out / "report.html", "\n".join(parts) + "\n")


# --------------------------------------------------------------------------------------------


def _row(r: Any) -> dict[str, Any]:
    get = r.get if isinstance(r, Mapping) else (lambda k, d=None: getattr(r, k, d))
    agrees = get("agrees", False)
    if isinstance(agrees, str):
        agrees = agrees.strip().lower() in ("true", "1", "yes")
    return {
        "claim": str(get("claim", "")),
        "paper": get("paper", ""),
        "measured": get("measured", ""),
        "unit": str(get("unit", "")),
        "tolerance": str(get("tolerance", "")),
        "agrees": bool(agrees),
        "note": str(get("note", "") or ""),
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


def _comparison_table(rows: list[dict[str, Any]]) -> str:
    has_notes = any(r["note"] for r in rows)
    head = "<tr><th>claim</th><th>paper</th><th>measured</th><th>unit</th><th>tolerance</th>"
    head += "<th>agrees</th>" + ("<th>note</th>" if has_notes else "") + "</tr>"
    body = []
    for r in rows:
        cls = "agree" if r["agrees"] else "disagree"
        cells = [
            f"<td>{_e(r['claim'])}</td>",
            f'<td class="num">{_e(_num(r["paper"]))}</td>',
            f'<td class="num">{_e(_num(r["measured"]))}</td>',
            f"<td>{_e(r['unit'])}</td>",
            f"<td>{_e(r['tolerance'])}</td>",
            f'<td class="verdict">{"yes" if r["agrees"] else "no"}</td>',
        ]
        if has_notes:
            cells.append(f'<td class="note">{_inline(r["note"])}</td>')
        body.append(f'<tr class="{cls}">' + "".join(cells) + "</tr>")
    return (
        f'<table class="comparison"><thead>{head}</thead><tbody>'
        + "".join(body)
        + "</tbody></table>"
    )


def _table(caption: str, header: Sequence[str], body: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_e(str(h))}</th>" for h in header)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_e(str(c))}</td>" for c in row) + "</tr>" for row in body
    )
    return (
        f'<table class="data"><caption>{_e(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    )


def _figure(path: Path, caption: str) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError as exc:
        return f"<p><em>figure {_e(str(path))} missing: {_e(str(exc))}</em></p>"
    mime = "image/svg+xml" if path.suffix.lower() == ".svg" else "image/png"
    return (
        f'<figure><img alt="{_e(path.name)}" src="data:{mime};base64,{data}">'
        f"<figcaption>{_inline(caption)}</figcaption></figure>"
    )


def _meta_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")


def _inline(text: str) -> str:
    """Escape, then render `code`, **bold**, *emphasis* and [links](https://...)."""
    codes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    s = _CODE.sub(keep, text)
    s = _e(s)
    s = _LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', s)
    s = _BOLD.sub(r"<strong>\1</strong>", s)
    s = _EM.sub(r"<em>\1</em>", s)
    return re.sub(r"\x00(\d+)\x00", lambda m: f"<code>{_e(codes[int(m.group(1))])}</code>", s)


def markdown_to_html(md: str) -> str:
    """A small Markdown subset: ``#`` headings, ``-``/``*`` and ``1.`` lists (continuation
    lines indented), fenced code blocks, paragraphs, and inline code, bold, emphasis and
    links. Enough for notes; anything else is shown as text."""
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    list_tag = ""
    lines = md.splitlines()
    i = 0

    def flush_para() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(s.strip() for s in para)) + "</p>")
            para.clear()

    def flush_list() -> None:
        nonlocal list_tag
        if items:
            body = "".join(f"<li>{_inline(it)}</li>" for it in items)
            out.append(f"<{list_tag}>{body}</{list_tag}>")
            items.clear()
        list_tag = ""

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush_para()
            flush_list()
            block = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                block.append(lines[i])
                i += 1
            out.append("<pre>" + _e("\n".join(block)) + "</pre>")
            i += 1
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        bullet = re.match(r"^[-*]\s+(.*)$", stripped)
        number = re.match(r"^\d+[.)]\s+(.*)$", stripped)
        if not stripped:
            flush_para()
            flush_list()
        elif heading:
            flush_para()
            flush_list()
            level = min(len(heading.group(1)) + 1, 6)  # the report's h1 is the title
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif bullet or number:
            flush_para()
            tag = "ul" if bullet else "ol"
            if list_tag and list_tag != tag:
                flush_list()
            list_tag = tag
            items.append((bullet or number).group(1))
        elif items and line[:1] in (" ", "\t"):
            items[-1] += " " + stripped
        else:
            flush_list()
            para.append(stripped)
        i += 1
    flush_para()
    flush_list()
    return "\n".join(out)


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
        title = name
        html = out / name / "report.html"
        if html.is_file():
            text = html.read_text(encoding="utf-8")
            start, end = text.find("<title>"), text.find("</title>")
            if 0 <= start < end:
                title = text[start + 7 : end]
        items.append(
            f'<tr><td><a href="{_e(name)}/report.html">{_e(name)}</a></td>'
            f'<td>{title}</td><td class="num">{agree} of {total}</td></tr>'
        )
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>atmsim reproductions</title><style>{_CSS}</style></head><body>",
        "<h1>atmsim reproductions</h1>",
        "<p>Each report compares the paper's numbers with ours, row by row, with the "
        "tolerance fixed before measuring.</p>",
        '<table class="comparison"><thead><tr><th>reproduction</th><th>paper</th>'
        "<th>claims that agree</th></tr></thead><tbody>",
        *items,
        "</tbody></table>",
        "</body></html>",
    ]
    return atomic_write(out / "index.html", "\n".join(page) + "\n")
