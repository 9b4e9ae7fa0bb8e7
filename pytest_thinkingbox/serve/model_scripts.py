"""What the scripted model server answers: the scripts it replays (from a golden run's results), the scripted
judge's verdict, and the faults a test queues.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

END_TOOL = "end_conversation"
CLOSING = "Your request has been handled. Goodbye."
USER_STOP = "Thank you, that's all. ###STOP###"


@dataclass
class Script:
    """What the scripted agent does for one opening message: these calls in order, then this reply."""

    calls: list[dict[str, Any]]  # {"tool": name, "arguments": {...}}
    reply: str = CLOSING
    end: bool = True  # False: the reply goes to the user, who answers


@dataclass
class Fault:
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    malformed_arguments: bool = False
    garbage: bool = False
    not_json: bool = False
    text: str | None = None  # the reply's text, instead of the script's
    role: str | None = None  # only a request of this role (agent, user, judge) takes it


def scripted_verdict(prompt: str) -> str:
    """The scripted judge's answer to a judge prompt: yes when an accepted wording it lists is in an agent line."""
    wordings_line = next((line for line in prompt.splitlines() if line.startswith("Accepted wordings")), None)
    if wordings_line is None:
        return json.dumps({"reason": "scripted judge: no wordings to look for", "answer": "yes"})
    wordings = [w.strip().strip("'\"").lower() for w in wordings_line.split(":", 1)[1].split(";")]
    said = " ".join(line for line in prompt.splitlines() if line.startswith("Agent: ")).lower()
    found = next((w for w in wordings if w and w in said), None)
    reason = f"the agent said {found!r}" if found else "the agent said none of the accepted wordings"
    return json.dumps({"reason": reason, "answer": "yes" if found else "no"})


def scripts_from_results(path: str | Path) -> dict[str, Script]:
    """Opening message -> the calls and last reply of a passed attempt, from a --tb-results file (a golden run)."""
    from ..campaign.records import read_records

    scripts: dict[str, Script] = {}
    for record in read_records([Path(path)]):
        if record["outcome"] != "passed" or not record.get("transcript"):
            continue
        messages = record["transcript"]
        calls = [{"tool": c["tool"], "arguments": c["arguments"]} for m in messages for c in m.get("tool_calls") or []]
        said = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
        scripts.setdefault(messages[0]["content"], Script(calls, said[-1] if said else CLOSING))
    return scripts
