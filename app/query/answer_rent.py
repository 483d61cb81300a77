"""Chat's rentals: "8x H100 for a week on lambda" prices 8 GPUs for that week, and "80
gpu-hours on a lambda a100" gives the total for those GPU-hours. Priced from the catalog's
offers by plain arithmetic (no speed model: the GPUs asked for are the GPUs rented):

* **N GPUs for a period**: per provider, the cheapest way to hold N GPUs: an instance of N
  GPUs, else several smaller instances (``ceil(N / k)`` of a k-GPU instance, spare GPUs
  stated), each billed the period's busy hours (the whole period unless a utilization is
  given). Total = instance price per hour x instances x hours.
* **X GPU-hours**: billed as GPU-hours: the instance's price per GPU-hour (price / GPUs) x X.

Pricing is on demand unless the question names another (stated); spot and interruptible
prices carry their default interruption overhead (app.steps.spot), stated. A named instance
(``p4d.24xlarge``) is the only one priced; a provider or pricing model with no offer of the
GPU is said in the headline, never replaced silently.
"""

from __future__ import annotations

from typing import Any

from app.catalog.view import CatalogView
from app.costing import offers
from app.models.answers import CurrencyRate
from app.models.query import QueryAnswer
from app.query.answer_common import (
    Answer,
    in_currency_text,
    one_gpu,
    period_text,
    refuse,
)
from app.settings import Settings
from app.steps import demand, trail
from app.steps.offer_search import rental_offers
from app.steps.rentals import Rental, cheapest_rentals
from app.steps.spot import offer_overhead

SPOT_NOTE = (
    "billed hours include the work re-done after interruptions (Daly 2006): {overhead:.4g} "
    "billed hours per useful hour ({basis}; checkpoints every 30 min, 10 min restarts: "
    "POST /v1/compare with `spot` to state your own)"
)


def is_rental(out: Answer) -> bool:
    """A cost question about renting GPUs for a period or a number of GPU-hours, with no
    runtime or benchmark (those go to the run-cost engine)."""
    it = out.it
    mention = it.gpu or it.cloud.gpu
    if mention is None or it.benchmark or it.runtime_s:
        return False
    if it.intent not in ("run_cost", "offers") or it.cloud.price_usd_per_hour is not None:
        return False
    return bool(it.gpu_hours or it.horizon_days)


def _rate(view: CatalogView, out: Answer) -> CurrencyRate:
    return trail.currency_rate(view.fx_rate(out.it.currency or "USD"))


def rental_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """Price the GPUs asked for over the period, or the GPU-hours asked for."""
    it = out.it
    mention = it.cloud.gpu or it.gpu
    gpu = one_gpu(view, out, mention)
    n = mention.count if mention else 1
    hours = 0.0
    if it.gpu_hours is None:
        hours = out.take(demand.busy_hours(it.horizon_days or 0, it.utilization))
    found = out.take(rental_offers(view, out.it.cloud, gpu))
    if not found:
        what = out.it.cloud.instance_type or gpu.id
        raise refuse(
            out.it, f"no {out.it.cloud.pricing_model or 'on_demand'} offer of {what} in the catalog"
        )
    ranked = out.take(cheapest_rentals(view, found, n, it.gpu_hours, hours))
    rate = _rate(view, out)
    best = ranked[0]
    o = best.offer
    if it.gpu_hours is not None:
        monthly = " a month" if it.gpu_hours == it.gpu_hours_per_month else ""
        hours_text = f"{it.gpu_hours:,.0f}" if it.gpu_hours >= 10 else f"{it.gpu_hours:g}"
        what = f"{hours_text} GPU-hours{monthly} on {o.gpu_id}"
        how = f"{in_currency_text(offers.price_per_gpu_hour(o), rate)}/GPU-h"
    else:
        what = f"{n}x {o.gpu_id} for {period_text(it.horizon_days or 0)} ({hours:,.0f} h)"
        how = f"{best.instances} x {in_currency_text(float(o.price_usd_per_hour), rate)}/h"
    headline = (
        f"{what}: {in_currency_text(best.cost_usd, rate)} on {o.provider} {o.instance_type} "
        f"({how}, {o.pricing_model})"
    )
    out.rests_on(o.as_of, f"offer {o.id}", view.day)
    for r in ranked:
        out.fact(f"{r.offer.provider} {r.offer.instance_type}", _row_text(r, n, rate, it.gpu_hours))
    if o.pricing_model in ("spot", "interruptible"):
        overhead, basis = offer_overhead(view, o.id)
        out.fact("Interruptions", SPOT_NOTE.format(overhead=overhead, basis=basis))
    result = [_row(r) for r in ranked]
    return out.done(headline, result={"rentals": result, "currency_rate": rate.model_dump()})


def _row_text(r: Rental, n: int, rate: CurrencyRate, gpu_hours: float | None) -> str:
    o = r.offer
    price = in_currency_text(float(o.price_usd_per_hour), rate)
    text = f"{in_currency_text(r.cost_usd, rate)}: "
    if gpu_hours is not None:
        text += f"{in_currency_text(offers.price_per_gpu_hour(o), rate)}/GPU-h ({price}/h for {o.gpu_count}x)"
    else:
        spare = r.instances * o.gpu_count - n
        text += f"{r.instances} x {o.gpu_count}x {o.gpu_id} at {price}/h x {r.hours:,.0f} h"
        if spare > 0:
            text += f" ({spare} GPU{'s' if spare > 1 else ''} more than asked)"
    return text + f", {o.pricing_model}, {o.region or 'any region'}, as of {o.as_of}"


def _row(r: Rental) -> dict[str, Any]:
    o = r.offer
    return {
        "offer_id": o.id,
        "provider": o.provider,
        "instance_type": o.instance_type,
        "gpu_id": o.gpu_id,
        "gpus_per_instance": o.gpu_count,
        "instances": r.instances,
        "hours": r.hours,
        "price_usd_per_hour": float(o.price_usd_per_hour),
        "cost_usd": r.cost_usd,
        "pricing_model": o.pricing_model,
        "as_of": o.as_of.isoformat(),
    }
