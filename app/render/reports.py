"""Reports to file: a plan (``POST /v1/plan/report``) as a printable HTML page (with its
chart), an XLSX workbook or the schedule as CSV; a cash flow as XLSX or CSV; a saved scenario
(``GET /v1/scenarios/{id}/report``) as a printable page with its chart and what-ifs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlmodel import Session

from app import usecases
from app.catalog.view import CatalogView
from app.errors import NotFound
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.cash_flow import CashFlowRequest
from app.models.plan import PlanRequest, PlanResult
from app.render import charts as charts_service
from app.render import report_html as html
from app.render import report_tables as tables
from app.render.charts import plan_chart_of
from app.settings import Settings
from app.usecases import scenarios
from app.usecases.cash_flow import compute_cash_flow
from app.usecases.plan_answer import compute_plan

ReportFormat = Literal["html", "xlsx", "csv"]
MEDIA_TYPES: dict[str, str] = {
    "html": "text/html; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "csv": "text/csv; charset=utf-8",
}


@dataclass(frozen=True)
class Report:
    """A written report: its bytes, media type and file name."""

    content: bytes
    media_type: str
    filename: str


def plan_report(
    view: CatalogView,
    req: PlanRequest,
    settings: Settings,
    fmt: ReportFormat,
    res: PlanResult | None = None,
) -> Report:
    """The plan of ``req`` as ``fmt``: ``res`` when it was computed already (in a drawing
    process), else computed here; errors as :func:`compute_plan`."""
    res = res if res is not None else compute_plan(view, req, settings)
    name = f"gpucost-plan-{res.reference_gpu_id}-{res.start_month}-{res.horizon_months}m.{fmt}"
    if fmt == "xlsx":
        answer = html.answer_text(res) if res.feasible else ""
        content = tables.workbook(res, answer, req.constraints.budget_usd)
    elif fmt == "csv":
        content = tables.schedule_csv(res)
    else:
        chart = plan_chart_of(res, "svg")
        content = html.plan_report(res, req, chart.content.decode() if res.feasible else None)
    return Report(content, MEDIA_TYPES[fmt], name)


def cash_flow_report(
    view: CatalogView, req: CashFlowRequest, settings: Settings, fmt: Literal["xlsx", "csv"]
) -> Report:
    """The cash flow of ``req`` as ``fmt``; errors as :func:`compute_cash_flow`."""
    res = compute_cash_flow(view, req, settings)
    name = f"gpucost-cash-flow-{res.start_month}-{res.months}m-{res.period}.{fmt}"
    content = tables.cash_flow_workbook(res) if fmt == "xlsx" else tables.cash_flow_csv(res)
    return Report(content, MEDIA_TYPES[fmt], name)


# What-ifs of a saved break-even: gpucost's choice of steps, not forecasts.
UTILIZATION_STEPS = (0.5, 2.0)
ELECTRICITY_STEPS = (0.5, 1.5)
DESKTOP_PRICE_STEPS = (0.75, 1.25)


def scenario_report(
    session: Session, view: CatalogView, settings: Settings, scenario_id: str
) -> Report:
    """A saved scenario as a printable page, evaluated with the prices of ``view``; 404 as
    :func:`scenarios.result`."""
    found = scenarios.result(session, view, settings, scenario_id)
    if found.break_even is None and found.run_cost is None:
        raise NotFound(
            f"scenario '{scenario_id}' is a {found.scenario.kind} answer saved from a "
            f"calculator page: its printable page is /s/{scenario_id}"
        )
    if found.break_even is not None:
        res = found.break_even
        chart = charts_service.cumulative_from_result(res, None, "svg")
        sens = _what_ifs(view, settings, found.scenario.request, res)
        content = html.scenario_report(found.scenario, res, chart.content.decode(), sens)
    else:
        assert found.run_cost is not None
        chart = charts_service.run_cost_bars(found.run_cost, "svg")
        content = html.scenario_report(found.scenario, found.run_cost, chart.content.decode())
    return Report(content, MEDIA_TYPES["html"], f"gpucost-scenario-{scenario_id}.html")


def _what_ifs(
    view: CatalogView, settings: Settings, request: dict[str, Any], res: BreakEvenResult
) -> list[html.BreakEvenWhatIf]:
    """The break-even again with utilization, electricity price or desktop price moved."""
    rows = [html.BreakEvenWhatIf("as saved", res.break_even_days, *_tco(res))]
    u = res.utilization
    price = res.desktop.electricity_price_usd_per_kwh
    money = html.Money(res.currency_rate)
    cases: list[tuple[str, dict[str, Any]]] = [
        (
            f"utilization x {f:g} ({min(1.0, u * f):.0%})",
            {"utilization": min(1.0, u * f), "utilization_profile": None},
        )
        for f in UTILIZATION_STEPS
    ]
    cases += [
        (
            f"electricity price x {f:g} ({money(price * f)}/kWh)",
            {"electricity_price_usd_per_kwh": price * f, "electricity_price_per_kwh": None},
        )
        for f in ELECTRICITY_STEPS
    ]
    desktop = dict(request.get("desktop") or {})
    for f in DESKTOP_PRICE_STEPS:
        moved = {**desktop, "total_price_usd": res.desktop.upfront_usd * f, "total_price": None}
        cases.append((f"desktop price x {f:g}", {"desktop": _drop_none(moved)}))
    for label, change in cases:
        body = _drop_none({**request, **change})
        alt = usecases.compute_break_even(view, BreakEvenRequest.model_validate(body), settings)
        rows.append(html.BreakEvenWhatIf(label, alt.break_even_days, *_tco(alt)))
    return rows


def _tco(res: BreakEvenResult) -> tuple[float, float]:
    return res.tco.desktop_tco_usd, res.tco.cloud_tco_usd


def _drop_none(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}
