"""``POST /v1/owned-rates``: a lab's own machines priced per GPU-hour (the request and its
result). Units in field names; money in USD with a twin in the request's currency."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from app.costing import floors
from app.models.answers import Assumption, CurrencyRate, PricesUsed, SourceRef
from app.models.break_even import USAGE_RULES
from app.models.common import amount_field, currency_twin, described
from app.models.inputs import (
    DESKTOP_RULES,
    STRICT,
    DesktopSpec,
    UsageInputs,
    name_field,
    not_both,
    refuse_both,
)

OVERHEAD = ("overhead_usd_per_year", "overhead_per_year")
EXAMPLE: JsonDict = {
    "machines": [
        {"gpu": "rtx-4090", "gpu_count": 4, "count": 2, "total_price_usd": 12000},
        {"gpu": "h100-pcie", "gpu_count": 8, "total_price_usd": 250000, "utilization": 0.6},
    ],
    "utilization": 0.3,
    "region": "de",
}


class OwnedRatesFormat(StrEnum):
    """What `POST /v1/owned-rates` answers: `json` (the rates with their assumptions),
    `skypilot` (the `kubernetes: pricing: accelerators:` block of SkyPilot's
    `~/.sky/config.yaml`, USD per accelerator-hour) or `opencost` (OpenCost's custom pricing
    `default.json`, its `GPU` field in USD per GPU-hour)."""

    json = "json"
    skypilot = "skypilot"
    opencost = "opencost"


class OwnedMachine(DesktopSpec):
    """Machines of one build the lab owns: a desktop spec (GPU, count, price or catalog build,
    purchase date, resale, lifetime) and how many of them, how busy, and what they cost a
    year beyond their purchase and electricity."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [*DESKTOP_RULES, not_both(*OVERHEAD)],
        },
    )

    count: int = Field(default=1, ge=1, le=10_000, description="Machines of this build.")
    utilization: float = described(
        "Fraction of wall-clock time these machines' GPUs are busy (0.3 = 30 %); default: "
        "the request's `utilization`. The purchase is spread over these busy hours only, so "
        "a quiet machine's hour costs more. ",
        floors.SHARE,
        ge=floors.SHARE.value,
        le=1.0,
    )
    overhead_usd_per_year: float = amount_field(
        "Yearly cost of one machine beyond its purchase and electricity (hosting, "
        "colocation, administration time, support contracts), USD; default 0.",
        le=10_000_000,
    )
    overhead_per_year: float = currency_twin("overhead_usd_per_year", le=10_000_000)
    accelerator_name: str = name_field(
        "Name SkyPilot knows this GPU by (`H100`, `A100-80GB`, `RTX4090`); default: derived "
        "from the GPU with SkyPilot's own naming rule (its canonical GPU names, else the "
        "label with `NVIDIA-`/`GeForce-` dropped).",
        max_length=64,
    )

    @model_validator(mode="after")
    def _overhead_once(self) -> OwnedMachine:
        refuse_both(self, OVERHEAD)
        return self


class OwnedRatesRequest(UsageInputs):
    """A lab's machines; answers the fully-loaded cost of one GPU-hour of each GPU type."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra={"allOf": USAGE_RULES, "examples": [EXAMPLE]}
    )

    machines: list[OwnedMachine] = Field(
        min_length=1, max_length=50, description="The machines, one entry per build."
    )


class OwnedRateParts(BaseModel):
    """One GPU-hour's cost, USD, by part."""

    capex_usd_per_gpu_hour: float = Field(
        description="Purchase net of resale over the GPU-hours of the holding period: "
        "`max(0, price - resale) / (years x gpu_count x utilization x 8,760 h)`."
    )
    electricity_usd_per_gpu_hour: float = Field(
        description="A year's electricity (busy, and idle while on) over its GPU-hours."
    )
    overhead_usd_per_gpu_hour: float = Field(description="Yearly overhead over its GPU-hours.")
    cost_usd_per_gpu_hour: float = Field(description="The sum: the fully-loaded rate, USD.")
    cost_per_gpu_hour_in_currency: float = Field(
        description="`cost_usd_per_gpu_hour` in the request's currency."
    )
    gpu_hours_per_year: float = Field(description="Busy GPU-hours a year the cost is spread on.")


class OwnedMachineRate(OwnedRateParts):
    """One build's rate."""

    index: int = Field(description="Position of the machine in the request's `machines`.")
    gpu_id: str | None = Field(description="Catalog GPU id (null for a GPU given by power only).")
    gpu_count: int = Field(description="GPUs per machine.")
    count: int = Field(description="Machines of this build.")
    utilization: float = Field(description="Fraction of the time the GPUs are busy.")
    holding_years: float = Field(
        description="Years the purchase is spread over: until resale, else the lifetime."
    )
    upfront_usd: float = Field(description="Purchase price of one machine, USD.")
    resale_value_usd: float = Field(description="What one machine sells for at the end, USD.")
    electricity_price_usd_per_kwh: float = Field(description="Electricity price, USD/kWh.")


class OwnedGpuRate(OwnedRateParts):
    """One GPU type's rate over every machine that has it (weighted by GPU-hours)."""

    gpu_id: str | None = Field(description="Catalog GPU id (null for a GPU given by power only).")
    gpu_name: str | None = Field(description="The GPU's name.")
    accelerator_name: str = Field(description="The name SkyPilot knows it by.")
    gpus: int = Field(description="GPUs of this type over all machines.")


class OwnedRatesResult(BaseModel):
    """The fully-loaded cost per GPU-hour of each GPU type the lab owns."""

    rates: list[OwnedGpuRate] = Field(description="One rate per GPU type, dearest first.")
    machines: list[OwnedMachineRate] = Field(description="Each build's own rate.")
    currency_rate: CurrencyRate = Field(description="Rate behind the `*_in_currency` figures.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
    warnings: list[str] = Field(description="Caveats, and prices older than the limit.")


class OpenCostPricing(BaseModel):
    """The answer of `?format=opencost`: OpenCost's custom-pricing `default.json`
    (opencost/opencost `configs/default.json`, `DefaultPricing` in
    `pkg/cloud/provider/providerconfig.go`, read 2026-11-24): every figure a decimal string,
    USD. The GPU rate is all-in, so the CPU, RAM and storage rates are "0"."""

    provider: str = Field(description="`custom`: OpenCost's custom provider.")
    description: str = Field(description="What the rate holds and the GPUs it pools.")
    CPU: str = Field(description="USD per vCPU-hour: `0` (in the GPU rate).")
    spotCPU: str = Field(description="USD per spot vCPU-hour: `0`.")
    RAM: str = Field(description="USD per GB-hour of memory: `0` (in the GPU rate).")
    spotRAM: str = Field(description="USD per spot GB-hour: `0`.")
    GPU: str = Field(description="USD per GPU-hour, GPU-hour weighted over every GPU type.")
    spotGPU: str = Field(description="USD per spot GPU-hour: the same rate.")
    storage: str = Field(description="USD per GB-month of storage: `0`.")


__all__ = [
    "OpenCostPricing",
    "OwnedMachine",
    "OwnedRatesFormat",
    "OwnedRatesRequest",
    "OwnedRatesResult",
    "OwnedGpuRate",
    "OwnedMachineRate",
]
