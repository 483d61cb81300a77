"""A fleet plan as tables: the month-by-month schedule as CSV, and a workbook (XLSX, openpyxl)
with the summary, schedule, purchases, candidate desktops, sensitivity, assumptions and
sources, one sheet each. Money in USD (the summary adds the answer's currency)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.models.answers import Assumption, SourceRef
from app.models.cash_flow import CashFlowResult, CashFlowRow
from app.models.plan import PlanResult

USD_FORMAT = '"$"#,##0.00'
HOURS_FORMAT = "#,##0.0"

# (header, field of PlanMonth, number format)
SCHEDULE_COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("month", "month", None),
    ("demand_gpu_hours", "demand_gpu_hours", HOURS_FORMAT),
    ("desktops_owned", "desktops_owned", "0"),
    ("gpus_owned", "gpus_owned", "0"),
    ("owned_capacity_gpu_hours", "owned_capacity_gpu_hours", HOURS_FORMAT),
    ("served_owned_gpu_hours", "served_owned_gpu_hours", HOURS_FORMAT),
    ("committed_instances", "committed_instances", "0"),
    ("served_committed_gpu_hours", "served_committed_gpu_hours", HOURS_FORMAT),
    ("rented_gpu_hours", "rented_gpu_hours", HOURS_FORMAT),
    ("capex_usd", "capex_usd", USD_FORMAT),
    ("desktop_opex_usd", "desktop_opex_usd", USD_FORMAT),
    ("commitment_usd", "commitment_usd", USD_FORMAT),
    ("cloud_usd", "cloud_usd", USD_FORMAT),
    ("cash_usd", "cash_usd", USD_FORMAT),
    ("cumulative_usd", "cumulative_usd", USD_FORMAT),
)

# Sensitivity steps: gpucost's choice of what-ifs, not forecasts.
CLOUD_STEPS = (0.75, 1.25)
ELECTRICITY_STEPS = (0.5, 1.5)


@dataclass(frozen=True)
class Sensitivity:
    """One what-if: its label and the three strategies' totals (USD; None when a strategy
    has no plan), with the plan's purchases held fixed."""

    label: str
    plan_usd: float | None
    all_cloud_usd: float | None
    all_desktop_usd: float | None


def sensitivity(res: PlanResult) -> list[Sensitivity]:
    """Totals when the cloud's price (hourly rent and commitments alike) or the electricity
    price moves, each strategy's
    purchases and hours held as planned (re-costed, not re-optimised)."""

    def total(strategy: str, cloud: float, power: float) -> float | None:
        s = next(x for x in res.strategies if x.strategy == strategy)
        if s.total_usd is None:
            return None
        return (
            (s.capex_usd or 0.0)
            + (s.desktop_opex_usd or 0.0) * power
            + ((s.cloud_usd or 0.0) + (s.commitment_usd or 0.0)) * cloud
        )

    cases = [("as planned", 1.0, 1.0)]
    cases += [(f"cloud price x {f:g}", f, 1.0) for f in CLOUD_STEPS]
    cases += [(f"electricity price x {f:g}", 1.0, f) for f in ELECTRICITY_STEPS]
    return [
        Sensitivity(
            label,
            total("plan", fc, fe),
            total("all_cloud", fc, fe),
            total("all_desktop", fc, fe),
        )
        for label, fc, fe in cases
    ]


def schedule_csv(res: PlanResult) -> bytes:
    """The schedule, one row per month (UTF-8, header row, ``,`` separated)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([h for h, _, _ in SCHEDULE_COLUMNS])
    for m in res.schedule:
        writer.writerow([getattr(m, f) for _, f, _ in SCHEDULE_COLUMNS])
    return buf.getvalue().encode()


def summary_rows(res: PlanResult) -> list[tuple[str, Any]]:
    """The summary sheet's label / value rows."""
    rate = res.currency_rate
    rows: list[tuple[str, Any]] = [
        ("reference GPU", res.reference_gpu_id),
        ("first month", res.start_month),
        ("horizon (months)", res.horizon_months),
        ("demand (GPU-hours)", res.demand_gpu_hours),
        ("peak month (GPU-hours)", res.peak_gpu_hours),
        ("electricity (USD/kWh)", res.electricity_price_usd_per_kwh),
        ("owned GPU busy at most", res.max_utilization),
        ("annual discount rate", res.annual_discount_rate),
        ("cloud", res.cloud.label if res.cloud else "none"),
        ("plan found", "yes" if res.feasible else f"no: {res.note}"),
        ("proved optimal", "yes" if res.optimal else f"no (gap {res.mip_gap})"),
        ("prices as of", res.prices.prices_as_of.isoformat()),
        (f"exchange rate (USD per {rate.currency})", rate.usd_per_unit),
    ]
    for s in res.strategies:
        rows.append((f"{s.strategy}: total (USD)", s.total_usd if s.feasible else s.note))
        rows.append((f"{s.strategy}: present value (USD)", s.present_value_usd))
        if rate.currency != "USD":
            rows.append((f"{s.strategy}: total ({rate.currency})", s.total_in_currency))
    return rows


