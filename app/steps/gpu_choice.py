"""Which GPU, and how many: the choices a question that names a GPU family ("h100", "a100")
or no GPU at all leaves open, made here so that chat and the API choose alike, each stated
as an :class:`~app.costing.sourced.Assumed` note with the alternatives.

* :func:`gpu_variant`: a family name's variant: the one with the most catalog offers (at the
  provider asked about), among those with a purchase price when one is to be bought, sold as
  cards unless a whole HGX board is asked for.
* :func:`hgx_count`: SXM modules are bought as an 8-GPU HGX board, never one by one.
* :func:`gpus_with_memory`: the GPUs with at least so much memory each.
* :func:`plan_gpu`: the GPU a fleet plan is measured on when none is named.

Errors: :class:`~app.errors.NotFound` (404) for a GPU id the view does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.catalog.sources.resale import resale_class
from app.catalog.view import CatalogView
from app.costing import offers
from app.costing.sourced import Assumed, Sourced
from app.errors import NotFound
from app.steps.trail import n_gpus

if TYPE_CHECKING:
    from app.models import Gpu


# The GPUs of an HGX baseboard, the only way SXM modules are sold (the catalog's server host
# for them holds 8: barebones.csv `server-8gpu-2025`).
HGX_GPUS = 8


def is_sxm(gpu: Gpu) -> bool:
    """Whether ``gpu`` is an SXM module (sold on HGX boards, not as a card)."""
    return "sxm" in str(gpu.form_factor)


def catalog_gpu(view: CatalogView, gpu_id: str) -> Gpu:
    """The GPU ``gpu_id`` of this view. Raises :class:`NotFound` (404) when it has none."""
    gpu = view.gpu(gpu_id)
    if gpu is None:
        raise NotFound(f"no GPU {gpu_id} in the catalog")
    return gpu


def offer_counts(view: CatalogView) -> dict[tuple[str, str | None], int]:
    """Offers per ``(gpu id, provider)`` and per ``(gpu id, None)`` (every provider); built
    once per view."""

    def count() -> dict[tuple[str, str | None], int]:
        out: dict[tuple[str, str | None], int] = {}
        for o in view.offers.offers:
            for key in ((o.gpu_id, o.provider), (o.gpu_id, None)):
                out[key] = out.get(key, 0) + 1
        return out

    return view.memoized("steps.offer_counts", count)


def gpu_variant(
    view: CatalogView,
    ids: Sequence[str],
    said: str,
    *,
    provider: str | None = None,
    bought: bool = False,
    count: int = 1,
) -> Sourced[Gpu]:
    """The GPU meant by ``said``, a name the catalog reads as the GPUs ``ids`` (one, or a
    family's variants). One id is that GPU, with no note. Of several, the one with the most
    catalog offers (at ``provider`` when given); when it is to be ``bought``, among those with
    a purchase price (if any has one), and of those the cards unless ``count`` is a whole HGX
    board. The note names the rule, the count it went by and the alternatives."""
    if len(ids) == 1:
        named = catalog_gpu(view, ids[0])
        if bought and named.purchase_price() is None and (kin := priced_kin(view, named)):
            kin_pick = gpu_variant(view, kin, said, provider=provider, bought=True, count=count)
            kin_others = [g for g in kin if g != kin_pick.value.id]
            also = f" (also {', '.join(kin_others)})" if kin_others else ""
            note = Assumed(
                f"gpu '{said}'",
                kin_pick.value.id,
                f"{named.id} has no purchase price in the catalog: priced as {kin_pick.value.id}, "
                f"the {family(named.id)} variant with one{also}; give your "
                "price (`... at $8,000`) to price the one you have in mind",
            )
            return Sourced(kin_pick.value, (note,))
        return Sourced(named, ())
    per_key = offer_counts(view)
    counts = {gid: per_key.get((gid, provider), 0) for gid in ids}
    pool = list(ids)
    why = ""
    priced = [g for g in pool if (found := view.gpu(g)) and found.purchase_price() is not None]
    if bought and priced:
        pool, why = priced, " of those with a purchase price"
        cards = [g for g in priced if not is_sxm(catalog_gpu(view, g))]
        if cards and count != HGX_GPUS:
            pool, why = (
                cards,
                f"{why} sold as cards (SXM modules come on {HGX_GPUS}-GPU HGX boards)",
            )
        if len(pool) == len(ids):
            why = ""
    chosen = max(sorted(pool), key=lambda gid: counts[gid])
    where = f" at {provider}" if provider else ""
    others = ", ".join(g for g in ids if g != chosen)
    note = Assumed(
        f"gpu '{said}'",
        chosen,
        f"default: '{said}' is {len(ids)} GPUs; {chosen} has the most catalog "
        f"offers{where}{why} ({counts[chosen]}); also {others}: name one to choose",
    )
    return Sourced(catalog_gpu(view, chosen), (note,))


# Id tokens that name a variant of one GPU (memory size, form factor), not another GPU.
_VARIANT_TOKEN = re.compile(r"^(\d+gb|sxm\d?|pcie|nvl)$")


def family(gpu_id: str) -> str:
    """The family a catalog GPU id belongs to: the id without its memory and form-factor
    tokens (``a100-sxm4-80gb`` -> ``a100``, ``rtx-4090`` -> ``rtx-4090``)."""
    return "-".join(t for t in gpu_id.split("-") if not _VARIANT_TOKEN.match(t))


def priced_kin(view: CatalogView, gpu: Gpu) -> tuple[str, ...]:
    """The other variants of ``gpu``'s family with a purchase price (catalog order): what a
    purchase of an unpriced variant (the A100 40GB, out of production) can be priced as."""
    return tuple(
        g.id
        for g in view.gpus
        if g.id != gpu.id and family(g.id) == family(gpu.id) and g.purchase_price() is not None
    )


def hgx_count(gpu: Gpu, count: int) -> Sourced[int]:
    """How many of ``gpu`` a bought machine holds: ``count``, except that SXM modules are
    sold on 8-GPU HGX boards, so any other count of them is priced as a whole board
    (stated)."""
    if not is_sxm(gpu) or count == HGX_GPUS:
        return Sourced(count, ())
    note = Assumed(
        "desktop.gpu_count",
        HGX_GPUS,
        f"SXM modules are sold on {HGX_GPUS}-GPU HGX boards, not one by one: priced as "
        f"an {HGX_GPUS}-GPU server (asked: {count}); say `{HGX_GPUS}x` or name a card",
    )
    return Sourced(HGX_GPUS, (note,))


def gpus_with_memory(view: CatalogView, min_gb: float) -> Sourced[tuple[str, ...]]:
    """The catalog's GPUs with at least ``min_gb`` GB of memory each (as their data sheets
    state it), catalog order."""
    ids = tuple(g.id for g in view.gpus if g.memory_gb >= min_gb)
    note = Assumed(
        "gpus",
        f"{n_gpus(len(ids))} with at least {min_gb:g} GB",
        "the catalog's GPUs with that much memory per GPU (Colab left out)",
    )
    return Sourced(ids, (note,))


def _on_demand_counts(view: CatalogView) -> dict[str, int]:
    """On-demand offers (Colab left out) per GPU with a desktop price sold as a card (SXM
    modules come on HGX boards); built once per view."""

    def count() -> dict[str, int]:
        priced = {g.id for g in view.gpus if g.purchase_price() is not None and not is_sxm(g)}
        counts: dict[str, int] = {}
        for o in view.offers.offers:
            if o.gpu_id in priced and offers.is_comparable(o):
                counts[o.gpu_id] = counts.get(o.gpu_id, 0) + 1
        return counts

    return view.memoized("steps.on_demand_counts", count)


def common_cards(view: CatalogView, n: int) -> tuple[str, ...]:
    """The ``n`` GPUs with a desktop price that the catalog's clouds offer most on demand
    (ties by id), most offered first; with ``n`` of 3 or more, the most offered of each class
    first (consumer, workstation, datacenter: a desktop card, a workstation card and a
    server card), then the rest: the choices offered when a question names no GPU."""
    counts = _on_demand_counts(view)
    ranked = sorted(sorted(counts), key=lambda g: -counts[g])
    first: list[str] = []
    for cls in ("consumer", "workstation", "datacenter"):
        top = next((g for g in ranked if _class_of(view, g) == cls), None)
        if top is not None and len(first) < n:
            first.append(top)
    return tuple(first + [g for g in ranked if g not in first])[:n]


def _class_of(view: CatalogView, gpu_id: str) -> str | None:
    gpu = view.gpu(gpu_id)
    return resale_class(gpu.form_factor) if gpu is not None else None


def plan_gpu(view: CatalogView) -> Sourced[str]:
    """The GPU a plan is measured on when the question names none: of the GPUs with a
    desktop price (sold as cards: SXM modules come on HGX boards), the one the catalog's
    clouds offer most on demand (Colab left out)."""
    counts = _on_demand_counts(view)
    gpu = max(sorted(counts), key=lambda g: counts[g])
    note = Assumed(
        "gpu",
        gpu,
        f"default: the GPU with a desktop price that the catalog's clouds offer most on "
        f"demand ({counts[gpu]} offers); name a GPU to plan on another",
    )
    return Sourced(gpu, (note,))
