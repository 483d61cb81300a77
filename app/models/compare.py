"""Request and result schemas of ``POST /v1/compare`` (rank every option for a workload) and
``POST /v1/break-even/sweep`` (break-even over utilization and electricity price).

Same conventions as :mod:`app.models.inputs`: unknown fields and non-finite numbers are refused,
every number is bounded, money is USD, energy kWh, emissions kg CO2e, time in the unit its
name says.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator

from app.costing import defaults, floors
from app.models.answers import Assumption, PricesUsed, SourceRef
from app.models.catalog_kinds import PricingModel, Provider
from app.models.common import OMITTED, amount_field, defaulted, described
from app.models.compare_result import CompareOption, CompareResult, CompareSummary
from app.models.inputs import (
    ELECTRICITY,
    NO_CONTROL,
    STRICT,
    CloudSpec,
    CommonInputs,
    DesktopSpec,
    LaunchOverheadMin,
    StrictBody,
    Tariff,
    name_field,
    not_both,
    tariff_field,
)
from app.models.llm import LlmWorkload

# Seed 001 (Tim Dettmers, 2020-09-07): "if you do deep learning for more than a year, buy a
# desktop": a year is the seed's own decision horizon.
DEFAULT_HORIZON_MONTHS = defaults.COMPARE_HORIZON.number
Name = Annotated[str, Field(min_length=1, max_length=100, pattern=NO_CONTROL)]
UtilizationValue = Annotated[float, Field(ge=floors.SHARE.value, le=1)]
PriceValue = Annotated[float, Field(ge=0, le=5)]
USAGE_FIELDS = ("utilization", "utilization_profile", "runs_per_month", "gpu_hours_per_month")
# Request fields a language-model workload leaves out: it is counted in jobs, sized by its model
# and timed on N GPUs at its MFU (no Amdahl scaling).
LLM_GENERIC = (
    "utilization",
    "utilization_profile",
    "gpu_hours_per_month",
    "memory_preset",
    "precision",
    "scaling",
    "parallel_fraction",
)


def _at_most_one(*fields: str) -> dict[str, Any]:
    pairs = [[a, b] for i, a in enumerate(fields) for b in fields[i + 1 :]]
    return {"not": {"anyOf": [{"required": p} for p in pairs]}}


# Fields that describe a generic run; a language-model job (`llm`) sizes and times itself.
LLM_EXCLUDES = ("benchmark", "runtime_s", "gpu", "gpu_count", "memory_gb", "max_batch_size")


class CompareWorkload(StrictBody):
    """What one run is: a catalog benchmark, a runtime measured on a GPU, a language-model job
    (`llm`), or (none) an hour of work on the reference GPU."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                not_both("benchmark", "runtime_s"),
                {
                    "anyOf": [
                        {"not": {"required": ["llm"]}},
                        {"not": {"anyOf": [{"required": [f]} for f in LLM_EXCLUDES]}},
                    ]
                },
            ]
        },
    )

    benchmark: str = name_field("Benchmark id (`GET /v1/benchmarks`).", max_length=64)
    runtime_s: float = Field(
        default=OMITTED, gt=0.001, le=1e8, description="Runtime of one run on `gpu`, s."
    )
    gpu: str | None = name_field(
        "Reference GPU: the one `runtime_s` or `gpu_hours_per_month` is measured on. Default: "
        "for a benchmark, its measured GPU with the most memory bandwidth; otherwise none "
        "(every option takes the same hours).",
        max_length=100,
    )
    gpu_count: int = Field(default=1, ge=1, le=64, description="GPUs of the reference.")
    memory_gb: float | None = described(
        "GPU memory one GPU needs for the run, GB; options with less do not fit. ",
        floors.MEMORY_GB,
        default=None,
        ge=floors.MEMORY_GB.value,
        le=2048,
    )
    max_batch_size: int | None = Field(
        default=None,
        ge=1,
        le=10**7,
        description="Largest batch per GPU, items (for cost per batch item); default: the "
        "benchmark's measured value.",
    )
    llm: LlmWorkload = Field(
        default=OMITTED,
        description="A language-model job (the fields of `POST /v1/llm/estimate`): one run is "
        "one job; each option is ranked only if its GPUs hold the job (`gpus_needed`), timed "
        "by the LLM model (FLOPs at MFU, decode at MBU), not by the generic speed model. "
        "Excludes " + ", ".join(LLM_EXCLUDES) + "; counted with `runs_per_month` (default 1).",
    )

    @model_validator(mode="after")
    def _one_run(self) -> CompareWorkload:
        if self.benchmark is not None and self.runtime_s is not None:
            raise ValueError("give benchmark or runtime_s, not both")
        if self.llm is not None:
            extra = [f for f in LLM_EXCLUDES if f in self.model_fields_set]
            if extra:
                raise ValueError(
                    f"workload.llm sizes and times the job itself: leave out {', '.join(extra)}"
                )
        return self


