"""Components that several bundled domains share, built once here.

- `domain`: a bundled domain's `Domain`, assembled from its package's parts;
- `clock`: a domain's fixed moment and the date helpers its seeds use;
- `seed`: turning a seed's tables of tuples into records, and staff email addresses;
- `tickets`: support tickets and their comments (tables, columns and MCP tools);
- `factories`: the common part of every domain's ticket and comment factories;
- `arguments`: reading a tool's date arguments, with the domain's own failure wording;
- `policy_search`: keyword search over a domain's written policy (an MCP tool);
- `identity`: finding a person by email and verifying who they are (MCP tools);
- `calls`: the golden calls every domain's tasks end a ticket with, verify a caller with, and the id a
  create tool gives;
- `aliases`: other names for facts the users of several domains know alike.

Each domain keeps its own models and `ToolSet`; these modules add columns
through mixins and tools through a `register_*` function, so every domain's
tickets, policy search and identity checks behave the same way.
"""
