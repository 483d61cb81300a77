"""The gpucost ASGI application (``app.main:app``)."""

from __future__ import annotations

import logging
import time

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.routing import APIRoute
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.responses import Response

from app import errors
from app import observability as obs
from app.models.common import problem_response
from app.routers import admin, calc, catalog, charts, compare, health, query, scenarios, slack
from app.settings import get_settings

access = logging.getLogger("gpucost.access")

DESCRIPTION = """
Should this lab rent GPUs in the cloud or buy a desktop, and what will each run cost?

Four answers, each with its assumptions and sources: **break-even days** (desktop vs cloud),
**per-run cost**, **cost per batch item**, and **carbon** (kWh and kg CO2e). Every error is an
RFC 9457 `application/problem+json` document.
"""


def operation_id(route: APIRoute) -> str:
    """Readable, stable operation ids: `{tag}-{handler name}`, e.g. `catalog-list_gpus`."""
    return f"{route.tags[0]}-{route.name}" if route.tags else route.name


def _body_media_types(app: FastAPI) -> dict[str, frozenset[str]]:
    """Path -> media types its POST body may have, from the OpenAPI document (computed once
    per app)."""
    types = getattr(app.state, "body_media_types", None)
    if types is None:
        types = {
            path: frozenset(item["post"]["requestBody"].get("content", {}))
            for path, item in app.openapi()["paths"].items()
            if "requestBody" in item.get("post", {})
        }
        app.state.body_media_types = types
    return types


class RequestGuard(BaseHTTPMiddleware):
    """Refuse request bodies over the configured size with 413 (by Content-Length, and by
    the bytes actually read when the length is absent), and bodies in a media type the
    operation does not take (JSON for the API, form-encoded for Slack) with 415. Every other
    response carries ``Server-Timing: app;dur=<ms>``, the time spent in the application, and
    is counted in the metrics and logged (route template, status, duration in ms). Every
    response, refusals included, carries the request's ``X-Request-ID``
    (:mod:`app.observability`).
    """

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        rid = obs.new_request_id(request.headers.get("x-request-id"))
        obs.request_id.set(rid)
        request.state.request_id = rid
        response = await self._guarded(request, call_next)
        response.headers["X-Request-ID"] = rid  # on every answer, the refusals above too
        return response

    async def _guarded(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        accepted = _body_media_types(request.app).get(request.url.path)
        if request.method == "POST" and accepted:
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            is_json = ctype == "application/json" or ctype.endswith("+json")
            if not (ctype in accepted or (is_json and "application/json" in accepted)):
                return errors.problem(
                    415,
                    "unsupported-media-type",
                    "Unsupported media type",
                    f"send the body as {' or '.join(sorted(accepted))}",
                    request,
                )
        settings = get_settings()
        limit = (
            settings.max_import_bytes
            if request.url.path == "/v1/admin/imports"
            else settings.max_request_body_bytes
        )
        length = request.headers.get("content-length")
        too_big = False
        if length is not None:
            too_big = not length.isdigit() or int(length) > limit
        elif request.method in ("POST", "PUT", "PATCH"):
            too_big = len(await request.body()) > limit
        if too_big:
            return errors.problem(
                413,
                "payload-too-large",
                "Payload too large",
                f"request body exceeds {limit} bytes",
                request,
            )
        started = time.perf_counter()
        response = await call_next(request)
        elapsed = time.perf_counter() - started
        # Server time, for clients and benchmarks (W3C Server Timing).
        response.headers["Server-Timing"] = f"app;dur={elapsed * 1000:.3f}"
        route = request.scope.get("route")
        template = getattr(route, "path", "unmatched")  # bounded label set
        obs.REQUESTS.labels(request.method, template, str(response.status_code)).inc()
        obs.LATENCY.labels(request.method, template).observe(elapsed)
        access.info(
            "%s %s %s %.1f ms",
            request.method,
            template,
            response.status_code,
            elapsed * 1000,
            extra={
                "method": request.method,
                "route": template,
                "status": response.status_code,
                "duration_ms": round(elapsed * 1000, 3),
            },
        )
        return response


def problem_only_errors(app: FastAPI) -> None:
    """Make error responses in the OpenAPI document `application/problem+json` only (FastAPI
    also lists `application/json` for a response `model`)."""
    original = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = original()
        schema["components"]["schemas"].update(slack.openapi_components())
        schema["components"]["schemas"].update(admin.openapi_components())
        for path, item in schema["paths"].items():
            for op in item.values():
                if path not in ("/healthz", "/readyz", "/metrics"):
                    op["responses"].setdefault("503", problem_response(503))
                for status, response in op.get("responses", {}).items():
                    content = response.get("content", {})
                    if status[0] in "45" and "application/problem+json" in content:
                        content.pop("application/json", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app() -> FastAPI:
    app = FastAPI(
        title="gpucost",
        version="1.0.0",
        description=DESCRIPTION,
        generate_unique_id_function=operation_id,
    )
    settings = get_settings()
    obs.configure_logging(settings.log_format, settings.log_level)
    app.add_middleware(RequestGuard)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=[
                "Content-Type",
                "X-API-Key",
                "If-Match",
                "If-None-Match",
                "X-Request-ID",
            ],
            expose_headers=["ETag", "Location", "Server-Timing", "X-Request-ID"],
        )
    errors.install(app)
    app.include_router(health.router)
    app.include_router(catalog.router)
    app.include_router(calc.router)
    app.include_router(compare.router)
    app.include_router(charts.router)
    app.include_router(query.router)
    app.include_router(slack.router)
    app.include_router(scenarios.router)
    app.include_router(admin.router)
    problem_only_errors(app)
    return app


app = create_app()
