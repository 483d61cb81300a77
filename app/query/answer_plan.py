"""Chat's fleet plan: "plan for 300 GPU-hours a month with a peak of 2,000 in May" becomes a
``POST /v1/plan`` request (the monthly demand as the baseline, each peak every year, the
horizon asked for, the place and tariff as typed) and its answer in a few lines."""

from __future__ import annotations

from typing import Any

from app.catalog.view import CatalogView
from app.costing import offers
from app.models.interpretation import Interpretation
from app.models.plan import MAX_PLAN_MONTHS, MIN_PLAN_MONTHS, PlanRequest, PlanResult
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
from app.query.vocabulary import DAYS_PER_UNIT, HOURS_PER_MONTH
from app.settings import Settings
from app.usecases.plan_answer import compute_plan

MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def default_plan_gpu(view: CatalogView) -> tuple[str, int]:
    """The GPU a plan is measured on when the question names none: of the GPUs with a
    desktop price (sold as cards: SXM modules come on 8-GPU HGX boards), the one the
    catalog's clouds offer most on demand (Colab left out), and that count; built once per
    view."""

    def pick() -> tuple[str, int]:
        priced = {
            g.id
            for g in view.gpus
            if g.purchase_price() is not None and str(g.form_factor) != "datacenter_sxm"
        }
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
    if base is None and it.people:
        base = _people_demand(view, out, it.people)
    if base is None:
        base = 0.0
        why = "no monthly demand given: only the peaks"
        if budget_usd(view, it) is not None and not it.peaks:
            why = "no demand given (say `for 8 students` or `300 gpu-hours a month`): what the budget buys"
        out.default("baseline_gpu_hours_per_month", 0, why)
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


# A person's demand when the question counts people: seed 001's PhD-student desktop profile.
PERSON_PROFILE = "phd-desktop"


def _people_demand(view: CatalogView, out: Answer, people: int) -> float:
    """GPU-hours a month for ``people``: each keeps one GPU busy as the catalog's PhD-student
    desktop profile says (stated with its source)."""
    profile = view.profiles.get(PERSON_PROFILE)
    if profile is None:
        raise refuse(
            out.it, f"no '{PERSON_PROFILE}' profile in the catalog to size {people} people"
        )
    per_person = profile.utilization * HOURS_PER_MONTH
    out.default(
        "baseline_gpu_hours_per_month",
        people * per_person,
        f"{people} people x one GPU each at '{profile.name}' {profile.utilization:.0%} "
        f"({profile.description}; {profile.source}) x {HOURS_PER_MONTH:g} h a month",
    )
    return people * per_person


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
    if res.desktops:
        d = max(res.desktops, key=lambda d: d.capacity_gpu_hours_per_month / d.upfront_usd)
        parts.append(f"{int(budget // d.upfront_usd)} desktops of {d.label}")
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
