"""Chat's fleet plan: "plan for 300 GPU-hours a month with a peak of 2,000 in May" becomes a
``POST /v1/plan`` request (the monthly demand as the baseline, each peak every year, the
horizon asked for, the place and tariff as typed) and its answer in a few lines."""

from __future__ import annotations

from typing import Any

from app.catalog.view import CatalogView
from app.costing import offers
from app.models.plan import MAX_PLAN_MONTHS, MIN_PLAN_MONTHS, PlanRequest
from app.models.query import QueryAnswer
from app.query.answer_common import (
    Answer,
    dump,
    in_currency_text,
    one_gpu,
    place_fields,
    refuse,
    validated,
)
from app.query.vocabulary import DAYS_PER_UNIT
from app.settings import Settings
from app.usecases.plan_answer import compute_plan

MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def default_plan_gpu(view: CatalogView) -> tuple[str, int]:
    """The GPU a plan is measured on when the question names none: of the GPUs with a
    desktop price, the one the catalog's clouds offer most on demand (Colab left out), and
    that count; built once per view."""

    def pick() -> tuple[str, int]:
        priced = {g.id for g in view.gpus if g.price_new_usd is not None}
        counts: dict[str, int] = {}
        for o in view.offers.offers:
            if o.gpu_id in priced and offers.is_comparable(o):
                counts[o.gpu_id] = counts.get(o.gpu_id, 0) + 1
        return max(sorted(counts), key=lambda g: counts[g]), max(counts.values())

    return view.memoized("query.plan_gpu", pick)


def _months(out: Answer) -> int | None:
    """The horizon asked for, in whole months within what a plan takes (stated when
    clamped); None when none was asked (the engine's default applies)."""
    days = out.it.horizon_days
    if days is None:
        return None
    asked = round(days / DAYS_PER_UNIT["month"])
    months = min(MAX_PLAN_MONTHS, max(MIN_PLAN_MONTHS, asked))
    if months != asked:
        out.default(
            "months",
            months,
            f"a plan spans {MIN_PLAN_MONTHS} to {MAX_PLAN_MONTHS} months; {asked} asked",
        )
    return months


def plan_request(view: CatalogView, out: Answer) -> dict[str, Any]:
    """The ``/v1/plan`` body of the question."""
    it = out.it
    mention = it.gpu or it.cloud.gpu
    if mention is not None:
        gpu = one_gpu(view, out, mention).id
    else:
        gpu, offers = default_plan_gpu(view)
        out.default(
            "gpu",
            gpu,
            f"default: the GPU with a desktop price that the catalog's clouds offer most on "
            f"demand ({offers} offers); name a GPU to plan on another",
        )
    base = it.gpu_hours_per_month
    if base is None:
        base = 0.0
        out.default("baseline_gpu_hours_per_month", 0, "no monthly demand given: only the peaks")
    body: dict[str, Any] = {"gpu": gpu, "baseline_gpu_hours_per_month": base}
    if it.peaks:
        body["peaks"] = [{"month": p.month, "gpu_hours": p.gpu_hours} for p in it.peaks]
    months = _months(out)
    if months is not None:
        body["months"] = months
    if it.tax_exempt is not None:
        body["tax_exempt"] = it.tax_exempt
    fields = place_fields(it)
    for key in ("utilization", "utilization_profile"):  # a monthly rate, not a ceiling
        fields.pop(key, None)
    return {**body, **fields}


def _peaks_text(req: PlanRequest) -> str:
    peaks = sorted(req.peaks or [], key=lambda p: p.month)
    return "".join(f", {p.gpu_hours:,.0f} in {MONTH_ABBR[p.month - 1]}" for p in peaks)


def plan_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """A fleet plan (``POST /v1/plan``): what to buy and when, what to rent, and the plan's
    total beside all-cloud and all-desktop."""
    req = validated(PlanRequest, plan_request(view, out), out.it)
    res = compute_plan(view, req, settings)
    if not res.feasible:
        raise refuse(out.it, res.note or "no plan meets the demand")
    rate = res.currency_rate
    plan, cloud, desk = res.strategies
    labels = {d.id: d.label for d in res.desktops}
    bought = [
        f"{p.units} desktop{'s' if p.units > 1 else ''} of {labels[p.build_id]} in {p.month}"
        for p in res.purchases
    ]
    out.fact(
        "Demand",
        f"{req.baseline_gpu_hours_per_month:,.0f} GPU-hours a month{_peaks_text(req)} on "
        f"{res.reference_gpu_id}, {res.horizon_months} months from {res.start_month}",
    )
    out.fact("Buy", "; ".join(bought) if bought else "no desktop")
    out.fact("Rent", f"{plan.rented_gpu_hours:,.0f} GPU-hours" + (
        f" from {res.cloud.label} at {in_currency_text(res.cloud.cost_usd_per_gpu_hour, rate)}"
        "/GPU-hour" if res.cloud else ""
    ))  # fmt: skip
    for s, name in ((cloud, "All cloud"), (desk, "All desktop")):
        out.fact(name, in_currency_text(s.total_usd, rate) if s.feasible else (s.note or "n/a"))
    out.fact("Electricity", f"{in_currency_text(res.electricity_price_usd_per_kwh, rate)}/kWh")
    headline = (
        f"Plan: {'buy ' + '; '.join(bought) if bought else 'buy nothing'}, rent "
        f"{plan.rented_gpu_hours:,.0f} GPU-hours: {in_currency_text(plan.total_usd, rate)} over "
        f"{res.horizon_months} months"
        + "".join(
            f", vs {in_currency_text(s.total_usd, rate)} {name}"
            for s, name in ((cloud, "all-cloud"), (desk, "all-desktop"))
            if s.feasible
        )
    )
    return out.done(headline, "/v1/plan", req.model_dump(exclude_none=True), dump(res))
