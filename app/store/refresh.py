"""`gpucost catalog refresh`: each provider's newest SkyPilot catalog file, through the
integrity gate (:func:`app.catalog.refresh.gate`), into the catalog by the transactional import
(:func:`app.store.imports.apply`, one transaction per provider), and the outcome recorded in
``catalog_refresh``. A provider whose file is missing, unreadable or refused keeps its previous
prices. Also the status read by ``/readyz``, ``/metrics`` and ``GET /v1/catalog/status``."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from app.catalog.importer import ImportError_
from app.catalog.refresh import (
    Download,
    GateBounds,
    SourceError,
    catalog_path,
    gate,
    parse_file,
    read_source,
)
from app.db import write_transaction
from app.models import CloudOffer
from app.models.common import table_of
from app.models.refresh import CatalogRefresh, CatalogStatus, ProviderStatus, RefreshOutcome
from app.store.imports import apply

_OFFERS = table_of(CloudOffer)
_RUNS = table_of(CatalogRefresh)


@dataclass(frozen=True)
class ProviderResult:
    """What one provider's refresh did: ``outcome``, why (``message``), offers in the file,
    price points added, and the file's URL or path."""

    provider: str
    outcome: RefreshOutcome
    message: str
    offers: int = 0
    price_points_added: int = 0
    source: str = ""


def _previous(conn: Connection, provider: str) -> tuple[dict[str, float], int]:
    """The provider's current prices by id, and how many offers its last version had: the
    last refresh's count, else its offers read from a SkyPilot file."""
    rows = conn.execute(
        select(_OFFERS.c.id, _OFFERS.c.price_usd_per_hour, _OFFERS.c.source).where(
            _OFFERS.c.provider == provider
        )
    ).all()
    prices = {r.id: float(r.price_usd_per_hour) for r in rows}
    last = conn.execute(
        select(_RUNS.c.offers).where(
            _RUNS.c.provider == provider, _RUNS.c.succeeded_at.is_not(None)
        )
    ).scalar_one_or_none()
    shipped = sum("skypilot-catalog" in (r.source or "") for r in rows)
    return prices, int(last) if last else shipped


def refresh_provider(
    engine: Engine,
    provider: str,
    base: str,
    bounds: GateBounds,
    download: Download,
    today: dt.date,
) -> ProviderResult:
    """Download, check and (if it passes) import one provider's file; never raises for a
    bad file (the result says why)."""
    try:
        data, source = read_source(base, catalog_path(provider), download)
        parsed = parse_file(provider, source, data, today)
    except SourceError as exc:
        return ProviderResult(provider, "failed", str(exc))
    except ImportError_ as exc:
        return ProviderResult(provider, "refused", f"schema: {exc}", source=base)
    with engine.connect() as conn:
        prices, count = _previous(conn, provider)
    reason = gate(parsed, prices, count, bounds)
    if reason:
        return ProviderResult(provider, "refused", reason, len(parsed.offers), source=source)
    report = apply(engine, [parsed], restate=True)
    counts = report.counts(provider)
    moved = report.price_points_added or counts["added"]
    outcome: RefreshOutcome = "refreshed" if moved else "unchanged"
    message = (
        f"{counts['added']} added, {counts['changed']} restated, {counts['unchanged']} the "
        f"same, {counts['rejected']} rejected (GPU not in the catalog); "
        f"{report.price_points_added} price points added"
    )
    return ProviderResult(
        provider, outcome, message, len(parsed.offers), report.price_points_added, source
    )


def record(engine: Engine, result: ProviderResult, now: dt.datetime) -> None:
    """Store ``result`` as the provider's last refresh (one transaction)."""
    ok = result.outcome in ("refreshed", "unchanged")
    with write_transaction(engine) as conn:
        old = conn.execute(select(_RUNS).where(_RUNS.c.provider == result.provider)).first()
        values = {
            "attempted_at": now,
            "outcome": result.outcome,
            "message": result.message[:4000],
            "source": result.source[:2000],
            "offers": result.offers if ok or old is None else old.offers,
            "succeeded_at": now if ok else (old.succeeded_at if old else None),
        }
        if old is None:
            conn.execute(_RUNS.insert().values(provider=result.provider, **values))
        else:
            conn.execute(_RUNS.update().where(_RUNS.c.provider == result.provider).values(values))


def refresh(
    engine: Engine,
    providers: list[str],
    base: str,
    bounds: GateBounds = GateBounds(),
    download: Download = Download(),
    now: dt.datetime | None = None,
) -> list[ProviderResult]:
    """Refresh each provider in turn; each result is recorded as soon as it is known."""
    now = now or dt.datetime.now(dt.UTC)
    results = []
    for provider in providers:
        result = refresh_provider(engine, provider, base, bounds, download, now.date())
        record(engine, result, now)
        results.append(result)
    return results


def catalog_status(engine: Engine, stale_after_days: int, today: dt.date) -> CatalogStatus:
    """Per provider: offers, newest and oldest current price dates, and the last refresh."""
    with engine.connect() as conn:
        ages = conn.execute(
            select(
                _OFFERS.c.provider,
                func.count(),
                func.max(_OFFERS.c.as_of),
                func.min(_OFFERS.c.as_of),
            ).group_by(_OFFERS.c.provider)
        ).all()
        runs = {r.provider: r for r in conn.execute(select(_RUNS))}
    out = []
    for provider, count, newest, oldest in sorted(ages):
        newest = _day(newest)
        run = runs.get(provider)
        out.append(
            ProviderStatus(
                provider=provider,
                offers=int(count),
                newest_price_as_of=newest,
                newest_price_age_days=(today - newest).days if newest else None,
                oldest_price_as_of=_day(oldest),
                last_refresh_at=_utc(run.attempted_at) if run else None,
                last_refresh_outcome=run.outcome if run else None,
                last_refresh_message=run.message if run else None,
                last_success_at=_utc(run.succeeded_at) if run else None,
            )
        )
    return CatalogStatus(today=today, stale_after_days=stale_after_days, providers=out)


def _day(value: object) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=dt.UTC)
