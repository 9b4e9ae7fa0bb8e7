"""What the scripted model server reads from a request, in either API style (chat completions or responses)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .model_scripts import END_TOOL


@dataclass
class Conversation:
    """What the server reads from a request, whichever API style it came in."""

    system: str
    opening: str
    tool_results: int  # results that are not errors: the script's calls made so far
    has_tools: bool
    offers_end: bool  # the request offers the end tool (the plugin's own agent does; frameworks do not)
    size: int  # characters in the request's body, for token estimates

    @property
    def tokens(self) -> int:
        """The request's tokens, estimated from its size (read, not encoded again: a request is 40 KB)."""
        return _tokens(self.size)


def role_of(conversation: Conversation) -> str:
    """Which role sent a request: the agent offers tools, the judge is asked to grade, the rest is the user."""
    if conversation.has_tools:
        return "agent"
    return "judge" if "grade" in conversation.system else "user"


def _read_chat(body: dict[str, Any], size: int) -> Conversation:
    messages = body.get("messages", [])
    system = next((_text(m["content"]) for m in messages if m["role"] in ("system", "developer")), "")
    opening = next((_text(m["content"]) for m in messages if m["role"] == "user"), "")
    results = sum(m["role"] == "tool" and not _is_error(_text(m["content"])) for m in messages)
    return Conversation(system, opening, results, bool(body.get("tools")), _offers_end(body), size)


def _read_responses(body: dict[str, Any], size: int) -> Conversation:
    items = body.get("input", [])
    items = [{"role": "user", "content": items}] if isinstance(items, str) else items
    opening = next((_text(i["content"]) for i in items if i.get("role") == "user"), "")
    results = sum(i.get("type") == "function_call_output" and not _is_error(_text(i["output"])) for i in items)
    system = body.get("instructions") or ""
    return Conversation(system, opening, results, bool(body.get("tools")), _offers_end(body), size)


def _text(content: Any) -> str:
    """A message's text, whether plain or a list of content parts (as agent frameworks send it)."""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _offers_end(body: dict[str, Any]) -> bool:
    """Whether the request's tools include the end tool (chat: under "function"; responses: flat)."""
    return any(END_TOOL in (t.get("name"), (t.get("function") or {}).get("name")) for t in body.get("tools") or [])


def _is_error(content: str) -> bool:
    """Whether a tool result is an error result (the plugin's `{"error": {...}}` payload)."""
    try:
        value = json.loads(content)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


def _tokens(characters: int) -> int:
    return max(1, characters // 4)  # about four characters per token
