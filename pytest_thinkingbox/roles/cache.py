"""Model answers kept on disk, keyed by the exact request, so that no request is paid for twice.

A key is the SHA-256 of what makes the answer: the API path and the request
body exactly as it is sent (model, system prompt, messages, tools, sampling
parameters, the config's seed and ``extra_body``), the attempt the request
belongs to (task, attempt number and ``--tb-seed``: `scope`) and how many
answers the role had in that attempt before it. The endpoint's URL is not part
of it: the same request to the same model moved to another host is the same
request. An entry is one JSON file, ``DIR/ab/abcdef....json``, holding the
response as the server sent it (its ``usage`` included) and when it was kept.

Entries are written to a temporary file in their folder, then renamed over the
entry (`os.replace`), so concurrent episodes and xdist workers never read half
an entry; two that write one key at once both write the same request's
answer, and the last rename wins. An entry that cannot be read (cut short by a
full disk, edited by hand) counts as a miss. Modes: ``readwrite`` (the
default) answers from the cache and keeps every new answer, ``read`` answers
from it but keeps nothing new, ``write`` never answers from it but keeps every
answer (a refresh), ``off`` leaves it alone. Entries older than ``max_age_s``
count as misses (and are replaced in the modes that write).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODES = ("readwrite", "read", "write", "off")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


@dataclass(frozen=True)
class CacheSettings:
    """Where model answers are kept and how the cache is used (``--tb-cache``, or ``cache:`` in --tb-config)."""

    dir: str
    mode: str = "readwrite"
    max_age_s: float | None = None  # None: entries never expire

    @property
    def reads(self) -> bool:
        return self.mode in ("readwrite", "read")

    @property
    def writes(self) -> bool:
        return self.mode in ("readwrite", "write")


def parse_mode(text: str) -> str:
    """A cache mode, or a ValueError listing them."""
    if text not in MODES:
        raise ValueError(f"expected one of {', '.join(MODES)}, got {text!r}")
    return text


def parse_age(text: str | float) -> float:
    """An age in seconds from ``3600``, ``90s``, ``30m``, ``12h``, ``7d`` or ``2w``; a ValueError otherwise."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, unit = float(text), "s"
    else:
        found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", str(text))
        if found is None:
            raise ValueError(f"expected an age such as 3600, 90m, 12h or 7d, got {text!r}")
        value, unit = float(found[1]), found[2] or "s"
    if value <= 0:
        raise ValueError(f"expected an age above 0, got {text!r}")
    return value * _UNITS[unit]


def check_settings(settings: CacheSettings) -> None:
    """Make sure the cache's folder exists (created if need be) and, in a mode that writes, can be written;
    a ValueError naming the folder otherwise."""
    if settings.mode == "off":
        return
    where = Path(settings.dir)
    if where.exists() and not where.is_dir():
        raise ValueError(f"{settings.dir} is a file, not a folder; name a folder for the model cache")
    if not where.exists() and not settings.writes:
        raise ValueError(
            f"{settings.dir} does not exist, and mode {settings.mode} only reads; "
            "run once with mode readwrite to fill it"
        )
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{settings.dir}: cannot create the folder ({exc.strerror})") from None
    if settings.writes and not os.access(where, os.W_OK | os.X_OK):
        raise ValueError(f"{settings.dir}: the folder cannot be written; choose another, or --tb-cache-mode read")
    if not os.access(where, os.R_OK | os.X_OK):
        raise ValueError(f"{settings.dir}: the folder cannot be read")


class ModelCache:
    """One process's view of a cache folder (shared by every role and episode of a worker)."""

    def __init__(self, settings: CacheSettings) -> None:
        self.settings = settings
        self._root = Path(settings.dir)

    def key(self, path: str, content: bytes, scope: str | None, answered: int) -> str:
        """The entry's name for `content` sent to `path`, in the attempt `scope`, after `answered` answers."""
        digest = hashlib.sha256()
        digest.update(f"{path}\n{scope or ''}\n{answered}\n".encode())
        digest.update(content)
        return digest.hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept response for `key`, or None: absent, unreadable, expired, or a mode that does not read."""
        if not self.settings.reads:
            return None
        try:
            entry = json.loads(self._file(key).read_bytes())
            response, kept = entry["response"], float(entry["kept"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        max_age = self.settings.max_age_s
        if max_age is not None and time.time() - kept > max_age:
            return None
        return response if isinstance(response, dict) else None

    def put(self, key: str, response: Any, model: str) -> None:
        """Keep `response` under `key` (in a mode that writes), atomically: a reader sees the old entry or the
        new one, never a part. A failure to write is not the attempt's: the answer was had, only not kept."""
        if not self.settings.writes:
            return
        target = self._file(key)
        data = json.dumps({"kept": time.time(), "model": model, "response": response}, ensure_ascii=False)
        try:
            target.parent.mkdir(exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(data)
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            pass

    def _file(self, key: str) -> Path:
        return self._root / key[:2] / f"{key}.json"


def attempt_scope(task: str, attempt: int, seed: int) -> str:
    """The part of a cache key that tells one attempt's requests from another's: the same conversation in
    attempt 2 is another draw of the model than in attempt 1."""
    return f"{task}#{attempt}#{seed}"


def in_attempt(make: Callable[..., Any], scope: str) -> Callable[..., Any]:
    """`make` (a factory of an agent, user or judge), whose parts count their usage under `scope`: the model
    answers of a part built by it are cached per attempt (a part without our `Usage` is left as it is)."""

    def made(*args: Any) -> Any:
        part = make(*args)
        usage = getattr(part, "usage", None)
        if usage is not None and hasattr(usage, "scope"):
            usage.scope = scope
        return part

    for name in ("agent_name",):  # what the harness reads off a factory
        if hasattr(make, name):
            setattr(made, name, getattr(make, name))
    return made
