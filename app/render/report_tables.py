"""A fleet plan as tables: the month-by-month schedule as CSV, and a workbook (XLSX, openpyxl)
with the summary, schedule, purchases, candidate desktops, sensitivity, assumptions and
sources, one sheet each; a cash flow likewise. Money in the answer's currency (converted
from the answer's USD at its ``currency_rate``), formatted as money, under human headers."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.models.answers import Assumption, CurrencyRate, SourceRef
from app.models.cash_flow import CashFlowResult, CashFlowRow
from app.models.plan import PlanResult

HOURS_FORMAT = "#,##0.0"
MONEY = "money"  # a column's format: the answer's currency (see money_format)
# Currencies Excel shows with a symbol before the amount; any other gets its code after.
_SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3", "JPY": "\u00a5"}


def money_format(currency: str, decimals: int = 2) -> str:
    """An Excel number format for ``currency``: ``"$"#,##0.00``, ``"\u20ac"#,##0.00``,
    ``#,##0.00 "CHF"``."""
    digits = "#,##0" + ("." + "0" * decimals if decimals else "")
    symbol = _SYMBOLS.get(currency)
    return f'"{symbol}"{digits}' if symbol else f'{digits} "{currency}"'


def _in(rate: CurrencyRate, usd: float | None) -> float | None:
    """A USD amount in the answer's currency."""
    return None if usd is None else usd / rate.usd_per_unit


# (header, field of PlanMonth, number format); money headers end in " ({cur})"
SCHEDULE_COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("Month", "month", None),
    ("Demand (GPU-hours)", "demand_gpu_hours", HOURS_FORMAT),
    ("Desktops owned", "desktops_owned", "0"),
    ("GPUs owned", "gpus_owned", "0"),
    ("Owned capacity (GPU-hours)", "owned_capacity_gpu_hours", HOURS_FORMAT),
    ("Served by owned desktops (GPU-hours)", "served_owned_gpu_hours", HOURS_FORMAT),
    ("Committed instances", "committed_instances", "0"),
    ("Served by commitments (GPU-hours)", "served_committed_gpu_hours", HOURS_FORMAT),
    ("Rented (GPU-hours)", "rented_gpu_hours", HOURS_FORMAT),
    ("Desktop purchases", "capex_usd", MONEY),
    ("Desktop electricity", "desktop_opex_usd", MONEY),
    ("Commitments", "commitment_usd", MONEY),
    ("Cloud rent", "cloud_usd", MONEY),
    ("Cash out", "cash_usd", MONEY),
    ("Cumulative", "cumulative_usd", MONEY),
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
    """The schedule, one row per month (UTF-8, header row, ``,`` separated, CRLF line ends,
    text cells that start like a formula prefixed with ``'``: :func:`csv_cell`): the plan's
    field names, money in the answer's currency with the currency in the name
    (``cash_eur``; ``cash_usd`` in USD)."""
    rate = res.currency_rate
    suffix = "_" + rate.currency.lower()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator=CSV_LINE_END)
    writer.writerow(
        [f.removesuffix("_usd") + suffix if fmt == MONEY else f for _, f, fmt in SCHEDULE_COLUMNS]
    )
    for m in res.schedule:
        _csv_row(writer, _schedule_row(m, rate))
    return buf.getvalue().encode()


# RFC 4180's line end: a carriage return or line feed inside a text cell is then quoted.
CSV_LINE_END = "\r\n"
# OWASP "CSV Injection": text a spreadsheet program reads as a formula when it starts a cell.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that cannot run as a formula: text starting with one of
    :data:`FORMULA_TRIGGERS` gets a leading ``'`` (OWASP's rule), so a catalog ``source`` of
    ``=HYPERLINK(...)`` is shown, not evaluated; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def _csv_row(writer: Any, row: Sequence[Any]) -> None:
    writer.writerow([csv_cell(v) for v in row])


def _schedule_row(m: Any, rate: CurrencyRate) -> list[Any]:
    return [
        _in(rate, getattr(m, f)) if fmt == MONEY else getattr(m, f)
        for _, f, fmt in SCHEDULE_COLUMNS
    ]


