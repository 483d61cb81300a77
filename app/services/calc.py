"""Turn API requests into cost-model inputs (resolving catalog names, applying documented
defaults), call :mod:`app.costing`, and shape the results with assumptions and sources.

Rounding happens here, once, at the edge: every USD, kWh, kg, W and hour figure to 8
significant digits (so a $0.0004 per-item cost keeps its precision), break-even days to 2
decimals.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from app import costing
from app.catalog.sources.reference import PUE_UNKNOWN
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.money import USD, ExchangeRate
from app.errors import CatalogGap, InvalidRequest
from app.models import Barebone, CloudOffer, Gpu, Region
from app.models.calc import (
    Assumption,
    BreakEvenMoney,
    BreakEvenRequest,
    BreakEvenResult,
    CarbonRequest,
    CarbonResult,
    CloudSide,
    CloudSpec,
    CurrencyRate,
    DesktopSide,
    DesktopSpec,
    EmbodiedCarbon,
    Performance,
    PriceAge,
    Resale,
    RunCostRequest,
    RunCostResult,
    RunOption,
    RunOptionResult,
    SourceRef,
    TotalCostOfOwnership,
)
from app.services.ownership import (
    DEFAULT_SCALING,
    MemoryNeed,
    Scaling,
    cite_rate,
    cloud_embodied,
    desktop_embodied,
    memory_need,
    resolve_scaling,
)
from app.settings import Settings

SEED_001 = "seed 001 (Tim Dettmers, 'Which GPU for deep learning', 2020-09-07)"
DEFAULT_BASE_POWER_W = 100.0  # seed 001: "100 W (CPU)"
DEFAULT_UTILIZATION_PROFILE = "phd-desktop"  # seed 001: 15 %
LIFETIME_SOURCE = (
    "IRS Publication 946 (2024), Table B-1, asset class 00.12, 5-year recovery for computers"
)


def sig8(x: float | None) -> float | None:
    """Round to 8 significant digits (None stays None)."""
    return None if x is None else float(f"{x:.8g}")


@dataclass
class Trail:
    """Assumptions made and sources used while building one answer, each listed once in the
    order first met."""

    assumptions: list[Assumption] = field(default_factory=list)
    sources: list[SourceRef] = field(default_factory=list)
    prices: dict[str, dt.date] = field(default_factory=dict)
    _seen: set[tuple] = field(default_factory=set, repr=False)

    def _first(self, key: tuple) -> bool:
        """Whether ``key`` is met for the first time (a set, not a scan of model equality)."""
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def assume(self, name: str, value: Any, source: str) -> None:
        if self._first(("assume", name, repr(value), source)):
            self.assumptions.append(Assumption(name=name, value=value, source=source))

    def cite(self, what: str, source: str, as_of) -> None:
        if self._first(("cite", what, source, as_of)):
            self.sources.append(SourceRef(what=what, source=source, as_of=as_of))

    def price(self, what: str, as_of: dt.date | None) -> None:
        """Note a catalog price used, with its date, for :meth:`price_age`."""
        if as_of is not None:
            self.prices[what] = as_of

    def price_fields(self, view: CatalogView, settings: Settings) -> dict[str, Any]:
        """A result's ``prices`` and ``warnings`` fields for the prices noted."""
        age, warnings = price_age(view, settings, self.prices)
        return {"prices": age, "warnings": warnings}


def price_age(
    view: CatalogView, settings: Settings, prices: dict[str, dt.date]
) -> tuple[PriceAge, list[str]]:
    """:class:`PriceAge` of ``prices`` ({what: date}) against the day read (the pinned
    ``as_of``, else today, UTC), and a warning per price older than
    ``settings.price_max_age_days``, oldest first."""
    day = view.day
    limit = settings.price_max_age_days
    by_age = sorted(prices.items(), key=lambda kv: (kv[1], kv[0]))  # oldest first
    oldest = by_age[0] if by_age else None
    warnings = [
        f"{what}: price dated {when.isoformat()}, {(day - when).days} days before "
        f"{day.isoformat()} (limit {limit} days)"
        for what, when in by_age
        if (day - when).days > limit
    ]
    age = PriceAge(
        prices_as_of=day,
        oldest_price_date=oldest[1] if oldest else None,
        oldest_price=oldest[0] if oldest else None,
        oldest_price_age_days=(day - oldest[1]).days if oldest else None,
        max_age_days=limit,
        prices_used=len(prices),
    )
    return age, warnings


# ------------------------------------------------------------------------------------------
# Shared resolution
# ------------------------------------------------------------------------------------------


def prices_day(view: CatalogView) -> dt.date:
    """The day whose prices an answer reads: the pinned ``as_of``, else today (UTC)."""
    return view.day


def resolve_currency(view: CatalogView, req, trail: Trail) -> ExchangeRate:
    """The rate of the request's ``currency`` in force on the prices' day (USD: 1), cited."""
    rate = view.fx_rate(req.currency)
    cite_rate(trail, rate, "the answer's currency")
    return rate


def currency_rate(rate: ExchangeRate) -> CurrencyRate:
    """The answer's ``currency_rate`` field."""
    return CurrencyRate(
        currency=rate.currency, usd_per_unit=rate.usd_per_unit, as_of=rate.as_of, source=rate.source
    )


def in_currency(amount_usd: float | None, rate: ExchangeRate) -> float | None:
    """``amount_usd`` in the rate's currency (8 significant digits); None stays None."""
    return None if amount_usd is None else sig8(own.from_usd(amount_usd, rate.usd_per_unit))


def given_usd(
    usd: float | None, neutral: float | None, rate: ExchangeRate, name: str, trail: Trail
) -> float | None:
    """A money input in USD: the ``_usd`` field as given, else the currency-neutral field
    converted at ``rate`` (and said so), else None."""
    if usd is not None or neutral is None:
        return usd
    if rate.currency == "USD":
        return neutral
    value = own.to_usd(neutral, rate.usd_per_unit)
    trail.assume(
        name,
        sig8(value),
        f"{neutral:g} {rate.currency} x {rate.usd_per_unit:g} USD/{rate.currency} "
        f"({rate.source}, {rate.as_of})",
    )
    return value


