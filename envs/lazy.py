"""Package attributes imported on first use (PEP 562's module ``__getattr__``): a game
package lists what it exports and from which module, so that importing the package (its
descriptor, read by :mod:`envs.registry`) loads no engine."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``exports`` (name -> relative
    module) imported from its module on first use, then kept in the package."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
