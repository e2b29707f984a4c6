"""The pages atmsim writes (report.html, index.html), parsed with the standard library's
html.parser into a small tree, so that tests check their structure (rows, cells, images,
links) rather than their wording."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

#: Elements without an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text inside, entities decoded, as it was (no whitespace folded)."""
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    @property
    def words(self) -> str:
        """:attr:`text` with runs of whitespace folded to one space, stripped."""
        return " ".join(self.text.split())

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def iter(self) -> Iterator[Node]:
        """This node and every element under it, in document order."""
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def all(self, tag: str, cls: str | None = None) -> list[Node]:
        return [n for n in self.iter() if n.tag == tag and (cls is None or cls in n.classes)]

    def one(self, tag: str, cls: str | None = None) -> Node:
        found = self.all(tag, cls)
        assert len(found) == 1, f"{len(found)} <{tag} class={cls}> elements, expected one"
        return found[0]

    def elements(self) -> list[Node]:
        """The child elements (text left out)."""
        return [c for c in self.children if isinstance(c, Node)]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        open_tags = [n.tag for n in self.stack]
        assert tag in open_tags, f"</{tag}> closes no open element (open: {open_tags})"
        while self.stack[-1].tag != tag:
            self.stack.pop()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(text: str) -> Node:
    b = _Builder()
    b.feed(text)
    b.close()
    assert [n.tag for n in b.stack] == ["#document"], "elements left open at the end"
    return b.root


def parse_file(path: Path) -> Node:
    return parse(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------------
# What a report shows


def section(page: Node, heading: str) -> list[Node]:
    """The elements of ``<body>`` after the ``<h2>`` reading ``heading``, up to the next
    ``<h2>``."""
    body = page.one("body").elements()
    starts = [i for i, n in enumerate(body) if n.tag == "h2" and n.words == heading]
    assert starts, f"no <h2>{heading}</h2>"
    out = []
    for n in body[starts[0] + 1 :]:
        if n.tag == "h2":
            break
        out.append(n)
    return out


def table_cells(table: Node) -> tuple[list[str], list[list[str]]]:
    """A table's header cells and body rows, as folded text."""
    head = [th.words for th in table.one("thead").all("th")]
    rows = [[td.words for td in tr.all("td")] for tr in table.one("tbody").all("tr")]
    return head, rows


def data_tables(page: Node) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(caption, header, rows)`` of each ``<table class="data">``, in page order."""
    out = []
    for t in page.all("table", "data"):
        head, rows = table_cells(t)
        out.append((t.one("caption").words, head, rows))
    return out


def meta(page: Node) -> dict[str, str]:
    """The key/value table of the run (``<table class="meta">``)."""
    return {
        tr.all("td")[0].words: tr.all("td")[1].words for tr in page.one("table", "meta").all("tr")
    }


def _network_imgs(page: Node) -> list[Node]:
    return [img for f in page.all("figure", "network") for img in f.all("img")]


def embedded_pngs(page: Node) -> list[bytes]:
    """The bytes of every <img> but the network pictures (:func:`network_svgs`), each of
    which must be a base64 PNG data URI."""
    out = []
    network = [id(n) for n in _network_imgs(page)]
    for img in page.all("img"):
        if id(img) in network:
            continue
        src = img.attrs.get("src") or ""
        prefix = "data:image/png;base64,"
        assert src.startswith(prefix), src[:60]
        data = base64.b64decode(src[len(prefix) :], validate=True)
        assert data.startswith(PNG_SIGNATURE), data[:16]
        out.append(data)
    return out


def network_svgs(page: Node) -> list[bytes]:
    """The bytes of every network picture (``<figure class="network">``), each of which must
    be a base64 SVG data URI holding one well-formed <svg> document."""
    import xml.etree.ElementTree as ET

    out = []
    for img in _network_imgs(page):
        src = img.attrs.get("src") or ""
        prefix = "data:image/svg+xml;base64,"
        assert src.startswith(prefix), src[:60]
        data = base64.b64decode(src[len(prefix) :], validate=True)
        root = ET.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
        out.append(data)
    return out


def svg_texts(svg: bytes) -> list[str]:
    """The text of every <text> element of an SVG (one per line of a label)."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def assert_self_contained(page: Node, links: set[str] = frozenset()) -> None:
    """Nothing the page shows is fetched: no stylesheet, frame, object or script from
    elsewhere, every ``src`` a data: URI, no ``url()`` or ``@import`` in its CSS, and every
    ``href`` one of ``links`` (an <a>: a link to follow, never a file or a resource)."""
    for n in page.iter():
        assert n.tag not in ("link", "iframe", "frame", "object", "embed", "base"), n.tag
        src = n.attrs.get("src")
        if src is not None:
            assert src.startswith("data:"), f"<{n.tag} src={src[:60]}>"
        href = n.attrs.get("href")
        if href is not None:
            assert n.tag == "a" and href in links, f"<{n.tag} href={href}>"
        for key, value in n.attrs.items():
            assert not key.startswith("on"), f"<{n.tag} {key}={value}>"
    for style in page.all("style"):
        assert "url(" not in style.text and "@import" not in style.text
