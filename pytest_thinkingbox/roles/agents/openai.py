"""An agent served by any OpenAI-compatible endpoint (chat completions or responses).

The domain policy becomes the system prompt, the MCP tool schemas become
function tools, and the transcript so far is sent back every step (tool
results, error results included). The model ends the conversation by calling
the `end_conversation` tool; its text in that turn is the last message. Tool
calls whose arguments are not a JSON object come back to the model as
``INVALID_ARGUMENT`` results without running.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.episode import AgentStep, AgentView, InvalidCall
from ...core.task import Call
from ...core.tools import ToolSpec
from ..endpoint import Endpoint, Usage, parse_arguments

END_TOOL = "end_conversation"
INSTRUCTIONS = (
    "You are a customer-support agent for the business described below. Follow its policy exactly. "
    "Look records up with the tools before you act, never invent data, and ask the customer for what "
    f"you need. When the request is handled (or cannot be), tell the customer and call {END_TOOL}."
)
_END_SPEC = {
    "type": "function",
    "function": {
        "name": END_TOOL,
        "description": "End the conversation once the customer's request is handled or cannot be handled.",
        "parameters": {"type": "object", "properties": {}},
    },
}


class OpenAIAgent:
    """One attempt's agent; `usage` counts its tokens, calls and retries."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self.usage = Usage(model=endpoint.config.model)
        self._tools: list[dict[str, Any]] = []
        self._system = ""

    async def step(self, view: AgentView) -> AgentStep:
        if not self._tools:
            self._tools = _functions(view.tools)
            self._system = f"{INSTRUCTIONS}\n\n# Policy\n\n{view.policy}"
        reply = await self._endpoint.complete(self._system, chat_messages(view.messages), self.usage, self._tools)
        calls: list[Call | InvalidCall] = []
        end = False
        for request in reply.tool_calls:
            if request.name == END_TOOL:
                end = True
                continue
            try:
                calls.append(Call(request.name, parse_arguments(request.arguments)))
            except ValueError as exc:
                calls.append(InvalidCall(request.name, request.arguments, str(exc)))
        return AgentStep(tool_calls=calls, message=reply.text or None, end=end)


_functions_of: dict[int, tuple[list[ToolSpec], list[dict[str, Any]]]] = {}


def _functions(specs: list[ToolSpec]) -> list[dict[str, Any]]:
    """The function tools for a session's tool specs, plus the end tool: one list per list of specs (one per
    domain and process, held so that its id is not reused), so that every episode sends the same list and
    its endpoint encodes it once."""
    held = _functions_of.get(id(specs))
    if held is None:
        if len(_functions_of) >= 64:
            _functions_of.clear()  # specs listed anew for every session: nothing to share
        functions = [_function(t.name, t.description, t.input_schema) for t in specs] + [_END_SPEC]
        held = _functions_of[id(specs)] = (specs, functions)
    return held[1]


def _function(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


def chat_messages(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The episode's transcript as chat-completions messages."""
    out: list[dict[str, Any]] = []
    for m in transcript:
        if m["role"] == "tool":
            out.append({"role": "tool", "tool_call_id": m["call_id"], "content": m["content"]})
        elif m.get("tool_calls"):
            calls = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["tool"], "arguments": _text(c["arguments"])},
                }
                for c in m["tool_calls"]
            ]
            out.append({"role": "assistant", "content": m.get("content"), "tool_calls": calls})
        else:
            out.append({"role": m["role"], "content": m["content"]})
    return out


def _text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)
