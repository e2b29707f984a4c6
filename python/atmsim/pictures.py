"""Pictures of a scenario's network: switches, hosts, links and bottlenecks.

:func:`draw` draws what :func:`atmsim.describe` computes (``describe(s)["network"]``): switches
as squares, hosts as circles, each link labelled with its line rate and one-way delay
(``155.52 Mb/s, 1 ms``), the connections' bottleneck ports in red with an arrow in the
direction of the port, and on request (``routes=True``) each connection's route as a
coloured path. Hosts that attach to the same switch by links of the same rate, delay and
framing are drawn as one node (``src1..src5 (5 hosts)``) when there are more than
:data:`COLLAPSE_OVER` of them, so that networks of hundreds of connections stay readable;
connections that take the same drawn path share one route and one legend entry.

The layout is computed here, the same on every machine: the switches' backbone (the longest
chain of switches) left to right, every other node fanned around the node it hangs from.
The picture is SVG or PNG by the file's suffix; the same network draws the same bytes (the
SVG's ids are salted with a fixed string and its date left out; text stays text, so the
names can be searched for).

Reports (:func:`network_pictures`) draw one picture per distinct network among their
scenarios: the same ports, kinds, rates, delays and bottlenecks. Pictures are kept in memory
by that key, so a network that appears in several reproductions is drawn once a process.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "COLLAPSE_OVER",
    "SUFFIXES",
    "DrawError",
    "NetworkPicture",
    "draw",
    "distinct_networks",
    "draw_network",
    "format_delay",
    "format_rate",
    "name_ranges",
    "network_pictures",
    "topology_key",
]

#: Picture formats, by the file's suffix.
SUFFIXES = {".svg": "svg", ".png": "png"}

#: Hosts on one switch with the same link parameters are drawn as one node above this many.
COLLAPSE_OVER = 3

#: Routes given a colour and a legend entry of their own; the rest are drawn grey, together.
ROUTE_COLOURS = 8

#: Bottleneck ports named in the legend before "and N more".
BOTTLENECKS_NAMED = 4

_SWITCH = {"face": "#d6e6f5", "edge": "#1f5fa8"}
_HOST = {"face": "#f2f2f2", "edge": "#555555"}
_GROUP = {"face": "#fff4d6", "edge": "#a07c10"}
_LINK = "#7a7a7a"
_BOTTLENECK = "#c0392b"
_OTHER_ROUTES = "#b0b0b0"

#: Distances of the layout, in data units (about half an inch each in the picture).
_SPINE_STEP = 4.5
_HOST_RADIUS = 1.8
_SWITCH_RADIUS = 3.4
_LANE = 0.14
_INCH_PER_UNIT = 0.6
#: The widest angle between two children fanned around a node.
_FAN_STEP = math.radians(55)
#: The width of one character of a 7-8 point label, in data units.
_CHAR = 0.095


class DrawError(ValueError):
    """A picture that cannot be drawn as asked (an unsupported file suffix)."""


# --------------------------------------------------------------------------------------------
# Numbers and names, by rule


def format_rate(bps: float) -> str:
    """``155.52 Mb/s``: the largest unit that keeps the number at least 1, five significant
    digits."""
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.5g} {unit}"
    return f"{bps:.5g} b/s"


def format_delay(seconds: float) -> str:
    """``5 µs``, ``1 ms``: the largest unit that keeps the number at least 1, four significant
    digits; ``0 s`` for none."""
    if seconds <= 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds * 1e9:.4g} ns"


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def name_ranges(names: Sequence[str], limit: int = 3) -> str:
    """Names with runs of consecutive numbers folded (``src1..src5, dst1``), the first
    ``limit`` parts and ``…`` when there are more."""
    parts: list[str] = []
    run: list[tuple[str, int, str]] = []

    def flush() -> None:
        if len(run) >= 3:
            parts.append(f"{run[0][2]}..{run[-1][2]}")
        else:
            parts.extend(r[2] for r in run)
        run.clear()

    for name in names:
        m = _NUMBERED.match(name)
        if m and run and m.group(1) == run[-1][0] and int(m.group(2)) == run[-1][1] + 1:
            run.append((m.group(1), int(m.group(2)), name))
            continue
        flush()
        if m:
            run.append((m.group(1), int(m.group(2)), name))
        else:
            parts.append(name)
    flush()
    if len(parts) > limit:
        return ", ".join(parts[:limit]) + ", …"
    return ", ".join(parts)


# --------------------------------------------------------------------------------------------
# The network as drawn: nodes (hosts collapsed into groups) and edges


@dataclass
class _Node:
    id: str
    kind: str  # "switch", "host" or "group"
    members: tuple[str, ...]
    order: int

    @property
    def label(self) -> str:
        if self.kind != "group":
            return self.id
        return f"{name_ranges(self.members, 2)}\n({len(self.members)} hosts)"

    @property
    def short(self) -> str:
        return self.id if self.kind != "group" else name_ranges(self.members, 2)


@dataclass
class _Edge:
    a: str
    b: str
    #: one text per distinct set of link parameters, with how many links have it
    params: dict[str, int] = field(default_factory=dict)
    #: bottleneck ports on this edge: (from node, to node, port name)
    bottlenecks: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        texts = []
        for text, n in self.params.items():
            texts.append(text if n == 1 else f"{n} links: {text}")
        return "\n".join(texts)


def _link_text(out: Mapping[str, Any], back: Mapping[str, Any] | None) -> str:
    """``155.52 Mb/s, 1 ms`` for a link (both ports), the two rates when they differ and the
    framing when it is not ``none``."""
    rate = format_rate(float(out["line_rate_bps"]))
    if back is not None and float(back["line_rate_bps"]) != float(out["line_rate_bps"]):
        rate = (
            f"{format_rate(float(out['line_rate_bps']))} {out['node']}→{out['to']} / "
            f"{format_rate(float(back['line_rate_bps']))} back"
        )
    framing = "" if out.get("framing", "none") == "none" else f" {str(out['framing']).upper()}"
    return f"{rate}{framing}, {format_delay(float(out['delay_s']))}"


@dataclass
class _Drawn:
    nodes: dict[str, _Node]
    edges: dict[tuple[str, str], _Edge]
    node_of: dict[str, str]
    bottleneck_ports: list[str]


def _collapse(network: Mapping[str, Any], collapse_over: int) -> _Drawn:
    ports = list(network["ports"])
    kinds: dict[str, str] = {}
    for p in ports:
        kinds.setdefault(str(p["node"]), str(p["node_kind"]))
    for p in ports:
        kinds.setdefault(str(p["to"]), "host")
    by_name = {str(p["name"]): p for p in ports}
    reverse = {
        (str(p["node"]), str(p["to"]), p["link"]): by_name.get(f"{p['to']}->{p['node']}")
        for p in ports
    }
    # Hosts with one link, to a switch: grouped by switch and link parameters.
    out_ports: dict[str, list[Mapping[str, Any]]] = {}
    for p in ports:
        out_ports.setdefault(str(p["node"]), []).append(p)
    groups: dict[tuple[Any, ...], list[str]] = {}
    for name, kind in kinds.items():
        mine = out_ports.get(name, [])
        if kind != "host" or len(mine) != 1 or kinds.get(str(mine[0]["to"])) != "switch":
            continue
        p = mine[0]
        back = reverse[(name, str(p["to"]), p["link"])]
        key = (str(p["to"]), _link_text(p, back))
        groups.setdefault(key, []).append(name)
    node_of = {name: name for name in kinds}
    group_ids: dict[str, tuple[str, ...]] = {}
    for (switch, _text), members in groups.items():
        if len(members) > collapse_over:
            gid = f"{members[0]}..{members[-1]} at {switch}"
            group_ids[gid] = tuple(members)
            for m in members:
                node_of[m] = gid
    nodes: dict[str, _Node] = {}
    for name, kind in kinds.items():
        drawn = node_of[name]
        if drawn not in nodes:
            if drawn in group_ids:
                nodes[drawn] = _Node(drawn, "group", group_ids[drawn], len(nodes))
            else:
                nodes[drawn] = _Node(drawn, kind, (name,), len(nodes))
    edges: dict[tuple[str, str], _Edge] = {}
    seen_links: set[Any] = set()
    for p in ports:
        a, b = node_of[str(p["node"])], node_of[str(p["to"])]
        key = (a, b) if nodes[a].order <= nodes[b].order else (b, a)
        edge = edges.setdefault(key, _Edge(*key))
        if p["link"] not in seen_links:
            seen_links.add(p["link"])
            text = _link_text(p, reverse[(str(p["node"]), str(p["to"]), p["link"])])
            edge.params[text] = edge.params.get(text, 0) + 1
    # In the ports' order: what the picture shows depends on the set, not on which
    # connection came first (see topology_key).
    marked = {str(c.get("bottleneck")) for c in network.get("connections", [])}
    bottleneck_ports = [str(p["name"]) for p in ports if str(p["name"]) in marked]
    for port in bottleneck_ports:
        p = by_name[port]
        a, b = node_of[str(p["node"])], node_of[str(p["to"])]
        key = (a, b) if (a, b) in edges else (b, a)
        if (a, b, port) not in edges[key].bottlenecks:
            edges[key].bottlenecks.append((a, b, port))
    return _Drawn(nodes, edges, node_of, bottleneck_ports)


# --------------------------------------------------------------------------------------------
# Layout: the switches' backbone left to right, everything else fanned around its parent


def _angle(p: tuple[float, float], q: tuple[float, float]) -> float:
    return math.atan2(q[1] - p[1], q[0] - p[0]) % (2 * math.pi)


def _farthest(graph: Any, start: str, order: Mapping[str, int]) -> str:
    import networkx as nx

    dist = nx.single_source_shortest_path_length(graph, start)
    return max(dist, key=lambda n: (dist[n], -order[n]))


def _spine(graph: Any, component: Iterable[str], order: Mapping[str, int]) -> list[str]:
    """The longest shortest path of a component, its ends trimmed where they are one leaf
    among several on the same switch (so that the leaves fan out alike)."""
    import networkx as nx

    sub = graph.subgraph(component)
    first = min(sub, key=lambda n: order[n])
    a = _farthest(sub, first, order)
    b = _farthest(sub, a, order)
    path = list(nx.shortest_path(sub, a, b))
    while len(path) > 2 and sub.degree(path[0]) == 1 and sub.degree(path[1]) > 2:
        path.pop(0)
    while len(path) > 2 and sub.degree(path[-1]) == 1 and sub.degree(path[-2]) > 2:
        path.pop()
    return path


def _layout(d: _Drawn) -> dict[str, tuple[float, float]]:
    import networkx as nx

    order = {n: node.order for n, node in d.nodes.items()}
    full = nx.Graph()
    full.add_nodes_from(sorted(d.nodes, key=order.__getitem__))
    for a, b in d.edges:
        if a != b:
            full.add_edge(a, b)
    switches = [n for n in full if d.nodes[n].kind == "switch"]
    backbone = full.subgraph(switches) if switches else full
    # Every connected part of the picture, and the backbone chain of each.
    spines: list[list[str]] = []
    for comp in sorted(nx.connected_components(full), key=lambda c: min(order[n] for n in c)):
        core = [n for n in comp if n in backbone]
        core_graph = backbone.subgraph(core)
        if not core:
            core = [min(comp, key=order.__getitem__)]
            core_graph = full.subgraph(core)
        parts = sorted(nx.connected_components(core_graph), key=lambda c: min(order[n] for n in c))
        spine = _spine(core_graph, parts[0], order)
        spines.append(_orient(spine, d))
    # A tree: every node hangs from the spine node or node it was first reached from.
    children: dict[str, list[str]] = {n: [] for n in full}
    parent: dict[str, str | None] = {}
    on_spine: set[str] = set()
    for spine in spines:
        on_spine.update(spine)
        for n in spine:
            parent[n] = None
    frontier = [n for spine in spines for n in spine]
    while frontier:
        nxt = []
        for n in frontier:
            neighbours = sorted(full[n], key=lambda m: (d.nodes[m].kind != "switch", order[m]))
            for m in neighbours:
                if m not in parent:
                    parent[m] = n
                    children[n].append(m)
                    nxt.append(m)
        frontier = nxt
    # Nodes no spine reaches (other parts of a component without switches): hang them
    # from nothing, placed below.
    for n in full:
        parent.setdefault(n, None)

    # Sizes: how far each node's subtree reaches from it.
    extent: dict[str, float] = {}

    def reach(n: str) -> float:
        if n not in extent:
            extent[n] = max(
                (_child_radius(d, n, c, reach(c)) + reach(c) for c in children[n]), default=0.0
            )
        return extent[n]

    for n in full:
        reach(n)

    pos: dict[str, tuple[float, float]] = {}
    y0 = 0.0
    for spine in spines:
        # Each spine node's subtree laid out around it alone (its links along the spine
        # point left and right whatever their length), then the nodes spaced so that
        # neighbouring subtrees keep clear of each other.
        local: list[dict[str, tuple[float, float]]] = []
        for i, n in enumerate(spine):
            around = {n: (0.0, 0.0)}
            occupied = ([math.pi] if i > 0 else []) + ([0.0] if i < len(spine) - 1 else [])
            _fan(n, occupied, children, d, around, extent, cap=None)
            local.append(around)
        x = 0.0
        placed: dict[str, tuple[float, float]] = {}
        for i, (n, around) in enumerate(zip(spine, local, strict=True)):
            if i > 0:
                prev, before = spine[i - 1], local[i - 1]
                reach_right = max(px + _half_width(d, m) for m, (px, _) in before.items())
                reach_left = min(px - _half_width(d, m) for m, (px, _) in around.items())
                x += max(_SPINE_STEP, _edge_room(d, prev, n), reach_right - reach_left + 0.8)
            placed.update({m: (x + px, py) for m, (px, py) in around.items()})
        # A further part of the network goes below the one before.
        top = max(py for _, py in placed.values())
        if pos:
            y0 = min(py for _, py in pos.values()) - 4.0 - top
        pos.update({m: (px, y0 + py) for m, (px, py) in placed.items()})
    y0 = min((py for _, py in pos.values()), default=0.0) - 2.5
    for n in full:
        if n not in pos:
            pos[n] = (0.0, y0)
            y0 -= 2.5
    return pos


def _half_width(d: _Drawn, n: str) -> float:
    """Half the width of node ``n``'s box, in data units."""
    return max(len(line) for line in d.nodes[n].label.splitlines()) * _CHAR / 2 + 0.4


