"""Agents built on frameworks no one here wrote, as docs/agents/*.md show them, on bundled tasks, offline.

Each page's code runs as written (`--tb-agent FILE.py:support_agent`) against
`serve-model`'s scripted replies: the calls of a golden run pass, and a script
that leaves out the last write fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_thinkingbox.campaign.records import read_records
from pytest_thinkingbox.serve.model_server import Script, ScriptedModelServer, scripts_from_results

ROOT = Path(__file__).resolve().parent.parent
TASKS = "RT004_001 or RT004_002 or RT001_001"  # a fee, a waiver (with a rubric) and a late-delivery refund
PAGES = {"openai-agents": "support-openai-agents@1", "pydantic-ai": "support-pydantic-ai@1"}


def _pytest(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "domains/retail", "-k", TASKS, "-q", "-p", "no:randomly"]
    command += ["-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def golden_scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Script]:
    results = tmp_path_factory.mktemp("golden") / "golden.jsonl"
    done = _pytest(results.parent, "--tb-results", str(results))
    assert done.returncode == 0, done.stdout[-2000:]
    return scripts_from_results(results)


def _page_code(page: str) -> str:
    text = (ROOT / "docs" / "agents" / f"{page}.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None, f"docs/agents/{page}.md has no python block"
    return code.group(1)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_agent_passes_the_golden_script_and_fails_a_wrong_one(page, golden_scripts, tmp_path):
    agent = tmp_path / "support_agent.py"
    agent.write_text(_page_code(page), encoding="utf-8")
    wrong = {opening: Script(s.calls[:-1], s.reply) for opening, s in golden_scripts.items()}
    for scripts, expected in ((golden_scripts, 0), (wrong, 1)):
        with ScriptedModelServer(scripts) as model:
            env = {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "offline", "AGENT_MODEL": "scripted"}
            results = tmp_path / f"{page}-{expected}.jsonl"
            done = _pytest(tmp_path, "--tb-agent", f"{agent}:support_agent", "--tb-results", str(results), env=env)
        assert done.returncode == expected, done.stdout[-3000:]
        records = read_records([results])
        assert len(records) == 3
        assert {r["agent"] for r in records} == {PAGES[page]}
        assert all(r["outcome"] == ("passed" if expected == 0 else "failed") for r in records)
        # every call the framework made reached the attempt's endpoint and is in the transcript
        for r in records:
            opening = r["transcript"][0]["content"]
            made = [c["tool"] for m in r["transcript"] for c in m.get("tool_calls") or []]
            assert made == [c["tool"] for c in scripts[opening].calls]
