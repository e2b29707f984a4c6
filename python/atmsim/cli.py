"""The ``atmsim`` command line.

    atmsim run SCENARIO --out DIR [--seed N] [--set KEY=VALUE ...] [--csv] [--pcap DIR]
               [--cell-trace FILE]
    atmsim validate SCENARIO [--set KEY=VALUE ...]
    atmsim scenario list
    atmsim scenario show NAME [--set KEY=VALUE ...]
    atmsim scenario draw NAME -o FILE.svg|png [--routes] [--set KEY=VALUE ...]
    atmsim bench [--json] [--quick] [--memory] [--large] [--repeat N]
    atmsim fingerprint [--accept] [--file PATH]
    atmsim reproduce NAME [--quick] --out DIR

Exit status: 0 success; 1 a check failed (fingerprints differ) or an output could not be
written; 2 bad input (scenario,
file, option); 3 the simulation failed; 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_SIMULATION = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad command-line input found after argument parsing (exit status 2)."""


# --------------------------------------------------------------------------------------------
# Commands


def _cmd_run(args: argparse.Namespace) -> int:
    from atmsim.api import run

    bar = None if args.quiet or not _isatty(sys.stderr) else _SimulatedTimeBar()
    try:
        traced = {"pcap": args.pcap, "cell_trace": args.cell_trace}
        res = run(args.scenario, seed=args.seed, overrides=args.set, progress=bar, **traced)
        if bar is not None:
            bar.finish()
    finally:
        if bar is not None:
            bar.close()
    written = res.write(args.out, series_format="csv" if args.csv else "parquet")
    print(_run_table(res.summary))
    written.append(Path(args.out) / "manifest.json")  # written last: the results are whole
    print("wrote " + ", ".join(str(p) for p in written))
    if res.trace is not None:
        from atmsim.trace import describe_written

        print(describe_written(res.trace))
    return EXIT_OK


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _SimulatedTimeBar:
    """A progress bar in simulated seconds on stderr (only on a terminal), redrawn at most
    ten times a second."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._last = 0.0

    def __call__(self, simulated_s: float, duration_s: float) -> None:
        import time

        now = time.monotonic()
        if self._bar is not None and now - self._last < 0.1:
            return
        self._last = now
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(
                total=round(duration_s, 6),
                unit="sim s",
                file=sys.stderr,
                dynamic_ncols=True,
                bar_format="{l_bar}{bar}| {n:.3g}/{total:.3g} sim s [{elapsed}<{remaining}]",
            )
        self._bar.n = round(simulated_s, 6)
        self._bar.refresh()

    def finish(self) -> None:
        """The run got to its end: show the bar full."""
        if self._bar is not None:
            self._bar.n = self._bar.total
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _run_table(s: dict[str, Any]) -> str:
    from atmsim import __version__, build_id

    lines = [
        f"{s.get('scenario', '?')}: seed {s.get('seed')}, {s.get('simulated_s', 0):g} s simulated "
        f"(statistics after {s.get('warmup_s', 0):g} s), {s.get('events', 0):,} events, "
        f"wall {s.get('wall_s', 0):.3f} s; atmsim {__version__} build {build_id()}",
        "",
        f"{'connection':<16} {'goodput':>9} {'thruput':>9} {'retx':>7} {'cell loss':>9} "
        f"{'timeouts':>8} {'mean RTT':>9}",
        f"{'':<16} {'Mb/s':>9} {'Mb/s':>9} {'%':>7} {'%':>9} {'':>8} {'ms':>9}",
    ]
    cell_sources = []
    for c in s.get("connections", []):
        if c.get("source", "tcp") != "tcp":
            # A cell source has no TCP: its loss and its cell transfer delay say how it fared.
            cell_sources.append(c)
            lines.append(
                f"{str(c['name'])[:16]:<16} {c['goodput_mbps']:>9.3f} {c['throughput_mbps']:>9.3f} "
                f"{'-':>7} {c['cell_loss_pct']:>9.2f} {'-':>8} {'-':>9}"
            )
            continue
        lines.append(
            f"{str(c['name'])[:16]:<16} {c['goodput_mbps']:>9.3f} {c['throughput_mbps']:>9.3f} "
            f"{c['retransmission_pct']:>7.2f} {c['cell_loss_pct']:>9.2f} {c['timeouts']:>8} "
            f"{c['mean_rtt_ms']:>9.3f}"
        )
    t = s.get("totals", {})
    if t:
        lines.append(
            f"{'total':<16} {t['goodput_mbps']:>9.3f} {t['throughput_mbps']:>9.3f} "
            f"{t['retransmission_pct']:>7.2f} {t['cell_loss_pct']:>9.2f}"
        )
        fairness = t.get("fairness_index")
        # Jain's index is undefined (null) without a TCP connection that delivered anything.
        fairness_text = "undefined" if fairness is None else f"{fairness:.4f}"
        lines.append(
            f"fairness index {fairness_text}; cells in flight at warm-up "
            f"{t['cells_in_flight_at_warmup']:,} + sent {t['cells_sent']:,} = delivered "
            f"{t['cells_delivered']:,} + dropped {t['cells_dropped']:,} + in flight "
            f"{t['cells_in_flight']:,}"
        )
    for c in cell_sources:
        delay = ""
        if c.get("cell_delay_mean_us") is not None:
            delay = (
                f", cell delay mean {c['cell_delay_mean_us']:.1f} us, "
                f"max {c['cell_delay_max_us']:.1f} us"
            )
        lines.append(
            f"{c['name']}: {c['service']} {c['source']} source, cells sent "
            f"{c['cells_sent']:,}, dropped {c['cells_dropped']:,}{delay}"
        )
    return "\n".join(lines)


def _cmd_validate(args: argparse.Namespace) -> int:
    from atmsim.api import describe

    d = describe(args.scenario, overrides=args.set)
    print(
        f"ok: {d['source']}: {_n(d['nodes'], 'node')} ({_n(d['hosts'], 'host')}, "
        f"{_n(d['switches'], 'switch')}), {_n(d['links'], 'link')}, "
        f"{_n(d['connections'], 'connection')}; "
        f"{d['duration_s']:g} s simulated, warm-up {d['warmup_s']:g} s, seed {d['seed']}"
    )
    print(
        f"estimated at most {_sci(d['estimated_events'])} events (run.max_events = "
        f"{d['max_events']}; the largest part: {d['estimated_events_largest']}) and "
        f"{_sci(d['estimated_queued_cells'])} cells queued at once (run.max_queued_cells = "
        f"{d['max_queued_cells']})"
    )
    print("\n".join(_network_table(d["network"])))
    return EXIT_OK


#: Connections `atmsim validate` lists before it abbreviates.
_VALIDATE_ROWS = 8


def _network_table(network: dict[str, Any]) -> list[str]:
    """The ports that are some connection's bottleneck, and the connections (the first
    ``_VALIDATE_ROWS``), as aligned columns: what ``atmsim.describe`` computed."""
    conns = network["connections"]
    bottlenecks = {c["bottleneck"] for c in conns}
    port_rows = [["bottleneck", "line rate", "cells/s", "delay", "buffer"]]
    for p in network["ports"]:
        if p["name"] not in bottlenecks:
            continue
        framing = "" if p["framing"] == "none" else f" {p['framing']}"
        limits = []
        if p["port_buffer_cells"] is not None:
            limits.append(f"{p['port_buffer_cells']:,} cells")
        if p["vc_buffer_cells"] is not None:
            limits.append(f"{p['vc_buffer_cells']:,} cells per VC")
        port_rows.append(
            [
                p["name"],
                f"{p['line_rate_bps'] / 1e6:.6g} Mb/s{framing}",
                f"{p['cells_per_s']:,.1f}",
                _duration(p["delay_s"]),
                ", ".join(limits) or "unlimited",
            ]
        )
    conn_rows = [
        ["connection", "kind", "path", "bottleneck", "segment", "rtt", "max goodput", "bdp"]
    ]
    for c in conns[:_VALIDATE_ROWS]:
        kind = " ".join([c["tcp_variant"] or c["source"], *_tcp_options(c)])
        segment = (
            f"{c['mss_bytes']} B = {c['segment_cells']} cells"
            if c["segment_cells"] is not None
            else "-"
        )
        conn_rows.append(
            [
                c["name"],
                f"{c['service']} {kind}",
                " ".join(c["path"]),
                c["bottleneck"],
                segment,
                _duration(c["rtt_propagation_s"]),
                f"{c['max_goodput_bps'] / 1e6:.2f} Mb/s",
                f"{c['bdp_cells']:,.0f} cells"
                if c["bdp_cells"] >= 100
                else f"{c['bdp_cells']:.3g} cells",
            ]
        )
    lines = _columns(port_rows) + _columns(conn_rows)
    if len(conns) > _VALIDATE_ROWS:
        lines.append(f"... and {len(conns) - _VALIDATE_ROWS} more connections")
    return lines


def _tcp_options(c: dict[str, Any]) -> list[str]:
    """A TCP connection's options of today's TCP that are set: its congestion control if not
    Reno's, ``ecn``, ``hystart`` (none for a cell source or the papers' TCPs)."""
    out = []
    if c.get("congestion_control") not in (None, "reno"):
        out.append(c["congestion_control"])
    out += [key for key in ("ecn", "hystart") if c.get(key)]
    return out


def _duration(seconds: float) -> str:
    """``30 ms``, ``5 us``: the largest unit that keeps the number at least 1."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds * 1e9:.4g} ns"


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def _sci(x: float) -> str:
    """``5.9e7``, as the scenario layer writes estimates."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _n(count: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{count} {noun if count == 1 else plural}"


def _cmd_scenario_list(args: argparse.Namespace) -> int:
    from atmsim import scenarios

    names = scenarios.names()
    width = max((len(n) for n in names), default=0)
    for name in names:
        print(f"{name:<{width}}  {scenarios.description(name)}".rstrip())
    return EXIT_OK


def _cmd_scenario_show(args: argparse.Namespace) -> int:
    from atmsim.api import validate

    sys.stdout.write(validate(args.name, overrides=args.set))
    return EXIT_OK


def _cmd_scenario_draw(args: argparse.Namespace) -> int:
    from atmsim.pictures import DrawError, draw

    try:
        path = draw(args.name, args.output, routes=args.routes, overrides=args.set)
    except DrawError as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {path}")
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    from atmsim import bench

    large = bench.LARGE_CASES if args.large else ()
    rows = bench.bench(quick=args.quick, cases=bench.CASES + large, repeat=args.repeat)
    mem = None
    if args.memory:
        big = bench.LARGE_MEMORY_CASES if args.large else ()
        mem = bench.memory(quick=args.quick, cases=bench.MEMORY_CASES + big)
    if args.json:
        figures = bench.ratios(rows, mem)
        out = {
            "rows": rows,
            **({"memory": mem} if mem else {}),
            "ratios": figures,
            "targets": bench.targets(figures),
        }
        print(json.dumps(out, indent=2))
    else:
        print(bench.format_table(rows, mem))
    return EXIT_OK


def _cmd_fingerprint(args: argparse.Namespace) -> int:
    from atmsim import fingerprint

    if not args.accept and not Path(args.file).is_file():
        raise UsageError(
            f"{args.file}: no fingerprint record here; run from a checkout of atmsim (the "
            "record is tests/fingerprints.csv), give --file, or write one with --accept"
        )
    measured = fingerprint.measure(until_s=args.until)
    if args.accept:
        fingerprint.write(measured, args.file)
        print(f"wrote {len(measured)} fingerprints to {args.file}")
        return EXIT_OK
    recorded = fingerprint.read(args.file)
    known = {r.scenario for r in recorded}
    diffs = fingerprint.compare(recorded, measured)
    for row in measured:
        if row.scenario not in known:
            mark = "NEW"
        elif any(d.startswith(row.scenario + ":") for d in diffs):
            mark = "CHANGED"
        else:
            mark = "ok"
        print(f"{mark:<8} {row.scenario:<28} events {row.events:>10}  {row.fingerprint}")
    if diffs:
        print("", file=sys.stderr)
        for d in diffs:
            print(f"atmsim: fingerprint differs: {d}", file=sys.stderr)
        print(
            "atmsim: if the change is intended, run `atmsim fingerprint --accept` and commit "
            f"{args.file} on its own, saying why",
            file=sys.stderr,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _reproductions() -> list[str]:
    try:
        package = importlib.import_module("atmsim.reproduce")
    except ModuleNotFoundError:
        return []
    return list(package.available())


STATUS_FILE = "status.json"


def _last_full_run() -> dict[str, dict[str, Any]]:
    """The package's copy of the last full ``atmsim reproduce all``'s status.json, by name."""
    from atmsim.reproduce.framework.plan import last_full_runs

    return last_full_runs()


def reproductions_listing() -> str:
    """What ``atmsim reproduce --help`` lists: each reproduction, its runs (full and
    --quick, counted from its job lists) and how long the last full run of all its runs
    took, with the build and workers it ran on (from the package's status.json)."""
    import textwrap

    from atmsim.reproduce import get

    last = _last_full_run()
    out = ["reproductions (NAME: what it reproduces; runs full / --quick; last full run):"]
    for name in _reproductions():
        rep = get(name)
        full, quick = len(rep.jobs(False)), len(rep.jobs(True))
        r = last.get(name)
        if r:
            # The runs' wall time, said to be partly cached when some runs were found.
            took = f"{_status_time(r)}, {r['agree']} of {r['rows']} rows agree"
        else:
            took = "not yet run in full"
        out.append(f"  {name}: {rep.title}")
        out.extend(
            textwrap.wrap(
                f"{full:,} runs / {quick:,} with --quick; last full run: {took}",
                width=88,
                initial_indent="      ",
                subsequent_indent="      ",
            )
        )
    out.append("  all: every one of them, then DIR/index.html and DIR/status.md")
    return "\n".join(out)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    available = _reproductions()
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: {args.workers} is not a number of processes (at least 1)")
    if args.workers is not None and args.scheduler:
        raise UsageError("--workers and --scheduler: give one (local processes or a Dask cluster)")
    where = {"workers": args.workers, "scheduler": args.scheduler}
    if args.name == "all":
        return _reproduce_all(Path(args.out), available, args.quick, where)
    module_name = args.name.replace("-", "_")
    if module_name not in available:
        listing = ", ".join(["all", *available]) if available else "(none installed)"
        raise UsageError(f"no reproduction named {args.name!r}; available: {listing}")
    module = importlib.import_module(f"atmsim.reproduce.{module_name}")
    result = module.main(args.out, args.quick, **where)
    return result if isinstance(result, int) else EXIT_OK


def _reproduce_all(out: Path, names: list[str], quick: bool, where: dict[str, Any]) -> int:
    """Every reproduction into ``out/<name>/``, then ``out/index.html`` linking them."""
    from atmsim.report import write_index
    from atmsim.reproduce.framework.plan import format_plans

    out.mkdir(parents=True, exist_ok=True)
    last = _last_full_run()
    reps = {n: importlib.import_module(f"atmsim.reproduce.{n}").REPRODUCTION for n in names}
    overlap = not where["scheduler"]
    plans = [rep.plan(out / n, quick, **where, last=last.get(n)) for n, rep in reps.items()]
    print(format_plans(plans, overlap=overlap), flush=True)
    if overlap:
        status = _made_in_turn(reps, out, quick, where["workers"])
    else:
        status = EXIT_OK
        for name, rep in reps.items():
            print(f"== reproduce {name}", file=sys.stderr, flush=True)
            status = max(status, rep.main(out / name, quick, **where))
    path = write_index(out, names)
    print(f"atmsim: wrote {path}", file=sys.stderr)
    print(f"atmsim: wrote {write_status(out, names)}", file=sys.stderr)
    return status


def _made_in_turn(reps: dict[str, Any], out: Path, quick: bool, workers: int | None) -> int:
    """Each reproduction's runs (``reps``: by name; :meth:`Reproduction.make`) into
    ``out/<name>/`` on a thread of their own, started as soon as the runs before them are
    made, while this thread writes the outputs of the reproduction before
    (:meth:`Reproduction.finish`): the workers need not wait for a report. On Ctrl-C, or an
    error on either side, the runs being made are cancelled (those finished are kept)
    before it is raised again."""
    from concurrent.futures import Future, ThreadPoolExecutor
    from concurrent.futures import TimeoutError as FutureTimeout

    from atmsim import _core

    token = _core.CancelToken()

    def result(fut: Future[Any]) -> Any:
        while True:
            try:
                # A timeout keeps this thread responsive to Ctrl-C while it waits.
                return fut.result(timeout=0.2)
            except FutureTimeout:
                continue

    status = EXIT_OK
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="atmsim-reproduce") as runner:

        def start(name: str) -> Future[Any]:
            print(f"== reproduce {name}: runs", file=sys.stderr, flush=True)
            return runner.submit(reps[name].make, out / name, quick, workers=workers, cancel=token)

        names = list(reps)
        try:
            made = start(names[0]) if names else None
            for i, name in enumerate(names):
                done = result(made)
                made = start(names[i + 1]) if i + 1 < len(names) else None
                print(f"== reproduce {name}: outputs", file=sys.stderr, flush=True)
                status = max(status, reps[name].finish(done))
        except BaseException:
            token.cancel()
            raise
    return status