def _orient(spine: list[str], d: _Drawn) -> list[str]:
    """Left to right in the direction of the first bottleneck port along it, else from the
    node named first."""
    index = {n: i for i, n in enumerate(spine)}
    for edge in d.edges.values():
        for a, b, _port in edge.bottlenecks:
            if a in index and b in index:
                return spine if index[a] < index[b] else spine[::-1]
    return spine if d.nodes[spine[0]].order <= d.nodes[spine[-1]].order else spine[::-1]


def _edge_room(d: _Drawn, a: str, b: str) -> float:
    """The length edge ``a``-``b`` needs for its label between its two nodes' boxes."""
    edge = d.edges.get((a, b)) or d.edges.get((b, a))
    text = max((len(line) for line in edge.label.splitlines()), default=0) if edge else 0
    boxes = sum(
        max((len(line) for line in d.nodes[n].label.splitlines()), default=0) * _CHAR / 2 + 0.5
        for n in (a, b)
    )
    return text * _CHAR + boxes + 0.4


def _child_radius(d: _Drawn, parent: str, kid: str, reach: float) -> float:
    """How far ``kid`` is drawn from ``parent`` (before crowding pushes it further)."""
    base = _SWITCH_RADIUS + 0.4 * reach if d.nodes[kid].kind == "switch" else _HOST_RADIUS
    return max(base, _edge_room(d, parent, kid))


