"""The gpucost ASGI application (``app.main:app``)."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from sqlalchemy.exc import SQLAlchemyError
from starlette.routing import Route
from starlette.staticfiles import StaticFiles

from app import observability as obs
from app.api import problems
from app.api.edge import Edge
from app.api.middleware import DOCS_ASSETS, PROBES
from app.api.proxy import TrustedProxies
from app.api.rate_limit import EXEMPT
from app.catalog.live import freeze_heap, live_catalog
from app.db import get_engine
from app.errors import CatalogUnavailable, Misconfigured
from app.integrations.mcp_endpoint import MCP_PATH, McpEndpoint
from app.models.common import problem_response
from app.query.warm import warm_up
from app.render import draw_pool
from app.routers import (
    admin,
    calc,
    catalog,
    chargeback,
    charts,
    compare,
    health,
    llm,
    owned_rates,
    pages,
    plan,
    query,
    saved,
    scenarios,
    slack,
    slack_events,
)
from app.settings import get_settings
from app.steps.lab_machines import configured_machines

log = logging.getLogger("gpucost")

DESCRIPTION = """
Should this lab rent GPUs in the cloud or buy a desktop, and what will each run cost?

Four answers, each with its assumptions and sources: **break-even days** (desktop vs cloud),
**per-run cost**, **cost per batch item**, and **carbon** (kWh and kg CO2e). Every error is an
RFC 9457 `application/problem+json` document.
"""


def operation_id(route: APIRoute) -> str:
    """Readable, stable operation ids: `{tag}-{handler name}`, e.g. `catalog-list_gpus`."""
    return f"{route.tags[0]}-{route.name}" if route.tags else route.name


def problem_only_errors(app: FastAPI) -> None:
    """Make error responses in the OpenAPI document `application/problem+json` only (FastAPI
    also lists `application/json` for a response `model`)."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = original()
        schema["components"]["schemas"].update(slack.openapi_components())
        schema["components"]["schemas"].update(admin.openapi_components())
        for path, item in schema["paths"].items():
            for op in item.values():
                if path not in PROBES:
                    op["responses"].setdefault("503", problem_response(503))
                if path not in EXEMPT:
                    op["responses"].setdefault("429", problem_response(429))
                # Any request whose head (path, query, headers) is over the bound.
                op["responses"].setdefault("431", problem_response(431))
                for status, response in op.get("responses", {}).items():
                    content = response.get("content", {})
                    if status[0] in "45" and "application/problem+json" in content:
                        content.pop("application/json", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it


GIL_SWITCH_INTERVAL_S = 0.001
# Seconds after start-up before the drawing processes start: the cold-start budget (a
# worker answers its first break-even within 2 s of being spawned) is spent first.
WARM_UP_AFTER_S = 2.0


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start-up: read the catalog into memory (and start the revision poller) and warm it
    (:func:`app.query.warm.warm_up`), so the first requests do not wait for either, then
    freeze the heap (:func:`app.catalog.live.freeze_heap`, unless ``freeze_heap`` is off). A database that is not ready yet
    is logged, not fatal:
    `/readyz` says so, and the first calculation reads the catalog once it is. A catalog
    that cannot be built into a view stops the start with its reason (logged and raised)."""
    settings = get_settings()
    # CPU work runs in threads (app/render/gate.py) that hold the interpreter lock; the event
    # loop waits at most this long for it when it has a request to answer (Python's default,
    # 5 ms, makes /healthz wait behind a flood of chat questions).
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    catalog_live = live_catalog(get_engine(), settings.catalog_poll_interval_s)
    try:
        view = await run_in_threadpool(lambda: catalog_live.view)
        await run_in_threadpool(warm_up, view, settings)
        configured_machines(settings)  # an invalid machines file stops the start
        if settings.freeze_heap:
            freeze_heap()
    except SQLAlchemyError as exc:
        log.warning("catalog not read at start-up (%s); will retry on first use", exc)
    except Misconfigured as exc:
        log.critical("cannot start: %s", exc.detail)
        raise SystemExit(f"gpucost cannot start: {exc.detail}") from None
    except CatalogUnavailable as exc:
        # Nothing could be answered: stop with the reason rather than serve 503s.
        log.critical("cannot start: %s", exc.detail)
        raise SystemExit(f"gpucost cannot start: {exc.detail}") from None
    pool = draw_pool.installed()
    warming = None
    if pool is not None:
        # Start the drawing processes once the worker is answering, not while it starts:
        # they compete for the same cores (spawned Pythons importing matplotlib).
        loop = asyncio.get_running_loop()
        warming = loop.call_later(WARM_UP_AFTER_S, lambda: loop.run_in_executor(None, pool.warm_up))
    async with app.state.mcp.running():
        yield
    if settings.freeze_heap:
        gc.unfreeze()  # what the worker froze collectable again once it stops
    if warming is not None:
        warming.cancel()
    if pool is not None:
        # Stop the drawing processes with the worker (waits for drawings in flight), rather
        # than leave them to the interpreter's exit.
        await run_in_threadpool(pool.close)


# Each router module's `router`, in the order requests are matched: the hot paths first.
# The pages' static files (vendored htmx), packaged with the app (pyproject package-data).
STATIC = Path(__file__).resolve().parent / "static"
ROUTERS = (
    health, calc, owned_rates, llm, query, slack, slack_events, compare, plan, catalog, charts,
    scenarios, admin, chargeback, pages, saved,
)  # fmt: skip


def create_app() -> FastAPI:
    """The application: routers, the edge (:class:`app.api.edge.Edge`), CORS when
    configured, problem+json errors and the start-up catalog read."""
    # fastapi-offline: /docs (Swagger UI 5) and /redoc (ReDoc 2) load their scripts, styles
    # and favicon from DOCS_ASSETS in this service, never from a CDN (labs without internet).
    app = FastAPIOffline(
        title="gpucost",
        version="1.0.0",
        description=DESCRIPTION,
        generate_unique_id_function=operation_id,
        lifespan=lifespan,
        static_url=DOCS_ASSETS,
    )
    settings = get_settings()
    obs.configure_logging(settings.log_format, settings.log_level)
    if settings.render_processes:
        draw_pool.install(settings.render_max_running, settings.render_timeout_s)
    # One pure ASGI layer: request id, body checks, rate limits, security headers,
    # Server-Timing, metrics and the access line (app.api.edge).
    app.add_middleware(Edge)
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
            expose_headers=[
                "ETag",
                "Location",
                "Retry-After",
                "Server-Timing",
                "X-Request-ID",
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset",
            ],
        )
    # Outermost: forwarded client addresses (for the rate limits inside) and the SSO user,
    # from the trusted proxies only, judged on the raw peer address.
    app.add_middleware(
        TrustedProxies,
        trusted=settings.forwarded_allow_ips,
        user_header=settings.sso_user_header,
        groups_header=settings.sso_groups_header,
        lab_groups=settings.sso_lab_groups,
    )
    problems.install(app)
    # Routes are matched in order, one router after another: the hot paths first.
    for module in ROUTERS:
        app.include_router(module.router)
    # The pages' vendored browser code (app/static/vendor/README.md), from this origin only.
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # The MCP server (app.integrations.mcp_endpoint): each tool call goes through this app.
    app.state.mcp = McpEndpoint(app)
    app.router.routes.append(
        Route(MCP_PATH, endpoint=app.state.mcp, methods=["GET", "POST", "DELETE"])
    )
    problem_only_errors(app)
    return app


app = create_app()
