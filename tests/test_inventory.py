"""docs/domains.md's inventory table is what scripts/inventory.py measures now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_inventory_in_the_docs_is_current(golden_campaign):
    # The session's golden run of every task (tests/conftest.py) holds the golden calls as made.
    assert golden_campaign.done.returncode == 0, golden_campaign.done.stdout[-3000:]
    command = [sys.executable, "scripts/inventory.py", "--check", "--records", str(golden_campaign.results)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
