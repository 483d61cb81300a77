"""Request and result schemas of the calculations: break-even, run cost, carbon.

Request bodies forbid unknown fields and non-finite numbers, and bound every number to a
realistic range. Results echo the resolved inputs, the assumptions made and the sources (with
as-of dates) of every catalog figure used. Money is USD, energy kWh, emissions kg CO2e.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from app.costing import ownership as own
from app.models.common import IsoDate
from app.models.offer import PricingModel

STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)
# Names and ids: printable text only (no NUL, newlines or other control characters).
NO_CONTROL = r"^[^\u0000-\u001f\u007f]*$"


def exactly_one(*fields: str) -> dict[str, Any]:
    """JSON Schema for 'exactly one of these fields', matching a model validator. (Wrapped in
    allOf: generated clients then keep one named model instead of a union of anonymous ones.)"""
    return {"allOf": [{"oneOf": [{"required": [f]} for f in fields]}]}


def not_both(a: str, b: str) -> dict[str, Any]:
    """JSON Schema for 'not both of these fields', matching :func:`refuse_both`."""
    return {"not": {"required": [a, b]}}


def refuse_both(model: BaseModel, *pairs: tuple[str, str]) -> None:
    """The validator side of :func:`not_both`: ValueError when both fields of a pair are set."""
    for a, b in pairs:
        if getattr(model, a) is not None and getattr(model, b) is not None:
            raise ValueError(f"give {a} or {b}, not both")


# A money field in USD and its twin in the request's `currency`: at most one of each pair.
DESKTOP_MONEY = (("total_price_usd", "total_price"), ("resale_value_usd", "resale_value"))
ELECTRICITY = ("electricity_price_usd_per_kwh", "electricity_price_per_kwh")


class _Body(BaseModel):
    model_config = STRICT

    @field_validator("*", mode="before")
    @classmethod
    def _integral_floats(cls, value: Any, info: ValidationInfo) -> Any:
        """JSON Schema counts 14.0 as an integer: accept it as 14 for integer fields (strict
        mode would refuse it). Booleans and strings stay refused."""
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            annotation = cls.model_fields[info.field_name].annotation
            if annotation is int or (
                get_origin(annotation) in (Union, UnionType) and int in get_args(annotation)
            ):
                return int(value)
        return value


def name_field(description: str, max_length: int = 100) -> Any:
    """An optional id or name: 1..max_length printable characters, never null."""
    return Field(
        default=None,
        min_length=1,
        max_length=max_length,
        pattern=NO_CONTROL,
        description=description,
    )


# ISO 4217 code; which ones have a dated rate is catalog data (`GET /v1/fx-rates`), checked
# when the request is resolved (422 for a currency without a rate).
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]

ScalingModel = StrEnum("ScalingModel", {p: p for p in own.SCALING_PRESETS})  # type: ignore[misc]
ScalingModel.__doc__ = "Multi-GPU scaling presets (Amdahl's law): " + "; ".join(
    f"`{p.id}` {p.anchor_speedup:g}x on {p.anchor_gpu_count} GPUs ({p.source})"
    for p in own.SCALING_PRESETS.values()
)

MemoryPresetId = StrEnum("MemoryPresetId", {p: p for p in own.MEMORY_PRESETS})  # type: ignore[misc]
MemoryPresetId.__doc__ = (
    "Memory needs at 32-bit (seed 001, Tim Dettmers, 2020-09-07): "
    + ", ".join(f"`{p.id}` {p.min_memory_gb:g} GB" for p in own.MEMORY_PRESETS.values())
)


class Precision(StrEnum):
    """Training precision: `fp16` needs 8/12 of the 32-bit memory (seed 002, 2019)."""

    fp32 = "fp32"
    fp16 = "fp16"


# Fields whose presence selects a mode ("exactly one of", "not both") are typed without
# `| None`: they may be omitted but not sent as null, so the schema's `required` rules mean
# what the validators enforce.
Utilization = Field(
    default=None,
    gt=0.0,
    le=1.0,
    description="Fraction of wall-clock time the GPUs are busy, 0 < u <= 1 (0.15 = 15 %).",
)


class DesktopSpec(_Body):
    """A desktop to buy. Give ``total_price_usd``, or let it be assembled from GPU and
    barebone prices (catalog or given)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                {"anyOf": [{"required": ["gpu"]}, {"required": ["gpu_power_w"]}]},
                {
                    "anyOf": [
                        {"required": ["total_price_usd"]},
                        {"required": ["total_price"]},
                        {"required": ["gpu"]},
                        {"required": ["gpu_price_usd"]},
                    ]
                },
                *(not_both(*pair) for pair in DESKTOP_MONEY),
                {
                    "anyOf": [
                        {"not": {"required": ["resell_after_years"]}},
                        {"required": ["resale_value_usd"]},
                        {"required": ["resale_value"]},
                        {"required": ["gpu"]},
                        {"required": ["gpu_price_usd"]},
                    ]
                },
            ]
        },
    )

    gpu: str = name_field(
        "GPU id or name (`rtx-3090`, `3090`, `RTX 3090`).",
        max_length=100,
    )
    gpu_count: int = Field(default=1, ge=1, le=16, description="GPUs in the desktop.")
    total_price_usd: float = Field(
        default=None, ge=0, le=10_000_000, description="Price of the whole machine, USD."
    )
    gpu_price_usd: float = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="Price of one GPU, USD; default: the GPU's launch MSRP in the catalog.",
    )
    barebone: str | None = name_field(
        "Barebone id (`GET /v1/barebones`).",
        max_length=100,
    )
    barebone_price_usd: float | None = Field(
        default=None, ge=0, le=1_000_000, description="Price of the machine without GPUs, USD."
    )
    gpu_power_w: float = Field(
        default=None, ge=0, le=2000, description="Power of one GPU while busy, W; default TDP."
    )
    base_power_w: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="CPU, board and drives while busy, W; default: the barebone's, else 100 W "
        "(seed 001, Tim Dettmers 2020-09-07).",
    )
    idle_power_w: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Wall power while on but idle, W; default 0 (off when idle, as seed 001).",
    )
    idle_on_fraction: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Fraction of the not-busy time the machine stays on, drawing "
        "`idle_power_w` (0 = off when idle, the default as in seed 001; 1 = always on).",
    )
    psu_efficiency: float | None = Field(
        default=None,
        ge=0.5,
        le=1.0,
        description="PSU efficiency; default: the barebone's if known, else 1.0 (seed 001 "
        "counts component power as wall power).",
    )
    lifetime_years: float | None = Field(
        default=None,
        ge=0.25,
        le=20,
        description="Amortization period for fully-loaded run cost and embodied carbon, and "
        "the TCO horizon when the machine is not resold, years; default 5 (IRS Publication "
        "946, 2024, asset class 00.12).",
    )
    total_price: float = Field(
        default=None,
        ge=0,
        le=10_000_000,
        description="Price of the whole machine in the request's `currency` (instead of "
        "`total_price_usd`).",
    )
    purchase_date: IsoDate = Field(
        default=None,
        description="Day the machine is bought; default: the day whose prices are read "
        "(`as_of`, else today). The resale day is `purchase_date + resell_after_years`.",
    )
    resell_after_years: float | None = Field(
        default=None,
        gt=0,
        le=20,
        description="Years after purchase the machine is sold; sets the TCO horizon. Without "
        "`resale_value_usd` the GPUs' value comes from the catalog's depreciation curve for "
        "their class (fitted to seed 001's used prices); the barebone is counted at 0.",
    )
    resale_value_usd: float = Field(
        default=None,
        ge=0,
        le=10_000_000,
        description="What the whole machine sells for at the end, USD; default 0 without "
        "`resell_after_years` (seed 001 counts no resale).",
    )
    resale_value: float = Field(
        default=None,
        ge=0,
        le=10_000_000,
        description="`resale_value_usd` in the request's `currency`.",
    )

    @model_validator(mode="after")
    def _money_once(self) -> DesktopSpec:
        refuse_both(self, *DESKTOP_MONEY)
        return self


