"""Smaller catalog resources: providers, Colab plans and burn rates, barebones, utilization
profiles."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlmodel import AutoString, Field, SQLModel

from app.models.catalog_kinds import BareboneKind, ProviderKind
from app.models.provenance import Provenance

__all__ = ["BareboneKind", "ProviderKind"]


class ProviderInfo(SQLModel, table=True):
    """Per-provider billing rules, default datacenter PUE and kind."""

    __tablename__ = "provider"

    id: str = Field(primary_key=True, max_length=32, description="Provider id, e.g. `aws`.")
    name: str = Field(max_length=100, description="Display name.")
    billing_increment_s: float | None = Field(default=None, description="Billing increment, s.")
    billing_minimum_s: float | None = Field(default=None, description="Minimum billed time, s.")
    billing_source: str = Field(max_length=2000, description="Source of the billing rules.")
    pue: float = Field(description="Default power usage effectiveness of its datacenters.")
    pue_source: str = Field(max_length=2000, description="Source of `pue`.")
    as_of: dt.date = Field(description="Date of the PUE figure.")
    kind: ProviderKind = Field(
        default=ProviderKind.cloud,
        sa_type=AutoString(length=16),
        description="`cloud` (rents its own machines), `marketplace` (hosts list their "
        "machines at their own prices; reliability varies by host: Vast.ai, Lium) or `broker` "
        "(resells other clouds' machines: Shadeform, Prime Intellect). Marketplaces and "
        "brokers enter a default offer only when named or asked for "
        "(`include_marketplaces`).",
    )
    historical_note: str | None = Field(
        default=None,
        max_length=2000,
        description="Why this provider's prices are historical (no current source can be "
        "read), said wherever an answer uses one; null for a current provider.",
    )


class ColabPlanBase(Provenance):
    name: str = Field(max_length=100, description="Plan name, e.g. `Colab Pro`.")
    monthly_fee_usd: float = Field(description="Monthly fee, USD.")
    included_compute_units_per_month: float = Field(description="Compute units included/month.")
    usd_per_compute_unit: float | None = Field(
        default=None, description="Price of one compute unit, USD; null for the Free plan."
    )
    notes: str | None = Field(default=None, description="Caveats.")


class ColabPlan(ColabPlanBase, table=True):
    __tablename__ = "colab_plan"

    id: str = Field(primary_key=True, max_length=32, description="Plan id, e.g. `colab-pro`.")


class ColabRate(Provenance, table=True):
    """A measured Colab compute-unit burn rate for one GPU on one date."""

    __tablename__ = "colab_rate"

    id: str = Field(primary_key=True, max_length=100, description="`{gpu_id}-{as_of}`.")
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64, description="GPU id.")
    compute_units_per_hour: float = Field(description="Burn rate, compute units per hour.")
    notes: str | None = Field(default=None, description="Caveats.")


class BareboneBase(Provenance):
    name: str = Field(max_length=200, description="Description of the build.")
    gpu_slots: int = Field(description="GPUs the barebone takes.")
    base_power_w: float = Field(description="Power of CPU, board and drives while busy, W.")
    idle_power_w: float | None = Field(default=None, description="Idle wall power, W.")
    psu_efficiency: float | None = Field(
        default=None, description="PSU efficiency at 50 % load (0-1), when known."
    )
    kind: BareboneKind = Field(
        default=BareboneKind.desktop,
        sa_type=AutoString(length=16),
        description="`desktop` (a PC: the largest desktop PSU and a household circuit limit it) "
        "or `server` (a rack chassis with PSUs sized for its GPUs, on a 208/240 V circuit).",
    )
    notes: str | None = Field(default=None, description="How the price was derived.")


class Barebone(BareboneBase, table=True):
    __tablename__ = "barebone"

    id: str = Field(primary_key=True, max_length=64, description="Barebone id.")
    price_usd: Decimal = Field(max_digits=12, decimal_places=2, description="Price, USD.")


class BarebonePublic(BareboneBase):
    id: str = Field(description="Barebone id.")
    price_usd: float = Field(description="Price without GPUs, USD.")


class BarebonesPublic(SQLModel):
    data: list[BarebonePublic]
    count: int = Field(description="Number of barebones.")


class UtilizationProfileBase(Provenance):
    name: str = Field(max_length=200, description="Profile name.")
    utilization: float = Field(description="Fraction of wall-clock time the GPUs are busy (0-1).")
    description: str = Field(max_length=2000, description="What the source says.")


class UtilizationProfile(UtilizationProfileBase, table=True):
    __tablename__ = "utilization_profile"

    id: str = Field(primary_key=True, max_length=64, description="Profile id.")


class UtilizationProfilePublic(UtilizationProfileBase):
    id: str = Field(description="Profile id, e.g. `phd-desktop`.")


class UtilizationProfilesPublic(SQLModel):
    data: list[UtilizationProfilePublic]
    count: int = Field(description="Number of profiles.")


class CatalogRevision(SQLModel, table=True):
    """One row: a counter bumped by every catalog write that changes a row. Processes keep an
    in-memory snapshot of the catalog and rebuild it when this number moves."""

    __tablename__ = "catalog_revision"

    id: int = Field(default=1, primary_key=True, description="Always 1.")
    revision: int = Field(default=0, description="Bumped by each catalog change.")