def _fan(
    n: str,
    occupied: list[float],
    children: Mapping[str, list[str]],
    d: _Drawn,
    pos: dict[str, tuple[float, float]],
    extent: Mapping[str, float],
    cap: float | None,
) -> None:
    """Place ``n``'s children in the free directions around it (the widest gaps between the
    directions ``occupied`` by its links already drawn), then theirs, recursively."""
    kids = children[n]
    if not kids:
        return
    two_pi = 2 * math.pi
    margin = math.radians(35)
    occ = sorted(a % two_pi for a in occupied)
    gaps: list[tuple[float, float]] = []  # (centre, usable width)
    if not occ:
        gaps = [(math.pi, math.radians(300))]
    elif len(occ) == 1:
        limit = math.radians(cap or 200)
        gaps = [((occ[0] + math.pi) % two_pi, min(two_pi - 2 * margin, limit))]
    else:
        for i, a in enumerate(occ):
            b = occ[(i + 1) % len(occ)] + (two_pi if i == len(occ) - 1 else 0.0)
            width = b - a
            if width > 2 * margin:
                gaps.append(((a + width / 2) % two_pi, min(width - 2 * margin, math.radians(150))))
        if not gaps:
            gaps = [((occ[0] + math.pi / 2) % two_pi, math.radians(30))]
    # Upper gaps first: a single child of a middle switch goes above it.
    gaps.sort(key=lambda g: -math.sin(g[0]))
    assigned: list[list[str]] = [[] for _ in gaps]
    for kid in kids:
        best = max(range(len(gaps)), key=lambda i: (gaps[i][1] / (len(assigned[i]) + 1), -i))
        assigned[best].append(kid)
    x0, y0 = pos[n]
    for (centre, width), group in zip(gaps, assigned, strict=True):
        if not group:
            continue
        m = len(group)
        # A few children sit close together, around the gap's centre; many use all of it.
        width = min(width, (m - 1) * _FAN_STEP)
        angles = (
            [centre] if m == 1 else [centre - width / 2 + width * j / (m - 1) for j in range(m)]
        )
        step = width / (m - 1) if m > 1 else math.pi
        # The first child on top, the rest going down.
        angles.sort(key=lambda a: (-round(math.sin(a), 9), math.cos(a)))
        for kid, a in zip(group, angles, strict=True):
            kind = d.nodes[kid].kind
            r = _child_radius(d, n, kid, extent[kid])
            need = (2 * extent[kid] + 1.4) if kind == "switch" else 1.0
            r = max(r, need / max(step, 1e-6))
            pos[kid] = (x0 + r * math.cos(a), y0 + r * math.sin(a))
            _fan(kid, [_angle(pos[kid], (x0, y0))], children, d, pos, extent, cap=120)