class CloudSpec(_Body):
    """The cloud side: a catalog offer, or a price per hour."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra=exactly_one("offer_id", "price_usd_per_hour", "price_per_hour")
    )

    offer_id: str = name_field(
        "Offer id from `GET /v1/cloud-offers`.",
        max_length=160,
    )
    price_usd_per_hour: float = Field(
        default=None, ge=0, le=10_000, description="Price of the instance, USD/h."
    )
    price_per_hour: float = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Price of the instance per hour in the request's `currency`.",
    )
    gpu: str | None = name_field(
        "GPU of the instance (for performance normalization and carbon).",
        max_length=100,
    )
    gpu_count: int | None = Field(default=None, ge=1, le=64, description="GPUs in the instance.")
    monthly_fee_usd: float | None = Field(
        default=None, ge=0, le=1_000_000, description="Fixed monthly plan fee, USD."
    )

    @model_validator(mode="after")
    def _one_source(self) -> CloudSpec:
        given = [self.offer_id, self.price_usd_per_hour, self.price_per_hour]
        if sum(v is not None for v in given) != 1:
            raise ValueError("give exactly one of offer_id, price_usd_per_hour, price_per_hour")
        return self


class _Where(_Body):
    utilization: float = Utilization
    utilization_profile: str = name_field(
        "Profile id (`GET /v1/utilization-profiles`), instead of `utilization`.",
        max_length=64,
    )
    electricity_price_usd_per_kwh: float | None = Field(
        default=None,
        ge=0,
        le=5,
        description="Electricity price, USD/kWh; default: the region's, else 0.12 (seed 001).",
    )
    electricity_price_per_kwh: float = Field(
        default=None,
        ge=0,
        le=5,
        description="Electricity price per kWh in the request's `currency` (instead of "
        "`electricity_price_usd_per_kwh`).",
    )
    region: str | None = name_field(
        "Region id (`de`, `us-ca`, ...) for electricity price and carbon intensity.",
        max_length=64,
    )
    currency: Currency = Field(
        default="USD",
        description="Currency of the `*_in_currency` results and of the currency-neutral "
        "inputs (`total_price`, `resale_value`, `price_per_hour`, "
        "`electricity_price_per_kwh`). Converted at the catalog's rate in force on the "
        "prices' day, named in `currency_rate`. Default USD.",
    )
    scaling: Annotated[ScalingModel, Strict(False)] = Field(
        default=None,
        description="Multi-GPU scaling preset; default `tuned` (see `ScalingModel`).",
    )
    parallel_fraction: float = Field(
        default=None,
        gt=0,
        le=1,
        description="Override: Amdahl parallel fraction p, speed-up on n GPUs = 1 / ((1 - p) "
        "+ p / n). Wins over `scaling`.",
    )
    memory_preset: Annotated[MemoryPresetId, Strict(False)] = Field(
        default=None,
        description="Workload memory need (seed 001); a GPU below it is named in `warnings`.",
    )
    precision: Annotated[Precision, Strict(False)] = Field(
        default=None,
        description="Precision of `memory_preset`; default fp32 (`fp16` needs 8/12 of it).",
    )

    @model_validator(mode="after")
    def _one_utilization(self):
        refuse_both(self, ("utilization", "utilization_profile"), ELECTRICITY)
        return self


class BreakEvenRequest(_Where):
    """Desktop vs cloud: after how many days does buying pay off?"""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                not_both("utilization", "utilization_profile"),
                not_both(*ELECTRICITY),
            ],
            "examples": [
                {
                    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
                    "cloud": {"price_usd_per_hour": 2.14, "gpu": "v100-16gb"},
                    "utilization": 0.15,
                    "electricity_price_usd_per_kwh": 0.12,
                }
            ],
        },
    )

    desktop: DesktopSpec
    cloud: CloudSpec
    normalize_performance: bool = Field(
        default=False,
        description="Scale cloud hours by the GPUs' relative speed (measured benchmark where "
        "one exists, else a memory-bandwidth estimate).",
    )


class Assumption(BaseModel):
    """An input the service chose or derived, with where it came from."""

    name: str = Field(description="Input name.")
    value: Any = Field(description="Value used.")
    source: str = Field(description="Where the value comes from.")


class SourceRef(BaseModel):
    """A catalog figure used in a result, with its source and date."""

    what: str = Field(description="What the figure is, e.g. `offer aws-...: price_usd_per_hour`.")
    source: str = Field(description="URL or file.")
    as_of: dt.date | None = Field(description="Date the figure held.")


class PriceAge(BaseModel):
    """How old the catalog prices behind an answer are (prices given in the request do not
    count). A price older than `max_age_days` is listed in the answer's `warnings`."""

    prices_as_of: dt.date = Field(
        description="Day whose prices were used: the request's `as_of`, else today (UTC)."
    )
    oldest_price_date: dt.date | None = Field(
        description="Date of the oldest catalog price used; null when none was used."
    )
    oldest_price: str | None = Field(description="Which price that is, e.g. `offer aws-...`.")
    oldest_price_age_days: int | None = Field(
        description="`prices_as_of - oldest_price_date`, days."
    )
    max_age_days: int = Field(
        description="Age beyond which a price is warned about (`GPUCOST_PRICE_MAX_AGE_DAYS`)."
    )
    prices_used: int = Field(description="Catalog prices used.", ge=0)


