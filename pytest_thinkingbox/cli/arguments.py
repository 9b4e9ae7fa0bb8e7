"""What the commands share: their error, and the option values checked where they are parsed."""

from __future__ import annotations

import argparse

from ..core.errors import ThinkingboxError
from ..core.values import at_least_one


class CliError(ThinkingboxError):
    """Bad input, with a message that names the file, line or option."""


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _whole(text: str) -> int:
    """A whole number of at least 1 (argparse names the option in its error)."""
    try:
        return at_least_one(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _share(text: str) -> float:
    """A number in (0, 1] (argparse names the option in its error)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], e.g. 0.6, got {text!r}")
    return value


def _edges(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in _names(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--edges expects numbers separated by commas, got {text!r}") from None
