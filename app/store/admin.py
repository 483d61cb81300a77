"""Catalog writes through the admin API, with optimistic concurrency (ETag / If-Match).

Each write runs in one transaction that locks the row it changes (``BEGIN IMMEDIATE`` on
SQLite, ``SELECT ... FOR UPDATE`` on PostgreSQL), compares the client's ``If-Match`` with the
row's current ETag, writes (prices through the price history), and bumps the catalog
revision, so two admins never silently overwrite each other and every process's snapshot
notices the change.

An ETag is a digest of the stored row (and, for a benchmark, of its results): it changes
exactly when the representation does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import BaseModel
from sqlalchemy import delete as sa_delete
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from app.catalog.live import catalog_written
from app.catalog.read import must_build
from app.db import write_transaction
from app.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    PreconditionFailed,
    PreconditionRequired,
)
from app.models import (
    Barebone,
    Benchmark,
    BenchmarkResult,
    CloudOffer,
    ColabRate,
    Gpu,
    Region,
    UtilizationProfile,
)
from app.models.admin import (
    BareboneWrite,
    BenchmarkWrite,
    CloudOfferWrite,
    GpuWrite,
    RegionWrite,
    UtilizationProfileWrite,
)
from app.models.history import PRICE_FIELDS, future_date_problem
from app.models.provenance import table_of
from app.store import audit
from app.store.audit import Actor
from app.store.catalog_writes import PriceLedger, bump_revision, upsert


@dataclass(frozen=True)
class Kind:
    """A catalog resource the admin API writes: its table and its write body."""

    name: str
    table: type[SQLModel]
    write: type[BaseModel]


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("gpus", Gpu, GpuWrite),
        Kind("cloud-offers", CloudOffer, CloudOfferWrite),
        Kind("barebones", Barebone, BareboneWrite),
        Kind("regions", Region, RegionWrite),
        Kind("utilization-profiles", UtilizationProfile, UtilizationProfileWrite),
        Kind("benchmarks", Benchmark, BenchmarkWrite),
    )
}
_RESULTS = table_of(BenchmarkResult)


def _canon(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def _data(kind: Kind, row: dict[str, Any], results: list[dict[str, Any]] | None) -> dict[str, Any]:
    data = {k: _canon(v) for k, v in row.items()}
    if kind.table is Benchmark:
        data["results"] = [
            {k: _canon(v) for k, v in r.items() if k not in ("benchmark_id", "source", "as_of")}
            for r in results or []
        ]
    return data


def etag(data: dict[str, Any]) -> str:
    """A strong ETag of a row's stored data."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return '"' + hashlib.sha256(blob.encode()).hexdigest()[:32] + '"'


@dataclass(frozen=True)
class _Stored:
    """A row as stored (``row``, for the upsert) and as represented (``data``, for ETags)."""

    row: dict[str, Any]
    data: dict[str, Any]


def _load(conn: Connection, kind: Kind, item_id: str, lock: bool) -> _Stored | None:
    table = table_of(kind.table)
    stmt = select(table).where(table.c.id == item_id)
    if lock:
        stmt = stmt.with_for_update()
    found = conn.execute(stmt).first()
    if found is None:
        return None
    row = dict(found._mapping)
    results = None
    if kind.table is Benchmark:
        results = [
            dict(r._mapping)
            for r in conn.execute(
                select(_RESULTS).where(_RESULTS.c.benchmark_id == item_id).order_by(_RESULTS.c.id)
            )
        ]
    return _Stored(row, _data(kind, row, results))


def read(engine: Engine, kind: Kind, item_id: str) -> tuple[dict[str, Any], str]:
    """The stored row and its ETag; :class:`NotFound` when absent."""
    with engine.connect() as conn:
        stored = _load(conn, kind, item_id, lock=False)
    if stored is None:
        raise NotFound(f"no {kind.name} row with id '{item_id}'")
    return stored.data, etag(stored.data)


def _matches(header: str, current: str) -> bool:
    """RFC 9110 If-Match: a list of strong ETags (weak ones never match). ``*`` is refused
    before this (see :func:`_check`)."""
    return any(tag.strip() == current for tag in header.split(","))