# --------------------------------------------------------------------------------------------
# Routes


@dataclass
class _Route:
    path: tuple[str, ...]
    connections: list[str]


def _routes(network: Mapping[str, Any], d: _Drawn) -> list[_Route]:
    routes: dict[tuple[str, ...], _Route] = {}
    for c in network.get("connections", []):
        drawn: list[str] = []
        for n in c["path"]:
            node = d.node_of.get(str(n), str(n))
            if not drawn or drawn[-1] != node:
                drawn.append(node)
        key = tuple(drawn)
        routes.setdefault(key, _Route(key, [])).connections.append(str(c["name"]))
    return list(routes.values())


def _route_label(route: _Route, d: _Drawn) -> str:
    names = route.connections
    who = name_ranges(names, 2)
    if len(names) > 1:
        who += f" ({len(names)} connections)"
    hops = [d.nodes[n].short if n in d.nodes else n for n in route.path]
    if len(hops) > 7:
        hops = [*hops[:3], "…", *hops[-3:]]
    return f"{who}: {' → '.join(hops)}"


# --------------------------------------------------------------------------------------------
# Drawing


def topology_key(network: Mapping[str, Any]) -> str:
    """What a picture without routes shows, as text: the ports (names, kinds, link, rate,
    delay, framing) and the bottleneck ports. Two networks with one key draw one picture."""
    ports = [
        [
            p["name"],
            p["node_kind"],
            p["link"],
            float(p["line_rate_bps"]),
            float(p["delay_s"]),
            p.get("framing", "none"),
        ]
        for p in network["ports"]
    ]
    bottlenecks = sorted({str(c["bottleneck"]) for c in network.get("connections", [])})
    return json.dumps({"ports": ports, "bottlenecks": bottlenecks}, sort_keys=True)


