"""The travel benchmark domain: a corporate travel agency's hotel desk.

Travellers of corporate accounts (standing, invoices, negotiated rates), hotels
with room types and nightly availability, bookings and group bookings, loyalty
profiles, a payment ledger, hotel partner escalations, travel-manager approval
requests and support tickets; about thirty MCP tools; and a written policy whose
rules decide what the agent should do with them.
"""

from __future__ import annotations

from domains.shared.domain import bundled_domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.travel.tools` the module

DOMAIN = bundled_domain(__file__, Base.metadata, _toolset, NOW, seed, RULES, ALIASES)

__all__ = ["DOMAIN"]
