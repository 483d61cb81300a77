"""Charts of the calculations: compute with the same services as the JSON endpoints, then
draw with :mod:`app.render.drawing`. Titles state the inputs; axes carry units."""

from __future__ import annotations

import math
from typing import Any

from app import usecases
from app.catalog.view import CatalogView
from app.models.answers import CurrencyRate
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.compare import CompareRequest, CompareResult, SweepRequest
from app.models.plan import PlanRequest, PlanResult
from app.models.run_cost import RunCostResult
from app.query import answer as query
from app.query import answer_common as query_common
from app.render import drawing as charts
from app.settings import Settings
from app.usecases import compare, sweep
from app.usecases.plan_answer import compute_plan

MAX_BARS = 30


def _cur(rate: CurrencyRate, usd: float) -> float:
    """``usd`` in the answer's currency (``rate.usd_per_unit`` USD per unit)."""
    return usd / rate.usd_per_unit


def default_days(break_even_days: float | None) -> float:
    """Days shown on a cumulative chart: 1.5 x break-even rounded up to a month, at least a
    year and at most ten; three years when it never breaks even."""
    if break_even_days is None or not math.isfinite(break_even_days):
        return 3 * 365.0
    return float(min(3650, max(365, math.ceil(break_even_days * 1.5 / 30) * 30)))


def _break_even_title(res: BreakEvenResult) -> str:
    d, c, rate = res.desktop, res.cloud, res.currency_rate
    cur = rate.currency

    def m(usd: float) -> str:
        return charts.money(_cur(rate, usd), cur)

    desk = f"{d.gpu_count}x {d.gpu_id}" if d.gpu_id else "desktop"
    cloud = c.offer_id or (f"{c.gpu_id} " if c.gpu_id else "") + f"{m(c.price_usd_per_hour)}/h"
    return (
        f"Buy {desk} ({m(d.upfront_usd)}) or rent {cloud}\n"
        f"{res.utilization:.0%} utilization, electricity {m(d.electricity_price_usd_per_kwh)}/kWh"
    )


def cumulative_from_result(
    res: BreakEvenResult, days: float | None, fmt: charts.Format
) -> charts.Chart:
    """The cumulative-cost chart of a computed break-even."""
    rate = res.currency_rate
    return charts.cumulative_cost(
        upfront=_cur(rate, res.desktop.upfront_usd),
        desktop_per_day=_cur(rate, res.desktop.cost_usd_per_day),
        cloud_per_day=_cur(rate, res.cloud.cost_usd_per_day),
        break_even_days=res.break_even_days,
        days=days or default_days(res.break_even_days),
        title=_break_even_title(res),
        currency=rate.currency,
        fmt=fmt,
    )


def cumulative_chart(
    view: CatalogView,
    req: BreakEvenRequest,
    settings: Settings,
    days: float | None,
    fmt: charts.Format,
) -> charts.Chart:
    """Cumulative cost of desktop vs cloud for a ``/v1/break-even`` request."""
    return cumulative_from_result(usecases.compute_break_even(view, req, settings), days, fmt)


# A chart of more lines is unreadable (its legend alone) and costs seconds of CPU: sized so
# the largest sweep (100 prices x 1,000 utilizations) draws in well under a second (figures
# in docs/operations.md). The JSON sweep keeps every price.
MAX_SWEEP_LINES = 10


def _spread(n: int, most: int) -> list[int]:
    """At most ``most`` indexes of ``n``, evenly spread, the first and last included."""
    if n <= most:
        return list(range(n))
    return sorted({round(i * (n - 1) / (most - 1)) for i in range(most)})


def sweep_chart(
    view: CatalogView, req: SweepRequest, settings: Settings, fmt: charts.Format
) -> charts.Chart:
    """Break-even days against utilization for a ``/v1/break-even/sweep`` request. Only the
    prices drawn are computed (each line is independent of the others): the largest sweep
    computes 10 x 1,000 points here rather than 100 x 1,000 (the CPU it takes: see
    docs/operations.md)."""
    given = req.electricity_prices_usd_per_kwh or []
    drawn = _spread(len(given), MAX_SWEEP_LINES)
    if len(drawn) < len(given):
        req = req.model_copy(update={"electricity_prices_usd_per_kwh": [given[i] for i in drawn]})
    res = sweep.compute_sweep(view, req, settings)
    desk = req.desktop.gpu or "desktop"
    cloud = req.cloud.offer_id or f"${res.cloud_price_usd_per_hour:g}/h"
    prices_drawn = res.electricity_prices_usd_per_kwh
    series = [
        (f"${p:g}/kWh", days) for p, days in zip(prices_drawn, res.break_even_days, strict=True)
    ]
    prices = f", ${prices_drawn[0]:g}/kWh" if len(prices_drawn) == 1 else ""
    if len(drawn) < len(given):
        prices += f" ({len(drawn)} of {len(given)} prices drawn)"
    title = f"Break-even: {desk} desktop ({charts.usd(res.upfront_usd)}) vs {cloud}{prices}"
    return charts.break_even_vs_utilization(
        utilizations=res.utilizations, series=series, title=title, fmt=fmt
    )


def _bars(
    rows: list[tuple[str, float, str]],
    value_label: str,
    title: str,
    fmt: charts.Format,
    rate: CurrencyRate,
) -> charts.Chart:
    """Ranked bars of ``(label, USD, kind)`` rows, drawn in ``rate``'s currency."""
    rows = rows[:MAX_BARS]
    return charts.ranked_bars(
        labels=[r[0] for r in rows],
        values=[_cur(rate, r[1]) for r in rows],
        kinds=[r[2] for r in rows],
        value_label=f"{value_label} ({rate.currency})",
        title=title,
        currency=rate.currency,
        fmt=fmt,
    )


