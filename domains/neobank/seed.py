"""Base records every neobank task starts from: the three KYC levels and what each allows.

Tasks add their own customers, accounts, cards and payments with the factories;
they refer to a level through the constants below.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .models import KycLevel

BASIC = "basic"
STANDARD = "standard"
ENHANCED = "enhanced"

# level, description, single transfer limit, monthly transfer limit, highest card daily spending limit
_LEVELS = [
    (BASIC, "Email, phone and address checked; no photo ID yet", 100_000, 250_000, 50_000),
    (STANDARD, "Photo ID and a live selfie checked", 500_000, 1_500_000, 250_000),
    (ENHANCED, "Photo ID, selfie and proof of income or source of funds checked", 2_500_000, 10_000_000, 1_000_000),
]


def seed(db: Session) -> None:
    """Write the KYC levels."""
    for level, description, single, monthly, card_max in _LEVELS:
        db.add(
            KycLevel(
                level=level,
                description=description,
                single_transfer_limit_cents=single,
                monthly_transfer_limit_cents=monthly,
                card_daily_limit_max_cents=card_max,
            )
        )
    db.flush()
