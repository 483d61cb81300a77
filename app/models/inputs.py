"""Request building blocks shared by the calculations: strict bodies, the desktop and cloud
sides, the inputs every calculation shares (utilization, electricity, region, currency,
scaling, memory) and the field helpers that keep them valid. Units in field names."""

from __future__ import annotations

from enum import StrEnum
from types import UnionType
from typing import Annotated, Any, Literal, Self, Union, get_args, get_origin

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

from app.costing import defaults, floors
from app.costing import ownership as own
from app.models.common import (
    OMITTED,
    IsoDate,
    amount_field,
    currency_twin,
    defaulted,
    described,
)

STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)
# Names and ids: printable text only (no NUL, newlines or other control characters).
NO_CONTROL = r"^[^\u0000-\u001f\u007f]*$"
# A fleet plan's span, months (``PlanRequest``): one budget year to a five-year GPU lifetime.
MIN_PLAN_MONTHS = 12
MAX_PLAN_MONTHS = 60


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


class StrictBody(BaseModel):
    model_config = STRICT

    @field_validator("*", mode="before")
    @classmethod
    def _integral_floats(cls, value: Any, info: ValidationInfo) -> Any:
        """JSON Schema counts 14.0 as an integer: accept it as 14 for integer fields (strict
        mode would refuse it). Booleans and strings stay refused."""
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            annotation = cls.model_fields[info.field_name or ""].annotation
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

ScalingModel = StrEnum("ScalingModel", {p: p for p in own.SCALING_PRESETS})  # type: ignore[misc]  # members from data
ScalingModel.__doc__ = "Multi-GPU scaling presets (Amdahl's law): " + "; ".join(
    f"`{p.id}` {p.anchor_speedup:g}x on {p.anchor_gpu_count} GPUs ({p.source})"
    for p in own.SCALING_PRESETS.values()
)

MemoryPresetId = StrEnum("MemoryPresetId", {p: p for p in own.MEMORY_PRESETS})  # type: ignore[misc]  # members from data
MemoryPresetId.__doc__ = (
    "Memory needs at 32-bit (seed 001, Tim Dettmers, 2020-09-07): "
    + ", ".join(f"`{p.id}` {p.min_memory_gb:g} GB" for p in own.MEMORY_PRESETS.values())
)


class Tariff(StrEnum):
    """Which electricity price a region's catalog row answers with: ``household`` (Eurostat
    band DC with all taxes; EIA residential) or ``non_household`` (Eurostat band IC excluding
    VAT and recoverable taxes; EIA commercial, which includes educational institutions)."""

    household = "household"
    non_household = "non_household"


def tariff_field() -> Any:
    """The optional ``tariff`` of a request that prices a region's electricity."""
    return Field(
        default=None,
        description="Electricity tariff of the region's catalog price: `non_household` "
        "(default: a lab buys electricity as an institution; Eurostat band IC excluding VAT, "
        "EIA commercial sector) or `household` (Eurostat band DC with all taxes, EIA "
        "residential). Ignored when a price is given.",
    )


def discount_rate_field() -> Any:
    """The optional ``annual_discount_rate`` of a request with present values."""
    return described(
        "Real annual rate of the present values (0.03 = 3 %; 0 = undiscounted). ",
        defaults.DISCOUNT_RATE,
        default=None,
        ge=0,
        le=0.5,
    )


def tax_exempt_field(what: str) -> Any:
    """The optional ``tax_exempt`` of a request whose amounts may carry VAT (``what``: the
    amounts VAT is added to)."""
    return Field(
        default=None,
        description="true: amounts without VAT (an exempt institution, or one that recovers "
        f"it). Default: the region's standard VAT rate is added to {what} (EU and UK; no "
        "sales-tax table for US states), stated in `assumptions`.",
    )


class Precision(StrEnum):
    """Training precision: `fp16` needs 8/12 of the 32-bit memory (seed 002, 2019)."""

    fp32 = "fp32"
    fp16 = "fp16"


# Fields whose presence selects a mode ("exactly one of", "not both") are typed without
# `| None`: they may be omitted but not sent as null, so the schema's `required` rules mean
# what the validators enforce.
LaunchOverheadMin = defaulted(
    "Billed minutes per cloud run that do no work (boot, setup, shutdown), added "
    "to each run before its billing increments and minimum. ",
    defaults.LAUNCH_OVERHEAD,
    ge=0,
    le=240,
)

