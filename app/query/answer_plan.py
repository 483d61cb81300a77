"""Chat's fleet plan: "plan for 300 GPU-hours a month with a peak of 2,000 in May" becomes a
``POST /v1/plan`` request (the monthly demand as the baseline, each peak every year, the
horizon asked for, the place and tariff as typed) and its answer in a few lines."""

from __future__ import annotations

from typing import Any

from app.catalog.view import CatalogView
from app.models.interpretation import Interpretation
from app.models.plan import PlanRequest, PlanResult
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
from app.settings import Settings
from app.steps import demand, gpu_choice
from app.usecases.plan_answer import compute_plan

MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _months(out: Answer) -> int | None:
    """The horizon asked for, in whole months within what a plan takes (stated when
    clamped); None when none was asked (the engine's default applies)."""
    days = out.it.horizon_days
    return None if days is None else out.take(demand.plan_months(days))


def plan_request(view: CatalogView, out: Answer) -> dict[str, Any]:
    """The ``/v1/plan`` body of the question."""
    it = out.it
    mention = it.gpu or it.cloud.gpu
    if mention is not None:
        gpu = one_gpu(view, out, mention, bought=True).id
    else:
        gpu = out.take(gpu_choice.plan_gpu(view))
    base = it.gpu_hours_per_month
    if base is None and it.people:
        base = out.take(demand.people_demand(view, it.people))
    if base is None:
        budget_only = budget_usd(view, it) is not None and not it.peaks
        base = out.take(demand.no_demand(budget_only=budget_only))
    body: dict[str, Any] = {"gpu": gpu, "baseline_gpu_hours_per_month": base}
    if it.peaks:
        body["peaks"] = [{"month": p.month, "gpu_hours": p.gpu_hours} for p in it.peaks]
    months = _months(out)
    if months is not None:
        body["months"] = months
    if it.tax_exempt is not None:
        body["tax_exempt"] = it.tax_exempt
    budget = budget_usd(view, it)
    if budget is not None:
        body["constraints"] = {"budget_usd": budget}
    fields = place_fields(it)
    for key in ("utilization", "utilization_profile"):  # a monthly rate, not a ceiling
        fields.pop(key, None)
    return {**body, **fields}


def budget_usd(view: CatalogView, it: Interpretation) -> float | None:
    """The budget typed, in USD (a budget in another currency at the catalog's rate)."""
    if it.budget_usd is not None:
        return it.budget_usd
    if it.budget_in_currency is not None and it.currency:
        return it.budget_in_currency * view.fx_rate(it.currency).usd_per_unit
    return None


def _peaks_text(req: PlanRequest) -> str:
    peaks = sorted(req.peaks or [], key=lambda p: p.month)
    return "".join(f", {p.gpu_hours:,.0f} in {MONTH_ABBR[p.month - 1]}" for p in peaks)


def plan_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    """A fleet plan (``POST /v1/plan``): what to buy and when, what to rent, and the plan's
    total beside all-cloud and all-desktop (the plan computed here, in this thread)."""
    req = plan_question(view, out)
    return plan_reply(view, out, req, compute_plan(view, req, settings))


def plan_question(view: CatalogView, out: Answer) -> PlanRequest:
    """The validated ``POST /v1/plan`` request of a plan question (422 as the API's)."""
    return validated(PlanRequest, plan_request(view, out), out.it)


def plan_reply(view: CatalogView, out: Answer, req: PlanRequest, res: PlanResult) -> QueryAnswer:
    """The answer to a plan question from its computed plan ``res``."""
    if not res.feasible:
        raise refuse(out.it, res.note or "no plan meets the demand")
    rate = res.currency_rate
    budget = budget_usd(view, out.it)
    if budget is not None and not req.peaks and not req.baseline_gpu_hours_per_month:
        return _budget_buys(out, req, res, budget)
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
    budget = budget_usd(view, out.it)
    if budget is not None and plan.total_usd is not None:
        left = budget - plan.total_usd
        verdict = (
            f"the plan's {in_currency_text(plan.total_usd, rate)} leaves "
            f"{in_currency_text(left, rate)}"
            if left >= 0
            else f"the plan costs {in_currency_text(-left, rate)} more"
        )
        out.caveat(f"budget {in_currency_text(budget, rate)}: {verdict}")
        out.fact("Budget", f"{in_currency_text(budget, rate)} caps desktop purchases; {verdict}")
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


def _budget_buys(out: Answer, req: PlanRequest, res: PlanResult, budget: float) -> QueryAnswer:
    """A budget without a demand: how many of each candidate desktop it buys, and how many
    GPU-hours of the plan's cloud (the plan's own prices; no demand, so no plan)."""
    rate = res.currency_rate
    money = in_currency_text(budget, rate)
    for d in res.desktops:
        units = int(budget // d.upfront_usd) if d.upfront_usd > 0 else 0
        out.fact(
            d.label,
            f"{units} at {in_currency_text(d.upfront_usd, rate)} each "
            f"({units * d.capacity_gpu_hours_per_month:,.0f} GPU-hours a month of capacity)",
        )
    parts = []
    affordable = [d for d in res.desktops if 0 < d.upfront_usd <= budget]
    if affordable:  # the most capacity a dollar among those the budget buys at least one of
        d = max(affordable, key=lambda d: d.capacity_gpu_hours_per_month / d.upfront_usd)
        units = int(budget // d.upfront_usd)
        parts.append(f"{units} desktop{'s' if units > 1 else ''} of {d.label}")
    elif res.desktops:
        d = min(res.desktops, key=lambda d: d.upfront_usd)
        out.caveat(
            f"no candidate desktop fits in {money}: the cheapest, {d.label}, costs "
            f"{in_currency_text(d.upfront_usd, rate)}"
        )
    if res.cloud is not None:
        hours = budget / res.cloud.cost_usd_per_gpu_hour
        parts.append(
            f"{hours:,.0f} GPU-hours on {res.cloud.label} "
            f"({hours / res.horizon_months:,.0f} a month over {res.horizon_months} months)"
        )
        out.fact(
            "Cloud",
            f"{res.cloud.label} at {in_currency_text(res.cloud.cost_usd_per_gpu_hour, rate)}"
            f"/GPU-hour (as of {res.cloud.as_of})",
        )
    headline = f"{money} buys " + " or ".join(parts) + " (electricity of the desktops not included)"
    return out.done(headline, "/v1/plan", req.model_dump(exclude_none=True), dump(res))