def embodied_model(e: own.Embodied) -> EmbodiedCarbon:
    """An :class:`EmbodiedCarbon` field from the model's amount (8 significant digits)."""
    return EmbodiedCarbon(
        co2e_kg=sig8(e.co2e_kg), low_co2e_kg=sig8(e.low_co2e_kg), high_co2e_kg=sig8(e.high_co2e_kg)
    )


def resolve_usage(
    view: CatalogView, req, trail: Trail, *, idle_on_fraction: float = 0.0
) -> costing.Usage:
    """Utilization from the request, its named profile, or the seed's 15 % default."""
    if req.utilization is not None:
        u = req.utilization
    else:
        profile_id = req.utilization_profile or DEFAULT_UTILIZATION_PROFILE
        profile = view.profile(profile_id)
        u = profile.utilization
        how = "requested profile" if req.utilization_profile else "default profile"
        trail.assume("utilization", u, f"{how} '{profile.id}': {profile.source}")
    return costing.Usage(u, idle_on_fraction)


def resolve_region(view: CatalogView, region_id: str | None) -> Region | None:
    return view.region(region_id) if region_id else None


def resolve_electricity(
    view: CatalogView,
    given_usd_per_kwh: float | None,
    region: Region | None,
    settings: Settings,
    trail: Trail,
) -> float:
    """Electricity price, USD/kWh: given > region's > settings default (seed 001's $0.12/kWh).
    A region priced in another currency (Eurostat: EUR) is converted at the catalog's rate in
    force on the view's day, and the rate is cited. Raises :class:`CatalogGap`
    (404) for a region without a price."""
    if given_usd_per_kwh is not None:
        return given_usd_per_kwh
    if region is not None:
        if region.electricity_price_usd_per_kwh is None:
            raise CatalogGap(
                f"region '{region.id}' has no electricity price in the catalog; "
                "give electricity_price_usd_per_kwh",
            )
        trail.price(f"region {region.id}: electricity", region.electricity_as_of)
        local, currency = region.electricity_price_local, region.electricity_currency
        if local is not None and currency and currency != "USD":
            rate = view.fx_rate(currency)
            trail.cite(
                f"region {region.id}: electricity price {local:g} {currency}/kWh",
                region.electricity_source or region.source,
                region.electricity_as_of,
            )
            cite_rate(trail, rate, f"region {region.id}'s electricity price")
            return own.to_usd(local, rate.usd_per_unit)
        trail.cite(
            f"region {region.id}: electricity_price_usd_per_kwh",
            region.electricity_source or region.source,
            region.electricity_as_of,
        )
        return region.electricity_price_usd_per_kwh
    price = settings.default_electricity_price_usd_per_kwh
    trail.assume("electricity_price_usd_per_kwh", price, f"default: {SEED_001}, US price")
    return price


def request_electricity(
    view: CatalogView,
    req,
    region: Region | None,
    settings: Settings,
    trail: Trail,
    rate: ExchangeRate,
) -> float:
    """Electricity price of a break-even, run-cost or compare request, USD/kWh: its
    ``electricity_price_usd_per_kwh``, else its ``electricity_price_per_kwh`` converted at
    ``rate``, else :func:`resolve_electricity`'s region or default, on the prices' day."""
    given = given_usd(
        req.electricity_price_usd_per_kwh,
        req.electricity_price_per_kwh,
        rate,
        "electricity_price_usd_per_kwh",
        trail,
    )
    return resolve_electricity(view, given, region, settings, trail)


def carbon_region(
    view: CatalogView, region: Region | None, settings: Settings, trail: Trail
) -> Region:
    """The region whose carbon intensity applies: the given one or the default (world)."""
    if region is not None:
        trail.cite(
            f"region {region.id}: carbon_intensity_g_per_kwh",
            region.carbon_source,
            region.carbon_as_of,
        )
        return region
    default = view.region(settings.default_region)
    trail.assume(
        "carbon_intensity_g_per_kwh",
        default.carbon_intensity_g_per_kwh,
        f"default region '{default.id}': {default.carbon_source}",
    )
    return default


def _gpu_or_none(view: CatalogView, name: str | None, trail: Trail) -> Gpu | None:
    if name is None:
        return None
    gpu = view.resolve_gpu(name)
    trail.cite(f"gpu {gpu.id}: specs and TDP", gpu.source, gpu.as_of)
    return gpu


@dataclass(frozen=True)
class ResolvedResale:
    """Selling the desktop: when (``purchase_date``, ``years`` later, ``resale_on``), for how
    much (``value_usd``), and on what basis (``given`` or ``depreciation curve`` with the
    GPUs' ``retained_fraction`` and the curve's ``annual_decay``)."""

    purchase_date: dt.date
    years: float | None
    resale_on: dt.date | None
    value_usd: float
    basis: str
    retained_fraction: float | None
    annual_decay: float | None


@dataclass
class ResolvedDesktop:
    """A desktop as the model needs it (see :class:`costing.Desktop` for units), its GPU,
    the GPUs' price (USD, each) and the resale when the machine is sold."""

    desktop: costing.Desktop
    gpu: Gpu | None
    gpu_price_usd: float | None = None
    resale: ResolvedResale | None = None

    @property
    def horizon_years(self) -> float:
        """Years owned: until resale, else the lifetime."""
        if self.resale is not None and self.resale.years is not None:
            return self.resale.years
        return self.desktop.lifetime_years


def note_catalog_gpu_price(spec: DesktopSpec, gpu: Gpu | None, trail: Trail, prefix: str) -> None:
    """State the GPU's catalog launch price (and its date, for price age) when it stands in
    for a ``gpu_price_usd`` the request did not give."""
    if spec.gpu_price_usd is None and gpu is not None and gpu.price_new_usd is not None:
        trail.assume(
            f"{prefix}.gpu_price_usd", gpu.price_new_usd, gpu.price_new_source or gpu.source
        )
        trail.price(f"gpu {gpu.id}: price_new_usd", gpu.price_new_as_of)


def _add_years(day: dt.date, years: float) -> dt.date | None:
    try:
        return day + dt.timedelta(days=round(years * costing.DAYS_PER_YEAR))
    except OverflowError:
        return None


