"""Resolution steps shared by the use cases: the answer's currency, utilization, region,
electricity price, carbon region, GPUs named in a request, and the cloud side. Every default
is decided here and stated in the notes (given / catalog id, source, as-of / default, source)."""

from __future__ import annotations

from dataclasses import dataclass

from app import costing
from app.catalog.sources.reference import (
    CPU_W_PER_CORE,
    MEMORY_W_PER_GB,
    PUE_UNKNOWN,
    VCPUS_PER_CORE,
)
from app.catalog.view import CatalogView
from app.costing import defaults, offers
from app.costing.money import USD, ExchangeRate, to_usd
from app.costing.sourced import Assumed, Caveat, Cited, Note, Priced, Sourced
from app.errors import CatalogGap
from app.models import CloudOffer, Gpu, Region
from app.models.inputs import CloudSpec, SiteInputs, Tariff, UsageInputs
from app.models.region import TariffPrice
from app.settings import Settings
from app.steps.currency import cite_rate, given_usd
from app.steps.trail import DEFAULT_BASE_POWER_W, DEFAULT_UTILIZATION_PROFILE, SEED_001

# A cloud host whose vCPUs and memory are unknown gets the desktop's base power (seed 001).
DEFAULT_HOST_POWER_W = DEFAULT_BASE_POWER_W
HOST_SOURCE = f"{SEED_001}, '100 W (CPU)', the same base power a desktop gets"


def resolve_usage(
    view: CatalogView, req: UsageInputs, *, idle_on_fraction: float = 0.0
) -> Sourced[costing.Usage]:
    """Utilization from the request, its named profile, or the seed's 15 % default."""
    notes: list[Note] = []
    if req.utilization is not None:
        u = req.utilization
    else:
        profile_id = req.utilization_profile or DEFAULT_UTILIZATION_PROFILE
        profile = view.profile(profile_id)
        u = profile.utilization
        how = "requested profile" if req.utilization_profile else "default profile"
        notes.append(Assumed("utilization", u, f"{how} '{profile.id}': {profile.source}"))
    return Sourced(costing.Usage(u, idle_on_fraction), tuple(notes))


def resolve_region(view: CatalogView, region_id: str | None) -> Region | None:
    return view.region(region_id) if region_id else None


def resolve_electricity(
    view: CatalogView,
    given_usd_per_kwh: float | None,
    region: Region | None,
    settings: Settings,
    tariff: Tariff | None = None,
    answer_rate: ExchangeRate | None = None,
) -> Sourced[float]:
    """Electricity price, USD/kWh: given > region's > settings default (seed 001's $0.12/kWh).

    A region answers with its ``tariff`` price (default non-household, stated; a region with
    only a household price answers with it, stated). A region priced in another currency
    (Eurostat: EUR) is converted at the catalog's rate for the price's own period (a 2025-S2
    price at the ECB's 2025-S2 mean), and the rate is cited; when the answer is in that same
    currency (``answer_rate``), at the answer's own rate instead, so the figure the answer
    shows is the published one, converted nowhere (0.2264 EUR/kWh, not 0.2264 EUR taken to
    USD at 2025's rate and back at 2026's). Raises :class:`CatalogGap` (404) for a region
    without a price."""
    notes: list[Note] = []
    if given_usd_per_kwh is not None:
        return Sourced(given_usd_per_kwh, tuple(notes))
    if region is None:
        price = settings.default_electricity_price_usd_per_kwh
        notes.append(Assumed("electricity_price_usd_per_kwh", price, _price_default(price)))
        return Sourced(price, tuple(notes))
    found, noted = _tariff_price(region, tariff)
    notes += noted
    if found is None:
        raise CatalogGap(
            f"region '{region.id}' has no electricity price in the catalog; "
            "give electricity_price_usd_per_kwh",
        )
    name = f"region {region.id}: {found.tariff.replace('_', '-')} electricity price"
    notes.append(Priced(name, found.as_of))
    source = found.source or region.source
    currency = region.electricity_currency
    if found.local_per_kwh is not None and currency and currency != "USD":
        notes.append(Cited(f"{name} {found.local_per_kwh:g} {currency}/kWh", source, found.as_of))
        if answer_rate is not None and answer_rate.currency == currency:
            return Sourced(
                to_usd(found.local_per_kwh, answer_rate.usd_per_unit), tuple(notes)
            )  # the answer's rate
        rate = view.fx_rate(currency, found.as_of)
        notes += cite_rate(rate, f"region {region.id}'s electricity price").notes
        return Sourced(to_usd(found.local_per_kwh, rate.usd_per_unit), tuple(notes))
    notes.append(Cited(f"{name} USD/kWh", source, found.as_of))
    return Sourced(found.usd_per_kwh, tuple(notes))


