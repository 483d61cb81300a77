"""The cloud offers a question written in words reaches, when it names a GPU, provider,
pricing model, Colab plan or instance but no offer id (:class:`~app.models.interpretation.
CloudQuery`): the same comparable-offer rule as the API (:mod:`app.steps.cloud_offer`), and
the widening a typed question needs when nothing matches as written, each widening returned
as a note (an :class:`~app.costing.sourced.Assumed` default, a
:class:`~app.costing.sourced.Caveat` when the answer is not what was asked).

* :func:`offer_for_desktop`: the offer a break-even or run cost compares a desktop with:
  the GPU asked for, then its family; with no cloud GPU named, the desktop's GPU, then a GPU
  of similar memory bandwidth and as much memory, then (a cloud was typed) any GPU; in the
  GPU count asked for, then any count; a pricing model no offer has is dropped last.
* :func:`matching_offers`: every offer matching the words, cheapest first, widened in turn
  to the GPU's family, "spot" as interruptible capacity, every pricing model, every provider.
* :func:`rental_offers`: the offers a rental of N GPUs is priced on: the GPU at the provider
  and pricing asked, then its family at that provider, then the GPU at any provider.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.catalog.queries import SIMILAR_BANDWIDTH, find_offers, similar_gpu_ids
from app.catalog.view import CatalogView
from app.costing.sourced import Assumed, Caveat, Note, Sourced
from app.models.interpretation import CloudQuery
from app.steps.cloud_offer import COMPARABLE_RULE, comparable_offer

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu


# A GPU id's family: the model before its memory or form factor ("a100-sxm4-80gb" -> "a100",
# "h100-nvl" -> "h100"); consumer and workstation names keep their prefix ("rtx-3090").
_FAMILY = re.compile(r"(?:rtx-pro|rtx|gtx|quadro-rtx|quadro|tesla|titan)-[a-z]*\d*|[a-z]+\d+[a-z]?")

Tier = tuple[str, tuple[str, ...] | None]  # why, and the GPU ids (None: any GPU)


def gpu_family(view: CatalogView, ids: Sequence[str]) -> tuple[str, ...]:
    """Every catalog GPU of the same family as any of ``ids``, sorted."""
    keys = {m.group(0) for i in ids if (m := _FAMILY.match(i))}
    return tuple(
        sorted(g.id for g in view.gpus if (m := _FAMILY.match(g.id)) and m.group(0) in keys)
    )


def _tiers(view: CatalogView, cloud: CloudQuery, desktop_gpu: Gpu) -> list[Tier]:
    """The GPUs a desktop's cloud side is looked for among, in order (module docstring)."""
    if cloud.gpu is not None:
        family = gpu_family(view, cloud.gpu.ids)
        tiers: list[Tier] = [("the GPU asked for", tuple(cloud.gpu.ids))]
        if set(family) != set(cloud.gpu.ids):
            tiers.append((f"'{cloud.gpu.text}' as its family: {', '.join(family)}", family))
        return tiers
    tiers = [
        ("the desktop's GPU", (desktop_gpu.id,)),
        (
            f"a GPU with memory bandwidth within {SIMILAR_BANDWIDTH:.0%} of the desktop's and "
            "as much memory (the engine's speed estimate)",
            tuple(similar_gpu_ids(view, desktop_gpu, SIMILAR_BANDWIDTH)),
        ),
    ]
    if not cloud.is_empty():  # "vs colab pro": the plan's own GPUs when none is comparable
        tiers.append(("any GPU (none comparable to the desktop's is offered)", None))
    return tiers


