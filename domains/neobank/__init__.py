"""The neobank benchmark domain: a mobile bank's customer support desk and its internal IT and access desk.

Customers with KYC levels and identity checks, current and savings accounts with
balances and holds, cards, transactions, transfers and scheduled payments, card
disputes, fees and fee refunds, fraud alerts, security locks and support
tickets; on the internal side, employees, systems and their roles, access grants,
requests and approvals, incidents and devices; fifty MCP tools; and a written
policy whose rules decide what the agent should do with them.
"""

from __future__ import annotations

from domains.shared.domain import bundled_domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.neobank.tools` the module

DOMAIN = bundled_domain(__file__, Base.metadata, _toolset, NOW, seed, RULES, ALIASES)

__all__ = ["DOMAIN"]
