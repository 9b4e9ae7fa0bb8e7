"""Base records every neobank task starts from: the three KYC levels and what each allows, and for the internal
help desk the bank's internal systems, their roles, and the employees who own them or approve for security.

Tasks add their own customers, accounts, cards and payments, and their own employees, grants, requests and
devices, with the factories; they refer to a level, a system, a role or a seeded employee through the constants
below.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from domains.shared.seed import add_rows, work_email

from .models import Employee, InternalSystem, KycLevel, SystemRole

BASIC = "basic"
STANDARD = "standard"
ENHANCED = "enhanced"

# level, description, single transfer limit, monthly transfer limit, highest card daily spending limit
_LEVELS = [
    (BASIC, "Email, phone and address checked; no photo ID yet", 100_000, 250_000, 50_000),
    (STANDARD, "Photo ID and a live selfie checked", 500_000, 1_500_000, 250_000),
    (ENHANCED, "Photo ID, selfie and proof of income or source of funds checked", 2_500_000, 10_000_000, 1_000_000),
]


# --------------------------------------------------------------------------- the internal help desk

CORE_BANKING, PAYMENTS_HUB, CARD_MANAGEMENT, CRM, DATA_WAREHOUSE = "CBS", "PAY", "CMS", "CRM", "DWH"
# the seeded employees: the five system owners, the security officer and the HR business partner
DIETER_HAHN, INES_MARQUARDT, TOBIAS_REUTER, LEONIE_FISCHER, RAFAEL_SOUSA = (
    "E-1001",
    "E-1002",
    "E-1003",
    "E-1004",
    "E-1005",
)
KATRIN_WOLFF, MIRIAM_ADLER = "E-1006", "E-1007"

TECHNOLOGY = "Technology"
PAYMENTS_OPS = "Payments Operations"
CARD_OPS = "Card Operations"
CUSTOMER_SUPPORT = "Customer Support"
DATA_ANALYTICS = "Data & Analytics"
FINANCE = "Finance"
INTERNAL_AUDIT = "Internal Audit"
INFORMATION_SECURITY = "Information Security"
HUMAN_RESOURCES = "Human Resources"

# id, name, department, title, date of birth
_EMPLOYEES = [
    (DIETER_HAHN, "Dieter Hahn", TECHNOLOGY, "Head of Core Banking Platform", date(1971, 4, 9)),
    (INES_MARQUARDT, "Ines Marquardt", PAYMENTS_OPS, "Head of Payments Operations", date(1978, 11, 23)),
    (TOBIAS_REUTER, "Tobias Reuter", CARD_OPS, "Head of Card Operations", date(1982, 2, 14)),
    (LEONIE_FISCHER, "Leonie Fischer", CUSTOMER_SUPPORT, "Head of Customer Support", date(1985, 7, 30)),
    (RAFAEL_SOUSA, "Rafael Sousa", DATA_ANALYTICS, "Head of Data", date(1980, 1, 5)),
    (KATRIN_WOLFF, "Katrin Wolff", INFORMATION_SECURITY, "Information Security Officer", date(1976, 9, 18)),
    (MIRIAM_ADLER, "Miriam Adler", HUMAN_RESOURCES, "HR Business Partner", date(1989, 3, 2)),
]
_JOINED = date(2019, 1, 2)  # the day every seeded employee started


@dataclass(frozen=True)
class SeededEmployee:
    """A seeded employee as a task's caller knows them: employee number, name and date of birth."""

    id: str
    name: str
    date_of_birth: date


def seeded(employee_number: str) -> SeededEmployee:
    """The seeded employee with this number (`DIETER_HAHN` ...), for a task where they call the desk."""
    for emp_id, name, _, _, born in _EMPLOYEES:
        if emp_id == employee_number:
            return SeededEmployee(emp_id, name, born)
    raise KeyError(f"no seeded employee has the number {employee_number!r}")


# id, name, risk, owner, the owner team's queue
_SYSTEMS = [
    (CORE_BANKING, "Core banking", "high", DIETER_HAHN, "core_banking_team"),
    (PAYMENTS_HUB, "Payments hub", "high", INES_MARQUARDT, "payments_team"),
    (CARD_MANAGEMENT, "Card management", "medium", TOBIAS_REUTER, "cards_team"),
    (CRM, "Customer CRM", "low", LEONIE_FISCHER, "crm_team"),
    (DATA_WAREHOUSE, "Data warehouse", "medium", RAFAEL_SOUSA, "data_team"),
]

