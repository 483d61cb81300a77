"""Budget planning: the fleet plan (``POST /v1/plan``), a scenario's cash flow
(``POST /v1/cash-flow``) and their reports. Thin: validate, compute off the event loop,
return."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from app.api.deps import HeavyDep
from app.api.files import file_responses, report_response
from app.models.cash_flow import CashFlowRequest, CashFlowResult
from app.models.common import BUSY_RESPONSE, problems
from app.models.plan import PlanRequest, PlanResult
from app.render import apart, reports
from app.usecases.cash_flow import compute_cash_flow
from app.usecases.plan_answer import check_plan, compute_plan

router = APIRouter(
    prefix="/v1",
    tags=["planning"],
    responses={
        **problems(400, 404, 413, 415, 422),
        503: BUSY_RESPONSE,
    },
)


@router.post("/plan", response_model=PlanResult, summary="Own the base, rent the peak")
async def plan(req: PlanRequest, heavy: HeavyDep) -> PlanResult:
    """The cost-minimizing fleet for a demand profile (reference GPU-hours per month over 12
    to 60 months, or a baseline with yearly peaks): how many desktops of which candidate to
    buy in which month and how many GPU-hours to rent in which month, minimizing the present
    value of purchases, desktop electricity and cloud rent within the budget, machine-count
    and power limits (a mixed-integer programme, `scipy.optimize.milp` / HiGHS, at most
    2 s per solve). Beside it: all-cloud and the cheapest all-desktop fleet. When no plan
    meets the demand within the limits the answer is still a 200, with `feasible` false and
    the reason."""
    return await heavy.run_apart(apart.plan, compute_plan, req, check=check_plan)


REPORT_CONTENT = file_responses(
    "The report: a printable HTML page (the question, the answer, the chart, a sensitivity "
    "table, assumptions and sources), an XLSX workbook (Summary, Schedule, Purchases, "
    "Desktops, Sensitivity, Assumptions, Sources, Warnings sheets) or the month-by-month "
    "schedule as CSV.",
    text=("text/html", "text/csv"),
    binary=(reports.MEDIA_TYPES["xlsx"],),
)


@router.post(
    "/plan/report",
    response_class=Response,
    responses=REPORT_CONTENT,
    summary="A fleet plan as a report to file (HTML, XLSX or CSV)",
)
async def plan_report(
    req: PlanRequest,
    heavy: HeavyDep,
    fmt: Annotated[
        reports.ReportFormat,
        Query(alias="format", description="`html` (default, printable), `xlsx` or `csv`."),
    ] = "html",
) -> Response:
    """The `/v1/plan` answer written for a budget office: `html` a printable page, `xlsx` a
    workbook, `csv` the schedule (one row per month). XLSX and CSV come as attachments
    (`Content-Disposition`), named after the GPU, first month and horizon."""
    # The plan where plans run (a drawing process when the worker has them), then written.
    res = await heavy.run_apart(apart.plan, compute_plan, req, check=check_plan)
    report = await heavy.run(reports.plan_report, req, fmt, res)
    return report_response(report, inline=fmt == "html")


@router.post(
    "/cash-flow",
    response_model=CashFlowResult,
    summary="A break-even scenario's money over time",
)
async def cash_flow(req: CashFlowRequest, heavy: HeavyDep) -> CashFlowResult:
    """The `/v1/break-even` request laid out month by month (or year by year): the desktop's
    purchase, electricity and resale, the cloud's cost for the same work, each side's
    cumulative cash and present value at `annual_discount_rate`, and the desktop's
    straight-line book value (`depreciation_years`) beside the market value of its
    GPUs (their class's depreciation curve)."""
    return await heavy.run(compute_cash_flow, req)


CASH_FLOW_CONTENT = file_responses(
    "The cash flow as an XLSX workbook (Summary, Cash flow, Assumptions, Sources, Warnings) "
    "or CSV (one row per period).",
    text=("text/csv",),
    binary=(reports.MEDIA_TYPES["xlsx"],),
)


@router.post(
    "/cash-flow/report",
    response_class=Response,
    responses=CASH_FLOW_CONTENT,
    summary="A scenario's cash flow as a file (XLSX or CSV)",
)
async def cash_flow_report(
    req: CashFlowRequest,
    heavy: HeavyDep,
    fmt: Annotated[
        Literal["xlsx", "csv"], Query(alias="format", description="`xlsx` (default) or `csv`.")
    ] = "xlsx",
) -> Response:
    """The `/v1/cash-flow` answer as an attachment named after its first month, months and
    period."""
    report = await heavy.run(reports.cash_flow_report, req, fmt)
    return report_response(report, inline=False)
