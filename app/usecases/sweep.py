"""Break-even over a grid (``POST /v1/break-even/sweep``): the break-even formula over
utilizations x electricity prices, in NumPy (:func:`app.costing.vector.break_even_grid`)."""

from __future__ import annotations

import numpy as np

from app.catalog.view import CatalogView
from app.costing import vector
from app.models.compare import (
    SweepRequest,
    SweepResult,
)
from app.settings import Settings
from app.steps.desktop import resolve_desktop
from app.steps.inputs import (
    resolve_cloud,
    resolve_electricity,
    resolve_region,
)
from app.steps.speed import cloud_speed
from app.steps.trail import Trail, round2_array, sig8, sig8_array

# ------------------------------------------------------------------------------------------
# Break-even sweep
# ------------------------------------------------------------------------------------------

DEFAULT_UTILIZATIONS = tuple(round(0.01 * k, 2) for k in range(1, 101))


def compute_sweep(view: CatalogView, req: SweepRequest, settings: Settings) -> SweepResult:
    """Break-even days over utilization x electricity price; see :class:`SweepResult`."""
    trail = Trail()
    desk = resolve_desktop(view, req.desktop, trail, with_resale=False)
    d = req.desktop
    if any(v is not None for v in (d.resell_after_years, d.resale_value_usd, d.resale_value)):
        trail.assume(
            "desktop.resale_value_usd",
            0,
            "the sweep's totals count no resale (use /v1/break-even for resale and TCO)",
        )
    cloud = resolve_cloud(view, req.cloud, trail)
    utilizations = req.utilizations or list(DEFAULT_UTILIZATIONS)
    if req.electricity_prices_usd_per_kwh:
        prices = req.electricity_prices_usd_per_kwh
    else:
        region = resolve_region(view, req.region)
        prices = [resolve_electricity(view, None, region, settings, trail, req.tariff)]
    perf = cloud_speed(view, req.normalize_performance, desk, cloud, trail)
    factor = perf.time_factor if perf else 1.0
    if perf:
        trail.assume("cloud_time_factor", sig8(factor), perf.detail)
    grid = vector.break_even_grid(
        desk.desktop,
        cloud.rate,
        np.array(utilizations),
        np.array(prices),
        idle_on_fraction=req.desktop.idle_on_fraction or 0.0,
        cloud_time_factor=factor,
        horizon_days=req.horizon_days,
    )
    return SweepResult(
        utilizations=utilizations,
        electricity_prices_usd_per_kwh=prices,
        break_even_days=round2_array(grid.days),
        desktop_total_usd=sig8_array(grid.desktop_total_usd).tolist(),
        cloud_total_usd=sig8_array(grid.cloud_total_usd).tolist(),
        horizon_days=req.horizon_days,
        upfront_usd=sig8(desk.desktop.upfront_usd),
        cloud_price_usd_per_hour=cloud.rate.price_usd_per_hour,
        cloud_time_factor=sig8(factor),
        assumptions=trail.assumptions,
        sources=trail.sources,
        **trail.price_fields(view, settings),
    )
