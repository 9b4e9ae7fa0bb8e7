"""The retail benchmark domain: an online retailer's support desk.

Customers with loyalty tiers, a catalogue with stock, orders, shipments,
payments, refunds, returns, warranties, installation jobs, promotions, points
and support tickets; about thirty MCP tools; and a written policy whose rules
decide what the agent should do with them.
"""

from __future__ import annotations

from domains.shared.domain import bundled_domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.retail.tools` the module

DOMAIN = bundled_domain(__file__, Base.metadata, _toolset, NOW, seed, RULES, ALIASES)

__all__ = ["DOMAIN"]