STRATEGY_NAMES = {"plan": "Plan", "all_cloud": "All cloud", "all_desktop": "All desktop"}


def summary_rows(
    res: PlanResult, answer: str = "", budget_usd: float | None = None
) -> list[tuple[str, Any, str | None]]:
    """The summary sheet's label / value / number-format rows: the answer's sentence, the
    budget, the question's inputs and each strategy's totals, in the answer's currency."""
    rate = res.currency_rate
    cur, money = rate.currency, money_format(rate.currency)
    rows: list[tuple[str, Any, str | None]] = [
        ("Answer", answer or (res.note if not res.feasible else ""), None),
        ("Budget for desktops", _in(rate, budget_usd) if budget_usd is not None else "none",
         money if budget_usd is not None else None),
        ("Reference GPU", res.reference_gpu_id, None),
        ("First month", res.start_month, None),
        ("Horizon (months)", res.horizon_months, "0"),
        ("Demand (GPU-hours)", res.demand_gpu_hours, HOURS_FORMAT),
        ("Peak month (GPU-hours)", res.peak_gpu_hours, HOURS_FORMAT),
        (f"Electricity ({cur}/kWh)", _in(rate, res.electricity_price_usd_per_kwh),
         money_format(cur, 4)),
        ("Owned GPU busy at most", res.max_utilization, "0%"),
        ("Annual discount rate", res.annual_discount_rate, "0.0%"),
        ("Cloud", res.cloud.label if res.cloud else "none", None),
        ("Plan found", "yes" if res.feasible else f"no: {res.note}", None),
        ("Proved optimal", "yes" if res.optimal else f"no (gap {res.mip_gap})", None),
        ("Prices as of", res.prices.prices_as_of.isoformat(), None),
    ]  # fmt: skip
    if cur != "USD":
        rows.append((f"Exchange rate (USD per {cur})", rate.usd_per_unit, "0.0000"))
        rows.append(("Exchange rate source", f"{rate.source}, {rate.as_of}", None))
    for s in res.strategies:
        name = STRATEGY_NAMES.get(s.strategy, s.strategy)
        if s.feasible:
            rows.append((f"{name}: total ({cur})", _in(rate, s.total_usd), money))
            rows.append((f"{name}: present value ({cur})", _in(rate, s.present_value_usd), money))
        else:
            rows.append((f"{name}: total ({cur})", f"not possible: {s.note}", None))
    return rows


def workbook(res: PlanResult, answer: str = "", budget_usd: float | None = None) -> bytes:
    """The plan as an XLSX workbook (openpyxl): Summary (with ``answer``, the plan in one
    sentence, and the desktops' ``budget_usd``), Schedule, Purchases, Desktops, Sensitivity,
    Assumptions, Sources and Warnings sheets; money in the answer's currency, formatted."""
    from openpyxl import Workbook

    rate = res.currency_rate
    cur, money = rate.currency, money_format(rate.currency)
    wb = Workbook()
    summary = wb.active
    summary.title = "Summary"
    rows = summary_rows(res, answer, budget_usd)
    _fill(summary, ["Item", "Value"], [[label, value] for label, value, _ in rows], {})
    for i, (_, _, fmt) in enumerate(rows, start=2):
        if fmt:
            summary.cell(i, 2).number_format = fmt
    summary.column_dimensions["B"].width = 60
    summary.cell(2, 2).alignment = _wrap_text()
    _fill(
        wb.create_sheet("Schedule"),
        [f"{h} ({cur})" if fmt == MONEY else h for h, _, fmt in SCHEDULE_COLUMNS],
        [_schedule_row(m, rate) for m in res.schedule],
        {i: money if fmt == MONEY else fmt for i, (_, _, fmt) in enumerate(SCHEDULE_COLUMNS)
         if fmt},
    )  # fmt: skip
    _fill(
        wb.create_sheet("Purchases"),
        ["Month", "Desktop", "Units", f"Cost ({cur})"],
        [[p.month, _label(res, p.build_id), p.units, _in(rate, p.cost_usd)]
         for p in res.purchases],
        {3: money},
    )  # fmt: skip
    _fill(
        wb.create_sheet("Desktops"),
        ["Id", "Desktop", f"Price ({cur})", "Capacity (GPU-hours/month)",
         f"Electricity per GPU-hour ({cur})", "Busy power (W)", "Life (months)",
         "Units bought"],
        [[d.id, d.label, _in(rate, d.upfront_usd), d.capacity_gpu_hours_per_month,
          _in(rate, d.cost_usd_per_gpu_hour), d.busy_power_w, d.life_months, d.units_bought]
         for d in res.desktops],
        {2: money, 3: HOURS_FORMAT, 4: money_format(cur, 4), 5: "#,##0"},
    )  # fmt: skip
    _fill(
        wb.create_sheet("Sensitivity"),
        ["What if", f"Plan ({cur})", f"All cloud ({cur})", f"All desktop ({cur})"],
        [[s.label, _in(rate, s.plan_usd), _in(rate, s.all_cloud_usd),
          _in(rate, s.all_desktop_usd)] for s in sensitivity(res)],
        {1: money, 2: money, 3: money},
    )  # fmt: skip
    _references(wb, res.assumptions, res.sources, res.warnings)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _wrap_text() -> Any:
    from openpyxl.styles import Alignment

    return Alignment(wrap_text=True, vertical="top")