def status_entries(out: Path, names: list[str]) -> list[dict[str, Any]]:
    """Per reproduction in ``out/<name>/``: the comparison rows that agree, of all (counted
    from its comparison.csv), and how the run was made (its reproduction.json): mode, build,
    runs, how many were made now rather than found in the cache, their wall time and
    workers. ``None`` where a reproduction left no result."""
    import csv

    entries: list[dict[str, Any]] = []
    for name in names:
        rows_path = out / name / "comparison.csv"
        info_path = out / name / "reproduction.json"
        if not rows_path.is_file() or not info_path.is_file():
            entries.append({"name": name, "result": None})
            continue
        with rows_path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        info = json.loads(info_path.read_text(encoding="utf-8"))
        entries.append(
            {
                "name": name,
                "result": {
                    "agree": sum(r.get("agrees") == "true" for r in rows),
                    "rows": len(rows),
                    "quick": bool(info.get("quick")),
                    "atmsim_version": info.get("atmsim_version"),
                    "build_id": info.get("build_id"),
                    "runs": info.get("runs"),
                    "runs_made_now": info.get("runs_made_now"),
                    "runs_distinct": info.get("runs_distinct"),
                    "runs_wall_s": info.get("runs_wall_s"),
                    "workers": info.get("workers"),
                },
            }
        )
    return entries


