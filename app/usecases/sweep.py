"""Break-even over a grid (``POST /v1/break-even/sweep``): the break-even formula over
utilizations x electricity prices, in NumPy (:func:`app.costing.vector.break_even_grid`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.catalog.view import CatalogView
from app.costing import vector
from app.costing.sourced import Assumed, Note
from app.models.compare import (
    SweepRequest,
    SweepResult,
)
from app.settings import Settings
from app.steps.cloud_offer import ResolvedCloud, resolve_cloud
from app.steps.desktop import ResolvedDesktop, resolve_desktop
from app.steps.site import resolve_electricity, resolve_region
from app.steps.speed import cloud_speed
from app.steps.trail import Provenance, price_rule, round2_array, sig8, sig8_array

# ------------------------------------------------------------------------------------------
# Break-even sweep
# ------------------------------------------------------------------------------------------

DEFAULT_UTILIZATIONS = tuple(round(0.01 * k, 2) for k in range(1, 101))


@dataclass(frozen=True)
class SweepScenario:
    """A sweep with every input explicit: the desktop (no resale), the cloud side, the grid's
    utilizations and electricity prices (USD/kWh), the cloud's hours per desktop hour
    (``time_factor``, 1: as fast), the idle-on share, the horizon (days) and what
    it rests on."""

    desk: ResolvedDesktop
    cloud: ResolvedCloud
    utilizations: tuple[float, ...]
    prices_usd_per_kwh: tuple[float, ...]
    time_factor: float
    idle_on_fraction: float
    horizon_days: float
    provenance: Provenance


def compute_sweep(view: CatalogView, req: SweepRequest, settings: Settings) -> SweepResult:
    """Break-even days over utilization x electricity price; see :class:`SweepResult`."""
    return compose(resolve(view, req, settings))


def resolve(view: CatalogView, req: SweepRequest, settings: Settings) -> SweepScenario:
    """The scenario of ``req`` over ``view``: 404 for unknown catalog names."""
    notes: list[Note] = []
    desk, noted = resolve_desktop(view, req.desktop, with_resale=False)
    notes += noted
    d = req.desktop
    if any(v is not None for v in (d.resell_after_years, d.resale_value_usd, d.resale_value)):
        notes.append(
            Assumed(
                "desktop.resale_value_usd",
                0,
                "the sweep's totals count no resale (use /v1/break-even for resale and TCO)",
            )
        )
    cloud, noted = resolve_cloud(view, req.cloud)
    notes += noted
    utilizations = req.utilizations or list(DEFAULT_UTILIZATIONS)
    if req.electricity_prices_usd_per_kwh:
        prices = req.electricity_prices_usd_per_kwh
    else:
        region = resolve_region(view, req.region)
        price, noted = resolve_electricity(view, None, region, settings, req.tariff)
        notes += noted
        prices = [price]
    perf, noted = cloud_speed(view, req.normalize_performance, desk, cloud)
    notes += noted
    factor = perf.time_factor if perf else 1.0
    if perf:
        notes.append(Assumed("cloud_time_factor", sig8(factor), perf.detail))
    return SweepScenario(
        desk=desk,
        cloud=cloud,
        utilizations=tuple(utilizations),
        prices_usd_per_kwh=tuple(prices),
        time_factor=factor,
        idle_on_fraction=req.desktop.idle_on_fraction or 0.0,
        horizon_days=req.horizon_days,
        provenance=Provenance(tuple(notes), price_rule(view, settings)),
    )


def compose(s: SweepScenario) -> SweepResult:
    """The answer to scenario ``s``, from it alone."""
    grid = vector.break_even_grid(
        s.desk.desktop,
        s.cloud.rate,
        np.array(s.utilizations),
        np.array(s.prices_usd_per_kwh),
        idle_on_fraction=s.idle_on_fraction,
        cloud_time_factor=s.time_factor,
        horizon_days=s.horizon_days,
    )
    return SweepResult(
        utilizations=list(s.utilizations),
        electricity_prices_usd_per_kwh=list(s.prices_usd_per_kwh),
        break_even_days=round2_array(grid.days),
        desktop_total_usd=sig8_array(grid.desktop_total_usd).tolist(),
        cloud_total_usd=sig8_array(grid.cloud_total_usd).tolist(),
        horizon_days=s.horizon_days,
        upfront_usd=sig8(s.desk.desktop.upfront_usd),
        cloud_price_usd_per_hour=s.cloud.rate.price_usd_per_hour,
        cloud_time_factor=sig8(s.time_factor),
        **s.provenance.fields(),
    )
