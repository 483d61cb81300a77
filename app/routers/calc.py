"""Calculations: break-even, per-run cost, carbon and a desktop's electricity. Thin:
validate, call, return (the answer serialized once: :func:`app.api.responses.json_answer`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app import usecases
from app.api.deps import SettingsDep, ViewDep
from app.api.lean import LeanRoute
from app.api.responses import json_answer
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.carbon import CarbonRequest, CarbonResult
from app.models.common import problems
from app.models.electricity import ElectricityRequest, ElectricityResult
from app.models.run_cost import RunCostRequest, RunCostResult

router = APIRouter(
    prefix="/v1",
    tags=["calculations"],
    responses=problems(400, 404, 413, 415, 422),
    route_class=LeanRoute,
)


@router.post("/break-even", response_model=BreakEvenResult, summary="Desktop vs cloud break-even")
async def compute_break_even(
    req: BreakEvenRequest, view: ViewDep, settings: SettingsDep
) -> Response:
    """Days until buying a desktop beats renting:
    `upfront_usd / (cloud_usd_per_day - desktop_electricity_usd_per_day)`; null with a reason
    when the cloud is never dearer. Both sides' daily and yearly costs, energy (kWh) and
    emissions (kg CO2e) are returned with assumptions and sources."""
    return json_answer(usecases.compute_break_even(view, req, settings))


@router.post("/run-cost", response_model=RunCostResult, summary="Cost of one run per option")
async def compute_run_cost(req: RunCostRequest, view: ViewDep, settings: SettingsDep) -> Response:
    """Cost of one run of a workload (a benchmark, or a runtime on a GPU) on each option:
    cloud `billed_s / 3600 x price_usd_per_hour`; desktop electricity and fully-loaded cost.
    Also energy, CO2e, the seed's cost per batch item and cost per item; an out-of-memory
    benchmark says `fits: false`."""
    return json_answer(usecases.compute_run_cost(view, req, settings))


@router.post("/carbon", response_model=CarbonResult, summary="Energy and emissions")
async def compute_carbon(req: CarbonRequest, view: ViewDep, settings: SettingsDep) -> Response:
    """`energy_kwh = (gpu_count x gpu_power_w + base_power_w) x busy_hours / 1000 x pue`,
    `co2e_kg = energy_kwh x carbon_intensity_g_per_kwh / 1000`."""
    return json_answer(usecases.compute_carbon(view, req, settings))


@router.post(
    "/electricity", response_model=ElectricityResult, summary="A desktop's electricity bill"
)
async def compute_electricity(
    req: ElectricityRequest, view: ViewDep, settings: SettingsDep
) -> Response:
    """Energy (kWh) and electricity cost per day, month and year of running an owned desktop
    at `utilization`: `(busy_power_w x busy h + idle_wall_power_w x idle h) / 1000 x
    electricity_price_usd_per_kwh`, the same desktop power model as break-even's."""
    return json_answer(usecases.compute_electricity(view, req, settings))
