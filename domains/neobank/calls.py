"""Golden-path building blocks the neobank tasks share."""

from __future__ import annotations

from pytest_thinkingbox import Call, call

from .models import Customer


def identify(customer: Customer) -> list[Call]:
    """Find the caller by email and verify them with the date of birth and postal code they give (`identity`)."""
    return [
        call("find_customer_by_email", email=customer.email),
        call(
            "verify_identity",
            email=customer.email,
            date_of_birth=customer.date_of_birth.isoformat(),
            postal_code=customer.postal_code,
        ),
    ]


def next_ticket_id(*existing: str) -> str:
    """The id `create_ticket` gives a new ticket when the tickets `existing` are all there are."""
    numbers = [int(t.split("-")[1]) for t in existing]
    return f"T-{max(numbers, default=0) + 1:04d}"
