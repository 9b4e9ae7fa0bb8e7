"""The retail benchmark domain: an online retailer's support desk.

Customers with loyalty tiers, a catalogue with stock, orders, shipments,
payments, refunds, returns, warranties, installation jobs, promotions, points
and support tickets; about thirty MCP tools; and a written policy whose rules
decide what the agent should do with them.
"""

from __future__ import annotations

from pathlib import Path

from pytest_thinkingbox import Domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.retail.tools` the module

DOMAIN = Domain(
    name="retail",
    metadata=Base.metadata,
    tools=_toolset,
    policy=Path(__file__).with_name("policy.md"),
    now=NOW,
    seed=seed,
    rules=RULES,
    aliases=ALIASES,
)

__all__ = ["DOMAIN"]
