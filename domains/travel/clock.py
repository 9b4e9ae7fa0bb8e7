"""The travel domain's fixed clock: Tuesday 8 September 2026, 08:30."""

from __future__ import annotations

from datetime import datetime

from domains.shared.clock import Clock

CLOCK = Clock(datetime(2026, 9, 8, 8, 30))
NOW = CLOCK.now
TODAY = CLOCK.today
days_ago = CLOCK.days_ago
in_days = CLOCK.in_days