def _format_of(path: Path) -> str:
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise DrawError(
            f"{path}: unsupported picture suffix {path.suffix or '(none)'!r}; "
            f"expected one of {', '.join(SUFFIXES)}"
        )
    return fmt


def draw_network(
    network: Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    routes: bool = False,
    title: str = "",
    collapse_over: int = COLLAPSE_OVER,
) -> Path:
    """Draw ``network`` (``atmsim.describe(s)["network"]``) into ``path`` (``.svg`` or
    ``.png``); returns the path. ``routes``: each connection's route as a coloured path."""
    out = Path(path)
    fmt = _format_of(out)
    data = _picture(network, fmt, routes=routes, title=title, collapse_over=collapse_over)
    from atmsim.storage import atomic_write

    out.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(out, data)


def draw(
    scenario: Any,
    path: str | os.PathLike[str],
    routes: bool = False,
    *,
    overrides: Any = None,
    title: str | None = None,
) -> Path:
    """Draw a scenario's network (a built-in name, a TOML file or a dict, with
    ``overrides`` as in :func:`atmsim.run`) into ``path``: SVG or PNG by its suffix.
    ``routes``: each connection's route as a coloured path, identical routes together.
    ``title`` defaults to the scenario's name and its counts. Returns the path."""
    from atmsim.api import describe

    out = Path(path)
    _format_of(out)  # before any work: a wrong suffix is the caller's first error
    info = describe(scenario, overrides=overrides)
    if title is None:
        name = _scenario_name(scenario, info)
        title = (
            f"{name}: {info['switches']} switches, {info['hosts']} hosts, "
            f"{info['connections']} connections"
        )
    return draw_network(info["network"], out, routes=routes, title=title)


def _scenario_name(scenario: Any, info: Mapping[str, Any]) -> str:
    if isinstance(scenario, Mapping) and scenario.get("name"):
        return str(scenario["name"])
    return Path(str(info.get("source", scenario))).stem