def _check(
    kind: Kind,
    item_id: str,
    current: dict[str, Any] | None,
    if_match: str | None,
    if_none_match: str | None,
) -> None:
    if current is None:
        if if_match is not None:  # a tag, or *, for a row that is not there (deleted?)
            raise PreconditionFailed(f"If-Match given, but there is no {kind.name} row '{item_id}'")
        return
    tag = etag(current)
    if if_none_match is not None and if_none_match.strip() == "*":
        raise PreconditionFailed(
            f"If-None-Match: * but {kind.name} '{item_id}' exists", current_etag=tag
        )
    if if_match is None:
        raise PreconditionRequired(
            f"{kind.name} '{item_id}' exists: send If-Match with its ETag to change it",
            current_etag=tag,
        )
    if if_match.strip() == "*":
        # RFC 9110 lets `*` match any current row, which would overwrite a change made since
        # the caller read it: the lost update If-Match is here to prevent (issue 36).
        raise PreconditionRequired(
            f"{kind.name} '{item_id}': If-Match: * is not accepted; send the row's ETag",
            current_etag=tag,
        )
    if not _matches(if_match, tag):
        raise PreconditionFailed(
            f"{kind.name} '{item_id}' changed since you read it: fetch it again, reapply "
            "your change and send the new ETag",
            current_etag=tag,
        )


def _validate_refs(conn: Connection, kind: Kind, body: BaseModel, today: dt.date) -> None:
    for name in type(body).model_fields:
        problem = name.endswith("as_of") and future_date_problem(getattr(body, name), today)
        if problem:
            raise InvalidRequest(f"{name}: {problem}")
    gpu_ids: set[str] = set()
    if isinstance(body, CloudOfferWrite):
        gpu_ids.add(body.gpu_id)
    if isinstance(body, BenchmarkWrite):
        gpu_ids |= {r.gpu_id for r in body.results}
    if gpu_ids:
        table = table_of(Gpu)
        known = set(conn.execute(select(table.c.id).where(table.c.id.in_(gpu_ids))).scalars())
        missing = sorted(gpu_ids - known)
        if missing:
            raise InvalidRequest(f"gpu_id not in the catalog: {', '.join(missing)}")


def put(
    engine: Engine,
    kind: Kind,
    item_id: str,
    body: BaseModel,
    if_match: str | None,
    if_none_match: str | None,
    today: dt.date | None = None,
    actor: Actor | None = None,
) -> tuple[dict[str, Any], str, bool]:
    """Create or replace a row; returns (stored data, ETag, created). A change is appended to
    the audit log as ``actor``'s (the command line's user when None), in its transaction.

    Raises :class:`PreconditionRequired` (428) to replace without If-Match,
    :class:`PreconditionFailed` (412) on a stale If-Match (or a row created meanwhile), and
    :class:`InvalidRequest` (422) for a future date or an unknown GPU."""
    today = today or dt.datetime.now(dt.UTC).date()
    table = table_of(kind.table)
    fields = body.model_dump(exclude={"results"})
    try:
        with write_transaction(engine) as conn:
            current = _load(conn, kind, item_id, lock=True)
            before = current.data if current else None
            _check(kind, item_id, before, if_match, if_none_match)
            _validate_refs(conn, kind, body, today)
            if before is not None:
                _date_by_write(table.name, before, fields, today)
            _check_dates(table.name, fields)
            existing = {item_id: current.row} if current else {}
            ledger = PriceLedger.load(conn, kind=table.name, item_id=item_id)
            upsert(conn, table, {**fields, "id": item_id}, ledger, existing)
            dated = ledger.flush()
            if isinstance(body, BenchmarkWrite):
                _replace_results(conn, item_id, body)
            after = _load(conn, kind, item_id, lock=False)
            assert after is not None
            # The row or a benchmark's results changed, or the history did (a back-dated
            # price leaves the row as it was, but past days' answers change).
            if after.data != before or dated:
                bump_revision(conn)
                must_build(conn, f"{kind.name} '{item_id}'")
                audit.append(
                    conn,
                    actor or audit.cli_actor(),
                    "catalog.put",
                    f"{kind.name}/{item_id}",
                    before,
                    after.data,
                )
    except IntegrityError:
        catalog_written(engine)
        raise PreconditionFailed(
            f"{kind.name} '{item_id}' was created or changed by another request meanwhile; "
            "fetch it and retry with its ETag"
        ) from None
    catalog_written(engine)
    return after.data, etag(after.data), current is None