def _status_time(r: dict[str, Any]) -> str:
    """The runs' wall time, said to be a full one only when every distinct run was made then
    (jobs that share a run count once; records without the distinct count compare the jobs)."""
    wall = r.get("runs_wall_s")
    if wall is None:
        return "?"
    where = f" on {r['workers']} workers" if r.get("workers") else ""
    from atmsim.reproduce.framework.plan import seconds_text

    text = seconds_text(float(wall)) + where
    whole = r.get("runs_distinct") if r.get("runs_distinct") is not None else r.get("runs")
    if whole is None or r.get("runs_made_now") != whole:
        made = r.get("runs_made_now")
        text += " (runs partly cached)" if made is not None else " (cached runs not known)"
    return text


def status_lines(out: Path, names: list[str]) -> list[str]:
    """status.md's table: one row per reproduction (see :func:`status_entries`)."""
    lines = [
        "| reproduction | rows agreeing | mode | runs (made now) | wall time of the runs | build |",
        "|---|---|---|---|---|---|",
    ]
    for e in status_entries(out, names):
        r = e["result"]
        if r is None:
            lines.append(f"| `{e['name']}` | no result in {out / e['name']} | | | | |")
            continue
        runs = "?" if r["runs"] is None else f"{r['runs']:,}"
        distinct = r.get("runs_distinct")
        if distinct is not None and r["runs"] is not None and distinct < r["runs"]:
            runs += f", {distinct:,} distinct"
        if r["runs_made_now"] is not None:
            runs += f" ({r['runs_made_now']:,})"
        lines.append(
            f"| `{e['name']}` | {r['agree']} of {r['rows']} | {'quick' if r['quick'] else 'full'}"
            f" | {runs} | {_status_time(r)} | {r['atmsim_version']} {r['build_id']} |"
        )
    return lines