def _price_default(price_usd_per_kwh: float) -> str:
    """The assumption's source for a default electricity price: the registry's, unless this
    deployment set its own (``GPUCOST_DEFAULT_ELECTRICITY_PRICE_USD_PER_KWH``)."""
    if price_usd_per_kwh == defaults.ELECTRICITY_PRICE.number:
        return defaults.ELECTRICITY_PRICE.source_text()
    return (
        "default: this deployment's setting GPUCOST_DEFAULT_ELECTRICITY_PRICE_USD_PER_KWH "
        f"(the shipped default is {defaults.ELECTRICITY_PRICE.shown()}, {SEED_001})"
    )


def _tariff_price(
    region: Region,
    tariff: Tariff | None,
) -> Sourced[TariffPrice | None]:
    """The region's price at ``tariff`` (default non-household; the household price where the
    region has no other), the default and the fallback stated in ``notes``."""
    notes: list[Note] = []
    if tariff is Tariff.household:
        return Sourced(region.electricity(Tariff.household), tuple(notes))
    found = region.electricity(Tariff.non_household)
    if found is None:
        home = region.electricity(Tariff.household)
        if home is not None:
            notes.append(
                Assumed(
                    "tariff",
                    "household",
                    f"region {region.id} has no non-household price in the catalog: its household "
                    "price is used (give tariff or electricity_price_usd_per_kwh)",
                )
            )
        return Sourced(home, tuple(notes))
    if tariff is None:
        notes.append(
            Assumed(
                "tariff",
                "non_household",
                "default: a lab buys electricity as an institution (Eurostat band IC excluding "
                "VAT; EIA commercial sector, which includes educational institutions); give "
                "tariff: household for a home desktop",
            )
        )
    return Sourced(found, tuple(notes))


def request_electricity(
    view: CatalogView,
    req: SiteInputs,
    region: Region | None,
    settings: Settings,
    rate: ExchangeRate,
) -> Sourced[float]:
    """Electricity price of a break-even, run-cost, compare or electricity request, USD/kWh:
    its ``electricity_price_usd_per_kwh``, else its ``electricity_price_per_kwh`` converted
    at ``rate``, else :func:`resolve_electricity`'s region (at the request's ``tariff``) or
    default, on the prices' day."""
    notes: list[Note] = []
    given, noted = given_usd(
        req.electricity_price_usd_per_kwh,
        req.electricity_price_per_kwh,
        rate,
        "electricity_price_usd_per_kwh",
    )
    notes += noted
    price, noted = resolve_electricity(view, given, region, settings, req.tariff, rate)
    notes += noted
    return Sourced(price, tuple(notes))


def carbon_region(
    view: CatalogView,
    region: Region | None,
    settings: Settings,
) -> Sourced[Region]:
    """The region whose carbon intensity applies: the given one or the default (world)."""
    notes: list[Note] = []
    if region is not None:
        notes.append(
            Cited(
                f"region {region.id}: carbon_intensity_g_per_kwh",
                region.carbon_source,
                region.carbon_as_of,
            )
        )
        return Sourced(region, tuple(notes))
    default = view.region(settings.default_region)
    notes.append(
        Assumed(
            "carbon_intensity_g_per_kwh",
            default.carbon_intensity_g_per_kwh,
            f"default region '{default.id}': {default.carbon_source}",
        )
    )
    return Sourced(default, tuple(notes))


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
