"""Which rows a database has written since a baseline, kept by the database itself.

Every table of a domain gets a shadow table (``_tb_was_<table>``) and
triggers that, on the first write to a row since the baseline, record its key
and its value at the baseline (or that it did not exist). Raw SQL writes fire
the triggers as ORM writes do, so nothing written escapes grading. `changes`
reads the touched rows, each with its value at the baseline and now, through
the driver's cursor as `state.snapshot` does (values compare equal to a
snapshot's); `forget` empties the shadows, making the present the baseline.
On PostgreSQL, `set_aside` makes the present the baseline instead (``tb.run``
after the arrange step) and keeps each row's oldest value aside, in
``_tb_base_<table>``; `undo_to_restored` puts every row written since the last
restore back as it was, so that a database is reused without copying its
image in again, and `undo_to_baseline` every row written since the baseline
(a golden replay made on the attempt's own database).

Tables whose key is one text column also get an index on the key's length
and the key, so that `domain.next_id` finds the highest numbered id without
scanning the table.

A SQLite image carries the triggers and empty shadows inside its bytes; a
PostgreSQL database gets them once, when it is created, and a restore
(which must not count its own copying as writes) empties the shadows.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import Any

from sqlalchemy import MetaData, String, Table

from ..state import Delta
from ..values import jsonable, quote_identifier

EXISTED = "_tb_existed"  # the shadow's flag: the row existed at the baseline (its columns hold its values then)
RESTORING = "thinkingbox.restoring"  # PostgreSQL setting under which the triggers record nothing


def shadow_name(table: str) -> str:
    """The shadow table that records the first write since the baseline to each row of `table`."""
    return f"_tb_was_{table}"


def base_name(table: str) -> str:
    """Where PostgreSQL sets a shadow's rows aside when the baseline moves, to undo back to the restored state."""
    return f"_tb_base_{table}"


def length_index_name(table: str) -> str:
    return f"_tb_len_{table}"


def text_key(table: Table) -> Any:
    """The table's key column when the key is one text column (ids that `next_id` numbers), else None."""
    keys = list(table.primary_key.columns)
    return keys[0] if len(keys) == 1 and isinstance(keys[0].type, String) else None


def sqlite_ddl(metadata: MetaData) -> list[str]:
    """Shadows, triggers and key-length indexes for a SQLite database of `metadata`'s schema.

    Shadow columns have no declared type, so SQLite stores each value as the
    table holds it (a declared type would convert some, such as "0012").
    The connection needs ``PRAGMA recursive_triggers = ON`` so that rows an
    ``INSERT OR REPLACE`` deletes are recorded too.
    """
    statements = []
    for table in metadata.sorted_tables:
        name, shadow = quote_identifier(str(table.name)), quote_identifier(shadow_name(str(table.name)))
        columns = [quote_identifier(str(c.name)) for c in table.columns]
        keys = [quote_identifier(str(c.name)) for c in table.primary_key.columns]
        statements.append(f"CREATE TABLE {shadow} ({EXISTED}, {', '.join(columns)}, PRIMARY KEY ({', '.join(keys)}))")

        # NOT EXISTS rather than INSERT OR IGNORE: an outer statement's conflict clause would override the trigger's.
        was, added = _first_touch(shadow, keys, "OLD", 1, columns), _first_touch(shadow, keys, "NEW", 0, keys)
        for event, body in (("INSERT", added), ("UPDATE", f"{was} {added}"), ("DELETE", was)):
            trigger = quote_identifier(f"_tb_track_{table.name}_{event.lower()}")
            statements.append(f"CREATE TRIGGER {trigger} AFTER {event} ON {name} BEGIN {body} END")
        key = text_key(table)
        if key is not None:
            column = quote_identifier(str(key.name))
            index = quote_identifier(length_index_name(str(table.name)))
            statements.append(f"CREATE INDEX {index} ON {name} (length({column}), {column})")
    return statements


