"""A fleet plan as a printable HTML page (Jinja2, autoescaped, no script): the question, the
answer, the strategies, purchases, the chart (inline SVG), a sensitivity table, the candidate
desktops, warnings, assumptions with sources, sources with dates, and the months."""

from __future__ import annotations

from functools import cache
from typing import Any

from app.models.plan import PlanRequest, PlanResult
from app.reports.tables import sensitivity

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
STRATEGY_NAMES = {
    "plan": "Plan: own the base, rent the peak",
    "all_cloud": "All cloud",
    "all_desktop": "All desktop",
}


@cache
def _template():
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("app.reports", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("plan.html.j2")


def money(x: float | None) -> str:
    """``$1,234.56``; empty for None."""
    if x is None:
        return ""
    return f"${x:,.2f}" if abs(x) >= 0.01 or x == 0 else f"${x:.4g}"


def _value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def demand_text(req: PlanRequest) -> str:
    """The demand as asked, in words."""
    if req.gpu_hours_per_month is not None:
        months = req.gpu_hours_per_month
        return (
            f"{len(months)} months given month by month, {sum(months):,.0f} GPU-hours in all "
            f"(lowest {min(months):,.0f}, highest {max(months):,.0f} a month)"
        )
    peaks = sorted(req.peaks or [], key=lambda p: p.month)
    text = f"{req.baseline_gpu_hours_per_month:,.0f} GPU-hours a month"
    for p in peaks:
        name = f" ({p.name})" if p.name else ""
        text += f"; {p.gpu_hours:,.0f} in {MONTHS[p.month - 1]}{name}"
    return text + (", every year" if peaks else "")


def limits_text(req: PlanRequest) -> str:
    c = req.constraints
    parts = [
        f"budget {money(c.budget_usd)} for desktops" if c.budget_usd is not None else None,
        f"at most {c.max_machines} desktops" if c.max_machines is not None else None,
        f"at most {c.max_power_w:,.0f} W" if c.max_power_w is not None else None,
    ]
    return "; ".join(p for p in parts if p) or "none"


def answer_text(res: PlanResult) -> str:
    plan = res.strategies[0]
    labels = {d.id: d.label for d in res.desktops}
    bought = "; ".join(
        f"{p.units} desktop{'s' if p.units > 1 else ''} of {labels[p.build_id]} in {p.month}"
        for p in res.purchases
    )
    text = (
        f"Buy {bought or 'no desktop'} and rent {plan.rented_gpu_hours or 0:,.0f} GPU-hours: "
        f"{money(plan.total_usd)} over {res.horizon_months} months"
    )
    if res.savings_vs_all_cloud_usd is not None:
        text += f", {money(res.savings_vs_all_cloud_usd)} less than renting everything"
    if res.savings_vs_all_desktop_usd is not None:
        text += f" and {money(res.savings_vs_all_desktop_usd)} less than owning for the peak"
    return text + "."


def plan_report(res: PlanResult, req: PlanRequest, chart_svg: str | None) -> bytes:
    """The page, UTF-8. ``chart_svg`` is the plan chart (SVG text) or None."""
    svg = chart_svg[chart_svg.find("<svg") :] if chart_svg else None
    return (
        _template()
        .render(
            title=f"GPU fleet plan: {res.horizon_months} months on {res.reference_gpu_id}",
            res=res,
            demand_text=demand_text(req),
            limits_text=limits_text(req),
            answer_text=answer_text(res) if res.feasible else "",
            labels={d.id: d.label for d in res.desktops},
            strategy_names=STRATEGY_NAMES,
            sens=sensitivity(res),
            chart_svg=svg,
            money=money,
            cur=res.currency_rate.currency,
            value_text=_value_text,
        )
        .encode()
    )
