"""Where tasks are: the one loader of task functions that the plugin, reward, serve-env, the CLI and the
bundled conftest share.

A task is a function named ``test_case_...`` in a ``test_*.py`` module. Modules
are imported under the names pytest gives them (the dotted path up through the
folders that hold an ``__init__.py``), so a task found here is the very function
pytest collects, never a second copy. A task's domain is looked up in pytest's
order: a ``tb_domain`` fixture in the task's module, then in the ``conftest.py``
files from its folder upwards, then the ``DOMAIN`` its package exports. Outside
pytest (reward, serve-env) such a fixture is called as pytest calls a fixture
that takes no arguments; one that needs arguments cannot be, and says so.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from .domain import Domain
from .errors import TaskDefinitionError

TASK_PREFIX = "test_case_"


@dataclass(frozen=True)
class TaskEntry:
    """One task function and where it lives."""

    id: str  # the function's name, e.g. test_case_RT003_006
    function: Callable[..., Any]
    module: ModuleType
    path: Path
    source_hash: str  # of its module's source: what it declares changes only when this does

    @property
    def family(self) -> str | None:
        """The family of a ``test_case_<FAMILY>_<NUMBER>`` task (``RT003``), else None."""
        return family_of(self.id)


def family_of(task_id: str) -> str | None:
    parts = task_id.removeprefix(TASK_PREFIX).split("_")
    return parts[0] if task_id.startswith(TASK_PREFIX) and len(parts) == 2 else None


def bundled_root() -> Path:
    """Where the tasks are by default: ``./domains`` in a checkout, else the installed bundled domains."""
    here = Path("domains")
    if here.is_dir():
        return here
    spec = importlib.util.find_spec("domains")
    return Path(spec.origin).parent if spec is not None and spec.origin else here


def import_file(path: Path) -> ModuleType:
    """Import a source file under the name pytest gives it: its dotted path up through the package folders."""
    path = path.resolve()
    parts, base = [path.stem], path.parent
    while (base / "__init__.py").exists():
        parts.insert(0, base.name)
        base = base.parent
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    return importlib.import_module(".".join(parts))


@cache
def load(root: Path) -> dict[str, TaskEntry]:
    """Every task under `root` by id, each module imported once; an id defined twice is refused."""
    root = root.resolve()
    found: dict[str, TaskEntry] = {}
    for path in sorted(root.rglob("test_*.py")):
        module = import_file(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        for name, function in vars(module).items():
            if not (name.startswith(TASK_PREFIX) and inspect.isfunction(function)):
                continue
            if function.__module__ != module.__name__:
                continue  # imported from another module: a task lives where it is defined
            if name in found:
                raise LookupError(f"task {name!r} is defined more than once under {root}: {found[name].path}, {path}")
            found[name] = TaskEntry(name, function, module, path, digest)
    return found


def task_ids(root: Path) -> list[str]:
    """Every task id under `root`, sorted."""
    return sorted(load(root.resolve()))


def find(task_id: str, root: Path) -> TaskEntry:
    """The task `task_id` under `root`."""
    entry = load(root.resolve()).get(task_id)
    if entry is None:
        raise LookupError(f"no task {task_id!r} under {root}")
    return entry


def package_domain(module: ModuleType) -> Domain | None:
    """The ``DOMAIN`` exported by the module's package, or the nearest enclosing package that has one."""
    name = module.__package__ or ""
    while name:
        domain = getattr(importlib.import_module(name), "DOMAIN", None)
        if isinstance(domain, Domain):
            return domain
        name = name.rpartition(".")[0]
    return None


@cache
def domain_of(entry: TaskEntry) -> Domain:
    """The domain the task runs against, looked up as pytest would resolve its `tb_domain` (see the module doc)."""
    for where in (entry.module, *_conftests(entry.path)):
        fixture = vars(where).get("tb_domain")
        if fixture is not None:
            return _call_fixture(fixture, entry, where)
    domain = package_domain(entry.module)
    if domain is None:
        raise TaskDefinitionError(
            f"{entry.id} ({entry.path}): no domain; export DOMAIN from its package, or define a `tb_domain` "
            "fixture in the conftest.py beside it"
        )
    return domain


def _conftests(path: Path) -> list[ModuleType]:
    """The conftest modules from `path`'s folder upwards, nearest first (while the folders are packages, and
    the first folder above them)."""
    found, folder = [], path.resolve().parent
    while True:
        conftest = folder / "conftest.py"
        if conftest.exists():
            found.append(import_file(conftest))
        if not (folder / "__init__.py").exists() or folder.parent == folder:
            return found
        folder = folder.parent


def _call_fixture(fixture: Any, entry: TaskEntry, where: ModuleType) -> Domain:
    wrapped = getattr(fixture, "_get_wrapped_function", None)
    function = wrapped() if callable(wrapped) else getattr(fixture, "__wrapped__", fixture)
    if inspect.signature(function).parameters:
        raise TaskDefinitionError(
            f"{entry.id}: the tb_domain fixture in {where.__file__} takes arguments, so it can only run inside "
            "pytest; outside it (reward, serve-env) export DOMAIN from the task's package instead"
        )
    value = function()
    if inspect.isgenerator(value):
        value = next(value)
    if not isinstance(value, Domain):
        raise TaskDefinitionError(f"{entry.id}: tb_domain in {where.__file__} gave {value!r}, not a Domain")
    return value
