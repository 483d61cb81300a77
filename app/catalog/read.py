"""Reading the catalog: the database's rows, in one transaction, into a
:class:`~app.catalog.view.CatalogView` (:func:`read_view`), the revision counter that says
when to read again, and the check that a write leaves a catalog a view can be built from."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from app.catalog.view import CatalogView, PriceHistory, assemble
from app.costing.money import ExchangeRate
from app.errors import InvalidRequest
from app.models import (
    Barebone,
    Benchmark,
    BenchmarkResult,
    CatalogRevision,
    CloudOffer,
    ColabPlan,
    EmbodiedFactor,
    FxRate,
    Gpu,
    PricePoint,
    ProviderInfo,
    PublishedSpeed,
    ReferenceValue,
    Region,
    UtilizationProfile,
    VatRate,
)

T = TypeVar("T")


def _rates(rows: Iterable[FxRate]) -> dict[str, tuple[ExchangeRate, ...]]:
    table: dict[str, list[ExchangeRate]] = {}
    for r in rows:
        table.setdefault(r.currency, []).append(
            ExchangeRate(r.currency, r.usd_per_unit, r.as_of, r.source)
        )
    return {c: tuple(sorted(rs, key=lambda x: x.as_of or dt.date.min)) for c, rs in table.items()}


def _history(session: Session) -> PriceHistory:
    stmt = select(PricePoint).order_by(col(PricePoint.valid_from), col(PricePoint.id))
    out: dict[tuple[str, str, str], list[tuple[dt.date, object]]] = {}
    for p in session.exec(stmt):
        out.setdefault((p.item_kind, p.item_id, p.field), []).append((p.valid_from, p.value))
    return {k: tuple(v) for k, v in out.items()}


def _published(session: Session) -> dict[str, dict[str, PublishedSpeed]]:
    out: dict[str, dict[str, PublishedSpeed]] = {}
    for r in session.exec(select(PublishedSpeed).order_by(PublishedSpeed.id)):
        out.setdefault(r.comparison, {})[r.gpu_id] = r
    return out


def _vat(session: Session) -> dict[str, tuple[VatRate, ...]]:
    out: dict[str, list[VatRate]] = {}
    for r in session.exec(select(VatRate).order_by(col(VatRate.effective_from), col(VatRate.id))):
        out.setdefault(r.country_code, []).append(r)
    return {k: tuple(v) for k, v in out.items()}


def current_revision(session: Session) -> int:
    """The catalog's revision counter (0 before the first seed)."""
    row = session.get(CatalogRevision, 1)
    return row.revision if row else 0


def must_build(conn: Connection, what: str) -> None:
    """Build the view of the catalog as ``conn``'s open write transaction sees it, before
    that write is committed: a row the view cannot be built with is refused whole
    (:class:`~app.errors.InvalidRequest`, 422, naming ``what`` and the reason) instead of
    being committed and then stopping every worker's next view. The database's own errors
    pass through (503). A read of the shipped catalog: ~0.1-0.2 s, in the write's turn."""
    try:
        with Session(bind=conn) as session:
            read_view(session).curves  # noqa: B018 - the depreciation fit is part of the build
    except SQLAlchemyError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to build the view refuses the write
        raise InvalidRequest(
            f"{what}: the catalog cannot be built with this change ({exc}); nothing was stored"
        ) from exc


def read_view(session: Session) -> CatalogView:
    """Read the whole catalog once, in one transaction, into a :class:`CatalogView`."""
    results: dict[str, dict[str, BenchmarkResult]] = {}
    for res in session.exec(select(BenchmarkResult)):
        results.setdefault(res.benchmark_id, {})[res.gpu_id] = res

    def by_id(model: type[T]) -> dict[str, T]:
        return {r.id: r for r in session.exec(select(model))}  # type: ignore[attr-defined]  # every catalog table has an id

    return assemble(
        revision=current_revision(session),
        as_of=None,
        gpus=session.exec(select(Gpu)).all(),
        offers=session.exec(select(CloudOffer)).all(),
        barebones=session.exec(select(Barebone)).all(),
        regions=by_id(Region),
        providers=by_id(ProviderInfo),
        benchmark_results=results,
        profiles=by_id(UtilizationProfile),
        benchmarks=by_id(Benchmark),
        colab_plans=by_id(ColabPlan),
        fx_rates=_rates(session.exec(select(FxRate))),
        embodied=by_id(EmbodiedFactor),
        reference=by_id(ReferenceValue),
        history=_history(session),
        published=_published(session),
        vat_rates=_vat(session),
    )
