"""Long tables of judgments and results: one row per (query, document).

Reads, by duck typing and without importing any of their libraries first,

* data frames and tables: pandas, polars and pyarrow (anything with named
  columns whose ``.to_numpy()`` gives an array), objects of the Arrow
  PyCapsule interface (``__arrow_c_stream__``) or of the dataframe
  interchange protocol (``__dataframe__``) when pyarrow is installed, and
  dicts of columns;
* ir_datasets: a dataset (its ``qrels_iter()`` / ``scoreddocs_iter()``), or
  those iterators of namedtuples (``GenericQrel(query_id, doc_id,
  relevance, iteration)``, ``GenericScoredDoc(query_id, doc_id, score)``),
  or any iterable of such namedtuples or of plain ``(query, doc, value)``
  tuples;

into three flat arrays (query ids, document ids, grades or scores), with
no Python loop per row where the source has columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

#: Column names recognised by default, first match wins: ir_measures' and
#: PyTerrier's, ranx's, trec_eval's, recommenders' (user, item, rating).
DEFAULT_COLUMNS = {
    "query_id": ("query_id", "qid", "q_id", "topic", "user_id", "userID", "user"),
    "doc_id": ("doc_id", "docno", "docid", "d_id", "item_id", "itemID", "item"),
    "relevance": ("relevance", "rel", "label", "grade", "judgment", "rating", "score"),
    "score": ("score", "prediction", "pred", "rating"),
}

_ROLES = {
    "qrels": ("query_id", "doc_id", "relevance"),
    "run": ("query_id", "doc_id", "score"),
}
_ITERATORS = {"qrels": "qrels_iter", "run": "scoreddocs_iter"}


def is_table(source, columns=None):
    """Whether ``source`` is a table or an iterable of rows (not a path, an
    open file, or a dict of dicts); a dict is a table of columns when it
    names one of the columns (``columns`` or the default names)."""
    if isinstance(source, (str, bytes)) or hasattr(source, "read"):
        return False
    if isinstance(source, Mapping):
        names = {n for names in DEFAULT_COLUMNS.values() for n in names}
        names |= set((columns or {}).values())
        return any(k in names for k in source) and not any(
            isinstance(v, Mapping) for v in source.values()
        )
    return (
        _named_columns(source) is not None
        or hasattr(source, "__arrow_c_stream__")
        or hasattr(source, "__dataframe__")
        or hasattr(source, "qrels_iter")
        or hasattr(source, "scoreddocs_iter")
        or (isinstance(source, Iterable) and not hasattr(source, "__fspath__"))
    )


def _named_columns(source):
    """The column names of a table, or None."""
    names = getattr(source, "column_names", None)  # pyarrow
    if names is None and not isinstance(source, Mapping):
        names = getattr(source, "columns", None)  # pandas, polars
    if names is None and isinstance(source, Mapping):
        names = list(source)
    if names is None:
        dtype_names = getattr(getattr(source, "dtype", None), "names", None)
        names = dtype_names  # a numpy structured array
    if names is None:
        return None
    try:
        return [str(n) for n in names]
    except TypeError:
        return None


def _column(source, name, ids=False):
    """One column as a numpy array; with ``ids``, a pandas column comes as
    ``(distinct ids, int64 code of each row)`` from its own hash table."""
    if hasattr(source, "column_names") and hasattr(source, "column"):
        column = source.column(name)  # pyarrow: a ChunkedArray
    else:
        column = source[name]
    factorize = getattr(column, "factorize", None)
    if ids and callable(factorize) and hasattr(column, "isna"):  # pandas
        codes, distinct = factorize()
        codes = np.asarray(codes, dtype=np.int64)
        if codes.shape[0] and codes.min() < 0:
            return np.asarray(column.to_numpy(), dtype=object)  # _ids reports it
        return list(distinct.tolist()), codes
    if hasattr(column, "to_numpy"):
        try:
            return np.asarray(column.to_numpy(zero_copy_only=False))
        except TypeError:
            return np.asarray(column.to_numpy())
    return np.asarray(column)


def _as_table(source):
    """A table with named columns: the source itself, or its Arrow form."""
    if _named_columns(source) is not None:
        return source
    for protocol, convert in (
        ("__arrow_c_stream__", "table"),
        ("__dataframe__", "interchange"),
    ):
        if hasattr(source, protocol):
            try:
                import pyarrow as pa
            except ImportError:
                raise TypeError(
                    f"Reading a {type(source).__name__} ({protocol}) needs pyarrow; "
                    f"install it, or pass a pandas DataFrame or a dict of columns."
                ) from None
            if convert == "table":
                return pa.table(source)
            import pyarrow.interchange

            return pyarrow.interchange.from_dataframe(source)
    return None


def _pick(names, role, columns, kind):
    wanted = columns.get(role) if columns else None
    if wanted is not None:
        if wanted not in names:
            raise ValueError(
                f"{kind} has no column {wanted!r} (columns[{role!r}]); its columns: "
                f"{names}."
            )
        return wanted
    for candidate in DEFAULT_COLUMNS[role]:
        if candidate in names:
            return candidate
    raise ValueError(
        f"{kind} has no {role} column among {names}; looked for "
        f"{list(DEFAULT_COLUMNS[role])}. Name it with columns={{{role!r}: ...}}."
    )


def long_columns(source, kind, columns=None):
    """``(query ids, doc ids, values)`` of a table or an iterable of rows.

    ``kind``: ``"qrels"`` (values are grades) or ``"run"`` (scores).
    ``columns``: dict role -> column name, roles ``"query_id"``,
    ``"doc_id"``, ``"relevance"`` and ``"score"``. Ids come back as numpy
    arrays of any hashable values (read as strings later), or, from a
    pandas column, as ``(distinct ids, codes)``; grades as int64
    when they are whole numbers (else float64), scores as float64; both
    checked finite.
    """
    iterator = getattr(source, _ITERATORS[kind], None)
    if callable(iterator) and _named_columns(source) is None:
        source = iterator()  # an ir_datasets dataset
    table = _as_table(source)
    roles = _ROLES[kind]
    if table is not None:
        names = _named_columns(table)
        picked = [_pick(names, role, columns, kind) for role in roles]
        if kind == "qrels" and len(set(picked)) < 3:
            raise ValueError(f"{kind}: one column {picked} for two roles.")
        q, d, v = (_column(table, name, i < 2) for i, name in enumerate(picked))
    else:
        q, d, v = _rows(source, kind, roles, columns)
    q, d = _ids(q, kind, roles[0]), _ids(d, kind, roles[1])
    if not (_length(q) == _length(d) == np.asarray(v).shape[0]):
        raise ValueError(f"{kind}: its columns differ in length.")
    return q, d, _values(v, kind)


def _length(ids):
    return ids[1].shape[0] if isinstance(ids, tuple) else ids.shape[0]


def _rows(source, kind, roles, columns):
    """Columns of an iterable of namedtuples or plain tuples."""
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        raise TypeError(
            f"{kind} must be a path, an open file, a dict qid -> dict docno -> "
            f"value, a data frame or table, or an iterable of (query, doc, value) "
            f"rows; got {type(source).__name__}."
        )
    rows = list(source)
    if not rows:
        return (np.array([], dtype=str),) * 2 + (np.array([], dtype=np.float64),)
    first = rows[0]
    fields = getattr(first, "_fields", None)
    try:
        transposed = list(zip(*rows, strict=True))
    except (TypeError, ValueError):
        raise ValueError(
            f"{kind}: every row must be a tuple of the same length, as "
            f"(query, doc, value); first row: {first!r}."
        ) from None
    if fields is not None:
        by_name = dict(zip(fields, transposed))
        picked = [_pick(list(fields), role, columns, kind) for role in roles]
        return tuple(np.asarray(by_name[name]) for name in picked)
    if len(transposed) != 3:
        raise ValueError(
            f"{kind}: plain tuples must be (query, doc, {roles[2]}); got rows of "
            f"{len(transposed)} fields: {first!r}. Use namedtuples or a table."
        )
    return tuple(np.asarray(c) for c in transposed)


def _ids(values, kind, role):
    if isinstance(values, tuple):  # (distinct ids, codes): checked there
        return values
    values = np.asarray(values)
    if values.dtype.kind == "O":
        missing = np.flatnonzero(np.equal(values, None) | (values != values))
        if missing.shape[0]:
            raise ValueError(f"{kind}: {role} is missing in row {missing[0]}.")
    elif values.dtype.kind == "f" and not np.all(np.isfinite(values)):
        raise ValueError(
            f"{kind}: {role} is missing in row {int(np.argmin(np.isfinite(values)))}."
        )
    return values  # interned, as strings, by the caller


def _values(values, kind):
    what = "relevance grade" if kind == "qrels" else "score"
    values = np.asarray(values)
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    if values.dtype.kind not in "iuf":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{kind}: each {what} must be a real number; got {values.dtype}."
            ) from None
    if values.dtype.kind == "f":
        values = values.astype(np.float64)
        bad = ~np.isfinite(values)
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ValueError(
                f"{kind}: the {what} of row {i} is {values[i]}, not finite."
            )
        if kind == "qrels" and np.all(values == np.round(values)):
            values = values.astype(np.int64)
    elif kind == "run":
        values = values.astype(np.float64)
    else:
        values = values.astype(np.int64)
    return values
