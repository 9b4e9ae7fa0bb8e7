"""Agents named by import path: ``--tb-agent my_agents:support`` or ``--tb-agent agents/support.py:support``.

This is how an agent of your own runs the installed benchmark
(``pytest --pyargs domains --tb-agent my_agents:support``) without a conftest
beside the tasks. The object named is either an ``async`` function that owns
its loop (it receives an `AgentSession` per attempt) or a class (or any
callable) that is called with no arguments once per attempt and returns an
agent of either kind. Its ``name`` (and ``version``) attributes are what the
records and reports call it; without them, the import path is.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .context import BLIND

SCHEMES = ("openai:", BLIND)


def is_import_path(name: str) -> bool:
    """Whether an agent name is ``module:object`` (or ``file.py:object``) rather than a bundled name."""
    return ":" in name and not name.startswith(SCHEMES)


def load_agent(spec: str, root: Path) -> tuple[Callable[[Any], Any], str]:
    """The agent factory and the name records give it; ValueError names what is wrong with `spec`."""
    where, _, attribute = spec.rpartition(":")
    if not where or not attribute:
        raise ValueError(f"--tb-agent {spec!r}: write MODULE:OBJECT or FILE.py:OBJECT")
    module = _module(spec, where, root)
    try:
        target = getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--tb-agent {spec!r}: {where} has no {attribute!r}") from None
    if inspect.iscoroutinefunction(target) or (not inspect.isclass(target) and _async_call(target)):
        factory: Callable[[Any], Any] = lambda context: target  # noqa: E731 - one loop-owning agent for every attempt
    elif callable(target):
        factory = lambda context: target()  # noqa: E731 - a fresh agent per attempt
    else:
        raise ValueError(f"--tb-agent {spec!r} is a {type(target).__name__}; name an async function or a class")
    name, version = getattr(target, "name", None), getattr(target, "version", None)
    label = (f"{name}@{version}" if version else name) if isinstance(name, str) and name.strip() else spec
    return factory, label


def _async_call(target: object) -> bool:
    """Whether calling an instance runs a coroutine (its class defines ``async def __call__``)."""
    return inspect.iscoroutinefunction(vars(type(target)).get("__call__"))


def _module(spec: str, where: str, root: Path) -> Any:
    try:
        if where.endswith(".py"):
            path = (root / where).resolve()
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            if loaded is None or not path.is_file():
                raise ValueError(f"--tb-agent {spec!r}: no file {path}")
            module = importlib.util.module_from_spec(loaded)
            sys.modules.setdefault(path.stem, module)
            loaded.loader.exec_module(module)  # type: ignore[union-attr]
            return module
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))  # as `python -m pytest` would, so a module beside you imports
        return importlib.import_module(where)
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"--tb-agent {spec!r}: importing {where} failed: {type(exc).__name__}: {exc}") from exc
