"""The answer of ``POST /v1/compare``: every option ranked (:class:`CompareOption`), what
the ranking left out (:class:`CompareSummary`) and the whole result (:class:`CompareResult`).
Money in USD unless a field says otherwise; hours in h; energy in kWh; emissions in kg CO2e."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.costing import defaults
from app.models.answers import Assumption, CurrencyRate, PricesUsed, SourceRef
from app.models.catalog_kinds import PricingModel


class CompareOption(BaseModel):
    """One ranked option: what it is, what the workload costs on it, and where the figures
    come from."""

    rank: int | None = Field(
        description="Position in the ranking, 1 first: cheapest total, with guaranteed "
        "capacity before spot and Colab plans unless spot is asked for (the `ranking` "
        "assumption); ranks follow the list's order; null when it cannot be costed."
    )
    id: str = Field(
        description="Offer id, or `desktop:{barebone}:{count}x{gpu}` for a desktop build."
    )
    label: str = Field(description="Human-readable name.")
    kind: Literal["cloud", "desktop"] = Field(description="Rent or buy.")
    provider: str | None = Field(description="Cloud provider (null for desktops).")
    instance_type: str | None = Field(
        description="Provider's instance or plan name; the barebone id for desktops."
    )
    pricing_model: PricingModel | None = Field(description="Pricing model (null for desktops).")
    commitment_term_months: int | None = Field(
        default=None,
        description="A committed-use offer's term, months: `total_cost_usd` then covers the "
        "whole term even when `horizon_months` is shorter. Null for pay-as-you-go and desktops.",
    )
    region: str | None = Field(description="Provider region, when the price is regional.")
    gpu_id: str = Field(description="GPU id.")
    gpu_count: int = Field(description="GPUs per instance or desktop.")
    instances: int = Field(
        default=1,
        description="Instances (cloud) or desktops the month's work needs: one runs at most "
        "730 h a month, so `ceil(busy_hours_per_month / 730)`; every one is priced (desktops "
        "bought, fees paid that many times).",
    )
    instances_per_run: int = Field(
        default=1,
        description="`workload.llm` only: instances one job runs on together when one "
        "instance's GPUs cannot hold it (on-demand and committed offers of "
        + defaults.LLM_CLUSTER_NODE_GPUS.shown()
        + " SXM servers, the set-up the MFU was measured on; `ceil(gpus_needed / "
        "gpu_count)`); the price, fee and power are then the cluster's and `instances` counts "
        "every instance. 1 otherwise.",
    )
    gpu_memory_gb: float = Field(description="Memory of one GPU, GB.")
    gpus_needed: int | None = Field(
        default=None,
        description="`workload.llm` only: fewest GPUs of this type that hold the job (memory "
        "split evenly, framework overhead on each); the option fits when `gpu_count` >= this. "
        "Null for other workloads, or when no number of them holds it.",
    )
    fits: bool | None = Field(
        description="Whether the workload fits in GPU memory (null: unknown)."
    )
    time_factor: float | None = Field(
        description="Hours this option needs per hour of the reference's work."
    )
    runtime_basis: str | None = Field(
        description="`benchmark` (measured), `published` (a published comparison), `estimate` "
        "(calibrated on the measured pairs) or `given`."
    )
    speed_error_band: float | None = Field(
        default=None,
        description="Relative uncertainty of `time_factor` (0.2 = +/-20 %): the farthest "
        "measurement from the mean for a measured pair, the speed model's leave-one-out p90 "
        "error for an estimate; null when unknown or given.",
    )
    runtime_s: float | None = Field(description="One run's runtime, s (null without runs).")
    price_usd_per_hour: float | None = Field(
        description="Cloud: instance price; desktop: total cost / busy hours over the horizon, "
        "USD/h."
    )
    monthly_fee_usd: float = Field(description="Plan fee, USD/month.")
    upfront_usd: float = Field(description="Purchase price, USD (0 for cloud).")
    interruption_overhead: float = Field(
        description="Expected billed hours per useful hour (1 = no interruption modelled)."
    )
    busy_hours_per_month: float | None = Field(description="Hours it runs per month, h.")
    cost_usd_per_month: float | None = Field(
        description="Cloud bill, or desktop electricity, per month, USD."
    )
    total_cost_usd: float | None = Field(
        description="Over the horizon: purchase + monthly cost x months, USD."
    )
    total_cost_in_currency: float | None = Field(
        description="`total_cost_usd` in the request's currency (see `currency_rate`)."
    )
    run_cost_usd: float | None = Field(
        description="Marginal cost of one run: cloud billed time x price (seed 004); desktop "
        "electricity, USD."
    )
    cost_per_run_usd: float | None = Field(
        description="Total cost / runs over the horizon (fees and purchase included), USD."
    )
    cost_per_batch_item_usd: float | None = Field(
        description="Seed 004: price_usd_per_hour / max batch size, USD."
    )
    energy_kwh: float | None = Field(description="Energy over the horizon (incl. PUE), kWh.")
    co2e_kg: float | None = Field(description="Operational emissions over the horizon, kg CO2e.")
    carbon_intensity_g_per_kwh: float = Field(description="Grid intensity used, gCO2e/kWh.")
    break_even_days: float | None = Field(
        description="Desktops: days until buying beats `best_cloud_id` for this work; "
        "null for cloud options and when it never does."
    )
    other_regions: int = Field(
        description="Regions with the same instance and pricing left out by "
        "`cheapest_region_only` (0 for desktops)."
    )
    note: str | None = Field(description="How runtime or fit was obtained; caveats.")
    source: str = Field(description="Source of the price.")
    as_of: str | None = Field(description="Date of the price (YYYY-MM-DD).")


class CompareSummary(BaseModel):
    """How many options were looked at and why some were left out."""

    considered: int = Field(description="Options in the catalog for this request.")
    ranked: int = Field(description="Options costed and ranked.")
    filtered_out: int = Field(description="Left out by the filters.")
    does_not_fit: int = Field(description="Left out: the workload does not fit.")
    no_runtime: int = Field(description="Left out: no benchmark or speed estimate.")
    over_capacity: int = Field(
        description="Options whose work needs more than one instance or desktop (more than "
        "730 busy hours a month): priced as several, see `instances`."
    )
    other_regions: int = Field(
        description="Costed but not listed: the same offer in a dearer region."
    )


class CompareResult(BaseModel):
    """Every matching option ranked by total cost over the horizon, best first."""

    currency_rate: CurrencyRate = Field(description="Rate behind `total_cost_in_currency`.")
    reference: str = Field(description="What one hour of work is measured on.")
    reference_hours_per_month: float = Field(description="Work per month on the reference, h.")
    runs_per_month: float | None = Field(description="Runs per month (null without runs).")
    horizon_months: float = Field(description="Months totals are taken over.")
    electricity_price_usd_per_kwh: float = Field(description="Desktop electricity, USD/kWh.")
    best_id: str | None = Field(description="Id of the first option of the ranking (rank 1).")
    best_cloud_id: str | None = Field(
        description="Id of the first cloud option of the ranking (the cheapest with "
        "guaranteed capacity unless spot is asked for; see the `ranking` assumption): the "
        "cloud each desktop's `break_even_days` is measured against."
    )
    best_desktop_id: str | None = Field(description="Id of the cheapest desktop build.")
    summary: CompareSummary
    options: list[CompareOption] = Field(description="Ranked options, at most `limit`.")
    warnings: list[str] = Field(description="What the ranking does not account for.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
