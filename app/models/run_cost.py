"""``POST /v1/run-cost``: the workload, the options, and the per-option result."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)

from app.models.answers import (
    Assumption,
    CurrencyRate,
    MemoryCheck,
    PricesUsed,
    SourceRef,
)
from app.models.common import OMITTED, amount_field
from app.models.inputs import (
    ELECTRICITY,
    NO_CONTROL,
    STRICT,
    CommonInputs,
    DesktopSpec,
    LaunchOverheadMin,
    StrictBody,
    exactly_one,
    name_field,
    not_both,
)
from app.models.llm import LlmWorkload


class Workload(StrictBody):
    """What is run: a catalog benchmark, a runtime measured on a GPU, or a language-model job
    (`llm`: its runtime and fit on each option estimated as `POST /v1/llm/estimate` does)."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra=exactly_one("benchmark", "runtime_s", "llm")
    )

    benchmark: str = name_field(
        "Benchmark id (`GET /v1/benchmarks`).",
        max_length=64,
    )
    runtime_s: float = Field(
        default=OMITTED, gt=0.001, le=1e9, description="Runtime of one run, s."
    )
    gpu: str | None = name_field(
        "GPU `runtime_s` was measured on.",
        max_length=100,
    )
    gpu_count: int = Field(default=1, ge=1, le=64, description="GPUs `runtime_s` used.")
    items: int | None = Field(
        default=None, ge=1, le=10**12, description="Items processed by one run (for cost per item)."
    )
    max_batch_size: int | None = Field(
        default=None, ge=1, le=10**7, description="Largest batch per GPU, when known."
    )

    llm: LlmWorkload = Field(
        default=OMITTED,
        description="A language-model job (model, task, precision, tokens, ...): each option "
        "answers whether it holds the job and how long it takes (`POST /v1/llm/estimate`).",
    )

    @model_validator(mode="after")
    def _one_workload(self) -> Workload:
        if sum(x is not None for x in (self.benchmark, self.runtime_s, self.llm)) != 1:
            raise ValueError("give exactly one of benchmark, runtime_s or llm")
        return self


class RunOption(StrictBody):
    """An option to run on: a catalog offer, a GPU at a price per hour, or a desktop."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                {
                    "oneOf": [
                        {
                            "required": ["offer_id"],
                            "not": {
                                "anyOf": [
                                    {"required": ["price_usd_per_hour"]},
                                    {"required": ["desktop"]},
                                ]
                            },
                        },
                        {
                            "required": ["price_usd_per_hour", "gpu"],
                            "not": {
                                "anyOf": [{"required": ["offer_id"]}, {"required": ["desktop"]}]
                            },
                        },
                        {
                            "required": ["desktop"],
                            "properties": {"desktop": {"required": ["gpu"]}},
                            "not": {
                                "anyOf": [
                                    {"required": ["offer_id"]},
                                    {"required": ["price_usd_per_hour"]},
                                ]
                            },
                        },
                    ]
                }
            ]
        },
    )

    offer_id: str = Field(
        default=OMITTED, min_length=1, pattern=NO_CONTROL, max_length=160, description="Offer id."
    )
    gpu: str = name_field(
        "GPU id or name, with `price_usd_per_hour`.",
        max_length=100,
    )
    gpu_count: int | None = Field(default=None, ge=1, le=64, description="GPUs.")
    price_usd_per_hour: float = amount_field("Price, USD/h.", le=10_000)
    desktop: DesktopSpec = Field(default=OMITTED, description="A desktop instead.")

    @model_validator(mode="after")
    def _one_kind(self) -> RunOption:
        kinds = [
            self.offer_id is not None,
            self.price_usd_per_hour is not None,
            self.desktop is not None,
        ]
        if sum(kinds) != 1:
            raise ValueError("give exactly one of offer_id, gpu + price_usd_per_hour, desktop")
        if self.price_usd_per_hour is not None and self.gpu is None:
            raise ValueError("price_usd_per_hour needs gpu")
        return self


class RunCostRequest(CommonInputs):
    """Cost of one run of a workload on each option."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                not_both("utilization", "utilization_profile"),
                not_both(*ELECTRICITY),
            ],
            "examples": [
                {
                    "workload": {"benchmark": "efficientnet"},
                    "options": [
                        {"offer_id": "paperspace-gradient-a6000-on-demand-2022"},
                        {"desktop": {"gpu": "rtx-3090", "total_price_usd": 2200}},
                    ],
                }
            ],
        },
    )

    workload: Workload
    options: list[RunOption] = Field(min_length=1, max_length=50)
    launch_overhead_min: float = LaunchOverheadMin  # `cost_with_launch_usd` bills it


