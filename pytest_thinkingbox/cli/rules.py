"""`thinkingbox rules`: each domain's policy rules, the clauses they check and the tasks that exercise them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .arguments import CliError


def _rules_parser(commands: Any) -> None:
    rules = commands.add_parser(
        "rules",
        help="list each domain's policy rules, the clauses they check and the tasks that exercise them",
        description="List the policy rules of the domains under ROOT: each rule's id, title, section and clauses, "
        "the judgement-only clauses, and any clause left unmapped. With --validation, the results of a "
        "`pytest --tb-validate` run, each rule also lists the tasks whose careless variants break it. "
        "Exit status: 0, 1 when a clause is unmapped or (with --validation) a rule is exercised by fewer than "
        "3 tasks, 2 on bad input.",
    )
    rules.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder of the domain packages (default: ./domains, else the bundled domains installed with the plugin)",
    )
    rules.add_argument("--domain", action="append", default=[], help="only this domain (repeatable)")
    rules.add_argument("--validation", type=Path, help="results of a --tb-validate run: which tasks exercise each rule")
    rules.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    rules.set_defaults(run=rules_command)


def rules_command(args: argparse.Namespace) -> int:
    from ..campaign.records import read_records
    from ..campaign.rule_list import domains_under, listing_lines, rule_listing
    from ..core.catalog import bundled_root

    root = args.root or bundled_root()
    if not root.is_dir():
        raise CliError(f"--root {root}: not a folder")
    domains = domains_under(root)
    unknown = sorted(set(args.domain) - set(domains))
    if unknown:
        raise CliError(f"--domain {unknown[0]}: no such domain under {root} (domains: {', '.join(domains)})")
    chosen = {name: d for name, d in domains.items() if not args.domain or name in args.domain}
    records = read_records([args.validation]) if args.validation else None
    listing = rule_listing(chosen, records)
    if args.format == "json":
        print(json.dumps(listing, indent=1))
    else:
        print("\n".join(listing_lines(listing)))
    broken = any(d["problems"] or d.get("thin") for d in listing["domains"].values())
    return 1 if broken else 0
