"""The `thinkingbox` command line: one parser made of each command's own, and `main`, which runs the chosen one."""

from __future__ import annotations

import argparse
import os
import sys

from ..core.errors import ThinkingboxError
from .pool import _pool_parser
from .regrade import _regrade_parser
from .report import _compare_parser, _report_parser
from .rules import _rules_parser
from .serve import _serve_env_parser, _serve_model_parser


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="thinkingbox", description="Tools for pytest-thinkingbox results files.")
    commands = root.add_subparsers(dest="command", required=True)
    _pool_parser(commands)
    _report_parser(commands)
    _rules_parser(commands)
    _compare_parser(commands)
    _regrade_parser(commands)
    _serve_model_parser(commands)
    _serve_env_parser(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except ThinkingboxError as exc:  # CliError, ReportError and the harness's own
        print(f"thinkingbox {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush is quiet too
        return 0
