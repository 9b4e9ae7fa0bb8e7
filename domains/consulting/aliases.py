"""Other names the firm's employees use for the facts they tell the service desk.

The simulated user reads a fact's key, these names and the shared synonyms
alike: asked for a "personnel number", a user who knows their ``employee id``
gives it. Each name is one a colleague would really say.
"""

from __future__ import annotations

from domains.shared.aliases import EMPLOYEE_NUMBER

ALIASES: dict[str, tuple[str, ...]] = {
    "employee id": ("employee number", "employee ID number", *EMPLOYEE_NUMBER),
    "email": ("work email", "work email address", "company email", "firm email", "office email"),
    "role wanted": (
        "role you want",
        "role you need",
        "access role",
        "access level",
        "level of access",
        "permission level",
        "kind of access",
        "type of access",
    ),
    "expense report": (
        "expense report number",
        "expense report ID",
        "expenses report",
        "expense claim",
        "expense claim number",
        "expense reference",
    ),
    "system": ("internal system", "application", "system name"),
    "software": ("software licence", "licence you need", "software package", "software title", "program"),
    "item": ("hardware", "hardware item", "hardware model", "device", "equipment", "model you want"),
    "leaver": (
        "person leaving",
        "employee leaving",
        "leaving employee",
        "departing employee",
        "who is leaving",
        "leaver's name",
        "name of the leaver",
    ),
    "joiner": (
        "new joiner",
        "new starter",
        "starter",
        "new hire",
        "new employee",
        "person joining",
        "who is joining",
        "joiner's name",
    ),
    "consultant": ("consultant's name", "name of the consultant", "which consultant"),
    "analyst": ("analyst's name", "name of the analyst", "which analyst"),
    "colleague": ("colleague's name", "name of the colleague", "which colleague"),
    "for whom": ("who the request is for", "person the request is for", "on behalf of whom", "who you are asking for"),
    "engagement": ("engagement code", "engagement ID", "engagement name", "project", "project code", "client project"),
    "folder": ("document folder", "engagement folder", "folder name", "which folder"),
    "which environment": ("environment", "client environment", "test environment", "environment name"),
    "which system": ("system", "internal system", "application"),
    "resource ids": ("resource IDs", "resource numbers", "resource references", "resource codes"),
}