class RunOptionResult(BaseModel):
    label: str = Field(description="Readable name of the option.")
    kind: str = Field(description="`cloud` or `desktop`.")
    offer_id: str | None = Field(description="Offer id, for catalog offers.")
    gpu_id: str = Field(description="GPU id.")
    gpu_count: int = Field(description="GPUs.")
    fits: bool | None = Field(
        description="False when the benchmark ran out of memory on this GPU; null when unknown."
    )
    runtime_s: float | None = Field(description="Runtime of one run, s.")
    runtime_basis: str | None = Field(
        description="`benchmark` (measured), `published`, `given` or `estimate` (calibrated)."
    )
    billed_s: float | None = Field(description="Billed time, s (cloud).")
    price_usd_per_hour: float | None = Field(
        description="Cloud: instance price; desktop: fully-loaded cost per busy hour, USD/h."
    )
    cost_usd: float | None = Field(description="Cost of one run, USD (desktop: fully loaded).")
    cost_with_launch_usd: float | None = Field(
        default=None,
        description="Cloud: one run billed with its launch overhead (`launch_overhead_min` "
        "before the work; increments and minimum applied to the whole), USD; desktop: "
        "`cost_usd` (a machine already on bills no launch).",
    )
    marginal_cost_usd: float | None = Field(description="Desktop: electricity only, USD.")
    energy_kwh: float | None = Field(description="Energy of one run (cloud incl. PUE), kWh.")
    co2e_kg: float | None = Field(description="Operational emissions of one run, kg CO2e.")
    embodied_co2e_kg: float | None = Field(
        description="Manufacturing emissions one run carries, kg CO2e: desktop, its share of "
        "the machine's busy hours over its life; cloud, runtime / (GPU life x 8,760 h)."
    )
    cost_in_currency: float | None = Field(description="`cost_usd` in the request's currency.")
    cost_per_item_in_currency: float | None = Field(
        description="`cost_per_item_usd` in the request's currency."
    )
    max_batch_size: int | None = Field(description="Largest batch before OOM, when known.")
    cost_per_batch_item_usd: float | None = Field(
        description="Seed 004's metric: `price_usd_per_hour / max_batch_size`."
    )
    cost_per_item_usd: float | None = Field(description="`cost_usd / items`, when items given.")
    note: str | None = Field(description="Why a figure is missing, or how it was estimated.")
    oldest_price: str | None = Field(
        description="The oldest dated catalog price this option rests on, e.g. `offer "
        "runpod-...` or `gpu rtx-3090: used price`; null when it rests on none (a price "
        "given in the request)."
    )
    oldest_price_date: dt.date | None = Field(
        description="The date of `oldest_price` (ISO 8601): an option priced long ago says "
        "so, whatever the other options' dates."
    )


class RunCostResult(BaseModel):
    """Per-option run costs."""

    workload: dict[str, Any] = Field(description="The workload as resolved.")
    options: list[RunOptionResult]
    currency_rate: CurrencyRate = Field(description="Rate behind the `*_in_currency` figures.")
    memory: MemoryCheck | None = Field(description="The `memory_preset` check, when one is named.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
    warnings: list[str] = Field(
        description="Prices older than `prices.max_age_days`, and GPUs below `memory_preset`."
    )
