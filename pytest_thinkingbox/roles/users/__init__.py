"""Simulated users. Offline: `scripted` (the default)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.task import User

if TYPE_CHECKING:
    from ...core.episode import SimulatedUser

NAMES = ("scripted",)


def make_user(name: str, brief: User) -> SimulatedUser:
    """The simulated user called `name`, playing `brief` (`name` was checked at start-up)."""
    if name == "scripted":
        from .scripted import ScriptedUser

        return ScriptedUser(brief)
    raise ValueError(f"unknown user {name!r}; choose one of {', '.join(NAMES)}")
