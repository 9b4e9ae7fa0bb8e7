"""A bundled domain's `Domain`, assembled from its package's parts.

Every bundled domain is a package with the same parts: ``models.py`` (its
``Base``), ``tools.py`` (its `ToolSet`), ``clock.py`` (``NOW``), ``seed.py``,
``rules.py``, ``aliases.py`` and ``policy.md`` beside them. Its ``__init__.py``
imports the parts and hands them to `bundled_domain`, which names the domain
after its package and finds the policy next to it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path

from sqlalchemy import MetaData
from sqlalchemy.orm import Session

from pytest_thinkingbox import Domain, Rules, ToolSet


def bundled_domain(
    init_file: str,
    metadata: MetaData,
    tools: ToolSet,
    now: dt.datetime,
    seed: Callable[[Session], None],
    rules: Rules,
    aliases: Mapping[str, tuple[str, ...]],
) -> Domain:
    """The domain of the package whose ``__init__.py`` is `init_file`: named after the package's folder,
    with the ``policy.md`` beside it."""
    package = Path(init_file).parent
    return Domain(
        name=package.name,
        metadata=metadata,
        tools=tools,
        policy=package / "policy.md",
        now=now,
        seed=seed,
        rules=rules,
        aliases=aliases,
    )