class SpotModel(StrictBody):
    """Expected cost of spot and interruptible capacity: lost work is re-done.

    The expected billed hours per useful hour follow Daly (2006), 'A higher order estimate of
    the optimum checkpoint interval for restart dumps', FGCS 22(3):303-312:
    ``M e^(R/M) (e^((tau+delta)/M) - 1) / tau`` with ``M = 1 / interruptions_per_hour``."""

    interruptions_per_hour: float = Field(
        ge=1e-6,
        le=10,
        description="Expected interruptions per hour of running, 1/h (no default: providers "
        "publish it per instance type and region, e.g. the AWS Spot Instance Advisor's "
        "'frequency of interruption').",
    )
    checkpoint_interval_min: float = Field(
        ge=0.01, le=10_000, description="Useful work between checkpoints, minutes."
    )
    restart_overhead_min: float = amount_field(
        "Time to restart and reload, minutes.", le=10_000, default=0
    )
    checkpoint_write_min: float = amount_field(
        "Time to write one checkpoint, minutes.", le=10_000, default=0
    )


class CompareFilters(StrictBody):
    """Which options to rank. Provider, pricing, region and price filters apply to cloud
    offers; memory to both."""

    providers: list[Annotated[Provider, Strict(False)]] | None = Field(
        default=None,
        max_length=10,
        description="Only these cloud providers.",
    )
    pricing_models: list[Annotated[PricingModel, Strict(False)]] | None = Field(
        default=None, max_length=10, description="Only these pricing models."
    )
    regions: list[Name] | None = Field(
        default=None,
        max_length=100,
        description="Only offers in these provider regions (`us-east-1`, `europe-west4`).",
    )
    gpus: list[Name] | None = Field(
        default=None, max_length=100, description="Only these GPUs (ids or names)."
    )
    min_gpu_memory_gb: float | None = amount_field(
        "Only GPUs with at least this memory, GB.", le=2048, default=None
    )

    max_price_usd_per_hour: float | None = amount_field(
        "Only offers at most this price, USD/h.", le=10_000, default=None
    )
    include_desktop: bool = Field(default=True, description="Rank desktop builds.")
    include_cloud: bool = Field(default=True, description="Rank cloud offers.")
    include_free_tiers: bool = Field(
        default=False,
        description="Rank free plans (Colab Free). Off by default: the catalog notes that "
        "their GPU type, hours and session length are not guaranteed.",
    )
    cheapest_region_only: bool = Field(
        default=True,
        description="List each provider instance type and pricing model once, in its "
        "cheapest region (`other_regions` counts the rest); false lists every region.",
    )
    include_unfit: bool = Field(
        default=False,
        description="Also list options the workload does not fit (unranked, no cost).",
    )


