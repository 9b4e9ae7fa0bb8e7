"""Golden-path building blocks the neobank tasks share."""

from __future__ import annotations

from pytest_thinkingbox import Call, call

from .models import Customer, Employee


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


def identify_employee(employee: Employee) -> list[Call]:
    """Internal help desk: find the caller by employee number and verify them with the date of birth they give."""
    return [
        call("find_employee", employee_number=employee.id),
        call("verify_employee", employee_number=employee.id, date_of_birth=employee.date_of_birth.isoformat()),
    ]


def employee_facts(employee: Employee, date_of_birth: str | None = None, **facts: str) -> dict[str, str]:
    """What a calling employee can tell the desk, for `User.knows`: their employee number and date of birth (their
    own, unless another is given for a caller who fails verification), then the task's own facts."""
    return {
        "employee number": employee.id,
        "date of birth": date_of_birth or employee.date_of_birth.isoformat(),
        **facts,
    }
