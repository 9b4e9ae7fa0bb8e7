"""What every concern's options share: the option group, value parsers, and option-or-ini lookup.

Each concern module declares its own options in its `pytest_addoption` (into
this one group); values are checked where they are parsed, so a bad value is a
usage error before any task runs.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ..core.values import at_least_one


def group(parser: pytest.Parser) -> pytest.OptionGroup:
    """The plugin's option group (``pytest --help`` shows it once, whichever concern asks first)."""
    return parser.getgroup("thinkingbox", "agent benchmarks on stateful workflows (pytest-thinkingbox)")


def positive_int(option: str) -> Callable[[str], int]:
    """A parser for a whole number of at least 1; the error names `option`."""

    def parse(text: str) -> int:
        try:
            return at_least_one(text)
        except ValueError:
            raise pytest.UsageError(f"{option} expects a whole number of at least 1, got {text!r}") from None

    return parse


def setting(config: pytest.Config, name: str) -> str:
    """An option's value, else its ini setting (for options that have both)."""
    return config.getoption(name) or config.getini(name)