# id, system, name, description, read only, privileged, department, conflicts with
_ROLE_COLUMNS = (
    "id",
    "system_id",
    "name",
    "description",
    "read_only",
    "privileged",
    "department",
    "conflicts_with_id",
)
_ROLES = [
    ("CBS-READ", CORE_BANKING, "Core banking viewer", "Read accounts and bookings", True, False, None, None),
    (
        "CBS-POST",
        CORE_BANKING,
        "Manual booking",
        "Post manual bookings and corrections",
        False,
        False,
        FINANCE,
        "CBS-RECON",
    ),
    (
        "CBS-RECON",
        CORE_BANKING,
        "Booking reconciliation",
        "Reconcile and sign off manual bookings",
        False,
        False,
        FINANCE,
        "CBS-POST",
    ),
    (
        "CBS-ADMIN",
        CORE_BANKING,
        "Core banking administrator",
        "Change core banking configuration",
        False,
        True,
        TECHNOLOGY,
        None,
    ),
    ("PAY-READ", PAYMENTS_HUB, "Payments viewer", "Read payment orders and their status", True, False, None, None),
    (
        "PAY-INIT",
        PAYMENTS_HUB,
        "Payment initiator",
        "Enter outgoing payment orders",
        False,
        False,
        PAYMENTS_OPS,
        "PAY-APPROVE",
    ),
    (
        "PAY-APPROVE",
        PAYMENTS_HUB,
        "Payment approver",
        "Approve outgoing payment orders (second pair of eyes)",
        False,
        False,
        PAYMENTS_OPS,
        "PAY-INIT",
    ),
    (
        "PAY-ADMIN",
        PAYMENTS_HUB,
        "Payments hub administrator",
        "Change payment routing and limits",
        False,
        True,
        TECHNOLOGY,
        None,
    ),
    ("CMS-READ", CARD_MANAGEMENT, "Card viewer", "Read cards and their status", True, False, None, None),
    (
        "CMS-SUPPORT",
        CARD_MANAGEMENT,
        "Card support",
        "Freeze, block and reorder customer cards",
        False,
        False,
        CARD_OPS,
        None,
    ),
    (
        "CMS-LIMITS",
        CARD_MANAGEMENT,
        "Card limit override",
        "Override card spending limits",
        False,
        True,
        CARD_OPS,
        None,
    ),
    ("CRM-READ", CRM, "CRM viewer", "Read customer profiles and contact history", True, False, None, None),
    ("CRM-AGENT", CRM, "CRM agent", "Edit customer contact records and notes", False, False, CUSTOMER_SUPPORT, None),
    ("CRM-EXPORT", CRM, "CRM export", "Export customer lists", False, True, None, None),
    ("DWH-READ", DATA_WAREHOUSE, "Report viewer", "Read aggregated reports", True, False, None, None),
    ("DWH-ANALYST", DATA_WAREHOUSE, "Analyst", "Query pseudonymised customer data", False, False, DATA_ANALYTICS, None),
    (
        "DWH-PII",
        DATA_WAREHOUSE,
        "Personal data analyst",
        "Query customer personal data",
        False,
        True,
        DATA_ANALYTICS,
        None,
    ),
]


def seed_internal(db: Session) -> None:
    """Write the seeded employees, the internal systems and their roles."""
    employee_columns = ("id", "name", "email", "date_of_birth", "department", "title", "grade", "start_on")
    employees = (
        (emp_id, name, work_email(name, "kestrelbank.example"), born, department, title, _grade_of(title), _JOINED)
        for emp_id, name, department, title, born in _EMPLOYEES
    )
    add_rows(db, Employee, employee_columns, employees, manager_id=None, is_contractor=False, status="active")
    db.flush()
    add_rows(db, InternalSystem, ("id", "name", "risk", "owner_id", "owner_queue"), _SYSTEMS)
    db.flush()
    role_columns = (
        "id",
        "system_id",
        "name",
        "description",
        "read_only",
        "privileged",
        "department",
        "conflicts_with_id",
    )
    add_rows(db, SystemRole, role_columns, _ROLES)
    db.flush()


def _grade_of(title: str) -> str:
    """A seeded employee's grade: the heads of a function are directors, the others managers."""
    return "director" if title.startswith("Head") else "manager"


def seed(db: Session) -> None:
    """Write the KYC levels, then the internal help desk's base records."""
    limits = ("single_transfer_limit_cents", "monthly_transfer_limit_cents", "card_daily_limit_max_cents")
    add_rows(db, KycLevel, ("level", "description", *limits), _LEVELS)
    db.flush()
    seed_internal(db)