def _date_by_write(
    table_name: str, before: dict[str, Any], fields: dict[str, Any], today: dt.date
) -> None:
    """Date a changed price by the write (``today``) when the body left its as-of date as
    stored: an admin who reads a row, changes its price and sends it back (the seed's date
    still in it) is changing the price now, not on the seed's day. A body that gives a new
    date (a price announced for an earlier or later day) keeps it."""
    for name, cols in PRICE_FIELDS.get(table_name, {}).items():
        if name not in fields or fields[name] == before.get(name):
            continue
        date_col = cols.date if fields.get(cols.date) is not None else "as_of"
        if str(fields.get(date_col)) == str(before.get(date_col)):
            fields[date_col] = today


def _check_dates(table_name: str, fields: dict[str, Any]) -> None:
    """A GPU's used price must be dated after its launch price: the depreciation curves are
    fitted to (age, used / launch price) points, and a used price of the launch day (or
    before it) is no such point. :class:`InvalidRequest` (422) naming both dates."""
    if table_name != table_of(Gpu).name:
        return
    new, used = fields.get("price_new_as_of"), fields.get("price_used_as_of")
    priced = fields.get("price_used_usd") is not None
    if priced and new is not None and used is not None and used <= new:
        raise InvalidRequest(
            f"price_used_as_of ({used}) must be after price_new_as_of ({new}): a used "
            "price is a point of the depreciation curve only at an age above zero"
        )


def _replace_results(conn: Connection, benchmark_id: str, body: BenchmarkWrite) -> None:
    conn.execute(sa_delete(_RESULTS).where(_RESULTS.c.benchmark_id == benchmark_id))
    rows = []
    for r in body.results:
        suffix = f"-x{r.gpu_count}" if r.gpu_count > 1 else ""
        rows.append(
            {
                **r.model_dump(),
                "id": f"{benchmark_id}-{r.gpu_id}{suffix}",
                "benchmark_id": benchmark_id,
                "source": body.source,
                "as_of": body.as_of,
            }
        )
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise InvalidRequest("results: one result per (gpu_id, gpu_count)")
    if rows:
        conn.execute(insert(_RESULTS), rows)


def remove(
    engine: Engine, kind: Kind, item_id: str, if_match: str | None, actor: Actor | None = None
) -> None:
    """Delete a row (its price history is kept), logged in the audit log as ``actor``'s (the
    command line's user when None). 428 without If-Match, 412 when stale, 409 when other rows
    refer to it (a GPU with offers or benchmark results)."""
    table = table_of(kind.table)
    with write_transaction(engine) as conn:
        current = _load(conn, kind, item_id, lock=True)
        if current is None:
            raise NotFound(f"no {kind.name} row with id '{item_id}'")
        _check(kind, item_id, current.data, if_match, None)
        if kind.table is Gpu:
            for ref in (CloudOffer, BenchmarkResult, ColabRate):
                t = table_of(ref)
                n = conn.execute(select(t.c.id).where(t.c.gpu_id == item_id).limit(1)).first()
                if n is not None:
                    raise Conflict(
                        f"gpu '{item_id}' is used by {t.name} rows (e.g. '{n[0]}'); delete them "
                        "first"
                    )
        if kind.table is Benchmark:
            conn.execute(sa_delete(_RESULTS).where(_RESULTS.c.benchmark_id == item_id))
        conn.execute(sa_delete(table).where(table.c.id == item_id))
        bump_revision(conn)
        must_build(conn, f"deleting {kind.name} '{item_id}'")
        target = f"{kind.name}/{item_id}"
        audit.append(conn, actor or audit.cli_actor(), "catalog.delete", target, current.data, None)
    catalog_written(engine)
