"""Golden with seeded faults: a stand-in for a real model's unreliability, offline.

Each attempt draws its own fault from a generator seeded by (``--tb-seed``,
task, attempt), so a run is reproducible on any worker and under any ``-n``:
with probability `FAULT_RATE` it drops a write, alters one argument of a write,
or repeats a write; otherwise it behaves exactly like the golden agent.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

from ...core.episode import AgentStep, AgentView
from ...core.task import Call
from .context import AgentContext
from .golden import GoldenAgent

FAULT_RATE = 0.35
FAULTS = ("drop_write", "alter_argument", "extra_write")


class FlakyAgent:
    def __init__(self, context: AgentContext) -> None:
        self._rng = random.Random(f"{context.seed}:{context.task}:{context.attempt}")
        self._golden = list(context.golden)
        self._reply = context.reply
        self._inner: GoldenAgent | None = None
        self.fault: str | None = None

    async def step(self, view: AgentView) -> AgentStep:
        if self._inner is None:
            self._inner = GoldenAgent(self._plan(view), self._reply)
        return await self._inner.step(view)

    def _plan(self, view: AgentView) -> list[Call]:
        calls = list(self._golden)
        schemas = {t.name: t for t in view.tools}
        writes = [i for i, c in enumerate(calls) if c.tool in schemas and not schemas[c.tool].read_only]
        if not writes or self._rng.random() >= FAULT_RATE:
            return calls
        self.fault = self._rng.choice(FAULTS)
        i = self._rng.choice(writes)
        if self.fault == "drop_write":
            del calls[i]
        elif self.fault == "extra_write":
            calls.insert(i + 1, calls[i])
        else:
            calls[i] = self._alter(calls[i], schemas[calls[i].tool].input_schema)
        return calls

    def _alter(self, c: Call, schema: dict[str, Any]) -> Call:
        if not c.arguments:
            return c
        name = self._rng.choice(sorted(c.arguments))
        value = c.arguments[name]
        options = _enum(schema.get("properties", {}).get(name, {}))
        if options and value in options and len(options) > 1:
            new = self._rng.choice([o for o in options if o != value])
        elif isinstance(value, bool):
            new = not value
        elif isinstance(value, (int, float)):
            new = type(value)(value + max(1, abs(value) // 10))
        elif isinstance(value, str) and re.search(r"\d+$", value):
            digits = re.search(r"\d+$", value)
            assert digits is not None
            new = value[: digits.start()] + str(int(digits.group()) + 1).zfill(len(digits.group()))
        else:
            new = f"{value} (edited)"
        return replace(c, arguments={**c.arguments, name: new})


def _enum(prop: dict[str, Any]) -> list[Any]:
    if "enum" in prop:
        return list(prop["enum"])
    for option in prop.get("anyOf", []):
        if "enum" in option:
            return list(option["enum"])
    return []
