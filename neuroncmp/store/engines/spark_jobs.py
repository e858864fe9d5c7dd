"""What the Spark engine runs on the executors: the same code the DuckDB engine runs in-process.

Spark ships these functions by reference (module and name), so every executor needs neuroncmp
installed. Each is pure of the driver: it gets rows, returns rows. ``parse_units`` returns a row
per run (``parsed_schema``, its metric and memory rows nested) and one per entry that does not
load; ``unit``/``item``/``seq`` place each run in the add, so the driver can decide, in add order,
which files are new.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ...errors import NeuroncmpError
from .. import adding, objects, schema, table_rows
from ..listing import Entry, Problem

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
UNITS_PER_BATCH = 200  # entries parsed before a batch is yielded: bounds a worker's memory
NESTED = ("metrics", "memory")


def micros(moment: datetime) -> int:
    """Microseconds since the epoch, exactly (a float timestamp can be 1 us off)."""
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def parse_units(batches: Iterator[Any], added: int) -> Iterator[Any]:
    """``mapInArrow`` over the add's entries (``units_schema``): their runs as ``parsed_schema``
    batches; an entry that does not load gives one ``problem`` row (its place and the one-line error)."""
    when = moment(added)
    rows = _Rows()
    for batch in batches:
        for unit in batch.to_pylist():
            rows.take(unit, when)
            if rows.units >= UNITS_PER_BATCH:
                yield from rows.batches()
                rows = _Rows()
    yield from rows.batches()


class _Rows:
    """The runs of a few entries, column by column, with their place in the add."""

    def __init__(self) -> None:
        self.columns = table_rows.Columns()
        self.head: dict[str, list[Any]] = {"unit": [], "item": [], "seq": [], "rep_source": [],
                                           "copies": []}
        self.counts: dict[str, list[int]] = {table: [] for table in NESTED}  # rows of each run
        self.problems: list[tuple[int, Problem]] = []
        self.units = 0

    def take(self, unit: dict[str, Any], added: datetime) -> None:
        self.units += 1
        entry = Entry(Path(unit["path"]), dict(unit["tags"] or []),
                      None if unit["at"] is None else moment(unit["at"]), unit["commit"],
                      unit["where"], unit["at_source"], bool(unit["commit_from_name"]))
        try:
            items = adding.prepare(entry)
        except NeuroncmpError as exc:
            self.problems.append((unit["unit"], Problem(entry.where, str(exc))))
            return
        for number, item in enumerate(items):
            rows = table_rows.Columns()
            adding.run_rows(item, added, rows, present=False)
            runs = rows.tables["runs"]["run"]  # distinct within one file (.1, .2, ...)
            for table in NESTED:
                per_run = Counter(rows.tables[table]["run"])
                self.counts[table] += [per_run[run] for run in runs]
            copies = [(item.object, str(item.source)), *((k, str(v)) for k, v in item.sidecars.items())]
            for seq in range(len(runs)):
                for key, value in (("unit", unit["unit"]), ("item", number), ("seq", seq),
                                   ("rep_source", str(item.source)), ("copies", copies)):
                    self.head[key].append(value)
            self.columns.extend(rows)

    def batches(self) -> Iterator[Any]:
        import pyarrow as pa

        target = parsed_schema()
        n = len(self.head["unit"])
        if n:
            values: dict[str, Any] = {"kind": ["runs"] * n, **self.head}
            for name, kind, _ in schema.TABLES["runs"]:
                data = self.columns.tables["runs"][name]
                values[f"runs__{name}"] = [micros(x) for x in data] if kind.startswith("TIMESTAMP") else data
            for table in NESTED:
                values[table] = _nested(pa, target.field(table).type, self.columns.tables[table],
                                        self.counts[table])
            yield _batch(pa, target, n, values)
        if self.problems:
            n = len(self.problems)
            yield _batch(pa, target, n, {
                "kind": ["problem"] * n, "unit": [u for u, _ in self.problems],
                "p_where": [p.where for _, p in self.problems],
                "p_message": [p.message for _, p in self.problems]})


def _nested(pa: Any, kind: Any, columns: dict[str, list[Any]], counts: list[int]) -> Any:
    """One list of rows per run: the table's columns as a struct array, cut at the run counts."""
    fields = list(kind.value_type)
    rows = pa.StructArray.from_arrays([pa.array(columns[f.name], type=f.type) for f in fields],
                                      fields=fields)
    offsets = [0]
    for count in counts:
        offsets.append(offsets[-1] + count)
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), rows, type=kind)


def _batch(pa: Any, target: Any, n: int, values: dict[str, Any]) -> Any:
    """A batch of ``target``'s columns: those in ``values``, the rest null."""
    arrays = [values[f.name] if isinstance(values.get(f.name), pa.Array)
              else pa.array(values[f.name], type=f.type) if f.name in values else pa.nulls(n, f.type)
              for f in target]
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def parsed_schema() -> Any:
    """A row of ``parse_units``' output (``schema.arrow_schema``'s runs, timestamps as int64 us)."""
    import pyarrow as pa

    head = [("kind", pa.string()), ("unit", pa.int32()), ("item", pa.int32()), ("seq", pa.int32()),
            ("p_where", pa.string()), ("p_message", pa.string()), ("rep_source", pa.string()),
            ("copies", pa.map_(pa.string(), pa.string()))]
    runs = [pa.field(f"runs__{f.name}", pa.int64() if pa.types.is_timestamp(f.type) else f.type)
            for f in schema.arrow_schema("runs")]
    nested = [(table, pa.list_(pa.struct(list(schema.arrow_schema(table))))) for table in NESTED]
    return pa.schema(head + runs + nested)


def units_schema() -> Any:
    """A row of the add's entries, as ``parse_units`` reads them."""
    import pyarrow as pa

    return pa.schema([("unit", pa.int32()), ("path", pa.string()),
                      ("tags", pa.map_(pa.string(), pa.string())), ("at", pa.int64()),
                      ("at_source", pa.string()), ("commit", pa.string()), ("where", pa.string()),
                      ("commit_from_name", pa.bool_())])


def copy_objects(batches: Iterator[Any], root: str) -> Iterator[Any]:
    """``mapInArrow`` over (``relative``, ``file``): keep each copy in the store; one row per
    batch with how many were asked for."""
    import pyarrow as pa

    for batch in batches:
        for row in batch.to_pylist():
            objects.keep(Path(root), row["relative"], Path(row["file"]))
        yield pa.RecordBatch.from_pydict({"copied": [batch.num_rows]},
                                         schema=pa.schema([("copied", pa.int64())]))