def _picture(
    network: Mapping[str, Any], fmt: str, *, routes: bool, title: str, collapse_over: int
) -> bytes:
    """The picture's bytes (``fmt``: ``svg`` or ``png``)."""
    import io

    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    d = _collapse(network, collapse_over)
    pos = _layout(d)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad = 1.6
    x_lo, x_hi = min(xs) - pad, max(xs) + pad
    y_lo, y_hi = min(ys) - pad, max(ys) + pad
    # Half an inch or so per unit, the picture at most 22 x 16 inches; a narrow network gets
    # room at its sides, a flat one above and below, so that the scale stays the same.
    scale = min(_INCH_PER_UNIT, 22.0 / (x_hi - x_lo), 16.0 / (y_hi - y_lo))
    grow_x = max(0.0, 6.5 / scale - (x_hi - x_lo)) / 2
    grow_y = max(0.0, 1.8 / scale - (y_hi - y_lo)) / 2
    x_lo, x_hi, y_lo, y_hi = x_lo - grow_x, x_hi + grow_x, y_lo - grow_y, y_hi + grow_y
    route_list = _routes(network, d) if routes else []
    with mpl.rc_context({"svg.hashsalt": "atmsim-network", "svg.fonttype": "none", "font.size": 8}):
        fig = Figure(layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        ax.set_axis_off()
        ax.set_xlim(x_lo, x_hi)
        ax.set_ylim(y_lo, y_hi)
        ax.set_aspect("equal", adjustable="box")
        handles = _draw_edges(ax, d, pos)
        if routes:
            handles += _draw_routes(ax, d, pos, route_list)
        _draw_nodes(ax, d, pos)
        handles = _node_handles(d) + handles
        if title:
            ax.set_title(title, fontsize=10)
        ncols = 1 if routes else min(len(handles), 4)
        fig.legend(
            handles=handles, loc="outside lower center", ncols=ncols, frameon=False, fontsize=8
        )
        rows = math.ceil(len(handles) / max(ncols, 1))
        fig.set_size_inches(
            (x_hi - x_lo) * scale + 0.2,
            (y_hi - y_lo) * scale + 0.21 * rows + (0.45 if title else 0.2) + 0.1,
        )
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=110, metadata=metadata)
    return buf.getvalue()


def _draw_edges(ax: Any, d: _Drawn, pos: Mapping[str, tuple[float, float]]) -> list[Any]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    for edge in d.edges.values():
        (x1, y1), (x2, y2) = pos[edge.a], pos[edge.b]
        many = sum(edge.params.values()) > 1 or d.nodes[edge.b].kind == "group"
        colour = _BOTTLENECK if edge.bottlenecks else _LINK
        ax.plot(
            [x1, x2], [y1, y2], color=colour, lw=(3.2 if many else 1.6), zorder=1,
            solid_capstyle="round",
        )  # fmt: skip
        angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
        if angle > 90:
            angle -= 180
        elif angle <= -90:
            angle += 180
        ax.text(
            (x1 + x2) / 2, (y1 + y2) / 2, edge.label, rotation=angle, rotation_mode="anchor",
            ha="center", va="center", fontsize=7, color="#333333", zorder=4,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85},
        )  # fmt: skip
        for i, (a, b, _port) in enumerate(edge.bottlenecks):
            (ax1, ay1), (bx1, by1) = pos[a], pos[b]
            length = math.hypot(bx1 - ax1, by1 - ay1) or 1.0
            nx_, ny_ = -(by1 - ay1) / length, (bx1 - ax1) / length
            off = 0.35 * (1 if i % 2 == 0 else -1)
            ax.add_patch(
                FancyArrowPatch(
                    (ax1 + 0.22 * (bx1 - ax1) + off * nx_, ay1 + 0.22 * (by1 - ay1) + off * ny_),
                    (ax1 + 0.38 * (bx1 - ax1) + off * nx_, ay1 + 0.38 * (by1 - ay1) + off * ny_),
                    arrowstyle="-|>", mutation_scale=14, color=_BOTTLENECK, lw=1.6, zorder=5,
                )
            )  # fmt: skip
    if not d.bottleneck_ports:
        return []
    named = d.bottleneck_ports[:BOTTLENECKS_NAMED]
    more = len(d.bottleneck_ports) - len(named)
    text = ("bottleneck port: " if len(d.bottleneck_ports) == 1 else "bottleneck ports: ") + (
        ", ".join(named) + (f" and {more} more" if more else "")
    )
    return [Line2D([], [], color=_BOTTLENECK, lw=3, marker=">", markersize=6, label=text)]


