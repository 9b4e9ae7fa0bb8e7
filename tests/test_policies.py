"""The bundled policies and task modules name only what exists.

A policy that names a tool the domain does not have sends a careful agent
looking for it; a task module that claims an article the policy does not have
makes the inventory's "articles exercised" figure wrong.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from inventory import DOMAINS, articles, declared_articles  # type: ignore[import-not-found]  # noqa: E402  (scripts/, on sys.path above)

_BACKTICKED = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")


def known_words(domain: str) -> set[str]:
    """Every identifier and string written in the domain's code: columns, arguments, enum values."""
    words: set[str] = set()
    for path in (ROOT / "domains" / domain).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words.add(node.value)
            elif isinstance(node, ast.Name):
                words.add(node.id)
            elif isinstance(node, ast.arg):
                words.add(node.arg)
            elif isinstance(node, ast.Attribute):
                words.add(node.attr)
    return words


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_tool_a_policy_names_exists(domain):
    tools = importlib.import_module(f"domains.{domain}").DOMAIN.tools
    policy = (ROOT / "domains" / domain / "policy.md").read_text(encoding="utf-8")
    words = known_words(domain) | known_words("shared")
    unknown = sorted({name for name in _BACKTICKED.findall(policy) if name not in tools and name not in words})
    assert not unknown, f"domains/{domain}/policy.md names tools that do not exist: {unknown}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_task_module_names_articles_of_its_policy(domain):
    heads = set(articles(domain))
    for module in sorted((ROOT / "domains" / domain).glob("test_*.py")):
        named = declared_articles(module)
        assert named, f"{module.relative_to(ROOT)}: declare ARTICLES = (...), the policy articles its tasks exercise"
        assert set(named) <= heads, f"{module.relative_to(ROOT)}: not articles of the policy: {set(named) - heads}"


def test_the_check_sees_a_missing_tool():
    assert _BACKTICKED.findall("Use `list_customer_tickets` then set `hold`.") == ["list_customer_tickets"]
