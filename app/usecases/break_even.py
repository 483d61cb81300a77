"""Break-even (``POST /v1/break-even``): resolve the request into a scenario, then compute."""

from __future__ import annotations

from app import costing
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.models.calc import (
    BreakEvenMoney,
    BreakEvenRequest,
    BreakEvenResult,
    CloudSide,
    DesktopSide,
    Performance,
    Resale,
    TotalCostOfOwnership,
)
from app.services.ownership import (
    cloud_embodied,
    desktop_embodied,
    memory_need,
    resolve_scaling,
)
from app.settings import Settings
from app.usecases.desktop import resolve_desktop
from app.usecases.inputs import (
    carbon_region,
    request_electricity,
    resolve_cloud,
    resolve_currency,
    resolve_region,
    resolve_usage,
)
from app.usecases.speed import cloud_speed
from app.usecases.trail import Trail, currency_rate, embodied_model, in_currency, sig8


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
