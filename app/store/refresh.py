"""`gpucost catalog refresh`: each provider's newest SkyPilot catalog file, or its live API's
answer (``--api``), through the integrity gate (:func:`app.catalog.refresh.gate`), into the catalog by the transactional import
(:func:`app.store.imports.apply`, one transaction per provider), and the outcome recorded in
``catalog_refresh``. A provider whose file is missing, unreadable or refused keeps its previous
prices. Also the status read by ``/readyz``, ``/metrics`` and ``GET /v1/catalog/status``."""

from __future__ import annotations

import datetime as dt
import logging
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from app.catalog.apis import LIVE_APIS
from app.catalog.apis.base import Fetch, LiveApi
from app.catalog.importer import ImportError_, ParsedFile, parse_skypilot_rows
from app.catalog.refresh import (
    Download,
    GateBounds,
    References,
    SourceError,
    gate,
    parse_file,
    read_newest,
)
from app.catalog.sources.files import CatalogDataError
from app.catalog.sources.skypilot import CatalogFile
from app.db import write_transaction
from app.models import CloudOffer
from app.models.catalog_misc import ProviderInfo
from app.models.history import future_date_problem
from app.models.provenance import table_of
from app.models.refresh import CatalogRefresh, CatalogStatus, ProviderStatus, RefreshOutcome
from app.settings import Settings
from app.store import audit
from app.store.imports import ImportReport, apply

log = logging.getLogger("gpucost.catalog")

_OFFERS = table_of(CloudOffer)
_RUNS = table_of(CatalogRefresh)
_PROVIDERS = table_of(ProviderInfo)


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


def _references(conn: Connection) -> References:
    """The catalog's median price per GPU-hour (USD) by (GPU, pricing model), over every
    provider's priced offers: what an offer new to the catalog is held against."""
    by_key: dict[tuple[str, str], list[float]] = {}
    rows = conn.execute(
        select(
            _OFFERS.c.gpu_id,
            _OFFERS.c.pricing_model,
            _OFFERS.c.price_usd_per_hour,
            _OFFERS.c.gpu_count,
        )
    )
    for r in rows:
        price = float(r.price_usd_per_hour)
        if price > 0:
            key = (str(r.gpu_id), str(r.pricing_model))
            by_key.setdefault(key, []).append(price / max(1, int(r.gpu_count or 1)))
    return {key: statistics.median(prices) for key, prices in by_key.items()}


def refresh_provider(
    engine: Engine,
    provider: str,
    base: str,
    bounds: GateBounds,
    download: Download,
    now: dt.datetime,
) -> ProviderResult:
    """Download, check and (if it passes) import one provider's SkyPilot file, and record
    the outcome: a passing file's in the transaction that writes its offers (both or neither
    are kept), any other at once. Never raises for a bad file (the result says why)."""
    try:
        data, source = read_newest(base, provider, download)
        parsed = parse_file(provider, source, data, now.date())
    except SourceError as exc:
        return record(engine, ProviderResult(provider, "failed", str(exc)), now)
    except ImportError_ as exc:
        refused = ProviderResult(provider, "refused", f"schema: {exc}", source=base)
        return record(engine, refused, now)
    with engine.connect() as conn:
        prices, count = _previous(conn, provider)
        references = _references(conn)
    return _gated(engine, parsed, source, (prices, count, references), bounds, now)


def refresh_api(
    engine: Engine,
    api: LiveApi,
    settings: Settings,
    bounds: GateBounds,
    fetch: Fetch,
    now: dt.datetime,
) -> ProviderResult:
    """Read one provider's live API, check what it answered against the same gate as a file
    and import it if it passes; the outcome is recorded as for a file. The offer count a
    live answer is held against is the provider's offers its previous live read wrote (none
    the first time: then each price is still held against its offer's previous one and the
    catalog's median)."""
    provider = api.provider
    try:
        live = api.read(fetch, settings, now.date())
        problem = future_date_problem(live.as_of, now.date())
        if problem:
            raise SourceError(f"{api.title}: {problem}")
        meta = CatalogFile(api.title, live.as_of, live.note)
        name = f"{provider} api"
        parsed = parse_skypilot_rows(name, f"live {name}", provider, live.rows, meta, live.source)
    except SourceError as exc:
        return record(
            engine, ProviderResult(provider, "failed", str(exc), source=api.docs_url), now
        )
    except (ImportError_, CatalogDataError) as exc:
        refused = ProviderResult(provider, "refused", f"answer: {exc}", source=live.source)
        return record(engine, refused, now)
    for reason, n in live.skipped.items():
        parsed.skipped[reason] = parsed.skipped.get(reason, 0) + n
    with engine.connect() as conn:
        prices, _ = _previous(conn, provider)
        count = conn.execute(
            select(func.count()).where(
                _OFFERS.c.provider == provider, _OFFERS.c.source == live.source
            )
        ).scalar_one()
        references = _references(conn)
    return _gated(engine, parsed, live.source, (prices, int(count), references), bounds, now)