class Performance(BaseModel):
    """Relative speed used to scale cloud hours."""

    time_factor: float = Field(description="Cloud hours per desktop hour of work.")
    basis: str = Field(description="`benchmark` (measured) or `estimate`.")
    detail: str = Field(description="What the figure rests on.")


class CurrencyRate(BaseModel):
    """The exchange rate an answer's `*_in_currency` figures (and currency-neutral inputs)
    were converted with."""

    currency: str = Field(description="ISO 4217 code of the answer's currency.")
    usd_per_unit: float = Field(description="USD per unit of `currency` (1 for USD).")
    as_of: dt.date | None = Field(description="End of the rate's period; null for USD.")
    source: str | None = Field(description="Where the rate comes from; null for USD.")


class EmbodiedCarbon(BaseModel):
    """Manufacturing (embodied) emissions, kg CO2e, with the source's one-sigma range."""

    co2e_kg: float = Field(description="Central estimate, kg CO2e.")
    low_co2e_kg: float = Field(description="Central minus one standard deviation, kg CO2e.")
    high_co2e_kg: float = Field(description="Central plus one standard deviation, kg CO2e.")


class Resale(BaseModel):
    """Selling the desktop at the end of the horizon."""

    purchase_date: dt.date = Field(description="Day the machine is bought.")
    resell_after_years: float | None = Field(description="Years owned before it is sold.")
    resale_on: dt.date | None = Field(description="`purchase_date + resell_after_years`.")
    resale_value_usd: float = Field(description="What the machine sells for, USD.")
    basis: str = Field(
        description="`given`, or `depreciation curve` (GPUs only; the barebone counts 0)."
    )
    gpu_retained_fraction: float | None = Field(
        description="Share of the GPUs' price kept at resale, `exp(-k x years)` (curve only)."
    )
    annual_decay: float | None = Field(
        description="Curve's `k` per year; `1 - exp(-k)` of the value is lost each year."
    )
    break_even_days_without_resale: float | None = Field(
        description="Seed 001's break-even (no resale), days; null when never."
    )


