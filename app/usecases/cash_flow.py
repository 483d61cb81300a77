"""Cash flow (``POST /v1/cash-flow``): the break-even scenario (:func:`break_even.resolve`, every
default stated there) laid out over time by the pure model (:mod:`app.costing.cash_flow`):
per month or year, both sides' cash, cumulative and present value, the desktop's straight-line
book value beside the market value of its GPUs."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.cash_flow import CashFlowInputs, CashFlowMonth, cash_flow
from app.costing.sourced import Assumed, Caveat, Cited, Note, Sourced
from app.models.cash_flow import CashFlowRequest, CashFlowResult, CashFlowRow, OptionalCosts
from app.settings import Settings
from app.steps.desktop import age_at_purchase, note_catalog_gpu_price
from app.steps.discount import resolve_discount_rate
from app.steps.site import resolve_region
from app.steps.tax import Tax, resolve_tax
from app.steps.trail import LIFETIME_SOURCE, Provenance, currency_rate, sig8
from app.usecases import break_even

DEFAULT_DEPRECIATION_YEARS = round(defaults.DEPRECIATION.number)
MONTH_DAYS = costing.DAYS_PER_YEAR / 12.0


@dataclass(frozen=True)
class CashFlowScenario:
    """The break-even scenario and the cash flow's own inputs: the first month, the model's
    inputs (with VAT at ``vat_rate``, the resale net), the rows' ``period`` (``month`` or
    ``year``) and what it rests on (the break-even's, extended)."""

    be: break_even.BreakEvenScenario
    start: dt.date
    inputs: CashFlowInputs
    vat_rate: float
    period: Literal["month", "year"]
    provenance: Provenance


def resolve(view: CatalogView, req: CashFlowRequest, settings: Settings) -> CashFlowScenario:
    """The scenario of ``req``: the break-even's, then the months, rate and write-off."""
    s = break_even.resolve(view, req, settings)
    notes, desk = list(s.provenance.notes), s.desk
    result = costing.break_even(
        desk.desktop,
        s.cloud.rate,
        s.usage,
        s.electricity_price_usd_per_kwh,
        cloud_time_factor=s.speed.time_factor if s.speed else 1.0,
    )
    resale_month = (
        max(1, round(desk.resale.years * 12))
        if desk.resale is not None and desk.resale.years is not None
        else None
    )
    months = req.months or resale_month or max(1, round(desk.desktop.lifetime_years * 12))
    if resale_month is not None and months > resale_month:
        sold = (
            f"the machine is sold at the end of month {resale_month}: the cash flow stops there "
            f"({months} months asked)"
        )
        notes.append(Caveat(sold))
        months = resale_month
    rate, noted = resolve_discount_rate(view, req.annual_discount_rate)
    notes += noted
    dep = req.depreciation_years
    if dep is None:
        dep = DEFAULT_DEPRECIATION_YEARS
        notes.append(
            Assumed("depreciation_years", dep, f"default: straight-line, {LIFETIME_SOURCE}")
        )
    (gpu_value, decay), noted = _market(view, s, req)
    notes += noted
    region = resolve_region(view, req.region)
    tax, noted = resolve_tax(view, req.tax_exempt, req, region)
    notes += noted
    power_month = result.desktop.cost_usd_per_day * MONTH_DAYS * tax.electricity_factor
    (desk_extra, cloud_extra), noted = _optional(req.optional_costs, s, power_month, tax)
    notes += noted
    inputs = CashFlowInputs(
        upfront_usd=desk.desktop.upfront_usd * tax.factor,
        desktop_usd_per_month=power_month,
        cloud_usd_per_month=result.cloud.cost_usd_per_day * MONTH_DAYS * tax.factor,
        desktop_extra_usd_per_month=desk_extra,
        cloud_extra_usd_per_month=cloud_extra,
        months=months,
        annual_discount_rate=rate,
        depreciation_months=dep * 12,
        gpu_value_usd=gpu_value,
        annual_decay=decay,
        resale_month=resale_month if resale_month and resale_month <= months else None,
        resale_value_usd=desk.resale.value_usd if desk.resale else 0.0,
    )
    start = desk.resale.purchase_date if desk.resale else view.day
    provenance = Provenance(tuple(notes), s.provenance.rule)
    return CashFlowScenario(s, start, inputs, tax.rate, req.period, provenance)


def _optional(
    extra: OptionalCosts | None,
    s: break_even.BreakEvenScenario,
    power_month: float,
    tax: Tax,
) -> Sourced[tuple[float, float]]:
    """Optional costs a month (USD), desktop then cloud side, each stated: admin time, cooling
    (a share of the electricity), expected GPU replacements (rate x the GPUs' price / 12, with
    VAT); cloud storage and egress (with VAT)."""
    notes: list[Note] = []
    if extra is None:
        return Sourced((0.0, 0.0), tuple(notes))
    desk = cloud = 0.0
    if extra.admin is not None:
        desk += extra.admin.hours_per_month * extra.admin.usd_per_hour
        notes.append(
            Assumed("optional_costs.admin", "given", "staff time x its cost, desktop side")
        )
    if extra.cooling_overhead is not None:
        desk += power_month * extra.cooling_overhead
        notes.append(Assumed("optional_costs.cooling_overhead", extra.cooling_overhead, "given"))
    if extra.annual_failure_rate is not None:
        d = s.desk
        if d.gpu_price_usd is None:
            notes.append(
                Caveat("annual_failure_rate given, but the GPUs' price is unknown: not costed")
            )
        else:
            gpus = d.gpu_price_usd * d.desktop.gpu_count * tax.factor
            desk += extra.annual_failure_rate * gpus / 12.0
            notes.append(
                Assumed(
                    "optional_costs.annual_failure_rate",
                    extra.annual_failure_rate,
                    f"given; replacements at the GPUs' price (${gpus:,.2f} for all of them)",
                )
            )
    if extra.storage is not None:
        cloud += extra.storage.gb * extra.storage.usd_per_gb_month * tax.factor
        notes.append(
            Assumed("optional_costs.storage", "given", "GB x USD per GB-month, cloud side")
        )
    if extra.egress is not None:
        cloud += extra.egress.gb_per_month * extra.egress.usd_per_gb * tax.factor
        notes.append(
            Assumed("optional_costs.egress", "given", "GB a month x USD per GB, cloud side")
        )
    return Sourced((desk, cloud), tuple(notes))


def _market(
    view: CatalogView,
    s: break_even.BreakEvenScenario,
    req: CashFlowRequest,
) -> Sourced[tuple[float, float]]:
    """The GPUs' value when bought (USD) and the annual decay of their class's depreciation
    curve; (0, 0) when the GPUs' price is unknown (stated)."""
    notes: list[Note] = []
    desk = s.desk
    if desk.gpu_price_usd is None:
        notes.append(
            Assumed(
                "market_value_usd", 0, "no GPU price to value the machine: market value shown as 0"
            )
        )
        return Sourced((0.0, 0.0), tuple(notes))
    notes += note_catalog_gpu_price(req.desktop, desk.gpu, "desktop", view.day).notes
    curve, note = view.depreciation_curve(desk.gpu)
    purchase = desk.resale.purchase_date if desk.resale else view.day
    age, age_note = age_at_purchase(view, desk.gpu, purchase)
    held = desk.resale.years if desk.resale and desk.resale.years else desk.desktop.lifetime_years
    decay = curve.annual_decay(held, age)
    notes.append(
        Assumed(
            "market_value_usd",
            f"{desk.desktop.gpu_count} x ${desk.gpu_price_usd:g} x exp(-{decay:.4f} x years owned)",
            f"the GPUs' class depreciation curve ({note}), as the constant rate that matches "
            f"r({age + held:.2f} y) / r({age:.2f} y) over {held:g} years owned; {age_note}; the "
            "barebone is counted at 0 (no used-price source)",
        )
    )
    notes.append(Cited(f"market value: depreciation curve ({note})", curve.source, None))
    return Sourced((desk.gpu_price_usd * desk.desktop.gpu_count, decay), tuple(notes))


def compute_cash_flow(
    view: CatalogView, req: CashFlowRequest, settings: Settings
) -> CashFlowResult:
    """The cash flow of ``req``; see :class:`CashFlowResult`."""
    return compose(resolve(view, req, settings))


def compose(c: CashFlowScenario) -> CashFlowResult:
    """The answer to scenario ``c``, from it alone: its months grouped by ``c.period``."""
    months = cash_flow(c.inputs)
    be = break_even.compose(c.be)
    per = 12 if c.period == "year" else 1
    rows = [_row(c, months[i : i + per]) for i in range(0, len(months), per)]
    last = months[-1]
    return CashFlowResult(
        start_month=_label(c.start, 1),
        months=len(months),
        period=c.period,
        annual_discount_rate=c.inputs.annual_discount_rate,
        depreciation_years=c.inputs.depreciation_months // 12,
        vat_rate=c.vat_rate,
        desktop_usd_per_month=sig8(c.inputs.desktop_usd_per_month),
        cloud_usd_per_month=sig8(c.inputs.cloud_usd_per_month),
        break_even_days=be.break_even_days,
        rows=rows,
        desktop_total_usd=sig8(last.desktop_cumulative_usd),
        cloud_total_usd=sig8(last.cloud_cumulative_usd),
        desktop_npv_usd=sig8(last.desktop_present_value_usd),
        cloud_npv_usd=sig8(last.cloud_present_value_usd),
        npv_saving_usd=sig8(last.cloud_present_value_usd - last.desktop_present_value_usd),
        currency_rate=currency_rate(c.be.rate),
        **c.provenance.fields(),
    )


def _label(start: dt.date, month: int) -> str:
    """``YYYY-MM`` of month ``month`` (1 = the month of ``start``)."""
    y, m = divmod(start.month - 1 + month - 1, 12)
    return f"{start.year + y:04d}-{m + 1:02d}"


def _row(c: CashFlowScenario, span: list[CashFlowMonth]) -> CashFlowRow:
    """One period from its months: flows summed, stocks at the period's end."""
    first, last = span[0], span[-1]
    period = _label(c.start, first.month)
    if len(span) > 1:
        period += ".." + _label(c.start, last.month)

    def total(name: str) -> float:
        return sig8(float(sum(getattr(m, name) for m in span)))

    return CashFlowRow(
        period=period,
        desktop_capex_usd=total("desktop_capex_usd"),
        desktop_opex_usd=total("desktop_opex_usd"),
        desktop_extras_usd=total("desktop_extras_usd"),
        desktop_resale_usd=total("desktop_resale_usd"),
        desktop_cash_usd=total("desktop_cash_usd"),
        desktop_cumulative_usd=sig8(last.desktop_cumulative_usd),
        depreciation_usd=total("depreciation_usd"),
        book_value_usd=sig8(last.book_value_usd),
        market_value_usd=sig8(last.market_value_usd),
        cloud_extras_usd=total("cloud_extras_usd"),
        cloud_cash_usd=total("cloud_cash_usd"),
        cloud_cumulative_usd=sig8(last.cloud_cumulative_usd),
        desktop_present_value_usd=sig8(last.desktop_present_value_usd),
        cloud_present_value_usd=sig8(last.cloud_present_value_usd),
    )
