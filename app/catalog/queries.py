"""Catalog reads for the listing endpoints and the query answers: filters and orderings over
the in-memory catalog view (:class:`app.catalog.view.CatalogView`); no SQL. Lookups by id are
the view's own methods (``view.offer(id)``, ``view.resolve_gpu(name)``, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.catalog.view import CatalogView
from app.costing import offers

if TYPE_CHECKING:
    from app.models import Barebone, CloudOffer, Gpu, Region


def list_gpus(
    view: CatalogView,
    q: str | None,
    limit: int,
    offset: int,
    *,
    min_memory_gb: float | None = None,
) -> tuple[list[Gpu], int]:
    """GPUs ordered by id; ``q`` keeps those whose id or name contains it (case-insensitive)
    or that it resolves to (alias, or every candidate of an ambiguous name);
    ``min_memory_gb`` keeps those with at least that much memory, GB."""
    rows = list(view.gpus)
    if min_memory_gb is not None:
        rows = [g for g in rows if g.memory_gb >= min_memory_gb - 1e-9]
    if q:
        resolved = view.gpu_names.resolve(q)
        ids = (
            {resolved.id} if resolved.id else set(resolved.candidates if resolved.ambiguous else ())
        )
        needle = q.lower()
        rows = [g for g in rows if g.id in ids or needle in g.name.lower() or needle in g.id]
    return rows[offset : offset + limit], len(rows)


def list_offers(
    view: CatalogView,
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
    gpu_id = view.resolve_gpu(gpu).id if gpu else None
    snap = view
    enough = None
    if min_memory_gb is not None:
        enough = {g.id for g in snap.gpus if g.memory_gb >= min_memory_gb - 1e-9}
    listed = by_instance_price(view)
    rows = [
        o
        for o in (listed if gpu_id is None else listed_by_gpu(view).get(gpu_id, []))
        if (provider is None or o.provider == provider)
        and (pricing_model is None or o.pricing_model == pricing_model)
        and (region is None or o.region == region)
        and (max_price_usd_per_hour is None or o.price_usd_per_hour <= max_price_usd_per_hour)
        and (enough is None or o.gpu_id in enough)
    ]
    return rows[offset : offset + limit], len(rows)


def by_instance_price(view: CatalogView) -> list[CloudOffer]:
    """The view's offers by instance price per hour, ties by id (the listing's order),
    sorted once per view: a listing filters in this order and sorts nothing."""
    return view.memoized(
        "offers_by_instance_price",
        lambda: sorted(view.offers.offers, key=lambda o: (o.price_usd_per_hour, o.id)),
    )


def listed_by_gpu(view: CatalogView) -> dict[str, list[CloudOffer]]:
    """:func:`by_instance_price` per GPU id (a listing of one GPU reads only its offers),
    built once per view."""

    def build() -> dict[str, list[CloudOffer]]:
        out: dict[str, list[CloudOffer]] = {}
        for o in by_instance_price(view):
            out.setdefault(o.gpu_id, []).append(o)
        return out

    return view.memoized("offers_listed_by_gpu", build)


def find_offers(
    view: CatalogView,
    *,
    gpu_ids: Sequence[str] | None = None,
    provider: str | None = None,
    pricing_model: str | None = None,
    colab_plan: str | None = None,
    gpu_count: int | None = None,
    exclude_provider: str | None = None,
    comparable: bool = False,
) -> list[CloudOffer]:
    """Every offer matching the filters (any of ``gpu_ids``; a Colab plan by its
    ``colab_plan`` id, whose name is the offers' ``instance_type``), cheapest per GPU-hour
    first (``price_usd_per_hour / gpu_count``), ties by id. ``comparable``: only like-for-like
    rentals (:func:`app.costing.offers.is_comparable`: on-demand, Colab left out)."""
    plan = view.colab_plans.get(colab_plan) if colab_plan else None
    if colab_plan and plan is None:
        return []
    rows = [
        o
        for o in view.offers.offers
        if (not gpu_ids or o.gpu_id in gpu_ids)
        and (provider is None or o.provider == provider)
        and (pricing_model is None or o.pricing_model == pricing_model)
        and (plan is None or (o.provider == "colab" and o.instance_type == plan.name))
        and (not gpu_count or o.gpu_count == gpu_count)
        and (exclude_provider is None or o.provider != exclude_provider)
        and (not comparable or offers.is_comparable(o))
    ]
    return offers.cheapest_first(rows)


# gpucost's rule, not a published figure: memory bandwidth within +-25 % counts as similar
# performance when picking a comparable offer (the answer then scales by the speed model).
SIMILAR_BANDWIDTH = 0.25


def similar_gpu_ids(view: CatalogView, gpu: Gpu, bandwidth_tolerance: float) -> tuple[str, ...]:
    """GPUs whose memory bandwidth is within ``bandwidth_tolerance`` (a fraction) of
    ``gpu``'s and whose memory (GB) is at least ``gpu``'s; empty when its bandwidth is
    unknown."""
    if gpu.memory_bandwidth_gb_per_s is None:
        return ()
    lo = gpu.memory_bandwidth_gb_per_s * (1 - bandwidth_tolerance)
    hi = gpu.memory_bandwidth_gb_per_s * (1 + bandwidth_tolerance)
    return tuple(
        g.id
        for g in view.gpus
        if g.memory_bandwidth_gb_per_s is not None
        and lo <= g.memory_bandwidth_gb_per_s <= hi
        and g.memory_gb >= gpu.memory_gb
    )


def vocabulary(view: CatalogView) -> dict[str, list[tuple[Any, ...]]]:
    """The names the query parser needs: GPUs ``(id, name, aliases)``, utilization profiles
    ``(id, name)``, regions ``(id, name, kind)``, benchmarks ``(id, name)`` and cloud
    instances ``(provider, instance type, GPU id, GPU count)``."""
    instances = {(o.provider, o.instance_type, o.gpu_id, o.gpu_count) for o in view.offers.offers}
    return {
        "instances": sorted(instances),
        "gpus": [(g.id, g.name, g.aliases or []) for g in view.gpus],
        "profiles": [(p.id, p.name) for p in view.profiles.values()],
        "regions": [(r.id, r.name, r.kind) for r in view.regions.values()],
        "benchmarks": [(b.id, b.name) for b in view.benchmarks.values()],
    }


def list_barebones(view: CatalogView) -> list[Barebone]:
    """Every barebone priced on the view's day, by id."""
    return sorted(view.barebone_by_id.values(), key=lambda b: b.id)


def list_regions(view: CatalogView, kind: str | None) -> list[Region]:
    """Every region (of ``kind``), by id."""
    rows = sorted(view.regions.values(), key=lambda r: r.id)
    return [r for r in rows if kind is None or r.kind == kind]
