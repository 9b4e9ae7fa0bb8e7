"""A task's arrange step, recognised before it is flushed.

The rows a task's body arranges wait in the attempt's session until ``tb.run``
flushes them; for a handful of rows SQLAlchemy's unit of work costs more than
the rest of the arrange step. Every attempt of a task usually arranges the
same rows (factories restart their sequences), so a worker flushes them once,
and a later attempt whose session holds the same pending writes
(`pending_writes`, compared with ``==``) gets those rows written again by the
backend instead, its objects made persistent without a flush
(`persist_unflushed`).

`pending_writes` vouches only for what a flush would do the same way each
time: new objects with their keys set and objects with changed attributes,
nothing deleted, no flush or insert events, no column left to a default
computed at flush time (a Python function, or SQL other than a literal).
Anything else gives None, and the attempt flushes as usual.
"""

from __future__ import annotations

import copy
import datetime as dt
import decimal
import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.orm import Mapper, Session, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.properties import RelationshipProperty


class _Unknown(Exception):
    """A pending write `pending_writes` cannot vouch for."""


def pending_writes(session: Session) -> tuple[Any, ...] | None:
    """What a flush of `session` would write, as plain values, or None if it cannot be told for sure.

    Per new object, in the order the session got them: its class and every
    mapped attribute it holds, related objects by class and key; per changed
    object, its key and the attributes changed.
    """
    if session.deleted or session.dispatch.before_flush or session.dispatch.after_flush:
        return None
    try:
        new = tuple(_new_object(instance) for instance in session.new)
        changed = tuple(_changed_object(instance) for instance in session.dirty)
    except _Unknown:
        return None
    return new, changed


def commit_noting_filled(session: Session) -> tuple[dict[str, Any], ...]:
    """Commit the session; return, per new object it flushed (in the session's order), the columns the flush set.

    Those are the columns a new object did not hold (a foreign key set through
    a relationship, a scalar default), with the values they hold after the
    flush; `persist_unflushed` gives the same objects of a later attempt the same.
    """
    new = list(session.new)  # held: the session holds persistent objects weakly, and a state's dict with them
    unset = [[prop.key for prop in inspect(obj).mapper.column_attrs if prop.key not in vars(obj)] for obj in new]
    session.commit()
    return tuple(_set_by_flush(obj, keys) for obj, keys in zip(new, unset, strict=True))


def _set_by_flush(instance: Any, keys: list[str]) -> dict[str, Any]:
    """Of the columns `keys`, those the flush gave a value, and those it left NULL unloaded (they read as None)."""
    held, expired = vars(instance), inspect(instance).expired_attributes  # expired: a server default, loaded when read
    return {key: _kept(held[key]) if key in held else None for key in keys if key in held or key not in expired}


def persist_unflushed(session: Session, filled: tuple[dict[str, Any], ...], write_rows: Callable[[], None]) -> None:
    """Make the session's new objects persistent and its changed ones clean, once `write_rows()` wrote their rows.

    As after the flush `commit_noting_filled` saw (the pending writes were
    equal, so the objects correspond in order), the new objects hold the
    values they were given and those the flush set (`filled`); what the flush
    left unset (a server default) loads when read. Changed objects load again.
    """
    new, changed = list(session.new), list(session.dirty)
    for instance in new:
        session.expunge(instance)
    for instance in changed:
        session.expire(instance)  # e.g. a collection a new object joined: it is in the rows
    write_rows()
    for instance, values in zip(new, filled, strict=True):
        make_transient_to_detached(instance)
        for key, value in values.items():
            set_committed_value(instance, key, _kept(value))
    session.add_all(new)


def _new_object(instance: Any) -> tuple[Any, ...]:
    state = inspect(instance)
    mapper = state.mapper
    if mapper.dispatch.before_insert or mapper.dispatch.after_insert:
        raise _Unknown
    held = state.dict  # the instance's __dict__: its state object too, which is no attribute
    if any(key not in held for key in _flush_time_defaults(mapper)):
        raise _Unknown
    given = (_item(mapper, key, value) for key, value in held.items() if key in mapper.attrs)
    return mapper.class_, _identity(instance), *given


def _changed_object(instance: Any) -> tuple[Any, ...]:
    state = inspect(instance)
    mapper = state.mapper
    if mapper.dispatch.before_update or mapper.dispatch.after_update:
        raise _Unknown
    held = state.dict
    return (mapper.class_, state.key, *(_item(mapper, key, held.get(key)) for key in state.committed_state))


def _item(mapper: Mapper[Any], key: str, value: Any) -> tuple[str, Any]:
    prop = mapper.attrs.get(key)
    if isinstance(prop, RelationshipProperty):
        if value is None:
            return key, None
        if prop.uselist:
            return key, tuple(_identity(related) for related in value)
        return key, _identity(value)
    return key, _kept(value)


def _kept(value: Any) -> Any:
    """A copy of a mutable value: an object changed in place later must not change what was kept."""
    return value if type(value) in _IMMUTABLE else copy.deepcopy(value)


_IMMUTABLE = {str, int, float, bool, type(None), bytes, dt.date, dt.datetime, dt.time, dt.timedelta, decimal.Decimal}


def _identity(instance: Any) -> tuple[Any, ...]:
    """A related or new object by class and key; its key as given if it is new."""
    state = inspect(instance)
    if state.key is not None:
        return state.key[0], state.key[1]
    mapper = state.mapper
    key = tuple(state.dict.get(prop.key) for prop in mapper.column_attrs if prop.columns[0].primary_key)
    if None in key:
        raise _Unknown  # a key the database assigns (autoincrement), or one a relationship fills in at flush
    return mapper.class_, key


@functools.cache
def _flush_time_defaults(mapper: Mapper[Any]) -> tuple[str, ...]:
    """The attributes whose column, left unset, gets a value computed at flush: they must be given."""
    keys = []
    for prop in mapper.column_attrs:
        for column in prop.columns:
            default, server = column.default, column.server_default
            computed = default is not None and not getattr(default, "is_scalar", False)
            literal = server is None or isinstance(getattr(server, "arg", None), str)
            if computed or not literal:
                keys.append(prop.key)
    return tuple(keys)