def _first_touch(shadow: str, keys: list[str], row: str, existed: int, values: list[str]) -> str:
    """A trigger statement: record `row` (OLD or NEW) in the shadow unless its key is there already."""
    absent = " AND ".join(f"{k} = {row}.{k}" for k in keys)
    return (
        f"INSERT INTO {shadow} ({EXISTED}, {', '.join(values)}) "
        f"SELECT {existed}, {', '.join(f'{row}.{v}' for v in values)} "
        f"WHERE NOT EXISTS (SELECT 1 FROM {shadow} WHERE {absent});"
    )


def postgres_ddl(metadata: MetaData) -> list[str]:
    """Shadows, triggers and key-length indexes for a PostgreSQL database of `metadata`'s schema.

    A shadow is made with ``CREATE TABLE ... AS``, which keeps the column
    types (values read back as the table's) and drops NOT NULL (a row that did
    not exist at the baseline has only its key). The key-length index orders
    keys bytewise (``COLLATE "C"``), as SQLite does.
    """
    statements = []
    for table in metadata.sorted_tables:
        name, shadow = quote_identifier(str(table.name)), quote_identifier(shadow_name(str(table.name)))
        keys = [quote_identifier(str(c.name)) for c in table.primary_key.columns]
        function = quote_identifier(f"_tb_track_{table.name}")
        base = quote_identifier(base_name(str(table.name)))
        statements += [
            f"CREATE TABLE {shadow} AS SELECT *, true AS {EXISTED} FROM {name} WITH NO DATA",
            f"ALTER TABLE {shadow} ADD PRIMARY KEY ({', '.join(keys)})",
            f"CREATE TABLE {base} (LIKE {shadow} INCLUDING ALL)",
            # Statistics that say "empty": a never-analyzed table is guessed at ten pages, and joins with
            # it would scan the whole domain table instead of probing its key for the few rows written.
            f"ANALYZE {shadow}, {base}",
            f"""CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('{RESTORING}', true) = 'on' THEN RETURN NULL; END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO {shadow} SELECT OLD.*, true ON CONFLICT DO NOTHING;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO {shadow} ({", ".join(keys)}, {EXISTED})
        VALUES ({", ".join(f"NEW.{k}" for k in keys)}, false) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$""",
            f"CREATE TRIGGER _tb_track AFTER INSERT OR UPDATE OR DELETE ON {name} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()",
        ]
        key = text_key(table)
        if key is not None:
            column = quote_identifier(str(key.name))
            index = quote_identifier(length_index_name(str(table.name)))
            statements.append(f'CREATE INDEX {index} ON {name} (length({column}), {column} COLLATE "C")')
    return statements


def touched_tables(cursor: Any, metadata: MetaData) -> list[str]:
    """The tables with rows written since the baseline (one query, whatever the number of tables)."""
    plan = _plan(metadata)
    cursor.execute(plan.pending)
    return [plan.tables[i][0] for (i,) in cursor.fetchall()]


def changes(cursor: Any, metadata: MetaData, postgres: bool = False) -> Delta:
    """Every row written since the baseline: per table and key, its value then and now (None: absent).

    On PostgreSQL each written row's key is probed in the table (``LATERAL``
    with ``OFFSET 0``, which the planner cannot turn into a hash join): a
    shadow emptied many times looks large to the planner until it is
    vacuumed, and a hash join would scan the whole table to read a few rows.
    """
    plan = _plan(metadata)
    reads = {name: (probe if postgres else sql, columns, keys) for name, sql, probe, columns, keys in plan.tables}
    delta: Delta = {}
    for name in touched_tables(cursor, metadata):
        sql, columns, key_positions = reads[name]
        cursor.execute(sql)
        width = len(columns)
        rows = delta[name] = {}
        for values in cursor.fetchall():
            was_values, now_values = values[1 : width + 1], values[width + 1 :]
            key = "|".join(str(was_values[i]) for i in key_positions)
            was = dict(zip(columns, map(jsonable, was_values), strict=True)) if values[0] else None
            present = now_values[key_positions[0]] is not None
            now = dict(zip(columns, map(jsonable, now_values), strict=True)) if present else None
            rows[key] = (was, now)
    return delta


Rows = tuple[tuple[str, str, tuple[tuple[Any, ...], ...]], ...]  # (table, its INSERT, raw values) per table


