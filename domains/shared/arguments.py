"""Reading a tool's text arguments as the values they name.

Tools take dates as text (``YYYY-MM-DD``) so that an agent writes them the way
a person says them; each domain words its own failure, the parsing is the same.
"""

from __future__ import annotations

from datetime import date

from pytest_thinkingbox import INVALID_ARGUMENT, ToolFailure


def iso_date(value: str, failure: str) -> date:
    """`value` as a date (``YYYY-MM-DD``, spaces around it ignored), or an invalid-argument failure saying `failure`."""
    try:
        return date.fromisoformat(value.strip())
    except (AttributeError, ValueError):
        raise ToolFailure(INVALID_ARGUMENT, failure) from None
