"""Catalog reads: GPUs, cloud offers, barebones, regions, utilization profiles, benchmarks."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlmodel import SQLModel

from app.api.deps import CurrentViewDep, EngineDep, ViewDep
from app.catalog import queries as catalog
from app.costing.defaults import PRICE_FRESH_DAYS
from app.models.benchmark import BenchmarkPublic, BenchmarkResultPublic, BenchmarksPublic
from app.models.catalog_misc import (
    BarebonePublic,
    BarebonesPublic,
    UtilizationProfilePublic,
    UtilizationProfilesPublic,
)
from app.models.common import PROBLEM_RESPONSES, Responses
from app.models.gpu import GpuPublic, GpusPublic
from app.models.inputs import MemoryPresetId, Precision
from app.models.offer import CloudOffer, CloudOfferPublic, CloudOffersPublic, PricingModel, Provider
from app.models.ownership import (
    EmbodiedFactorsPublic,
    FxRatesPublic,
    MemoryPresetsPublic,
    ScalingPresetsPublic,
)
from app.models.refresh import CatalogStatus
from app.models.region import RegionKind, RegionPublic, RegionsPublic
from app.steps.memory import memory_need
from app.store.refresh import catalog_status
from app.usecases import references

router = APIRouter(prefix="/v1", tags=["catalog"], responses={422: PROBLEM_RESPONSES[422]})


def link_to(operation_id: str, param: str, description: str) -> Responses:
    """A 200 response declaring an OpenAPI link from a listing's first item to its detail."""
    return {
        200: {
            "links": {
                operation_id.split("-", 1)[1]: {
                    "operationId": operation_id,
                    "parameters": {param: "$response.body#/data/0/id"},
                    "description": description,
                }
            }
        }
    }


Limit = Annotated[int, Query(ge=1, le=500, description="Page size.")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="Rows to skip.")]
MemoryPresetQuery = Annotated[
    MemoryPresetId | None,
    Query(description="Only GPUs with the memory this workload needs (seed 001's presets)."),
]
PrecisionQuery = Annotated[
    Precision | None, Query(description="Precision of `memory_preset`; default fp32.")
]


def fields_of(row: SQLModel) -> dict[str, Any]:
    """A table row's column values (table models hold enum columns as plain strings, so
    ``model_dump`` would warn)."""
    return {name: getattr(row, name) for name in type(row).model_fields}


def offer_public(row: CloudOffer) -> CloudOfferPublic:
    price = float(row.price_usd_per_hour)
    return CloudOfferPublic.model_validate(
        {
            **fields_of(row),
            "price_usd_per_hour": price,
            "monthly_fee_usd": float(row.monthly_fee_usd),
            "price_usd_per_gpu_hour": round(price / row.gpu_count, 6),
        }
    )


