"""Owned-GPU hourly rates: the JSON answer, or the configuration blocks SkyPilot and OpenCost
read. Thin: validate, call the use case, write the format asked for."""

from __future__ import annotations

import csv
import io
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app import usecases
from app.api.deps import SettingsDep, ViewDep
from app.api.responses import json_answer, json_bytes_answer
from app.integrations import owned_pricing
from app.models.chargeback import SlurmPricingRequest
from app.models.common import problems
from app.models.owned_rates import (
    OpenCostPricing,
    OwnedRatesFormat,
    OwnedRatesRequest,
    OwnedRatesResult,
)
from app.usecases import slurm_pricing

router = APIRouter(
    prefix="/v1",
    tags=["calculations"],
    responses=problems(400, 404, 413, 415, 422),
)

# The YAML document `format=skypilot` answers, as a YAML reader parses it: the block to merge
# into `~/.sky/config.yaml` (accelerator name -> USD per accelerator-hour).
SKYPILOT_YAML_SCHEMA = {
    "type": "object",
    "description": "`kubernetes: pricing: accelerators:`: SkyPilot accelerator name -> USD "
    "per accelerator-hour (a YAML document with comments saying what each rate covers).",
    "properties": {
        "kubernetes": {
            "type": "object",
            "properties": {
                "pricing": {
                    "type": "object",
                    "properties": {
                        "accelerators": {
                            "type": "object",
                            "additionalProperties": {"type": "number"},
                        }
                    },
                }
            },
        }
    },
}

FormatQuery = Annotated[
    OwnedRatesFormat,
    Query(
        alias="format",
        description="`json` (default): the rates with assumptions and sources; `skypilot`: "
        "the `kubernetes: pricing: accelerators:` YAML block of `~/.sky/config.yaml`; "
        "`opencost`: OpenCost's custom pricing `default.json`. Both tools' figures are USD.",
    ),
]


@router.post(
    "/owned-rates",
    response_model=OwnedRatesResult | OpenCostPricing,
    summary="Owned GPUs priced per GPU-hour (JSON, SkyPilot, OpenCost)",
    responses={
        200: {
            "description": "The rates (`format=json`: `OwnedRatesResult`), SkyPilot's YAML "
            "block (`format=skypilot`, application/yaml) or OpenCost's `default.json` "
            "(`format=opencost`: `OpenCostPricing`, application/json).",
            "content": {
                owned_pricing.YAML_MEDIA_TYPE: {"schema": SKYPILOT_YAML_SCHEMA},
            },
        }
    },
)
async def compute_owned_rates(
    req: OwnedRatesRequest,
    view: ViewDep,
    settings: SettingsDep,
    fmt: FormatQuery = OwnedRatesFormat.json,
) -> Response:
    """The fully-loaded cost of one GPU-hour of each GPU type a lab owns: `max(0, purchase -
    resale) / (holding years x GPUs x utilization x 8,760 h)` + a year's electricity / its
    busy GPU-hours + yearly overhead / the same GPU-hours, with break-even's defaults
    (catalog builds, depreciation-curve resale, region electricity) stated in
    `assumptions`."""
    result = usecases.compute_owned_rates(view, req, settings)
    if fmt is OwnedRatesFormat.skypilot:
        return Response(
            owned_pricing.skypilot_yaml(result), media_type=owned_pricing.YAML_MEDIA_TYPE
        )
    if fmt is OwnedRatesFormat.opencost:
        return json_bytes_answer(owned_pricing.opencost_default_json(result))
    return json_answer(result)


@router.post(
    "/owned-rates/skypilot-slurm",
    response_class=Response,
    summary="Owned GPUs priced per partition for SkyPilot's Slurm catalog (pricing.csv)",
    responses={
        200: {
            "description": "`~/.sky/catalogs/v8/slurm/pricing.csv`: `Region` (cluster), "
            "`Zone` (partition), `PricePerVCPU`, `PricePerMemoryGB` (0: in the GPU rate), "
            "`AcceleratorName`, `PricePerAccelerator` (USD per GPU-hour, all-in), then "
            "SkyPilot's wildcard row of zeros.",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        }
    },
)
async def skypilot_slurm_pricing(
    req: SlurmPricingRequest, view: ViewDep, settings: SettingsDep
) -> Response:
    """The lab's machines by cluster and partition (the request's, else the server's
    `GPUCOST_MACHINES_FILE`) priced per GPU-hour as `POST /v1/owned-rates` prices them, as
    the rows of SkyPilot's Slurm pricing file: `sky launch`, `sky status` and `sky gpus list`
    then show what a job on an owned partition costs instead of $0.00."""
    prices = slurm_pricing.slurm_prices(view, req, settings)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(slurm_pricing.pricing_rows(prices))
    return Response(
        buf.getvalue(),
        media_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="pricing.csv"'},
    )
