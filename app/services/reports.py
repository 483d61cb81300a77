"""Plan reports (``POST /v1/plan/report``): compute the plan once, then write it as a
printable HTML page (with its chart), an XLSX workbook or the schedule as CSV."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.catalog.view import CatalogView
from app.models.cash_flow import CashFlowRequest
from app.models.plan import PlanRequest
from app.reports import html, tables
from app.services.charts import plan_chart_of
from app.settings import Settings
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
    view: CatalogView, req: PlanRequest, settings: Settings, fmt: ReportFormat
) -> Report:
    """The plan of ``req`` as ``fmt``; errors as :func:`compute_plan`."""
    res = compute_plan(view, req, settings)
    name = f"gpucost-plan-{res.reference_gpu_id}-{res.start_month}-{res.horizon_months}m.{fmt}"
    if fmt == "xlsx":
        content = tables.workbook(res)
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
