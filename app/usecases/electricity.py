"""A desktop's electricity bill (``POST /v1/electricity``): :func:`resolve` turns the request
into an :class:`ElectricityScenario`, :func:`compose` computes energy and cost from it with
the pure model (the same desktop power model as break-even's desktop side)."""

from __future__ import annotations

from dataclasses import dataclass

from app import costing
from app.catalog.view import CatalogView
from app.costing.money import ExchangeRate
from app.costing.sourced import Note
from app.models.electricity import ElectricityRequest, ElectricityResult
from app.settings import Settings
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.desktop import ResolvedDesktop, resolve_desktop
from app.steps.site import request_electricity, resolve_region
from app.steps.trail import Provenance, currency_rate, in_currency, price_rule, sig8


@dataclass(frozen=True)
class ElectricityScenario:
    """Every input explicit: the desktop (power model), the usage, the price (USD/kWh), the
    period (days or None), the answer's rate and what it rests on."""

    desk: ResolvedDesktop
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    days: float | None
    rate: ExchangeRate
    provenance: Provenance


def compute_electricity(
    view: CatalogView, req: ElectricityRequest, settings: Settings
) -> ElectricityResult:
    """Energy and electricity cost of running the desktop; see :class:`ElectricityResult`."""
    return compose(resolve(view, req, settings))


def resolve(view: CatalogView, req: ElectricityRequest, settings: Settings) -> ElectricityScenario:
    """The scenario of ``req`` over ``view``: 404 for unknown GPUs, regions or profiles."""
    notes: list[Note] = []
    rate, noted = resolve_currency(view, req)
    notes += noted
    region = resolve_region(view, req.region)
    desk, noted = resolve_desktop(
        view, req.desktop, rate=rate, with_resale=False, priced=False, region=region
    )
    notes += noted
    usage, noted = resolve_usage(view, req, idle_on_fraction=req.desktop.idle_on_fraction or 0.0)
    notes += noted
    price, noted = request_electricity(view, req, region, settings, rate)
    notes += noted
    provenance = Provenance(tuple(notes), price_rule(view, settings))
    return ElectricityScenario(desk, usage, price, req.days, rate, provenance)


def compose(s: ElectricityScenario) -> ElectricityResult:
    """Energy per day from the desktop's busy and idle wall power, then per month and year,
    priced at the scenario's USD/kWh."""
    d = s.desk.desktop
    per_day = costing.desktop_energy_kwh_per_day(d, s.usage)
    month, year = costing.DAYS_PER_YEAR / 12, costing.DAYS_PER_YEAR
    price = s.electricity_price_usd_per_kwh

    def cost(kwh: float) -> float:
        return costing.electricity_cost_usd(kwh, price)

    return ElectricityResult(
        gpu_id=s.desk.gpu.id if s.desk.gpu else None,
        gpu_count=d.gpu_count,
        busy_power_w=sig8(d.busy_power_w),
        idle_wall_power_w=sig8(d.idle_wall_power_w),
        utilization=s.usage.utilization,
        electricity_price_usd_per_kwh=sig8(price),
        energy_kwh_per_day=sig8(per_day),
        energy_kwh_per_month=sig8(per_day * month),
        energy_kwh_per_year=sig8(per_day * year),
        cost_usd_per_day=sig8(cost(per_day)),
        cost_usd_per_month=sig8(cost(per_day * month)),
        cost_usd_per_year=sig8(cost(per_day * year)),
        days=s.days,
        energy_kwh=sig8(per_day * s.days) if s.days else None,
        cost_usd=sig8(cost(per_day * s.days)) if s.days else None,
        currency_rate=currency_rate(s.rate),
        cost_per_month_in_currency=in_currency(cost(per_day * month), s.rate),
        cost_per_year_in_currency=in_currency(cost(per_day * year), s.rate),
        **s.provenance.fields(),
    )
