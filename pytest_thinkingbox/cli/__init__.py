"""The `thinkingbox` command: tools that work on results files, outside pytest.

thinkingbox report RESULTS.jsonl [...] [--prices PATH] [--html PATH] [--json PATH] [--gate EXPR]...
thinkingbox compare A.jsonl B.jsonl [--allow-mixed-bundles] [--allow-different-k]
thinkingbox regrade RESULTS.jsonl [-o NEW.jsonl] [--root DIR] [--config PATH] [--cache DIR]
thinkingbox select-pool RESULTS.jsonl [...] [--out POOL.json] [--plot HIST.svg] [--min-mass P]
thinkingbox serve-env [--root DIR] [--tasks POOL.json]
thinkingbox serve-model [--script RESULTS.jsonl] [--port N] [--latency S]
"""

from __future__ import annotations

from .arguments import CliError
from .commands import main, parser

__all__ = ["CliError", "main", "parser"]
