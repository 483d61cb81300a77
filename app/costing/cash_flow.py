"""Money over time for one desktop-vs-cloud scenario: month by month, each side's cash out,
cumulative cash, present value at a discount rate, the desktop's accounting book value
(straight-line depreciation) beside its market value (the depreciation curve of its GPUs),
and the resale when the machine is sold. Pure: plain numbers in, plain numbers out.

Units: USD; months of 365/12 days; cash counted at the end of each month except the purchase,
paid at the start of month 1; month ``t`` is discounted by ``(1 + rate) ** (-t / 12)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.costing import defaults
from app.costing.errors import InvalidInput


@dataclass(frozen=True)
class CashFlowInputs:
    """One scenario's money, per month.

    Attributes:
        upfront_usd: the desktop's purchase, paid at the start (>= 0).
        desktop_usd_per_month: its running cost (electricity), USD a month (>= 0).
        cloud_usd_per_month: the cloud's cost for the same work, USD a month (>= 0).
        months: months shown (>= 1).
        annual_discount_rate: per year, >= 0.
        depreciation_months: straight-line write-off period of the purchase (>= 1).
        gpu_value_usd: what the GPUs were bought for (their market value at month 0).
        annual_decay: the GPUs' market value falls as ``exp(-annual_decay x years)``; the
            barebone's market value is counted as 0 (no used-price source).
        resale_month: the month the machine is sold at the end of (None: not sold).
        resale_value_usd: what it sells for.
        desktop_extra_usd_per_month: optional desktop costs a month (admin time, cooling,
            expected failure replacements), USD (>= 0).
        cloud_extra_usd_per_month: optional cloud costs a month (storage, egress), USD.
    """

    upfront_usd: float
    desktop_usd_per_month: float
    cloud_usd_per_month: float
    months: int
    annual_discount_rate: float = 0.0
    depreciation_months: int = round(defaults.DEPRECIATION.number * 12)
    gpu_value_usd: float = 0.0
    annual_decay: float = 0.0
    resale_month: int | None = None
    resale_value_usd: float = 0.0
    desktop_extra_usd_per_month: float = 0.0
    cloud_extra_usd_per_month: float = 0.0

    def __post_init__(self) -> None:
        money = (
            self.upfront_usd,
            self.desktop_usd_per_month,
            self.cloud_usd_per_month,
            self.desktop_extra_usd_per_month,
            self.cloud_extra_usd_per_month,
        )
        if not all(math.isfinite(x) and x >= 0 for x in money):
            raise InvalidInput("cash-flow amounts must be finite and >= 0")
        if self.months < 1 or self.depreciation_months < 1:
            raise InvalidInput("months and depreciation_months must be >= 1")
        if not (math.isfinite(self.annual_discount_rate) and self.annual_discount_rate >= 0):
            raise InvalidInput("annual_discount_rate must be >= 0", field="annual_discount_rate")


@dataclass(frozen=True)
class CashFlowMonth:
    """Month ``month`` (1 = the first): each side's cash out in the month and so far (the
    desktop's resale is a negative cash out in the month it is sold), the desktop's book value
    and the depreciation booked in the month, its market value, and the present value of each
    side's cash so far."""

    month: int
    desktop_capex_usd: float
    desktop_opex_usd: float
    desktop_extras_usd: float
    desktop_resale_usd: float
    desktop_cash_usd: float
    desktop_cumulative_usd: float
    depreciation_usd: float
    book_value_usd: float
    market_value_usd: float
    cloud_extras_usd: float
    cloud_cash_usd: float
    cloud_cumulative_usd: float
    desktop_present_value_usd: float
    cloud_present_value_usd: float


def discount(month: int, annual_rate: float) -> float:
    """The factor of cash at the end of ``month`` (0 = now)."""
    return float((1.0 + annual_rate) ** (-month / 12.0))


def cash_flow(c: CashFlowInputs) -> list[CashFlowMonth]:
    """The months of ``c``; the last row's cumulative and present values are the totals."""
    rows: list[CashFlowMonth] = []
    desk_cum = cloud_cum = desk_pv = cloud_pv = 0.0
    per_month_dep = c.upfront_usd / c.depreciation_months
    book = c.upfront_usd
    desk_pv += c.upfront_usd  # paid at the start
    for t in range(1, c.months + 1):
        f = discount(t, c.annual_discount_rate)
        capex = c.upfront_usd if t == 1 else 0.0
        resale = -c.resale_value_usd if c.resale_month == t else 0.0
        dep = min(per_month_dep, book)
        book -= dep
        desk_run = c.desktop_usd_per_month + c.desktop_extra_usd_per_month
        cloud_cash = c.cloud_usd_per_month + c.cloud_extra_usd_per_month
        desk_cash = capex + desk_run + resale
        desk_cum += desk_cash
        cloud_cum += cloud_cash
        desk_pv += (desk_run + resale) * f
        cloud_pv += cloud_cash * f
        rows.append(
            CashFlowMonth(
                month=t,
                desktop_capex_usd=capex,
                desktop_opex_usd=c.desktop_usd_per_month,
                desktop_extras_usd=c.desktop_extra_usd_per_month,
                desktop_resale_usd=resale,
                desktop_cash_usd=desk_cash,
                desktop_cumulative_usd=desk_cum,
                depreciation_usd=dep,
                book_value_usd=max(book, 0.0),
                market_value_usd=c.gpu_value_usd * math.exp(-c.annual_decay * t / 12.0),
                cloud_extras_usd=c.cloud_extra_usd_per_month,
                cloud_cash_usd=cloud_cash,
                cloud_cumulative_usd=cloud_cum,
                desktop_present_value_usd=desk_pv,
                cloud_present_value_usd=cloud_pv,
            )
        )
    return rows
