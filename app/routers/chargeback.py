"""Chargeback from a scheduler's usage export (``POST /v1/chargeback``): JSON, or CSV and
XLSX for the finance office. Thin: validate, compute off the event loop, write the format
asked for."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.api.deps import HeavyDep
from app.api.files import report_response
from app.api.responses import json_answer
from app.models.chargeback import ChargebackFormat, ChargebackRequest, ChargebackResult
from app.models.common import BUSY_RESPONSE, problems
from app.render import chargeback_tables as tables
from app.render.reports import MEDIA_TYPES, Report
from app.usecases.chargeback import compute_chargeback

router = APIRouter(
    prefix="/v1",
    tags=["lab operations"],
    responses={**problems(400, 404, 413, 415, 422), 503: BUSY_RESPONSE},
)

FormatQuery = Annotated[
    ChargebackFormat,
    Query(
        alias="format",
        description="`json` (default): the chargeback with its assumptions and sources; "
        "`csv`: one row per account and per user; `xlsx`: a workbook (Chargeback, Machines, "
        "Unread lines, Assumptions, Sources, Warnings).",
    ),
]


@router.post(
    "/chargeback",
    response_model=ChargebackResult,
    summary="Chargeback per account and user from a Slurm usage export",
    responses={
        200: {
            "description": "The chargeback (`format=json`), or a file for the finance "
            "office: CSV (`format=csv`) or XLSX (`format=xlsx`), as an attachment.",
            "content": {
                "text/csv": {"schema": {"type": "string"}},
                MEDIA_TYPES["xlsx"]: {"schema": {"type": "string", "format": "binary"}},
            },
        }
    },
)
async def chargeback(
    req: ChargebackRequest, heavy: HeavyDep, fmt: FormatQuery = ChargebackFormat.json
) -> Response:
    """A period's GPU jobs (`sacct -X --allusers --parsable2`) charged to each account and
    user: GPU-hours inside the period, the owned cost at each partition's owned GPU-hour rate
    (the machines' whole cost spread over the GPU-hours used: the period's measured
    utilization, stated), what renting the same GPU-hours at the comparable on-demand offer
    would have cost, energy (busy wall power per GPU) and carbon (the site's grid), and each
    partition's idle share. Lines that cannot be read are listed in `unread` (line, reason)
    and the rest is counted; jobs on partitions no machine serves are counted in
    `unmatched`."""
    res = await heavy.run(compute_chargeback, req)
    if fmt is ChargebackFormat.json:
        return json_answer(res)
    start, end = req.period.start.isoformat(), req.period.end.isoformat()
    name = f"gpucost-chargeback-{start}-{end}.{fmt.value}"
    write = tables.chargeback_csv if fmt is ChargebackFormat.csv else tables.chargeback_workbook
    content = await heavy.gate.run(write, res)
    return report_response(Report(content, MEDIA_TYPES[fmt.value], name), inline=False)
