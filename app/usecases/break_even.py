"""Break-even (``POST /v1/break-even``): :func:`resolve` turns the request into a
:class:`BreakEvenScenario` (every input concrete, every default stated once, in the order an
answer lists them), :func:`compose` computes the answer from it with the pure model.

Every default a break-even can take is decided in :func:`resolve` and the helpers it calls
(one module per input family: :mod:`app.steps.currency`, :mod:`app.steps.site`,
:mod:`app.steps.desktop`, :mod:`app.steps.cloud_offer`, :mod:`app.steps.demand`,
:mod:`app.steps.scaling`, :mod:`app.steps.speed`, :mod:`app.steps.memory`), and
the answer's ``assumptions`` and ``sources`` are the scenario's notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app import costing
from app.catalog.queries import find_offers
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.money import ExchangeRate
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.models.answers import Performance, Resale, TotalCostOfOwnership
from app.models.break_even import (
    BreakEvenMoney,
    BreakEvenRequest,
    BreakEvenResult,
    CloudSide,
    DesktopSide,
    SameCountAlternative,
)
from app.models.inputs import CloudSpec
from app.settings import Settings
from app.steps.cloud_offer import ResolvedCloud, resolve_cloud
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.desktop import ResolvedDesktop, resolve_desktop
from app.steps.embodied import cloud_embodied, desktop_embodied
from app.steps.memory import MemoryNeed, check_memory, memory_need
from app.steps.scaling import note_scaling, resolve_scaling
from app.steps.site import resolve_site
from app.steps.speed import cloud_speed
from app.steps.trail import Provenance, currency_rate, embodied_model, in_currency, price_rule, sig8

if TYPE_CHECKING:
    from app.models import Region


@dataclass(frozen=True)
class CloudFootprint:
    """The rented GPUs' operational and embodied carbon inputs: their power (W, GPU TDP x
    count + the host's CPU and memory), the datacenter PUE, the grid intensity (gCO2e/kWh) of
    the offer's region (else the request's), and their embodied carbon (kg CO2e) spread over
    ``lifetime_years``."""

    power_w: float
    pue: float
    carbon_intensity_g_per_kwh: float
    embodied: own.Embodied
    lifetime_years: float


@dataclass(frozen=True)
class BreakEvenScenario:
    """A break-even with every input explicit (see the fields' own types for units):
    the answer's currency, the desktop and its resale, the cloud side, usage, the desktop's
    electricity price (USD/kWh) and grid region, the cloud's speed relative to the desktop
    (None: cloud hours = desktop busy hours), the workload's memory need, the desktop's
    embodied carbon, the cloud's footprint (None without a cloud GPU), and what it rests on
    (assumptions, sources, prices and the rule their age is judged by)."""

    rate: ExchangeRate
    desk: ResolvedDesktop
    cloud: ResolvedCloud
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    carbon: Region
    speed: costing.SpeedRatio | None
    memory: MemoryNeed | None
    machine_embodied: own.Embodied
    cloud_footprint: CloudFootprint | None
    provenance: Provenance
    # The cheapest offer of the desktop's GPU count (same GPU and pricing model) when the
    # cloud side has more GPUs than the desktop, with its own scenario.
    same_count: BreakEvenScenario | None = None


def resolve(view: CatalogView, req: BreakEvenRequest, settings: Settings) -> BreakEvenScenario:
    """The scenario of ``req`` over ``view``. Raises the domain errors of the steps it calls
    (404 for unknown catalog names, 422 for inputs that do not make a computable request)."""
    notes: list[Note] = []
    rate, noted = resolve_currency(view, req)
    notes += noted
    site, noted = resolve_site(view, req, settings, rate)
    notes += noted
    desk, noted = resolve_desktop(view, req.desktop, rate=rate, region=site.region)
    notes += noted
    cloud, noted = resolve_cloud(view, req.cloud, rate=rate)
    notes += noted
    usage, noted = resolve_usage(view, req, idle_on_fraction=req.desktop.idle_on_fraction or 0.0)
    notes += noted
    scaling = resolve_scaling(req)
    notes += note_scaling(scaling, (desk.desktop.gpu_count, cloud.gpu_count or 1)).notes
    perf, noted = cloud_speed(view, req.normalize_performance, desk, cloud, scaling)
    notes += noted
    need, noted = memory_need(req.memory_preset, req.precision)
    notes += noted
    if desk.resale is None:
        notes.append(
            Assumed(
                "tco.horizon_years",
                desk.horizon_years,
                "no resale: the desktop's lifetime_years (seed 001 counts no resale value)",
            )
        )
    machine, noted = desktop_embodied(view, desk.desktop.gpu_count, desk.gpu)
    notes += noted
    same_count = None
    if (cloud.gpu_count or 1) > desk.desktop.gpu_count:
        same_count = _same_count(view, req, settings, cloud, desk.desktop.gpu_count)
    footprint, noted = _cloud_footprint(view, cloud, site.grid)
    notes += noted
    return BreakEvenScenario(
        rate=rate,
        desk=desk,
        cloud=cloud,
        usage=usage,
        electricity_price_usd_per_kwh=site.electricity_price_usd_per_kwh,
        carbon=site.grid,
        speed=perf,
        memory=need,
        machine_embodied=machine,
        cloud_footprint=footprint,
        provenance=Provenance(tuple(notes), price_rule(view, settings)),
        same_count=same_count,
    )


def _same_count(
    view: CatalogView, req: BreakEvenRequest, settings: Settings, cloud: ResolvedCloud, count: int
) -> BreakEvenScenario | None:
    """The scenario against the cheapest offer of ``count`` x the cloud's GPU at the same
    pricing model (same provider first), or None when the catalog has none."""
    if cloud.gpu is None:
        return None
    model = cloud.offer.pricing_model if cloud.offer else "on_demand"
    found = find_offers(view, gpu_ids=[cloud.gpu.id], pricing_model=model, gpu_count=count)
    if not found:
        return None
    provider = cloud.offer.provider if cloud.offer else None
    offer = next((o for o in found if o.provider == provider), found[0])
    alt = req.model_copy(update={"cloud": CloudSpec(offer_id=offer.id)})
    return resolve(view, alt, settings)


def _cloud_footprint(
    view: CatalogView,
    cloud: ResolvedCloud,
    ci_region: Region,
) -> Sourced[CloudFootprint | None]:
    notes: list[Note] = []
    if cloud.gpu is None:
        return Sourced(None, tuple(notes))
    notes.append(
        Assumed(
            "cloud.energy",
            "(GPU TDP x GPU count + host_power_w) x busy hours x PUE",
            "one system boundary on both sides: GPUs + host (CPU, memory), x PUE; the desktop "
            "counts its GPUs + base power (PUE 1, an office)",
        )
    )
    count = cloud.gpu_count or 1
    (gpus_embodied, life), noted = cloud_embodied(view, count, cloud.gpu)
    notes += noted
    if cloud.region is not None:
        notes.append(
            Cited(
                f"region {cloud.region.id}: carbon_intensity_g_per_kwh",
                cloud.region.carbon_source,
                cloud.region.carbon_as_of,
            )
        )
    return Sourced(
        CloudFootprint(
            power_w=cloud.gpu.tdp_w * count + cloud.host_power_w,
            pue=cloud.pue,
            carbon_intensity_g_per_kwh=(cloud.region or ci_region).carbon_intensity_g_per_kwh,
            embodied=gpus_embodied,
            lifetime_years=life,
        ),
        tuple(notes),
    )


def compute_break_even(
    view: CatalogView, req: BreakEvenRequest, settings: Settings
) -> BreakEvenResult:
    """Break-even days, both sides' running costs, total cost of ownership over the horizon
    (resale included), operational and embodied emissions, and the money in the request's
    currency; see :class:`BreakEvenResult`."""
    return compose(resolve(view, req, settings))


def compose(s: BreakEvenScenario) -> BreakEvenResult:
    """The answer to scenario ``s``, from it alone."""
    desk, cloud = s.desk, s.cloud
    result = costing.break_even(
        desk.desktop,
        cloud.rate,
        s.usage,
        s.electricity_price_usd_per_kwh,
        cloud_time_factor=s.speed.time_factor if s.speed else 1.0,
    )
    owned = own.ownership(
        desk.desktop.upfront_usd,
        desk.resale.value_usd if desk.resale else 0.0,
        result.desktop.cost_usd_per_day,
        result.cloud.cost_usd_per_day,
        desk.horizon_years * costing.DAYS_PER_YEAR,
    )
    days = result.days if desk.resale is None else owned.break_even_days
    memory, warnings = check_memory(s.memory, [desk.gpu, cloud.gpu]) if s.memory else (None, [])
    same_count = _same_count_answer(s)
    warnings += _count_warning(s, same_count)
    return BreakEvenResult(
        break_even_days=None if days is None else round(days, 2),
        break_even_reason=result.reason if days is None else None,
        utilization=s.usage.utilization,
        daily_saving_usd=sig8(result.daily_saving_usd),
        desktop=_desktop_side(s, result),
        cloud=_cloud_side(s, result),
        performance=Performance(
            time_factor=sig8(s.speed.time_factor),
            basis=s.speed.basis,
            detail=s.speed.detail,
            error_band=None if s.speed.error_band is None else round(s.speed.error_band, 3),
        )
        if s.speed
        else None,
        resale=_resale(s, result),
        tco=TotalCostOfOwnership(
            horizon_years=desk.horizon_years,
            horizon_days=sig8(owned.horizon_days),
            desktop_tco_usd=sig8(owned.desktop_tco_usd),
            cloud_tco_usd=sig8(owned.cloud_tco_usd),
            tco_saving_usd=sig8(owned.tco_saving_usd),
            cheaper="desktop" if owned.tco_saving_usd > 0 else "cloud",
            pays_back_within_horizon=owned.pays_back_within_horizon,
        ),
        currency_rate=currency_rate(s.rate),
        memory=memory,
        same_gpu_count=same_count,
        in_currency=_money(s, result, owned),
        **s.provenance.fields(warnings_first=warnings),
    )


def _same_count_answer(s: BreakEvenScenario) -> SameCountAlternative | None:
    if s.same_count is None or s.same_count.cloud.offer is None:
        return None
    alt = compose(s.same_count)
    offer = s.same_count.cloud.offer
    return SameCountAlternative(
        offer_id=offer.id,
        provider=offer.provider,
        gpu_count=offer.gpu_count,
        price_usd_per_hour=float(offer.price_usd_per_hour),
        break_even_days=alt.break_even_days,
        break_even_reason=alt.break_even_reason,
        tco_saving_usd=alt.tco.tco_saving_usd,
    )


def _count_warning(s: BreakEvenScenario, alt: SameCountAlternative | None) -> list[str]:
    """Say that a cloud side with more GPUs than the desktop is paid for in full."""
    n_cloud, n_desk = s.cloud.gpu_count or 1, s.desk.desktop.gpu_count
    if n_cloud <= n_desk:
        return []
    text = (
        f"the cloud side has {n_cloud} GPUs and the desktop {n_desk}: all {n_cloud} are paid "
        "for whether the job uses them or not, and the answer assumes the job scales as "
        "stated in multi_gpu_scaling"
    )
    if alt is None:
        return [text + "; the catalog has no offer of the desktop's GPU count to compare"]
    days = "never" if alt.break_even_days is None else f"{alt.break_even_days:g} days"
    return [
        text + f"; against {alt.offer_id} ({alt.gpu_count} GPU(s), ${alt.price_usd_per_hour:g}/h) "
        f"the break-even is {days} (see same_gpu_count)"
    ]


def _desktop_side(s: BreakEvenScenario, result: costing.BreakEven) -> DesktopSide:
    desk = s.desk
    kwh_year = result.desktop.energy_kwh_per_year or 0.0
    ci = s.carbon.carbon_intensity_g_per_kwh
    return DesktopSide(
        gpu_id=desk.gpu.id if desk.gpu else None,
        gpu_count=desk.desktop.gpu_count,
        upfront_usd=sig8(desk.desktop.upfront_usd),
        busy_power_w=sig8(desk.desktop.busy_power_w),
        electricity_price_usd_per_kwh=sig8(s.electricity_price_usd_per_kwh),
        cost_usd_per_day=sig8(result.desktop.cost_usd_per_day),
        cost_usd_per_year=sig8(result.desktop.cost_usd_per_year),
        energy_kwh_per_year=sig8(kwh_year),
        co2e_kg_per_year=sig8(costing.co2e_kg(kwh_year, ci)),
        carbon_intensity_g_per_kwh=ci,
        embodied=embodied_model(s.machine_embodied),
        embodied_co2e_kg_per_year=sig8(s.machine_embodied.co2e_kg / desk.desktop.lifetime_years),
    )


def _cloud_side(s: BreakEvenScenario, result: costing.BreakEven) -> CloudSide:
    cloud, offer, fp = s.cloud, s.cloud.offer, s.cloud_footprint
    kwh_year = co2_year = embodied_year = None
    if fp is not None:
        hours_year = result.cloud_busy_hours_per_day * costing.DAYS_PER_YEAR
        kwh_year = costing.energy_kwh(fp.power_w, hours_year, fp.pue)
        co2_year = costing.co2e_kg(kwh_year, fp.carbon_intensity_g_per_kwh)
        embodied_year = fp.embodied.co2e_kg * own.rented_share(hours_year, fp.lifetime_years)
    return CloudSide(
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
        energy_kwh_per_year=sig8(kwh_year),
        co2e_kg_per_year=sig8(co2_year),
        embodied_co2e_kg_per_year=sig8(embodied_year),
    )


def _resale(s: BreakEvenScenario, result: costing.BreakEven) -> Resale | None:
    resale = s.desk.resale
    if resale is None:
        return None
    return Resale(
        purchase_date=resale.purchase_date,
        resell_after_years=resale.years,
        resale_on=resale.resale_on,
        resale_value_usd=sig8(resale.value_usd),
        basis=resale.basis,
        gpu_retained_fraction=sig8(resale.retained_fraction),
        annual_decay=sig8(resale.annual_decay),
        gpu_age_at_purchase_years=sig8(resale.age_at_purchase_years),
        break_even_days_without_resale=None if result.days is None else round(result.days, 2),
    )


def _money(s: BreakEvenScenario, result: costing.BreakEven, owned: own.Ownership) -> BreakEvenMoney:
    rate = s.rate
    return BreakEvenMoney(
        upfront=in_currency(s.desk.desktop.upfront_usd, rate),
        resale_value=in_currency(owned.resale_usd, rate),
        daily_saving=in_currency(result.daily_saving_usd, rate),
        desktop_cost_per_year=in_currency(result.desktop.cost_usd_per_year, rate),
        cloud_cost_per_year=in_currency(result.cloud.cost_usd_per_year, rate),
        desktop_tco=in_currency(owned.desktop_tco_usd, rate),
        cloud_tco=in_currency(owned.cloud_tco_usd, rate),
        electricity_price_per_kwh=in_currency(s.electricity_price_usd_per_kwh, rate),
        cloud_price_per_hour=in_currency(s.cloud.rate.price_usd_per_hour, rate),
    )
