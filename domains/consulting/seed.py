"""Base records every consulting task starts from: the firm's leaders, clients, resources and catalogues.

Tasks add their own employees, engagements, staffing, compliance records,
grants, seats, requests, expense reports and tickets with the factories; they
refer to the base records through the constants below.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from domains.shared.seed import add_rows, work_email

from .models import Client, Employee, HardwareModel, Resource, Software

# people every task can rely on
MANAGING_PARTNER = "E-1001"
FS_PARTNER = "E-1002"  # leads the financial services practice
RETAIL_DIRECTOR = "E-1003"  # leads the retail and consumer practice
IT_SECURITY_LEAD = "E-1004"
KNOWLEDGE_MANAGER = "E-1005"  # owns the firm's template folders
PEOPLE_PARTNER = "E-1006"  # HR business partner
HEALTH_DIRECTOR = "E-1007"  # leads the health practice

# clients
NORDHAVN = "CL-01"
CALLOWAY = "CL-02"
MERIDIAN = "CL-03"
ALDER = "CL-04"

# internal systems
WORKDAY = "RES-301"
SALESFORCE = "RES-302"
TIMESHEETS = "RES-303"
NETSUITE = "RES-304"
# client environments
NORDHAVN_UAT = "RES-401"
CALLOWAY_SNOWFLAKE = "RES-402"
MERIDIAN_SANDBOX = "RES-403"
ALDER_SAP = "RES-404"
# document folders
PROPOSAL_TEMPLATES = "RES-501"
DELIVERY_TEMPLATES = "RES-502"
NORDHAVN_FOLDER = "RES-503"
CALLOWAY_FOLDER = "RES-504"

# software
VISIO = "SW-101"
TABLEAU = "SW-102"
ALTERYX = "SW-103"
BURP_SUITE = "SW-104"
ACROBAT = "SW-105"
POWER_BI = "SW-106"
THINK_CELL = "SW-107"
STATA = "SW-108"

# hardware catalogue
STANDARD_LAPTOP = "HW-201"
PERFORMANCE_LAPTOP = "HW-202"
MACBOOK_PRO = "HW-203"
MONITOR = "HW-204"
DOCK = "HW-205"
HEADSET = "HW-206"
TABLET = "HW-207"
KEYBOARD_MOUSE = "HW-208"

# id, name, grade, title, department, manager, start date
_LEADERS = [
    (MANAGING_PARTNER, "Margaret Holloway", "partner", "Managing Partner", "Leadership", None, date(2009, 9, 1)),
    (
        FS_PARTNER,
        "David Osei",
        "partner",
        "Partner, Financial Services",
        "Financial Services",
        MANAGING_PARTNER,
        date(2013, 2, 4),
    ),
    (
        RETAIL_DIRECTOR,
        "Ingrid Larsen",
        "director",
        "Director, Retail & Consumer",
        "Retail & Consumer",
        MANAGING_PARTNER,
        date(2016, 5, 9),
    ),
    (IT_SECURITY_LEAD, "Ruth Adeyemi", "director", "IT Security Lead", "IT", MANAGING_PARTNER, date(2018, 1, 15)),
    (
        KNOWLEDGE_MANAGER,
        "Tom Whitaker",
        "manager",
        "Knowledge Manager",
        "Knowledge Management",
        MANAGING_PARTNER,
        date(2019, 3, 11),
    ),
    (PEOPLE_PARTNER, "Priya Raman", "manager", "HR Business Partner", "People", MANAGING_PARTNER, date(2020, 6, 1)),
    (HEALTH_DIRECTOR, "Samuel Brandt", "director", "Director, Health", "Health", MANAGING_PARTNER, date(2015, 10, 5)),
]

# id, name, industry, background check required
_CLIENTS = [
    (NORDHAVN, "Nordhavn Bank", "Banking", True),
    (CALLOWAY, "Calloway Retail Group", "Retail", False),
    (MERIDIAN, "Meridian Health Partners", "Healthcare", True),
    (ALDER, "Alder Energy", "Utilities", True),
]

# id, name, kind, client, owner, description
_RESOURCES = [
    (WORKDAY, "Workday", "internal_system", None, PEOPLE_PARTNER, "HR records, leave and performance reviews"),
    (SALESFORCE, "Salesforce CRM", "internal_system", None, MANAGING_PARTNER, "Client pipeline and contacts"),
    (TIMESHEETS, "Replicon Timesheets", "internal_system", None, MANAGING_PARTNER, "Time recording"),
    (NETSUITE, "NetSuite Finance", "internal_system", None, MANAGING_PARTNER, "Billing and general ledger"),
    (
        NORDHAVN_UAT,
        "Nordhavn Bank - Azure DevOps (UAT)",
        "client_environment",
        NORDHAVN,
        None,
        "Core banking migration test environment",
    ),
    (
        CALLOWAY_SNOWFLAKE,
        "Calloway Retail - Snowflake analytics",
        "client_environment",
        CALLOWAY,
        None,
        "Sales and loyalty data warehouse",
    ),
    (
        MERIDIAN_SANDBOX,
        "Meridian Health - Epic reporting sandbox",
        "client_environment",
        MERIDIAN,
        None,
        "De-identified patient-flow reporting",
    ),
    (ALDER_SAP, "Alder Energy - SAP S/4HANA test", "client_environment", ALDER, None, "Finance process testing"),
    (
        PROPOSAL_TEMPLATES,
        "Proposal templates",
        "template_folder",
        None,
        KNOWLEDGE_MANAGER,
        "Approved proposal and pricing templates",
    ),
    (
        DELIVERY_TEMPLATES,
        "Delivery templates",
        "template_folder",
        None,
        KNOWLEDGE_MANAGER,
        "Steering-committee packs, RAID logs and status reports",
    ),
    (
        NORDHAVN_FOLDER,
        "Nordhavn Bank - engagement folder",
        "client_folder",
        NORDHAVN,
        KNOWLEDGE_MANAGER,
        "Working papers and deliverables for Nordhavn Bank",
    ),
    (
        CALLOWAY_FOLDER,
        "Calloway Retail - engagement folder",
        "client_folder",
        CALLOWAY,
        KNOWLEDGE_MANAGER,
        "Working papers and deliverables for Calloway Retail",
    ),
]

_ALL = "analyst,consultant,senior_consultant,manager,director,partner"
_CONSULTANT_UP = "consultant,senior_consultant,manager,director,partner"
_SENIOR_UP = "senior_consultant,manager,director,partner"

# id, name, vendor, seats, allowed grades, approval, annual cost
_SOFTWARE = [
    (VISIO, "Microsoft Visio Plan 2", "Microsoft", 40, _ALL, "none", 18_000),
    (TABLEAU, "Tableau Creator", "Salesforce", 5, _CONSULTANT_UP, "none", 90_000),
    (ALTERYX, "Alteryx Designer", "Alteryx", 4, _CONSULTANT_UP, "line_manager", 520_000),
    (BURP_SUITE, "Burp Suite Professional", "PortSwigger", 3, _ALL, "it_security", 47_500),
    (ACROBAT, "Adobe Acrobat Pro", "Adobe", 30, _ALL, "none", 23_900),
    (POWER_BI, "Power BI Pro", "Microsoft", 50, _ALL, "none", 16_800),
    (THINK_CELL, "think-cell", "think-cell", 60, _ALL, "none", 29_900),
    (STATA, "Stata/MP", "StataCorp", 5, _SENIOR_UP, "none", 110_000),
]

# id, name, category, price
_HARDWARE = [
    (STANDARD_LAPTOP, "Dell Latitude 7450 14-inch laptop", "laptop", 165_000),
    (PERFORMANCE_LAPTOP, "Lenovo ThinkPad P1 Gen 7 laptop", "laptop", 289_000),
    (MACBOOK_PRO, "Apple MacBook Pro 14-inch M4 Pro", "laptop", 239_900),
    (MONITOR, "Dell UltraSharp U2724D 27-inch monitor", "monitor", 42_900),
    (DOCK, "Dell WD22TB4 Thunderbolt dock", "dock", 28_900),
    (HEADSET, "Jabra Evolve2 85 headset", "headset", 37_900),
    (TABLET, "Apple iPad Air 11-inch", "tablet", 69_900),
    (KEYBOARD_MOUSE, "Logitech MX Keys and MX Master 3S set", "peripheral", 14_900),
]


def seed(db: Session) -> None:
    """Write the firm's leaders, clients, resources, software pools and hardware catalogue."""
    leaders = ((eid, name, work_email(name, "haldenprice.com"), *rest) for eid, name, *rest in _LEADERS)
    leader_columns = ("id", "name", "email", "grade", "title", "department", "manager_id", "start_date")
    add_rows(db, Employee, leader_columns, leaders, office="New York", status="active")
    db.flush()
    add_rows(db, Client, ("id", "name", "industry", "background_check_required"), _CLIENTS)
    add_rows(db, Resource, ("id", "name", "kind", "client_id", "owner_id", "description"), _RESOURCES)
    software_columns = ("id", "name", "vendor", "seats_total", "allowed_grades", "approval", "annual_cost_cents")
    add_rows(db, Software, software_columns, _SOFTWARE)
    add_rows(db, HardwareModel, ("id", "name", "category", "price_cents"), _HARDWARE, orderable=True)
    db.flush()