class TotalCostOfOwnership(BaseModel):
    """Both sides' total cost over the horizon: the resale day, else the desktop's lifetime."""

    horizon_years: float = Field(description="Horizon, years.")
    horizon_days: float = Field(description="Horizon, days (years x 365).")
    desktop_tco_usd: float = Field(
        description="Purchase + electricity over the horizon - resale value, USD."
    )
    cloud_tco_usd: float = Field(description="Cloud cost over the horizon, USD.")
    tco_saving_usd: float = Field(description="`cloud_tco_usd - desktop_tco_usd`, USD.")
    cheaper: str = Field(description="`desktop` or `cloud` over the horizon (`cloud` on a tie).")
    pays_back_within_horizon: bool | None = Field(
        description="Break-even day <= horizon; null when the desktop never pays back."
    )


class MemoryCheck(BaseModel):
    """The request's `memory_preset` against the GPUs of the answer."""

    preset: str = Field(description="Memory preset id (seed 001).")
    precision: str = Field(description="`fp32` or `fp16`.")
    required_gb: float = Field(description="Memory the workload needs at that precision, GB.")
    gpus_below: list[str] = Field(description="Ids of the answer's GPUs with less memory.")


class BreakEvenMoney(BaseModel):
    """The answer's money in `currency_rate.currency`."""

    upfront: float = Field(description="Purchase price.")
    resale_value: float = Field(description="Resale value at the horizon.")
    daily_saving: float = Field(description="Cloud cost per day minus desktop running cost.")
    desktop_cost_per_year: float = Field(description="Desktop electricity per year.")
    cloud_cost_per_year: float = Field(description="Cloud cost per year.")
    desktop_tco: float = Field(description="Desktop total cost over the horizon.")
    cloud_tco: float = Field(description="Cloud total cost over the horizon.")
    electricity_price_per_kwh: float = Field(description="Electricity price per kWh.")
    cloud_price_per_hour: float = Field(description="Cloud instance price per hour.")


