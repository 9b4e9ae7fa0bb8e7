"""factory-boy factories bound to the attempt that is running.

Domain factories subclass `Factory`; they write into whichever attempt's
session is bound, so a task's arrange step needs no session plumbing. The
harness resets every sequence and reseeds factory-boy's random generator before
each attempt, which makes the start state identical across attempts and workers.
"""

from __future__ import annotations

import factory
import factory.random
from factory.alchemy import SQLAlchemyModelFactory

from .backends.base import current_session


class Factory(SQLAlchemyModelFactory):
    """Base class for domain factories: rows join the attempt's session and are written at `tb.run`."""

    class Meta:
        abstract = True
        sqlalchemy_session_factory = current_session
        sqlalchemy_session_persistence = None  # added to the session; flushed together when needed


def reset_factories(seed: int = 0) -> None:
    """Restart every factory sequence and reseed factory-boy's random generator."""
    pending = list(Factory.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if not cls._meta.abstract:
            cls.reset_sequence(force=True)
    factory.random.reseed_random(seed)
