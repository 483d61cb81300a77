"""Fleet plan (``POST /v1/plan``): own the base, rent the peak. The request is a demand profile
in GPU-hours per month on a reference GPU, the candidate desktops, the cloud and the fleet's
limits; the answer is the cost-minimizing mix month by month, beside all-cloud and
all-desktop. Units in field names; money in USD unless a field says `_in_currency`."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.costing import defaults
from app.models.answers import Assumption, CurrencyRate, PricesUsed, SourceRef
from app.models.common import OMITTED, amount_field, described
from app.models.inputs import (
    ELECTRICITY,
    MAX_PLAN_MONTHS,
    MIN_PLAN_MONTHS,
    NO_CONTROL,
    STRICT,
    CloudSpec,
    DesktopSpec,
    SiteInputs,
    StrictBody,
    discount_rate_field,
    exactly_one,
    name_field,
    not_both,
    refuse_both,
    tax_exempt_field,
)

OfferId = Annotated[str, Field(min_length=1, max_length=160, pattern=NO_CONTROL)]
MAX_PLAN_DESKTOPS = 8
MAX_MONTHLY_GPU_HOURS = 1_000_000.0

MonthlyGpuHours = Annotated[float, Field(ge=0, le=MAX_MONTHLY_GPU_HOURS)]


StrategyName = Literal["plan", "all_cloud", "all_desktop"]  # a fleet plan's three answers


class PlanPeak(StrictBody):
    """A named month of higher (or lower) demand that recurs every year of the plan, e.g. a
    conference deadline."""

    name: str | None = name_field("What the peak is, e.g. `NeurIPS deadline`.", max_length=100)
    month: int = Field(ge=1, le=12, description="Calendar month of the peak, 1 (January) to 12.")
    gpu_hours: float = Field(
        ge=0,
        le=MAX_MONTHLY_GPU_HOURS,
        description="The month's whole demand, reference GPU-hours (replaces the baseline in "
        "that month; of two peaks in one month the larger applies).",
    )


class PlanConstraints(StrictBody):
    """Limits on the owned fleet; each is off when omitted."""

    budget_usd: float | None = amount_field(
        "Most that may be spent on desktops over the horizon (purchases, not running costs), USD.",
        le=1_000_000_000,
        default=None,
    )
    max_machines: int | None = Field(
        default=None, ge=0, le=1000, description="Most desktops owned at once."
    )
    max_power_w: float | None = amount_field(
        "Most busy wall power of the desktops owned at once, W (a room's circuits or cooling).",
        le=10_000_000,
        default=None,
    )


class PlanDesktop(DesktopSpec):
    """A desktop the plan may buy: a :class:`DesktopSpec` whose GPU is named (its hours are
    converted to the reference GPU's)."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra=DesktopSpec.model_config["json_schema_extra"]
    )

    gpu: str = Field(
        min_length=1,
        max_length=100,
        pattern=NO_CONTROL,
        description="GPU id or name (`rtx-3090`, `3090`, `RTX 3090`).",
    )


