"""The retail domain's fixed clock.

Every tool, factory default and policy computation uses `NOW` (and `TODAY`),
never the wall clock, so that the same calls on the same start state give the
same end state on any day.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

#: The moment every retail conversation happens: Monday 16 March 2026, 09:00.
NOW = datetime(2026, 3, 16, 9, 0)
TODAY: date = NOW.date()


def days_ago(days: int, hour: int = 10) -> datetime:
    """A datetime `days` whole days before `NOW` (at `hour` o'clock), for seeding records."""
    return datetime.combine(TODAY - timedelta(days=days), datetime.min.time()).replace(hour=hour)


def in_days(days: int, hour: int = 10) -> datetime:
    """A datetime `days` whole days after `NOW` (at `hour` o'clock), for seeding records."""
    return datetime.combine(TODAY + timedelta(days=days), datetime.min.time()).replace(hour=hour)
