"""The auto insurance domain's fixed clock: Tuesday 12 May 2026, 10:00."""

from __future__ import annotations

from datetime import datetime

from domains.shared.clock import Clock

CLOCK = Clock(datetime(2026, 5, 12, 10, 0))
NOW = CLOCK.now
TODAY = CLOCK.today
days_ago = CLOCK.days_ago
in_days = CLOCK.in_days
