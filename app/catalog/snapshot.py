"""Catalog snapshots: one revision's :class:`~app.catalog.view.CatalogView` kept in a file, so
a short-lived command (``gpucost ask``) answers without reading the database's catalog or
importing SQLAlchemy.

A snapshot is the pickled view with every table row turned into a plain :class:`Row` (its
columns as attributes, and the same price rules as the table model:
:class:`~app.models.catalog_kinds.GpuPrices`, :class:`~app.models.catalog_kinds.RegionTariffs`).
It is written by a command that read the catalog from the database, and read back only when
its key still matches: the SQLite file (path, device, inode), its catalog revision (bumped by
every catalog write, as the service's workers poll it) and how many price points it holds,
the day (UTC: what a view derives from its day, such as a price's age, holds for that day),
and the code that built it (size and modification time of every file under ``app/``, the
Python and numpy versions). Anything else, a missing or unreadable file included, is a miss:
the command reads the database as before. Only SQLite databases are snapshotted (their key
is read with the standard library's ``sqlite3``); the file lives in
``GPUCOST_SNAPSHOT_DIR`` (default ``$XDG_CACHE_HOME/gpucost``, else ``~/.cache/gpucost``),
written by this user for this user (a pickle is code: never point the directory at files
others can write).

Figures (2-core machine, shipped catalog, 2026-11-28, ``make bench-ask``): a snapshot loads
in ~0.05 s where reading the catalog takes ~0.45 s after ~0.5 s of SQLAlchemy imports.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from app.catalog.view import CatalogView, today
from app.models.catalog_kinds import GpuPrices, RegionTariffs

# Bump when the snapshot's layout changes in a way the code fingerprint cannot see.
FORMAT = 1
APP_DIR = Path(__file__).resolve().parents[1]


class Row:
    """A catalog table's row as plain data: each column an attribute, compared by value like
    the table model (and, like it, unhashable). ``table``: the table's name."""

    table: ClassVar[str] = ""
    __hash__ = None  # type: ignore[assignment]  # rows compare by value, as pydantic's do

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.__dict__.get('id')!r})"


class GpuRow(GpuPrices, Row):
    """A ``gpu`` row, with the table model's purchase-price rules."""

    table = "gpu"


class RegionRow(RegionTariffs, Row):
    """A ``region`` row, with the table model's tariff lookup."""

    table = "region"


_ROW_CLASSES: dict[str, type[Row]] = {"gpu": GpuRow, "region": RegionRow}


def row_class(table: str) -> type[Row]:
    """The plain-row class of ``table`` (``Row_<table>`` in this module, made on first use)."""
    found = _ROW_CLASSES.get(table)
    if found is None:
        name = f"Row_{table}"
        found = _ROW_CLASSES[table] = type(name, (Row,), {"table": table, "__module__": __name__})
    return found


def __getattr__(name: str) -> type[Row]:
    """``Row_<table>``: what a snapshot names its plain rows' classes by."""
    if name.startswith("Row_"):
        return row_class(name.removeprefix("Row_"))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Pickler(pickle.Pickler):
    """Pickles table-model instances as plain rows: the row's class and its columns, which
    unpickling sets on a new instance (shared rows stay shared: pickle's memo holds each row
    once)."""

    def reducer_override(self, obj: Any) -> Any:
        table = getattr(type(obj), "__tablename__", None)
        if isinstance(table, str) and hasattr(type(obj), "model_fields"):
            state = {n: getattr(obj, n) for n in type(obj).model_fields}
            return _new_row, (row_class(table),), state
        return NotImplemented


def _new_row(cls: type[Row]) -> Row:
    """An empty row of ``cls``, whose columns unpickling then sets."""
    return cls.__new__(cls)


def snapshot_dir(configured: Path | None) -> Path:
    """Where snapshots are kept: ``configured`` (``GPUCOST_SNAPSHOT_DIR``), else
    ``$XDG_CACHE_HOME/gpucost``, else ``~/.cache/gpucost``."""
    if configured is not None:
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpucost"


def sqlite_path(database_url: str) -> Path | None:
    """The file of an SQLite URL (``sqlite:///rel.db``, ``sqlite:////abs.db``,
    ``sqlite+pysqlite:///...``); None for another database or an in-memory one."""
    scheme, sep, rest = database_url.partition(":///")
    if not sep or scheme.split("+")[0] != "sqlite" or not rest or rest.startswith(":memory:"):
        return None
    return Path(rest.split("?")[0]).resolve()


def _code_fingerprint() -> str:
    import numpy  # its version: a snapshot holds numpy arrays

    digest = hashlib.sha256(f"{FORMAT} {sys.version} {numpy.__version__}".encode())
    for root, dirs, files in os.walk(APP_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            st = os.stat(os.path.join(root, name))
            digest.update(f"{root}/{name} {st.st_size} {st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class SnapshotKey(NamedTuple):
    """What a snapshot is filed under (``name``), and the catalog revision it is of."""

    name: str
    revision: int


def snapshot_key(database_url: str) -> SnapshotKey | None:
    """The key a snapshot of this database's catalog is filed under now, or None when the
    database is not an SQLite file holding a catalog (then nothing is read or written)."""
    path = sqlite_path(database_url)
    if path is None or not path.is_file():
        return None
    try:
        st = path.stat()
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            (revision,) = conn.execute(
                "SELECT revision FROM catalog_revision WHERE id = 1"
            ).fetchone() or (None,)
            points = conn.execute("SELECT count(*), max(id) FROM price_point").fetchone()
        conn.close()
    except (sqlite3.Error, OSError):
        return None
    if revision is None:
        return None
    head = f"{st.st_dev} {st.st_ino} {revision} {points} {today()} {_code_fingerprint()}"
    return SnapshotKey(f"{_short(str(path))}-{_short(head)}", int(revision))


def _short(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load(folder: Path, key: SnapshotKey) -> CatalogView | None:
    """The view filed under ``key`` in ``folder``; None when there is none, it cannot be
    read (an interrupted write, another version's file), or it is not this user's own file
    that only this user can write (unpickling runs what the file says)."""
    try:
        with open(folder / f"view-{key.name}.pickle", "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
            view = pickle.load(f)  # noqa: S301 - this user's own cache file, checked above
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return None
    if not isinstance(view, CatalogView) or view.revision != key.revision:
        return None
    return view


def save(view: CatalogView, folder: Path, key: SnapshotKey) -> Path | None:
    """File ``view`` under ``key`` in ``folder``, when it is of ``key``'s revision (read
    after the key was taken: a view read after a later write is not filed under the older
    key). Written to a temporary file, then renamed
    into place, so a reader never sees half a file; the older snapshots of the same database
    file are removed). Returns the file, or None when it could not be written (a read-only
    home, a derived value that does not pickle: the command still answers)."""
    if view.revision != key.revision or view.as_of is not None:
        return None
    buf = io.BytesIO()
    try:
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(view)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None  # something derived from the view that does not pickle: no snapshot
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".view-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        target = folder / f"view-{key.name}.pickle"
        os.replace(tmp, target)
        for old in folder.glob(f"view-{key.name.split('-')[0]}-*.pickle"):
            if old != target:
                old.unlink(missing_ok=True)
    except OSError:
        return None
    return target
