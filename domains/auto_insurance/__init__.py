"""The auto insurance benchmark domain: a personal auto insurer's customer service desk.

Customers verified by date of birth and postal code, policies in ten US states
with vehicles (VINs checked by their check digit), drivers and their licence
records, coverages, billing accounts with bills, payments, extensions and
instalment plans, claims, documents and support tickets; about thirty-five MCP
tools; and a written policy whose rules decide what the agent should do.
"""

from __future__ import annotations

from domains.shared.domain import bundled_domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.auto_insurance.tools` the module

DOMAIN = bundled_domain(__file__, Base.metadata, _toolset, NOW, seed, RULES, ALIASES)

__all__ = ["DOMAIN"]
