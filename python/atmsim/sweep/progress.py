"""Progress of a batch of runs on stderr: a tqdm bar on a terminal, plain lines otherwise
(logs, CI), nothing when quiet. It counts runs done, found in the cache and failed, and
estimates the time left from the runs finished so far."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["Progress"]


class Progress:
    def __init__(
        self,
        total: int,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        label: str = "runs",
        every_s: float = 5.0,
    ) -> None:
        self.total = total
        self.ran = self.cached_n = self.failed_n = 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.label = label
        self.every_s = every_s
        self._t0 = time.monotonic()
        self._last_line = 0.0
        self._bar: Any = None
        self._started = False

    def start(self) -> None:
        """Start the clock and the bar: call it once the cache has been looked up, so that
        runs found there (counted before) do not make the time left look shorter."""
        if self._started:
            return
        self._started = True
        self._t0 = time.monotonic()
        if self.quiet:
            return
        if _isatty(self.stream):
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(
                    total=self.total,
                    initial=self.finished,
                    file=self.stream,
                    unit="run",
                    dynamic_ncols=True,
                    desc=self.label,
                )
                self._bar.set_postfix_str(self._postfix())
                return
        if self.finished:
            print(self.line(), file=self.stream, flush=True)
            self._last_line = time.monotonic()

    @property
    def finished(self) -> int:
        return self.ran + self.cached_n + self.failed_n

    def _postfix(self) -> str:
        return f"cached {self.cached_n}, failed {self.failed_n}"

    def _tick(self, n: int) -> None:
        if self.quiet or not self._started:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(n)
            return
        now = time.monotonic()
        if self.finished >= self.total or now - self._last_line >= self.every_s:
            self._last_line = now
            print(self.line(), file=self.stream, flush=True)

    def line(self) -> str:
        elapsed = time.monotonic() - self._t0
        left = self.total - self.finished
        eta = ""
        if self.ran and left:
            eta = f", about {elapsed / self.ran * left:.0f} s left"
        return (
            f"{self.label}: {self.finished}/{self.total} ({self.ran} run, {self.cached_n} "
            f"cached, {self.failed_n} failed), {elapsed:.0f} s{eta}"
        )

    def done(self, wall_s: float = 0.0) -> None:
        self.ran += 1
        self._tick(1)

    def cached(self, n: int = 1) -> None:
        self.cached_n += n
        self._tick(n)

    def failed(self, n: int = 1) -> None:
        self.failed_n += n
        self._tick(n)

    def close(self) -> None:
        if not self._started:
            self.start()  # everything was found in the cache (or failed up front)
            if self._bar is None and not self.quiet and not self.finished:
                print(self.line(), file=self.stream, flush=True)
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix())
            self._bar.close()
            self._bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
