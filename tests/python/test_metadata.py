"""The minimum Rust the README states is the real one: every crate declares the workspace's
`rust-version`, and no locked dependency needs a newer toolchain (clippy's incompatible_msrv
lint, part of the test command, checks the project's own code against it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_rust_version_is_the_real_minimum() -> None:
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
    )
    ours = {p["name"]: p.get("rust_version") for p in meta["packages"] if p["source"] is None}
    declared = {v for v in ours.values()}
    assert len(declared) == 1 and None not in declared, ours
    msrv = declared.pop()
    needed = max(
        (_version(p["rust_version"]), p["name"])
        for p in meta["packages"]
        if p["source"] is not None and p.get("rust_version")
    )
    assert needed[0] <= _version(msrv), f"{needed[1]} needs Rust {needed[0]}, we declare {msrv}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"\b{re.escape(msrv)} or newer\b", readme), "README states another minimum"