def write_status(out: Path, names: list[str]) -> Path:
    """``out/status.md`` (:func:`status_lines` under a heading) and ``out/status.json``
    (:func:`status_entries`). docs/status.md and the package's ``reproduce/status.json``
    (what ``atmsim reproduce --help`` shows) are copies from the last full ``atmsim
    reproduce all``."""
    from atmsim.storage import atomic_write

    path = out / "status.md"
    text = [
        "# Reproduction status",
        "",
        "Generated by `atmsim reproduce all` from the runs in this folder; nothing here is "
        "typed in. *Rows agreeing*: comparison rows that agree with the paper (for the atlas, "
        "with each paper's own ordering of its schemes); the rest, and what is known of why, "
        "are in each reproduction's notes.md. *Runs*: the reproduction's jobs; jobs that are "
        "the same scenario and seed share one run, made once (the distinct runs, where fewer). "
        "*Wall time*: of the runs alone, on this "
        "machine (on local workers a reproduction's runs share it with the writing of the "
        "previous one's outputs); a reproduction whose runs were partly found in its cache "
        "took longer from scratch.",
        "",
        *status_lines(out, names),
    ]
    atomic_write(out / "status.json", json.dumps(status_entries(out, names), indent=2) + "\n")
    return atomic_write(path, "\n".join(text) + "\n")