class DesktopSide(BaseModel):
    gpu_id: str | None = Field(description="GPU id.")
    gpu_count: int = Field(description="GPUs.")
    upfront_usd: float = Field(description="Purchase price, USD.")
    busy_power_w: float = Field(description="Wall power while busy, W.")
    electricity_price_usd_per_kwh: float = Field(description="Electricity price, USD/kWh.")
    cost_usd_per_day: float = Field(description="Electricity per day, USD.")
    cost_usd_per_year: float = Field(description="Electricity per year, USD.")
    energy_kwh_per_year: float = Field(description="Energy per year, kWh.")
    co2e_kg_per_year: float = Field(description="Operational emissions per year, kg CO2e.")
    carbon_intensity_g_per_kwh: float = Field(description="Grid carbon intensity used.")
    embodied: EmbodiedCarbon = Field(
        description="Manufacturing emissions of the whole machine (barebone + GPUs), all "
        "carried by the buyer."
    )
    embodied_co2e_kg_per_year: float = Field(
        description="`embodied.co2e_kg / lifetime_years`: the machine's manufacturing "
        "emissions amortized over its life, kg CO2e per year."
    )


class CloudSide(BaseModel):
    offer_id: str | None = Field(description="Offer id, when a catalog offer was used.")
    provider: str | None = Field(description="Provider.")
    pricing_model: PricingModel | None = Field(description="Pricing model.")
    gpu_id: str | None = Field(description="GPU id, when known.")
    gpu_count: int | None = Field(description="GPUs.")
    price_usd_per_hour: float = Field(description="Instance price, USD/h.")
    monthly_fee_usd: float = Field(description="Monthly fee, USD.")
    busy_hours_per_day: float = Field(description="Cloud hours per day for the same work, h.")
    cost_usd_per_day: float = Field(description="Average cost per day, USD.")
    cost_usd_per_year: float = Field(description="Cost per year, USD.")
    energy_kwh_per_year: float | None = Field(
        description="GPU energy per year incl. PUE, kWh (null when the GPU is unknown)."
    )
    co2e_kg_per_year: float | None = Field(
        description="Operational emissions per year, kg CO2e (null when the GPU is unknown)."
    )
    embodied_co2e_kg_per_year: float | None = Field(
        description="Usage share of the cloud GPUs' manufacturing emissions per year: "
        "busy hours / (GPU life x 8,760 h) x embodied, kg CO2e (null when the GPU is unknown)."
    )


