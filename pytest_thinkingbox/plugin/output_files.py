"""The session's output files before the first attempt: the manifest line that heads a results file, and the
output paths checked and opened (and locked) for writing.
"""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path
from typing import Any

import pytest

from ..campaign.attempt_record import RECORD_VERSION
from ..campaign.writer import FileInUse, ResultsWriter
from .attempts import REPEAT
from .roles import MODELS, agent_name, role_name
from .shards import SHARD


def manifest(config: pytest.Config) -> dict[str, Any]:
    """What a results file says about its run: bundle, roles and models (no secrets), seed, k."""
    from ..core.bundle import bundle_hash, bundle_roots
    from ..roles.config import prompt_version

    models = config.stash[MODELS]
    names = {"agent": agent_name(config), "user": role_name(config, "user"), "judge": role_name(config, "judge")}
    return {
        "record_version": RECORD_VERSION,
        "bundle": bundle_hash(bundle_roots(config.args, config.invocation_params.dir)),
        **names,
        "models": {role: c.public() for role, c in models.roles.items()},
        "prompts": {role: v for role, name in names.items() if (v := prompt_version(role, name)) is not None},
        "prices": models.prices,
        "seed": config.getoption("tb_seed"),
        "k": config.stash[REPEAT],
        **({"allow_incomplete": True} if config.getoption("tb_allow_incomplete") else {}),
        **({"shard": {"index": shard.index, "count": shard.count}} if (shard := config.stash[SHARD]) else {}),
    }


def check_paths(config: pytest.Config, continued: Path | None) -> None:
    """Refuse output paths that are the same file or cannot be written, before the first attempt.

    A missing folder is made when the file is first written, so only an
    existing ancestor that is a file, or one without write permission, is refused.
    """
    paths = {option: config.getoption(option) for option in ("tb_results", "tb_aggregate", "tb_errors")}
    seen: dict[Path, str] = {}
    for option, value in paths.items():
        if not value:
            continue
        flag, path = "--" + option.replace("_", "-"), Path(value)
        resolved = path.resolve()
        if resolved in seen:
            raise pytest.UsageError(f"{flag} {value} is also {seen[resolved]}; give each output its own file")
        seen[resolved] = flag
        if option != "tb_results" and continued is not None and resolved == continued.resolve():
            raise pytest.UsageError(f"{flag} {value} is the file this session continues; name a new file")
        existing = next(folder for folder in resolved.parents if folder.exists())  # missing folders are made
        if not existing.is_dir():
            raise pytest.UsageError(f"{flag} {value}: {existing} is a file, so the folder cannot be made")
        if path.is_dir():
            raise pytest.UsageError(f"{flag} {value}: cannot write there (it is a folder)")
        if option == "tb_aggregate":  # written at the end: try it now (the results and errors files open now)
            _try_writing(path, flag)


def _try_writing(path: Path, flag: str) -> None:
    """Open `path` for writing as the campaign will, and leave it as it was; a usage error if that fails."""
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise pytest.UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def _writer(path: Path, flag: str, append: bool = False) -> ResultsWriter:
    """The campaign's writer of one output file, or a usage error: it cannot be written, or another holds it."""
    try:
        return ResultsWriter(path, append=append)
    except FileInUse as exc:
        raise pytest.UsageError(
            f"{flag} {path}: {exc}; wait for it to finish, or give this campaign its own file"
        ) from None
    except OSError as exc:
        raise pytest.UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def new_run_id() -> str:
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
