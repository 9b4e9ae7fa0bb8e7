"""The earlier results file a session continues (``--tb-resume``, ``--tb-rerun-errors``), read once per process
at configure: its last manifest and the latest record of each attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..campaign.attempt_record import AttemptRecord
from ..campaign.records import ReportError, read_lines
from .outcomes import ERROR, record_summary

Key = tuple[str, int]


@dataclass(frozen=True)
class Continuation:
    """The earlier results file this session continues, read once: its last manifest and latest records."""

    path: Path
    option: str  # --tb-resume or --tb-rerun-errors
    manifest: dict[str, Any] | None
    latest: dict[Key, AttemptRecord]  # the latest record of each attempt (a re-run replaces its error)

    @property
    def rerun(self) -> set[Key]:
        """The attempts this session runs again: those whose latest record is a system error (--tb-rerun-errors)."""
        if self.option == "--tb-resume":
            return set()
        return {key for key, r in self.latest.items() if r["outcome"] == ERROR}


CONTINUATION = pytest.StashKey["Continuation | None"]()


def _continuation(config: pytest.Config) -> Continuation | None:
    if config.getoption("tb_resume") and config.getoption("tb_rerun_errors"):
        raise pytest.UsageError(
            "--tb-resume and --tb-rerun-errors cannot be combined: resume the campaign first, then re-run its errors"
        )
    for option in ("tb_resume", "tb_rerun_errors"):
        value = config.getoption(option)
        if value:
            name = "--" + option.replace("_", "-")
            return Continuation(Path(value), name, *_read(Path(value), name))
    return None


def _read(path: Path, option: str) -> tuple[dict[str, Any] | None, dict[Key, AttemptRecord]]:
    """A results file's last manifest and the latest record of each attempt (a cut-off last line dropped)."""
    manifest, latest = None, {}
    try:
        for _, obj in read_lines([path], required=("task", "attempt", "outcome"), drop_cut_line=True):
            if "manifest" in obj:
                manifest = obj["manifest"]
            else:
                latest[(obj["task"], obj["attempt"])] = record_summary(obj)  # its transcript is not needed
    except ReportError as exc:
        raise pytest.UsageError(f"{option}: {exc}") from None
    return manifest, latest