def _draw_routes(
    ax: Any, d: _Drawn, pos: Mapping[str, tuple[float, float]], routes: list[_Route]
) -> list[Any]:
    from matplotlib.lines import Line2D

    from atmsim.plots import palette

    colours = palette(min(len(routes), ROUTE_COLOURS), "tab10")
    lanes: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(routes):
        for u, v in zip(r.path, r.path[1:], strict=False):
            key = (u, v) if d.nodes[u].order <= d.nodes[v].order else (v, u)
            if i not in lanes.setdefault(key, []):
                lanes[key].append(i)
    lane_width = min(_LANE, 0.9 / max(len(v) for v in lanes.values())) if lanes else _LANE
    handles = {}
    # The grey ones first, under the coloured ones.
    for i in sorted(range(len(routes)), key=lambda i: -i if i >= ROUTE_COLOURS else -1e9 - i):
        r = routes[i]
        colour = colours[i] if i < ROUTE_COLOURS else _OTHER_ROUTES
        for u, v in zip(r.path, r.path[1:], strict=False):
            key = (u, v) if d.nodes[u].order <= d.nodes[v].order else (v, u)
            lane = lanes[key]
            off = (lane.index(i) - (len(lane) - 1) / 2) * lane_width
            (x1, y1), (x2, y2) = pos[key[0]], pos[key[1]]
            length = math.hypot(x2 - x1, y2 - y1) or 1.0
            ox, oy = -(y2 - y1) / length * off, (x2 - x1) / length * off
            (sx, sy), (ex, ey) = pos[u], pos[v]
            ax.annotate(
                "", xy=(ex + ox, ey + oy), xytext=(sx + ox, sy + oy),
                arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.4,
                            "shrinkA": 10, "shrinkB": 12, "mutation_scale": 9, "alpha": 0.9},
                zorder=2,
            )  # fmt: skip
        if i < ROUTE_COLOURS:
            handles[i] = Line2D([], [], color=colour, lw=2, label=_route_label(r, d))
    out = [handles[i] for i in sorted(handles)]
    if len(routes) > ROUTE_COLOURS:
        rest = routes[ROUTE_COLOURS:]
        n_conn = sum(len(r.connections) for r in rest)
        out.append(
            Line2D(
                [], [], color=_OTHER_ROUTES, lw=2,
                label=f"{len(rest)} more routes ({n_conn} connections)",
            )
        )  # fmt: skip
    return out


def _draw_nodes(ax: Any, d: _Drawn, pos: Mapping[str, tuple[float, float]]) -> None:
    for node in d.nodes.values():
        x, y = pos[node.id]
        style = {"switch": _SWITCH, "host": _HOST, "group": _GROUP}[node.kind]
        box = {"switch": "square,pad=0.5", "host": "circle,pad=0.3", "group": "round,pad=0.4"}
        ax.text(
            x, y, node.label, ha="center", va="center",
            fontsize=9 if node.kind == "switch" else 7.5,
            fontweight="bold" if node.kind == "switch" else "normal",
            zorder=6,
            bbox={"boxstyle": box[node.kind], "fc": style["face"], "ec": style["edge"],
                  "lw": 2.0 if node.kind == "group" else 1.2},
        )  # fmt: skip


def _node_handles(d: _Drawn) -> list[Any]:
    from matplotlib.lines import Line2D

    kinds = {n.kind for n in d.nodes.values()}
    out = []
    for kind, marker, style, label in (
        ("switch", "s", _SWITCH, "switch"),
        ("host", "o", _HOST, "host"),
        ("group", "s", _GROUP, "hosts on one switch with the same links"),
    ):
        if kind in kinds:
            out.append(
                Line2D(
                    [], [], ls="none", marker=marker, markersize=10, markerfacecolor=style["face"],
                    markeredgecolor=style["edge"], label=label,
                )
            )  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------
# Reports: one picture per distinct network


@dataclass
class NetworkPicture:
    """A picture for a report: its file and its caption (Markdown); or, when it could not be
    drawn, ``path`` None, ``caption`` what it would have shown (``network of NAME``) and
    ``error`` why."""

    path: Path | None
    caption: str
    error: str = ""


#: Overrides that change nothing a picture shows (the switches' keys are their ports'
#: buffers, policies and schedulers and the switching delay; no rate, delay or port): the
#: captions leave them out.
_NOT_NETWORK = ("run.", "tcp.", "abr.", "switch.")


@functools.lru_cache(maxsize=512)
def _described(text: str, source: str, overrides: str) -> dict[str, Any]:
    from atmsim import _core

    return dict(_core.describe(text, source, [tuple(p) for p in json.loads(overrides)]))