def new_rows(cursor: Any, metadata: MetaData) -> Rows | None:
    """SQLite: the rows written since the baseline, as the database holds them, if all of them are new rows.

    Per table, parents first: the statement that inserts them again and their
    values, each row with its ``rowid`` (the order in which SQLite returns
    rows without ``ORDER BY``), so that `insert_again` makes a database that
    reads back the same, byte for byte. None if a row that existed at the
    baseline was written, or a table has no ``rowid``.
    """
    read = []
    order = {str(t.name): i for i, t in enumerate(metadata.sorted_tables)}
    for name in sorted(touched_tables(cursor, metadata), key=order.__getitem__):
        table, shadow = quote_identifier(name), quote_identifier(shadow_name(name))
        keys = _keys(metadata.tables[name])
        try:
            cursor.execute(
                f"SELECT w.{EXISTED}, n.rowid, n.* FROM {shadow} w LEFT JOIN {table} n ON {_match(keys, 'n', 'w')} "
                "ORDER BY n.rowid"
            )
        except sqlite3.OperationalError:  # a WITHOUT ROWID table: not replayable
            return None
        found = cursor.fetchall()
        if any(existed or rowid is None for existed, rowid, *_ in found):
            return None
        columns = ["rowid", *(quote_identifier(str(d[0])) for d in cursor.description[2:])]
        insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        read.append((name, insert, tuple(tuple(values[1:]) for values in found)))
    return tuple(read)


def insert_again(cursor: Any, rows: Rows) -> None:
    """SQLite: write `rows` (from `new_rows` on a database restored from the same image).

    The triggers record them as they would any write; the caller makes them the baseline.
    """
    for _, insert, values in rows:
        cursor.executemany(insert, values)


def forget(cursor: Any, tables: list[str]) -> None:
    """Make the present the baseline of `tables` (the rest have nothing recorded)."""
    for name in tables:
        cursor.execute(f"DELETE FROM {quote_identifier(shadow_name(name))}")


def forget_set_aside(cursor: Any, tables: list[str]) -> None:
    """PostgreSQL: make the present the restored state of `tables`: nothing recorded, nothing set aside."""
    forget(cursor, tables)
    for name in tables:
        cursor.execute(f"DELETE FROM {quote_identifier(base_name(name))}")


def set_aside(cursor: Any, metadata: MetaData, tables: list[str]) -> None:
    """PostgreSQL: make the present the baseline of `tables`, setting each row's oldest value aside.

    The set-aside rows (in ``_tb_base_<table>``) and the shadows together hold
    every written row's value at the last restore, so `undo_to_restored` can
    put it back.
    """
    for name in tables:
        shadow, base = quote_identifier(shadow_name(name)), quote_identifier(base_name(name))
        kept = f"SELECT 1 FROM {base} b WHERE {_match(_keys(metadata.tables[name]), 'b', 's')}"
        cursor.execute(f"INSERT INTO {base} SELECT * FROM {shadow} s WHERE NOT EXISTS ({kept})")
        cursor.execute(f"DELETE FROM {shadow}")


def dirty_tables(cursor: Any, metadata: MetaData) -> list[str]:
    """PostgreSQL: the tables with rows written since the last restore (recorded, or set aside)."""
    plan = _plan(metadata)
    cursor.execute(plan.dirty)
    return [plan.tables[i][0] for (i,) in cursor.fetchall()]


def undo_to_restored(cursor: Any, metadata: MetaData) -> None:
    """PostgreSQL: put every row written since the last restore back as it was, and empty the shadows.

    The caller defers foreign keys and switches the triggers off. The work
    grows with the rows written, not with the size of the tables.
    """
    written = dirty_tables(cursor, metadata)
    set_aside(cursor, metadata, written)  # the oldest value of every written row is now in its base table
    _put_back(cursor, metadata, written, base_name)
    forget_set_aside(cursor, written)


def undo_to_baseline(cursor: Any, metadata: MetaData) -> None:
    """PostgreSQL: put every row written since the baseline back as it was then, and empty the shadows.

    The rows set aside (written between the restore and the baseline) stay,
    so a later `undo_to_restored` still reaches back to the restored state.
    The caller defers foreign keys and switches the triggers off.
    """
    written = touched_tables(cursor, metadata)
    _put_back(cursor, metadata, written, shadow_name)
    forget(cursor, written)


