"""A chargeback for the finance office: one row per account (its total) and per user
within it, as CSV or as a workbook (XLSX, openpyxl) with Chargeback, Machines, Unread lines,
Assumptions, Sources and Warnings sheets. Money in USD."""

from __future__ import annotations

import csv
import io
from typing import Any

from app.models.chargeback import ChargebackResult, ChargeFigures
from app.render.report_tables import HOURS_FORMAT, _fill, _references, csv_cell, money_format

CHARGE_COLUMNS = (
    "Account",
    "User",
    "Jobs",
    "GPU-hours",
    "Owned cost (USD)",
    "Rented cost (USD)",
    "Energy (kWh)",
    "CO2e (kg)",
    "Budget (USD)",
    "Budget left (USD)",
)
MACHINE_COLUMNS = (
    "Partition",
    "Cluster",
    "Site",
    "GPU",
    "GPUs",
    "Capacity (GPU-hours)",
    "Used (GPU-hours)",
    "Utilization",
    "Idle share",
    "Owned rate (USD/GPU-hour)",
    "Rented rate (USD/GPU-hour)",
    "Comparable offer",
    "Grid region",
    "Electricity (USD/kWh)",
    "kg CO2e per GPU-hour",
)


def _figures(f: ChargeFigures) -> list[Any]:
    return [f.jobs, f.gpu_hours, f.owned_cost_usd, f.rented_cost_usd, f.energy_kwh, f.co2e_kg]


def charge_rows(res: ChargebackResult) -> list[list[Any]]:
    """Each account's total (``User`` "(all)", with its budget and what is left of it) then
    its users, and the total of all."""
    rows: list[list[Any]] = []
    for a in res.accounts:
        rows.append([a.account, "(all)", *_figures(a), a.budget_usd, a.budget_left_usd])
        rows += [[a.account, u.user, *_figures(u), None, None] for u in a.users]
    rows.append(["(all)", "(all)", *_figures(res.total), None, None])
    return rows


def chargeback_csv(res: ChargebackResult) -> bytes:
    """:func:`charge_rows` as CSV (UTF-8, header first; text that starts like a formula is
    quoted with ``'``)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CHARGE_COLUMNS)
    for row in charge_rows(res):
        writer.writerow([csv_cell(v) for v in row])
    return buf.getvalue().encode()


def chargeback_workbook(res: ChargebackResult) -> bytes:
    """The chargeback as a workbook (see the module)."""
    from openpyxl import Workbook

    money = money_format("USD")
    wb = Workbook()
    ws = wb.active
    ws.title = "Chargeback"
    _fill(
        ws,
        CHARGE_COLUMNS,
        charge_rows(res),
        {3: HOURS_FORMAT, 4: money, 5: money, 8: money, 9: money},
    )
    machines = [
        [
            m.partition,
            m.cluster,
            m.site,
            m.gpu_id,
            m.gpus,
            m.capacity_gpu_hours,
            m.gpu_hours,
            m.utilization,
            m.idle_share,
            m.owned_usd_per_gpu_hour,
            m.rented_usd_per_gpu_hour,
            m.offer_id,
            m.grid_region,
            m.electricity_price_usd_per_kwh,
            m.co2e_kg_per_gpu_hour,
        ]
        for m in res.machines
    ]
    _fill(
        wb.create_sheet("Machines"),
        MACHINE_COLUMNS,
        machines,
        {
            5: HOURS_FORMAT,
            6: HOURS_FORMAT,
            7: "0.0%",
            8: "0.0%",
            9: money,
            10: money,
            13: "0.0000",
            14: "0.0000",
        },
    )
    unread = [[u.line, u.reason] for u in res.unread]
    _fill(wb.create_sheet("Unread lines"), ["Line", "Why"], unread, {})
    _references(wb, res.assumptions, res.sources, res.warnings)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