Utilization = described(
    "Fraction of wall-clock time the GPUs are busy, 0 < u <= 1 (0.15 = 15 %). ",
    floors.SHARE,
    ge=floors.SHARE.value,
    le=1.0,
)


# The schema rules of a desktop (as its validators enforce them).
DESKTOP_RULES: list[Any] = [
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
            {"properties": {"resell_after_years": {"type": "null"}}},
            {"required": ["resale_value_usd"]},
            {"required": ["resale_value"]},
            {"required": ["gpu"]},
            {"required": ["gpu_price_usd"]},
        ]
    },
]


class DesktopSpec(StrictBody):
    """A desktop to buy. Give ``total_price_usd``, or let it be assembled from GPU and
    barebone prices (catalog or given)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={"allOf": DESKTOP_RULES},
    )

    gpu: str = name_field(
        "GPU id or name (`rtx-3090`, `3090`, `RTX 3090`).",
        max_length=100,
    )
    gpu_count: int = Field(default=1, ge=1, le=16, description="GPUs in the desktop.")
    total_price_usd: float = amount_field("Price of the whole machine, USD.", le=10_000_000)
    gpu_price_usd: float = amount_field(
        "Price of one GPU, USD; default: the GPU's catalog price by `condition`.", le=1_000_000
    )
    condition: Literal["new", "used"] | None = Field(
        default=None,
        description="Whether the GPUs are bought `new` (the catalog's newest new price: a "
        "dated street price, else the launch list price) or `used` (its dated used price). "
        "Default: used for a card out of production (the catalog's "
        "`production_ended_as_of`) that has a used price, else new; the answer states which.",
    )
    barebone: str | None = name_field(
        "Barebone id (`GET /v1/barebones`).",
        max_length=100,
    )
    barebone_price_usd: float | None = amount_field(
        "Price of the machine without GPUs, USD.", le=1_000_000, default=None
    )
    gpu_power_w: float = amount_field("Power of one GPU while busy, W; default TDP.", le=2000)
    base_power_w: float | None = described(
        "CPU, board and drives while busy, W. The barebone's when it states one; else: ",
        defaults.BASE_POWER,
        default=None,
        ge=0,
        le=10_000,
    )
    idle_power_w: float | None = described(
        "Wall power while on but idle, W. ", defaults.IDLE_POWER, default=None, ge=0, le=10_000
    )
    idle_on_fraction: float | None = amount_field(
        "Fraction of the not-busy time the machine stays on, drawing "
        "`idle_power_w` (0 = off when idle, the default as in seed 001; 1 = always on).",
        le=1,
        default=None,
    )
    psu_efficiency: float | None = described(
        "PSU efficiency (wall power = component power / it). The barebone's when "
        "it states one; else: ",
        defaults.PSU_EFFICIENCY,
        default=None,
        ge=0.5,
        le=1.0,
    )
    lifetime_years: float | None = described(
        "Amortization period for fully-loaded run cost and embodied carbon, and "
        "the TCO horizon when the machine is not resold, years. ",
        defaults.LIFETIME,
        default=None,
        ge=0.25,
        le=20,
    )
    total_price: float = amount_field(
        "Price of the whole machine in the request's `currency` (instead of `total_price_usd`).",
        le=10_000_000,
    )
    purchase_date: IsoDate = Field(
        default=OMITTED,
        description="Day the machine is bought; default: the day whose prices are read "
        "(`as_of`, else today). The resale day is `purchase_date + resell_after_years`.",
    )
    resell_after_years: float | None = Field(
        default=None,
        ge=floors.YEARS.value,
        le=20,
        description=f"{floors.YEARS.describe()} "
        "Years after purchase the machine is sold; sets the TCO horizon. Without "
        "`resale_value_usd` the GPUs' value comes from the catalog's depreciation curve for "
        "their class (fitted to seed 001's used prices); the barebone is counted at 0.",
    )
    resale_value_usd: float = amount_field(
        "What the whole machine sells for at the end, USD; default 0 without "
        "`resell_after_years` (seed 001 counts no resale).",
        le=10_000_000,
    )
    resale_value: float = currency_twin("resale_value_usd", le=10_000_000)

    @model_validator(mode="after")
    def _money_once(self) -> DesktopSpec:
        refuse_both(self, *DESKTOP_MONEY)
        return self


class CloudSpec(StrictBody):
    """The cloud side: a catalog offer, or a price per hour."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra=exactly_one("offer_id", "price_usd_per_hour", "price_per_hour")
    )

    offer_id: str = name_field(
        "Offer id from `GET /v1/cloud-offers`.",
        max_length=160,
    )
    price_usd_per_hour: float = amount_field("Price of the instance, USD/h.", le=10_000)
    price_per_hour: float = amount_field(
        "Price of the instance per hour in the request's `currency`.", le=10_000
    )
    gpu: str | None = name_field(
        "GPU of the instance (for performance normalization and carbon).",
        max_length=100,
    )
    gpu_count: int | None = Field(default=None, ge=1, le=64, description="GPUs in the instance.")
    monthly_fee_usd: float | None = amount_field(
        "Fixed monthly plan fee, USD.", le=1_000_000, default=None
    )

    @model_validator(mode="after")
    def _one_source(self) -> CloudSpec:
        given = [self.offer_id, self.price_usd_per_hour, self.price_per_hour]
        if sum(v is not None for v in given) != 1:
            raise ValueError("give exactly one of offer_id, price_usd_per_hour, price_per_hour")
        return self


