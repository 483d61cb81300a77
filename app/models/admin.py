"""Admin schemas: catalog rows as written through ``PUT /v1/admin/...``, import reports and
the saved-scenario bodies.

Write bodies forbid unknown fields and non-finite numbers, and bound every figure to a
physically sensible range, so nothing written can make a later calculation fail. A body's
``as_of`` is the day its prices took effect (never in the future): a changed price is added to
the price history from that day.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.costing import floors
from app.models.benchmark import BenchmarkPublic, BenchmarkResultPublic
from app.models.catalog_misc import BareboneKind, BarebonePublic, UtilizationProfilePublic
from app.models.common import IsoDate, amount_field, described_by
from app.models.gpu import FormFactor, GpuPublic
from app.models.inputs import NO_CONTROL
from app.models.offer import CloudOfferPublic, PricingModel, Provider, commitment_problem
from app.models.region import RegionKind, RegionPublic

WRITE = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)
Text = Annotated[str, Field(min_length=1, max_length=200, pattern=NO_CONTROL)]
LongText = Annotated[str, Field(min_length=1, max_length=2000, pattern=NO_CONTROL)]
# Free text: several lines allowed, but no NUL (PostgreSQL's text refuses it; here it is a
# 422).
NO_NUL = r"^[^\u0000]*$"
Notes = Annotated[str, Field(max_length=4000, pattern=NO_NUL)]
# Dates are not bounded in the schema (JSON Schema cannot bound a `date`); a future `as_of`
# is refused by the service (prices are dated when they take effect).
Day = IsoDate


class _Write(BaseModel):
    model_config = WRITE

    source: LongText = Field(description="URL or document the figures come from.")
    as_of: Day = Field(description="Day the figures (prices) took effect; not in the future.")


@described_by(GpuPublic)
class GpuWrite(_Write):
    """A GPU (see `GET /v1/gpus/{gpu_id}` for each field's meaning)."""

    name: Text
    vendor: Text
    architecture: Text
    form_factor: FormFactor
    memory_gb: float = Field(ge=floors.MEMORY_GB.value, le=4096, description="GPU memory, GB.")
    memory_bandwidth_gb_per_s: float | None = Field(
        default=None, ge=floors.BANDWIDTH_GB_PER_S.value, le=100_000
    )
    fp32_tflops: float | None = Field(default=None, ge=floors.TERA_OPS.value, le=100_000)
    fp16_tensor_tflops: float | None = Field(default=None, ge=floors.TERA_OPS.value, le=100_000)
    fp16_acc16_tensor_tflops: float | None = Field(
        default=None, ge=floors.TERA_OPS.value, le=100_000
    )
    bf16_tensor_tflops: float | None = Field(default=None, ge=floors.TERA_OPS.value, le=100_000)
    fp8_tensor_tflops: float | None = Field(default=None, ge=floors.TERA_OPS.value, le=100_000)
    int8_tensor_tops: float | None = Field(default=None, ge=floors.TERA_OPS.value, le=100_000)
    tensor_source: LongText | None = None
    tensor_as_of: Day | None = None
    tdp_w: float = Field(ge=floors.POWER_W.value, le=5_000, description="Thermal design power, W.")
    launch_year: int | None = Field(default=None, ge=1990, le=2100)
    price_new_usd: float | None = Field(default=None, ge=floors.PRICE_USD.value, le=1_000_000)
    price_new_as_of: Day | None = None
    price_new_source: LongText | None = None
    price_used_usd: float | None = Field(default=None, ge=floors.PRICE_USD.value, le=1_000_000)
    price_used_as_of: Day | None = None
    price_used_source: LongText | None = None
    price_street_usd: float | None = Field(default=None, ge=floors.PRICE_USD.value, le=1_000_000)
    price_street_as_of: Day | None = None
    price_street_source: LongText | None = None
    production_ended_as_of: Day | None = None
    production_ended_source: LongText | None = None
    notes: Notes | None = None
    aliases: list[Text] = Field(default_factory=list, max_length=50)


@described_by(CloudOfferPublic)
class CloudOfferWrite(_Write):
    """A cloud offer (see `GET /v1/cloud-offers/{offer_id}`)."""

    provider: Provider
    instance_type: Text
    gpu_id: Text = Field(description="A catalog GPU id.")
    gpu_count: int = Field(ge=1, le=64)
    pricing_model: PricingModel
    price_usd_per_hour: float = Field(ge=0, le=10_000, description="Whole instance, USD/h.")
    monthly_fee_usd: float = amount_field("USD/month.", le=100_000, default=0)
    region: Text | None = None
    availability_zone: Text | None = None
    vcpus: float | None = Field(default=None, ge=floors.CPUS.value, le=10_000)
    ram_gb: float | None = Field(default=None, ge=floors.RAM_GB.value, le=100_000)
    billing_increment_s: float | None = Field(default=None, ge=floors.BILLING_S.value, le=86_400)
    billing_minimum_s: float | None = Field(default=None, ge=0, le=86_400)
    included_compute_units_per_month: float = Field(default=0, ge=0, le=1_000_000)
    compute_units_per_hour: float | None = Field(
        default=None, ge=floors.COMPUTE_UNITS_PER_HOUR.value, le=10_000
    )
    usd_per_compute_unit: float | None = Field(default=None, ge=0, le=1_000)
    commitment_term_months: int | None = Field(default=None, ge=1, le=120)
    notes: Notes | None = None

    @model_validator(mode="after")
    def _commitment(self) -> CloudOfferWrite:
        problem = commitment_problem(
            self.pricing_model, self.commitment_term_months, self.monthly_fee_usd
        )
        if problem:
            raise ValueError(problem)
        return self


@described_by(BarebonePublic)
class BareboneWrite(_Write):
    """A barebone (everything but the GPUs): a desktop, or a rack server (``kind``)."""

    name: Text
    gpu_slots: int = Field(ge=1, le=16)
    kind: BareboneKind = BareboneKind.desktop
    base_power_w: float = Field(ge=0, le=10_000, description="CPU, board, drives busy, W.")
    idle_power_w: float | None = Field(default=None, ge=0, le=5_000)
    psu_efficiency: float | None = Field(default=None, gt=0.3, le=1)
    price_usd: float = Field(
        ge=floors.PRICE_USD.value, le=1_000_000, description="Price without GPUs, USD."
    )
    notes: Notes | None = None


@described_by(RegionPublic)
class RegionWrite(_Write):
    """A region with its grid carbon intensity and, optionally, electricity price."""

    name: Text
    kind: RegionKind
    country_code: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")
    provider: Text | None = None
    carbon_intensity_g_per_kwh: float = Field(ge=0, le=2_000)
    carbon_source: LongText
    carbon_as_of: Day
    electricity_price_usd_per_kwh: float | None = Field(
        default=None, ge=floors.ELECTRICITY_PER_KWH.value, le=5
    )
    electricity_price_local: float | None = Field(
        default=None, ge=floors.ELECTRICITY_PER_KWH.value, le=10_000
    )
    electricity_currency: str | None = Field(default=None, pattern=r"^[A-Z]{3}$")
    electricity_source: LongText | None = None
    electricity_as_of: Day | None = None
    electricity_non_household_usd_per_kwh: float | None = Field(
        default=None, ge=floors.ELECTRICITY_PER_KWH.value, le=5
    )
    electricity_non_household_local: float | None = Field(
        default=None, ge=floors.ELECTRICITY_PER_KWH.value, le=10_000
    )
    electricity_non_household_source: LongText | None = None
    electricity_non_household_as_of: Day | None = None
    pue: float | None = Field(default=None, ge=1, le=3)
    pue_source: LongText | None = None


@described_by(UtilizationProfilePublic)
class UtilizationProfileWrite(_Write):
    """A utilization profile: the fraction of wall-clock time GPUs are busy."""

    name: Text
    utilization: float = Field(ge=floors.SHARE.value, le=1)
    description: LongText


@described_by(BenchmarkResultPublic)
class BenchmarkResultWrite(BaseModel):
    """One GPU's measured run of a benchmark."""

    model_config = WRITE

    gpu_id: Text = Field(description="A catalog GPU id.")
    gpu_count: int = Field(default=1, ge=1, le=64)
    seconds: float | None = Field(
        default=None, ge=floors.BENCHMARK_S.value, le=1e8, description="Null when OOM."
    )
    oom: bool = Field(default=False, description="True when the run ran out of memory.")
    max_batch_size: int | None = Field(default=None, ge=1, le=1_000_000)


@described_by(BenchmarkPublic)
class BenchmarkWrite(_Write):
    """A benchmark and its results (the results given replace the stored ones)."""

    name: Text
    settings: LongText
    results: list[BenchmarkResultWrite] = Field(default_factory=list, max_length=500)


class ImportFileReport(BaseModel):
    """One file read by an import."""

    file: str = Field(description="The file's path or upload name.")
    format: str = Field(description="`skypilot v8`, `gpucost csv`, `gpucost json`...")
    provider: str | None = Field(description="Provider of a SkyPilot file; null: per row.")
    as_of: dt.date = Field(description="Day the file's prices are taken to hold.")


class ImportCounts(BaseModel):
    """Offers added, changed (fields or price), unchanged and rejected."""

    added: int = Field(description="New offer ids.")
    changed: int = Field(description="Known ids whose fields or current price changed.")
    unchanged: int = Field(description="Known ids with equal fields and price.")
    rejected: int = Field(description="Rows refused (malformed, or a GPU not in the catalog).")


class ImportResult(BaseModel):
    """What an import did; nothing is written when the whole file is refused (4xx)."""

    files: list[ImportFileReport] = Field(description="The files read.")
    totals: ImportCounts = Field(description="Counts over every file.")
    by_provider: dict[str, ImportCounts] = Field(description="Counts per provider.")
    rejected: list[str] = Field(description="`file:line: reason` for each refused row.")
    skipped: dict[str, int] = Field(description="Rows left out on purpose, by reason.")
    price_points_added: int = Field(description="Dated prices added to the history.")
    catalog_revision: int | None = Field(
        description="Revision after the import; null if unchanged."
    )
    seconds: float = Field(description="Time taken, s.")


class AdminRow(BaseModel):
    """A catalog row as stored, with its `etag` (also in the `ETag` header)."""

    kind: str = Field(description="`gpus`, `cloud-offers`, `barebones`, ...")
    id: str = Field(description="The row's id.")
    etag: str = Field(description="Its current strong ETag, for `If-Match`.")
    data: dict[str, Any] = Field(description="The stored fields (money as numbers).")
