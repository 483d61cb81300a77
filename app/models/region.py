"""Regions: countries, US states, cloud regions and the world average."""

from __future__ import annotations

import datetime as dt

from sqlmodel import AutoString, Field, SQLModel

from app.models.catalog_kinds import (
    TARIFF_COLUMNS,
    RegionKind,
    RegionTariffs,
    TariffPrice,
    tariff_fields,
)
from app.models.provenance import Provenance

__all__ = ["TARIFF_COLUMNS", "RegionKind", "TariffPrice", "tariff_fields"]


class RegionBase(Provenance):
    name: str = Field(max_length=200, description="Region name.")
    kind: RegionKind = Field(
        sa_type=AutoString(length=32), index=True, description="What kind of region this is."
    )
    country_code: str | None = Field(default=None, max_length=2, description="ISO 3166-1 alpha-2.")
    provider: str | None = Field(default=None, max_length=32, description="Cloud provider.")
    carbon_intensity_g_per_kwh: float = Field(description="Grid carbon intensity, gCO2e/kWh.")
    carbon_source: str = Field(max_length=2000, description="Source of the carbon intensity.")
    carbon_as_of: dt.date = Field(description="End of the period the carbon intensity covers.")
    electricity_price_usd_per_kwh: float | None = Field(
        default=None,
        description="Retail electricity price for households, USD/kWh (taxes as the source "
        "publishes them: Eurostat household prices include VAT, EIA's exclude sales taxes).",
    )
    electricity_price_local: float | None = Field(
        default=None, description="The price in the source's currency, per kWh."
    )
    electricity_currency: str | None = Field(default=None, max_length=3, description="ISO 4217.")
    electricity_source: str | None = Field(
        default=None, max_length=2000, description="Source and conversion of the price."
    )
    electricity_as_of: dt.date | None = Field(default=None, description="End of the price period.")
    electricity_non_household_usd_per_kwh: float | None = Field(
        default=None,
        description="Electricity price for non-household consumers (a university, a company), "
        "USD/kWh: Eurostat band IC excluding VAT and recoverable taxes; EIA commercial sector "
        "(which includes educational institutions).",
    )
    electricity_non_household_local: float | None = Field(
        default=None, description="The non-household price in `electricity_currency`, per kWh."
    )
    electricity_non_household_source: str | None = Field(
        default=None, max_length=2000, description="Source and conversion of the price."
    )
    electricity_non_household_as_of: dt.date | None = Field(
        default=None, description="End of the non-household price's period."
    )
    pue: float | None = Field(default=None, description="Datacenter PUE (cloud regions).")
    pue_source: str | None = Field(default=None, max_length=2000, description="Source of `pue`.")


class Region(RegionBase, RegionTariffs, table=True):
    __tablename__ = "region"

    id: str = Field(
        primary_key=True, max_length=64, description="`de`, `us-ca`, `aws:us-east-1`, `world`."
    )


class RegionPublic(RegionBase):
    id: str = Field(description="Region id: `de`, `us-ca`, `aws:us-east-1`, `world`.")


class RegionsPublic(SQLModel):
    data: list[RegionPublic]
    count: int = Field(description="Number of regions matching `kind` (before pagination).")
