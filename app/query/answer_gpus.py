"""Chat answers about the catalog itself: the GPUs it knows, two GPUs side by side (price per
GPU-hour and per unit of work), and Colab's plans. Each default is stated in the answer."""

from __future__ import annotations

from app.catalog.view import CatalogView
from app.costing import offers
from app.models.query import QueryAnswer
from app.query.answer_common import MAX_OPTIONS, Answer, money, one_gpu, refuse
from app.settings import Settings
from app.steps.cloud_offer import comparable_offers_of, plan_offers
from app.steps.gpu_choice import offer_counts
from app.steps.speed import speed, speed_evidence


def gpu_list_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """The catalog's GPUs, most memory first: those with cloud offers (and how many), those
    with a desktop price, and the count."""
    per_key = offer_counts(view)
    offers = {g.id: n for g in view.gpus if (n := per_key.get((g.id, None)))}
    gpus = sorted(view.gpus, key=lambda g: (-g.memory_gb, g.id))
    rented = [g for g in gpus if offers.get(g.id)]
    out.fact("Rentable", ", ".join(f"{g.id} ({offers[g.id]})" for g in rented))
    owned = [g.id for g in gpus if g.purchase_price() is not None]
    out.fact("With a desktop price", ", ".join(owned))
    out.fact("All", f"{len(gpus)} GPUs: GET /v1/gpus")
    headline = (
        f"I know {len(gpus)} GPUs: {len(rented)} with cloud offers (offers in brackets), "
        f"{len(owned)} with a desktop price"
    )
    return out.done(headline, result=[g.id for g in gpus])


def gpu_compare_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """Two GPUs: each one's cheapest on-demand price per GPU-hour, their relative speed
    (measured, published or the calibrated estimate, with its basis) and so the price of one
    hour of the first GPU's work on each."""
    it = out.it
    a = one_gpu(view, out, it.gpu)  # the parser names both
    b = one_gpu(view, out, it.cloud.gpu)
    if a.id == b.id:
        raise refuse(it, f"both names are {a.id}: which two GPUs? e.g. `a100 vs h100 per hour`")
    offer_a, offer_b = out.take(comparable_offers_of(view, (a.id, b.id)))
    if offer_a is None or offer_b is None:
        missing = a.id if offer_a is None else b.id
        raise refuse(it, f"no on-demand cloud offer of {missing} in the catalog to compare")
    ratio = speed(speed_evidence(view), a, 1, b, 1)  # b hours per hour of a's work
    price_a = offers.price_per_gpu_hour(offer_a)
    price_b = offers.price_per_gpu_hour(offer_b)
    work_b = price_b * ratio.time_factor
    for gpu, offer, price in ((a, offer_a, price_a), (b, offer_b, price_b)):
        out.fact(
            gpu.id,
            f"{money(price)}/GPU-h on {offer.provider} {offer.instance_type} "
            f"({offer.pricing_model}, {offer.region or 'any region'}, as of {offer.as_of})",
        )
    faster = a.id if ratio.time_factor > 1 else b.id
    times = ratio.time_factor if ratio.time_factor > 1 else 1 / ratio.time_factor
    detail = ratio.detail.removeprefix(f"{ratio.basis}: ")
    out.fact("Speed", f"{faster} {times:.2f}x as fast ({ratio.basis}: {detail})")
    out.fact(
        "Per unit of work",
        f"{money(price_a)} on {a.id} vs {money(work_b)} on {b.id} for what {a.id} does in an hour",
    )
    cheaper = a.id if price_a <= work_b else b.id
    headline = (
        f"{a.id} {money(price_a)}/h vs {b.id} {money(price_b)}/h; per unit of work {cheaper} "
        f"is cheaper ({b.id} takes {ratio.time_factor:.2f} h per {a.id} hour, {ratio.basis})"
    )
    result = {
        "offers": [offer_a.id, offer_b.id],
        "price_usd_per_gpu_hour": [price_a, price_b],
        "time_factor": ratio.time_factor,
        "basis": ratio.basis,
        "cost_usd_per_reference_hour": [price_a, work_b],
    }
    return out.done(headline, result=result)


def colab_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """Colab's plans (the one asked about, else all): monthly fee, included compute units,
    price per unit, and the GPUs each plan's offers list with their price per hour."""
    wanted = out.it.cloud.colab_plan
    plans = [p for pid, p in sorted(view.colab_plans.items()) if wanted in (None, pid)]
    if not plans:
        raise refuse(out.it, f"no Colab plan '{wanted}' in the catalog")
    for p in plans:
        unit = f", {money(p.usd_per_compute_unit)} per unit" if p.usd_per_compute_unit else ""
        gpus = [
            f"{o.gpu_id} {money(float(o.price_usd_per_hour))}/h"
            for o in plan_offers(view, p.id)[:MAX_OPTIONS]
        ]
        out.fact(
            p.name,
            f"{money(p.monthly_fee_usd)}/month, {p.included_compute_units_per_month:g} compute "
            f"units included{unit}; {', '.join(gpus) or 'no GPU offers'} (as of {p.as_of}; "
            f"{p.source})",
        )
    if len(plans) == 1:
        p = plans[0]
        headline = (
            f"{p.name}: {money(p.monthly_fee_usd)} a month with "
            f"{p.included_compute_units_per_month:g} compute units"
        )
    else:
        headline = "Colab plans: " + ", ".join(
            f"{p.name} {money(p.monthly_fee_usd)}/month" for p in plans
        )
    return out.done(headline, result=[p.id for p in plans])
