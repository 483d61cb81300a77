"""Charts as PNG or SVG: the same requests as the JSON endpoints, drawn. Thin: validate,
call the chart service, return the bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.api.deps import HeavyDep
from app.api.files import file_responses
from app.costing import floors
from app.models.break_even import BreakEvenRequest
from app.models.common import BUSY_RESPONSE, problems
from app.models.compare import CompareRequest, SweepRequest
from app.models.plan import PlanRequest
from app.query.vocabulary import MAX_QUERY_CHARS
from app.render import apart, charts
from app.render.drawing import Chart, Format
from app.usecases.plan_answer import check_plan, compute_plan

IMAGE = file_responses(
    "The chart: PNG (800 px wide) or SVG (text kept as text).",
    text=("image/svg+xml",),
    binary=("image/png",),
)
router = APIRouter(
    prefix="/v1/charts",
    tags=["charts"],
    responses={
        **IMAGE,
        **problems(400, 404, 413, 415, 422),
        503: BUSY_RESPONSE,
    },
)
FormatQuery = Annotated[Format, Query(description="`png` (default) or `svg`.", alias="format")]


def _image(chart: Chart) -> Response:
    headers = {"Cache-Control": "public, max-age=3600"}
    if not chart.x_label:  # a card explaining why there is no chart
        headers["X-Gpucost-Charted"] = "false"
    return Response(chart.content, media_type=chart.media_type, headers=headers)


@router.post(
    "/cumulative-cost",
    response_class=Response,
    summary="Chart: cumulative cost of desktop vs cloud, break-even marked",
)
async def cumulative_cost(
    req: BreakEvenRequest,
    heavy: HeavyDep,
    fmt: FormatQuery = "png",
    days: Annotated[
        float | None,
        Query(
            ge=floors.DAYS.value,
            le=3650,
            description="Days on the x axis; default 1.5 x break-even (one to ten years), "
            "three years when it never breaks even. " + floors.DAYS.describe(),
        ),
    ] = None,
) -> Response:
    """The `/v1/break-even` request drawn: desktop cost (purchase + electricity) and cloud
    cost against days since purchase (USD), with the break-even day marked."""
    return _image(await heavy.run(charts.cumulative_chart, req, days, fmt))


@router.post(
    "/break-even-sweep",
    response_class=Response,
    summary="Chart: break-even days against utilization",
)
async def break_even_sweep(
    req: SweepRequest,
    heavy: HeavyDep,
    fmt: FormatQuery = "png",
) -> Response:
    """The `/v1/break-even/sweep` grid drawn: break-even days against utilization (%), one
    line per electricity price; gaps where the desktop never pays back."""
    return _image(await heavy.run(charts.sweep_chart, req, fmt))


@router.post("/compare", response_class=Response, summary="Chart: options ranked by cost per run")
async def compare(
    req: CompareRequest,
    heavy: HeavyDep,
    fmt: FormatQuery = "png",
) -> Response:
    """The `/v1/compare` ranking drawn as bars (at most 30): cost per run over the horizon
    (purchase and fees included) when the workload has runs, else total cost (USD)."""
    return _image(await heavy.run(charts.compare_chart, req, fmt))


@router.post("/plan", response_class=Response, summary="Chart: a fleet plan month by month")
async def plan(
    req: PlanRequest,
    heavy: HeavyDep,
    fmt: FormatQuery = "png",
) -> Response:
    """The `/v1/plan` answer drawn (800 x 700 px): GPU-hours per month served by owned
    desktops and rented (stacked bars) against demand and owned capacity; below, the
    cumulative cost (USD) of the plan, all-cloud and all-desktop. No plan within the limits:
    a card saying why, with `X-Gpucost-Charted: false`."""
    # The plan where plans run (a drawing process when the worker has them), then drawn.
    res = await heavy.run_apart(apart.plan, compute_plan, req, check=check_plan)
    return _image(await heavy.run(charts.plan_chart, req, fmt, res))


@router.get("/query", response_class=Response, summary="Chart for a plain-language question")
async def query_chart(
    heavy: HeavyDep,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description="A break-even or run-cost question, as for `/v1/query`.",
            examples=["break-even for 3090 at 15% util"],
        ),
    ],
    fmt: FormatQuery = "png",
) -> Response:
    """The chart of a `/v1/query` answer (what Slack replies link): a break-even question
    draws cumulative cost, a run-cost question ranked bars. As with `/v1/query`, any question
    gets a 200: one that is not understood, names something unknown, or has no chart gets a
    card saying why, with examples, and the header `X-Gpucost-Charted: false`. 422 is only
    for a missing or over-long `q`."""
    return _image(await heavy.gate.run(charts.query_chart, heavy.view, heavy.settings, q, fmt))
