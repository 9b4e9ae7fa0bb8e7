"""Other names for facts the users of several domains know alike.

A domain's ``aliases.py`` maps each fact its users know to the other names
they would really say for it; where staff of different firms say the same
things, the names are kept here once and each table spreads them in.
"""

from __future__ import annotations

EMPLOYEE_NUMBER: tuple[str, ...] = (
    "employee no",
    "personnel number",
    "staff ID",
    "staff number",
    "HR number",
    "payroll number",
)
"""What staff call their employee number, after the domain's own first names for it (``employee ID`` ...)."""
