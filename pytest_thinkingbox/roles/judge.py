"""Yes/no rubric questions about a finished conversation.

`PhraseJudge` (offline, the default) answers from phrases declared with the
question: "yes" when the agent's messages to the customer contain any of them.
`LLMJudge` asks a model, at temperature 0 unless configured otherwise, with
only what the customer saw (the agent's and the customer's messages, never
tool calls or internal notes) and the task's reference reply and accepted
wordings as evidence; it asks for the reason before the answer and reads the
answer in the usual forms (JSON, "Answer: yes", "**No**"). An unreadable
answer is asked again with a word on what went wrong, then is a system error
of the judge stage.
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
    "You grade a conversation between a customer-support agent and a customer, from the customer's side: judge "
    "only what the agent told the customer in the messages shown (the agent's tool calls and internal notes are "
    "not shown and do not count). Where a reference reply or accepted facts are given, they are what a correct "
    "agent told this customer: an answer that gives other figures, dates or outcomes than they do is not a yes. "
    'First think about the question in one or two sentences, then answer with a JSON object {"reason": "...", '
    '"answer": "yes" or "no"} and nothing after it.'
)
RETRY = (
    'Your last answer could not be read. Answer with a JSON object {"reason": "...", "answer": "yes" or "no"} '
    "and nothing after it."
)


@dataclass(frozen=True)
class Verdict:
    question: str
    answer: str  # "yes" or "no"
    reason: str


def conversation_text(messages: Sequence[dict[str, Any]]) -> str:
    """What the customer saw, as plain text for a judge: the customer's and the agent's messages, in order.

    Tool calls and their results (internal notes written through a tool among
    them) are the agent's work, not what it told the customer, so they are left out.
    """
    lines = []
    for m in messages:
        if m["role"] == "user":
            lines.append(f"Customer: {m['content']}")
        elif m["role"] == "assistant" and m.get("content"):
            lines.append(f"Agent: {m['content']}")
    return "\n".join(lines)


def takes_reference(judge: Any) -> bool:
    """Whether a judge's `ask` takes the task's reference reply (``reference=``): ours do; one of yours may not."""
    import inspect

    try:
        return "reference" in inspect.signature(judge.ask).parameters
    except (TypeError, ValueError):
        return False


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

    async def ask(
        self,
        question: str,
        messages: Sequence[dict[str, Any]],
        phrases: Sequence[str],
        reference: str | None = None,
    ) -> Verdict:
        evidence = ""
        if reference:
            evidence += f"\n\nReference reply (what a correct agent told this customer):\n{reference}"
        if phrases:
            evidence += "\n\nAccepted wordings of the fact asked about: " + "; ".join(map(repr, phrases))
        prompt = f"Conversation:\n{conversation_text(messages)}{evidence}\n\nQuestion: {question}"
        dialogue: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        last = ""
        for attempt in range(self._endpoint.config.max_retries + 1):
            if attempt:
                self.usage.retries += 1
                # asked again with what went wrong: one user turn, so turns still alternate
                dialogue = [{"role": "user", "content": f"{prompt}\n\n{RETRY} (It was: {last[:200]!r})"}]
            reply = await self._endpoint.complete(PROMPT, dialogue, self.usage)
            last = reply.text or ""
            verdict = read_verdict(question, last)
            if verdict is not None:
                return verdict
        raise HarnessError("judge", f"the judge's answer to {question!r} is not yes or no: {last[:200]!r}")


_TRUE, _FALSE = ("yes", "true", "y"), ("no", "false", "n")
_LABELLED = re.compile(
    r"(?:\banswer|\bverdict|\bfinal answer|\bresult)\W{0,4}\s*(?:is\s*)?[:=\-]?\s*\W{0,3}(yes|no|true|false)\b",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^\W{0,4}(yes|no)\b\W*(.*)", re.IGNORECASE | re.DOTALL)


def read_verdict(question: str, text: str) -> Verdict | None:
    """The judge's answer in the forms models write it; None when it says neither yes nor no.

    Read, in order: a JSON object (in a code fence or not) whose ``answer`` is
    yes/no or true/false; a labelled answer ("Answer: yes", "**Verdict:** No",
    "the answer is no"), the last one written when there are several; an answer
    that opens the text ("Yes.", "**No** - ...").
    """
    for found in re.finditer(r"\{[^{}]*\}", text, re.DOTALL):
        try:
            data = json.loads(found.group())
        except ValueError:
            continue
        if isinstance(data, dict) and "answer" in data:
            answer = _yes_no(data["answer"])
            if answer is not None:
                return Verdict(question, answer, str(data.get("reason", "")))
    labelled = list(_LABELLED.finditer(text))
    if labelled:
        return Verdict(question, str(_yes_no(labelled[-1].group(1))), text.strip()[:300])
    leading = _LEADING.match(text.strip())
    if leading:
        return Verdict(question, leading.group(1).lower(), leading.group(2).strip(" *"))
    return None


def _yes_no(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    word = str(value).strip().strip("*").strip().lower()
    return "yes" if word in _TRUE else "no" if word in _FALSE else None
