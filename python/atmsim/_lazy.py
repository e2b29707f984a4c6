"""Modules imported on first use: ``pd = module("pandas")`` binds a stand-in that imports
pandas the first time one of its attributes is read, so ``import atmsim`` (and every
``atmsim`` command that makes no table) does not pay for pandas' import."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["module"]


class _Lazy(ModuleType):
    def __getattr__(self, attr: str) -> Any:
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it when an attribute is first read."""
    return _Lazy(name)
