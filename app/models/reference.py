"""Reference tables the model reads besides prices: dated exchange rates, embodied-carbon
factors, published relative speeds and single sourced reference values (such as the PUE of a
datacenter nobody has measured). Like every catalog table they are seeded from ``app/data`` and read at run time
only through the in-memory catalog view (:mod:`app.catalog.view`)."""

from __future__ import annotations

import datetime as dt

from sqlmodel import Field

from app.models.provenance import Provenance


class FxRate(Provenance, table=True):
    """One dated exchange rate: ``usd_per_unit`` USD buy one unit of ``currency`` (the
    average over ``period``, dated by ``as_of``, the period's end)."""

    __tablename__ = "fx_rate"

    id: str = Field(primary_key=True, max_length=64, description="`{currency}-{period}`.")
    currency: str = Field(max_length=3, description="ISO 4217 code, e.g. `EUR`.")
    usd_per_unit: float = Field(description="USD per unit of `currency`.")
    period: str = Field(max_length=32, description="Period the rate averages, e.g. `2024`.")


class EmbodiedFactor(Provenance, table=True):
    """Manufacturing (embodied) emissions of one piece of hardware, kg CO2e, with the
    source's one-sigma uncertainty and the life it is amortized over."""

    __tablename__ = "embodied_factor"

    id: str = Field(
        primary_key=True,
        max_length=32,
        description="Part: `gpu` (one graphics card), `gpu-datacenter` (one datacenter "
        "accelerator), `desktop` (the machine without GPUs) or `server` (an 8-GPU server "
        "without its GPUs).",
    )
    co2e_kg: float = Field(description="Central estimate, kg CO2e.")
    relative_sd: float = Field(description="One standard deviation as a fraction of `co2e_kg`.")
    lifetime_years: float = Field(description="Life it is amortized over by default, years.")


class VatRate(Provenance, table=True):
    """A country's standard VAT rate from ``effective_from`` on (the latest such period on a
    day is the rate in force)."""

    __tablename__ = "vat_rate"

    id: str = Field(primary_key=True, max_length=32, description="`{country}-{effective_from}`.")
    country_code: str = Field(max_length=2, index=True, description="ISO 3166-1 alpha-2.")
    effective_from: dt.date = Field(description="First day of the rate.")
    standard_rate: float = Field(description="Standard rate as a fraction (0.19 = 19 %).")


class ReferenceValue(Provenance, table=True):
    """One sourced number the model uses as a default, e.g. ``pue-unknown-datacenter``."""

    __tablename__ = "reference_value"

    id: str = Field(
        primary_key=True, max_length=64, description="Key, e.g. `pue-unknown-datacenter`."
    )
    value: float = Field(description="The number, in `unit`.")
    unit: str = Field(max_length=32, description="Its unit, e.g. `ratio`, `W`, `USD/kWh`.")
    description: str = Field(max_length=500, description="What it stands for.")


class PublishedSpeed(Provenance, table=True):
    """One GPU's throughput in a published comparison, relative to the comparison's
    reference (``relative_speed`` 1.0): e.g. seed 001's 'A100 is 1.43x a V100 on
    SE-ResNeXt101'. Two GPUs of one comparison give a measured speed ratio for the pair."""

    __tablename__ = "published_speed"

    id: str = Field(primary_key=True, max_length=140, description="`{comparison}-{gpu_id}`.")
    comparison: str = Field(max_length=100, index=True, description="Comparison id.")
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64, description="GPU id.")
    relative_speed: float = Field(
        description="Throughput relative to the comparison's reference GPU (1.0), ratio."
    )
    workload: str = Field(max_length=500, description="What was run or compared.")
    kind: str = Field(
        default="training",
        max_length=16,
        description="`training` or `inference`: what was measured. The speed estimate is "
        "fitted on training comparisons; an inference comparison is used for a pair only "
        "when no training measurement holds it.",
    )