def resolve_resale(
    view: CatalogView,
    spec: DesktopSpec,
    desk: ResolvedDesktop,
    rate: ExchangeRate,
    trail: Trail,
    prefix: str = "desktop",
) -> ResolvedResale | None:
    """The resale of ``spec``'s desktop: a given value, else (with ``resell_after_years``)
    the GPUs' price times the depreciation curve of their class (the barebone counts 0);
    None when the machine is not resold (seed 001's assumption)."""
    given = given_usd(
        spec.resale_value_usd, spec.resale_value, rate, f"{prefix}.resale_value_usd", trail
    )
    years = spec.resell_after_years
    if given is None and years is None:
        return None
    purchase = spec.purchase_date or view.day
    resale_on = _add_years(purchase, years) if years is not None else None
    if given is not None:
        return ResolvedResale(purchase, years, resale_on, given, "given", None, None)
    if desk.gpu_price_usd is None and desk.gpu is not None:
        raise CatalogGap(
            f"{prefix}: {desk.gpu.id} has no catalog price to value its resale; give "
            "gpu_price_usd or resale_value_usd"
        )
    if desk.gpu_price_usd is None:
        raise InvalidRequest(
            f"{prefix}: the depreciation curve values the GPUs; give gpu or gpu_price_usd, or "
            "give resale_value_usd"
        )
    note_catalog_gpu_price(spec, desk.gpu, trail, prefix)
    curve, note = view.depreciation_curve(desk.gpu)
    kept = curve.retained_fraction(years)
    value = desk.gpu_price_usd * desk.desktop.gpu_count * kept
    trail.assume(
        f"{prefix}.resale_value_usd",
        sig8(value),
        f"{desk.desktop.gpu_count} x ${desk.gpu_price_usd:g} x exp(-{curve.annual_decay:.4f} x "
        f"{years:g} y) = {kept:.4f} of the GPUs' price ({note}); the barebone is counted at 0 "
        "(no used-price source)",
    )
    trail.cite(f"depreciation curve ({note})", curve.source, None)
    return ResolvedResale(
        purchase, years, resale_on, value, "depreciation curve", kept, curve.annual_decay
    )


def resolve_desktop(
    view: CatalogView,
    spec: DesktopSpec,
    trail: Trail,
    prefix: str = "desktop",
    *,
    rate: ExchangeRate = USD,
    with_resale: bool = True,
) -> ResolvedDesktop:
    """Build a :class:`costing.Desktop` from a request, stating every default used. Money
    given in the request's currency is converted at ``rate``; with ``with_resale`` the resale
    (:func:`resolve_resale`) is resolved too."""
    gpu = _gpu_or_none(view, spec.gpu, trail)
    gpu_price: float | None = spec.gpu_price_usd
    if gpu_price is None and gpu is not None and gpu.price_new_usd is not None:
        gpu_price = gpu.price_new_usd  # noted below where it is used
    total_price = given_usd(
        spec.total_price_usd, spec.total_price, rate, f"{prefix}.total_price_usd", trail
    )
    barebone: Barebone | None = None
    if spec.barebone:
        barebone = view.barebone(spec.barebone)
        trail.cite(f"barebone {barebone.id}", barebone.source, barebone.as_of)

    if spec.gpu_power_w is not None:
        gpu_power = spec.gpu_power_w
    elif gpu is not None:
        gpu_power = gpu.tdp_w
        trail.assume(f"{prefix}.gpu_power_w", gpu_power, f"TDP of {gpu.id} ({gpu.source})")
    else:
        raise InvalidRequest(f"{prefix}: give gpu or gpu_power_w")

    if total_price is not None:
        upfront = total_price
    else:
        if gpu_price is None:
            raise CatalogGap(
                f"{prefix}: no catalog price for this GPU; give total_price_usd or gpu_price_usd"
            )
        note_catalog_gpu_price(spec, gpu, trail, prefix)
        if spec.barebone_price_usd is not None:
            base_price = spec.barebone_price_usd
        else:
            if barebone is None:
                barebone = view.smallest_barebone(spec.gpu_count)
                if barebone is None:
                    raise CatalogGap(
                        f"{prefix}: no catalog barebone takes {spec.gpu_count} GPUs; give "
                        "barebone_price_usd or total_price_usd"
                    )
                trail.assume(
                    f"{prefix}.barebone",
                    barebone.id,
                    f"smallest catalog barebone for {spec.gpu_count} GPU(s): {barebone.source}",
                )
            base_price = float(barebone.price_usd)
            trail.price(f"barebone {barebone.id}", barebone.as_of)
        upfront = gpu_price * spec.gpu_count + base_price

    if spec.base_power_w is not None:
        base_power = spec.base_power_w
    elif barebone is not None:
        base_power = barebone.base_power_w
    else:
        base_power = DEFAULT_BASE_POWER_W
        trail.assume(f"{prefix}.base_power_w", base_power, f"default: {SEED_001}, '100 W (CPU)'")
    idle = spec.idle_power_w
    if idle is None:
        idle = barebone.idle_power_w if barebone and barebone.idle_power_w is not None else 0.0
    psu = spec.psu_efficiency
    if psu is None:
        psu = barebone.psu_efficiency if barebone and barebone.psu_efficiency else 1.0
        if psu == 1.0:
            trail.assume(
                f"{prefix}.psu_efficiency",
                1.0,
                f"default: component power counted as wall power, as {SEED_001}",
            )
    lifetime = spec.lifetime_years
    if lifetime is None:
        lifetime = costing.DEFAULT_LIFETIME_YEARS
        trail.assume(f"{prefix}.lifetime_years", lifetime, f"default: {LIFETIME_SOURCE}")
    desktop = costing.Desktop(
        upfront_usd=upfront,
        gpu_power_w=gpu_power,
        gpu_count=spec.gpu_count,
        base_power_w=base_power,
        idle_power_w=idle,
        psu_efficiency=psu,
        lifetime_years=lifetime,
    )
    resolved = ResolvedDesktop(desktop, gpu, gpu_price)
    if with_resale:
        resolved.resale = resolve_resale(view, spec, resolved, rate, trail, prefix)
    return resolved


