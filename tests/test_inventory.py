"""docs/domains.md's inventory table is what scripts/inventory.py measures now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_inventory_in_the_docs_is_current():
    done = subprocess.run(
        [sys.executable, "scripts/inventory.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
