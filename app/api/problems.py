"""Every error as one JSON shape: RFC 9457 ``application/problem+json``.

:func:`install` maps the domain errors (:mod:`app.errors`), the model's
:class:`~app.costing.CostingError`, request validation errors, unknown routes, database
outages and unexpected exceptions to problem documents. A 500 never carries a stack trace,
only a request id.
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
from app.errors import DomainError
from app.observability import DATABASE_ERRORS

log = logging.getLogger("gpucost")

PROBLEM_BASE = "https://gpucost.dev/problems/"
PROBLEM_JSON = "application/problem+json"


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
    431: ("headers-too-large", "Request header fields too large"),
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