@dataclass
class ResolvedCloud:
    """The cloud side as the model needs it: billing (``rate``, USD/h and USD/month), the
    catalog offer if any, its GPU and count, datacenter ``pue`` (>= 1) and region."""

    rate: costing.CloudRate
    offer: CloudOffer | None
    gpu: Gpu | None
    gpu_count: int | None
    pue: float
    region: Region | None


def rate_for_offer(offer: CloudOffer) -> costing.CloudRate:
    """The billing of a catalog offer as a :class:`costing.CloudRate`."""
    return costing.CloudRate(
        price_usd_per_hour=float(offer.price_usd_per_hour),
        monthly_fee_usd=float(offer.monthly_fee_usd),
        included_compute_units_per_month=offer.included_compute_units_per_month,
        compute_units_per_hour=offer.compute_units_per_hour,
        billing_increment_s=offer.billing_increment_s,
        billing_minimum_s=offer.billing_minimum_s,
    )


def resolve_cloud(
    view: CatalogView, spec: CloudSpec, trail: Trail, *, rate: ExchangeRate = USD
) -> ResolvedCloud:
    """The cloud side: a catalog offer (with its billing and region), or a bare price (USD,
    or ``price_per_hour`` in the request's currency converted at ``rate``)."""
    if spec.offer_id is not None:
        offer = view.offer(spec.offer_id)
        trail.cite(f"offer {offer.id}: price_usd_per_hour", offer.source, offer.as_of)
        trail.price(f"offer {offer.id}", offer.as_of)
        gpu = view.gpu(offer.gpu_id)
        provider = view.provider(offer.provider)
        region = view.offer_region(offer)
        pue = region.pue if region and region.pue else (provider.pue if provider else 1.0)
        if provider:
            trail.assume(
                "cloud.pue",
                pue,
                region.pue_source if region and region.pue else provider.pue_source,
            )
        return ResolvedCloud(rate_for_offer(offer), offer, gpu, offer.gpu_count, pue, region)
    gpu = _gpu_or_none(view, spec.gpu, trail)
    price = given_usd(
        spec.price_usd_per_hour, spec.price_per_hour, rate, "cloud.price_usd_per_hour", trail
    )
    billing = costing.CloudRate(
        price_usd_per_hour=price or 0.0,
        monthly_fee_usd=spec.monthly_fee_usd or 0.0,
    )
    unknown = view.reference_value(PUE_UNKNOWN)
    pue = unknown.value
    trail.assume("cloud.pue", pue, f"default for an unnamed provider: {unknown.source}")
    return ResolvedCloud(billing, None, gpu, spec.gpu_count or (1 if gpu else None), pue, None)


def measured_runtimes(view: CatalogView) -> dict[str, dict[str, float]]:
    """Seconds per benchmark and GPU, for every non-OOM result: {benchmark: {gpu: s}}
    (from the catalog view)."""
    return view.runtimes_s


