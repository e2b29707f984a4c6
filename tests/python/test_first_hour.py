"""What a new user meets in the first hour: help texts that carry the essentials (no pointers
to files a pip-installed user lacks), the reproductions listed with their sizes and times, an
interrupt that says what it kept, error messages in the caller's own terms, a claim table
that cuts nothing, and a README whose numbers are the generated ones."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

import atmsim
import atmsim.cli as atmsim_cli
from atmsim.reproduce import available

ROOT = Path(__file__).resolve().parents[2]


def _helps(parser: argparse.ArgumentParser, prefix: str = "atmsim") -> dict[str, str]:
    """Every (sub)command's help text, by command line."""
    out = {prefix: parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.update(_helps(sub, f"{prefix} {name}"))
    return out


def test_no_help_text_points_at_a_file_of_the_source_tree() -> None:
    helps = _helps(atmsim_cli.build_parser())
    assert "atmsim sweep" in helps and "atmsim reproduce" in helps
    for command, text in helps.items():
        assert "docs/" not in text, f"{command} --help points at docs/: {text}"


def test_sweep_help_carries_the_sweep_file_format() -> None:
    text = _helps(atmsim_cli.build_parser())["atmsim sweep"]
    for key in ("scenario =", "seeds =", "until =", "[set]", "[grid]", "confidence ="):
        assert key in text, key


def test_reproduce_help_lists_every_reproduction_with_its_runs() -> None:
    text = _helps(atmsim_cli.build_parser())["atmsim reproduce"]
    for name in available():
        rep = atmsim.reproduce.get(name)
        m = re.search(
            rf"^  {name}: .*\n\s+(?P<full>[\d,]+) runs / (?P<quick>[\d,]+) with --quick; "
            r"last full run: ",
            text,
            re.M,
        )
        assert m, (name, text)
        assert int(m["full"].replace(",", "")) == len(rep.jobs(False))
        assert int(m["quick"].replace(",", "")) == len(rep.jobs(True))
    assert "\n  all: " in text


def test_the_listing_says_when_the_last_full_run_found_runs_in_its_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = {"agree": 3, "rows": 4, "runs_wall_s": 75.0, "workers": 2, "quick": False}
    made_all = {"fang1994": {**entry, "runs": 30, "runs_made_now": 30}}
    monkeypatch.setattr(atmsim_cli, "_last_full_run", lambda: made_all)
    text = " ".join(atmsim_cli.reproductions_listing().split())  # as read, not as wrapped
    assert "last full run: 1 min 15 s on 2 workers, 3 of 4 rows agree" in text
    partly = {"fang1994": {**entry, "runs": 30, "runs_made_now": 2}}
    monkeypatch.setattr(atmsim_cli, "_last_full_run", lambda: partly)
    text = " ".join(atmsim_cli.reproductions_listing().split())
    assert "last full run: 1 min 15 s on 2 workers (runs partly cached), 3 of 4 rows" in text
    # Jobs that are the same scenario and seed share a run: made once, not found in a cache.
    shared = {"fang1994": {**entry, "runs": 30, "runs_distinct": 28, "runs_made_now": 28}}
    monkeypatch.setattr(atmsim_cli, "_last_full_run", lambda: shared)
    text = " ".join(atmsim_cli.reproductions_listing().split())
    assert "last full run: 1 min 15 s on 2 workers, 3 of 4 rows agree" in text
    some = {"fang1994": {**entry, "runs": 30, "runs_distinct": 28, "runs_made_now": 20}}
    monkeypatch.setattr(atmsim_cli, "_last_full_run", lambda: some)
    text = " ".join(atmsim_cli.reproductions_listing().split())
    assert "last full run: 1 min 15 s on 2 workers (runs partly cached), 3 of 4 rows" in text


def _args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**kw)


