"""scripts/hops_pair.py: the paired comparison of two builds of the hops example.

Two stand-in builds print the example's line; the script must compute each pair's ratio from
the printed wall times, and refuse builds that made different runs (a comparison of speeds
is only one of the same work).
"""

from __future__ import annotations

import importlib.util
import shutil
import stat
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "hops_pair.py"

pytestmark = pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset")


def _load():
    spec = importlib.util.spec_from_file_location("hops_pair", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(tmp_path: Path, name: str, wall: float, fingerprint: str = "f31a11cc4b49c830") -> str:
    exe = tmp_path / name
    exe.write_text(
        "#!/bin/sh\n"
        f'echo "$1 $2 s: 1000 cell-hops, 2000 events, {wall} s wall, 1.00 M cell-hops/s, '
        f'fingerprint {fingerprint}"\n'
    )
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def test_ratio_of_the_printed_wall_times(tmp_path, capsys):
    a = _build(tmp_path, "a", 1.5)
    b = _build(tmp_path, "b", 1.2)
    assert _load().main(["--pairs", "3", a, b, "--", "parking", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("A/B 1.250") == 3
    assert "A/B over 3 pairs: min 1.250, quartiles 1.250 / 1.250 / 1.250, max 1.250" in out


def test_bare_runs_each_builds_bare_loop(tmp_path, capsys):
    """--bare sets HOPS_BARE=1 for both builds (whose bare loop prints no fingerprint); the
    model's runs are made without it, whatever the caller's environment holds."""
    for name, wall in (("a", 0.5), ("b", 0.4)):
        exe = tmp_path / name
        exe.write_text(
            "#!/bin/sh\n"
            'if [ "$HOPS_BARE" = 1 ]; then\n'
            f'  echo "$1 $2 s bare loop: 900 cell-hops, 1800 events, {wall} s wall, '
            '1.8 M cell-hops/s"\n'
            "else\n"
            '  echo "$1 $2 s: 1000 cell-hops, 2000 events, 9.0 s wall, 1.00 M cell-hops/s, '
            'fingerprint f31a11cc4b49c830"\n'
            "fi\n"
        )
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert _load().main(["--bare", "--pairs", "2", a, b, "--", "abr", "1"]) == 0
    assert "A/B over 2 pairs: min 1.250" in capsys.readouterr().out
    assert _load().main(["--pairs", "1", a, b, "--", "abr", "1"]) == 0
    assert "A/B 1.000" in capsys.readouterr().out


def test_builds_that_made_different_runs_are_refused(tmp_path):
    a = _build(tmp_path, "a", 1.0)
    b = _build(tmp_path, "b", 1.0, fingerprint="0000000000000000")
    with pytest.raises(SystemExit, match="the builds made different runs"):
        _load().main(["--pairs", "1", a, b, "--", "parking", "1"])


def test_a_failing_build_is_named(tmp_path):
    a = _build(tmp_path, "a", 1.0)
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho 'unknown network'\nexit 2\n")
    bad.chmod(bad.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(SystemExit, match="bad parking 1 failed \\(exit 2\\)"):
        _load().main(["--pairs", "1", a, str(bad), "--", "parking", "1"])


def test_perf_samples_are_summed_per_function():
    report = (
        "# Samples: 1K of event 'cpu-clock'\n"
        "#\n"
        " 801        |[.] atmsim_model::network::Network::run_some\n"
        " 493        |[.] atmsim_model::network::cells::<impl Network>::transmit\n"
        " 1          |[k] __handle_mm_fault\n"
        " 7          |[.] atmsim_model::network::Network::run_some\n"
        "\n"
    )
    counts = _load().samples_per_function(report)
    assert counts == {
        "atmsim_model::network::Network::run_some": 808,
        "atmsim_model::network::cells::<impl Network>::transmit": 493,
        "__handle_mm_fault": 1,
    }
