"""Catalog reads: listing, lookup by id, and name resolution. All SQL lives here.

Priced rows (GPUs, offers, barebones, regions) are read from the in-memory snapshot
(:mod:`app.services.snapshot`), so a read pinned to a past day with
:func:`~app.services.snapshot.prices_as_of` sees that day's prices everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import func
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


def _snap(session: Session):
    from app.services.snapshot import get_snapshot  # the snapshot reads through this module

    return get_snapshot(session)


def gpu_index(session: Session) -> NameIndex:
    """Name index over every GPU in the catalog (built once per catalog revision)."""
    return _snap(session).gpu_names


def get_gpu(session: Session, gpu_id: str) -> Gpu | None:
    """The GPU with id ``gpu_id`` (with the prices of the pinned day), or None."""
    return _snap(session).gpu(gpu_id)


def offer_or_none(session: Session, offer_id: str) -> CloudOffer | None:
    """The offer with id ``offer_id`` (priced on the pinned day), or None."""
    return _snap(session).offer_by_id.get(offer_id)


def barebone_or_none(session: Session, barebone_id: str) -> Barebone | None:
    """The barebone with id ``barebone_id`` (priced on the pinned day), or None."""
    return _snap(session).barebone_by_id.get(barebone_id)


def _unknown(session: Session, kind: str, item_id: str) -> str:
    """'unknown X' or, for a dated read, 'no X ... had a price on DAY'."""
    day = _snap(session).as_of
    if day is None:
        return f"unknown {kind} '{item_id}'"
    return f"unknown {kind} '{item_id}', or it had no price on {day.isoformat()} (as_of)"


def resolve_gpu(session: Session, name: str) -> Gpu:
    """The GPU ``name`` designates (id, alias or name as typed).

    Raises :class:`Ambiguous` (422) when it matches several GPUs and :class:`NotFound` (404)
    when it matches none; both list candidates.
    """
    found = gpu_index(session).resolve(name)
    if found.id is not None:
        return get_gpu(session, found.id)  # type: ignore[return-value]
    if found.ambiguous:
        raise Ambiguous(
            f"'{name}' matches several GPUs: {', '.join(found.candidates)}",
            candidates=list(found.candidates),
        )
    raise NotFound(f"no GPU is called '{name}'", candidates=list(found.candidates))


def list_gpus(
    session: Session,
    q: str | None,
    limit: int,
    offset: int,
    *,
    min_memory_gb: float | None = None,
) -> tuple[list[Gpu], int]:
    """GPUs ordered by id; ``q`` keeps those whose id or name contains it (case-insensitive)
    or that it resolves to (alias, or every candidate of an ambiguous name);
    ``min_memory_gb`` keeps those with at least that much memory, GB."""
    rows = list(_snap(session).gpus)
    if min_memory_gb is not None:
        rows = [g for g in rows if g.memory_gb >= min_memory_gb - 1e-9]
    if q:
        resolved = gpu_index(session).resolve(q)
        ids = (
            {resolved.id} if resolved.id else set(resolved.candidates if resolved.ambiguous else ())
        )
        needle = q.lower()
        rows = [g for g in rows if g.id in ids or needle in g.name.lower() or needle in g.id]
    return rows[offset : offset + limit], len(rows)


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
    min_memory_gb: float | None = None,
) -> tuple[list[CloudOffer], int]:
    """Cloud offers matching the filters, cheapest first (ties by id). ``gpu`` is resolved
    like a name; ``min_memory_gb`` keeps offers whose GPU has at least that memory, GB."""
    gpu_id = resolve_gpu(session, gpu).id if gpu else None
    snap = _snap(session)
    enough = None
    if min_memory_gb is not None:
        enough = {g.id for g in snap.gpus if g.memory_gb >= min_memory_gb - 1e-9}
    rows = [
        o
        for o in _snap(session).offers.offers
        if (provider is None or o.provider == provider)
        and (gpu_id is None or o.gpu_id == gpu_id)
        and (pricing_model is None or o.pricing_model == pricing_model)
        and (region is None or o.region == region)
        and (max_price_usd_per_hour is None or o.price_usd_per_hour <= max_price_usd_per_hour)
        and (enough is None or o.gpu_id in enough)
    ]
    rows.sort(key=lambda o: (o.price_usd_per_hour, o.id))
    return rows[offset : offset + limit], len(rows)


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
    plan = session.get(ColabPlan, colab_plan) if colab_plan else None
    if colab_plan and plan is None:
        return []
    rows = [
        o
        for o in _snap(session).offers.offers
        if (not gpu_ids or o.gpu_id in gpu_ids)
        and (provider is None or o.provider == provider)
        and (pricing_model is None or o.pricing_model == pricing_model)
        and (plan is None or (o.provider == "colab" and o.instance_type == plan.name))
        and (not gpu_count or o.gpu_count == gpu_count)
        and (exclude_provider is None or o.provider != exclude_provider)
    ]
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
    """An offer by id (with the prices of the pinned day), or NotFound with the closest ids."""
    return _from(session, _snap(session).offer_by_id, offer_id, "cloud offer")


def list_all(session: Session, model: type[T]) -> Sequence[T]:
    """Every row of a small catalog table, by id."""
    return session.exec(select(model).order_by(model.id)).all()  # type: ignore[attr-defined]


def _from(session: Session, rows: dict[str, T], item_id: str, kind: str) -> T:
    """``rows[item_id]`` (ids are also tried lower-cased), or :class:`NotFound` listing the
    closest ids."""
    row = rows.get(item_id) or rows.get(item_id.lower())
    if row is None:
        index = NameIndex((i, i, ()) for i in rows)
        raise NotFound(
            _unknown(session, kind, item_id), candidates=list(index.resolve(item_id).candidates)
        )
    return row


def get_barebone(session: Session, barebone_id: str) -> Barebone:
    """A barebone by id (with the price of the pinned day), or NotFound."""
    return _from(session, _snap(session).barebone_by_id, barebone_id, "barebone")


def get_region(session: Session, region_id: str) -> Region:
    """A region by id (with the electricity price of the pinned day), or NotFound."""
    return _from(session, _snap(session).regions, region_id, "region")


def list_barebones(session: Session) -> list[Barebone]:
    """Every barebone priced on the pinned day, by id."""
    return sorted(_snap(session).barebone_by_id.values(), key=lambda b: b.id)


def list_regions(session: Session, kind: str | None) -> list[Region]:
    """Every region (of ``kind``), by id."""
    rows = sorted(_snap(session).regions.values(), key=lambda r: r.id)
    return [r for r in rows if kind is None or r.kind == kind]


def get_profile(session: Session, profile_id: str) -> UtilizationProfile:
    """A utilization profile by id (from the snapshot), or NotFound."""
    return _from(session, _snap(session).profiles, profile_id, "utilization profile")


def get_benchmark(session: Session, benchmark_id: str) -> Benchmark:
    """A benchmark by id (from the snapshot), or NotFound."""
    return _from(session, _snap(session).benchmarks, benchmark_id, "benchmark")


def benchmark_results(session: Session, benchmark_id: str | None = None) -> list[BenchmarkResult]:
    """Measured results (of one benchmark, or all), by benchmark then GPU id."""
    by_bench = _snap(session).benchmark_results
    return [
        r
        for bid in sorted(by_bench)
        if benchmark_id is None or bid == benchmark_id
        for _, r in sorted(by_bench[bid].items())
    ]


def get_provider(session: Session, provider_id: str) -> ProviderInfo | None:
    """A provider's billing rules and PUE, from the snapshot (no SQL per request)."""
    return _snap(session).providers.get(provider_id)


def smallest_barebone_for(session: Session, gpu_count: int) -> Barebone | None:
    """The catalog barebone with the fewest GPU slots that still holds ``gpu_count`` GPUs
    (cheapest on ties), from the catalog snapshot."""
    from app.services import snapshot

    return snapshot.smallest_barebone(_snap(session).barebones, gpu_count)
