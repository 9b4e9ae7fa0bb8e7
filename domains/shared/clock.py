"""A domain's fixed clock.

Every tool, factory default and policy computation of a domain uses its clock's
`now` (and `today`), never the wall clock, so that the same calls on the same
start state give the same end state on any day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta


@dataclass(frozen=True)
class Clock:
    """The moment every conversation of a domain happens."""

    now: datetime
    today: date = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "today", self.now.date())

    def days_ago(self, days: int, hour: int = 10) -> datetime:
        """A datetime `days` whole days before `now` (at `hour` o'clock), for seeding records."""
        return datetime.combine(self.today - timedelta(days=days), datetime.min.time()).replace(hour=hour)

    def in_days(self, days: int, hour: int = 10) -> datetime:
        """A datetime `days` whole days after `now` (at `hour` o'clock), for seeding records."""
        return datetime.combine(self.today + timedelta(days=days), datetime.min.time()).replace(hour=hour)
