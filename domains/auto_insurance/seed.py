"""Base records every auto insurance task starts from: the states the company writes policies in.

Each state carries its legal minimum liability limits (bodily injury per person
and per accident, property damage), whether uninsured-motorist cover is
compulsory, whether glass is repaired there with no deductible ("full glass")
and the fee kept when a customer cancels mid-term at their own request. Tasks
add their own customers, policies, billing and claims with the factories; they
name a policy's state by its code.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from domains.shared.seed import add_rows

from .models import StateRequirement

# code, name, BI per person, BI per accident, PD, uninsured motorist required, full glass, cancellation fee
_STATE_COLUMNS = (
    "code",
    "name",
    "min_bi_per_person_cents",
    "min_bi_per_accident_cents",
    "min_pd_cents",
    "uninsured_motorist_required",
    "full_glass",
    "cancellation_fee_cents",
)
_STATES = [
    ("AZ", "Arizona", 2_500_000, 5_000_000, 1_500_000, False, True, 5_000),
    ("CA", "California", 3_000_000, 6_000_000, 1_500_000, False, False, 0),
    ("CO", "Colorado", 2_500_000, 5_000_000, 1_500_000, False, False, 2_500),
    ("FL", "Florida", 1_000_000, 2_000_000, 1_000_000, False, True, 0),
    ("GA", "Georgia", 2_500_000, 5_000_000, 2_500_000, False, False, 5_000),
    ("IL", "Illinois", 2_500_000, 5_000_000, 2_000_000, True, False, 0),
    ("NY", "New York", 2_500_000, 5_000_000, 1_000_000, True, False, 0),
    ("OH", "Ohio", 2_500_000, 5_000_000, 2_500_000, False, False, 5_000),
    ("PA", "Pennsylvania", 1_500_000, 3_000_000, 500_000, False, False, 2_500),
    ("TX", "Texas", 3_000_000, 6_000_000, 2_500_000, False, False, 5_000),
]


def seed(db: Session) -> None:
    """Write the state reference records."""
    add_rows(db, StateRequirement, _STATE_COLUMNS, _STATES)
    db.flush()
