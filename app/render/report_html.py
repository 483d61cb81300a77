"""Printable HTML pages (Jinja2, autoescaped, no script): a fleet plan (the question, the
answer, the strategies, purchases, the chart as inline SVG, a sensitivity table, the candidate
desktops, warnings, assumptions with sources, sources with dates, and the months) and a saved
scenario (its request, its answer, its chart and, for a break-even, what-ifs)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from app.models.answers import CurrencyRate
from app.models.break_even import BreakEvenResult
from app.models.plan import PlanRequest, PlanResult
from app.models.run_cost import RunCostResult
from app.models.scenario import ScenarioPublic
from app.render.drawing import SYMBOLS
from app.render.report_tables import sensitivity

if TYPE_CHECKING:
    from jinja2 import Template

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
STRATEGY_NAMES = {
    "plan": "Plan: own the base, rent the peak",
    "all_cloud": "All cloud",
    "all_desktop": "All desktop",
}


@cache
def template(name: str) -> Template:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("app.render", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(name)


def render(name: str, result: Any, **context: Any) -> bytes:
    """Template ``name`` with the answer's common blocks (prices, currency, warnings,
    assumptions, sources) from ``result`` and ``context``, UTF-8. Every amount is shown in
    the answer's currency (``money``, ``cur``)."""
    return (
        template(name)
        .render(
            prices=result.prices,
            rate=result.currency_rate,
            warnings=result.warnings,
            assumptions=result.assumptions,
            sources=result.sources,
            money=Money(result.currency_rate),
            cur=result.currency_rate.currency,
            value_text=value_text,
            **context,
        )
        .encode()
    )


@dataclass(frozen=True)
class Money:
    """A USD amount written in ``rate``'s currency: ``$1,234.56``, ``\u20ac1,234.56``,
    ``1,234.56 CHF``; ``-$13.37`` for a negative amount; empty for None."""

    rate: CurrencyRate

    def __call__(self, usd: float | None) -> str:
        if usd is None:
            return ""
        x = usd / self.rate.usd_per_unit
        text = f"{abs(x):,.2f}" if abs(x) >= 0.01 or x == 0 else f"{abs(x):.4g}"
        symbol = SYMBOLS.get(self.rate.currency)
        sign = "-" if x < 0 else ""
        return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {self.rate.currency}"


def compared(money: Money, saving_usd: float, than: str) -> str:
    """``saving_usd`` said the right way round: "$10.00 less than <than>", "$13.37 more than
    <than>" for a negative saving, "the same as <than>" within half a cent."""
    if abs(saving_usd) < 0.005:
        return f"the same as {than}"
    word = "less" if saving_usd > 0 else "more"
    return f"{money(abs(saving_usd))} {word} than {than}"


def value_text(value: Any) -> str:
    """An assumption's value for a reader: lists joined, numbers by :func:`number_text`."""
    if isinstance(value, list | tuple):
        return ", ".join(value_text(v) for v in value)
    if isinstance(value, float):
        return number_text(value)
    return str(value)


# Significant digits a report shows of a computed number (a price to the tenth of a cent, a
# fraction to 0.01 %): more is float noise to a reader (0.43274382265093136).
REPORT_DIGITS = 6


