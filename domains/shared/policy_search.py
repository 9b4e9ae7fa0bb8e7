"""Keyword search over a domain's written policy, as an MCP tool.

A policy is Markdown whose ``## `` headings start its articles. The search
scores each article by how often the query's terms occur (a title hit counts
three times a body hit) and returns the best three in full, so an agent can
look a rule up instead of holding the whole policy in mind.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sqlalchemy.orm import Session

from pytest_thinkingbox import INVALID_ARGUMENT, ToolFailure, ToolSet

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "what",
        "when",
        "with",
        "you",
        "your",
    ]
)


def policy_sections(text: str) -> list[tuple[str, str]]:
    """The policy split into (title, text) articles at its ``## `` headings."""
    sections = []
    for chunk in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title, _, body = chunk.partition("\n")
        sections.append((title.strip(), body.strip()))
    return sections


@functools.cache
def _sections_of(path: Path) -> list[tuple[str, str]]:
    return policy_sections(path.read_text(encoding="utf-8"))


def _terms(text: str) -> list[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return [w[:-1] if len(w) > 4 and w.endswith("s") else w for w in words]


def search(sections: list[tuple[str, str]], query: str, limit: int = 3) -> list[tuple[str, str]]:
    """The `limit` best-matching (title, text) articles for `query`, best first; ties keep policy order."""
    wanted = set(_terms(query))
    scored = []
    for position, (title, body) in enumerate(sections):
        title_terms, body_terms = _terms(title), _terms(body)
        score = sum(3 * title_terms.count(t) + body_terms.count(t) for t in wanted)
        if score:
            scored.append((-score, position, title, body))
    scored.sort()
    return [(title, body) for _, _, title, body in scored[:limit]]


def register_policy_search(tools: ToolSet, policy: Path, examples: str) -> None:
    """Add a ``search_policy`` tool over the policy file at `policy`.

    Args:
        tools: the domain's tool set.
        policy: the domain's policy file (Markdown, articles at ``## `` headings).
        examples: two or three example queries for the tool's description, in the domain's words.
    """

    def search_policy(db: Session, query: str) -> dict:
        if not _terms(query):
            raise ToolFailure(INVALID_ARGUMENT, "give one or more keywords to search for")
        sections = _sections_of(policy)
        return {
            "query": query,
            "results": [{"title": title, "text": body} for title, body in search(sections, query)],
            "all_articles": [title for title, _ in sections],
        }

    search_policy.__doc__ = (
        f"Search the policy. Give a few keywords (e.g. {examples}); returns the three best-matching policy "
        "articles in full and the titles of all articles."
    )
    tools.read(search_policy)
