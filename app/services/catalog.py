"""Catalog reads: listing, lookup by id, and name resolution. All SQL lives here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import func, or_
from sqlmodel import Session, SQLModel, col, select

from app.catalog.resolve import NameIndex
from app.errors import Ambiguous, NotFound
from app.models import (
    Barebone,
    Benchmark,
    BenchmarkResult,
    CloudOffer,
    ColabPlan,
    Gpu,
    ProviderInfo,
    Region,
    UtilizationProfile,
)

T = TypeVar("T", bound=SQLModel)


def _page(session: Session, stmt, limit: int, offset: int) -> tuple[Sequence[Any], int]:
    count = session.exec(select(func.count()).select_from(stmt.subquery())).one()
    return session.exec(stmt.limit(limit).offset(offset)).all(), count


def gpu_index(session: Session) -> NameIndex:
    """Name index over every GPU in the catalog (built once per catalog revision)."""
    from app.services.snapshot import get_snapshot  # the snapshot reads through this module

    return get_snapshot(session).gpu_names


def resolve_gpu(session: Session, name: str) -> Gpu:
    """The GPU ``name`` designates (id, alias or name as typed).

    Raises :class:`Ambiguous` (422) when it matches several GPUs and :class:`NotFound` (404)
    when it matches none; both list candidates.
    """
    found = gpu_index(session).resolve(name)
    if found.id is not None:
        return session.get(Gpu, found.id)  # type: ignore[return-value]
    if found.ambiguous:
        raise Ambiguous(
            f"'{name}' matches several GPUs: {', '.join(found.candidates)}",
            candidates=list(found.candidates),
        )
    raise NotFound(f"no GPU is called '{name}'", candidates=list(found.candidates))


def list_gpus(
    session: Session, q: str | None, limit: int, offset: int
) -> tuple[Sequence[Gpu], int]:
    """GPUs ordered by id; ``q`` keeps those whose id, name or alias contains it, or that it
    resolves to."""
    stmt = select(Gpu).order_by(Gpu.id)
    if q:
        resolved = gpu_index(session).resolve(q)
        ids = (
            {resolved.id} if resolved.id else set(resolved.candidates if resolved.ambiguous else ())
        )
        like = f"%{q.lower()}%"
        stmt = stmt.where(
            or_(
                col(Gpu.id).in_(ids),
                func.lower(Gpu.name).like(like),
                func.lower(Gpu.id).like(like),
            )
        )
    return _page(session, stmt, limit, offset)


def list_offers(
    session: Session,
    *,
    provider: str | None,
    gpu: str | None,
    pricing_model: str | None,
    region: str | None,
    max_price_usd_per_hour: float | None,
    limit: int,
    offset: int,
) -> tuple[Sequence[CloudOffer], int]:
    """Cloud offers matching the filters, cheapest first. ``gpu`` is resolved like a name."""
    stmt = select(CloudOffer).order_by(CloudOffer.price_usd_per_hour, CloudOffer.id)
    if provider:
        stmt = stmt.where(CloudOffer.provider == provider)
    if gpu:
        stmt = stmt.where(CloudOffer.gpu_id == resolve_gpu(session, gpu).id)
    if pricing_model:
        stmt = stmt.where(CloudOffer.pricing_model == pricing_model)
    if region:
        stmt = stmt.where(CloudOffer.region == region)
    if max_price_usd_per_hour is not None:
        stmt = stmt.where(CloudOffer.price_usd_per_hour <= max_price_usd_per_hour)
    return _page(session, stmt, limit, offset)


def find_offers(
    session: Session,
    *,
    gpu_ids: Sequence[str] | None = None,
    provider: str | None = None,
    pricing_model: str | None = None,
    colab_plan: str | None = None,
    gpu_count: int | None = None,
    exclude_provider: str | None = None,
) -> list[CloudOffer]:
    """Every offer matching the filters (any of ``gpu_ids``; a Colab plan by its
    ``colab_plan`` id, whose name is the offers' ``instance_type``), cheapest per GPU-hour
    first (``price_usd_per_hour / gpu_count``), ties by id."""
    stmt = select(CloudOffer)
    if gpu_ids:
        stmt = stmt.where(col(CloudOffer.gpu_id).in_(gpu_ids))
    if provider:
        stmt = stmt.where(CloudOffer.provider == provider)
    if pricing_model:
        stmt = stmt.where(CloudOffer.pricing_model == pricing_model)
    if colab_plan:
        plan_name = select(ColabPlan.name).where(ColabPlan.id == colab_plan).scalar_subquery()
        stmt = stmt.where(CloudOffer.provider == "colab", CloudOffer.instance_type == plan_name)
    if gpu_count:
        stmt = stmt.where(CloudOffer.gpu_count == gpu_count)
    if exclude_provider:
        stmt = stmt.where(CloudOffer.provider != exclude_provider)
    rows = list(session.exec(stmt).all())
    rows.sort(key=lambda o: (price_per_gpu_hour(o), o.id))
    return rows


def price_per_gpu_hour(offer: CloudOffer) -> float:
    """An offer's price per GPU-hour, USD."""
    return float(offer.price_usd_per_hour) / offer.gpu_count


def similar_gpu_ids(session: Session, gpu: Gpu, bandwidth_tolerance: float) -> tuple[str, ...]:
    """GPUs whose memory bandwidth is within ``bandwidth_tolerance`` (a fraction) of
    ``gpu``'s and whose memory (GB) is at least ``gpu``'s; empty when its bandwidth is
    unknown."""
    if gpu.memory_bandwidth_gb_per_s is None:
        return ()
    lo = gpu.memory_bandwidth_gb_per_s * (1 - bandwidth_tolerance)
    hi = gpu.memory_bandwidth_gb_per_s * (1 + bandwidth_tolerance)
    stmt = select(Gpu.id).where(
        col(Gpu.memory_bandwidth_gb_per_s).between(lo, hi), Gpu.memory_gb >= gpu.memory_gb
    )
    return tuple(session.exec(stmt).all())


def vocabulary(session: Session) -> dict[str, list[tuple]]:
    """The names the query parser needs: GPUs ``(id, name, aliases)``, utilization profiles
    ``(id, name)``, regions ``(id, name, kind)`` and benchmarks ``(id, name)``."""
    return {
        "gpus": [
            (g[0], g[1], g[2] or []) for g in session.exec(select(Gpu.id, Gpu.name, Gpu.aliases))
        ],
        "profiles": list(session.exec(select(UtilizationProfile.id, UtilizationProfile.name))),
        "regions": list(session.exec(select(Region.id, Region.name, Region.kind))),
        "benchmarks": list(session.exec(select(Benchmark.id, Benchmark.name))),
    }


def get_offer(session: Session, offer_id: str) -> CloudOffer:
    """An offer by id, or NotFound with the closest ids."""
    row = session.get(CloudOffer, offer_id)
    if row is not None:
        return row
    ids = session.exec(select(CloudOffer.id)).all()
    index = NameIndex((i, i, ()) for i in ids)
    raise NotFound(
        f"unknown cloud offer '{offer_id}'", candidates=list(index.resolve(offer_id).candidates)
    )


def list_all(session: Session, model: type[T]) -> Sequence[T]:
    """Every row of a small catalog table, by id."""
    return session.exec(select(model).order_by(model.id)).all()  # type: ignore[attr-defined]


def _closest(session: Session, model: type[SQLModel], item_id: str) -> list[str]:
    ids = session.exec(select(model.id)).all()  # type: ignore[attr-defined]
    return list(NameIndex((i, i, ()) for i in ids).resolve(item_id).candidates)


def get_by_id(session: Session, model: type[T], item_id: str, kind: str) -> T:
    """The ``model`` row with id ``item_id`` (case-insensitive ids are tried lower-cased), or
    :class:`NotFound` listing the closest ids."""
    row = session.get(model, item_id) or session.get(model, item_id.lower())
    if row is None:
        raise NotFound(f"unknown {kind} '{item_id}'", candidates=_closest(session, model, item_id))
    return row


def get_barebone(session: Session, barebone_id: str) -> Barebone:
    return get_by_id(session, Barebone, barebone_id, "barebone")


def get_region(session: Session, region_id: str) -> Region:
    return get_by_id(session, Region, region_id, "region")


def get_profile(session: Session, profile_id: str) -> UtilizationProfile:
    return get_by_id(session, UtilizationProfile, profile_id, "utilization profile")


def get_benchmark(session: Session, benchmark_id: str) -> Benchmark:
    return get_by_id(session, Benchmark, benchmark_id, "benchmark")


def benchmark_results(
    session: Session, benchmark_id: str | None = None
) -> Sequence[BenchmarkResult]:
    stmt = select(BenchmarkResult).order_by(BenchmarkResult.benchmark_id, BenchmarkResult.gpu_id)
    if benchmark_id:
        stmt = stmt.where(BenchmarkResult.benchmark_id == benchmark_id)
    return session.exec(stmt).all()


def get_provider(session: Session, provider_id: str) -> ProviderInfo | None:
    return session.get(ProviderInfo, provider_id)


def smallest_barebone_for(session: Session, gpu_count: int) -> Barebone | None:
    """The catalog barebone with the fewest GPU slots that still holds ``gpu_count`` GPUs
    (cheapest on ties), from the catalog snapshot."""
    from app.services import snapshot

    return snapshot.smallest_barebone(snapshot.get_snapshot(session).barebones, gpu_count)
