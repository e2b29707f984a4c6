"""Shared fixtures: a built-in scenario, short-horizon overrides, a CLI runner, the quick
reproductions (made once a session) and a headless browser."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atmsim import scenarios

ROOT = Path(__file__).resolve().parents[2]

#: Overrides that make any scenario short: tests check plumbing, not the model's numbers.
SHORT = {"run.duration": "0.2 s", "run.warmup": "0 s"}
SHORT_SET = [f"{k}={v}" for k, v in SHORT.items()]

#: The scenario the API and CLI tests run (Fang's LAN, small and quick); any built-in would do.
PREFERRED = "fang1994-cell-drop"


#: Test files that hold the suite's longest test (the quick atlas, ~3 min on one worker):
#: collected first, so that under pytest-xdist (--dist loadfile hands out files in collection
#: order) it starts at once instead of leaving one worker busy after the other has finished.
LONG_POLES = ("test_notes_templates.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONG_POLES)  # stable: else as collected


@pytest.fixture(scope="session")
def builtin() -> str:
    names = scenarios.names()
    if not names:
        pytest.fail("no built-in scenarios are installed (python/atmsim/scenarios/*.toml)")
    return PREFERRED if PREFERRED in names else names[0]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m atmsim.cli ARGS` and capture its output (never raises on failure)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(
        [sys.executable, "-m", "atmsim.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.fixture
def cli():
    return run_cli


class QuickReproductions:
    """``atmsim.reproduce.<name>.main(root / name, quick=True)``, made once a session.

    Every test that needs a quick reproduction asks for it here, so that the per-paper tests
    and ``atmsim reproduce all`` share one set of runs: whichever test comes first makes it
    (so each test still passes alone, in any order), the others read it. Tests must not
    change what is in ``root``: one that edits a reproduction's folder works on a copy.

    Under pytest-xdist (``pytest -n 2``: scripts/test.sh) the workers share ``root``: the
    first to ask for a reproduction makes it while holding a lock of its name; a worker that
    asks later gets the lock afterwards, and its ``main`` finds every run cached and the
    outputs current (``NAME: up to date``), so it makes nothing again.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._codes: dict[str, int] = {}
        #: ``{name: wall seconds its main took}`` (once per worker, in whichever test came
        #: first; in a worker that found it made by another, the seconds of that check).
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str) -> tuple[Path, int]:
        """The folder of reproduction ``name`` and the status its ``main`` returned."""
        from filelock import FileLock

        if name not in self._codes:
            module = importlib.import_module(f"atmsim.reproduce.{name}")
            with FileLock(str(self.root / f".{name}.lock")):
                start = time.perf_counter()
                self._codes[name] = module.main(self.root / name, quick=True)
                self.seconds[name] = time.perf_counter() - start
        return self.root / name, self._codes[name]


@pytest.fixture(scope="session")
def quick_reproductions(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> QuickReproductions:
    """The session's quick reproductions, in one folder laid out as ``atmsim reproduce all
    --quick --out DIR`` lays it out (``DIR/<name>/``, runs cached in ``DIR/<name>/runs/``);
    one folder for all pytest-xdist workers of the session."""
    if not hasattr(request.config, "workerinput"):  # not a pytest-xdist worker
        return QuickReproductions(tmp_path_factory.mktemp("reproduce-quick"))
    shared = tmp_path_factory.getbasetemp().parent / "reproduce-quick"
    shared.mkdir(exist_ok=True)
    return QuickReproductions(shared)


def _find_chromium() -> str | None:
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def render_dom(html: Path) -> str:
    """The DOM of ``html`` after its load event, as headless Chromium serialises it."""
    exe = _find_chromium()
    assert exe is not None
    proc = subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", html.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="session")
def browser():
    """``render_dom``, or a skip when no Chromium is installed. CI installs Debian's
    ``chromium`` (.ci/run), so there a missing browser is a failure, not a skip."""
    if _find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("CI=true but no chromium on PATH (.ci/run installs it)")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    return render_dom


def rendered(dom: str) -> dict[str, str]:
    """The ``data-*`` attributes the report's load handler set on <body> (images decoded,
    comparison rows), read back from the DOM Chromium serialised."""
    import re

    body = re.search(r"<body([^>]*)>", dom)
    assert body is not None, dom[:500]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))
