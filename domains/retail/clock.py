"""The retail domain's fixed clock: Monday 16 March 2026, 09:00."""

from __future__ import annotations

from datetime import datetime

from domains.shared.clock import Clock

CLOCK = Clock(datetime(2026, 3, 16, 9, 0))
NOW = CLOCK.now
TODAY = CLOCK.today
days_ago = CLOCK.days_ago
in_days = CLOCK.in_days
