"""The getting-started example works as the page says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "docs/examples/first_task", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_first_task_passes_under_golden_and_fails_under_noop():
    golden = _pytest("--tb-repeat", "3")
    assert golden.returncode == 0, golden.stdout
    assert "3 passed" in golden.stdout
    noop = _pytest("--tb-agent", "noop")
    assert noop.returncode == 1
    assert "1 failed" in noop.stdout
    assert "missing refunds[RF-0001]: row not created" in noop.stdout
