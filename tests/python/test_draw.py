"""Network pictures (atmsim.draw, `atmsim scenario draw`, the reports' Network section): what
each picture names is read back from the SVG's <text> elements and compared with what
atmsim.describe computes, never with typed-in numbers."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

import atmsim
from atmsim import describe, scenarios, topologies
from atmsim.pictures import (
    ROUTE_COLOURS,
    DrawError,
    distinct_networks,
    draw_network,
    format_delay,
    format_rate,
    name_ranges,
    network_pictures,
    topology_key,
)
from conftest import run_cli
from htmlpage import assert_self_contained, embedded_pngs, network_svgs, parse_file, svg_texts


def _texts(path: Path) -> list[str]:
    return svg_texts(path.read_bytes())


def _switches(network: dict) -> list[str]:
    return list(dict.fromkeys(p["node"] for p in network["ports"] if p["node_kind"] == "switch"))


def _link_labels(network: dict) -> set[str]:
    """Each link's ``rate, delay`` text, formatted from describe's numbers by the rule."""
    return {
        f"{format_rate(p['line_rate_bps'])}"
        + ("" if p["framing"] == "none" else f" {p['framing'].upper()}")
        + f", {format_delay(p['delay_s'])}"
        for p in network["ports"]
    }


def _check_picture(path: Path, network: dict) -> list[str]:
    """The picture names every switch, every link's rate and delay and every bottleneck."""
    texts = _texts(path)
    joined = "\n".join(texts)
    for switch in _switches(network):
        assert switch in texts, (path.name, switch)
    for label in _link_labels(network):
        assert label in joined, (path.name, label)
    bottlenecks = sorted({c["bottleneck"] for c in network["connections"]})
    legend = [t for t in texts if t.startswith("bottleneck port")]
    assert len(legend) == 1, texts
    for port in bottlenecks:
        assert port in legend[0], (port, legend)
    return texts


# --------------------------------------------------------------------------------------------
# Numbers and names by rule


@pytest.mark.parametrize(
    ("bps", "text"),
    [
        (155.52e6, "155.52 Mb/s"),
        (154181818.18, "154.18 Mb/s"),
        (2.4e9, "2.4 Gb/s"),
        (64e3, "64 kb/s"),
    ],
)
def test_rates_are_formatted_by_rule(bps: float, text: str) -> None:
    assert format_rate(bps) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(5e-6, "5 µs"), (5e-7, "500 ns"), (1e-3, "1 ms"), (0.1, "100 ms"), (2.0, "2 s"), (0, "0 s")],
)
def test_delays_are_formatted_by_rule(seconds: float, text: str) -> None:
    assert format_delay(seconds) == text


def test_name_ranges() -> None:
    assert name_ranges([f"src{i}" for i in range(1, 6)]) == "src1..src5"
    assert name_ranges(["vbr", *(f"s{i}" for i in range(1, 16))]) == "vbr, s1..s15"
    assert name_ranges(["h1", "h2"]) == "h1, h2"
    assert name_ranges(["a", "b", "c", "d"], limit=2) == "a, b, …"


# --------------------------------------------------------------------------------------------
# Pictures of the built-in scenarios


@pytest.mark.parametrize("name", ["cheon1998-epd-500", "goyal1998-merge", "fang1994-an2-n1"])
def test_picture_names_switches_links_and_bottleneck(name: str, tmp_path: Path) -> None:
    """A parking lot (hosts collapsed), a tree of switches and a host-link bottleneck."""
    network = describe(name)["network"]
    path = atmsim.draw(name, tmp_path / f"{name}.svg")
    assert path == tmp_path / f"{name}.svg"
    texts = _check_picture(path, network)
    assert not any("connections)" in t for t in texts)  # no routes unless asked


@pytest.mark.slow
def test_every_builtin_draws(tmp_path: Path) -> None:
    """Every built-in scenario, with its routes (from describe alone: nothing is run)."""
    for name in scenarios.names():
        path = atmsim.draw(name, tmp_path / f"{name}.svg", routes=True)
        _check_picture(path, describe(name)["network"])