def number_text(value: float) -> str:
    """``value`` to :data:`REPORT_DIGITS` significant digits, thousands grouped, no trailing
    zeros: 0.43274382265093136 -> ``0.432744``, 1234567.891 -> ``1,234,568``, 2.5 -> ``2.5``."""
    if not math.isfinite(value) or value == 0:
        return str(value) if value else "0"
    decimals = max(0, REPORT_DIGITS - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


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


def limits_text(req: PlanRequest, money: Money) -> str:
    c = req.constraints
    parts = [
        f"budget {money(c.budget_usd)} for desktops" if c.budget_usd is not None else None,
        f"at most {c.max_machines} desktops" if c.max_machines is not None else None,
        f"at most {c.max_power_w:,.0f} W" if c.max_power_w is not None else None,
    ]
    return "; ".join(p for p in parts if p) or "none"


def answer_text(res: PlanResult) -> str:
    """The plan in one sentence, amounts in the answer's currency."""
    money = Money(res.currency_rate)
    plan = res.strategies[0]
    labels = {d.id: d.label for d in res.desktops}
    bought = "; ".join(
        f"{p.units} desktop{'s' if p.units > 1 else ''} of {labels[p.build_id]} in {p.month}"
        for p in res.purchases
    )
    committed = "; ".join(
        f"{len(c.starts)} of {c.label} from {', '.join(c.starts)}"
        for c in res.commitments
        if c.starts
    )
    text = (
        f"Buy {bought or 'no desktop'}"
        + (f", commit {committed}" if committed else "")
        + f" and rent {plan.rented_gpu_hours or 0:,.0f} GPU-hours: "
        f"{money(plan.total_usd)} over {res.horizon_months} months"
    )
    if res.savings_vs_all_cloud_usd is not None:
        text += ", " + compared(money, res.savings_vs_all_cloud_usd, "renting everything")
    if res.savings_vs_all_desktop_usd is not None:
        text += " and " + compared(money, res.savings_vs_all_desktop_usd, "owning for the peak")
    return text + "."


def plan_report(res: PlanResult, req: PlanRequest, chart_svg: str | None) -> bytes:
    """The page, UTF-8. ``chart_svg`` is the plan chart (SVG text) or None."""
    return render(
        "plan.html.j2",
        res,
        title=f"GPU fleet plan: {res.horizon_months} months on {res.reference_gpu_id}",
        res=res,
        demand_text=demand_text(req),
        limits_text=limits_text(req, Money(res.currency_rate)),
        answer_text=answer_text(res) if res.feasible else "",
        labels={d.id: d.label for d in res.desktops},
        strategy_names=STRATEGY_NAMES,
        sens=sensitivity(res),
        chart_svg=inline_svg(chart_svg),
    )


def inline_svg(svg: str | None) -> str | None:
    """An SVG document as an element to put in a page (its XML prologue dropped)."""
    return svg[svg.find("<svg") :] if svg else None


@dataclass(frozen=True)
class BreakEvenWhatIf:
    """One sensitivity row of a break-even: its label, break-even days (None: never) and
    both sides' TCO (USD)."""

    label: str
    days: float | None
    desktop_tco_usd: float
    cloud_tco_usd: float


def scenario_report(
    scenario: ScenarioPublic,
    result: BreakEvenResult | RunCostResult,
    chart_svg: str | None,
    sens: Sequence[BreakEvenWhatIf] = (),
) -> bytes:
    """A saved scenario's page: the question as saved, the answer, its chart and (for a
    break-even) the what-ifs, then warnings, assumptions and sources."""
    be = result if isinstance(result, BreakEvenResult) else None
    rc = result if isinstance(result, RunCostResult) else None
    return render(
        "scenario.html.j2",
        result,
        title=f"{scenario.name}: {scenario.kind.replace('_', '-')} report",
        scenario=scenario,
        question=_question(scenario.request),
        answer_text=_be_answer(be) if be else _rc_answer(rc),
        be=be,
        rc=rc,
        cloud_label=_cloud_label(be, Money(result.currency_rate)) if be else "",
        chart_svg=inline_svg(chart_svg),
        sens=list(sens),
    )


def _question(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The saved request, one row per top-level field, as typed."""
    return [
        (key.replace("_", " "), json.dumps(value, separators=(", ", ": ")))
        for key, value in request.items()
        if value is not None
    ]


def _cloud_label(be: BreakEvenResult, money: Money) -> str:
    c = be.cloud
    name = c.offer_id or f"{c.gpu_id or 'GPU'} at {money(c.price_usd_per_hour)}/h"
    return f"{name} ({c.busy_hours_per_day:.2f} h/day for the same work)"


def _be_answer(be: BreakEvenResult) -> str:
    money = Money(be.currency_rate)
    when = (
        f"buying pays back after {be.break_even_days:,.0f} days"
        if be.break_even_days is not None
        else f"buying never pays back ({be.break_even_reason})"
    )
    t = be.tco
    return (
        f"At {be.utilization:.0%} utilization {when}; over {t.horizon_years:g} years the "
        f"{t.cheaper} is cheaper by {money(abs(t.tco_saving_usd))}."
    )


def _rc_answer(rc: RunCostResult | None) -> str:
    costs = [o for o in (rc.options if rc else []) if o.cost_usd is not None]
    if not costs:
        return "No option could be costed."
    best = min(costs, key=lambda o: o.cost_usd or 0.0)
    assert rc is not None  # costs came from it
    return f"Cheapest run: {best.label}, {Money(rc.currency_rate)(best.cost_usd)} per run."
