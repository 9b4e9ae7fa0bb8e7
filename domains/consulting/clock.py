"""The consulting domain's fixed clock: Monday 2 February 2026, 09:15."""

from __future__ import annotations

from datetime import datetime

from domains.shared.clock import Clock

CLOCK = Clock(datetime(2026, 2, 2, 9, 15))
NOW = CLOCK.now
TODAY = CLOCK.today
days_ago = CLOCK.days_ago
in_days = CLOCK.in_days