def _cmd_sweep(args: argparse.Namespace) -> int:
    from atmsim.sweep import SweepError, run_sweep

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: expected a positive number of processes, got {args.workers}")
    if args.scheduler and not args.scheduler.startswith(("tcp://", "tls://", "inproc://", "ws")):
        raise UsageError(
            f"--scheduler: expected a Dask scheduler address such as tcp://HOST:PORT, "
            f"got {args.scheduler!r}"
        )
    try:
        res = run_sweep(
            args.file,
            args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=not args.quiet,
        )
    except SweepError as exc:
        raise UsageError(str(exc)) from None
    if not args.quiet:
        print(
            f"atmsim: sweep {res.spec.name}: {len(res.outcomes)} runs "
            f"({res.ran} run now, {res.cached} cached, {res.failed} failed); "
            f"tables in {Path(args.out) / 'results.parquet'} and aggregate.parquet",
            file=sys.stderr,
        )
    for o in res.outcomes:
        if o.status == "failed":
            print(f"atmsim: run {o.request.describe()} failed: {o.error}", file=sys.stderr)
    return EXIT_SIMULATION if res.failed else EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    """Rebuild report.html (and what it shows) from results stored in DIR."""
    from atmsim.report import write_index
    from atmsim.reproduce.framework import RUN_INFO, read_run_info

    out = Path(args.dir)
    if not out.is_dir():
        raise UsageError(f"{out}: no such folder")
    if (out / RUN_INFO).is_file():
        name = str(read_run_info(out)["reproduction"])
        if name not in _reproductions():
            raise UsageError(f"{out / RUN_INFO}: names no known reproduction ({name!r})")
        module = importlib.import_module(f"atmsim.reproduce.{name}")
        # The reproduction's own build says what it wrote.
        result = module.report(out)
        return result if isinstance(result, int) else EXIT_OK
    subdirs = sorted(d.name for d in out.iterdir() if (d / RUN_INFO).is_file())
    if subdirs:  # the output of `atmsim reproduce all`
        for name in subdirs:
            importlib.import_module(
                f"atmsim.reproduce.{read_run_info(out / name)['reproduction']}"
            ).report(out / name)
        print(f"atmsim: wrote {write_index(out, subdirs)}", file=sys.stderr)
        return EXIT_OK
    if (out / "results.parquet").is_file():  # a sweep
        try:
            sweep = importlib.import_module("atmsim.sweep")
        except ModuleNotFoundError as exc:
            raise UsageError(f"{out}: sweep reports need atmsim.sweep ({exc})") from exc
        path = sweep.write_sweep_report(out)
        print(f"atmsim: wrote {path}", file=sys.stderr)
        return EXIT_OK
    raise UsageError(
        f"{out}: neither a reproduction ({RUN_INFO}), a `reproduce all` folder nor a sweep "
        "(results.parquet)"
    )


