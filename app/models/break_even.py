"""``POST /v1/break-even``: the request and its result."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)
from pydantic.config import JsonDict, JsonValue

from app.models.answers import (
    Assumption,
    CurrencyRate,
    EmbodiedCarbon,
    MemoryCheck,
    Performance,
    PricesUsed,
    Resale,
    SourceRef,
    TotalCostOfOwnership,
)
from app.models.catalog_kinds import PricingModel
from app.models.inputs import ELECTRICITY, STRICT, CloudSpec, CommonInputs, DesktopSpec, not_both

# The schema rules of a request with usage inputs (as the validators enforce them), and
# seed 001's break-even as an example body.
USAGE_RULES: list[JsonValue] = [
    not_both("utilization", "utilization_profile"),
    not_both(*ELECTRICITY),
]
SEED_EXAMPLE: JsonDict = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"price_usd_per_hour": 2.14, "gpu": "v100-16gb"},
    "utilization": 0.15,
    "electricity_price_usd_per_kwh": 0.12,
}


class BreakEvenRequest(CommonInputs):
    """Desktop vs cloud: after how many days does buying pay off?"""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={"allOf": USAGE_RULES, "examples": [SEED_EXAMPLE]},
    )

    desktop: DesktopSpec
    cloud: CloudSpec
    normalize_performance: bool | None = Field(
        default=None,
        description="Like-for-like: scale cloud hours by the GPUs' relative speed (measured "
        "benchmark runs or published comparisons where they exist, else an estimate "
        "calibrated on them; `performance` says which). Default (null): on whenever both GPUs "
        "are known, stated in `assumptions`; `false`: cloud hours = desktop busy hours.",
    )


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


class SameCountAlternative(BaseModel):
    """The answer against the cheapest offer of the same GPU, pricing model and the desktop's
    GPU count, given beside an answer whose cloud side has more GPUs than the desktop (the
    extra GPUs are paid for whether the job uses them or not)."""

    offer_id: str = Field(description="The alternative offer (same GPU and pricing model).")
    provider: str = Field(description="Its provider.")
    gpu_count: int = Field(description="Its GPUs: the desktop's count.")
    price_usd_per_hour: float = Field(description="Its price, USD/h.")
    break_even_days: float | None = Field(description="Break-even against it, days.")
    break_even_reason: str | None = Field(description="Why `break_even_days` is null.")
    tco_saving_usd: float = Field(description="Cloud TCO minus desktop TCO against it, USD.")


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
    same_gpu_count: SameCountAlternative | None = Field(
        default=None,
        description="When the cloud side has more GPUs than the desktop: the answer against "
        "the cheapest offer of the desktop's GPU count (same GPU and pricing model), if any.",
    )
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
    warnings: list[str] = Field(
        description="Prices older than `prices.max_age_days`, and GPUs below `memory_preset`."
    )
