"""The HTML report (atmsim.report): its structure, parsed with html.parser (htmlpage.py), not
its wording: a row per claim with its mark, each figure embedded as a PNG data URI, the
notes' Markdown as the right elements, every text escaped, nothing fetched from elsewhere;
and the index of `atmsim reproduce all`."""

from __future__ import annotations

import csv
import importlib.resources
import struct
import zlib
from pathlib import Path

import pytest

from atmsim import report
from atmsim.reproduce import framework as common
from htmlpage import (
    Node,
    assert_self_contained,
    data_tables,
    embedded_pngs,
    meta,
    network_svgs,
    parse,
    parse_file,
    section,
    svg_texts,
    table_cells,
)


def _png(path: Path, width: int = 3, height: int = 2) -> bytes:
    """A small valid PNG (grey pixels), written to ``path``; returns its bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes([128] * width) for _ in range(height))
    data = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


CLAIMS = [
    common.compare("Fig 1: goodput", paper=10.0, measured=10.4, unit="Mb/s", tol=common.rel(0.1)),
    common.compare("Fig 2: loss", paper=1.0, measured=3.0, unit="%", tol=common.rel(0.1)),
    {
        "claim": "Table 3: a row read from comparison.csv",
        "paper": "> 0",
        "measured": "0.5",
        "unit": "ratio",
        "tolerance": "> 0",
        "agrees": "true",
    },
    {
        "claim": "Table 4: another",
        "paper": 2,
        "measured": float("nan"),
        "unit": "",
        "tolerance": "exact",
        "agrees": "false",
        "note": "see `notes.md`",
    },
]
AGREES = [True, False, True, False]

NOTES = """\
# Model