class PlanRequest(SiteInputs):
    """A lab's GPU demand over 12 to 60 months and what may serve it. Give the demand as
    `gpu_hours_per_month` (one value per month) or as `baseline_gpu_hours_per_month` with
    optional `peaks` over `months`."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                *exactly_one("gpu_hours_per_month", "baseline_gpu_hours_per_month")["allOf"],
                not_both(*ELECTRICITY),
                not_both("gpu_hours_per_month", "peaks"),
                not_both("gpu_hours_per_month", "months"),
                {
                    "not": {
                        "required": ["cloud", "include_cloud"],
                        "properties": {"include_cloud": {"const": False}},
                    }
                },
                {  # commitments are cloud: none when include_cloud is false
                    "not": {
                        "required": ["commitments", "include_cloud"],
                        "properties": {
                            "include_cloud": {"const": False},
                            "commitments": {"type": "array", "minItems": 1},
                        },
                    }
                },
            ],
            "examples": [
                {
                    "gpu": "rtx-4090",
                    "baseline_gpu_hours_per_month": 300,
                    "months": 36,
                    "peaks": [{"name": "NeurIPS deadline", "month": 5, "gpu_hours": 2000}],
                    "region": "de",
                }
            ],
        },
    )

    gpu: str = Field(
        min_length=1,
        max_length=100,
        pattern=NO_CONTROL,
        description="Reference GPU (id or name): the demand is GPU-hours of work on it.",
    )
    gpu_hours_per_month: list[MonthlyGpuHours] = Field(
        default=OMITTED,
        min_length=MIN_PLAN_MONTHS,
        max_length=MAX_PLAN_MONTHS,
        description="Demand in each month, reference GPU-hours (0 to 1,000,000), first month "
        "first; its length is the horizon (12 to 60 months).",
    )
    baseline_gpu_hours_per_month: float = amount_field(
        "Demand in a month without a peak, reference GPU-hours.", le=MAX_MONTHLY_GPU_HOURS
    )
    months: int | None = described(
        "Horizon with `baseline_gpu_hours_per_month`, months. ",
        defaults.PLAN_MONTHS,
        default=None,
        ge=MIN_PLAN_MONTHS,
        le=MAX_PLAN_MONTHS,
    )
    peaks: list[PlanPeak] = Field(
        default=OMITTED,
        max_length=12,
        description="Months whose demand differs from the baseline, every year (one per "
        "calendar month).",
    )
    start_month: str | None = Field(
        default=None,
        pattern=r"^20\d{2}-(0[1-9]|1[0-2])$",
        description="First month of the plan, `YYYY-MM` (2000-01 to 2099-12); default: the "
        "month after the prices' day.",
    )
    desktops: list[PlanDesktop] = Field(
        default=OMITTED,
        min_length=1,
        max_length=MAX_PLAN_DESKTOPS,
        description="Desktops the plan may buy (each needs `gpu`); default: the reference GPU "
        "in the cheapest catalog barebone for each GPU count a desktop PSU carries (seed 001's "
        "rule: the GPUs' power + 300 W <= 1,600 W).",
    )
    cloud: CloudSpec = Field(
        default=OMITTED,
        description="The cloud to rent from; default: the cheapest on-demand offer of the "
        "reference GPU (1-GPU instances first, Colab and flagged price outliers excluded), "
        "else of a GPU with similar memory bandwidth.",
    )
    include_cloud: bool = Field(
        default=True, description="false: desktops only (the plan must own for the peak)."
    )
    commitments: list[OfferId] | None = Field(
        default=None,
        max_length=MAX_PLAN_DESKTOPS,
        description="Committed-use offers the plan may take on (ids from "
        "`GET /v1/cloud-offers?pricing_model=committed_use`): each committed instance costs its "
        "monthly fee for every month of its term, used or not, and serves GPUs x 730 h x "
        "`max_utilization` / `time_factor` reference GPU-hours a month; a term must end within "
        "the horizon. Default: the commitments of the cloud's machine in its region, if the "
        "catalog has any; [] for none.",
    )
    max_utilization: float | None = described(
        "Most of a month's hours an owned GPU serves work, a fraction. ",
        defaults.OWNED_MAX_SHARE,
        default=None,
        ge=0.01,
        le=1,
    )
    annual_discount_rate: float | None = discount_rate_field()
    tax_exempt: bool | None = tax_exempt_field(
        "purchases, cloud rent and a catalog non-household electricity price"
    )
    constraints: PlanConstraints = Field(
        default_factory=PlanConstraints, description="Limits on the owned fleet."
    )

    @model_validator(mode="after")
    def _one_demand(self) -> PlanRequest:
        given = (self.gpu_hours_per_month, self.baseline_gpu_hours_per_month)
        if sum(v is not None for v in given) != 1:
            raise ValueError(
                "give exactly one of gpu_hours_per_month, baseline_gpu_hours_per_month"
            )
        refuse_both(self, ("gpu_hours_per_month", "peaks"), ("gpu_hours_per_month", "months"))
        if not self.include_cloud and self.cloud is not None:
            raise ValueError("cloud is given but include_cloud is false")
        if not self.include_cloud and self.commitments:
            raise ValueError("commitments are cloud: given but include_cloud is false")
        return self


class PlanBuild(BaseModel):
    """A desktop the plan could buy, as the plan prices it."""

    id: str = Field(description="`desktops[i]`, the candidate's position in the request.")
    label: str = Field(description="What it is, e.g. `2x rtx-4090 in barebone-...`.")
    gpu_id: str = Field(description="Its GPU.")
    gpu_count: int = Field(description="GPUs in it.")
    upfront_usd: float = Field(
        description="Purchase price of one unit, USD (with VAT at `vat_rate`)."
    )
    time_factor: float = Field(description="Its GPU's hours per reference GPU-hour.")
    speed_basis: str = Field(description="`benchmark`, `published` or `estimate`.")
    capacity_gpu_hours_per_month: float = Field(
        description="Reference GPU-hours one unit serves a month: GPUs x 730 h x "
        "`max_utilization` / `time_factor`."
    )
    cost_usd_per_gpu_hour: float = Field(
        description="Electricity per reference GPU-hour served, USD: busy wall power / GPUs x "
        "`time_factor` / 1000 x USD/kWh (with VAT on a net catalog price)."
    )
    busy_power_w: float = Field(description="One unit's busy wall power, W.")
    life_months: int = Field(description="Months a unit serves after purchase (its lifetime).")
    units_bought: int = Field(description="Units the plan buys over the horizon.")


class PlanCloud(BaseModel):
    """The cloud the plan rents from."""

    offer_id: str | None = Field(description="Catalog offer, null for a given price.")
    label: str = Field(description="What it is.")
    gpu_id: str | None = Field(description="Its GPU, when known.")
    price_usd_per_gpu_hour: float = Field(
        description="List price per GPU-hour of the offer, USD (net of VAT)."
    )
    time_factor: float = Field(description="Its GPU's hours per reference GPU-hour.")
    cost_usd_per_gpu_hour: float = Field(
        description="Cost per reference GPU-hour rented: price per GPU-hour x `time_factor` "
        "(with VAT at `vat_rate`)."
    )
    as_of: dt.date | None = Field(description="Date of the price.")


class PlanCommitment(BaseModel):
    """A cloud commitment the plan may take on, as priced, and the instances it commits."""

    id: str = Field(description="`commitments[i]`.")
    offer_id: str = Field(description="The committed-use catalog offer.")
    label: str = Field(description="What it is.")
    gpu_id: str = Field(description="Its GPU.")
    gpu_count: int = Field(description="GPUs per instance.")
    term_months: int = Field(description="The term: owed for every month of it.")
    monthly_fee_usd: float = Field(
        description="One instance's bill a month, USD (with VAT at `vat_rate`)."
    )
    time_factor: float = Field(description="Its GPU's hours per reference GPU-hour.")
    capacity_gpu_hours_per_month: float = Field(
        description="Reference GPU-hours one instance serves a month: GPUs x 730 h x "
        "`max_utilization` / `time_factor`."
    )
    as_of: dt.date | None = Field(description="Date of the price.")
    starts: list[str] = Field(
        description="`YYYY-MM` of each instance the plan commits (one entry per instance)."
    )


class PlanPurchase(BaseModel):
    """Desktops bought at the start of a month."""

    month: str = Field(description="`YYYY-MM`.")
    month_index: int = Field(description="0 = the plan's first month.")
    build_id: str = Field(description="Which candidate (`desktops[i]`).")
    units: int = Field(description="Units bought.")
    cost_usd: float = Field(description="units x upfront price, USD.")


class PlanMonth(BaseModel):
    """One month of the plan: demand, what owned desktops serve, what is rented, cash out."""

    month: str = Field(description="`YYYY-MM`.")
    demand_gpu_hours: float = Field(description="Demand, reference GPU-hours.")
    desktops_owned: int = Field(description="Desktops in service.")
    gpus_owned: int = Field(description="GPUs in service.")
    owned_capacity_gpu_hours: float = Field(
        description="Reference GPU-hours the owned desktops could serve."
    )
    served_owned_gpu_hours: float = Field(description="Reference GPU-hours they serve.")
    committed_instances: int = Field(description="Committed cloud instances in their term.")
    committed_capacity_gpu_hours: float = Field(
        description="Reference GPU-hours the committed instances could serve."
    )
    served_committed_gpu_hours: float = Field(description="Reference GPU-hours they serve.")
    rented_gpu_hours: float = Field(description="Reference GPU-hours rented from the cloud.")
    capex_usd: float = Field(description="Desktops bought this month, USD.")
    desktop_opex_usd: float = Field(description="Desktops' electricity, USD.")
    commitment_usd: float = Field(description="Committed instances' monthly bills, USD.")
    cloud_usd: float = Field(description="Cloud rent by the hour, USD.")
    cash_usd: float = Field(description="capex + opex + commitments + cloud, USD.")
    cumulative_usd: float = Field(description="Cash out so far, USD.")


class PlanStrategy(BaseModel):
    """One way to meet the demand, totalled."""

    strategy: StrategyName = Field(
        description="`plan` (the optimum mix), `all_cloud` (rent every hour), `all_desktop` "
        "(own for the peak, no cloud; the optimum such fleet)."
    )
    feasible: bool = Field(description="Whether it meets the demand within the limits.")
    note: str | None = Field(description="Why not, or what it rests on.")
    total_usd: float | None = Field(description="Cash out over the horizon, USD.")
    present_value_usd: float | None = Field(description="Present value of that cash, USD.")
    capex_usd: float | None = Field(description="Desktops bought, USD.")
    desktop_opex_usd: float | None = Field(description="Desktops' electricity, USD.")
    commitment_usd: float | None = Field(description="Cloud commitments' bills, USD.")
    cloud_usd: float | None = Field(description="Cloud rent by the hour, USD.")
    desktops_bought: int | None = Field(description="Desktops bought.")
    rented_gpu_hours: float | None = Field(description="Reference GPU-hours rented.")
    total_in_currency: float | None = Field(description="`total_usd` in the answer's currency.")
    cumulative_usd: list[float] | None = Field(description="Cash out so far, by month, USD.")


class PlanResult(BaseModel):
    """The plan, month by month, and the three strategies side by side. `all_desktop` owns
    for the peak with neither hourly cloud nor commitments."""

    reference_gpu_id: str = Field(description="GPU the demand is measured on.")
    start_month: str = Field(description="First month, `YYYY-MM`.")
    horizon_months: int = Field(description="Months planned.")
    demand_gpu_hours: float = Field(description="Demand over the horizon, reference GPU-hours.")
    peak_gpu_hours: float = Field(description="Highest month's demand, reference GPU-hours.")
    electricity_price_usd_per_kwh: float = Field(description="Desktops' electricity, USD/kWh.")
    max_utilization: float = Field(description="Most of a month an owned GPU serves work.")
    annual_discount_rate: float = Field(description="Rate of the present values, per year.")
    vat_rate: float = Field(
        description="VAT added to the amounts, fraction (0: none, or `tax_exempt`)."
    )
    feasible: bool = Field(
        description="Whether a plan meets the demand within the limits (false: `note` says "
        "why; `schedule` and `purchases` are empty)."
    )
    note: str | None = Field(description="Why there is no plan, when there is none.")
    optimal: bool = Field(
        description="Whether the solver proved the plan optimal (within 0.01 %) in its time "
        "limit; if not, `mip_gap` bounds how far from the optimum it can be."
    )
    mip_gap: float | None = Field(
        description="(plan PV - lower bound) / plan PV; 0 when optimal, null without a plan."
    )
    solve_time_s: float = Field(description="Wall-clock time the solver took, s.")
    desktops: list[PlanBuild] = Field(description="The candidate desktops.")
    cloud: PlanCloud | None = Field(description="The cloud, null when not used.")
    commitments: list[PlanCommitment] = Field(
        description="The cloud commitments the plan may take on (empty: none)."
    )
    purchases: list[PlanPurchase] = Field(description="What the plan buys and when.")
    schedule: list[PlanMonth] = Field(description="The plan month by month.")
    strategies: list[PlanStrategy] = Field(description="plan, all_cloud, all_desktop.")
    savings_vs_all_cloud_usd: float | None = Field(
        description="all_cloud total - plan total, USD (null when not comparable)."
    )
    savings_vs_all_desktop_usd: float | None = Field(
        description="all_desktop total - plan total, USD (null when all_desktop is infeasible)."
    )
    currency_rate: CurrencyRate = Field(description="Rate behind `*_in_currency`.")
    warnings: list[str] = Field(description="What the plan does not account for.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
