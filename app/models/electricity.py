"""``POST /v1/electricity``: a desktop's power draw, energy and electricity bill."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.costing import floors
from app.models.answers import Assumption, CurrencyRate, PricesUsed, SourceRef
from app.models.common import described
from app.models.inputs import (
    DESKTOP_MONEY,
    ELECTRICITY,
    STRICT,
    DesktopSpec,
    UsageInputs,
    not_both,
)


class PoweredDesktop(DesktopSpec):
    """A desktop whose power alone matters: the GPU (or its power) and the barebone's, no
    price needed (the server never asked for one here; the schema now says so)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                {"anyOf": [{"required": ["gpu"]}, {"required": ["gpu_power_w"]}]},
                *(not_both(*pair) for pair in DESKTOP_MONEY),
            ]
        },
    )


class ElectricityRequest(UsageInputs):
    """What running an owned desktop costs in electricity (the GPUs busy at `utilization`,
    idle or off the rest of the time)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [not_both("utilization", "utilization_profile"), not_both(*ELECTRICITY)],
            "examples": [{"desktop": {"gpu": "rtx-4090"}, "utilization": 1.0, "region": "de"}],
        },
    )

    desktop: PoweredDesktop
    days: float | None = described(
        "A period to total, days (e.g. 30). Default: none; per day, month "
        "(365/12 days) and year are always given. ",
        floors.DAYS,
        default=None,
        ge=floors.DAYS.value,
        le=36_500,
    )


class ElectricityResult(BaseModel):
    """The desktop's draw and bill. ``energy = (busy_power_w x busy h + idle_wall_power_w x
    idle h) / 1000``; ``cost = energy x electricity_price_usd_per_kwh``."""

    gpu_id: str | None = Field(description="GPU id (null when only its power was given).")
    gpu_count: int = Field(description="GPUs in the desktop.")
    busy_power_w: float = Field(
        description="Wall power while busy, W: (GPUs x power + base) / PSU efficiency."
    )
    idle_wall_power_w: float = Field(description="Wall power while idle and on, W.")
    utilization: float = Field(description="Fraction of the time busy (0-1).")
    electricity_price_usd_per_kwh: float = Field(description="Price used, USD/kWh.")
    energy_kwh_per_day: float = Field(description="Energy per day, kWh.")
    energy_kwh_per_month: float = Field(description="Energy per month (365/12 days), kWh.")
    energy_kwh_per_year: float = Field(description="Energy per year (365 days), kWh.")
    cost_usd_per_day: float = Field(description="Electricity per day, USD.")
    cost_usd_per_month: float = Field(description="Electricity per month (365/12 days), USD.")
    cost_usd_per_year: float = Field(description="Electricity per year (365 days), USD.")
    days: float | None = Field(description="The period asked for, days (null if none).")
    energy_kwh: float | None = Field(description="Energy over `days`, kWh (null if none).")
    cost_usd: float | None = Field(description="Electricity over `days`, USD (null if none).")
    currency_rate: CurrencyRate = Field(description="Rate behind the `*_in_currency` fields.")
    cost_per_month_in_currency: float = Field(description="`cost_usd_per_month` in `currency`.")
    cost_per_year_in_currency: float = Field(description="`cost_usd_per_year` in `currency`.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
    warnings: list[str] = Field(description="Caveats, then prices older than the limit.")
