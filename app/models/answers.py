"""Result building blocks shared by the calculations: assumptions and sources, the age of
the prices used, the exchange rate, relative speed, embodied carbon, resale, total cost of
ownership and the memory check."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    Field,
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


# The `prices` field of every answer priced from the catalog (a PriceAge: dates, and ages in days).
PricesUsed = Annotated[PriceAge, Field(description="Age of the catalog prices used.")]


class Performance(BaseModel):
    """Relative speed used to scale cloud hours."""

    time_factor: float = Field(description="Cloud hours per desktop hour of work.")
    basis: str = Field(
        description="`benchmark` (measured runs of the same benchmark), `published` (a published "
        "comparison, e.g. seed 001's) or `estimate` (calibrated on the measured pairs)."
    )
    detail: str = Field(description="What the figure rests on.")
    error_band: float | None = Field(
        default=None,
        description="Relative uncertainty of `time_factor` (0.2 = +/-20 %): for measured "
        "ratios, how far the farthest measurement averaged lies from their geometric mean; "
        "for an estimate, the speed model's leave-one-out 90th-percentile error on the "
        "catalog's measured training pairs. Null when unknown (a single measurement).",
    )


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
        description="Share of the price paid for the GPUs kept at resale (curve only): "
        "`r(a + years) / r(a)`, `r(a) = exp(-(a / scale)^shape)` the class's fitted value "
        "relative to the launch price at age `a` (docs/model.md)."
    )
    annual_decay: float | None = Field(
        description="The constant rate `k` per year with `exp(-k x years)` equal to "
        "`gpu_retained_fraction` (curve only)."
    )
    gpu_age_at_purchase_years: float | None = Field(
        default=None,
        description="The GPUs' age when bought, years since their launch price's day (curve "
        "only; 0 when the catalog has no dated launch price).",
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