def offer_for_desktop(
    view: CatalogView, cloud: CloudQuery, desktop_gpu: Gpu, count: int
) -> Sourced[CloudOffer | None]:
    """The cloud offer a desktop of ``count`` x ``desktop_gpu`` is compared with (module
    docstring), its choice and each widening noted; None when no offer matches at all."""
    tiers = _tiers(view, cloud, desktop_gpu)
    found = _first_tier(view, cloud, tiers, count, any_pricing_model=False)
    if found.value is None and cloud.pricing_model is not None:
        found = _first_tier(view, cloud, tiers, count, any_pricing_model=True)
        if found.value is not None:
            why = f"no matching {cloud.pricing_model} offer in the catalog: any pricing model"
            dropped = Assumed("cloud.pricing_model", found.value.pricing_model, why)
            return Sourced(found.value, (*found.notes, dropped))
    return found


def _first_tier(
    view: CatalogView,
    cloud: CloudQuery,
    tiers: Sequence[Tier],
    count: int,
    *,
    any_pricing_model: bool,
) -> Sourced[CloudOffer | None]:
    """The comparable offer (:func:`app.steps.cloud_offer.comparable_offer`, with the words
    typed as its filters) of the first tier (GPUs, then any GPU count) that has one, noted;
    None when no tier has one."""
    filters: dict[str, Any] = dict(
        provider=cloud.provider,
        pricing_model=None if any_pricing_model else cloud.pricing_model,
        colab_plan=cloud.colab_plan,
        instance_type=cloud.instance_type,
    )
    what = ", ".join(f"{k}={v}" for k, v in filters.items() if v) or "any provider"
    for why, ids in tiers:
        if ids is not None and not ids:
            continue
        for count_rule, n in (("same GPU count", count), ("any GPU count", None)):
            pick = comparable_offer(
                view, gpu_ids=ids, gpu_count=n, any_pricing_model=any_pricing_model, **filters
            )
            if pick is None:
                continue
            offer = pick.offer
            notes: list[Note] = []
            named = cloud.instance_type is not None  # the instance asked for
            if (why, count_rule) != (tiers[0][0], "same GPU count") and not named:
                notes.append(Caveat(_substituted(cloud, tiers[0][1], count, offer)))
            source = (
                f"the comparable offer of {pick.considered} ({what}; {why}; {count_rule}; "
                f"{pick.policy}; {COMPARABLE_RULE}), as of {offer.as_of}"
            )
            notes.append(Assumed("cloud.offer_id", offer.id, source))
            return Sourced(offer, tuple(notes))
    return Sourced(None)


def _substituted(
    cloud: CloudQuery, asked: tuple[str, ...] | None, count: int, offer: CloudOffer
) -> str:
    """The headline's words for an offer that is not the GPU (or GPU count) asked for."""
    where = " ".join(w for w in (cloud.provider, cloud.colab_plan) if w) or "the catalog"
    gpu = "/".join(asked or ()) or "that GPU"
    if offer.gpu_id in (asked or ()):
        what = f"no {count}-GPU offer of {gpu} at {where}"
    else:
        what = f"{where} has no offer of {gpu}"
    return (
        f"{what}: compared with {offer.provider} {offer.instance_type} "
        f"({offer.gpu_count}x {offer.gpu_id}), scaled by the speed model"
    )


Widening = tuple[Sequence[str] | None, dict[str, Any], tuple[str, Any, str] | None]


def _widenings(
    view: CatalogView,
    cloud: CloudQuery,
    ids: Sequence[str] | None,
    model: str | None,
    widen: bool,
    exclude_colab: bool,
) -> list[Widening]:
    """The searches :func:`matching_offers` tries in turn, each with the default it states."""
    named = dict(
        provider=cloud.provider,
        colab_plan=cloud.colab_plan,
        exclude_provider="colab" if exclude_colab else None,
    )
    steps: list[Widening] = [(ids, {**named, "pricing_model": model}, None)]
    if model == "spot":
        why = "'spot' as the provider's interruptible capacity"
        said = ("pricing_model", "interruptible", why)
        steps.append((ids, {**named, "pricing_model": "interruptible"}, said))
    if not (widen and ids):
        return steps
    what = ", ".join(ids)
    family = gpu_family(view, ids)
    if set(family) != set(ids):
        why = f"'{what}' as its family: no offer of it matched"
        steps.append((family, {**named, "pricing_model": model}, ("gpu", list(family), why)))
    if model is not None:
        why = (
            f"no {model} offer of {what} at {cloud.provider or 'any provider'}: every pricing model"
        )
        steps.append((family, named, ("pricing_model", None, why)))
    if cloud.provider is not None:
        why = (
            f"the catalog has no {cloud.provider} offer of {what}: offers at every provider "
            "(Colab left out: its usage limits make it no like-for-like rental)"
        )
        anywhere = {"pricing_model": model, "exclude_provider": "colab"}
        steps.append((family, anywhere, ("provider", None, why)))
    return steps