class BreakEvenResult(BaseModel):
    """Break-even of buying a desktop vs renting, with both sides' running costs."""

    break_even_days: float | None = Field(
        description="Days until the desktop is cheaper; null when it never is."
    )
    break_even_reason: str | None = Field(description="Why `break_even_days` is null.")
    utilization: float = Field(description="Utilization used (0-1).")
    daily_saving_usd: float = Field(
        description="Cloud cost per day minus desktop running cost per day, USD."
    )
    desktop: DesktopSide
    cloud: CloudSide
    performance: Performance | None = Field(description="Speed scaling, when requested.")
    resale: Resale | None = Field(
        description="Resale assumptions, when the desktop is resold (`resell_after_years` or "
        "`resale_value_usd`); `break_even_days` then counts the resale value."
    )
    tco: TotalCostOfOwnership = Field(description="Total cost of ownership of both sides.")
    currency_rate: CurrencyRate = Field(description="Rate behind `in_currency`.")
    in_currency: BreakEvenMoney = Field(description="Headline money in the request's currency.")
    memory: MemoryCheck | None = Field(description="The `memory_preset` check, when one is named.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PriceAge = Field(description="Age of the catalog prices used.")
    warnings: list[str] = Field(
        description="Prices older than `prices.max_age_days`, and GPUs below `memory_preset`."
    )


class Workload(_Body):
    """What is run: a catalog benchmark, or a runtime measured on a GPU."""

    model_config = ConfigDict(**STRICT, json_schema_extra=exactly_one("benchmark", "runtime_s"))

    benchmark: str = name_field(
        "Benchmark id (`GET /v1/benchmarks`).",
        max_length=64,
    )
    runtime_s: float = Field(default=None, gt=0.001, le=1e9, description="Runtime of one run, s.")
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

    @model_validator(mode="after")
    def _one_workload(self) -> Workload:
        if (self.benchmark is None) == (self.runtime_s is None):
            raise ValueError("give exactly one of benchmark or runtime_s")
        return self


class RunOption(_Body):
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
        default=None, min_length=1, pattern=NO_CONTROL, max_length=160, description="Offer id."
    )
    gpu: str = name_field(
        "GPU id or name, with `price_usd_per_hour`.",
        max_length=100,
    )
    gpu_count: int | None = Field(default=None, ge=1, le=64, description="GPUs.")
    price_usd_per_hour: float = Field(default=None, ge=0, le=10_000, description="Price, USD/h.")
    desktop: DesktopSpec = Field(default=None, description="A desktop instead.")

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


class RunCostRequest(_Where):
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
    runtime_basis: str | None = Field(description="`benchmark`, `given` or `estimate`.")
    billed_s: float | None = Field(description="Billed time, s (cloud).")
    price_usd_per_hour: float | None = Field(
        description="Cloud: instance price; desktop: fully-loaded cost per busy hour, USD/h."
    )
    cost_usd: float | None = Field(description="Cost of one run, USD (desktop: fully loaded).")
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


