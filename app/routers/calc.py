"""Calculations: break-even, per-run cost and carbon. Thin: validate, call, return."""

from __future__ import annotations

from fastapi import APIRouter

from app.deps import AsOf, SessionDep, SettingsDep
from app.models.calc import (
    BreakEvenRequest,
    BreakEvenResult,
    CarbonRequest,
    CarbonResult,
    RunCostRequest,
    RunCostResult,
)
from app.models.common import PROBLEM_RESPONSES
from app.services import calc
from app.services.snapshot import prices_as_of

router = APIRouter(
    prefix="/v1",
    tags=["calculations"],
    responses={code: PROBLEM_RESPONSES[code] for code in (400, 404, 413, 415, 422)},
)


@router.post("/break-even", response_model=BreakEvenResult, summary="Desktop vs cloud break-even")
def compute_break_even(
    req: BreakEvenRequest, session: SessionDep, settings: SettingsDep, as_of: AsOf = None
) -> BreakEvenResult:
    """Days until buying a desktop beats renting:
    `upfront_usd / (cloud_usd_per_day - desktop_electricity_usd_per_day)`; null with a reason
    when the cloud is never dearer. Both sides' daily and yearly costs, energy (kWh) and
    emissions (kg CO2e) are returned with assumptions and sources."""
    with prices_as_of(as_of):
        return calc.compute_break_even(session, req, settings)


@router.post("/run-cost", response_model=RunCostResult, summary="Cost of one run per option")
def compute_run_cost(
    req: RunCostRequest, session: SessionDep, settings: SettingsDep, as_of: AsOf = None
) -> RunCostResult:
    """Cost of one run of a workload (a benchmark, or a runtime on a GPU) on each option:
    cloud `billed_s / 3600 x price_usd_per_hour`; desktop electricity and fully-loaded cost.
    Also energy, CO2e, the seed's cost per batch item and cost per item; an out-of-memory
    benchmark says `fits: false`."""
    with prices_as_of(as_of):
        return calc.compute_run_cost(session, req, settings)


@router.post("/carbon", response_model=CarbonResult, summary="Energy and emissions")
def compute_carbon(
    req: CarbonRequest, session: SessionDep, settings: SettingsDep, as_of: AsOf = None
) -> CarbonResult:
    """`energy_kwh = (gpu_count x gpu_power_w + base_power_w) x busy_hours / 1000 x pue`,
    `co2e_kg = energy_kwh x carbon_intensity_g_per_kwh / 1000`."""
    with prices_as_of(as_of):
        return calc.compute_carbon(session, req, settings)
