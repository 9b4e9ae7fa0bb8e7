"""Components that several bundled domains share, built once here.

- `clock`: a domain's fixed moment and the date helpers its seeds use;
- `tickets`: support tickets and their comments (columns and MCP tools);
- `factories`: the common part of every domain's ticket and comment factories;
- `policy_search`: keyword search over a domain's written policy (an MCP tool);
- `identity`: finding a person by email and verifying who they are (MCP tools).

Each domain keeps its own models and `ToolSet`; these modules add columns
through mixins and tools through a `register_*` function, so every domain's
tickets, policy search and identity checks behave the same way.
"""
