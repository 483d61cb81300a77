"""The fleet plan's answer (``POST /v1/plan``): :func:`compute_plan` resolves the request
(:func:`app.usecases.plan.resolve`), solves it three ways and writes :class:`PlanResult`:
the candidates, commitments and cloud as priced, the purchases, the month-by-month schedule and the
plan, all-cloud and all-desktop strategies side by side (8 significant digits)."""

from __future__ import annotations

import numpy as np

from app.catalog.view import CatalogView
from app.costing.plan import PlanSolution
from app.models.plan import (
    PlanBuild,
    PlanCloud,
    PlanCommitment,
    PlanMonth,
    PlanPurchase,
    PlanRequest,
    PlanResult,
    PlanStrategy,
    StrategyName,
)
from app.settings import Settings
from app.steps.trail import currency_rate, in_currency, sig8
from app.usecases.plan import PlanOutcome, PlanScenario, all_cloud_cash, resolve, solve


def compute_plan(view: CatalogView, req: PlanRequest, settings: Settings) -> PlanResult:
    """The cost-minimizing fleet for ``req``; see :class:`PlanResult`. 404 for unknown names;
    when no plan meets the demand within the limits, ``feasible`` is false with the reason."""
    return compose(solve(resolve(view, req, settings)))


def check_plan(view: CatalogView, req: PlanRequest, settings: Settings) -> None:
    """Raise what :func:`compute_plan` would for ``req`` before solving it (404 for unknown
    names, 422): its resolve step alone, milliseconds against the solver's seconds."""
    resolve(view, req, settings)


def compose(out: PlanOutcome) -> PlanResult:
    """The answer from the solved scenario, from it alone."""
    s = out.scenario
    plan, p = out.plan, s.problem
    demand = np.array(p.demand_gpu_hours)
    strategies = [
        _strategy("plan", plan, s, out.plan_note),
        _all_cloud(s),
        _strategy("all_desktop", out.all_desktop, s, out.all_desktop_note),
    ]
    cloud_total, desk_total = strategies[1].total_usd, strategies[2].total_usd
    total = plan.total_usd if plan else None
    warnings = []
    if plan and not plan.optimal:
        warnings.append(
            f"the solver's time limit ran out before it proved the plan optimal: it costs at "
            f"most {plan.mip_gap:.1%} more (in present value) than the best possible plan"
        )
    return PlanResult(
        reference_gpu_id=s.ref.id,
        start_month=s.month_label(0),
        horizon_months=len(demand),
        demand_gpu_hours=sig8(float(demand.sum())),
        peak_gpu_hours=sig8(float(demand.max(initial=0.0))),
        electricity_price_usd_per_kwh=sig8(s.electricity_price_usd_per_kwh),
        max_utilization=s.max_utilization,
        annual_discount_rate=p.annual_discount_rate,
        vat_rate=s.tax.rate,
        feasible=plan is not None,
        note=out.plan_note,
        optimal=plan.optimal if plan else False,
        mip_gap=sig8(plan.mip_gap) if plan else None,
        solve_time_s=round(out.solve_time_s, 4),
        desktops=[_build(s, i, plan) for i in range(len(s.candidates))],
        cloud=_cloud(s),
        commitments=[_commitment(s, k, plan) for k in range(len(s.commitments))],
        purchases=_purchases(s, plan) if plan else [],
        schedule=_schedule(s, plan) if plan else [],
        strategies=strategies,
        savings_vs_all_cloud_usd=_difference(cloud_total, total),
        savings_vs_all_desktop_usd=_difference(desk_total, total),
        currency_rate=currency_rate(s.rate),
        **s.provenance.fields(warnings_after=warnings),
    )


def _difference(other: float | None, plan: float | None) -> float | None:
    return sig8(other - plan) if other is not None and plan is not None else None


def _build(s: PlanScenario, i: int, plan: PlanSolution | None) -> PlanBuild:
    c = s.candidates[i]
    b, d = c.build, c.desk.desktop
    return PlanBuild(
        id=b.id,
        label=c.label,
        gpu_id=c.desk.gpu.id if c.desk.gpu else "",
        gpu_count=d.gpu_count,
        upfront_usd=sig8(b.upfront_usd),
        time_factor=sig8(c.ratio.time_factor),
        speed_basis=c.ratio.basis,
        capacity_gpu_hours_per_month=sig8(b.capacity_gpu_hours_per_month),
        cost_usd_per_gpu_hour=sig8(b.cost_usd_per_gpu_hour),
        busy_power_w=sig8(b.power_w),
        life_months=b.life_months,
        units_bought=int(sum(plan.bought[i])) if plan else 0,
    )


def _cloud(s: PlanScenario) -> PlanCloud | None:
    c = s.cloud
    if c is None:
        return None
    return PlanCloud(
        offer_id=c.offer.id if c.offer else None,
        label=c.label,
        gpu_id=c.gpu.id if c.gpu else None,
        price_usd_per_gpu_hour=sig8(c.price_usd_per_gpu_hour),
        time_factor=sig8(c.ratio.time_factor),
        cost_usd_per_gpu_hour=sig8(c.cost_usd_per_gpu_hour * s.tax.factor),
        as_of=c.as_of,
    )


def _commitment(s: PlanScenario, k: int, plan: PlanSolution | None) -> PlanCommitment:
    c, n = s.commitments[k], len(s.candidates)
    row = plan.bought[n + k] if plan else ()
    return PlanCommitment(
        id=c.build.id,
        offer_id=c.offer.id,
        label=c.label,
        gpu_id=c.offer.gpu_id,
        gpu_count=c.offer.gpu_count,
        term_months=c.build.life_months,
        monthly_fee_usd=sig8(c.build.monthly_fee_usd),
        time_factor=sig8(c.ratio.time_factor),
        capacity_gpu_hours_per_month=sig8(c.build.capacity_gpu_hours_per_month),
        as_of=c.offer.as_of,
        starts=[s.month_label(t) for t, units in enumerate(row) for _ in range(units)],
    )