Some *emphasis*, **bold**, `inline code` and a [link](https://example.org/paper.pdf).

## Parameters

| parameter | value |
|-----------|------:|
| buffer    | 256   |
| MSS       | 8192  |
| RTT       | 1 ms  |

```toml
[run]
duration = "1 s"
```

- first
- second
- third

1. one
2. two
"""


def _write(tmp_path: Path, **kw) -> Node:
    args = {
        "title": "A study",
        "rows": CLAIMS,
        "figs": [],
        "notes": NOTES,
        "scenarios": {"a.toml": 'name = "a"\n'},
        "meta": {"seeds": [1, 2, 3], "mode": "quick"},
    }
    args.update(kw)
    path = report.write_report(
        tmp_path,
        args.pop("title"),
        args.pop("rows"),
        args.pop("figs"),
        args.pop("notes"),
        args.pop("scenarios"),
        args.pop("meta"),
        **args,
    )
    assert path == tmp_path / "report.html"
    return parse_file(path)


def _notes(page: Node) -> list[Node]:
    assert [h.words for h in page.all("h2")].count("Modelling notes") == 1
    return page.one("div", "notes").elements()


def test_a_row_per_claim_with_its_mark(tmp_path: Path) -> None:
    page = _write(tmp_path)
    table = page.one("table", "comparison")
    trs = table.one("tbody").all("tr")
    assert len(trs) == len(CLAIMS)
    assert [("agree" in tr.classes, "disagree" in tr.classes) for tr in trs] == [
        (a, not a) for a in AGREES
    ]
    assert [tr.one("td", "verdict").words for tr in trs] == ["yes" if a else "no" for a in AGREES]
    head, rows = table_cells(table)
    assert head == ["claim", "paper", "measured", "unit", "tolerance", "agrees", "note"]
    assert all(len(r) == len(head) for r in rows)
    assert [r[0] for r in rows] == [c.claim if hasattr(c, "claim") else c["claim"] for c in CLAIMS]
    assert rows[1][1:3] == ["1", "3"] and rows[3][2] == "n/a"
    # The note's inline Markdown is rendered, without a paragraph around it.
    note = trs[3].one("td", "note")
    assert [n.tag for n in note.elements()] == ["code"] and note.one("code").text == "notes.md"
    # The score counts the rows that agree.
    assert page.one("p", "score").one("strong").words == f"{sum(AGREES)} of {len(CLAIMS)}"


def test_no_note_column_without_notes(tmp_path: Path) -> None:
    page = _write(tmp_path, rows=CLAIMS[:3])
    head, rows = table_cells(page.one("table", "comparison"))
    assert "note" not in head and all(len(r) == len(head) for r in rows)


def test_no_claims_is_an_empty_table(tmp_path: Path) -> None:
    page = _write(tmp_path, rows=[], notes="", scenarios={}, meta={})
    assert page.one("table", "comparison").one("tbody").all("tr") == []
    assert [h.words for h in page.all("h2")] == ["Comparison with the paper", "Run"]
    assert list(meta(page)) == ["report written"]


def test_each_figure_is_an_embedded_png(tmp_path: Path) -> None:
    written = [_png(tmp_path / "figures" / f"fig{i}.png", width=2 + i) for i in range(3)]
    figs = [(tmp_path / "figures" / f"fig{i}.png", f"Fig. {i}: *caption* {i}") for i in range(3)]
    page = _write(tmp_path, figs=figs)
    figures = page.all("figure")
    assert len(figures) == len(figs)
    assert all(len(f.all("img")) == 1 for f in figures)
    assert embedded_pngs(page) == written  # in order, byte for byte
    assert [f.one("figcaption").one("em").text for f in figures] == ["caption"] * 3
    assert [f.one("img").attrs["alt"] for f in figures] == [f"fig{i}.png" for i in range(3)]


def test_a_missing_figure_is_named_not_embedded(tmp_path: Path) -> None:
    _png(tmp_path / "here.png")
    page = _write(tmp_path, figs=[(tmp_path / "here.png", "here"), (tmp_path / "gone.png", "x")])
    assert len(page.all("figure")) == 1 and len(embedded_pngs(page)) == 1
    missing = [p for p in section(page, "Figures") if p.tag == "p"]
    assert len(missing) == 1 and "gone.png" in missing[0].text


def test_the_network_section_embeds_each_picture(tmp_path: Path) -> None:
    """Pictures from atmsim.pictures.network_pictures under *Network*, before the figures: each an
    SVG data URI with its caption (Markdown); one that could not be drawn is named, with why."""
    from atmsim.pictures import network_pictures

    _png(tmp_path / "fig.png")
    pictures = network_pictures(
        [
            ("fang1994-cell-drop", "fang1994-cell-drop", {}),
            ("fang1994-an2-n1", "fang1994-an2-n1", {}),
            ("gone", str(tmp_path / "gone.toml"), {}),
        ],
        tmp_path,
    )
    page = _write(
        tmp_path, figs=[(tmp_path / "fig.png", "a figure")], notes="No links.", networks=pictures
    )
    headings = [h.words for h in page.all("h2")]
    assert headings.index("Network") + 1 == headings.index("Figures")
    shown = section(page, "Network")
    figures = [n for n in shown if n.tag == "figure"]
    assert all("network" in f.classes for f in figures)
    svgs = network_svgs(page)
    assert svgs == [(tmp_path / f"network-{i}.svg").read_bytes() for i in (1, 2)]
    assert "A->B" in " ".join(svg_texts(svgs[0]))  # the bottleneck of Fang's six sessions
    assert "h1->A" in " ".join(svg_texts(svgs[1]))  # and of one session alone
    captions = [f.one("figcaption") for f in figures]
    assert [c.one("code").text for c in captions] == ["fang1994-cell-drop", "fang1994-an2-n1"]
    missing = [n for n in shown if n.tag == "p"]
    assert len(missing) == 1 and "gone" in missing[0].words
    assert len(embedded_pngs(page)) == 1  # the figure; the pictures are not PNGs
    assert_self_contained(page)


def test_markdown_in_notes_becomes_elements(tmp_path: Path) -> None:
    page = _write(tmp_path)
    notes = _notes(page)
    # Headings one level down: `#` is <h2>, as the page's <h1> is its title.
    assert [(n.tag, n.words) for n in notes if n.tag.startswith("h")] == [
        ("h2", "Model"),
        ("h3", "Parameters"),
    ]
    [table] = [n for n in notes if n.tag == "table"]
    head, rows = table_cells(table)
    assert head == ["parameter", "value"]
    assert rows == [["buffer", "256"], ["MSS", "8192"], ["RTT", "1 ms"]]
    assert table.one("tbody").all("td")[1].attrs.get("style") == "text-align:right"
    [pre] = [n for n in notes if n.tag == "pre"]
    assert pre.one("code").text == '[run]\nduration = "1 s"\n'
    [para] = [n for n in notes if n.tag == "p"]
    assert [n.tag for n in para.elements()] == ["em", "strong", "code", "a"]
    assert para.one("code").text == "inline code"
    assert para.one("a").attrs["href"] == "https://example.org/paper.pdf"
    assert para.one("a").text == "link"
    assert [n.tag for n in notes if n.tag in ("ul", "ol")] == ["ul", "ol"]
    assert [len(n.all("li")) for n in notes if n.tag in ("ul", "ol")] == [3, 2]


def test_the_notes_heading_levels_are_shifted_down_to_h6() -> None:
    page = parse(str(report.markdown_to_html("# a\n\n###### f")))
    assert [n.tag for n in page.elements()] == ["h2", "h6"]


def test_links_only_to_the_web(tmp_path: Path) -> None:
    """A link in the notes to a file, javascript: or data: stays text; an image is not
    fetched (its Markdown stays text around a link)."""
    notes = (
        "[a](https://example.org/) [b](http://example.org/x) [c](notes.md) "
        "[d](file:///etc/passwd) [e](javascript:alert(1)) [f](data:text/html,x) "
        "![g](https://example.org/g.png) <https://example.org/auto> [h](#run)"
    )
    page = _write(tmp_path, notes=notes)
    hrefs = [a.attrs["href"] for a in page.all("a")]
    assert hrefs == [
        "https://example.org/",
        "http://example.org/x",
        "https://example.org/g.png",
        "https://example.org/auto",
        "#run",
    ]
    assert page.all("img") == []
    assert_self_contained(page, links=set(hrefs))


def test_text_is_escaped(tmp_path: Path) -> None:
    evil = '<script>alert("x")</script>'
    rows = [
        {
            "claim": f"claim {evil}",
            "paper": evil,
            "measured": 1,
            "unit": "<b>u</b>",
            "tolerance": "a & b",
            "agrees": True,
            "note": f"note {evil}",
        }
    ]
    page = _write(
        tmp_path,
        title=f"Title {evil}",
        rows=rows,
        notes=(
            f"# Head {evil}\n\nText {evil} and <img src=x onerror=alert(1)>.\n\n"
            f"| a |\n|---|\n| {evil} |"
        ),
        scenarios={f"s{evil}.toml": f"</pre>{evil}"},
        meta={f"key {evil}": f"value {evil}"},
        intro=f"Intro {evil}",
        tables=[(f"cap {evil}", [f"h {evil}"], [[f"c {evil}"]])],
    )
    # The page's only script is its own (inline, after everything the report shows).
    [script] = page.all("script")
    assert page.one("body").elements()[-1] is script and "src" not in script.attrs
    assert page.all("img") == [] and page.all("b") == []
    assert page.one("title").text == f"Title {evil}" == page.one("h1").text
    [row] = page.one("table", "comparison").one("tbody").all("tr")
    cells = [td.text for td in row.all("td")]
    assert cells == [f"claim {evil}", evil, "1", "<b>u</b>", "a & b", "yes", f"note {evil}"]
    notes = _notes(page)
    assert notes[0].text == f"Head {evil}"
    assert notes[1].text == f"Text {evil} and <img src=x onerror=alert(1)>."
    assert table_cells(notes[2]) == (["a"], [[evil]])
    [details] = page.all("details")
    assert details.one("summary").text == f"s{evil}.toml"
    assert details.one("pre").text == f"</pre>{evil}"
    assert meta(page)[f"key {evil}"] == f"value {evil}"
    assert data_tables(page) == [(f"cap {evil}", [f"h {evil}"], [[f"c {evil}"]])]
    assert page.one("div", "intro").words == f"Intro {evil}"
    assert_self_contained(page)


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    _png(tmp_path / "f.png")
    page = _write(
        tmp_path,
        figs=[(tmp_path / "f.png", "f")],
        notes="No links here.",
        tables=[("t", ["a", "b"], [[1, 2]])],
    )
    assert_self_contained(page)  # no href at all
    assert len(page.all("style")) == 1 and page.one("style").text.strip()


def test_tables_and_meta(tmp_path: Path) -> None:
    tables = [
        ("first", ["x", "paper | ours"], [["a", "1 | 1.1"], ["b", "2 | 2.2"]]),
        ("second", ["only"], [[3.5]]),
    ]
    page = _write(tmp_path, tables=tables, meta={"seeds": [1, 2], "grid": {"a": 1, "b": 2}})
    assert data_tables(page) == [
        ("first", ["x", "paper | ours"], [["a", "1 | 1.1"], ["b", "2 | 2.2"]]),
        ("second", ["only"], [["3.5"]]),
    ]
    shown = meta(page)
    assert shown["seeds"] == "1, 2" and shown["grid"] == "a: 1, b: 2"
    assert list(shown)[-1] == "report written"
    # The sections in the order the page shows them.
    assert [h.words for h in page.all("h2")][:2] == [
        "Tables: paper | ours",
        "Comparison with the paper",
    ]


def test_the_scenarios_are_collapsible_and_verbatim(tmp_path: Path) -> None:
    texts = {"one.toml": 'name = "one"\n\n[run]\nduration = "1 s"\n', "two.toml": "x = 1\n"}
    page = _write(tmp_path, scenarios=texts)
    shown = {d.one("summary").text: d.one("pre").text for d in page.all("details")}
    assert shown == texts


def test_templates_are_package_data() -> None:
    """The templates ship inside the package (maturin packages everything under
    python/atmsim), found through the package, not a path in the source tree."""
    files = importlib.resources.files("atmsim") / "templates"
    names = {p.name for p in files.iterdir()}
    assert {"base.html.j2", "report.html.j2", "sweep_report.html.j2", "index.html.j2"} <= names
    assert {"report.css", "report.js"} <= names


# --------------------------------------------------------------------------------------------
# The index of `atmsim reproduce all`


def _reproduction(out: Path, name: str, title: str, agrees: list[bool]) -> None:
    rows = [
        common.compare(f"c{i}", paper=1.0, measured=1.0 if a else 9.0, unit="", tol=common.rel(0.1))
        for i, a in enumerate(agrees)
    ]
    common.write_comparison(rows, out / name / "comparison.csv")
    report.write_report(out / name, title, rows, [], "", {}, {})


def test_the_index_links_each_report_with_its_count(tmp_path: Path) -> None:
    _reproduction(tmp_path, "first", "First & <one>", [True, False, True])
    _reproduction(tmp_path, "second", "Second", [False])
    (tmp_path / "third").mkdir()  # no result: named, counted as none
    page = parse_file(report.write_index(tmp_path, ["first", "second", "third"]))
    head, rows = table_cells(page.one("table", "comparison"))
    assert len(head) == 3
    assert rows == [
        ["first", "First & <one>", "2 of 3"],
        ["second", "Second", "0 of 1"],
        ["third", "third", "0 of 0"],
    ]
    hrefs = [a.attrs["href"] for a in page.all("a")]
    assert hrefs == ["first/report.html", "second/report.html", "third/report.html"]
    with (tmp_path / "first" / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 3
    assert_self_contained(page, links=set(hrefs))


@pytest.mark.parametrize("md", ["", "plain", "<div>raw</div>", "a\n\n    indented"])
def test_markdown_to_html_is_markup(md: str) -> None:
    """What markdown_to_html returns is inserted as it is, and holds no raw HTML."""
    from markupsafe import Markup

    out = report.markdown_to_html(md)
    assert isinstance(out, Markup)
    assert parse(str(out)).all("div") == []
