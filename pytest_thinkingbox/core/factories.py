"""factory-boy factories bound to the attempt that is running.

Domain factories subclass `Factory`; they write into whichever attempt's
session is bound, so a task's arrange step needs no session plumbing. The
harness resets every sequence and reseeds factory-boy's random generator before
each attempt, which makes the start state identical across attempts and workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

import factory
import factory.random
from factory.alchemy import SQLAlchemyModelFactory

from .backends.base import current_session

T = TypeVar("T")


class Factory(SQLAlchemyModelFactory, Generic[T]):
    """Base class for domain factories: rows join the attempt's session and are written at `tb.run`.

    Subscript it with the model, ``class CustomerFactory(Factory[Customer])``, so that a type checker
    knows ``CustomerFactory(...)`` gives a ``Customer``.
    """

    class Meta:
        abstract = True
        sqlalchemy_session_factory = current_session
        sqlalchemy_session_persistence = None  # added to the session; flushed together when needed

    if TYPE_CHECKING:
        # factory-boy's __new__ is untyped; calling a factory builds its model, not the factory.
        def __new__(cls, *args: Any, **kwargs: Any) -> T: ...  # type: ignore[misc]


def reset_factories(seed: int = 0) -> None:
    """Restart every factory sequence and reseed factory-boy's random generator."""
    pending = list(Factory.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if not cls._meta.abstract:
            cls.reset_sequence(force=True)
    factory.random.reseed_random(seed)