def test_an_interrupted_sweep_or_reproduction_says_what_it_kept(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for i in range(3):
        (runs / f"{i:064x}").mkdir(parents=True)
        (runs / f"{i:064x}" / "run.json").write_text("{}")
    (runs / ("f" * 64)).mkdir()  # unfinished: no run.json
    said = atmsim_cli.interrupted_message(_args(command="sweep", out=str(tmp_path)))
    assert f"3 finished runs kept in {runs}" in said
    assert "the same command resumes" in said
    said = atmsim_cli.interrupted_message(
        _args(command="reproduce", name="fang1994", out=str(tmp_path))
    )
    assert "3 finished runs kept" in said
    said = atmsim_cli.interrupted_message(_args(command="run", pcap=None, cell_trace=None))
    assert "no results were written" in said


def test_override_errors_name_the_overrides_as_the_caller_gave_them(cli) -> None:
    with pytest.raises(atmsim.ScenarioError) as err:
        atmsim.validate("fang1994-cell-drop", overrides={"run.duration": "2 apples"})
    assert "(in overrides: run.duration=" in str(err.value), err.value
    assert "--set" not in str(err.value)
    proc = cli("validate", "fang1994-cell-drop", "--set", "run.duration=2 apples")
    assert proc.returncode == 2
    assert "(in --set run.duration=" in proc.stderr, proc.stderr


def test_a_duration_under_the_warmup_suggests_run_warmup() -> None:
    with pytest.raises(atmsim.ScenarioError) as err:
        atmsim.validate("fang1994-cell-drop", overrides={"run.duration": "0.5 s"})
    assert "shorten run.warmup or lengthen run.duration" in str(err.value), err.value


def test_the_claim_table_wraps_long_claims_and_cuts_nothing() -> None:
    from atmsim.reproduce.framework import absolute, compare, format_claims

    claim = "Table 9: " + " ".join(f"word{i}" for i in range(40))
    row = compare(claim, paper=1.0, measured=1.0, unit="x", tol=absolute(0))
    text = format_claims([row], width=40)
    lines = text.splitlines()
    assert lines[1].startswith("ok Table 9: word0")
    assert " ".join(" ".join(ln.split()) for ln in lines[1:-1]).count("word39") == 1
    assert all(len(ln) < 120 for ln in lines)


def _status_counts(text: str) -> dict[str, tuple[int, int]]:
    return {
        m["name"]: (int(m["agree"]), int(m["total"]))
        for m in re.finditer(r"\| `(?P<name>\w+)` \| (?P<agree>\d+) of (?P<total>\d+) \|", text)
    }


def test_the_readme_is_short_and_its_table_is_the_generated_status() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= 110, "the README should fit on two screens"
    status = _status_counts((ROOT / "docs" / "status.md").read_text("utf-8"))
    rows = {
        m["name"]: (int(m["agree"]), int(m["total"]))
        for m in re.finditer(
            r"^\| `atmsim reproduce (?P<name>\w+)` \|.*\| (?P<agree>\d+) of (?P<total>\d+) \|$",
            readme,
            re.M,
        )
    }
    assert set(rows) == set(available()), rows
    assert rows == {k: status[k] for k in rows}
    # The package's status.json (what `reproduce --help` shows) is the same run's.
    packaged = json.loads((ROOT / "python/atmsim/reproduce/status.json").read_text("utf-8"))
    assert {e["name"]: (e["result"]["agree"], e["result"]["rows"]) for e in packaged} == status


def test_every_command_the_readme_shows_exists() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    helps = _helps(atmsim_cli.build_parser())
    blocks = "\n".join(re.findall(r"^```sh\n(.*?)^```", readme, re.M | re.S))
    commands = re.findall(r"(?:^|&& )(atmsim (\w+)(?: ([a-z]+))?)", blocks, re.M)
    assert len(commands) >= 6, blocks
    for m in commands:
        one = f"atmsim {m[1]}"
        assert one in helps, m[0]
        two = f"{one} {m[2]}"
        if m[2] and any(k.startswith(one + " ") for k in helps):
            assert two in helps, m[0]