def compare_bars(res: CompareResult, fmt: charts.Format) -> charts.Chart:
    """Ranked bars of a compare result: cost per run when the workload has runs, else total
    cost over the horizon."""
    per_run = res.runs_per_month is not None
    rows: list[tuple[str, float, str]] = []
    for o in res.options:
        value = o.cost_per_run_usd if per_run else o.total_cost_usd
        if o.rank is not None and value is not None:  # a ranked option has its cost
            rows.append((o.label, value, o.kind))
    how = (
        f"{res.runs_per_month:g} runs/month"
        if per_run
        else (f"{res.reference_hours_per_month:g} h/month")
    )
    title = f"Cheapest options: {res.reference}\n{how} for {res.horizon_months:g} months"
    label = (
        "Cost per run, purchase and fees included"
        if per_run
        else f"Total cost over {res.horizon_months:g} months"
    )
    return _bars(rows, label, title, fmt, res.currency_rate)


def compare_chart(
    view: CatalogView, req: CompareRequest, settings: Settings, fmt: charts.Format
) -> charts.Chart:
    """Ranked bars for a ``/v1/compare`` request (at most 30 bars)."""
    req = req.model_copy(update={"limit": min(req.limit, MAX_BARS)})
    return compare_bars(compare.compute_compare(view, req, settings), fmt)


def run_cost_bars(res: RunCostResult, fmt: charts.Format) -> charts.Chart:
    """Ranked bars of a ``/v1/run-cost`` result: the cost of one run on each option."""
    rows = sorted(
        ((o.label, o.cost_usd, o.kind) for o in res.options if o.cost_usd is not None),
        key=lambda r: r[1],
    )
    what = res.workload.get("benchmark") or f"a {res.workload.get('runtime_s', 0):g} s run"
    return _bars(rows, "Cost of one run", f"Cost of one run: {what}", fmt, res.currency_rate)


def query_chart(
    view: CatalogView, settings: Settings, text: str, fmt: charts.Format
) -> charts.Chart:
    """The chart for a plain-language question: a break-even question draws cumulative cost,
    a run-cost question ranked bars. Like ``/v1/query``, a question that cannot be charted
    still gets an image: a card saying why, with examples (``Chart.x_label`` is then
    empty)."""
    answer = query.respond(view, settings, text)
    result: Any = answer.result
    if answer.answered and answer.endpoint == "/v1/break-even":
        return cumulative_from_result(BreakEvenResult.model_validate(result), None, fmt)
    if answer.answered and answer.endpoint == "/v1/run-cost":
        return run_cost_bars(RunCostResult.model_validate(result), fmt)
    if answer.answered:
        title = f"No chart for a '{answer.intent}' question: {answer.headline}"
        lines = ["Charts draw break-even and run-cost questions, e.g."]
    else:
        title = answer.headline
        lines = [f"Did you mean: {', '.join(answer.suggestions)}?"] if answer.suggestions else []
        lines.append("Try, e.g.")
    lines += [f"  {e}" for e in (answer.examples or query_common.EXAMPLES[:2])]
    return charts.message(title=title, lines=lines, fmt=fmt)


STRATEGY_LABELS = {
    "plan": "plan (own the base, rent the peak)",
    "all_cloud": "all cloud",
    "all_desktop": "all desktop",
}


def plan_chart(
    view: CatalogView,
    req: PlanRequest,
    settings: Settings,
    fmt: charts.Format,
    res: PlanResult | None = None,
) -> charts.Chart:
    """The `/v1/plan` answer drawn (:func:`plan_chart_of`): ``res`` when it was computed
    already (in a drawing process), else computed here."""
    return plan_chart_of(res if res is not None else compute_plan(view, req, settings), fmt)


def plan_chart_of(res: PlanResult, fmt: charts.Format) -> charts.Chart:
    """A computed plan drawn (:func:`app.render.drawing.fleet_plan`); a card with the reason when no
    plan meets the demand."""
    if not res.feasible:
        return charts.message(title="No plan meets the demand", lines=[res.note or ""], fmt=fmt)
    plan, rate = res.strategies[0], res.currency_rate

    def money_of(usd: float) -> str:
        return charts.money(_cur(rate, usd), rate.currency)

    title = (
        f"{res.horizon_months} months on {res.reference_gpu_id}: plan "
        f"{money_of(plan.total_usd or 0.0)}"
        + "".join(
            f", {STRATEGY_LABELS[s.strategy]} {money_of(s.total_usd)}"
            for s in res.strategies[1:]
            if s.total_usd is not None
        )
    )
    m = res.schedule
    return charts.fleet_plan(
        months=[r.month for r in m],
        demand=[r.demand_gpu_hours for r in m],
        capacity=[r.owned_capacity_gpu_hours + r.committed_capacity_gpu_hours for r in m],
        served=[r.served_owned_gpu_hours for r in m],
        committed=[r.served_committed_gpu_hours for r in m],
        rented=[r.rented_gpu_hours for r in m],
        cumulative=[
            (s.strategy, STRATEGY_LABELS[s.strategy], [_cur(rate, v) for v in s.cumulative_usd])
            for s in res.strategies
            if s.cumulative_usd is not None
        ],
        title=title,
        currency=rate.currency,
        fmt=fmt,
    )


def has_chart(endpoint: str | None) -> bool:
    """Whether :func:`query_chart` draws a chart for answers from ``endpoint``."""
    return endpoint in ("/v1/break-even", "/v1/run-cost")
