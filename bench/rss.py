"""A bench-only pytest plugin: the process's resident memory after chosen numbers of tests.

    pytest domains -p no:randomly --tb-repeat 9 -p bench.rss --rss-at 500,5000 --rss-out rss.json

After the N-th test has finished (setup, call and teardown all reported) it
reads ``VmRSS`` from /proc/self/status, and at the end writes
``{"samples": {"500": KB, "5000": KB}, "tests": TOTAL}`` to ``--rss-out``.
Run it in one process (no ``-n``): the samples are of the process that runs
the attempts and, without xdist, also keeps the results. `bench/overhead.py
--rss` runs it and reports the growth.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bench-rss")
    group.addoption(
        "--rss-at", default="500,5000", help="Sample VmRSS after these numbers of tests. Default: 500,5000."
    )
    group.addoption("--rss-out", metavar="PATH", help="Write the samples as JSON to PATH. Default: not written.")


def pytest_configure(config: pytest.Config) -> None:
    wanted = {int(n) for n in config.getoption("rss_at").split(",")}
    config.pluginmanager.register(RssProbe(wanted, config.getoption("rss_out")), "bench-rss-probe")


def vm_rss_kb() -> int:
    """This process's resident set size in kB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status (the RSS bench needs Linux)")


class RssProbe:
    """Counts finished tests and samples VmRSS after the wanted ones."""

    def __init__(self, wanted: set[int], out: str | None) -> None:
        self.wanted, self.out = wanted, out
        self.finished = 0
        self.samples: dict[int, int] = {}

    @pytest.hookimpl(trylast=True)  # after every other plugin has handled the test's last report
    def pytest_runtest_logfinish(self) -> None:
        self.finished += 1
        if self.finished in self.wanted:
            self.samples[self.finished] = vm_rss_kb()

    def pytest_sessionfinish(self) -> None:
        if self.out:
            samples = {str(n): kb for n, kb in sorted(self.samples.items())}
            Path(self.out).write_text(json.dumps({"samples": samples, "tests": self.finished}) + "\n")