def speed(
    by_bench: dict[str, dict[str, float]],
    a: Gpu,
    n_a: int,
    b: Gpu,
    n_b: int,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio:
    """Cloud (b) hours per desktop (a) hour: geometric mean of measured benchmark ratios where
    both GPUs ran the same workload (``by_bench`` from :func:`measured_runtimes`), else a
    memory-bandwidth estimate. GPU counts enter through ``scaling``'s speed-ups,
    ``S(n_a) / S(n_b)`` (Amdahl's law, :func:`app.costing.speedup`)."""
    s_a, s_b = scaling.speedup(n_a), scaling.speedup(n_b)
    shared = [
        (bid, t[a.id], t[b.id]) for bid, t in sorted(by_bench.items()) if a.id in t and b.id in t
    ]
    if shared and a.id != b.id:
        logs = [math.log(tb / ta) for _, ta, tb in shared]
        factor = math.exp(sum(logs) / len(logs)) * s_a / s_b
        detail = "measured: geometric mean over benchmarks " + ", ".join(
            f"{bid} ({ta:g} s vs {tb:g} s)" for bid, ta, tb in shared
        )
        return costing.SpeedRatio(factor, "benchmark", detail)
    if a.id == b.id:
        return costing.SpeedRatio(
            s_a / s_b,
            "benchmark",
            f"same GPU; {n_a} vs {n_b} GPU(s), speed-ups {s_a:.4g}x and {s_b:.4g}x "
            f"({scaling.model} scaling)",
        )
    if not a.memory_bandwidth_gb_per_s or not b.memory_bandwidth_gb_per_s:
        raise CatalogGap(f"no benchmark or bandwidth to compare {a.id} and {b.id}")
    return costing.speed_ratio_from_bandwidth(
        a.memory_bandwidth_gb_per_s,
        b.memory_bandwidth_gb_per_s,
        n_a,
        n_b,
        scaling.parallel_fraction,
    )


# ------------------------------------------------------------------------------------------
# Break-even
# ------------------------------------------------------------------------------------------


def cloud_speed(
    view: CatalogView,
    normalize: bool,
    desk: ResolvedDesktop,
    cloud: ResolvedCloud,
    trail: Trail,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio | None:
    """The cloud GPU's speed relative to the desktop's when ``normalize`` is asked for and
    both GPUs are known (cloud hours are then scaled by its ``time_factor``); otherwise None,
    with the assumption stated: cloud hours = desktop busy hours (seed 001)."""
    if normalize and (desk.gpu is None or cloud.gpu is None):
        trail.assume(
            "normalize_performance",
            False,
            "requested, but skipped: name the desktop's gpu and the cloud's gpu (or offer) to "
            "scale cloud hours; cloud hours = desktop busy hours",
        )
        return None
    if not normalize:
        trail.assume(
            "normalize_performance",
            False,
            f"cloud hours = desktop busy hours ('similar performance', {SEED_001})",
        )
        return None
    return speed(
        measured_runtimes(view),
        desk.gpu,
        desk.desktop.gpu_count,
        cloud.gpu,
        cloud.gpu_count or 1,
        scaling,
    )


def compute_break_even(
    view: CatalogView, req: BreakEvenRequest, settings: Settings
) -> BreakEvenResult:
    """Break-even days, both sides' running costs, total cost of ownership over the horizon
    (resale included), operational and embodied emissions, and the money in the request's
    currency; see :class:`BreakEvenResult`."""
    trail = Trail()
    rate = resolve_currency(view, req, trail)
    desk = resolve_desktop(view, req.desktop, trail, rate=rate)
    cloud = resolve_cloud(view, req.cloud, trail, rate=rate)
    usage = resolve_usage(view, req, trail, idle_on_fraction=req.desktop.idle_on_fraction or 0.0)
    region = resolve_region(view, req.region)
    price = request_electricity(view, req, region, settings, trail, rate)
    ci_region = carbon_region(view, region, settings, trail)
    scaling = resolve_scaling(req)
    scaling.note(trail, (desk.desktop.gpu_count, cloud.gpu_count or 1))
    perf = cloud_speed(view, req.normalize_performance, desk, cloud, trail, scaling)
    need = memory_need(req.memory_preset, req.precision, trail)

    result = costing.break_even(
        desk.desktop, cloud.rate, usage, price, cloud_time_factor=perf.time_factor if perf else 1.0
    )
    resale = desk.resale
    horizon_years = desk.horizon_years
    owned = own.ownership(
        desk.desktop.upfront_usd,
        resale.value_usd if resale else 0.0,
        result.desktop.cost_usd_per_day,
        result.cloud.cost_usd_per_day,
        horizon_years * costing.DAYS_PER_YEAR,
    )
    if resale is None:
        trail.assume(
            "tco.horizon_years",
            horizon_years,
            "no resale: the desktop's lifetime_years (seed 001 counts no resale value)",
        )
    days = result.days if resale is None else owned.break_even_days
    reason = result.reason if days is None else None

    desktop_kwh_year = result.desktop.energy_kwh_per_year or 0.0
    ci = ci_region.carbon_intensity_g_per_kwh
    machine = desktop_embodied(view, desk.desktop.gpu_count, trail)
    cloud_kwh_year = None
    cloud_co2 = None
    cloud_embodied_year = None
    if cloud.gpu is not None:
        cloud_ci_region = cloud.region or ci_region
        cloud_hours_year = result.cloud_busy_hours_per_day * costing.DAYS_PER_YEAR
        cloud_kwh_year = costing.energy_kwh(
            cloud.gpu.tdp_w * (cloud.gpu_count or 1), cloud_hours_year, cloud.pue
        )
        cloud_co2 = costing.co2e_kg(cloud_kwh_year, cloud_ci_region.carbon_intensity_g_per_kwh)
        trail.assume(
            "cloud.energy",
            "GPU TDP x GPU count x busy hours x PUE",
            "host CPU and memory power are not counted",
        )
        gpus_embodied, life = cloud_embodied(view, cloud.gpu_count or 1, trail)
        cloud_embodied_year = gpus_embodied.co2e_kg * own.rented_share(cloud_hours_year, life)
        if cloud.region is not None:
            trail.cite(
                f"region {cloud.region.id}: carbon_intensity_g_per_kwh",
                cloud.region.carbon_source,
                cloud.region.carbon_as_of,
            )

    offer = cloud.offer
    memory, warnings = need.check([desk.gpu, cloud.gpu]) if need else (None, [])
    fields = trail.price_fields(view, settings)
    fields["warnings"] = warnings + fields["warnings"]
    return BreakEvenResult(
        break_even_days=None if days is None else round(days, 2),
        break_even_reason=reason,
        utilization=usage.utilization,
        daily_saving_usd=sig8(result.daily_saving_usd),
        desktop=DesktopSide(
            gpu_id=desk.gpu.id if desk.gpu else None,
            gpu_count=desk.desktop.gpu_count,
            upfront_usd=sig8(desk.desktop.upfront_usd),
            busy_power_w=sig8(desk.desktop.busy_power_w),
            electricity_price_usd_per_kwh=sig8(price),
            cost_usd_per_day=sig8(result.desktop.cost_usd_per_day),
            cost_usd_per_year=sig8(result.desktop.cost_usd_per_year),
            energy_kwh_per_year=sig8(desktop_kwh_year),
            co2e_kg_per_year=sig8(costing.co2e_kg(desktop_kwh_year, ci)),
            carbon_intensity_g_per_kwh=ci,
            embodied=embodied_model(machine),
            embodied_co2e_kg_per_year=sig8(machine.co2e_kg / desk.desktop.lifetime_years),
        ),
        cloud=CloudSide(
            offer_id=offer.id if offer else None,
            provider=offer.provider if offer else None,
            pricing_model=offer.pricing_model if offer else None,
            gpu_id=cloud.gpu.id if cloud.gpu else None,
            gpu_count=cloud.gpu_count,
            price_usd_per_hour=cloud.rate.price_usd_per_hour,
            monthly_fee_usd=cloud.rate.monthly_fee_usd,
            busy_hours_per_day=sig8(result.cloud_busy_hours_per_day),
            cost_usd_per_day=sig8(result.cloud.cost_usd_per_day),
            cost_usd_per_year=sig8(result.cloud.cost_usd_per_year),
            energy_kwh_per_year=sig8(cloud_kwh_year),
            co2e_kg_per_year=sig8(cloud_co2),
            embodied_co2e_kg_per_year=sig8(cloud_embodied_year),
        ),
        performance=Performance(
            time_factor=sig8(perf.time_factor), basis=perf.basis, detail=perf.detail
        )
        if perf
        else None,
        resale=Resale(
            purchase_date=resale.purchase_date,
            resell_after_years=resale.years,
            resale_on=resale.resale_on,
            resale_value_usd=sig8(resale.value_usd),
            basis=resale.basis,
            gpu_retained_fraction=sig8(resale.retained_fraction),
            annual_decay=sig8(resale.annual_decay),
            break_even_days_without_resale=None if result.days is None else round(result.days, 2),
        )
        if resale
        else None,
        tco=TotalCostOfOwnership(
            horizon_years=horizon_years,
            horizon_days=sig8(owned.horizon_days),
            desktop_tco_usd=sig8(owned.desktop_tco_usd),
            cloud_tco_usd=sig8(owned.cloud_tco_usd),
            tco_saving_usd=sig8(owned.tco_saving_usd),
            cheaper="desktop" if owned.tco_saving_usd > 0 else "cloud",
            pays_back_within_horizon=owned.pays_back_within_horizon,
        ),
        currency_rate=currency_rate(rate),
        memory=memory,
        in_currency=BreakEvenMoney(
            upfront=in_currency(desk.desktop.upfront_usd, rate),
            resale_value=in_currency(owned.resale_usd, rate),
            daily_saving=in_currency(result.daily_saving_usd, rate),
            desktop_cost_per_year=in_currency(result.desktop.cost_usd_per_year, rate),
            cloud_cost_per_year=in_currency(result.cloud.cost_usd_per_year, rate),
            desktop_tco=in_currency(owned.desktop_tco_usd, rate),
            cloud_tco=in_currency(owned.cloud_tco_usd, rate),
            electricity_price_per_kwh=in_currency(price, rate),
            cloud_price_per_hour=in_currency(cloud.rate.price_usd_per_hour, rate),
        ),
        assumptions=trail.assumptions,
        sources=trail.sources,
        **fields,
    )


# ------------------------------------------------------------------------------------------
# Run cost
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkTime:
    """One GPU's time for one run of a catalog benchmark: ``seconds`` (s; None when it does
    not fit or cannot be estimated), ``basis`` (`benchmark` measured, `estimate` scaled by
    memory bandwidth), ``fits`` (None = unknown), the measured ``max_batch_size`` per GPU
    (items, None = unknown) and a ``note`` saying how it was obtained."""

    seconds: float | None
    basis: str | None
    fits: bool | None
    max_batch_size: int | None
    note: str | None


def benchmark_reference(
    results: dict[str, Any], gpu_by_id: Callable[[str], Gpu | None]
) -> tuple[Any, Gpu] | None:
    """The (result, GPU) with the most memory bandwidth among a benchmark's measured runs:
    the base for estimating GPUs it was not run on. None when nothing was measured."""
    measured = [
        (r, gpu) for gid, r in results.items() if r.seconds and (gpu := gpu_by_id(gid)) is not None
    ]
    if not measured:
        return None
    return max(measured, key=lambda p: p[1].memory_bandwidth_gb_per_s or 0)


def benchmark_time(
    benchmark_id: str, results: dict[str, Any], reference: tuple[Any, Gpu] | None, gpu: Gpu
) -> BenchmarkTime:
    """One run of ``benchmark_id`` on one ``gpu``: measured when it ran there (out of memory
    means it does not fit), else the reference's time scaled by the memory-bandwidth ratio
    (seed 001: speed scales with bandwidth within an architecture), labelled an estimate."""
    res = results.get(gpu.id)
    if res is not None and res.oom:
        # The timed run ran out of memory at the benchmark's settings; the max batch size was
        # measured separately (seed 004), so it is still reported.
        return BenchmarkTime(
            None,
            "benchmark",
            False,
            res.max_batch_size,
            f"does not fit: {benchmark_id} ran out of GPU memory on {gpu.id} "
            "at the benchmark's settings",
        )
    if res is not None:
        return BenchmarkTime(res.seconds, "benchmark", True, res.max_batch_size, None)
    if reference is None or not gpu.memory_bandwidth_gb_per_s:
        return BenchmarkTime(
            None, None, None, None, f"{gpu.id} was not benchmarked and has no bandwidth figure"
        )
    ref_res, ref = reference
    ratio = costing.speed_ratio_from_bandwidth(
        ref.memory_bandwidth_gb_per_s, gpu.memory_bandwidth_gb_per_s
    )
    return BenchmarkTime(
        ref_res.seconds * ratio.time_factor,
        "estimate",
        None,
        None,
        f"not benchmarked on {gpu.id}: {ratio.detail}, from {ref.id}; memory fit unknown",
    )


@dataclass
class _Runtime:
    """Runtime of one run on an option: ``seconds`` (s, None when it does not fit or is
    unknown), ``basis`` (`benchmark`, `given`, `estimate`), ``fits`` (None = unknown),
    ``max_batch_size`` (items, per GPU x count) and a ``note`` saying how it was obtained."""

    seconds: float | None
    basis: str | None
    fits: bool | None
    max_batch_size: int | None
    note: str | None


@dataclass
class _RunContext:
    """What one run-cost request resolves once and every option reuses."""

    req: RunCostRequest
    trail: Trail
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    carbon: Region
    bench_results: dict[str, Any]  # this benchmark's results by GPU id
    bench_reference: tuple[Any, Gpu] | None  # (result, GPU) with the highest bandwidth
    ref_gpu: Gpu | None  # the GPU `runtime_s` was measured on
    by_bench: dict[str, dict[str, float]]  # measured_runtimes(), when ref_gpu is set
    scaling: Scaling = DEFAULT_SCALING  # multi-GPU speed-ups
    rate: ExchangeRate = USD  # the answer's currency
    memory: MemoryNeed | None = None  # the workload's memory need, when a preset is named


def _runtime_on(ctx: _RunContext, gpu: Gpu, count: int) -> _Runtime:
    """Runtime of one run on ``count`` x ``gpu``: measured, given, or estimated (and said)."""
    w = ctx.req.workload
    if w.benchmark:
        bt = benchmark_time(w.benchmark, ctx.bench_results, ctx.bench_reference, gpu)
        batch = w.max_batch_size or bt.max_batch_size
        note = bt.note
        gain = ctx.scaling.speedup(count)
        if bt.seconds is not None and count > 1:
            note = "; ".join(
                filter(
                    None,
                    [
                        note,
                        f"{count} GPUs run {gain:.4g}x as fast as one ({ctx.scaling.model} scaling)",
                    ],
                )
            )
        return _Runtime(
            None if bt.seconds is None else bt.seconds / gain,
            bt.basis,
            bt.fits,
            batch * count if batch else None,
            note,
        )
    runtime = w.runtime_s or 0.0
    ref_gpu = ctx.ref_gpu
    if ref_gpu is None:
        return _Runtime(
            runtime,
            "given",
            None,
            w.max_batch_size,
            "runtime taken as given on every option (no workload GPU named)",
        )
    ratio = speed(ctx.by_bench, ref_gpu, w.gpu_count, gpu, count, ctx.scaling)
    basis = "given" if ref_gpu.id == gpu.id and count == w.gpu_count else ratio.basis
    return _Runtime(
        runtime * ratio.time_factor,
        basis,
        None,
        w.max_batch_size * count if w.max_batch_size else None,
        None if basis == "given" else ratio.detail,
    )


def compute_run_cost(view: CatalogView, req: RunCostRequest, settings: Settings) -> RunCostResult:
    """Per-option cost of one run; see :class:`RunCostResult`."""
    trail = Trail()
    w = req.workload
    bench_results: dict[str, Any] = {}
    bench_reference = None
    if w.benchmark:
        bench = view.benchmark(w.benchmark)
        trail.cite(f"benchmark {bench.id}", bench.source, bench.as_of)
        bench_results = {r.gpu_id: r for r in view.results_of(bench.id)}
        bench_reference = benchmark_reference(bench_results, view.gpu)
    ref_gpu = _gpu_or_none(view, w.gpu, trail)
    region = resolve_region(view, req.region)
    rate = resolve_currency(view, req, trail)
    ctx = _RunContext(
        req=req,
        trail=trail,
        usage=resolve_usage(view, req, trail),
        electricity_price_usd_per_kwh=request_electricity(view, req, region, settings, trail, rate),
        carbon=carbon_region(view, region, settings, trail),
        bench_results=bench_results,
        bench_reference=bench_reference,
        ref_gpu=ref_gpu,
        by_bench=measured_runtimes(view) if ref_gpu is not None else {},
        scaling=resolve_scaling(req),
        rate=rate,
        memory=memory_need(req.memory_preset, req.precision, trail),
    )
    options = [_run_option(view, ctx, opt, i) for i, opt in enumerate(req.options)]
    ctx.scaling.note(trail, [w.gpu_count, *(o.gpu_count for o in options)])
    gpus = [ref_gpu, *(view.gpu(o.gpu_id) for o in options)]
    memory, warnings = ctx.memory.check(gpus) if ctx.memory else (None, [])
    fields = trail.price_fields(view, settings)
    fields["warnings"] = warnings + fields["warnings"]
    return RunCostResult(
        workload=w.model_dump(exclude_none=True),
        options=options,
        currency_rate=currency_rate(rate),
        memory=memory,
        assumptions=trail.assumptions,
        sources=trail.sources,
        **fields,
    )


def _run_option(view: CatalogView, ctx: _RunContext, opt: RunOption, i: int) -> RunOptionResult:
    """One option's run cost, energy and emissions."""
    trail, usage, ci_region = ctx.trail, ctx.usage, ctx.carbon
    items = ctx.req.workload.items
    rate = ctx.rate
    if opt.desktop is not None:
        desk = resolve_desktop(view, opt.desktop, trail, prefix=f"options[{i}].desktop", rate=rate)
        if desk.gpu is None:
            raise InvalidRequest(f"options[{i}].desktop: name the gpu to cost a run")
        rt = _runtime_on(ctx, desk.gpu, desk.desktop.gpu_count)
        label = f"desktop {desk.desktop.gpu_count}x {desk.gpu.id}"
        base = dict(
            label=label,
            kind="desktop",
            offer_id=None,
            gpu_id=desk.gpu.id,
            gpu_count=desk.desktop.gpu_count,
            fits=rt.fits,
            runtime_s=sig8(rt.seconds),
            runtime_basis=rt.basis,
            billed_s=None,
            max_batch_size=rt.max_batch_size,
            note=rt.note,
        )
        if rt.seconds is None:
            return RunOptionResult(
                **base,
                price_usd_per_hour=None,
                cost_usd=None,
                marginal_cost_usd=None,
                energy_kwh=None,
                co2e_kg=None,
                embodied_co2e_kg=None,
                cost_in_currency=None,
                cost_per_item_in_currency=None,
                cost_per_batch_item_usd=None,
                cost_per_item_usd=None,
            )
        owned = desk.desktop
        if desk.resale is not None:
            owned = replace(
                owned, resale_usd=desk.resale.value_usd, lifetime_years=desk.horizon_years
            )
        run = costing.desktop_run_cost(rt.seconds, owned, usage, ctx.electricity_price_usd_per_kwh)
        hourly = run.fully_loaded_cost_usd / (rt.seconds / 3600.0)
        machine = desktop_embodied(view, owned.gpu_count, trail)
        share = own.owned_share_of_run(rt.seconds / 3600.0, owned.lifetime_years, usage.utilization)
        per_item = costing.cost_per_item_usd(run.fully_loaded_cost_usd, items) if items else None
        return RunOptionResult(
            **base,
            price_usd_per_hour=sig8(hourly),
            cost_usd=sig8(run.fully_loaded_cost_usd),
            marginal_cost_usd=sig8(run.marginal_cost_usd),
            energy_kwh=sig8(run.energy_kwh),
            co2e_kg=sig8(costing.co2e_kg(run.energy_kwh, ci_region.carbon_intensity_g_per_kwh)),
            embodied_co2e_kg=sig8(machine.co2e_kg * share),
            cost_in_currency=in_currency(run.fully_loaded_cost_usd, rate),
            cost_per_item_in_currency=in_currency(per_item, rate),
            cost_per_batch_item_usd=sig8(costing.cost_per_batch_item_usd(hourly, rt.max_batch_size))
            if rt.max_batch_size
            else None,
            cost_per_item_usd=sig8(per_item),
        )
    if opt.offer_id is not None:
        cloud = resolve_cloud(view, CloudSpec(offer_id=opt.offer_id), trail)
        label = (
            f"{cloud.offer.provider} {cloud.offer.instance_type}"
            + (f" {cloud.offer.region}" if cloud.offer.region else "")
            + f" ({cloud.offer.pricing_model})"
        )
    else:
        cloud = resolve_cloud(
            view,
            CloudSpec(
                price_usd_per_hour=opt.price_usd_per_hour, gpu=opt.gpu, gpu_count=opt.gpu_count
            ),
            trail,
            rate=rate,
        )
        label = f"{cloud.gpu_count}x {cloud.gpu.id} at ${opt.price_usd_per_hour:g}/h"
    gpu, count = cloud.gpu, cloud.gpu_count or 1
    rt = _runtime_on(ctx, gpu, count)
    base = dict(
        label=label,
        kind="cloud",
        offer_id=cloud.offer.id if cloud.offer else None,
        gpu_id=gpu.id,
        gpu_count=count,
        fits=rt.fits,
        runtime_s=sig8(rt.seconds),
        runtime_basis=rt.basis,
        price_usd_per_hour=cloud.rate.price_usd_per_hour,
        marginal_cost_usd=None,
        max_batch_size=rt.max_batch_size,
        note=rt.note,
    )
    batch_cost = (
        sig8(costing.cost_per_batch_item_usd(cloud.rate.price_usd_per_hour, rt.max_batch_size))
        if rt.max_batch_size
        else None
    )
    if rt.seconds is None:
        return RunOptionResult(
            **base,
            billed_s=None,
            cost_usd=None,
            energy_kwh=None,
            co2e_kg=None,
            embodied_co2e_kg=None,
            cost_in_currency=None,
            cost_per_item_in_currency=None,
            cost_per_batch_item_usd=batch_cost,
            cost_per_item_usd=None,
        )
    run = costing.cloud_run_cost(rt.seconds, cloud.rate)
    energy = costing.energy_kwh(gpu.tdp_w * count, rt.seconds / 3600.0, cloud.pue)
    ci = (cloud.region or ci_region).carbon_intensity_g_per_kwh
    gpus_embodied, life = cloud_embodied(view, count, trail)
    per_item = costing.cost_per_item_usd(run.cost_usd, items) if items else None
    return RunOptionResult(
        **base,
        billed_s=sig8(run.billed_s),
        cost_usd=sig8(run.cost_usd),
        energy_kwh=sig8(energy),
        co2e_kg=sig8(costing.co2e_kg(energy, ci)),
        embodied_co2e_kg=sig8(gpus_embodied.co2e_kg * own.rented_share(rt.seconds / 3600.0, life)),
        cost_in_currency=in_currency(run.cost_usd, rate),
        cost_per_item_in_currency=in_currency(per_item, rate),
        cost_per_batch_item_usd=batch_cost,
        cost_per_item_usd=sig8(per_item),
    )


# ------------------------------------------------------------------------------------------
# Carbon
# ------------------------------------------------------------------------------------------


def compute_carbon(view: CatalogView, req: CarbonRequest, settings: Settings) -> CarbonResult:
    """Operational emissions (energy x PUE x grid intensity) and the share of the hardware's
    manufacturing emissions the period carries; see :class:`CarbonResult`."""
    trail = Trail()
    gpu = _gpu_or_none(view, req.gpu, trail)
    if req.gpu_power_w is not None:
        gpu_power = req.gpu_power_w
    else:
        gpu_power = gpu.tdp_w  # type: ignore[union-attr]  (validated: gpu or gpu_power_w)
        trail.assume("gpu_power_w", gpu_power, f"TDP of {gpu.id}")
    power = req.gpu_count * gpu_power + req.base_power_w
    hardware = req.hardware or "owned"
    utilization: float | None = None
    if req.hours is not None:
        busy = req.hours
    else:
        usage = resolve_usage(view, req, trail)
        utilization = usage.utilization
        busy = req.days * usage.busy_hours_per_day  # type: ignore[operator]
    region = resolve_region(view, req.region)
    if req.carbon_intensity_g_per_kwh is not None:
        ci = req.carbon_intensity_g_per_kwh
    else:
        ci = carbon_region(view, region, settings, trail).carbon_intensity_g_per_kwh
    if req.pue is not None:
        pue = req.pue
    elif region is not None and region.pue is not None:
        pue = region.pue
        trail.cite(f"region {region.id}: pue", region.pue_source or region.source, region.as_of)
    else:
        pue = 1.0
        trail.assume("pue", 1.0, "default: no datacenter overhead (a desktop in an office)")
    energy = costing.energy_kwh(power, busy, pue)
    operational = costing.co2e_kg(energy, ci)

    if hardware == "owned":
        total = desktop_embodied(view, req.gpu_count, trail)
        life = req.lifetime_years or costing.DEFAULT_LIFETIME_YEARS
        if req.days is not None:
            share = own.owned_share_of_period(req.days, life)
            how = f"{req.days:g} days / ({life:g} y x 365 d), capped at 1"
        else:
            if utilization is None:
                utilization = view.profile(DEFAULT_UTILIZATION_PROFILE).utilization
                trail.assume(
                    "utilization",
                    utilization,
                    f"for the embodied share of {req.hours:g} busy hours: default profile "
                    f"'{DEFAULT_UTILIZATION_PROFILE}'",
                )
            share = min(1.0, own.owned_share_of_run(busy, life, utilization))
            how = f"{busy:g} h / ({life:g} y x 8760 h x {utilization:g}), capped at 1"
        trail.assume(
            "embodied_share",
            sig8(share),
            f"owned: the machine (barebone + {req.gpu_count} GPU(s)) carries all its "
            f"manufacturing emissions over its life; {how}",
        )
    else:
        total, default_life = cloud_embodied(view, req.gpu_count, trail)
        life = req.lifetime_years or default_life
        share = min(1.0, own.rented_share(busy, life))
        trail.assume(
            "embodied_share",
            sig8(share),
            f"rented: {busy:g} busy hours / ({life:g} y x 8760 h), capped at 1",
        )
    if req.lifetime_years is None:
        trail.assume(
            "lifetime_years",
            life,
            f"default: {LIFETIME_SOURCE}"
            if hardware == "owned"
            else "default: EcoDiag's server life, 5 years",
        )
    embodied = total.scaled(share)
    return CarbonResult(
        gpu_id=gpu.id if gpu else None,
        gpu_count=req.gpu_count,
        power_w=power,
        busy_hours=sig8(busy),
        pue=pue,
        carbon_intensity_g_per_kwh=ci,
        energy_kwh=sig8(energy),
        co2e_kg=sig8(operational),
        operational_co2e_kg=sig8(operational),
        hardware=hardware,
        embodied_share=sig8(share),
        embodied=embodied_model(embodied),
        total_co2e_kg=sig8(operational + embodied.co2e_kg),
        assumptions=trail.assumptions,
        sources=trail.sources,
        **trail.price_fields(view, settings),
    )
