"""The cloud side of a scenario: the offer a request names (:func:`resolve_cloud`: its
rate, host power and commitment, stated) or, when it names a GPU but no offer, the
comparable offer: the one rule every use case and chat apply.

Rule (:func:`comparable_offer`): of the offers of the GPUs asked for, in the GPU count
asked for (None: any), on demand unless a pricing model is named, Colab only when it is
named (its usage limits make it no like-for-like rental), marketplaces and brokers
(:class:`~app.models.catalog_misc.ProviderKind`: hosts' or other clouds' machines, whose
reliability varies) only when named or ``include_marketplaces``, free offers left out, and
flagged price outliers unless the provider or instance is named (the answer warns of
them); the cheapest per GPU-hour, preferring one priced within the registry's freshness window (:data:`app.costing.defaults.PRICE_FRESHNESS`) of the prices' day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app import costing
from app.catalog.queries import find_offers
from app.catalog.sources.reference import (
    CPU_W_PER_CORE,
    MEMORY_W_PER_GB,
    PUE_UNKNOWN,
    VCPUS_PER_CORE,
)
from app.catalog.view import CatalogView
from app.costing import defaults, offers
from app.costing.money import USD, ExchangeRate
from app.costing.sourced import Assumed, Caveat, Cited, Note, Priced, Sourced
from app.models.catalog_kinds import ProviderKind
from app.models.inputs import CloudSpec
from app.steps.currency import given_usd
from app.steps.trail import DEFAULT_BASE_POWER_W, SEED_001

FRESH_DAYS = defaults.PRICE_FRESH_DAYS
COMPARABLE_RULE = (
    "the comparable offer (app.steps.cloud_offer): on demand, not Colab, marketplaces and "
    "brokers only when named, free and flagged price outliers left out, the cheapest per "
    f"GPU-hour, one priced within {FRESH_DAYS} days preferred (when none is: of each "
    "provider's newest price for the GPU)"
)

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu, Region


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
            return f"none priced within {FRESH_DAYS} days: of each provider's newest price"
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


# A cloud host whose vCPUs and memory are unknown gets the desktop's base power (seed 001).
DEFAULT_HOST_POWER_W = DEFAULT_BASE_POWER_W
HOST_SOURCE = f"{SEED_001}, '100 W (CPU)', the same base power a desktop gets"


def gpu_or_none(
    view: CatalogView,
    name: str | None,
) -> Sourced[Gpu | None]:
    """The GPU ``name`` designates, its specs cited (None for no name); 404 or 422 as
    :meth:`CatalogView.resolve_gpu`."""
    if name is None:
        return Sourced(None)
    gpu = view.resolve_gpu(name)
    return Sourced(gpu, (Cited(f"gpu {gpu.id}: specs and TDP", gpu.source, gpu.as_of),))


@dataclass
class ResolvedCloud:
    """The cloud side as the model needs it: billing (``rate``, USD/h and USD/month), the
    catalog offer if any, its GPU and count, datacenter ``pue`` (>= 1), region, and the
    host's busy power ``host_power_w`` (W, CPU and memory, see :func:`host_power`)."""

    rate: costing.CloudRate
    offer: CloudOffer | None
    gpu: Gpu | None
    gpu_count: int | None
    pue: float
    region: Region | None
    host_power_w: float = DEFAULT_HOST_POWER_W


def host_power(view: CatalogView, offer: CloudOffer | None) -> tuple[float, str]:
    """A cloud host's busy power (W) and how it was obtained: from the instance's vCPUs and
    memory with Green Algorithms' model (the catalog's reference values), else the default
    :data:`DEFAULT_HOST_POWER_W`, the same base power a desktop gets (one system boundary:
    GPUs + host, x PUE, on both sides)."""
    if offer is None or not offer.vcpus or not offer.ram_gb:
        return (
            DEFAULT_HOST_POWER_W,
            f"default: the host's vCPUs and memory are unknown; {HOST_SOURCE}",
        )
    core, per_core, mem = (
        view.reference_value(k) for k in (CPU_W_PER_CORE, VCPUS_PER_CORE, MEMORY_W_PER_GB)
    )
    w = costing.host_power_w(offer.vcpus, offer.ram_gb, core.value, per_core.value, mem.value)
    return w, (
        f"{offer.vcpus:g} vCPUs / {per_core.value:g} per core x {core.value:g} W/core + "
        f"{offer.ram_gb:g} GB x {mem.value:g} W/GB ({core.source}; {per_core.source}; "
        f"{mem.source})"
    )


def price_outliers(view: CatalogView) -> dict[str, str]:
    """``{offer id: why}`` for on-demand offers whose price per GPU-hour sits far from its
    peers' (:func:`app.costing.offers.price_outliers`); built once per view."""
    return view.memoized("price_outliers", lambda: offers.price_outliers(view.offers.offers))


