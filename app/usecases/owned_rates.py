"""Owned-GPU hourly rates (``POST /v1/owned-rates``): :func:`resolve` turns a lab's machines
into an :class:`OwnedRatesScenario` with break-even's own steps (the desktop and its resale
from :mod:`app.steps.desktop`, utilization from :mod:`app.steps.demand`, region and
electricity from :mod:`app.steps.site`, currency from :mod:`app.steps.currency`), every default stated once; :func:`compose` prices one GPU-hour of
each machine and of each GPU type with :func:`app.costing.owned_rate`."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from app import costing
from app.catalog.view import CatalogView
from app.costing.money import ExchangeRate
from app.costing.sourced import Assumed, Note
from app.models.owned_rates import (
    OwnedGpuRate,
    OwnedMachineRate,
    OwnedRatesRequest,
    OwnedRatesResult,
)
from app.settings import Settings
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.owned_machine import MachineScenario, resolve_machine
from app.steps.site import request_electricity, resolve_region
from app.steps.trail import Provenance, currency_rate, in_currency, price_rule, sig8

RATE_RULE = (
    "per GPU-hour: max(0, purchase - resale) / (holding years x GPUs x utilization x 8,760 h) "
    "+ a year's electricity (busy, and idle while on) / its busy GPU-hours + yearly overhead "
    "/ the same GPU-hours (the fully-loaded run cost's amortization rule: a GPU-hour carries "
    "its share of the busy hours the machine serves, so a quiet machine's hour costs more)"
)


@dataclass(frozen=True)
class OwnedRatesScenario:
    """Every machine resolved, the electricity price (USD/kWh), the answer's currency and the
    record of what it rests on."""

    machines: list[MachineScenario]
    electricity_price_usd_per_kwh: float
    rate: ExchangeRate
    provenance: Provenance


def resolve(view: CatalogView, req: OwnedRatesRequest, settings: Settings) -> OwnedRatesScenario:
    """The scenario of ``req`` over ``view``: 404 for an unknown GPU, barebone or region,
    422 for inputs the model cannot price (as break-even)."""
    notes: list[Note] = []
    rate, noted = resolve_currency(view, req)
    notes += noted
    region = resolve_region(view, req.region)
    price, noted = request_electricity(view, req, region, settings, rate)
    notes += noted
    needs_default = any(m.utilization is None for m in req.machines)
    default_usage = None
    if needs_default:
        default_usage, noted = resolve_usage(view, req)
        notes += noted
    machines = []
    for i, m in enumerate(req.machines):
        machine, noted = resolve_machine(view, m, f"machines[{i}]", rate, default_usage, region)
        notes += noted
        machines.append(machine)
    notes.append(Assumed("owned_rate", "capex + electricity + overhead", RATE_RULE))
    return OwnedRatesScenario(
        machines, price, rate, Provenance(tuple(notes), price_rule(view, settings))
    )


def compute_owned_rates(
    view: CatalogView, req: OwnedRatesRequest, settings: Settings
) -> OwnedRatesResult:
    """Each machine's and each GPU type's fully-loaded cost per GPU-hour; see
    :class:`OwnedRatesResult`."""
    return compose(resolve(view, req, settings))


def compose(s: OwnedRatesScenario) -> OwnedRatesResult:
    """The answer to scenario ``s``, from it alone."""
    price = s.electricity_price_usd_per_kwh
    rates = [
        costing.owned_rate(m.owned, m.usage, price, m.overhead_usd_per_year) for m in s.machines
    ]
    machines = [
        OwnedMachineRate(
            index=i,
            gpu_id=m.gpu.id if m.gpu else None,
            gpu_count=m.owned.gpu_count,
            count=m.count,
            utilization=m.usage.utilization,
            holding_years=m.owned.lifetime_years,
            upfront_usd=sig8(m.owned.upfront_usd),
            resale_value_usd=sig8(m.owned.resale_usd),
            electricity_price_usd_per_kwh=sig8(price),
            **_parts(r, s.rate, m.count),
        )
        for i, (m, r) in enumerate(zip(s.machines, rates, strict=True))
    ]
    groups: dict[str | None, list[int]] = defaultdict(list)
    for i, m in enumerate(s.machines):
        groups[m.gpu.id if m.gpu else f"{m.accelerator_name}#{i}"].append(i)
    per_gpu = [_gpu_rate(s, rates, idx) for idx in groups.values()]
    per_gpu.sort(key=lambda g: -g.cost_usd_per_gpu_hour)
    return OwnedRatesResult(
        rates=per_gpu,
        machines=machines,
        currency_rate=currency_rate(s.rate),
        **s.provenance.fields(),
    )


def _gpu_rate(
    s: OwnedRatesScenario, rates: list[costing.OwnedRate], idx: list[int]
) -> OwnedGpuRate:
    first = s.machines[idx[0]]
    pooled = costing.pooled_rate((rates[i], s.machines[i].count) for i in idx)
    return OwnedGpuRate(
        gpu_id=first.gpu.id if first.gpu else None,
        gpu_name=first.gpu.name if first.gpu else None,
        accelerator_name=first.accelerator_name,
        gpus=sum(s.machines[i].count * s.machines[i].owned.gpu_count for i in idx),
        **_parts(pooled, s.rate, 1),
    )


def _parts(r: costing.OwnedRate, rate: ExchangeRate, count: int) -> dict[str, float]:
    """A rate's fields; ``gpu_hours_per_year`` over ``count`` machines."""
    return dict(
        capex_usd_per_gpu_hour=sig8(r.capex_usd_per_gpu_hour),
        electricity_usd_per_gpu_hour=sig8(r.electricity_usd_per_gpu_hour),
        overhead_usd_per_gpu_hour=sig8(r.overhead_usd_per_gpu_hour),
        cost_usd_per_gpu_hour=sig8(r.cost_usd_per_gpu_hour),
        cost_per_gpu_hour_in_currency=in_currency(r.cost_usd_per_gpu_hour, rate),
        gpu_hours_per_year=sig8(r.gpu_hours_per_year * count),
    )
