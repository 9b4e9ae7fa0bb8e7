"""Base records every auto insurance task starts from: the states the company writes policies in.

Each state carries its legal minimum liability limits (bodily injury per person
and per accident, property damage) and whether uninsured-motorist cover is
compulsory. Tasks add their own customers, policies, billing and claims with
the factories; they name a policy's state by its code.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .models import StateRequirement

# code, name, BI per person, BI per accident, PD, uninsured motorist required
_STATES = [
    ("AZ", "Arizona", 2_500_000, 5_000_000, 1_500_000, False),
    ("CA", "California", 3_000_000, 6_000_000, 1_500_000, False),
    ("CO", "Colorado", 2_500_000, 5_000_000, 1_500_000, False),
    ("FL", "Florida", 1_000_000, 2_000_000, 1_000_000, False),
    ("GA", "Georgia", 2_500_000, 5_000_000, 2_500_000, False),
    ("IL", "Illinois", 2_500_000, 5_000_000, 2_000_000, True),
    ("NY", "New York", 2_500_000, 5_000_000, 1_000_000, True),
    ("OH", "Ohio", 2_500_000, 5_000_000, 2_500_000, False),
    ("PA", "Pennsylvania", 1_500_000, 3_000_000, 500_000, False),
    ("TX", "Texas", 3_000_000, 6_000_000, 2_500_000, False),
]


def seed(db: Session) -> None:
    """Write the state reference records."""
    for code, name, per_person, per_accident, property_damage, um_required in _STATES:
        db.add(
            StateRequirement(
                code=code,
                name=name,
                min_bi_per_person_cents=per_person,
                min_bi_per_accident_cents=per_accident,
                min_pd_cents=property_damage,
                uninsured_motorist_required=um_required,
            )
        )
    db.flush()
