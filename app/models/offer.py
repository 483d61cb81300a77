"""Cloud offers: one priced way to rent GPUs (provider, instance, region, pricing model)."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import AutoString, Field, SQLModel

from app.models.catalog_kinds import PricingModel, Provider, commitment_problem
from app.models.provenance import Provenance

__all__ = ["PricingModel", "Provider", "commitment_problem"]


class CloudOfferBase(Provenance):
    provider: Provider = Field(
        sa_type=AutoString(length=32), index=True, description="Cloud provider."
    )
    instance_type: str = Field(max_length=100, description="Provider's instance or plan name.")
    gpu_id: str = Field(foreign_key="gpu.id", index=True, max_length=64, description="GPU id.")
    gpu_count: int = Field(description="GPUs in the instance.", ge=1)
    pricing_model: PricingModel = Field(
        sa_type=AutoString(length=32), index=True, description="How the offer is billed."
    )
    region: str | None = Field(
        default=None,
        max_length=100,
        index=True,
        description="Provider region, when the price is regional.",
    )
    availability_zone: str | None = Field(
        default=None,
        max_length=100,
        description="Zone of the spot price when only one standard zone priced it; null for a "
        "median over several (see `notes` for min, max and Local Zones left out).",
    )
    vcpus: float | None = Field(default=None, description="vCPUs of the instance.")
    ram_gb: float | None = Field(default=None, description="Instance RAM, GB (GiB in the source).")
    billing_increment_s: float | None = Field(
        default=None, description="Billed time is rounded up to this, s; null = continuous."
    )
    billing_minimum_s: float | None = Field(default=None, description="Minimum billed time, s.")
    included_compute_units_per_month: float = Field(
        default=0, description="Compute units the monthly fee includes (Colab)."
    )
    compute_units_per_hour: float | None = Field(
        default=None, description="Compute-unit burn rate, CU/h (Colab)."
    )
    usd_per_compute_unit: float | None = Field(default=None, description="USD per compute unit.")
    commitment_term_months: int | None = Field(
        default=None,
        ge=1,
        description="For a `committed_use` offer, the term, months (12 or 36): the instance is "
        "billed at `price_usd_per_hour` for every hour of the term (730 h a month), used or "
        "not. Null for pay-as-you-go offers.",
    )
    notes: str | None = Field(default=None, description="How the price was derived; caveats.")


class CloudOffer(CloudOfferBase, table=True):
    __tablename__ = "cloud_offer"

    id: str = Field(primary_key=True, max_length=160, description="Offer id.")
    price_usd_per_hour: Decimal = Field(
        max_digits=14, decimal_places=6, description="Price of the whole instance, USD/h."
    )
    monthly_fee_usd: Decimal = Field(
        default=Decimal(0),
        max_digits=12,
        decimal_places=2,
        description="Fixed plan or subscription fee, USD/month.",
    )


class CloudOfferPublic(CloudOfferBase):
    id: str = Field(description="Offer id, e.g. `aws-p3.2xlarge-us-east-1-spot`.")
    price_usd_per_hour: float = Field(description="Price of the whole instance, USD/h.")
    monthly_fee_usd: float = Field(description="Fixed plan or subscription fee, USD/month.")
    price_usd_per_gpu_hour: float = Field(description="`price_usd_per_hour / gpu_count`, USD/h.")


class CloudOffersPublic(SQLModel):
    data: list[CloudOfferPublic]
    count: int = Field(description="Number of offers matching the filters (before pagination).")