def test_hosts_on_one_switch_are_one_node(tmp_path: Path) -> None:
    """Cheon's parking lot: each group of five sources and the fifteen sinks is one node named
    by its range and count; nothing else of the 30 hosts is drawn."""
    network = describe("cheon1998-epd-500")["network"]
    texts = _texts(atmsim.draw("cheon1998-epd-500", tmp_path / "p.svg"))
    hosts = [p["node"] for p in network["ports"] if p["node_kind"] == "host"]
    sinks = [h for h in hosts if h.startswith("dst")]
    assert f"{name_ranges(sinks, 2)}" in texts
    assert f"({len(sinks)} hosts)" in texts
    assert not any(h in texts for h in hosts)


def test_a_thousand_connections_stay_readable(tmp_path: Path) -> None:
    """300 connections of a parking lot: a handful of nodes and labels, not hundreds."""
    sc = topologies.parking_lot(name="big", per_group=100)
    network = describe(sc)["network"]
    path = atmsim.draw(sc, tmp_path / "big.svg", routes=True)
    texts = _check_picture(path, network)
    assert "(100 hosts)" in texts and "(300 hosts)" in texts
    assert len(texts) < 40, len(texts)
    routes = [t for t in texts if "connections)" in t]
    assert len(routes) == 3 and all("(100 connections)" in t for t in routes), routes


def test_a_network_of_two_parts(tmp_path: Path) -> None:
    """Two dumbbells sharing nothing: both drawn (one below the other), both bottlenecks."""

    def link(a: str, b: str, rate: str, delay: str = "0 s") -> dict:
        return {"between": [a, b], "rate": rate, "delay": delay}

    sc = {
        "name": "two-parts",
        "switch": [{"name": n} for n in "ABCD"],
        "link": [
            link("h1", "A", "155.52 Mb/s"),
            link("A", "B", "10 Mb/s", "1 ms"),
            link("B", "r1", "155.52 Mb/s"),
            link("h2", "C", "155.52 Mb/s"),
            link("C", "D", "20 Mb/s", "2 ms"),
            link("D", "r2", "155.52 Mb/s"),
        ],
        "connection": [
            {"name": "s1", "from": "h1", "to": "r1", "via": ["A", "B"]},
            {"name": "s2", "from": "h2", "to": "r2", "via": ["C", "D"]},
        ],
    }
    texts = _check_picture(atmsim.draw(sc, tmp_path / "two.svg"), describe(sc)["network"])
    assert "bottleneck ports: A->B, C->D" in texts


def test_routes_on_request(tmp_path: Path) -> None:
    """Each distinct drawn path one legend entry naming its connections and hops."""
    network = describe("cheon1998-epd-500")["network"]
    texts = _texts(atmsim.draw("cheon1998-epd-500", tmp_path / "r.svg", routes=True))
    entries = [t for t in texts if " → " in t]
    firsts = {c["path"][1] for c in network["connections"]}  # the switch each group enters
    assert len(entries) == len(firsts)
    for switch in firsts:
        assert any(f"→ {switch} →" in e for e in entries), (switch, entries)
    assert sum(int(e.split("(")[1].split()[0]) for e in entries) == len(network["connections"])


def test_many_routes_cap_the_legend(tmp_path: Path) -> None:
    """goyal1998-merge: 15 connections on 15 distinct paths; ROUTE_COLOURS of them named, the
    rest counted in one entry."""
    network = describe("goyal1998-merge")["network"]
    n = len({tuple(c["path"]) for c in network["connections"]})
    assert n > ROUTE_COLOURS
    texts = _texts(atmsim.draw("goyal1998-merge", tmp_path / "m.svg", routes=True))
    assert len([t for t in texts if " → " in t]) == ROUTE_COLOURS
    rest = n - ROUTE_COLOURS
    assert f"{rest} more routes ({rest} connections)" in texts


def test_the_same_scenario_draws_the_same_bytes(tmp_path: Path) -> None:
    for suffix in (".svg", ".png"):
        a = atmsim.draw("fang1994-cell-drop", tmp_path / f"a{suffix}", routes=True)
        b = atmsim.draw("fang1994-cell-drop", tmp_path / f"b{suffix}", routes=True)
        assert a.read_bytes() == b.read_bytes(), suffix
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unsupported_suffix(tmp_path: Path) -> None:
    with pytest.raises(DrawError, match=r"\.pdf.*\.svg, \.png"):
        atmsim.draw("fang1994-cell-drop", tmp_path / "x.pdf")
    with pytest.raises(DrawError):
        draw_network(describe("fang1994-cell-drop")["network"], tmp_path / "x")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# The command