def workbook(res: PlanResult) -> bytes:
    """The plan as an XLSX workbook (openpyxl): Summary, Schedule, Purchases, Desktops,
    Sensitivity, Assumptions, Sources and Warnings sheets; money cells formatted as USD."""
    from openpyxl import Workbook

    wb = Workbook()
    summary = wb.active
    summary.title = "Summary"
    _fill(summary, ["item", "value"], [list(r) for r in summary_rows(res)], {})
    _fill(
        wb.create_sheet("Schedule"),
        [h for h, _, _ in SCHEDULE_COLUMNS],
        [[getattr(m, f) for _, f, _ in SCHEDULE_COLUMNS] for m in res.schedule],
        {i: fmt for i, (_, _, fmt) in enumerate(SCHEDULE_COLUMNS) if fmt},
    )
    _fill(
        wb.create_sheet("Purchases"),
        ["month", "desktop", "units", "cost_usd"],
        [[p.month, _label(res, p.build_id), p.units, p.cost_usd] for p in res.purchases],
        {3: USD_FORMAT},
    )
    _fill(
        wb.create_sheet("Desktops"),
        ["id", "desktop", "upfront_usd", "capacity_gpu_hours_per_month",
         "cost_usd_per_gpu_hour", "busy_power_w", "life_months", "units_bought"],
        [[d.id, d.label, d.upfront_usd, d.capacity_gpu_hours_per_month,
          d.cost_usd_per_gpu_hour, d.busy_power_w, d.life_months, d.units_bought]
         for d in res.desktops],
        {2: USD_FORMAT, 3: HOURS_FORMAT, 4: '"$"#,##0.0000'},
    )  # fmt: skip
    _fill(
        wb.create_sheet("Sensitivity"),
        ["what if", "plan_usd", "all_cloud_usd", "all_desktop_usd"],
        [[s.label, s.plan_usd, s.all_cloud_usd, s.all_desktop_usd] for s in sensitivity(res)],
        {1: USD_FORMAT, 2: USD_FORMAT, 3: USD_FORMAT},
    )
    _references(wb, res.assumptions, res.sources, res.warnings)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _label(res: PlanResult, build_id: str) -> str:
    return next((d.label for d in res.desktops if d.id == build_id), build_id)


def _cell(value: Any) -> Any:
    """A value a spreadsheet cell holds: lists joined, other non-scalars as text."""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _fill(
    ws: Any, header: Sequence[str], rows: Sequence[Sequence[Any]], formats: dict[int, str]
) -> None:
    """Header (bold, frozen), rows, number formats by column index, column widths."""
    from openpyxl.styles import Font

    ws.append(list(header))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    for row in rows:
        ws.append(list(row))
    for col, fmt in formats.items():
        for (cell,) in ws.iter_rows(min_row=2, min_col=col + 1, max_col=col + 1):
            cell.number_format = fmt
    for i, name in enumerate(header):
        longest = max([len(str(name)), *(len(str(r[i])) for r in rows if r[i] is not None)])
        ws.column_dimensions[ws.cell(row=1, column=i + 1).column_letter].width = min(
            80, longest + 2
        )


CASH_FLOW_COLUMNS = tuple(CashFlowRow.model_fields)


def cash_flow_csv(res: CashFlowResult) -> bytes:
    """The cash flow, one row per period (UTF-8, header row)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CASH_FLOW_COLUMNS)
    for row in res.rows:
        writer.writerow([getattr(row, c) for c in CASH_FLOW_COLUMNS])
    return buf.getvalue().encode()


def cash_flow_workbook(res: CashFlowResult) -> bytes:
    """The cash flow as an XLSX workbook: Summary, Cash flow, Assumptions, Sources and
    Warnings sheets; money cells formatted as USD."""
    from openpyxl import Workbook

    wb = Workbook()
    summary = wb.active
    summary.title = "Summary"
    rows: list[list[Any]] = [
        ["first month", res.start_month],
        ["months", res.months],
        ["annual discount rate", res.annual_discount_rate],
        ["depreciation (years, straight-line)", res.depreciation_years],
        ["desktop electricity per month (USD)", res.desktop_usd_per_month],
        ["cloud per month (USD)", res.cloud_usd_per_month],
        ["break-even (days)", res.break_even_days],
        ["desktop total (USD)", res.desktop_total_usd],
        ["cloud total (USD)", res.cloud_total_usd],
        ["desktop NPV (USD)", res.desktop_npv_usd],
        ["cloud NPV (USD)", res.cloud_npv_usd],
        ["NPV saving of buying (USD)", res.npv_saving_usd],
        ["prices as of", res.prices.prices_as_of.isoformat()],
    ]
    _fill(summary, ["item", "value"], rows, {})
    _fill(
        wb.create_sheet("Cash flow"),
        list(CASH_FLOW_COLUMNS),
        [[getattr(r, c) for c in CASH_FLOW_COLUMNS] for r in res.rows],
        {i: USD_FORMAT for i, c in enumerate(CASH_FLOW_COLUMNS) if c.endswith("_usd")},
    )
    _references(wb, res.assumptions, res.sources, res.warnings)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _references(
    wb: Any,
    assumptions: Sequence[Assumption],
    sources: Sequence[SourceRef],
    warnings: Sequence[str],
) -> None:
    """The Assumptions, Sources and Warnings sheets."""
    _fill(
        wb.create_sheet("Assumptions"),
        ["name", "value", "source"],
        [[a.name, _cell(a.value), a.source] for a in assumptions],
        {},
    )
    _fill(
        wb.create_sheet("Sources"),
        ["what", "source", "as_of"],
        [[s.what, s.source, s.as_of.isoformat() if s.as_of else None] for s in sources],
        {},
    )
    _fill(wb.create_sheet("Warnings"), ["warning"], [[w] for w in warnings], {})