class CompareRequest(CommonInputs):
    """Rank every option in the catalog (cloud offers of every provider, region and pricing
    model, Colab plans, desktop builds from catalog barebones and GPUs) for one workload.
    Utilization, electricity price and region are those of ``/v1/break-even``; the region's
    carbon intensity also applies to cloud offers without a catalog region."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                _at_most_one(*USAGE_FIELDS),
                not_both(*ELECTRICITY),
                {
                    "anyOf": [
                        {
                            "not": {
                                "required": ["workload"],
                                "properties": {"workload": {"required": ["llm"]}},
                            }
                        },
                        {"not": {"anyOf": [{"required": [f]} for f in LLM_GENERIC]}},
                    ]
                },
                {
                    "anyOf": [
                        {"not": {"required": ["runs_per_month"]}},
                        {
                            "required": ["workload"],
                            "properties": {
                                "workload": {
                                    "anyOf": [
                                        {"required": ["benchmark"]},
                                        {"required": ["runtime_s"]},
                                        {"required": ["llm"]},
                                    ]
                                }
                            },
                        },
                    ]
                },
            ],
            "examples": [
                {
                    "workload": {"benchmark": "stylegan_xl"},
                    "runs_per_month": 200,
                    "horizon_months": 12,
                    "limit": 5,
                }
            ],
        },
    )

    workload: CompareWorkload = Field(
        default_factory=CompareWorkload, description="What one run is."
    )
    runs_per_month: float = Field(
        default=OMITTED,
        ge=0.001,
        le=10**7,
        description="Runs per month (needs a benchmark, runtime or `llm`; with `llm`, jobs per "
        "month, default 1).",
    )
    gpu_hours_per_month: float = Field(
        default=OMITTED,
        ge=0.001,
        le=100_000,
        description="Hours of work per month on the reference GPU(s), h.",
    )
    horizon_months: float = described(
        "Months over which total cost is taken. ",
        defaults.COMPARE_HORIZON,
        default=DEFAULT_HORIZON_MONTHS,
        ge=0.01,
        le=120,
    )
    launch_overhead_min: float = LaunchOverheadMin  # with runs (runs_per_month, a benchmark)
    spot: SpotModel | None = Field(
        default=None,
        description="Interruption model for spot and interruptible offers; without it each "
        "is priced with its default (AWS Spot Instance Advisor's band for its instance type "
        "and region, else Google's published preemption rate), stated in the answer.",
    )
    filters: CompareFilters = Field(default_factory=CompareFilters, description="What to rank.")
    limit: int = Field(default=20, ge=1, le=500, description="Options returned, best first.")

    @model_validator(mode="after")
    def _usage(self) -> CompareRequest:
        given = [f for f in USAGE_FIELDS if getattr(self, f) is not None]
        if len(given) > 1:
            raise ValueError(f"give at most one of {', '.join(USAGE_FIELDS)}")
        w = self.workload
        runs_ok = w.benchmark is not None or w.runtime_s is not None or w.llm is not None
        if self.runs_per_month is not None and not runs_ok:
            raise ValueError(
                "runs_per_month needs workload.benchmark, workload.runtime_s or workload.llm"
            )
        if w.llm is not None:
            generic = [f for f in LLM_GENERIC if f in self.model_fields_set]
            if generic:
                raise ValueError(
                    "workload.llm is counted in jobs (`runs_per_month`), sized by its model and "
                    "timed at its MFU on any number of GPUs: "
                    f"leave out {', '.join(generic)}"
                )
        return self


class SweepRequest(StrictBody):
    """Break-even days over a grid of utilization (and optionally electricity price)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "examples": [
                {
                    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
                    "cloud": {"price_usd_per_hour": 2.14},
                    "electricity_prices_usd_per_kwh": [0.12],
                }
            ]
        },
    )

    desktop: DesktopSpec
    cloud: CloudSpec
    utilizations: list[UtilizationValue] | None = described(
        "Utilizations to evaluate, each 0 < u <= 1. ",
        defaults.SWEEP_UTILIZATIONS,
        default=None,
        min_length=1,
        max_length=1000,
    )
    electricity_prices_usd_per_kwh: list[PriceValue] | None = described(
        "Electricity prices, USD/kWh (0-5). The region's when it has one; else the "
        "deployment's setting, as shipped: ",
        defaults.ELECTRICITY_PRICE,
        default=None,
        min_length=1,
        max_length=100,
    )
    region: str | None = name_field(
        "Region id for the electricity price (`de`, `us-ca`).", max_length=64
    )
    tariff: Annotated[Tariff, Strict(False)] = tariff_field()
    horizon_days: float = defaulted(
        "Days after which total costs are reported. ",
        defaults.SWEEP_DAYS,
        ge=0,
        le=36500,
    )
    normalize_performance: bool | None = Field(
        default=None,
        description="Scale cloud hours by the GPUs' relative speed, as in `/v1/break-even` "
        "(default: on when both GPUs are known).",
    )


class SweepResult(BaseModel):
    """A grid a client can plot: rows are electricity prices, columns utilizations."""

    utilizations: list[float] = Field(description="Columns: utilization (0-1).")
    electricity_prices_usd_per_kwh: list[float] = Field(description="Rows: USD/kWh.")
    break_even_days: list[list[float | None]] = Field(
        description="[price][utilization] days; null where the desktop never pays back."
    )
    desktop_total_usd: list[list[float]] = Field(
        description="[price][utilization] desktop cost after `horizon_days`, USD."
    )
    cloud_total_usd: list[float] = Field(
        description="[utilization] cloud cost after `horizon_days`, USD."
    )
    horizon_days: float = Field(description="Days the totals are taken over.")
    upfront_usd: float = Field(description="Desktop purchase price, USD.")
    cloud_price_usd_per_hour: float = Field(description="Cloud price, USD/h.")
    cloud_time_factor: float = Field(description="Cloud hours per desktop hour of work.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    warnings: list[str] = Field(description="Prices older than `prices.max_age_days`.")
    prices: PricesUsed


__all__ = ["CompareOption", "CompareResult", "CompareSummary"]  # re-exported
