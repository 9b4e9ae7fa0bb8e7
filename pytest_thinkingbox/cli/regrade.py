"""`thinkingbox regrade`: a finished campaign graded again by the current checks, from its records alone."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from .arguments import CliError


def _regrade_parser(commands: Any) -> None:
    regrade = commands.add_parser(
        "regrade",
        help="grade a finished campaign again with the current task code, rules and judge, from its records",
        description="Replay every recorded attempt of RESULTS (its tool calls and user turns) on a fresh backend "
        "and grade it with the current checks, rules and judge. An attempt whose replay diverges (a tool result "
        "differs from the recorded one) is marked diverged and counted apart as a system error, never graded. "
        "The new file keeps the run id and bundle and says it is a regrade; `thinkingbox compare RESULTS NEW` "
        "shows what changed. No model is called but an uncached model judge. Exit status: 0, or 2 on bad input.",
    )
    regrade.add_argument("results", metavar="RESULTS.jsonl", type=Path, help="the results of one run (--tb-results)")
    regrade.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="NEW.jsonl",
        help="where the new records go (default: RESULTS.regrade.jsonl)",
    )
    regrade.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder of the task packages (default: ./domains, else the bundled domains installed with the plugin)",
    )
    regrade.add_argument(
        "--config", type=Path, metavar="PATH", help="a --tb-config file whose judge answers the rubric questions "
        "(default: the run's judge, as its manifest names it); its cache section is used too",
    )  # fmt: skip
    regrade.add_argument("--cache", metavar="DIR", help="the model cache the judge's answers are read from and kept in")
    regrade.add_argument("--cache-mode", default=None, metavar="MODE", help="readwrite (default), read, write or off")
    regrade.add_argument("--cache-max-age", default=None, metavar="AGE", help="kept answers older than AGE are absent")
    regrade.set_defaults(run=regrade_command)


def regrade_command(args: argparse.Namespace) -> int:
    from ..roles.cache import CacheSettings, check_settings, parse_age, parse_mode
    from ..roles.config import load_config
    from ..serve.regrade import regrade

    if not args.results.is_file():
        raise CliError(f"{args.results}: no such results file")
    root = args.root
    if root is not None and not root.is_dir():
        raise CliError(f"--root {root}: not a folder")
    try:
        models = load_config(args.config) if args.config else None
    except ValueError as exc:
        raise CliError(f"--config {exc}") from None
    cache = models.cache if models else None
    try:
        if args.cache:
            cache = CacheSettings(args.cache) if cache is None else replace(cache, dir=args.cache)
        if cache is not None and args.cache_mode:
            cache = replace(cache, mode=parse_mode(args.cache_mode))
        if cache is not None and args.cache_max_age:
            cache = replace(cache, max_age_s=parse_age(args.cache_max_age))
    except ValueError as exc:
        raise CliError(f"--cache-mode / --cache-max-age: {exc}") from None
    if cache is None and (args.cache_mode or args.cache_max_age):
        raise CliError("--cache-mode and --cache-max-age need a cache folder: give --cache DIR")
    if cache is not None:
        try:
            check_settings(cache)
        except ValueError as exc:
            raise CliError(f"--cache: {exc}") from None
    out = args.output or args.results.with_suffix(".regrade.jsonl")
    if out.resolve() == args.results.resolve():
        raise CliError(f"-o {out}: that is the file being regraded; write the regrade to another file")
    summary = regrade(args.results, out, root=root, models=models, cache=cache)
    print("\n".join(summary.lines()))
    return 0
