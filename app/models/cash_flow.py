"""``POST /v1/cash-flow``: a break-even scenario as money over time, month by month or year
by year: both sides' cash out, cumulative, present value, and the desktop's accounting
depreciation beside its market value. Money in USD."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.costing import defaults
from app.models.answers import Assumption, CurrencyRate, PriceAge, SourceRef
from app.models.break_even import SEED_EXAMPLE, USAGE_RULES, BreakEvenRequest
from app.models.common import OMITTED, amount_field, described
from app.models.inputs import STRICT, StrictBody, discount_rate_field, tax_exempt_field


class AdminTime(StrictBody):
    """Staff time looking after the desktop."""

    hours_per_month: float = Field(ge=0, le=744, description="Hours a month.")
    usd_per_hour: float = Field(ge=0, le=10_000, description="Loaded cost of an hour, USD.")


class CloudStorage(StrictBody):
    """Datasets and checkpoints kept in the cloud."""

    gb: float = Field(ge=0, le=10_000_000, description="Data kept, GB.")
    usd_per_gb_month: float = Field(ge=0, le=100, description="Price, USD per GB-month.")


class CloudEgress(StrictBody):
    """Data moved out of the cloud."""

    gb_per_month: float = Field(ge=0, le=10_000_000, description="GB a month.")
    usd_per_gb: float = Field(ge=0, le=100, description="Price, USD per GB.")


class OptionalCosts(StrictBody):
    """Costs budget officers ask about, each off unless given (your figures: gpucost ships
    no defaults for them). Desktop side: admin time, cooling, failures; cloud side: storage
    and egress of datasets and checkpoints."""

    admin: AdminTime = Field(default=OMITTED, description="Staff time for the desktop.")
    cooling_overhead: float | None = amount_field(
        "Extra electricity for cooling the desktop's room, as a fraction of its "
        "own (0.3 = 30 % more).",
        le=2,
        default=None,
    )
    annual_failure_rate: float | None = amount_field(
        "Share of the GPUs that fail a year; each is replaced at the GPUs' price "
        "(the expected cost, spread evenly).",
        le=1,
        default=None,
    )
    storage: CloudStorage = Field(default=OMITTED, description="Cloud storage.")
    egress: CloudEgress = Field(default=OMITTED, description="Cloud egress.")


class CashFlowRequest(BreakEvenRequest):
    """A `/v1/break-even` request and how to lay its money out over time."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={"allOf": USAGE_RULES, "examples": [{**SEED_EXAMPLE, "period": "year"}]},
    )

    months: int | None = Field(
        default=None,
        ge=1,
        le=120,
        description="Months laid out; default: until the machine is sold "
        "(`desktop.resell_after_years`), else its lifetime (`desktop.lifetime_years`). A "
        "machine sold earlier stops the cash flow at its sale.",
    )
    period: Literal["month", "year"] = Field(
        default="month", description="Rows per month, or per year of 12 months."
    )
    annual_discount_rate: float | None = discount_rate_field()
    tax_exempt: bool | None = tax_exempt_field(
        "the purchase, cloud cost and a catalog non-household electricity price (the resale "
        "stays net)"
    )
    optional_costs: OptionalCosts = Field(
        default=OMITTED,
        description="Admin time, cooling, failures (desktop) and storage, egress (cloud); "
        "each off unless given.",
    )
    depreciation_years: int | None = described(
        "Straight-line write-off period of the desktop, years. ",
        defaults.DEPRECIATION,
        default=None,
        ge=1,
        le=10,
    )


class CashFlowRow(BaseModel):
    """One period: each side's cash out, cumulative, present value so far, and the desktop's
    book and market value at its end."""

    period: str = Field(description="`YYYY-MM`, or `YYYY-MM..YYYY-MM` for a year.")
    desktop_capex_usd: float = Field(description="The purchase, USD (first period).")
    desktop_opex_usd: float = Field(description="Electricity, USD.")
    desktop_extras_usd: float = Field(
        description="Optional desktop costs (admin, cooling, failures), USD."
    )
    desktop_resale_usd: float = Field(description="Resale, USD (negative: money in).")
    desktop_cash_usd: float = Field(description="capex + opex + resale, USD.")
    desktop_cumulative_usd: float = Field(description="Desktop cash out so far, USD.")
    depreciation_usd: float = Field(description="Straight-line depreciation booked, USD.")
    book_value_usd: float = Field(description="Accounting value at the period's end, USD.")
    market_value_usd: float = Field(
        description="The GPUs' market value at the period's end (depreciation curve; barebone "
        "at 0), USD."
    )
    cloud_extras_usd: float = Field(description="Optional cloud costs (storage, egress), USD.")
    cloud_cash_usd: float = Field(
        description="Cloud cost for the same work and its optional costs, USD."
    )
    cloud_cumulative_usd: float = Field(description="Cloud cash out so far, USD.")
    desktop_present_value_usd: float = Field(description="PV of the desktop's cash so far, USD.")
    cloud_present_value_usd: float = Field(description="PV of the cloud's cash so far, USD.")


class CashFlowResult(BaseModel):
    """The scenario's money over time and its totals."""

    start_month: str = Field(description="The purchase month, `YYYY-MM`.")
    months: int = Field(description="Months laid out.")
    period: Literal["month", "year"] = Field(description="What a row is.")
    annual_discount_rate: float = Field(description="Rate of the present values, per year.")
    depreciation_years: int = Field(description="Straight-line write-off period, years.")
    vat_rate: float = Field(description="VAT added to the amounts, fraction (0: none).")
    desktop_usd_per_month: float = Field(description="Desktop electricity per month, USD.")
    cloud_usd_per_month: float = Field(description="Cloud cost per month, USD.")
    break_even_days: float | None = Field(description="From `/v1/break-even`.")
    rows: list[CashFlowRow]
    desktop_total_usd: float = Field(description="Desktop cash out over the months, USD.")
    cloud_total_usd: float = Field(description="Cloud cash out over the months, USD.")
    desktop_npv_usd: float = Field(description="Present value of the desktop's cash, USD.")
    cloud_npv_usd: float = Field(description="Present value of the cloud's cash, USD.")
    npv_saving_usd: float = Field(description="cloud_npv - desktop_npv: > 0, buying is cheaper.")
    currency_rate: CurrencyRate
    warnings: list[str] = Field(description="What the cash flow does not account for.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PriceAge