def _label(res: PlanResult, build_id: str) -> str:
    return next((d.label for d in res.desktops if d.id == build_id), build_id)


def _cell(value: Any) -> Any:
    """A value a spreadsheet cell holds: lists joined, other non-scalars as text."""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _text_only(cell: Any) -> None:
    """Text that starts like a formula (:data:`FORMULA_TRIGGERS`) is stored as text with
    Excel's quote prefix (openpyxl stores a string starting with ``=`` as a formula): shown
    as written, never evaluated, and still text when the cell is edited."""
    if isinstance(cell.value, str) and cell.value.startswith(FORMULA_TRIGGERS):
        cell.data_type = "s"
        cell.quotePrefix = True


def _fill(
    ws: Any, header: Sequence[str], rows: Sequence[Sequence[Any]], formats: dict[int, str]
) -> None:
    """Header (bold, frozen), rows (text that starts like a formula kept as text:
    :func:`_text_only`), number formats by column index, column widths."""
    from openpyxl.styles import Font

    ws.append(list(header))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    for row in rows:
        ws.append(list(row))
        for cell in ws[ws.max_row]:
            _text_only(cell)
    for col, fmt in formats.items():
        for (cell,) in ws.iter_rows(min_row=2, min_col=col + 1, max_col=col + 1):
            cell.number_format = fmt
    for i, name in enumerate(header):
        longest = max([len(str(name)), *(len(str(r[i])) for r in rows if r[i] is not None)])
        ws.column_dimensions[ws.cell(row=1, column=i + 1).column_letter].width = min(
            80, longest + 2
        )


CASH_FLOW_COLUMNS = tuple(CashFlowRow.model_fields)


def _cash_flow_header(column: str) -> str:
    """``desktop_capex_usd`` -> ``Desktop capex``."""
    text = column.removesuffix("_usd").replace("_", " ")
    return text[:1].upper() + text[1:]


def _cash_flow_row(row: CashFlowRow, rate: CurrencyRate) -> list[Any]:
    return [
        _in(rate, getattr(row, c)) if c.endswith("_usd") else getattr(row, c)
        for c in CASH_FLOW_COLUMNS
    ]


def cash_flow_csv(res: CashFlowResult) -> bytes:
    """The cash flow, one row per period (UTF-8, header row, CRLF line ends, formula-like
    text prefixed: :func:`csv_cell`): field names, money in the
    answer's currency with the currency in the name (``desktop_cash_eur``)."""
    rate = res.currency_rate
    suffix = "_" + rate.currency.lower()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator=CSV_LINE_END)
    writer.writerow(
        [c.removesuffix("_usd") + suffix if c.endswith("_usd") else c for c in CASH_FLOW_COLUMNS]
    )
    for row in res.rows:
        _csv_row(writer, _cash_flow_row(row, rate))
    return buf.getvalue().encode()


