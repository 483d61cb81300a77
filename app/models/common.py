"""Shared schema pieces: request-field helpers, dates and the RFC 9457 problem document
(the catalog tables' provenance columns are in :mod:`app.models.provenance`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict

from app.costing.defaults import Default

# The default of a request field that may be left out but not sent as null. Such a field is
# typed without `| None`, so the OpenAPI document (and a generated client) does not allow
# null; at run time None still means "not given". Typed Any so the type checker accepts it.
OMITTED: Any = None


class Describes(Protocol):
    """A registry default or floor (:mod:`app.costing.defaults`, :mod:`app.costing.floors`):
    anything that writes the schema's sentence about itself."""

    def describe(self) -> str: ...


def described(lead: str, entry: Describes, /, *, tail: str = "", **field: Any) -> Any:
    """A request field whose schema description is ``lead``, then the sentence of the
    registry ``entry`` that fills or bounds it (its number, basis, source and as-of date,
    written once in the registry), then ``tail``. ``field``: pydantic ``Field`` arguments;
    ``default`` is :data:`OMITTED` unless given."""
    field.setdefault("default", OMITTED)
    return Field(description=lead + entry.describe() + tail, **field)


def defaulted(lead: str, entry: Default, /, **field: Any) -> Any:
    """A :func:`described` field whose default is the registry ``entry``'s own number (in the
    entry's unit), so the schema states it; ``field``: the other ``Field`` arguments."""
    return described(lead, entry, default=entry.number, **field)


def amount_field(description: str, /, *, le: float, default: Any = OMITTED) -> Any:
    """A request figure that cannot be negative (money, a power, a share, minutes, GB, a
    carbon intensity): from 0 to ``le``, in the unit ``description`` names. ``default``: :data:`OMITTED` (may be left out,
    never null) unless given (``None`` for a figure that is off when omitted)."""
    return Field(default=default, ge=0, le=le, description=description)


def currency_twin(usd_field: str, /, *, le: float) -> Any:
    """The :func:`amount_field` that gives the USD figure ``usd_field`` in the request's
    ``currency`` instead (converted at the request's rate; at most one of the two is given)."""
    return amount_field(f"`{usd_field}` in the request's `currency`.", le=le)


def _iso_date_string(value: Any) -> Any:
    """Let only a string through to date parsing: pydantic's lax mode would read a number as a
    Unix timestamp (``0`` -> 1970-01-01)."""
    if not isinstance(value, (str, dt.date)):
        raise ValueError("expected an ISO 8601 date string, YYYY-MM-DD")
    return value


# A date in a request body: `YYYY-MM-DD` only, accepted even by strict models.
IsoDate = Annotated[dt.date, Strict(False), BeforeValidator(_iso_date_string)]


def described_by(*models: type[BaseModel]) -> Callable[[type[BaseModel]], type[BaseModel]]:
    """Class decorator: give each field without a description the description the same field
    has in ``models`` (the catalog's own schemas), so a write body states units once, where
    the read schema does."""

    def fill(cls: type[BaseModel]) -> type[BaseModel]:
        for name, info in cls.model_fields.items():
            if info.description is None:
                info.description = next(
                    (m.model_fields[name].description for m in models if name in m.model_fields),
                    None,
                )
        cls.model_rebuild(force=True)
        return cls

    return fill


class ProblemError(BaseModel):
    """One validation error: where (`loc`, a path of field names and list indexes), what."""

    loc: list[str] = Field(description='Path to the field, e.g. `["body", "desktop", "gpu"]`.')
    msg: str = Field(description="What is wrong.")
    type: str = Field(description="Error type, e.g. `greater_than`.")


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
    errors: list[ProblemError] | None = Field(
        default=None,
        description="Validation errors: each has `loc` (field path), `msg` and `type`.",
    )
    candidates: list[str] | None = Field(
        default=None, description="For unknown or ambiguous names: the closest catalog ids."
    )
    request_id: str | None = Field(default=None, description="Id of the request, for support.")
    suggestions: list[str] | None = Field(
        default=None, description="For a query not understood: did-you-mean catalog ids."
    )
    ignored: list[str] | None = Field(
        default=None, description="For a query not understood: the words it did not use."
    )
    examples: list[str] | None = Field(
        default=None, description="For a query not understood: queries that work."
    )
    current_etag: str | None = Field(
        default=None, description="For 412 and 428: the resource's current `ETag`."
    )
    retry_after_s: int | None = Field(
        default=None,
        description="For 429 and 503: seconds until trying again makes sense (also the "
        "`Retry-After` header).",
    )


_PROBLEM_CONTENT = {
    "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
}


def problem_response(code: int) -> dict[str, Any]:
    """The OpenAPI response object of a problem status, as plain JSON (for editing the
    generated document, where FastAPI's ``model`` key cannot go)."""
    return {"description": PROBLEM_RESPONSES[code]["description"], "content": _PROBLEM_CONTENT}


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem, "description": description, "content": _PROBLEM_CONTENT}
    for code, description in {
        400: "Malformed request (the body is not parseable).",
        401: "Missing, malformed, stale, replayed or wrongly signed Slack request (or no "
        "signing secret configured).",
        404: "Unknown id or name (`candidates` lists close ids), or a figure the catalog "
        "lacks (`not-in-catalog`: give it in the request).",
        405: "Method not allowed.",
        403: "The API key lacks the scope this operation needs.",
        409: "Conflict: the id is in use, or other catalog rows refer to it.",
        412: "`If-Match` names a version that is no longer current (`current_etag`).",
        413: "Request body too large.",
        415: "Request body is not `application/json`.",
        428: "Updates and deletes need `If-Match` with the resource's `ETag`.",
        431: "The request's head (path, query string and headers) is over "
        "`GPUCOST_MAX_HEADER_BYTES` (16 KiB by default).",
        429: "Too many requests: the caller's rate limit (`rate-limited`: per API key, else per "
        "client address; see `X-RateLimit-*`) or, when saving, its quota of stored objects "
        "(`quota-exceeded`). Retry after `Retry-After` seconds.",
        422: "Invalid input (`errors` gives field paths), or an ambiguous name "
        "(`candidates` lists the matches).",
        500: "Unexpected error; `request_id` identifies it in the logs.",
        503: "The database is unavailable (restarting, unreachable or out of connections); "
        "retry after `Retry-After` seconds.",
    }.items()
}


Responses = dict[int | str, dict[str, Any]]  # an operation's `responses=`


def problems(*codes: int) -> Responses:
    """The documented problem responses of ``codes`` (from :data:`PROBLEM_RESPONSES`)."""
    return {code: PROBLEM_RESPONSES[code] for code in codes}


# 503 of the charts, reports, sweeps and fleet plans: the worker's bound on them is reached.
BUSY_RESPONSE: dict[str, Any] = {
    "model": Problem,
    "description": "Busy: this worker is computing as many charts, reports, sweeps or fleet "
    "plans as it runs and queues (`GPUCOST_RENDER_MAX_RUNNING`, `GPUCOST_RENDER_MAX_WAITING`); "
    "retry after `Retry-After` seconds.",
    "content": _PROBLEM_CONTENT,
}

# 401 and 403 of the operations that need an `X-API-Key` (admin and scenario writes).
KEY_RESPONSES: Responses = {
    401: {
        **PROBLEM_RESPONSES[401],
        "description": "No `X-API-Key`, or one that is unknown, revoked or expired.",
    },
    403: PROBLEM_RESPONSES[403],
}
