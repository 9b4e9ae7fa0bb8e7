"""pytest-thinkingbox: test tool-using agents by the records they leave behind.

Task authors use `User`, `call` and `derived`; domain authors use `Domain`, `ToolSet`,
`ToolFailure`, `Factory` and `volatile`. Heavy modules load on first use, so
importing this package (as the pytest plugin does) costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .task import Call, User, call, derived

__version__ = "0.1.0"

__all__ = ["Call", "Domain", "Factory", "ToolFailure", "ToolSet", "User", "call", "derived", "reward", "volatile"]

_LAZY = {
    "Domain": "domain",
    "volatile": "domain",
    "ToolSet": "tools",
    "ToolFailure": "tools",
    "Factory": "factories",
    "reward": "reward",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