def _gated(
    engine: Engine,
    parsed: ParsedFile,
    source: str,
    previous: tuple[dict[str, float], int, References],
    bounds: GateBounds,
    now: dt.datetime,
) -> ProviderResult:
    """``parsed`` through the gate against ``previous`` (prices by id, offer count, the
    catalog's medians) and, when it passes, imported with its record in one transaction."""
    provider = str(parsed.provider)
    prices, count, references = previous
    reason = gate(parsed, prices, count, bounds, references)
    if reason:
        refused = ProviderResult(provider, "refused", reason, len(parsed.offers), source=source)
        return record(engine, refused, now)
    done: list[ProviderResult] = []

    def with_the_swap(conn: Connection, report: ImportReport) -> None:
        done.append(_applied(provider, len(parsed.offers), report, source))
        _write_record(conn, done[0], now)

    apply(engine, [parsed], restate=True, also=with_the_swap)
    return done[0]


def _applied(provider: str, offers: int, report: ImportReport, source: str) -> ProviderResult:
    """The result of a file written by the import (``report``)."""
    counts = report.counts(provider)
    moved = report.price_points_added or counts["added"]
    outcome: RefreshOutcome = "refreshed" if moved else "unchanged"
    message = (
        f"{counts['added']} added, {counts['changed']} restated, {counts['unchanged']} the "
        f"same, {counts['rejected']} rejected (GPU not in the catalog); "
        f"{report.price_points_added} price points added"
    )
    return ProviderResult(provider, outcome, message, offers, report.price_points_added, source)


def record(engine: Engine, result: ProviderResult, now: dt.datetime) -> ProviderResult:
    """Store ``result`` as the provider's last refresh (one transaction); returns it."""
    with write_transaction(engine) as conn:
        _write_record(conn, result, now)
    return result


def _write_record(conn: Connection, result: ProviderResult, now: dt.datetime) -> None:
    ok = result.outcome in ("refreshed", "unchanged")
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
    before = None if old is None else _logged(dict(old._mapping))
    after = {**_logged(values), "price_points_added": result.price_points_added}
    target = f"refresh/{result.provider}"
    audit.append(conn, audit.cli_actor(), "catalog.refresh", target, before, after, now)


def _logged(run: dict[str, Any]) -> dict[str, Any]:
    """A refresh record as the audit log keeps it (dates as ISO 8601 text)."""
    return {
        k: v.isoformat() if isinstance(v, dt.datetime) else v
        for k, v in run.items()
        if k != "provider"
    }


def refresh(
    engine: Engine,
    providers: list[str],
    base: str,
    bounds: GateBounds = GateBounds(),
    download: Download = Download(),
    now: dt.datetime | None = None,
) -> list[ProviderResult]:
    """Refresh each provider from its SkyPilot file in turn (see :func:`each_provider`)."""
    now = now or dt.datetime.now(dt.UTC)
    return each_provider(
        engine, providers, lambda p: refresh_provider(engine, p, base, bounds, download, now), now
    )


def refresh_apis(
    engine: Engine,
    providers: list[str],
    settings: Settings,
    bounds: GateBounds = GateBounds(),
    fetch: Fetch | None = None,
    now: dt.datetime | None = None,
) -> list[ProviderResult]:
    """Refresh each provider from its live API (:data:`app.catalog.apis.LIVE_APIS`) in
    turn (see :func:`each_provider`)."""
    now = now or dt.datetime.now(dt.UTC)
    fetch = fetch or Fetch(Download())
    return each_provider(
        engine,
        providers,
        lambda p: refresh_api(engine, LIVE_APIS[p], settings, bounds, fetch, now),
        now,
    )


def each_provider(
    engine: Engine,
    providers: list[str],
    one: Callable[[str], ProviderResult],
    now: dt.datetime,
) -> list[ProviderResult]:
    """``one(provider)`` for each provider; each result is recorded as soon as it is known.
    One provider's failure, whatever it is, is recorded as ``failed`` and the next provider
    runs."""
    results = []
    for provider in providers:
        try:
            result = one(provider)
        except Exception as exc:  # noqa: BLE001 - one provider never stops the others
            log.exception("catalog refresh of %s failed", provider)
            result = ProviderResult(provider, "failed", f"{type(exc).__name__}: {exc}")
            try:
                record(engine, result, now)
            except Exception:  # noqa: BLE001 - the database itself failed: logged above
                log.exception("could not record the failed refresh of %s", provider)
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
        kinds = {r.id: r for r in conn.execute(select(_PROVIDERS))}
    out = []
    for provider, count, newest, oldest in sorted(ages):
        newest = _day(newest)
        run = runs.get(provider)
        out.append(
            ProviderStatus(
                provider=provider,
                kind=kinds[provider].kind if provider in kinds else None,
                historical_note=kinds[provider].historical_note if provider in kinds else None,
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
