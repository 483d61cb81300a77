"""GPU catalog: the SQLModel family for the ``gpu`` table."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, Column
from sqlmodel import AutoString, Field, SQLModel

from app.models.catalog_kinds import FormFactor, GpuPrices, PurchasePrice
from app.models.provenance import Provenance

__all__ = ["FormFactor", "PurchasePrice"]


class GpuBase(Provenance, GpuPrices):
    name: str = Field(description="Product name, e.g. `GeForce RTX 3090`.", max_length=200)
    vendor: str = Field(description="Vendor, e.g. `NVIDIA`.", max_length=50)
    architecture: str = Field(description="Architecture, e.g. `Ampere`.", max_length=50)
    form_factor: FormFactor = Field(
        sa_type=AutoString(length=32), description="Card or module type."
    )
    memory_gb: float = Field(description="GPU memory, GB.")
    memory_bandwidth_gb_per_s: float | None = Field(
        default=None, description="Memory bandwidth, GB/s."
    )
    fp32_tflops: float | None = Field(
        default=None, description="Peak FP32 throughput (boost clock), TFLOPS."
    )
    fp16_tensor_tflops: float | None = Field(
        default=None,
        description="Peak dense FP16 tensor throughput with FP32 accumulate (what mixed-precision "
        "training runs at; GeForce cards run it at half their FP16-accumulate rate), TFLOPS; "
        "null without tensor cores.",
    )
    fp16_acc16_tensor_tflops: float | None = Field(
        default=None,
        description="Peak dense FP16 tensor throughput with FP16 accumulate (cuBLAS "
        "`CUBLAS_COMPUTE_16F`, what llama.cpp's 16-bit matrix multiplies run at), TFLOPS; "
        "GeForce cards run it at twice `fp16_tensor_tflops`, data-center cards at the same; "
        "null without tensor cores or without a published figure.",
    )
    bf16_tensor_tflops: float | None = Field(
        default=None,
        description="Peak dense BF16 tensor throughput (FP32 accumulate), TFLOPS; null before "
        "Ampere.",
    )
    fp8_tensor_tflops: float | None = Field(
        default=None,
        description="Peak dense FP8 tensor throughput (FP32 accumulate), TFLOPS; null before "
        "Ada and Hopper.",
    )
    int8_tensor_tops: float | None = Field(
        default=None, description="Peak dense INT8 tensor throughput, TOPS; null before Turing."
    )
    tensor_source: str | None = Field(
        default=None,
        description="Where the tensor figures come from (vendor whitepaper or datasheet, or "
        "derived from tensor cores x rate per clock x boost clock, as the notes say).",
    )
    tensor_as_of: dt.date | None = Field(default=None, description="Date of `tensor_source`.")
    tdp_w: float = Field(description="Thermal design power, W; the default busy power.")
    launch_year: int | None = Field(default=None, description="Year of launch.")
    price_new_usd: float | None = Field(default=None, description="Launch list price (MSRP), USD.")
    price_new_as_of: dt.date | None = Field(default=None, description="Date of `price_new_usd`.")
    price_new_source: str | None = Field(default=None, description="Source of `price_new_usd`.")
    price_used_usd: float | None = Field(default=None, description="Used street price, USD.")
    price_used_as_of: dt.date | None = Field(default=None, description="Date of `price_used_usd`.")
    price_used_source: str | None = Field(default=None, description="Source of `price_used_usd`.")
    price_street_usd: float | None = Field(
        default=None,
        description="Street price of a new card on `price_street_as_of` (a retailer listing, a "
        "price survey or a labelled estimate, as `price_street_source` says), USD. A default "
        "purchase price uses the newer of this and `price_new_usd`.",
    )
    price_street_as_of: dt.date | None = Field(
        default=None, description="Date of `price_street_usd`."
    )
    price_street_source: str | None = Field(
        default=None, description="Source of `price_street_usd`."
    )
    production_ended_as_of: dt.date | None = Field(
        default=None,
        description="Day its maker stopped producing it (as reported, see "
        "`production_ended_source`); null while in production or unknown. A default purchase "
        "of a card out of production uses its used price.",
    )
    production_ended_source: str | None = Field(
        default=None, description="Source of `production_ended_as_of`."
    )
    notes: str | None = Field(default=None, description="Conflicts resolved and caveats.")


class Gpu(GpuBase, table=True):
    __tablename__ = "gpu"

    id: str = Field(primary_key=True, max_length=64, description="Slug, e.g. `rtx-3090`.")
    aliases: list[str] = Field(
        default_factory=list,
        sa_column=Column(JSON, nullable=False),
        description="Other names that resolve to this GPU.",
    )


class GpuPublic(GpuBase):
    id: str = Field(description="Slug, e.g. `rtx-3090`.")
    aliases: list[str] = Field(description="Other names that resolve to this GPU.")


class GpusPublic(SQLModel):
    data: list[GpuPublic]
    count: int = Field(description="Number of GPUs matching the query (before pagination).")
