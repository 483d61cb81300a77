"""The audit log (table ``audit_event``) and its answer on `GET /v1/admin/audit`.

An event is appended in the same transaction as the change it records (a catalog write,
delete, import or refresh, an API key created or revoked, a scenario saved, shared with a lab
or deleted), so the log never tells of a change
that was rolled back, nor misses one that was kept.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

AuditAction = Literal[
    "catalog.put",
    "catalog.delete",
    "catalog.import",
    "catalog.refresh",
    "key.create",
    "key.revoke",
    "scenario.create",
    "scenario.delete",
]
AUDIT_ACTIONS: tuple[str, ...] = AuditAction.__args__  # type: ignore[attr-defined]


class AuditEvent(SQLModel, table=True):
    """One change, as it was kept: who, what, before and after, when."""

    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True, description="Sequence number.")
    at: dt.datetime = Field(index=True, description="When the change was committed (UTC).")
    actor: str = Field(
        max_length=200,
        description="Who: `key:<id>` (an API key), `user:<name>` (signed in through the "
        "institution's proxy) or `cli:<os user>` (the command line, `gpucost catalog "
        "refresh` included).",
    )
    actor_name: str | None = Field(
        default=None, max_length=200, description="The API key's name; null otherwise."
    )
    action: str = Field(max_length=32, index=True, description="One of `AuditAction`.")
    target: str = Field(
        max_length=400,
        description="What: `<kind>/<id>` for a catalog row, `import/<file>`, "
        "`refresh/<provider>`, `key/<id>`, `scenario/<id>`.",
    )
    before: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True), description="State before."
    )
    after: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True), description="State after."
    )


class AuditEventOut(BaseModel):
    """One audit event as answered."""

    id: int = PydanticField(description="Sequence number (ascending with time).")
    at: dt.datetime = PydanticField(description="When the change was committed (UTC).")
    actor: str = PydanticField(
        description="Who: `key:<id>` (an API key), `user:<name>` (signed in through the "
        "institution's proxy) or `cli:<os user>` (the command line, `gpucost catalog "
        "refresh` included)."
    )
    actor_name: str | None = PydanticField(description="The API key's name; null otherwise.")
    action: AuditAction = PydanticField(description="What kind of change.")
    target: str = PydanticField(
        description="What changed: `<kind>/<id>`, `import/<file>`, `refresh/<provider>`, "
        "`key/<id>`, `scenario/<id>`."
    )
    before: dict[str, Any] | None = PydanticField(
        description="The state before (a catalog row as `GET /v1/admin/...` shows it, a key's "
        "name, scopes and dates, a provider's previous refresh, a scenario's name, kind and "
        "lab); null when it did not exist."
    )
    after: dict[str, Any] | None = PydanticField(
        description="The state after (for an import: its counts and files); null when deleted."
    )


class AuditPage(BaseModel):
    """A page of the audit log, newest first."""

    events: list[AuditEventOut] = PydanticField(description="Events, newest first.")
    next_before_id: int | None = PydanticField(
        description="Pass as `before_id` for the next (older) page; null on the last page."
    )