def matching_offers(
    view: CatalogView,
    cloud: CloudQuery,
    ids: Sequence[str] | None,
    count: int | None = None,
    *,
    pricing: str | None = None,
    widen: bool = True,
    exclude_colab: bool = False,
) -> Sourced[list[CloudOffer]]:
    """The offers matching the cloud words for GPU ``ids`` (None: any GPU), cheapest first;
    words naming no pricing model take ``pricing`` (noted) when given. When none match, the
    widenings of the module docstring in turn (with ``widen``), each noted; empty when none
    matches."""
    notes: list[Note] = []
    model = cloud.pricing_model
    if model is None and pricing is not None and cloud.provider != "colab":
        model = pricing
        notes.append(
            Assumed("pricing_model", pricing, "no pricing model named: say `spot` for spot")
        )
    for gpu_ids, filters, said in _widenings(view, cloud, ids, model, widen, exclude_colab):
        found = find_offers(view, gpu_ids=gpu_ids, gpu_count=count, **filters)
        if cloud.instance_type is not None:
            found = [o for o in found if o.instance_type.lower() == cloud.instance_type.lower()]
        if not found:
            continue
        if said is not None:
            notes.append(Assumed(*said))
            if said[0] == "provider" or said[0] == "pricing_model" and cloud.pricing_model:
                notes.append(Caveat(said[2]))
        return Sourced(found, tuple(notes))
    return Sourced([], tuple(notes))


def rental_offers(view: CatalogView, cloud: CloudQuery, gpu: Gpu) -> Sourced[list[CloudOffer]]:
    """The offers a rental of ``gpu`` is priced on (module docstring): on demand unless a
    pricing model is named (noted); Colab only when named; a named instance only. Empty when
    none matches (the instance named, else the GPU)."""
    notes: list[Note] = []
    pricing = cloud.pricing_model or "on_demand"
    if cloud.pricing_model is None:
        notes.append(
            Assumed("pricing_model", pricing, "no pricing model named: say `spot` for spot")
        )
    exclude = None if cloud.provider == "colab" else "colab"
    named: dict[str, Any] = dict(
        provider=cloud.provider, pricing_model=pricing, exclude_provider=exclude
    )
    found = find_offers(view, gpu_ids=(gpu.id,), colab_plan=cloud.colab_plan, **named)
    if cloud.instance_type is not None:
        wanted = cloud.instance_type.lower()
        return Sourced([o for o in found if o.instance_type.lower() == wanted], tuple(notes))
    family = gpu_family(view, (gpu.id,))
    if not found and cloud.provider is not None and set(family) != {gpu.id}:
        found = find_offers(view, gpu_ids=family, **named)
        if found:
            used = ", ".join(sorted({o.gpu_id for o in found}))
            notes.append(
                Caveat(f"{cloud.provider} has no {pricing} {gpu.id}: its family ({used}) instead")
            )
    if not found and cloud.provider is not None:
        found = find_offers(
            view, gpu_ids=(gpu.id,), pricing_model=pricing, exclude_provider="colab"
        )
        if found:
            notes.append(
                Caveat(
                    f"the catalog has no {pricing} {cloud.provider} offer of {gpu.id}: other clouds"
                )
            )
    return Sourced(found, tuple(notes))
