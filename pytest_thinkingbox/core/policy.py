"""A policy text (``policy.md``) read clause by clause: each paragraph or top-level bullet under a heading,
numbered by the id in brackets at its start (``- [RT-7] If the exception was opened ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import TaskDefinitionError

#: A clause id in a policy: letters, a dash, a number (``RT-7``), in brackets at the start of its paragraph.
CLAUSE = re.compile(r"\[(?P<id>[A-Z]{2,4}-\d+)\]")
_HEADING = re.compile(r"^(?P<level>#{2,6})\s+(?P<title>.+?)\s*$")
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+[.)])\s+(?P<text>.*)$")


@dataclass(frozen=True)
class Clause:
    """One numbered clause of a policy: its id, the headings it sits under (outermost first), its text."""

    id: str
    sections: tuple[str, ...]
    text: str

    @property
    def section(self) -> str:
        """The article (level-2 heading) the clause belongs to."""
        return self.sections[0] if self.sections else ""


@dataclass(frozen=True)
class Policy:
    """A policy's numbered clauses, and the paragraphs under a heading that carry no number."""

    clauses: dict[str, Clause]
    unnumbered: tuple[str, ...]  # the first words of each, to find them
    headings: tuple[str, ...]


def parse_policy(text: str) -> Policy:
    """The clauses of a policy text: each paragraph or top-level bullet under a heading is one clause.

    The text before the first level-2 heading (the title and preamble) holds no
    clauses. A nested bullet belongs to the clause above it. A clause id given
    twice is an error.
    """
    clauses: dict[str, Clause] = {}
    unnumbered: list[str] = []
    headings: list[str] = []
    path: list[tuple[int, str]] = []
    block: list[str] = []

    def close() -> None:
        if not block:
            return
        first = block[0].strip()
        found = CLAUSE.match(_body(first))
        if found is None:
            unnumbered.append(_body(first)[:60])
        else:
            if found["id"] in clauses:
                raise TaskDefinitionError(f"the policy numbers two clauses {found['id']}")
            text = " ".join(" ".join(line.split()) for line in block)
            clauses[found["id"]] = Clause(found["id"], tuple(t for _, t in path), text)
        block.clear()

    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading:
            close()
            level = len(heading["level"])
            path = [(lv, t) for lv, t in path if lv < level] + [(level, heading["title"])]
            headings.append(heading["title"])
            continue
        if not path:
            continue  # the title and preamble
        if not line.strip():
            close()
            continue
        item = _ITEM.match(line)
        if item and not item["indent"]:
            close()  # a new top-level bullet
        block.append(line)
    close()
    return Policy(clauses, tuple(unnumbered), tuple(headings))


def _body(line: str) -> str:
    item = _ITEM.match(line)
    return (item["text"] if item else line).lstrip()