# --------------------------------------------------------------------------------------------
# Parser


SWEEP_FILE_HELP = """\
a sweep file (TOML):
  name = "fang-buffers"                 # for messages and the report
  scenario = "fang1994-cell-drop"       # a built-in name or a .toml path (relative to this file)
  seeds = [1, 2]                        # every grid point once per seed, or run seeds until
                                        # the 95% interval of a column is narrow enough:
                                        # { until = "5%", of = "totals.goodput_mbps",
                                        #   first = 3, max = 30 }
  confidence = 0.95                     # level of the aggregate's intervals (optional)

  [set]                                 # overrides every run gets (keys as in --set)
  "run.duration" = "1 s"

  [grid]                                # every combination is a grid point
  "switch.*.vc_buffer" = ["256 cells", "1368 cells"]
  "tcp.mss" = ["8192 B", "4096 B"]

Keys are `atmsim run --set` paths; values are TOML ("2 s", 3, { kind = "epd" }). A bad file
is refused before anything runs, naming its line and field. Example files are in the
source repository's examples/ folder."""


def _lazy_epilog(p: argparse.ArgumentParser, text: Any) -> None:
    """Give ``p`` an epilog computed only when its help is shown (``text()``)."""
    plain = p.format_help

    def format_help() -> str:
        p.epilog = text()
        return plain()

    p.format_help = format_help  # type: ignore[method-assign]


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override one scenario value, e.g. --set run.duration='1 s' (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    from atmsim import __version__, build_id

    parser = argparse.ArgumentParser(
        prog="atmsim",
        description="Cell-level simulator of TCP/IP over ATM.",
    )
    parser.add_argument(
        "--version", action="version", version=f"atmsim {__version__} (build {build_id()})"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("run", help="run a scenario and write its results")
    p.add_argument("scenario", help="a built-in scenario name or a TOML file")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the results")
    p.add_argument("--seed", type=int, help="replace the scenario's run.seed")
    _add_set(p)
    p.add_argument("--csv", action="store_true", help="write timeseries.csv, not .parquet")
    p.add_argument(
        "--pcap",
        metavar="DIR",
        help="write pcap-ng packet traces there (one per host/link, as [trace] says)",
    )
    p.add_argument("--cell-trace", metavar="FILE", help="write the cell trace to this Parquet file")
    p.add_argument(
        "--quiet", action="store_true", help="no progress bar (there is none outside a terminal)"
    )
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("validate", help="check a scenario without running it")
    p.add_argument("scenario", help="a built-in scenario name or a TOML file")
    _add_set(p)
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("scenario", help="the built-in scenarios")
    scen = p.add_subparsers(dest="scenario_command", metavar="SUBCOMMAND", required=True)
    q = scen.add_parser("list", help="list the built-in scenarios")
    q.set_defaults(func=_cmd_scenario_list)
    q = scen.add_parser(
        "show", help="print a scenario's canonical TOML (every default written out)"
    )
    q.add_argument("name", help="a built-in scenario name or a TOML file")
    _add_set(q)
    q.set_defaults(func=_cmd_scenario_show)
    q = scen.add_parser("draw", help="draw a scenario's network (SVG or PNG, by the suffix)")
    q.add_argument("name", help="a built-in scenario name or a TOML file")
    q.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.svg or FILE.png")
    q.add_argument("--routes", action="store_true", help="draw each connection's route")
    _add_set(q)
    q.set_defaults(func=_cmd_scenario_draw)

    p = sub.add_parser("bench", help="measure simulator speed on reference scenarios")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--quick", action="store_true", help="short runs")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each case (model and bare loop) N times in turn and report medians",
    )
    p.add_argument(
        "--memory",
        action="store_true",
        help="also measure peak memory (parking lot over 6 s and 60 s; 15 and 1,000 "
        "connections, for memory per connection), each in a process of its own",
    )
    p.add_argument(
        "--large",
        action="store_true",
        help="also the parking lot with 10,000 connections (speed and, with --memory, memory); "
        "adds a minute or two",
    )
    p.set_defaults(func=_cmd_bench)

    from atmsim.fingerprint import DEFAULT_FILE, DEFAULT_UNTIL_S

    p = sub.add_parser(
        "fingerprint", help="compare built-in scenarios' event fingerprints with the record"
    )
    p.add_argument("--accept", action="store_true", help="rewrite the record with new values")
    p.add_argument(
        "--file",
        default=str(DEFAULT_FILE),
        metavar="PATH",
        help=f"the record (default: {DEFAULT_FILE})",
    )
    p.add_argument(
        "--until",
        type=float,
        default=DEFAULT_UNTIL_S,
        metavar="SECONDS",
        help=f"simulated seconds per scenario (default: {DEFAULT_UNTIL_S:g})",
    )
    p.set_defaults(func=_cmd_fingerprint)

    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's results",
        description="Run a reproduction's runs (cached in DIR/runs: a rerun runs nothing, an "
        "interrupted one resumes) and write its comparison with the paper (comparison.csv), "
        "tables, figures, notes.md and report.html into DIR.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _lazy_epilog(p, reproductions_listing)
    p.add_argument("name", help="a reproduction (listed below), or all")
    p.add_argument("--quick", action="store_true", help="shorter runs, fewer points")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for results")
    p.add_argument("--workers", type=int, metavar="N", help="local processes (default: every core)")
    p.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask distributed cluster"
    )
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser(
        "sweep",
        help="run a grid of overrides x seeds, cached and resumable",
        description="Run every grid point of a sweep file once per seed (finished runs are "
        "cached in DIR/runs: a rerun runs nothing, an interrupted sweep resumes), then write "
        "DIR/results.parquet (one row per run), DIR/aggregate.parquet (per point: mean, sd, "
        "Student-t confidence interval) and DIR/report.html.",
        epilog=SWEEP_FILE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="SWEEP.toml", help="the sweep file")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for runs and tables")
    p.add_argument("--workers", type=int, metavar="N", help="local processes (default: every core)")
    p.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask distributed cluster"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser(
        "report", help="rebuild report.html from the results stored in a folder (no runs)"
    )
    p.add_argument("dir", metavar="DIR", help="output of `atmsim reproduce` or `atmsim sweep`")
    p.set_defaults(func=_cmd_report)
    return parser