def _put_back(cursor: Any, metadata: MetaData, written: list[str], kept_in: Callable[[str], str]) -> None:
    """Give every row recorded in its table's `kept_in(table)` the value recorded there.

    In three passes over the written tables: rows that existed then and
    exist now get their old values in place (deleting and inserting them
    would fire ``ON DELETE`` actions on rows never written); then rows that
    did not exist are deleted, children first; then rows that were deleted are
    inserted, parents first.
    """
    tables = [t for t in metadata.sorted_tables if str(t.name) in written]
    for table in tables:
        name, kept = quote_identifier(str(table.name)), quote_identifier(kept_in(str(table.name)))
        columns = [quote_identifier(str(c.name)) for c in table.columns]
        keys = _keys(table)
        cursor.execute(
            f"UPDATE {name} SET ({', '.join(columns)}) = (SELECT {', '.join(columns)} FROM {kept} b "
            f"WHERE {_match(keys, 'b', name)}) WHERE ({', '.join(keys)}) IN (SELECT {', '.join(keys)} "
            f"FROM {kept} WHERE {EXISTED})"
        )
    for table in reversed(tables):
        name, kept = quote_identifier(str(table.name)), quote_identifier(kept_in(str(table.name)))
        keys = _keys(table)
        cursor.execute(
            f"DELETE FROM {name} WHERE ({', '.join(keys)}) IN (SELECT {', '.join(keys)} FROM {kept} "
            f"WHERE NOT {EXISTED})"
        )
    for table in tables:
        name, kept = quote_identifier(str(table.name)), quote_identifier(kept_in(str(table.name)))
        listed = ", ".join(quote_identifier(str(c.name)) for c in table.columns)
        cursor.execute(
            f"INSERT INTO {name} ({listed}) SELECT {listed} FROM {kept} b WHERE {EXISTED} "
            f"AND NOT EXISTS (SELECT 1 FROM {name} WHERE {_match(_keys(table), 'b', name)})"
        )


def _keys(table: Table) -> list[str]:
    return [quote_identifier(str(c.name)) for c in table.primary_key.columns]


def _match(keys: list[str], left: str, right: str) -> str:
    return " AND ".join(f"{left}.{k} = {right}.{k}" for k in keys)


class _Plan:
    def __init__(self, metadata: MetaData) -> None:
        self.tables: list[tuple[str, str, str, list[str], list[int]]] = []
        pending, dirty = [], []
        for i, table in enumerate(metadata.sorted_tables):
            name = str(table.name)
            columns = [str(c.name) for c in table.columns]
            keys = [columns.index(str(c.name)) for c in table.primary_key.columns]
            quoted = [quote_identifier(c) for c in columns]
            shadow = quote_identifier(shadow_name(name))
            join = " AND ".join(f"n.{quoted[k]} = w.{quoted[k]}" for k in keys)
            read = f"SELECT w.{EXISTED}, {', '.join('w.' + c for c in quoted)}, {', '.join('n.' + c for c in quoted)} "
            sql = f"{read}FROM {shadow} w LEFT JOIN {quote_identifier(name)} n ON {join}"
            probe = (
                f"{read}FROM {shadow} w "
                f"LEFT JOIN LATERAL (SELECT * FROM {quote_identifier(name)} n WHERE {join} OFFSET 0) n ON true"
            )
            self.tables.append((name, sql, probe, columns, keys))
            pending.append(f"SELECT {i} WHERE EXISTS (SELECT 1 FROM {shadow})")
            base = quote_identifier(base_name(name))
            dirty.append(f"SELECT {i} WHERE EXISTS (SELECT 1 FROM {shadow}) OR EXISTS (SELECT 1 FROM {base})")
        self.pending = " UNION ALL ".join(pending)
        self.dirty = " UNION ALL ".join(dirty)


@functools.cache
def _plan(metadata: MetaData) -> _Plan:
    return _Plan(metadata)
