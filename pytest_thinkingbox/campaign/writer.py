"""The one writer of a results file: it holds the file's lock for the whole session, so two campaigns never
interleave their lines, and it continues after the last whole line of a file cut short."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from ..core.errors import ThinkingboxError


def whole_length(path: Path) -> int:
    """The bytes of `path` up to the end of its last whole line (a cut-off last line excluded)."""
    data = path.read_bytes()
    tail = data[data.rfind(b"\n") + 1 :]
    if tail.strip():
        try:
            json.loads(tail)
        except ValueError:
            return len(data) - len(tail)
    return len(data)


class FileInUse(ThinkingboxError):
    """Another campaign holds the results file: two writers would interleave and lose each other's lines."""


class ResultsWriter:
    """Appends lines to a results file, each written whole and flushed, as the file's one writer.

    The file is locked (an exclusive ``flock``) from opening to `close`: a second
    campaign on the same file is refused at once with `FileInUse`, naming the run
    the file holds. The kernel drops the lock when its process ends, however it
    ends, so a killed run leaves no stale lock behind. Opening for append first
    removes a cut-off last line and ends a last line that lacks its newline, so
    every line after it starts on its own line; opening anew empties the file
    only once the lock is held.
    """

    def __init__(self, path: Path, *, append: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._out: IO[str] = path.open("a", encoding="utf-8")  # never truncated before the lock is held
        try:
            _lock(self._out, path)
        except BaseException:
            self._out.close()
            raise
        if not append:
            self._out.truncate(0)
        elif whole := whole_length(path):
            os.truncate(path, whole)
            with path.open("rb") as f:
                f.seek(whole - 1)
                cut = f.read(1) != b"\n"  # a last line complete but for its newline
            if cut:
                self._out.write("\n")
                self._out.flush()

    def write(self, item: Mapping[str, Any]) -> None:
        self._out.write(json.dumps(item, default=str) + "\n")
        self._out.flush()

    def close(self) -> None:
        """Close the file, which lets its lock go (closing twice is harmless)."""
        self._out.close()


def _lock(handle: IO[str], path: Path) -> None:
    """Take the file's exclusive lock, or raise `FileInUse` naming the campaign that holds it."""
    try:
        import fcntl
    except ImportError:  # not on this platform: one writer per file is then the user's to keep
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise FileInUse(f"{path} is being written by another campaign{_holder(path)}") from None


def _holder(path: Path) -> str:
    """The run a results file's first manifest names, as words for a message ("" if it has none yet)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            manifest = json.loads(f.readline()).get("manifest") or {}
    except (OSError, ValueError, AttributeError):
        return " (it has not written its manifest yet)"
    started = f", started {manifest['started']}" if manifest.get("started") else ""
    return f" (run {manifest.get('run', '?')}{started})"
