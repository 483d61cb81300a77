"""Append to and read the audit log (:class:`app.models.audit.AuditEvent`).

Writers call :func:`append` on the connection of the transaction that makes the change, so
the event and the change are kept together or not at all. Reads page the log newest first by
its sequence number (``before_id``), which stays stable while events are appended.
"""

from __future__ import annotations

import datetime as dt
import getpass
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.engine import Connection

from app.models.audit import AuditEvent, AuditEventOut
from app.models.provenance import table_of

_EVENTS = table_of(AuditEvent)


@dataclass(frozen=True)
class Actor:
    """Who makes a change: ``id`` (``key:<id>``, ``user:<name>`` or ``cli:<user>``) and a
    name (an API key's)."""

    id: str
    name: str | None = None


def key_actor(key_id: str, name: str) -> Actor:
    """The holder of API key ``key_id`` (named ``name``)."""
    return Actor(f"key:{key_id}", name)


def user_actor(user: str) -> Actor:
    """A user signed in through the institution's proxy."""
    return Actor(f"user:{user}"[:200])


def cli_actor() -> Actor:
    """Whoever runs the command line: the operating system's user name (``cli:unknown``
    when the process has none, e.g. a container started under a bare numeric uid)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER
        user = "unknown"
    return Actor(f"cli:{user}"[:200])


def append(
    conn: Connection,
    actor: Actor,
    action: str,
    target: str,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    at: dt.datetime | None = None,
) -> None:
    """Append one event in ``conn``'s transaction (committed or rolled back with it).
    ``before`` and ``after`` must be JSON-serializable."""
    moment = at or dt.datetime.now(dt.UTC)
    conn.execute(
        insert(_EVENTS).values(
            at=moment.astimezone(dt.UTC),
            actor=actor.id,
            actor_name=actor.name,
            action=action,
            target=target[:400],
            before=before,
            after=after,
        )
    )


def page(
    engine: Engine,
    *,
    before_id: int | None = None,
    limit: int = 100,
    action: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
) -> tuple[list[AuditEventOut], int | None]:
    """Up to ``limit`` events, newest first, older than ``before_id`` (all when None), of
    ``action`` (any when None), committed at or after ``since`` and before ``until`` (UTC);
    returns them and the ``before_id`` of the next page (None on the last)."""
    stmt = select(_EVENTS).order_by(_EVENTS.c.id.desc()).limit(limit + 1)
    if before_id is not None:
        stmt = stmt.where(_EVENTS.c.id < before_id)
    if action is not None:
        stmt = stmt.where(_EVENTS.c.action == action)
    if since is not None:
        stmt = stmt.where(_EVENTS.c.at >= _utc(since))
    if until is not None:
        stmt = stmt.where(_EVENTS.c.at < _utc(until))
    with engine.connect() as conn:
        rows = conn.execute(stmt).all()
    events = [AuditEventOut(**{**r._mapping, "at": _utc(r.at)}) for r in rows[:limit]]
    more = len(rows) > limit
    return events, (events[-1].id if more and events else None)


def _utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` as an aware UTC time (a naive one, as SQLite returns it, is taken as UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)
