"""Domain errors and their one JSON shape: RFC 9457 ``application/problem+json``.

Services raise the domain errors below (no HTTP in them); :func:`install` maps them, request
validation errors, unknown routes and unexpected exceptions to problem documents. A 500 never
carries a stack trace, only a request id.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.costing import CostingError

log = logging.getLogger("gpucost")

PROBLEM_BASE = "https://gpucost.dev/problems/"
PROBLEM_JSON = "application/problem+json"


class DomainError(Exception):
    """Base of errors the API reports as problems."""

    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(DomainError):
    """An id or name is not in the catalog (``candidates``: the closest ids)."""

    status, slug, title = 404, "not-found", "Not found"


class Ambiguous(DomainError):
    """A name matches several catalog entries (``candidates``: the matches)."""

    status, slug, title = 422, "ambiguous-name", "Ambiguous name"


class InvalidRequest(DomainError):
    """Inputs are individually valid but do not make a computable request."""

    status, slug, title = 422, "invalid-input", "Invalid input"


class CatalogGap(DomainError):
    """The request is valid but needs a figure the catalog does not have (a barebone for 12
    GPUs, a GPU's price, a region's electricity price); the detail names the request field
    that supplies it."""

    status, slug, title = 404, "not-in-catalog", "Not in the catalog"


class Unauthorized(DomainError):
    """No API key, or one that is unknown, revoked or expired (answered with ``WWW-Authenticate``)."""

    status, slug, title = 401, "unauthorized", "Unauthorized"


class Forbidden(DomainError):
    """The API key lacks the scope the operation needs."""

    status, slug, title = 403, "forbidden", "Forbidden"


class Conflict(DomainError):
    """The write would break the catalog (an id in use, a row others refer to)."""

    status, slug, title = 409, "conflict", "Conflict"


class PreconditionFailed(DomainError):
    """``If-Match`` names a version that is no longer current (``current_etag``)."""

    status, slug, title = 412, "precondition-failed", "Precondition failed"


class PreconditionRequired(DomainError):
    """An update or delete came without ``If-Match`` (``current_etag`` says what to send)."""

    status, slug, title = 428, "precondition-required", "Precondition required"


class QuotaExceeded(DomainError):
    """The caller holds as many stored objects as its quota allows (``retry_after_s``: when
    to try again, after deleting some)."""

    status, slug, title = 429, "quota-exceeded", "Quota exceeded"


class NotUnderstood(DomainError):
    """A plain-language query could not be turned into a request (``suggestions``: did you
    mean; ``ignored``: words not understood; ``examples``: queries that work)."""

    status, slug, title = 422, "query-not-understood", "Query not understood"


def problem(
    status: int, slug: str, title: str, detail: str, request: Request, **extra: Any
) -> JSONResponse:
    """A problem+json response."""
    body = {
        "type": PROBLEM_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request.url.path,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON)


def _jsonable_errors(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "loc": [str(p) for p in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in errors
    ]


def _allowed_methods(request: Request) -> str:
    """Every method the path takes, across routes: Starlette's 405 lists only the first
    route that matched the path, and a path here can have one route per method."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match != Match.NONE and getattr(route, "methods", None):
            methods |= set(route.methods)
    return ", ".join(sorted(methods))


HTTP_SLUGS = {
    400: ("malformed-body", "Malformed request body"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    413: ("payload-too-large", "Payload too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
}


async def _domain(request: Request, exc: DomainError) -> JSONResponse:
    response = problem(exc.status, exc.slug, exc.title, exc.detail, request, **exc.extra)
    if exc.status == 401:
        response.headers["WWW-Authenticate"] = 'ApiKey header="X-API-Key"'
    if "current_etag" in exc.extra:
        response.headers["ETag"] = exc.extra["current_etag"]
    if exc.status in (429, 503):
        # Every 429/503 raiser names its own wait; a minute is only a fallback.
        response.headers["Retry-After"] = str(exc.extra.get("retry_after_s", 60))
    return response


async def _costing(request: Request, exc: CostingError) -> JSONResponse:
    errors = (
        [{"loc": [exc.field], "msg": exc.message, "type": "value_error"}] if exc.field else None
    )
    return problem(422, "invalid-input", "Invalid input", exc.message, request, errors=errors)


async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = _jsonable_errors(list(exc.errors()))
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(part) for part in first["loc"])
    detail = f"{where}: {first['msg']}" if where else str(first["msg"])
    return problem(
        422, "validation-error", "Request validation failed", detail, request, errors=errors
    )


async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    slug, title = HTTP_SLUGS.get(exc.status_code, ("http-error", "HTTP error"))
    response = problem(exc.status_code, slug, title, str(exc.detail), request)
    for key, value in (exc.headers or {}).items():
        response.headers[key] = value
    if exc.status_code == 405:
        response.headers["Allow"] = _allowed_methods(request)
    return response


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    """The database is unreachable, restarting or out of connections: a fast 503 the client
    may retry, never a 500 or a hang."""
    from app.observability import DATABASE_ERRORS

    DATABASE_ERRORS.inc()
    log.warning("database unavailable: %s", type(exc).__name__)
    response = problem(
        503,
        "database-unavailable",
        "Database unavailable",
        "the catalog database is not answering; retry shortly",
        request,
    )
    response.headers["Retry-After"] = "1"
    return response


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    request_id = getattr(request.state, "request_id", None) or uuid.uuid4().hex
    log.exception("unhandled error, request_id=%s", request_id)
    return problem(
        500,
        "internal-error",
        "Internal server error",
        "The server failed to answer this request; it has been logged.",
        request,
        request_id=request_id,
    )


HANDLERS: tuple[tuple[type[Exception], Any], ...] = (
    (DomainError, _domain),
    (CostingError, _costing),
    (RequestValidationError, _validation),
    (StarletteHTTPException, _http),
    (OperationalError, _database_down),
    (InterfaceError, _database_down),
    (SATimeoutError, _database_down),
    (Exception, _unexpected),
)


def install(app: FastAPI) -> None:
    """Register the exception handlers (:data:`HANDLERS`) on ``app``."""
    for exc_type, handler in HANDLERS:
        app.add_exception_handler(exc_type, handler)