def _host(
    view: CatalogView,
    offer: CloudOffer | None,
) -> Sourced[float]:
    notes: list[Note] = []
    w, how = host_power(view, offer)
    notes.append(
        Assumed("cloud.host_power_w", round(w, 4), f"offer {offer.id}: {how}" if offer else how)
    )
    return Sourced(w, tuple(notes))


def offer_label(offer: CloudOffer) -> str:
    """How an answer names an offer: ``{provider} {instance type} [{region}] ({pricing})``."""
    region = f" {offer.region}" if offer.region else ""
    term = f", {offer.commitment_term_months} months" if offer.commitment_term_months else ""
    return f"{offer.provider} {offer.instance_type}{region} ({offer.pricing_model}{term})"


def commitment_note(offer: CloudOffer) -> str:
    """What a committed-use offer obliges the lab to, in words an answer carries."""
    months = offer.commitment_term_months or 0
    fee = float(offer.monthly_fee_usd)
    return (
        f"offer {offer.id} is a {months}-month commitment: ${fee:,.2f} a month for every month "
        f"of the term (${fee * months:,.0f} in all) whether the instance is used or not; a "
        f"month needing more than {costing.COMMITTED_HOURS_PER_MONTH:.0f} hours commits "
        "further instances"
    )


def rate_for_offer(offer: CloudOffer) -> costing.CloudRate:
    """The billing of a catalog offer as a :class:`costing.CloudRate`."""
    return costing.CloudRate(
        price_usd_per_hour=float(offer.price_usd_per_hour),
        monthly_fee_usd=float(offer.monthly_fee_usd),
        included_compute_units_per_month=offer.included_compute_units_per_month,
        compute_units_per_hour=offer.compute_units_per_hour,
        billing_increment_s=offer.billing_increment_s,
        billing_minimum_s=offer.billing_minimum_s,
        commitment_term_months=offer.commitment_term_months,
    )


def resolve_cloud(
    view: CatalogView,
    spec: CloudSpec,
    *,
    rate: ExchangeRate = USD,
    footprint: bool = True,
) -> Sourced[ResolvedCloud]:
    """The cloud side: a catalog offer (with its billing and region), or a bare price (USD,
    or ``price_per_hour`` in the request's currency converted at ``rate``). Without
    ``footprint`` (a calculation of money only) the PUE and host power are left at their
    defaults and not stated."""
    notes: list[Note] = []
    if spec.offer_id is not None:
        offer = view.offer(spec.offer_id)
        notes.append(Cited(f"offer {offer.id}: price_usd_per_hour", offer.source, offer.as_of))
        notes.append(Priced(f"offer {offer.id}", offer.as_of))
        if offer.id in (outliers := price_outliers(view)):
            notes.append(Caveat(outliers[offer.id]))
        if offer.commitment_term_months:
            notes.append(Caveat(commitment_note(offer)))
        gpu = view.gpu(offer.gpu_id)
        provider = view.provider(offer.provider)
        if provider is not None and provider.historical_note:
            notes.append(Caveat(f"offer {offer.id}: {provider.historical_note}"))
        region = view.offer_region(offer)
        pue = region.pue if region and region.pue else (provider.pue if provider else 1.0)
        if provider and footprint:
            notes.append(
                Assumed(
                    "cloud.pue",
                    pue,
                    (region.pue_source or region.source)
                    if region and region.pue
                    else provider.pue_source,
                )
            )
        host_w = DEFAULT_HOST_POWER_W
        if footprint:
            host_w, noted = _host(view, offer)
            notes += noted
        resolved = ResolvedCloud(
            rate_for_offer(offer), offer, gpu, offer.gpu_count, pue, region, host_w
        )
        return Sourced(resolved, tuple(notes))
    gpu, noted = gpu_or_none(view, spec.gpu)
    notes += noted
    price, noted = given_usd(
        spec.price_usd_per_hour, spec.price_per_hour, rate, "cloud.price_usd_per_hour"
    )
    notes += noted
    billing = costing.CloudRate(
        price_usd_per_hour=price or 0.0,
        monthly_fee_usd=spec.monthly_fee_usd or 0.0,
    )
    unknown = view.reference_value(PUE_UNKNOWN)
    pue = unknown.value
    if footprint:
        notes.append(
            Assumed("cloud.pue", pue, f"default for an unnamed provider: {unknown.source}")
        )
    count = spec.gpu_count or (1 if gpu else None)
    host = DEFAULT_HOST_POWER_W
    if gpu and footprint:
        host, noted = _host(view, None)
        notes += noted
    return Sourced(ResolvedCloud(billing, None, gpu, count, pue, None, host), tuple(notes))
