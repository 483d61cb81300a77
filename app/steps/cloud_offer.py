"""The comparable cloud offer: the one rule every use case and chat apply when a question
names a GPU (or a family of them) but not the offer to rent.

Rule (:func:`comparable_offer`): of the offers of the GPUs asked for, in the GPU count
asked for (None: any), on demand unless a pricing model is named, Colab only when it is
named (its usage limits make it no like-for-like rental), marketplaces and brokers
(:class:`~app.models.catalog_misc.ProviderKind`: hosts' or other clouds' machines, whose
reliability varies) only when named or ``include_marketplaces``, free offers left out, and
flagged price outliers unless the provider or instance is named (the answer warns of them); the cheapest per GPU-hour, preferring one priced within the registry's
freshness window (:data:`app.costing.defaults.PRICE_FRESHNESS`) of the prices' day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.catalog.queries import find_offers
from app.catalog.view import CatalogView
from app.costing import defaults, offers
from app.costing.sourced import Assumed, Sourced
from app.models import CloudOffer
from app.models.catalog_misc import ProviderKind
from app.steps.inputs import price_outliers

FRESH_DAYS = defaults.PRICE_FRESH_DAYS
COMPARABLE_RULE = (
    "the comparable offer (app.steps.cloud_offer): on demand, not Colab, marketplaces and "
    "brokers only when named, free and flagged price outliers left out, the cheapest per "
    f"GPU-hour, one priced within {FRESH_DAYS} days preferred"
)


@dataclass(frozen=True)
class OfferPick:
    """The offer chosen, how many matched the filters (``considered``) and how many of them
    were priced within the freshness window (``fresh``)."""

    offer: CloudOffer
    considered: int
    fresh: int
    cheapest: bool = True  # the cheapest of all that matched, fresh or not

    @property
    def policy(self) -> str:
        """The freshness preference as it applied, for the answer's assumption."""
        if not self.fresh:
            return f"none priced within {FRESH_DAYS} days"
        if self.cheapest:
            return f"priced within {FRESH_DAYS} days"
        return f"{self.fresh} priced within {FRESH_DAYS} days preferred"


def comparable_offers(
    view: CatalogView,
    *,
    gpu_ids: Sequence[str] | None,
    gpu_count: int | None = None,
    provider: str | None = None,
    pricing_model: str | None = None,
    colab_plan: str | None = None,
    instance_type: str | None = None,
    any_pricing_model: bool = False,
    include_marketplaces: bool = False,
) -> list[CloudOffer]:
    """The offers the rule chooses among, cheapest per GPU-hour first (see the module);
    ``any_pricing_model``: spot and reserved offers too (a question whose pricing model no
    offer has); ``include_marketplaces``: marketplaces' and brokers' offers too (they are
    whenever ``provider`` names one)."""
    colab = provider == "colab" or colab_plan is not None
    default_model = None if colab or any_pricing_model else offers.COMPARABLE_PRICING
    found = find_offers(
        view,
        gpu_ids=gpu_ids,
        gpu_count=gpu_count,
        provider=provider,
        pricing_model=pricing_model or default_model,
        colab_plan=colab_plan,
        exclude_provider=None if colab else "colab",
    )
    # a named provider or instance keeps its outliers: the answer warns of them
    outliers = price_outliers(view) if provider is None and not instance_type else {}
    kept = [o for o in found if o.price_usd_per_hour > 0 and o.id not in outliers]
    if instance_type:
        kept = [o for o in kept if o.instance_type.lower() == instance_type.lower()]
    if provider is None and not include_marketplaces:
        clouds = own_machines(view)
        kept = [o for o in kept if o.provider in clouds]
    return kept


def own_machines(view: CatalogView) -> frozenset[str]:
    """The providers that rent their own machines (kind ``cloud``), kept with the view."""

    def build() -> frozenset[str]:
        known = {p.id for p in view.providers.values() if p.kind != ProviderKind.cloud}
        return frozenset({o.provider for o in view.offers.offers} - known)

    return view.memoized("own_machines", build)


def comparable_offer(
    view: CatalogView,
    *,
    gpu_ids: Sequence[str] | None,
    gpu_count: int | None = None,
    provider: str | None = None,
    pricing_model: str | None = None,
    colab_plan: str | None = None,
    instance_type: str | None = None,
    any_pricing_model: bool = False,
    include_marketplaces: bool = False,
) -> OfferPick | None:
    """The comparable offer (see the module and :func:`comparable_offers`), or None when no
    offer matches."""
    found = comparable_offers(
        view,
        gpu_ids=gpu_ids,
        gpu_count=gpu_count,
        provider=provider,
        pricing_model=pricing_model,
        colab_plan=colab_plan,
        instance_type=instance_type,
        any_pricing_model=any_pricing_model,
        include_marketplaces=include_marketplaces,
    )
    return _pick(found, view)


def _pick(found: list[CloudOffer], view: CatalogView) -> OfferPick | None:
    chosen = offers.freshest_cheapest(found, view.day, FRESH_DAYS)
    if chosen is None:
        return None
    return OfferPick(chosen[0], len(found), chosen[1], cheapest=chosen[0] is found[0])


def comparable_offer_by_gpu(view: CatalogView) -> dict[str, OfferPick]:
    """Every GPU's comparable offer in any GPU count, in one pass over the view's offers,
    kept with the view (:meth:`CatalogView.memoized`)."""

    def build() -> dict[str, OfferPick]:
        rows: dict[str, list[CloudOffer]] = {}
        for o in comparable_offers(view, gpu_ids=None):
            rows.setdefault(o.gpu_id, []).append(o)
        return {gpu_id: pick for gpu_id, found in rows.items() if (pick := _pick(found, view))}

    return view.memoized("comparable_offer_by_gpu", build)


def comparable_offers_of(
    view: CatalogView, gpu_ids: Sequence[str]
) -> Sourced[list[CloudOffer | None]]:
    """Each GPU's comparable offer in any GPU count (None where it has none), in the order
    of ``gpu_ids``; stated when every GPU has one."""
    by_gpu = comparable_offer_by_gpu(view)
    found = [pick.offer if (pick := by_gpu.get(g)) else None for g in gpu_ids]
    if any(o is None for o in found):
        return Sourced(found, ())
    note = Assumed(
        "offers", [o.id for o in found if o], f"each GPU's {COMPARABLE_RULE}, in any GPU count"
    )
    return Sourced(found, (note,))


def plan_offers(view: CatalogView, plan_id: str) -> list[CloudOffer]:
    """A Colab plan's GPU offers, cheapest first (listed, not chosen)."""
    return find_offers(view, provider="colab", colab_plan=plan_id)
