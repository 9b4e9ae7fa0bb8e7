"""--tb-shard I/N: run one of N disjoint shares of a campaign, so N machines run it together.

Every item is dealt to one shard by a rule that depends only on what it runs
(`campaign.records.shard_of` on its task and attempt; other tests by a hash of
their node id), never on collection order, the machine or xdist: each xdist
worker deselects the same items, so the controller schedules only the shard.
The whole campaign, as collected before the split, goes into the shard's
manifest (`plugin/results.py`), so the report can name a shard that never
arrived and count its attempts. Shards merge by run id, so a shard needs
``--tb-run ID`` (or a file it continues, which has one).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pytest

from ..campaign.records import expected_attempts, shard_of
from .options import group
from .outcomes import item_key


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1 <= index <= count)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, item: pytest.Item) -> bool:
        """Whether `item` runs in this shard."""
        if is_attempt(item):
            return shard_of(*item_key(item), self.count) == self.index
        digest = hashlib.sha256(item.nodeid.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count + 1 == self.index


#: The shard this session runs, or None (read once at configure).
SHARD = pytest.StashKey["Shard | None"]()
#: The whole campaign's attempts, as a manifest lists them, collected before the split (a worker's, under xdist).
CAMPAIGN = pytest.StashKey[dict[str, Any]]()

_FORM = "I/N with 1 <= I <= N, e.g. 2/4"


def parse_shard(text: str, option: str = "--tb-shard") -> Shard:
    """Parse ``I/N``; anything else is a one-line usage error naming `option`."""
    index, slash, count = text.strip().partition("/")
    try:
        if not slash:
            raise ValueError
        shard = Shard(int(index), int(count))
    except ValueError:
        raise pytest.UsageError(f"{option} expects {_FORM}, got {text!r}") from None
    if shard.count < 1 or not 1 <= shard.index <= shard.count:
        raise pytest.UsageError(f"{option} {text}: there is no shard {shard.index} of {shard.count}; expects {_FORM}")
    return shard


def is_attempt(item: pytest.Item) -> bool:
    """Whether `item` is an attempt of a task (it uses the `tb` fixtures), not another test."""
    return "_tb_attempt" in getattr(item, "fixturenames", ())


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-shard",
        dest="tb_shard",
        metavar="I/N",
        type=parse_shard,
        help="Run shard I of N: each task's attempts are dealt over N shards, the same on every machine; give "
        "every shard the same --tb-run ID and merge their results with `thinkingbox report`. Default: ini "
        "tb_shard, else the whole campaign.",
    )
    parser.addini("tb_shard", "Default shard I/N of a campaign (see --tb-shard), e.g. -o tb_shard=2/4.", default="")


@pytest.hookimpl(tryfirst=True)  # the results keeper writes the shard into its manifest at configure
def pytest_configure(config: pytest.Config) -> None:
    shard = config.getoption("tb_shard")
    if shard is None and config.getini("tb_shard"):
        shard = parse_shard(config.getini("tb_shard"), "tb_shard (ini)")
    config.stash[SHARD] = shard
    if shard is None:
        return
    if not any(config.getoption(o) for o in ("tb_run", "tb_resume", "tb_rerun_errors")):
        raise pytest.UsageError(
            f"--tb-shard {shard} needs --tb-run ID: shards of one campaign merge by run id, so give every shard "
            "the same one (e.g. the CI pipeline's id)"
        )
    if config.getoption("tb_gate"):
        raise pytest.UsageError(
            f"--tb-gate judges a whole campaign, and --tb-shard {shard} runs part of one; gate the merged shards "
            "with `thinkingbox report --gate EXPR SHARD.jsonl ...`"
        )


@pytest.hookimpl(trylast=True)  # after -k, -m, --tb-tasks and --tb-resume have chosen the campaign's items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = config.stash[SHARD]
    if shard is None:
        return
    campaign = expected_attempts(item_key(item) for item in items if is_attempt(item))
    config.stash[CAMPAIGN] = campaign
    if hasattr(config, "workeroutput"):  # the xdist controller collects nothing: it hears this when the worker ends
        config.workeroutput["tb_campaign"] = campaign
    keep = [item for item in items if shard.holds(item)]
    config.hook.pytest_deselected(items=[item for item in items if not shard.holds(item)])
    items[:] = keep


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist controller: keep the campaign a worker collected before the split."""
    campaign = (getattr(node, "workeroutput", None) or {}).get("tb_campaign")
    if campaign is not None:
        node.config.stash[CAMPAIGN] = campaign