class SiteInputs(StrictBody):
    """Where the machines run and how the answer is priced: electricity price (given, or the
    region's at a tariff), region and the answer's currency."""

    electricity_price_usd_per_kwh: float | None = described(
        "Electricity price, USD/kWh. The region's when it has one; else the "
        "deployment's setting `GPUCOST_DEFAULT_ELECTRICITY_PRICE_USD_PER_KWH`, as shipped: ",
        defaults.ELECTRICITY_PRICE,
        default=None,
        ge=0,
        le=5,
    )
    electricity_price_per_kwh: float = amount_field(
        "Electricity price per kWh in the request's `currency` (instead of "
        "`electricity_price_usd_per_kwh`).",
        le=5,
    )
    region: str | None = name_field(
        "Region id (`de`, `us-ca`, ...) for electricity price and carbon intensity.",
        max_length=64,
    )
    tariff: Annotated[Tariff, Strict(False)] = tariff_field()
    currency: Currency = Field(
        default="USD",
        description="Currency of the `*_in_currency` results and of the currency-neutral "
        "inputs (`total_price`, `resale_value`, `price_per_hour`, "
        "`electricity_price_per_kwh`). Converted at the catalog's rate in force on the "
        "prices' day, named in `currency_rate`. Default USD.",
    )

    @model_validator(mode="after")
    def _one_electricity(self) -> Self:
        refuse_both(self, ELECTRICITY)
        return self


class UsageInputs(SiteInputs):
    """How a machine is used (utilization, or a profile) and :class:`SiteInputs`."""

    utilization: float = Utilization
    utilization_profile: str = name_field(
        "Profile id (`GET /v1/utilization-profiles`), instead of `utilization`.",
        max_length=64,
    )

    @model_validator(mode="after")
    def _one_utilization(self) -> Self:
        refuse_both(self, ("utilization", "utilization_profile"))
        return self


class CommonInputs(UsageInputs):
    """:class:`UsageInputs` and the workload's multi-GPU scaling and memory need."""

    scaling: Annotated[ScalingModel, Strict(False)] = described(
        "Multi-GPU scaling preset (see `ScalingModel`). ", defaults.SCALING
    )
    parallel_fraction: float = described(
        "Override: Amdahl parallel fraction p, speed-up on n GPUs = 1 / ((1 - p) "
        "+ p / n). Wins over `scaling`. ",
        floors.SHARE,
        ge=floors.SHARE.value,
        le=1,
    )
    memory_preset: Annotated[MemoryPresetId, Strict(False)] = Field(
        default=OMITTED,
        description="Workload memory need (seed 001); a GPU below it is named in `warnings`.",
    )
    precision: Annotated[Precision, Strict(False)] = described(
        "Precision of `memory_preset`. ", defaults.MEMORY_PRECISION
    )
