"""Fleet plan: ``POST /v1/plan``. Thin: validate, solve off the event loop, return."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from app.deps import SettingsDep, ViewDep
from app.models.common import PROBLEM_RESPONSES
from app.models.plan import PlanRequest, PlanResult
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