def cash_usd(sol: PlanSolution) -> np.ndarray:
    """A solution's cash out per month, USD: purchases, electricity, commitments, rent."""
    cash: np.ndarray = np.sum(
        [sol.capex_usd, sol.desktop_opex_usd, sol.fees_usd, sol.cloud_usd], axis=0
    )
    return cash


def _purchases(s: PlanScenario, plan: PlanSolution) -> list[PlanPurchase]:
    return [
        PlanPurchase(
            month=s.month_label(t),
            month_index=t,
            build_id=s.candidates[i].build.id,
            units=units,
            cost_usd=sig8(units * s.candidates[i].build.upfront_usd),
        )
        for t in range(len(s.problem.demand_gpu_hours))
        for i, row in enumerate(plan.bought[: len(s.candidates)])
        if (units := row[t]) > 0
    ]


def _schedule(s: PlanScenario, plan: PlanSolution) -> list[PlanMonth]:
    n = len(s.candidates)
    builds = [c.build for c in s.candidates]
    counts = [c.desk.desktop.gpu_count for c in s.candidates]
    commits = [c.build for c in s.commitments]
    cash = cash_usd(plan)
    cumulative = np.cumsum(cash)
    months = []
    for t, need in enumerate(s.problem.demand_gpu_hours):
        owned = [row[t] for row in plan.owned[:n]]
        held = [row[t] for row in plan.owned[n:]]
        months.append(
            PlanMonth(
                month=s.month_label(t),
                demand_gpu_hours=sig8(need),
                desktops_owned=sum(owned),
                gpus_owned=sum(n * k for n, k in zip(owned, counts, strict=True)),
                owned_capacity_gpu_hours=sig8(
                    sum(
                        n * b.capacity_gpu_hours_per_month
                        for n, b in zip(owned, builds, strict=True)
                    )
                ),
                served_owned_gpu_hours=sig8(sum(row[t] for row in plan.served_gpu_hours[:n])),
                committed_instances=sum(held),
                committed_capacity_gpu_hours=sig8(
                    sum(
                        k * b.capacity_gpu_hours_per_month
                        for k, b in zip(held, commits, strict=True)
                    )
                ),
                served_committed_gpu_hours=sig8(sum(row[t] for row in plan.served_gpu_hours[n:])),
                rented_gpu_hours=sig8(plan.rented_gpu_hours[t]),
                capex_usd=sig8(plan.capex_usd[t]),
                desktop_opex_usd=sig8(plan.desktop_opex_usd[t]),
                commitment_usd=sig8(plan.fees_usd[t]),
                cloud_usd=sig8(plan.cloud_usd[t]),
                cash_usd=sig8(float(cash[t])),
                cumulative_usd=sig8(float(cumulative[t])),
            )
        )
    return months


def _strategy(
    name: StrategyName, sol: PlanSolution | None, s: PlanScenario, note: str | None
) -> PlanStrategy:
    """A solved strategy totalled; an infeasible one (``sol`` None) with ``note``."""
    if sol is None:
        return PlanStrategy(
            strategy=name,
            feasible=False,
            note=note,
            total_usd=None,
            present_value_usd=None,
            capex_usd=None,
            desktop_opex_usd=None,
            commitment_usd=None,
            cloud_usd=None,
            desktops_bought=None,
            rented_gpu_hours=None,
            total_in_currency=None,
            cumulative_usd=None,
        )
    cash = cash_usd(sol)
    return PlanStrategy(
        strategy=name,
        feasible=True,
        note=note,
        total_usd=sig8(sol.total_usd),
        present_value_usd=sig8(sol.present_value_usd),
        capex_usd=sig8(sum(sol.capex_usd)),
        desktop_opex_usd=sig8(sum(sol.desktop_opex_usd)),
        commitment_usd=sig8(sum(sol.fees_usd)),
        cloud_usd=sig8(sum(sol.cloud_usd)),
        desktops_bought=int(sum(sum(row) for row in sol.bought[: len(s.candidates)])),
        rented_gpu_hours=sig8(sum(sol.rented_gpu_hours)),
        total_in_currency=in_currency(sol.total_usd, s.rate),
        cumulative_usd=[sig8(float(x)) for x in np.cumsum(cash)],
    )


def _all_cloud(s: PlanScenario) -> PlanStrategy:
    """Every GPU-hour rented at the cloud's cost per reference GPU-hour."""
    cash = all_cloud_cash(s)
    if cash is None:
        return _strategy("all_cloud", None, s, "no cloud: include_cloud is false")
    f = s.problem.discount()
    total = float(cash.sum())
    return PlanStrategy(
        strategy="all_cloud",
        feasible=True,
        note=f"every GPU-hour rented from {s.cloud.label}" if s.cloud else None,
        total_usd=sig8(total),
        present_value_usd=sig8(float((cash * f).sum())),
        capex_usd=0.0,
        desktop_opex_usd=0.0,
        commitment_usd=0.0,
        cloud_usd=sig8(total),
        desktops_bought=0,
        rented_gpu_hours=sig8(float(sum(s.problem.demand_gpu_hours))),
        total_in_currency=in_currency(total, s.rate),
        cumulative_usd=[sig8(float(x)) for x in np.cumsum(cash)],
    )
