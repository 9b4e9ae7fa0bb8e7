"""--tb-tasks: run only the tasks a training pool file selects (thinkingbox select-pool --out)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .options import group
from .outcomes import item_key


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-tasks",
        dest="tb_tasks",
        metavar="FILE",
        help='Run only the tasks a pool file lists under "selected" (thinkingbox select-pool --out). '
        "Default: every collected task.",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = config.getoption("tb_tasks")
    if not path:
        return
    wanted = selected_tasks(path)
    keep = [item for item in items if item_key(item)[0] in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep
    missing = wanted - {item_key(item)[0] for item in keep}
    if missing:
        config.issue_config_time_warning(
            pytest.PytestWarning(
                f"--tb-tasks {path}: {len(missing)} listed tasks were not collected, e.g. {sorted(missing)[:3]}"
            ),
            stacklevel=2,
        )


def selected_tasks(path: str) -> set[str]:
    """The task ids a pool file lists under "selected", or a usage error naming the file."""
    try:
        selected = json.loads(Path(path).read_text(encoding="utf-8"))["selected"]
        if not isinstance(selected, list) or not all(isinstance(t, str) for t in selected):
            raise TypeError
    except OSError as exc:
        raise pytest.UsageError(f"--tb-tasks {path}: cannot read it ({exc.strerror})") from None
    except (ValueError, KeyError, TypeError):
        raise pytest.UsageError(
            f'--tb-tasks {path}: expected JSON with a "selected" list of task ids (thinkingbox select-pool --out)'
        ) from None
    return set(selected)