def cash_flow_workbook(res: CashFlowResult) -> bytes:
    """The cash flow as an XLSX workbook: Summary, Cash flow, Assumptions, Sources and
    Warnings sheets; money in the answer's currency, formatted."""
    from openpyxl import Workbook

    rate = res.currency_rate
    cur, money = rate.currency, money_format(rate.currency)
    wb = Workbook()
    summary = wb.active
    summary.title = "Summary"
    rows: list[tuple[str, Any, str | None]] = [
        ("First month", res.start_month, None),
        ("Months", res.months, "0"),
        ("Annual discount rate", res.annual_discount_rate, "0.0%"),
        ("Depreciation (years, straight-line)", res.depreciation_years, "0"),
        (f"Desktop electricity per month ({cur})", _in(rate, res.desktop_usd_per_month), money),
        (f"Cloud per month ({cur})", _in(rate, res.cloud_usd_per_month), money),
        ("Break-even (days)", res.break_even_days, "#,##0"),
        (f"Desktop total ({cur})", _in(rate, res.desktop_total_usd), money),
        (f"Cloud total ({cur})", _in(rate, res.cloud_total_usd), money),
        (f"Desktop NPV ({cur})", _in(rate, res.desktop_npv_usd), money),
        (f"Cloud NPV ({cur})", _in(rate, res.cloud_npv_usd), money),
        (f"NPV saving of buying ({cur})", _in(rate, res.npv_saving_usd), money),
        ("Prices as of", res.prices.prices_as_of.isoformat(), None),
    ]
    _fill(summary, ["Item", "Value"], [[label, value] for label, value, _ in rows], {})
    for i, (_, _, fmt) in enumerate(rows, start=2):
        if fmt:
            summary.cell(i, 2).number_format = fmt
    _fill(
        wb.create_sheet("Cash flow"),
        [f"{_cash_flow_header(c)} ({cur})" if c.endswith("_usd") else _cash_flow_header(c)
         for c in CASH_FLOW_COLUMNS],
        [_cash_flow_row(r, rate) for r in res.rows],
        {i: money for i, c in enumerate(CASH_FLOW_COLUMNS) if c.endswith("_usd")},
    )  # fmt: skip
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
        ["Name", "Value", "Source"],
        [[a.name, _cell(a.value), a.source] for a in assumptions],
        {},
    )
    _fill(
        wb.create_sheet("Sources"),
        ["What", "Source", "As of"],
        [[s.what, s.source, s.as_of.isoformat() if s.as_of else None] for s in sources],
        {},
    )
    _fill(wb.create_sheet("Warnings"), ["Warning"], [[w] for w in warnings], {})


ANSWER_COLUMNS = ("Part", "Name", "Value", "Source", "As of")


def answer_rows(
    headline: str,
    figures: Sequence[tuple[str, str]],
    assumptions: Sequence[Assumption],
    sources: Sequence[SourceRef],
    cite: Sequence[tuple[str, str]],
) -> list[list[Any]]:
    """A calculator's answer as rows of :data:`ANSWER_COLUMNS`: the headline, its key
    figures, every assumption with its source, every source with its date, and how to cite
    it (catalog revision, prices' date, day computed, address)."""
    rows: list[list[Any]] = [["Answer", "headline", headline, None, None]]
    rows += [["Figure", label, value, None, None] for label, value in figures]
    rows += [["Assumption", a.name, _cell(a.value), a.source, None] for a in assumptions]
    rows += [
        ["Source", s.what, None, s.source, s.as_of.isoformat() if s.as_of else None]
        for s in sources
    ]
    rows += [["Cite", key, value, None, None] for key, value in cite]
    return rows


def answer_csv(rows: Sequence[Sequence[Any]]) -> bytes:
    """:func:`answer_rows` as CSV (UTF-8, header first; formula-like text quoted)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(ANSWER_COLUMNS)
    for row in rows:
        _csv_row(writer, row)
    return buf.getvalue().encode()


def answer_workbook(rows: Sequence[Sequence[Any]], warnings: Sequence[str]) -> bytes:
    """:func:`answer_rows` as a workbook: one "Answer" sheet and a "Warnings" sheet."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Answer"
    _fill(ws, ANSWER_COLUMNS, rows, {})
    _fill(wb.create_sheet("Warnings"), ["Warning"], [[w] for w in warnings], {})
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
