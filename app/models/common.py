"""Shared schema pieces: provenance fields, pagination and the RFC 9457 problem document."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import SQLModel

# Stable constraint names, so Alembic migrations are reproducible on SQLite and PostgreSQL.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Provenance(SQLModel):
    """Where a catalog row comes from."""

    source: str = Field(description="URL or file the row's figures come from.", max_length=2000)
    as_of: dt.date = Field(description="Date the row's figures held (ISO 8601).")


class Problem(BaseModel):
    """An error, as an RFC 9457 ``application/problem+json`` document.

    Every 4xx and 5xx answer of this API has this shape.
    """

    model_config = ConfigDict(extra="allow")

    type: str = Field(
        description="URI naming the problem type, e.g. `https://gpucost.dev/problems/not-found`."
    )
    title: str = Field(description="Short summary of the problem type.")
    status: int = Field(description="HTTP status code.", ge=400, le=599)
    detail: str = Field(description="What went wrong in this request.")
    instance: str | None = Field(default=None, description="The request path.")
    errors: list[dict[str, Any]] | None = Field(
        default=None,
        description="Validation errors: each has `loc` (field path), `msg` and `type`.",
    )
    candidates: list[str] | None = Field(
        default=None, description="For unknown or ambiguous names: the closest catalog ids."
    )
    request_id: str | None = Field(default=None, description="Id of the request, for support.")


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": Problem,
        "description": "Malformed request.",
        "content": {"application/problem+json": {}},
    },
    404: {
        "model": Problem,
        "description": "Unknown id or name; `candidates` lists close ids.",
        "content": {"application/problem+json": {}},
    },
    422: {
        "model": Problem,
        "description": "Invalid input, or an ambiguous name (`candidates` lists the matches).",
        "content": {"application/problem+json": {}},
    },
}