def _network(scenario: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``describe(scenario, overrides)["network"]``, kept per scenario text and overrides."""
    from atmsim.api import normalize_overrides, scenario_text

    text, source = scenario_text(scenario)
    pairs = normalize_overrides(dict(overrides))
    return _described(text, source, json.dumps(pairs))["network"]


def distinct_networks(
    uses: Sequence[tuple[str, Any, Mapping[str, Any]]],
) -> tuple[list[dict[str, Any]], list[NetworkPicture]]:
    """The distinct networks among ``uses`` (``(scenario name, scenario, overrides)``), in the
    order they first appear, each ``{"key": topology_key, "network": describe's network,
    "uses": [(name, overrides that can change it)]}``; and an entry with the error for each
    scenario that does not validate. Each distinct scenario and overrides is described
    once (runs that differ only in their seed are one); the overrides kept in ``uses`` leave
    out those of ``[run]``, ``[tcp]``, ``[abr]`` and the switches' port settings, which
    change no port, rate, delay or bottleneck (the captions name the rest)."""
    found: dict[str, dict[str, Any]] = {}
    errors: list[NetworkPicture] = []
    tried: set[str] = set()
    for name, scenario, overrides in uses:
        try:
            ident = json.dumps([name, str(scenario), sorted(overrides.items())], default=str)
        except TypeError:
            ident = repr((name, scenario, overrides))
        if ident in tried:
            continue
        tried.add(ident)
        kept = {k: v for k, v in overrides.items() if not str(k).startswith(_NOT_NETWORK)}
        try:
            network = _network(scenario, overrides)
        except Exception as exc:  # noqa: BLE001 - any scenario error is shown, not raised
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            errors.append(NetworkPicture(None, f"network of {name}", first))
            continue
        key = topology_key(network)
        entry = found.setdefault(key, {"key": key, "network": network, "uses": []})
        entry["uses"].append((name, kept))
    return list(found.values()), errors


#: Pictures drawn in this process, by topology key and format.
_PICTURES: dict[tuple[str, str], bytes] = {}


def network_pictures(
    uses: Sequence[tuple[str, Any, Mapping[str, Any]]],
    folder: str | os.PathLike[str],
    *,
    stem: str = "network",
    suffix: str = ".svg",
) -> list[NetworkPicture]:
    """One picture per distinct network among ``uses`` (``(scenario name, scenario,
    overrides)``: a built-in name, file or dict, with the overrides of its run; see
    :func:`distinct_networks`), written as ``folder/<stem>-1.svg``, ... in the order the
    networks first appear; the caption names the scenarios that use each. Pictures of
    earlier calls with more networks are removed. A scenario that no longer validates gets
    an entry with its error instead of a file. A network drawn before in this process is
    not drawn again."""
    out = Path(folder)
    fmt = SUFFIXES[suffix]
    found, errors = distinct_networks(uses)
    pictures = []
    by_scenario: dict[str, int] = {}
    for entry in found:
        for name in dict.fromkeys(n for n, _ in entry["uses"]):
            by_scenario[name] = by_scenario.get(name, 0) + 1
    written = set()
    for i, entry in enumerate(found, 1):
        path = out / f"{stem}-{i}{suffix}"
        data = _PICTURES.get((entry["key"], fmt))
        if data is None:
            data = _picture(
                entry["network"], fmt, routes=False, title="", collapse_over=COLLAPSE_OVER
            )
            _PICTURES[(entry["key"], fmt)] = data
        if not path.is_file() or path.read_bytes() != data:
            from atmsim.storage import atomic_write

            out.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)
        written.add(path.name)
        pictures.append(NetworkPicture(path, _caption(i, len(found), entry, by_scenario)))
    for old in out.glob(f"{stem}-*{suffix}"):
        if old.name not in written and re.fullmatch(rf"{re.escape(stem)}-\d+", old.stem):
            old.unlink()
    return pictures + errors


def _caption(i: int, total: int, entry: Mapping[str, Any], by_scenario: Mapping[str, int]) -> str:
    network = entry["network"]
    n_switch = len({p["node"] for p in network["ports"] if p["node_kind"] == "switch"})
    n_host = len({p["node"] for p in network["ports"] if p["node_kind"] == "host"})
    names: dict[str, list[Mapping[str, Any]]] = {}
    for name, kept in entry["uses"]:
        names.setdefault(name, []).append(kept)
    parts = []
    for name, over in names.items():
        text = f"`{name}`"
        if by_scenario.get(name, 0) > 1:
            common = {k: v for k, v in over[0].items() if all(o.get(k) == v for o in over)}
            if common:
                shown = list(common.items())[:3]
                text += " with " + ", ".join(f"`{k} = {v}`" for k, v in shown)
                if len(common) > 3:
                    text += f" and {len(common) - 3} more overrides"
        parts.append(text)
    listed = parts[:12]
    more = f" and {len(parts) - 12} more" if len(parts) > 12 else ""
    what = "scenario" if len(parts) == 1 else "scenarios"
    head = f"Network {i} of {total}" if total > 1 else "The network"
    return (
        f"{head}: {n_switch} switches, {n_host} hosts. Used by the {what} "
        + ", ".join(listed)
        + more
        + "."
    )
