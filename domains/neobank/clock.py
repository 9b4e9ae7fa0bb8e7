"""The neobank domain's fixed clock: Thursday 15 October 2026, 14:00."""

from __future__ import annotations

from datetime import datetime

from domains.shared.clock import Clock

CLOCK = Clock(datetime(2026, 10, 15, 14, 0))
NOW = CLOCK.now
TODAY = CLOCK.today
days_ago = CLOCK.days_ago
in_days = CLOCK.in_days