class RunCostResult(BaseModel):
    """Per-option run costs."""

    workload: dict[str, Any] = Field(description="The workload as resolved.")
    options: list[RunOptionResult]
    currency_rate: CurrencyRate = Field(description="Rate behind the `*_in_currency` figures.")
    memory: MemoryCheck | None = Field(description="The `memory_preset` check, when one is named.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PriceAge = Field(description="Age of the catalog prices used.")
    warnings: list[str] = Field(
        description="Prices older than `prices.max_age_days`, and GPUs below `memory_preset`."
    )


class Hardware(StrEnum):
    """Whose hardware runs the work: `owned` (a bought desktop) or `rented` (a cloud GPU)."""

    owned = "owned"
    rented = "rented"


class CarbonRequest(_Body):
    """Energy and emissions of running GPUs for a while."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                *exactly_one("days", "hours")["allOf"],
                {"anyOf": [{"required": ["gpu"]}, {"required": ["gpu_power_w"]}]},
                not_both("utilization", "hours"),
                not_both("utilization_profile", "hours"),
                not_both("utilization", "utilization_profile"),
            ],
            "examples": [{"gpu": "rtx-3090", "utilization": 0.15, "days": 365, "region": "us-ca"}],
        },
    )

    gpu: str = Field(
        default=None, min_length=1, pattern=NO_CONTROL, max_length=100, description="GPU."
    )
    gpu_count: int = Field(default=1, ge=1, le=10_000, description="GPUs.")
    gpu_power_w: float = Field(
        default=None, ge=0, le=2000, description="Power per GPU, W; default TDP."
    )
    base_power_w: float = Field(
        default=100.0,
        ge=0,
        le=100_000,
        description="Host power while busy, W; default 100 W (seed 001).",
    )
    utilization_profile: str = name_field(
        "Profile id (`GET /v1/utilization-profiles`), instead of `utilization`.",
        max_length=64,
    )
    utilization: float = Utilization
    days: float = Field(
        default=None,
        gt=0,
        le=36_500,
        description="Calendar days (busy hours = days x 24 x utilization).",
    )
    hours: float = Field(default=None, gt=0, le=10_000_000, description="Busy hours.")
    region: str | None = name_field(
        "Region id, for carbon intensity (and PUE).",
        max_length=64,
    )
    carbon_intensity_g_per_kwh: float | None = Field(
        default=None, ge=0, le=2000, description="Grid carbon intensity, gCO2e/kWh."
    )
    pue: float | None = Field(
        default=None,
        ge=1.0,
        le=3.0,
        description="Power usage effectiveness; default 1.0, or the cloud region's.",
    )
    hardware: Annotated[Hardware, Strict(False)] = Field(
        default=None,
        description="How the GPUs' manufacturing emissions are allocated: `owned` (default; "
        "a bought desktop carries all of them over its life, barebone included) or `rented` "
        "(a cloud GPU's usage share, host not counted).",
    )
    lifetime_years: float | None = Field(
        default=None,
        ge=0.25,
        le=20,
        description="Hardware life the embodied emissions are spread over, years; default 5 "
        "(owned: IRS Publication 946 (2024) 5-year recovery; rented: EcoDiag's server life).",
    )

    @model_validator(mode="after")
    def _check(self) -> CarbonRequest:
        if (self.days is None) == (self.hours is None):
            raise ValueError("give exactly one of days or hours")
        if self.gpu is None and self.gpu_power_w is None:
            raise ValueError("give gpu or gpu_power_w")
        return self


class CarbonResult(BaseModel):
    gpu_id: str | None = Field(description="GPU id.")
    gpu_count: int = Field(description="GPUs counted.")
    power_w: float = Field(description="Power while busy, W.")
    busy_hours: float = Field(description="Busy hours, h.")
    pue: float = Field(description="PUE used.")
    carbon_intensity_g_per_kwh: float = Field(description="Carbon intensity used, gCO2e/kWh.")
    energy_kwh: float = Field(description="Energy incl. PUE, kWh.")
    co2e_kg: float = Field(description="Operational emissions (electricity), kg CO2e.")
    operational_co2e_kg: float = Field(description="Same as `co2e_kg`, kg CO2e.")
    hardware: Hardware = Field(description="How embodied emissions were allocated.")
    embodied_share: float = Field(
        description="Share of the hardware's manufacturing emissions this period carries: "
        "owned, days / (life x 365) (by `hours`: hours / (life x 8,760 x utilization)); "
        "rented, busy hours / (life x 8,760)."
    )
    embodied: EmbodiedCarbon = Field(
        description="Manufacturing emissions carried by this period, kg CO2e."
    )
    total_co2e_kg: float = Field(description="`operational_co2e_kg + embodied.co2e_kg`.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PriceAge = Field(description="Age of the catalog prices used.")
    warnings: list[str] = Field(description="Prices older than `prices.max_age_days`.")
