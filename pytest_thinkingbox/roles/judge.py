"""Yes/no rubric questions about a finished conversation.

`PhraseJudge` (offline, the default) answers from phrases declared with the
question: "yes" when the agent's messages to the customer contain any of them.
`LLMJudge` asks a model and reads back ``{"answer": "yes"|"no", "reason": ...}``.
Either returns a `Verdict`; whether "yes" passes is the task's call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import HarnessError, TaskDefinitionError
from .endpoint import Endpoint, Usage

NAMES = ("phrases",)
PROMPT = (
    "You grade a conversation between a customer-support agent and a customer. Answer the question about "
    'the conversation with a JSON object {"answer": "yes" or "no", "reason": "one sentence"} and nothing else. '
    "Judge only from what is in the conversation."
)
_RESULT_LIMIT = 600  # characters of a tool result shown to the judge


@dataclass(frozen=True)
class Verdict:
    question: str
    answer: str  # "yes" or "no"
    reason: str


def conversation_text(messages: Sequence[dict[str, Any]]) -> str:
    """The transcript as plain text for a judge: who said what, which tools ran and what they returned."""
    lines = []
    for m in messages:
        if m["role"] == "user":
            lines.append(f"Customer: {m['content']}")
        elif m["role"] == "tool":
            content = m["content"]
            content = content if len(content) <= _RESULT_LIMIT else content[:_RESULT_LIMIT] + " ..."
            lines.append(f"Tool result ({m['tool']}): {content}")
        elif m.get("tool_calls"):
            lines.extend(f"Agent calls {c['tool']}({json.dumps(c['arguments'])})" for c in m["tool_calls"])
        if m["role"] == "assistant" and m.get("content"):
            lines.append(f"Agent: {m['content']}")
    return "\n".join(lines)


class PhraseJudge:
    """Answers "yes" when any declared phrase appears (case-insensitively) in what the agent told the customer."""

    async def ask(self, question: str, messages: Sequence[dict[str, Any]], phrases: Sequence[str]) -> Verdict:
        if not phrases:
            raise TaskDefinitionError(
                f"rubric {question!r} declares no phrases; the offline judge answers from "
                "run.rubric(question, phrases=[...]) (or run with --tb-judge openai:MODEL)"
            )
        said = " ".join(m["content"] for m in messages if m["role"] == "assistant" and m.get("content")).lower()
        found = [p for p in phrases if p.lower() in said]
        if found:
            return Verdict(question, "yes", f"the agent said {found[0]!r}")
        return Verdict(question, "no", f"the agent said none of {list(phrases)!r}")


class LLMJudge:
    """A model answers the question; `usage` counts its tokens, calls and retries."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self.usage = Usage(model=endpoint.config.model)

    async def ask(self, question: str, messages: Sequence[dict[str, Any]], phrases: Sequence[str]) -> Verdict:
        prompt = f"Conversation:\n{conversation_text(messages)}\n\nQuestion: {question}"
        last = ""
        for attempt in range(self._endpoint.config.max_retries + 1):
            if attempt:
                self.usage.retries += 1
            reply = await self._endpoint.complete(PROMPT, [{"role": "user", "content": prompt}], self.usage)
            last = reply.text or ""
            verdict = read_verdict(question, last)
            if verdict is not None:
                return verdict
        raise HarnessError("judge", f"the judge's answer to {question!r} is not yes or no: {last[:200]!r}")


def read_verdict(question: str, text: str) -> Verdict | None:
    """The judge's JSON answer, or a bare leading yes/no; None when it is neither."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match:
        try:
            data = json.loads(match.group())
            answer = str(data.get("answer", "")).strip().lower()
            if answer in ("yes", "no"):
                return Verdict(question, answer, str(data.get("reason", "")))
        except (ValueError, AttributeError):
            pass
    bare = re.match(r"\s*(yes|no)\b[\s.:,-]*(.*)", text, re.IGNORECASE | re.DOTALL)
    if bare:
        return Verdict(question, bare.group(1).lower(), bare.group(2).strip())
    return None