@pytest.mark.slow
def test_cli_draws_and_is_deterministic_across_processes(tmp_path: Path) -> None:
    out = []
    for name in ("one.svg", "two.svg"):
        proc = run_cli(
            "scenario", "draw", "fang1994-cell-drop", "-o", str(tmp_path / name), "--routes"
        )
        assert proc.returncode == 0, proc.stderr
        assert str(tmp_path / name) in proc.stdout
        out.append((tmp_path / name).read_bytes())
    assert out[0] == out[1]


def test_cli_set_changes_the_picture(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """In this process (atmsim.cli.main): the command's --set reaches the picture."""
    from atmsim.cli import main

    path = tmp_path / "slow.svg"
    args = [
        "scenario",
        "draw",
        "fang1994-cell-drop",
        "-o",
        str(path),
        "--set",
        "link.A-B.delay=2 ms",
    ]
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == f"wrote {path}"
    network = describe("fang1994-cell-drop", overrides={"link.A-B.delay": "2 ms"})["network"]
    _check_picture(path, network)
    assert any(t.endswith(", 2 ms") for t in _texts(path))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["no-such-scenario", "-o", "x.svg"], "no-such-scenario"),
        (["fang1994-cell-drop", "-o", "x.pdf"], "'.pdf'"),
        (["fang1994-cell-drop", "-o", "x.svg", "--set", "link.A-B.delay=fast"], "delay"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    proc = run_cli("scenario", "draw", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("atmsim: error:"), proc.stderr
    assert needle in lines[0]
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# Reports


def test_one_picture_per_distinct_network(tmp_path: Path) -> None:
    """Runs that differ only in run length or buffers share a picture; a changed link delay
    makes another, whose caption says which override made it."""
    uses = [
        ("fang1994-cell-drop", "fang1994-cell-drop", {"run.duration": "20 s"}),
        ("fang1994-cell-drop", "fang1994-cell-drop", {"switch.*.vc_buffer": "512 cells"}),
        ("fang1994-an2", "fang1994-an2", {}),
        ("fang1994-cell-drop", "fang1994-cell-drop", {"link.A-B.delay": "2 ms"}),
    ]
    keys = list(
        dict.fromkeys(topology_key(describe(s, overrides=o)["network"]) for _, s, o in uses)
    )
    pictures = network_pictures(uses, tmp_path)
    assert len(pictures) == len(keys) == 2
    assert [p.path for p in pictures] == [tmp_path / "network-1.svg", tmp_path / "network-2.svg"]
    first, second = pictures
    assert "`fang1994-cell-drop`" in first.caption and "`fang1994-an2`" in first.caption
    assert "`fang1994-an2`" not in second.caption
    assert "`link.A-B.delay = 2 ms`" in second.caption
    # Fewer networks the next time: the extra picture goes.
    again = network_pictures(uses[:1], tmp_path)
    assert [p.path for p in again] == [tmp_path / "network-1.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["network-1.svg"]


def test_a_sweep_grid_that_changes_the_network_gets_a_picture_per_network(
    tmp_path: Path,
) -> None:
    """The sweep report's pictures come from its stored sweep.json: every grid point, with
    the fixed overrides; a grid over a link's delay gives one picture per delay."""
    from atmsim.sweep.report import _network_uses

    spec = {
        "scenario": "fang1994-cell-drop",
        "set": {"run.duration": "1 s", "run.warmup": "0.2 s"},
        "grid": {
            "link.A-B.delay": ["1 ms", "3 ms"],
            "switch.*.vc_buffer": ["256 cells", "512 cells"],
        },
    }
    uses = _network_uses(spec)
    assert len(uses) == 4
    pictures = network_pictures(uses, tmp_path)
    assert len(pictures) == 2
    for picture, delay in zip(pictures, ("1 ms", "3 ms"), strict=True):
        assert f"`link.A-B.delay = {delay}`" in picture.caption
        assert "vc_buffer" not in picture.caption  # a switch setting: no part of the picture
        assert any(t.endswith(f", {delay}") for t in _texts(picture.path))


def test_a_scenario_that_no_longer_validates_is_named_not_drawn(tmp_path: Path) -> None:
    missing = tmp_path / "gone.toml"
    pictures = network_pictures([("gone", str(missing), {})], tmp_path)
    assert len(pictures) == 1 and pictures[0].path is None
    assert "gone" in pictures[0].caption and pictures[0].error


def _job_networks(name: str) -> list[tuple[str, set[str]]]:
    """``(topology key, scenario names)`` of a quick reproduction's jobs, from describe."""
    jobs = importlib.import_module(f"atmsim.reproduce.{name}").REPRODUCTION.jobs(True)
    found: dict[str, set[str]] = {}
    for j in jobs:
        over = dict(j.overrides)
        key = topology_key(describe(j.scenario, overrides=over)["network"])
        found.setdefault(key, set()).add(Path(str(j.scenario)).stem)
    return list(found.items())


def test_reproduction_report_has_its_networks(quick_reproductions, tmp_path: Path) -> None:
    """The quick fang1994 report: one SVG per distinct network of its runs, beside the report
    and embedded in its Network section, each naming the switches and the bottleneck and its
    caption the scenarios that use it; `atmsim report DIR` draws them again."""
    src, code = quick_reproductions("fang1994")
    assert code == 0
    expected = _job_networks("fang1994")
    page = parse_file(src / "report.html")
    svgs = network_svgs(page)
    assert len(svgs) == len(expected) == len(list(src.glob("network-*.svg")))
    figures = page.all("figure", "network")
    for i, (fig, svg, (_key, names)) in enumerate(zip(figures, svgs, expected, strict=True), 1):
        assert svg == (src / f"network-{i}.svg").read_bytes()
        caption = fig.one("figcaption").words
        for n in names:
            assert n in caption, (n, caption)
        texts = svg_texts(svg)
        assert "A" in texts and "B" in texts
        assert any(t.startswith("bottleneck port") for t in texts)
    assert len(embedded_pngs(page)) == 11  # the figures are still every PNG
    assert_self_contained(page)
    # Rebuilt from the stored runs: the pictures come back, the same bytes.
    out = tmp_path / "fang1994"
    shutil.copytree(src, out)
    before = {p.name: p.read_bytes() for p in out.glob("network-*.svg")}
    for p in out.glob("network-*.svg"):
        p.unlink()
    proc = run_cli("report", str(out))
    assert proc.returncode == 0, proc.stderr
    assert {p.name: p.read_bytes() for p in out.glob("network-*.svg")} == before
    assert len(network_svgs(parse_file(out / "report.html"))) == len(before)


@pytest.mark.slow
def test_every_reproduction_groups_its_runs_by_network() -> None:
    """distinct_networks over every reproduction's quick runs: no run fails to describe, and
    the groups are those of describing each run alone (seeds and repeats together)."""
    from atmsim.reproduce import available

    for name in available():
        expected = _job_networks(name)
        jobs = importlib.import_module(f"atmsim.reproduce.{name}").REPRODUCTION.jobs(True)
        found, errors = distinct_networks(
            [(Path(str(j.scenario)).stem, j.scenario, j.overrides) for j in jobs]
        )
        assert errors == []
        got = [(e["key"], {n for n, _ in e["uses"]}) for e in found]
        assert got == expected, name


def test_topology_key_ignores_buffers_and_run() -> None:
    base = describe("fang1994-cell-drop")["network"]
    bigger = describe(
        "fang1994-cell-drop", overrides={"switch.*.vc_buffer": "999 cells", "run.duration": "20 s"}
    )["network"]
    assert topology_key(base) == topology_key(bigger)
    slower = describe("fang1994-cell-drop", overrides={"link.A-B.delay": "1 ms"})["network"]
    assert topology_key(base) != topology_key(slower)
    assert json.loads(topology_key(base))["bottlenecks"] == ["A->B"]
