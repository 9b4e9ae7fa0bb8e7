"""The consulting benchmark domain: a consulting firm's internal IT and HR service desk.

Employees with grades and manager chains, client engagements and staffing,
access to internal systems, client environments and document folders, NDAs and
background checks, software licence pools, hardware requests against grade
budgets, expense overrides, approval routing and support tickets; about thirty
MCP tools; and a written policy whose rules decide what the agent should do.
"""

from __future__ import annotations

from domains.shared.domain import bundled_domain

from .aliases import ALIASES
from .clock import NOW
from .models import Base
from .rules import RULES
from .seed import seed
from .tools import tools as _toolset  # keep `domains.consulting.tools` the module

DOMAIN = bundled_domain(__file__, Base.metadata, _toolset, NOW, seed, RULES, ALIASES)

__all__ = ["DOMAIN"]