def _error(message: object, code: int) -> int:
    print(f"atmsim: error: {message}", file=sys.stderr)
    return code


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Scenario warnings as one line of their own (``atmsim: warning: FILE: FIELD: why``);
    any other warning as Python shows it."""
    from atmsim import ScenarioWarning

    if issubclass(category, ScenarioWarning):
        print(f"atmsim: warning: {message}", file=sys.stderr)
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


_python_show_warning = warnings.showwarning


#: Commands whose overrides come from --set (errors name them so).
_SET_COMMANDS = ("run", "validate", "scenario")


def _stored_runs(runs: Path) -> int:
    """Finished runs in a run cache: folders whose run.json (written last) is there."""
    if not runs.is_dir():
        return 0
    return sum(1 for d in runs.iterdir() if (d / "run.json").is_file())


def interrupted_message(args: argparse.Namespace | None) -> str:
    """What Ctrl-C leaves: for a sweep or a reproduction, how many finished runs its cache
    keeps and that the same command resumes from them; for a run, that nothing was
    written."""
    command = getattr(args, "command", None)
    if command == "run":
        return "atmsim: interrupted; no results were written (a run writes them when it ends)" + (
            "; trace files may be incomplete" if args.pcap or args.cell_trace else ""
        )
    if command in ("sweep", "reproduce"):
        out = Path(args.out)
        if command == "reproduce" and args.name == "all":
            caches = [d / "runs" for d in sorted(out.iterdir())] if out.is_dir() else []
        else:
            caches = [out / "runs"]
        kept = sum(_stored_runs(c) for c in caches)
        where = out / "runs" if len(caches) == 1 else out / "*" / "runs"
        return (
            f"atmsim: interrupted; {kept:,} finished run{'s' if kept != 1 else ''} kept in "
            f"{where}: the same command resumes from them (each is checked before reuse)"
        )
    return "atmsim: interrupted"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``atmsim`` script; returns the exit status."""
    args = None
    try:
        from atmsim import ResultsError, ScenarioError, ScenarioWarning, SimulationError

        # A scenario's warnings are part of what the command says, whatever PYTHONWARNINGS.
        warnings.filterwarnings("always", category=ScenarioWarning)
        warnings.showwarning = _show_warning
        args = build_parser().parse_args(argv)
        from atmsim.errors import OVERRIDES_NAME

        # These commands' overrides are their --set options (for this call only).
        naming = OVERRIDES_NAME.set("--set" if args.command in _SET_COMMANDS else "overrides")
        try:
            return int(args.func(args))
        except (ScenarioError, UsageError, ResultsError) as exc:
            return _error(exc, EXIT_USAGE)
        except FileNotFoundError as exc:
            return _error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "), EXIT_USAGE)
        except SimulationError as exc:
            return _error(f"simulation failed: {exc}", EXIT_SIMULATION)
        except BrokenPipeError:
            return EXIT_OK
        except OSError as exc:
            return _error(exc, EXIT_FAILURE)
        finally:
            OVERRIDES_NAME.reset(naming)
    except KeyboardInterrupt:
        try:
            message = interrupted_message(args)
        except (OSError, KeyboardInterrupt):
            message = "atmsim: interrupted"
        print(message, file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