@router.get(
    "/gpus",
    response_model=GpusPublic,
    summary="List GPUs",
    responses=link_to("catalog-get_gpu", "gpu_id", "Fetch a listed GPU by its id."),
)
async def list_gpus(
    view: ViewDep,
    q: Annotated[
        str | None, Query(max_length=100, description="Name, alias or id to match.")
    ] = None,
    memory_preset: MemoryPresetQuery = None,
    precision: PrecisionQuery = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> GpusPublic:
    """GPUs in the catalog with specs (memory GB, bandwidth GB/s, FP32 TFLOPS, TDP W), launch
    and used prices, each with source and as-of date. `q` matches ids, names and aliases;
    `memory_preset` keeps the GPUs with the memory that workload needs (seed 001)."""
    need = memory_need(memory_preset, precision).value
    rows, count = catalog.list_gpus(
        view, q, limit, offset, min_memory_gb=need.required_gb if need else None
    )
    return GpusPublic(data=[GpuPublic.model_validate(fields_of(r)) for r in rows], count=count)


@router.get(
    "/gpus/{gpu_id}",
    response_model=GpuPublic,
    summary="Get a GPU by id or name",
    responses={404: PROBLEM_RESPONSES[404]},
)
async def get_gpu(gpu_id: str, view: ViewDep) -> GpuPublic:
    """One GPU. The path takes an id (`rtx-3090`) or a name as typed (`3090`, `RTX3090`,
    `V100 16GB`); an ambiguous name is a 422 and an unknown one a 404, both with candidates."""
    return GpuPublic.model_validate(fields_of(view.resolve_gpu(gpu_id)))


@router.get(
    "/cloud-offers",
    response_model=CloudOffersPublic,
    summary="List cloud offers",
    responses={
        404: PROBLEM_RESPONSES[404],
        **link_to("catalog-get_cloud_offer", "offer_id", "Fetch a listed offer by id."),
    },
)
async def list_cloud_offers(
    view: ViewDep,
    provider: Provider | None = None,
    gpu: Annotated[str | None, Query(max_length=100, description="GPU id or name.")] = None,
    pricing_model: PricingModel | None = None,
    region: Annotated[str | None, Query(max_length=100, description="Provider region.")] = None,
    max_price_usd_per_hour: Annotated[float | None, Query(ge=0, le=10_000)] = None,
    memory_preset: MemoryPresetQuery = None,
    precision: PrecisionQuery = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> CloudOffersPublic:
    """Priced ways to rent GPUs, cheapest first: USD per instance-hour, monthly fees, billing
    increments, region, source and as-of date. `memory_preset` keeps offers whose GPU has
    the memory that workload needs (seed 001)."""
    need = memory_need(memory_preset, precision).value
    rows, count = catalog.list_offers(
        view,
        min_memory_gb=need.required_gb if need else None,
        provider=provider.value if provider else None,
        gpu=gpu,
        pricing_model=pricing_model.value if pricing_model else None,
        region=region,
        max_price_usd_per_hour=max_price_usd_per_hour,
        limit=limit,
        offset=offset,
    )
    return CloudOffersPublic(data=[offer_public(r) for r in rows], count=count)


@router.get(
    "/cloud-offers/{offer_id}",
    response_model=CloudOfferPublic,
    summary="Get a cloud offer",
    responses={404: PROBLEM_RESPONSES[404]},
)
async def get_cloud_offer(offer_id: str, view: ViewDep) -> CloudOfferPublic:
    """One cloud offer by id."""
    return offer_public(view.offer(offer_id))


@router.get("/barebones", response_model=BarebonesPublic, summary="List desktop barebones")
async def list_barebones(view: ViewDep) -> BarebonesPublic:
    """Desktop machines without GPUs: price (USD), GPU slots, base power (W), PSU efficiency."""
    rows = catalog.list_barebones(view)
    return BarebonesPublic(
        data=[
            BarebonePublic.model_validate({**fields_of(r), "price_usd": float(r.price_usd)})
            for r in rows
        ],
        count=len(rows),
    )


@router.get(
    "/regions",
    response_model=RegionsPublic,
    summary="List regions",
    responses=link_to("catalog-get_region", "region_id", "Fetch a listed region by id."),
)
async def list_regions(
    view: ViewDep,
    kind: RegionKind | None = None,
    limit: Limit = 500,
    offset: Offset = 0,
) -> RegionsPublic:
    """Countries, US states and cloud regions with grid carbon intensity (gCO2e/kWh), retail
    electricity price (USD/kWh) where sourced, and PUE for cloud regions."""
    rows = catalog.list_regions(view, kind.value if kind else None)
    page = rows[offset : offset + limit]
    return RegionsPublic(
        data=[RegionPublic.model_validate(fields_of(r)) for r in page], count=len(rows)
    )


@router.get(
    "/regions/{region_id}",
    response_model=RegionPublic,
    summary="Get a region",
    responses={404: PROBLEM_RESPONSES[404]},
)
async def get_region(region_id: str, view: ViewDep) -> RegionPublic:
    """One region by id (`de`, `us-ca`, `aws:us-east-1`, `world`)."""
    return RegionPublic.model_validate(fields_of(view.region(region_id)))


@router.get(
    "/utilization-profiles",
    response_model=UtilizationProfilesPublic,
    summary="List utilization profiles",
)
async def list_utilization_profiles(view: CurrentViewDep) -> UtilizationProfilesPublic:
    """Typical utilizations (fraction of time busy) from seed 001, plus always-on."""
    rows = sorted(view.profiles.values(), key=lambda p: p.id)
    return UtilizationProfilesPublic(
        data=[UtilizationProfilePublic.model_validate(r) for r in rows], count=len(rows)
    )


@router.get("/memory-presets", response_model=MemoryPresetsPublic, summary="List memory presets")
async def list_memory_presets() -> MemoryPresetsPublic:
    """Seed 001's GPU memory needs per kind of work, at 32-bit and 16-bit (seed 002)."""
    return references.memory_presets()


@router.get(
    "/scaling-models", response_model=ScalingPresetsPublic, summary="List multi-GPU scaling models"
)
async def list_scaling_models() -> ScalingPresetsPublic:
    """Amdahl's-law presets anchored on the seeds' multi-GPU speed-ups, with predictions."""
    return references.scaling_models()


@router.get("/fx-rates", response_model=FxRatesPublic, summary="List exchange rates")
async def list_fx_rates(view: CurrentViewDep) -> FxRatesPublic:
    """Dated exchange rates (USD per unit) the service converts money and electricity with."""
    return references.fx_rates(view)


@router.get(
    "/embodied-carbon", response_model=EmbodiedFactorsPublic, summary="List embodied carbon"
)
async def list_embodied_carbon(view: CurrentViewDep) -> EmbodiedFactorsPublic:
    """Manufacturing emissions per GPU and per desktop, with one-sigma ranges and sources."""
    return references.embodied_carbon(view)


@router.get("/benchmarks", response_model=BenchmarksPublic, summary="List benchmarks")
async def list_benchmarks(view: CurrentViewDep) -> BenchmarksPublic:
    """Measured workloads with seconds per GPU, max batch size and out-of-memory marks."""
    results = view.results_of()
    data = [
        BenchmarkPublic.model_validate(
            {
                **fields_of(b),
                "results": [
                    BenchmarkResultPublic.model_validate(r)
                    for r in results
                    if r.benchmark_id == b.id
                ],
            }
        )
        for b in sorted(view.benchmarks.values(), key=lambda b: b.id)
    ]
    return BenchmarksPublic(data=data, count=len(data))


@router.get("/catalog/status", response_model=CatalogStatus, summary="How current the prices are")
def get_catalog_status(engine: EngineDep) -> CatalogStatus:
    """Per provider: how many offers the catalog holds, the newest and oldest current price's
    as-of date and the newest one's age (days), and the last `gpucost catalog refresh` (when,
    `refreshed` / `unchanged` / `refused` / `failed`, why, and when it last passed the
    integrity gate). `stale_after_days` is the staleness policy's limit: defaults avoid older
    prices and answers resting on one state its date (`docs/prices-and-refresh.md`)."""
    today = dt.datetime.now(dt.UTC).date()
    return catalog_status(engine, PRICE_FRESH_DAYS, today)
