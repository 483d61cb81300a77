"""Ranking and sweeps: ``POST /v1/compare`` and ``POST /v1/break-even/sweep``. Thin: validate,
call the service, return."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import CpuGateDep, HeavyDep, SettingsDep, ViewDep
from app.api.responses import json_answer
from app.models.common import BUSY_RESPONSE, problems
from app.models.compare import CompareRequest, CompareResult, SweepRequest, SweepResult
from app.usecases import compare, sweep

router = APIRouter(
    prefix="/v1",
    tags=["calculations"],
    responses=problems(400, 404, 413, 415, 422),
)


@router.post("/compare", response_model=CompareResult, summary="Rank every option for a workload")
async def compute_compare(
    req: CompareRequest, view: ViewDep, settings: SettingsDep, cpu: CpuGateDep
) -> Response:
    """Every matching option in the catalog (cloud offers of every provider, region and
    pricing model, Colab plans, desktop builds of catalog barebones and GPUs) costed for the
    same work and ranked by total cost over `horizon_months`: cloud
    `fee + max(0, billed_h - included_h) x price` per month, desktop purchase + electricity.
    Each option also gets its marginal run cost, cost per run, cost per batch item, energy
    (kWh), emissions (kg CO2e), break-even against the best cloud option (desktops), and
    whether the workload fits in GPU memory. Unknown names are 404 with the closest ids."""
    # Over the whole catalog (~3 ms, more with many options): off the event loop, bounded.
    return json_answer(await cpu.run(compare.compute_compare, view, req, settings))


@router.post(
    "/break-even/sweep",
    response_model=SweepResult,
    summary="Break-even days over utilization and electricity price",
    responses={503: BUSY_RESPONSE},
)
async def compute_sweep(req: SweepRequest, heavy: HeavyDep) -> Response:
    """The `/v1/break-even` formula on a grid: rows are electricity prices (USD/kWh), columns
    utilizations (default 1 %, 2 % ... 100 %); each cell is break-even days (null = never),
    with desktop and cloud totals after `horizon_days`. A grid of up to 100,000 cells: it
    runs through the worker's render gate, like charts (503 `busy` when full)."""
    return json_answer(await heavy.run(sweep.compute_sweep, req))
