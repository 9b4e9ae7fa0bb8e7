"""Finding who a person is, and verifying it, as MCP tools.

Every domain starts a conversation by identifying the person it serves from
the email they give. Domains whose policy requires identity verification
before any change (insurance, banking) also get ``verify_identity``, which
checks a date of birth and a postal code against the records without ever
showing them: the look-up leaves both out of its result.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from pytest_thinkingbox import NOT_FOUND, ToolFailure, ToolSet, row_dict

from .arguments import iso_date

_SECRETS = ("date_of_birth", "postal_code")


def register_identity(tools: ToolSet, person: Any, label: str = "customer", verify: bool = False) -> None:
    """Add ``find_<label>_by_email`` and, with `verify`, ``verify_identity``.

    Args:
        tools: the domain's tool set.
        person: the model of the people served; it has an ``email`` column, and with `verify` also
            ``date_of_birth`` (a date) and ``postal_code`` columns, which the look-up then hides.
        label: what the agent calls them (``customer``, ``traveller``, ``employee``).
        verify: whether to add the verification tool.
    """
    hidden = _SECRETS if verify else ()
    owner_of = select(person).where(func.lower(person.email) == bindparam("email"))  # built once, run per call

    def by_email(db: Session, email: str) -> Any:
        wanted = email.strip().lower()
        found = db.scalars(owner_of, {"email": wanted}).first()
        if found is None:
            raise ToolFailure(NOT_FOUND, f"no {label} has the email {email!r}; ask them to check it")
        return found

    def find_by_email(db: Session, email: str) -> dict:
        return row_dict(by_email(db, email), *hidden)

    find_by_email.__name__ = f"find_{label}_by_email"
    find_by_email.__doc__ = (
        f"Find the {label} who owns an email address. Use it first, with the email they give you, to identify "
        f"who you are talking to. Returns the {label}'s profile"
        + (" (without the details used to verify identity)." if verify else ".")
    )
    tools.read(find_by_email)
    if not verify:
        return

    def verify_identity(db: Session, email: str, date_of_birth: str, postal_code: str) -> dict:
        born = iso_date(date_of_birth, "date_of_birth must be a date as YYYY-MM-DD")
        found = by_email(db, email)
        matches = found.date_of_birth == born and found.postal_code.strip() == postal_code.strip()
        if matches:
            return {"verified": True, f"{label}_id": found.id}
        return {"verified": False, "detail": "the date of birth or postal code does not match our records"}

    verify_identity.__doc__ = (
        f"Verify that you are talking to the {label} who owns an email address, with the date of birth "
        "(YYYY-MM-DD) and the postal code they tell you. Returns verified true or false; it never shows the "
        "recorded details."
    )
    tools.read(verify_identity)


def caller_facts(person: Any, date_of_birth: str | None = None, **facts: str) -> dict[str, str]:
    """What a calling person can tell the agent, for `User.knows`: their email, date of birth (their own,
    unless another is given for a caller who fails verification) and postal code, then the task's own facts."""
    return {
        "email": person.email,
        "date of birth": date_of_birth or person.date_of_birth.isoformat(),
        "postal code": person.postal_code,
        **facts,
    }
