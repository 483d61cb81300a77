"""Liveness and readiness."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from functools import cache

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy import Connection, text

from app.api.lean import LeanRoute
from app.api.responses import json_bytes_answer
from app.catalog.live import live_catalog
from app.costing.defaults import PRICE_FRESH_DAYS
from app.db import alembic_config, get_engine
from app.models.chargeback import SlurmPricingRequest
from app.models.refresh import CatalogStatus, ProviderStatus
from app.observability import (
    LAST_REFRESH,
    OWNED_RATE,
    PRICE_AGE_DAYS,
    degraded,
    metrics_body,
)
from app.settings import get_settings
from app.store.refresh import catalog_status
from app.usecases import slurm_pricing

# /healthz answers on the lean path (app.api.lean); the sync probes are FastAPI routes as before.
router = APIRouter(tags=["health"], route_class=LeanRoute)


class Health(BaseModel):
    status: str = Field(
        description="`ok` when healthy; `degraded` (readiness, 200) when it answers with a "
        "fallback (see `degraded`); `unavailable` (503) when it cannot answer."
    )
    database: str | None = Field(default=None, description="Database check result.")
    revision: str | None = Field(default=None, description="Database migration revision.")
    head: str | None = Field(default=None, description="Latest migration revision.")
    degraded: dict[str, str] | None = Field(
        default=None,
        description="Readiness only: this worker's components running degraded and why "
        "(`catalog`: the newest revision cannot be built and the last good view answers; "
        "`rate_limits`: Redis unreachable, limits counted per worker). The worker still "
        "answers (200, `status` `degraded`); null when none is.",
    )
    prices: list[ProviderStatus] | None = Field(
        default=None,
        description="Per provider: the newest current price's date and age, and the last "
        "`gpucost catalog refresh` (readiness only; the same as `GET /v1/catalog/status`).",
    )


# Seconds a price status is reused: its figures are days and refresh times, and a probe or
# scraper polled at any rate then costs one catalog query per this span, not one per call.
PRICE_STATUS_TTL_S = 10.0
_price_status: tuple[float, CatalogStatus] | None = None


def price_status() -> CatalogStatus:
    """The catalog's price ages and last refreshes, with the metrics gauges set from them;
    read at most once per :data:`PRICE_STATUS_TTL_S`."""
    global _price_status
    found = _price_status
    if found is not None and time.monotonic() - found[0] < PRICE_STATUS_TTL_S:
        return found[1]
    status = _read_price_status()
    _price_status = (time.monotonic(), status)
    return status


def _read_price_status() -> CatalogStatus:
    today = dt.datetime.now(dt.UTC).date()
    status = catalog_status(get_engine(), PRICE_FRESH_DAYS, today)
    for p in status.providers:
        if p.newest_price_age_days is not None:
            PRICE_AGE_DAYS.labels(p.provider).set(p.newest_price_age_days)
        LAST_REFRESH.labels(p.provider).set(
            p.last_success_at.timestamp() if p.last_success_at else 0
        )
    return status


_owned_rates_at = 0.0


def owned_rates_of_machines_file() -> None:
    """Set the owned-rate gauge from the server's machines file over the current catalog
    view; at most once per :data:`PRICE_STATUS_TTL_S`, and not without a file."""
    global _owned_rates_at
    settings = get_settings()
    if settings.machines_file is None or time.monotonic() - _owned_rates_at < PRICE_STATUS_TTL_S:
        return
    _owned_rates_at = time.monotonic()
    view = live_catalog(get_engine(), settings.catalog_poll_interval_s).view
    OWNED_RATE.clear()  # a partition gone from the file leaves no series behind
    for p in slurm_pricing.slurm_prices(view, SlurmPricingRequest(), settings):
        OWNED_RATE.labels(p.gpu_id or p.accelerator_name, p.cluster, p.partition, p.site or "").set(
            p.price_usd_per_gpu_hour
        )


_LIVE = Health(status="ok").model_dump_json().encode()  # the one liveness answer


@router.get("/healthz", response_model=Health, summary="Liveness")
async def get_health() -> Response:
    """The process is up."""
    return json_bytes_answer(_LIVE)


@router.get(
    "/metrics",
    response_class=Response,
    summary="Prometheus metrics",
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
def get_metrics() -> Response:
    """Requests by method, route and status, latency histograms, catalog revision and
    snapshot builds, each provider's price age (`gpucost_catalog_price_age_days`) and last
    successful refresh, in Prometheus text format (summed over workers when
    `PROMETHEUS_MULTIPROC_DIR` is set)."""
    # the other metrics still answer while the database is down
    with contextlib.suppress(Exception):
        price_status()
    with contextlib.suppress(Exception):  # an invalid machines file: /readyz and logs say so
        owned_rates_of_machines_file()
    body, media_type = metrics_body()
    return Response(body, media_type=media_type)


@router.get(
    "/readyz",
    response_model=Health,
    summary="Readiness",
    responses={503: {"model": Health, "description": "Database unreachable or behind."}},
)
def get_ready() -> Health | JSONResponse:
    """The database answers and its schema is at the latest migration; components running
    on a fallback are listed in `degraded` (still 200: the worker answers)."""
    head = migration_head()
    try:
        with get_engine().connect() as conn:
            conn.execute(text("SELECT 1"))
            current = _current_revision(conn)
    except Exception as exc:  # noqa: BLE001 - any driver error means not ready
        return JSONResponse(
            Health(status="unavailable", database=type(exc).__name__, head=head).model_dump(),
            status_code=503,
        )
    if current != head:
        return JSONResponse(
            Health(status="unavailable", database="ok", revision=current, head=head).model_dump(),
            status_code=503,
        )
    down = degraded()
    return Health(
        status="degraded" if down else "ok",
        database="ok",
        revision=current,
        head=head,
        degraded=down or None,
        prices=price_status().providers,
    )


@cache
def migration_head() -> str | None:
    """The newest migration of this build (read from the scripts once per process: they do
    not change while it runs, and reading them took 12-28 ms of every ``/readyz``)."""
    # Imported here: alembic is ~0.1 s of every worker's start-up, used only by this probe.
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _current_revision(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()
