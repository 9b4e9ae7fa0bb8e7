"""Other names the agency's travellers use for the facts they tell the hotel desk.

The simulated user reads a fact's key, these names and the shared synonyms
alike (booking reference, confirmation number and reservation number are
shared by every domain). Each name is one a traveller would really say.
"""

from __future__ import annotations

from domains.shared.aliases import EMPLOYEE_NUMBER

ALIASES: dict[str, tuple[str, ...]] = {
    "booking reference": (
        "booking code",
        "reservation code",
        "hotel booking reference",
        "hotel confirmation number",
        "booking confirmation number",
    ),
    "employee number": ("employee ID", *EMPLOYEE_NUMBER),
    "group reference": ("group booking reference", "group booking number", "group booking ID", "group number"),
    "trip reference": ("trip number", "trip ID", "trip code", "itinerary reference", "itinerary number"),
    "which stay": ("which booking", "which reservation"),
    "accept the late checkout fee": (
        "pay the late checkout fee",
        "late checkout fee",
        "late checkout charge",
        "pay for the late checkout",
    ),
    "paid upgrade": ("pay for an upgrade", "pay for the upgrade", "paid room upgrade", "upgrade for a fee"),
}
