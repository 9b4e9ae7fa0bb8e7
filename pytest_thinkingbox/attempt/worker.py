"""What a worker builds once and keeps across attempts: database images, golden end states, the event loop,
model endpoints, and the rows and start states tasks arranged before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy.orm import Session

from ..core.backends import Backend
from ..core.backends.sqlite import SQLiteBackend
from ..core.domain import Domain
from ..core.endings import DomainEndings
from ..core.errors import HarnessError
from ..core.state import Delta, snapshot, state_hash, undo
from ..roles.config import Config
from ..roles.endpoint import Endpoint
from ..roles.rate_limit import RateLimit

if TYPE_CHECKING:
    from .early import EarlyEpisode, PreparedStart


@dataclass
class WorkerCache:
    """Per-worker work done once: database images, golden end states, the event loop, model clients."""

    databases: Backend = field(default_factory=SQLiteBackend)
    runner: asyncio.Runner = field(default_factory=asyncio.Runner)  # one event loop per worker
    images: dict[str, Any] = field(default_factory=dict)  # the backend's image of each domain
    golden: dict[tuple[str, str, str], GoldenEnd] = field(default_factory=dict)  # (domain, start hash, calls)
    image_hashes: dict[str, str] = field(default_factory=dict)  # the hash of each domain's image
    models: Config = field(default_factory=Config)
    endpoints: dict[str, Endpoint] = field(default_factory=dict)  # per role; clients keep their connections
    early: dict[str, EarlyEpisode] = field(default_factory=dict)  # episodes started before their test (by key)
    # Per task: the start state one of its attempts arranged, for the next attempts' early starts; None once an
    # attempt of the task arranged or asked for something else.
    prepared: dict[str, PreparedStart | None] = field(default_factory=dict)
    arranged: dict[str, ArrangedStart] = field(default_factory=dict)  # per task: the rows its last flush wrote
    starts: dict[str, tuple[int, str]] = field(default_factory=dict)  # per task: its first attempt and start hash
    endings: dict[str, DomainEndings] = field(default_factory=dict)  # per domain, from the session's catalog
    rate_share: float = 1.0  # this worker's share of each endpoint's rate limits (1 / workers)
    limits: dict[tuple[str | None, str], RateLimit] = field(default_factory=dict)  # per (endpoint, model)

    KEPT_STARTS: ClassVar[int] = 8  # a module's tasks start early one after another: the last few are enough
    KEPT_ARRANGED: ClassVar[int] = 256  # a few kilobytes each

    def endpoint(self, role: str) -> Endpoint:
        """The endpoint serving `role` (agent, user or judge), built once per worker."""
        if role not in self.endpoints:
            config = self.models.roles[role]
            limit = None
            if config.requests_per_minute or config.tokens_per_minute:
                where = (config.base_url, config.model)  # roles on one model at one endpoint share its limits
                if where not in self.limits:
                    self.limits[where] = RateLimit(
                        config.requests_per_minute, config.tokens_per_minute, self.rate_share
                    )
                limit = self.limits[where]
            self.endpoints[role] = Endpoint(config, stage=role, limit=limit)
        return self.endpoints[role]

    def image(self, domain: Domain) -> Any:
        if domain.name not in self.images:
            try:
                self.images[domain.name] = self.databases.build_image(domain.metadata, domain.seed)
            except Exception as exc:
                raise HarnessError(
                    "backend",
                    f"building the {domain.name!r} database (schema and seed) failed: {type(exc).__name__}: {exc}",
                ) from exc
        return self.images[domain.name]

    def discard_early(self, keys: Iterable[str]) -> None:
        """Stop episodes started early whose tests will not run here after all, and free their databases."""
        dropped = [self.early.pop(key) for key in list(keys) if key in self.early]
        for early in dropped:
            early.task.cancel()
        if dropped:
            self.runner.run(asyncio.wait({early.task for early in dropped}))
        for early in dropped:
            if early.held is not None:
                self.databases.drop(early.held)

    def keep_prepared(self, key: str, make: Callable[[], PreparedStart]) -> None:
        """Keep a task's prepared start, made once; the images of the last `KEPT_STARTS` tasks are kept."""
        if key in self.prepared:
            return
        self.prepared[key] = make()
        kept = [k for k, start in self.prepared.items() if start is not None]
        for old in kept[: -self.KEPT_STARTS]:
            del self.prepared[old]  # a task long past; should it come back, one attempt prepares it again

    def keep_arranged(self, key: str, arranged: ArrangedStart) -> None:
        """Keep the rows a task's arrange step wrote, for its next attempts; the last `KEPT_ARRANGED` tasks'."""
        self.arranged.pop(key, None)
        self.arranged[key] = arranged
        if len(self.arranged) > self.KEPT_ARRANGED:
            del self.arranged[next(iter(self.arranged))]

    def image_hash(self, domain: Domain, session: Session, written: Delta) -> str:
        """The hash of the domain's image, computed once from a database that holds it plus `written`."""
        if domain.name not in self.image_hashes:
            self.image_hashes[domain.name] = state_hash(undo(snapshot(session, domain.metadata), written))
        return self.image_hashes[domain.name]

    def close(self) -> None:
        self.discard_early(self.early)
        for endpoint in self.endpoints.values():
            self.runner.run(endpoint.aclose())
        self.runner.close()
        self.databases.close()


@dataclass(frozen=True)
class ArrangedStart:
    """What one attempt's arrange step wrote, for the next attempts of its task that arrange the same.

    An attempt whose session holds the same pending writes (`pending_writes`)
    on a database restored from the same image gets `rows` written again by
    the backend instead of a flush, and the start state's delta and hash as
    they were (`Attempt.run`).
    """

    writes: tuple[Any, ...]  # pending_writes before the flush
    filled: tuple[dict[str, Any], ...]  # what the flush set in each new object (commit_noting_filled)
    rows: Any  # the backend's rows_to_replay after it
    delta: Delta  # the rows written, as grading reads them
    start_hash: str


@dataclass(frozen=True)
class GoldenEnd:
    """The golden end state as what the golden calls change in the start state, and its hash."""

    changes: Delta  # only rows whose value the golden calls change: (start value, golden value)
    hash: str
