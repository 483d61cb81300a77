"""Fleet plan: ``POST /v1/plan``. Thin: validate, solve off the event loop, return."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool

from app.deps import SettingsDep, ViewDep
from app.models.common import PROBLEM_RESPONSES
from app.models.plan import PlanRequest, PlanResult
from app.services import reports
from app.usecases.plan_answer import compute_plan

router = APIRouter(
    prefix="/v1",
    tags=["planning"],
    responses={code: PROBLEM_RESPONSES[code] for code in (400, 404, 413, 415, 422)},
)


@router.post("/plan", response_model=PlanResult, summary="Own the base, rent the peak")
async def plan(req: PlanRequest, view: ViewDep, settings: SettingsDep) -> PlanResult:
    """The cost-minimizing fleet for a demand profile (reference GPU-hours per month over 12
    to 60 months, or a baseline with yearly peaks): how many desktops of which candidate to
    buy in which month and how many GPU-hours to rent in which month, minimizing the present
    value of purchases, desktop electricity and cloud rent within the budget, machine-count
    and power limits (a mixed-integer programme, `scipy.optimize.milp` / HiGHS, at most
    2 s per solve). Beside it: all-cloud and the cheapest all-desktop fleet. 422 when no
    plan meets the demand within the limits (desktops only)."""
    return await run_in_threadpool(compute_plan, view, req, settings)


REPORT_CONTENT = {
    200: {
        "description": "The report: a printable HTML page (the question, the answer, the "
        "chart, a sensitivity table, assumptions and sources), an XLSX workbook (Summary, "
        "Schedule, Purchases, Desktops, Sensitivity, Assumptions, Sources, Warnings sheets) "
        "or the month-by-month schedule as CSV.",
        "content": {
            "text/html": {"schema": {"type": "string"}},
            reports.MEDIA_TYPES["xlsx"]: {"schema": {"type": "string", "format": "binary"}},
            "text/csv": {"schema": {"type": "string"}},
        },
    }
}


@router.post(
    "/plan/report",
    response_class=Response,
    responses=REPORT_CONTENT,
    summary="A fleet plan as a report to file (HTML, XLSX or CSV)",
)
async def plan_report(
    req: PlanRequest,
    view: ViewDep,
    settings: SettingsDep,
    fmt: Annotated[
        reports.ReportFormat,
        Query(alias="format", description="`html` (default, printable), `xlsx` or `csv`."),
    ] = "html",
) -> Response:
    """The `/v1/plan` answer written for a budget office: `html` a printable page, `xlsx` a
    workbook, `csv` the schedule (one row per month). XLSX and CSV come as attachments
    (`Content-Disposition`), named after the GPU, first month and horizon."""
    report = await run_in_threadpool(reports.plan_report, view, req, settings, fmt)
    disposition = "inline" if fmt == "html" else "attachment"
    return Response(
        report.content,
        media_type=report.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{report.filename}"'},
    )
