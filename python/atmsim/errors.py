"""The exceptions atmsim raises, defined here in the package (not in the native module) so
that they pickle: a failure in a worker process or on a Dask worker reaches the caller as the
same exception, with the same message, as in-process.

- :class:`ScenarioError` (a ``ValueError``): a scenario, override or argument is invalid. Its
  message is ``FILE:LINE: FIELD: what is wrong and what is allowed`` when the scenario layer
  knows them; ``file``, ``line`` and ``field`` hold those parts (``None`` when absent).
- :class:`ArgumentError` (a ``ScenarioError`` and a ``TypeError``): an argument of
  ``atmsim.run``, ``validate`` or ``describe`` has a type they do not take; the message
  names the argument and what it may be.
- :class:`SimulationError` (a ``RuntimeError``): the simulation itself failed.
- :class:`Cancelled` (a ``RuntimeError``): a run was stopped by its cancel token.
- :class:`ScenarioWarning` (a ``UserWarning``, issued, not raised): a scenario is valid but
  a setting is known to give a run its user probably did not mean (TCP over ABR at Nrm = 2
  sends no data); the message is ``FILE: FIELD: why``.
- :class:`ResultsError` (a ``ValueError``): stored results are incomplete or damaged (a file
  missing, or not the one its folder's manifest lists), so they are not read.

``atmsim._core`` raises these classes; ``atmsim._core.ScenarioError`` and its siblings are the
same objects.
"""

from __future__ import annotations

import contextvars
import re

__all__ = [
    "ArgumentError",
    "Cancelled",
    "ResultsError",
    "ScenarioError",
    "ScenarioWarning",
    "SimulationError",
]

#: ``FILE:LINE: FIELD: message`` (LINE optional; FIELD a dotted path with [i] indices).
_LOCATED = re.compile(
    r"^(?P<file>[^:\n]+?):(?:(?P<line>\d+):)? (?P<field>[A-Za-z_][\w.\[\]*-]*): (?P<rest>.+)$",
    re.DOTALL,
)


#: How error messages name overrides: ``"overrides"`` (the API's argument) unless the command
#: line, whose overrides are ``--set``, says otherwise for its own calls.
OVERRIDES_NAME: contextvars.ContextVar[str] = contextvars.ContextVar(
    "atmsim_overrides_name", default="overrides"
)


class ScenarioError(ValueError):
    """A scenario or an override is invalid; the message names the file, line and field."""

    def __init__(self, message: str = "", *args: object) -> None:
        if isinstance(message, str) and OVERRIDES_NAME.get() != "--set":
            # The model names overrides as the command line gives them; through the API they
            # are the ``overrides`` argument.
            message = message.replace("(in --set ", "(in overrides: ")
            if message.startswith("--set: "):
                message = "overrides: " + message[len("--set: ") :]
        super().__init__(message, *args)
        m = _LOCATED.match(message) if isinstance(message, str) else None
        self.file: str | None = m.group("file") if m else None
        self.line: int | None = int(m.group("line")) if m and m.group("line") else None
        self.field: str | None = m.group("field") if m else None

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ArgumentError(ScenarioError, TypeError):
    """An argument of the Python API has the wrong type (``atmsim.run(None)``,
    ``overrides=5``, ``seed="1"``); the message starts with the argument's name and says what
    it may be. A :class:`ScenarioError`, so ``except ScenarioError`` catches all bad input,
    and a ``TypeError``, as Python's own wrong-type errors are."""


class ScenarioWarning(UserWarning):
    """A valid scenario with a setting known to give a run its user probably did not mean;
    the message names the file and field and says why. ``atmsim run`` and ``atmsim validate``
    print it as ``atmsim: warning: ...``; ``warnings.simplefilter("error", ScenarioWarning)``
    makes it an error."""


class SimulationError(RuntimeError):
    """The simulation itself failed (a model error or an internal panic)."""


class Cancelled(RuntimeError):
    """The run was stopped by its CancelToken before its end."""


class ResultsError(ValueError):
    """Stored results cannot be trusted: a folder has no manifest (an interrupted write, or an
    older atmsim), or a file is missing or does not match the manifest (truncated, edited,
    replaced). The message names the folder and the files."""
