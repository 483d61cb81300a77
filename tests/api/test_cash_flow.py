"""``POST /v1/cash-flow`` and its report: seed 001's desktop and cloud laid out over time.
Expected values are worked out from the seed's figures (seed_values.SEED_001), NVIDIA's launch
price in the catalog's source file and the formulas a budget office uses (straight-line
depreciation, discounting), not from the service's output."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from app.catalog.sources.files import CURATED, SOURCES, read_csv
from tests import ecb
from tests.curated import purchase_usd
from tests.seed_values import SEED_001 as S

SEED = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": S["desktop_usd"]},
    "cloud": {"price_usd_per_hour": S["cloud_usd_per_hour"], "gpu": "v100-16gb"},
    "utilization": S["utilization"],
    "electricity_price_usd_per_kwh": S["usd_per_kwh"],
}
MONTH_H = 24 * 365 / 12
CLOUD_MONTH = S["cloud_usd_per_hour"] * S["utilization"] * MONTH_H
DESK_MONTH = (S["gpu_w"] + S["cpu_w"]) / 1000 * S["utilization"] * MONTH_H * S["usd_per_kwh"]


def green_book_rate() -> float:
    """HM Treasury's standard STPR for years 0-30, read from the vendored greenbook file."""
    rows = read_csv(SOURCES / "greenbook" / "stpr_schedule.csv")
    return float(next(r["standard"] for r in rows if r["year_from"] == "0"))


def _flow(client, **changes):
    r = client.post("/v1/cash-flow", json={**SEED, **changes})
    assert r.status_code == 200, r.text
    return r.json()


def test_seed_monthly_amounts_and_totals(client):
    res = _flow(client)
    assert res["cloud_usd_per_month"] == pytest.approx(CLOUD_MONTH)
    assert res["desktop_usd_per_month"] == pytest.approx(DESK_MONTH)
    # default: the desktop's 5-year lifetime, month by month
    assert res["months"] == 60 and len(res["rows"]) == 60
    assert res["desktop_total_usd"] == pytest.approx(S["desktop_usd"] + 60 * DESK_MONTH)
    assert res["cloud_total_usd"] == pytest.approx(60 * CLOUD_MONTH)
    # default rate: the Green Book's standard STPR for years 0-30, from the shipped file
    r = green_book_rate()
    assert res["annual_discount_rate"] == r == 0.035
    pv = sum((1 + r) ** (-t / 12) for t in range(1, 61))
    saving = (CLOUD_MONTH - DESK_MONTH) * pv - S["desktop_usd"]
    assert res["npv_saving_usd"] == pytest.approx(saving)
    rate = next(a for a in res["assumptions"] if a["name"] == "annual_discount_rate")
    assert "default" in rate["source"] and "Green Book" in rate["source"]
    assert any("Green Book" in s["source"] for s in res["sources"])
    assert res["break_even_days"] == pytest.approx(
        S["desktop_usd"] / ((CLOUD_MONTH - DESK_MONTH) / (365 / 12)), abs=0.005
    )
    names = {a["name"] for a in res["assumptions"]}
    assert {"annual_discount_rate", "depreciation_years", "market_value_usd"} <= names
    first = res["rows"][0]
    assert first["desktop_capex_usd"] == S["desktop_usd"]
    assert first["period"] == res["start_month"]


def test_straight_line_depreciation(client):
    rows = _flow(client)["rows"]
    for t in (1, 12, 30, 60):  # 5 years: 1/60 of the price a month
        assert rows[t - 1]["book_value_usd"] == pytest.approx(S["desktop_usd"] * (1 - t / 60))
    rows = _flow(client, depreciation_years=3)["rows"]
    assert rows[35]["book_value_usd"] == pytest.approx(0, abs=1e-6)
    assert sum(r["depreciation_usd"] for r in rows) == pytest.approx(S["desktop_usd"])


def test_market_value_follows_the_gpus_curve(client):
    rows = _flow(client, period="year")["rows"]
    row = next(r for r in read_csv(CURATED / "gpus.csv") if r["id"] == "rtx-3090")
    launch = purchase_usd(row)  # the GPU's newest dated price: its value when bought
    values = [launch] + [r["market_value_usd"] for r in rows]
    ratios = [b / a for a, b in zip(values, values[1:], strict=False)]
    # exp(-k) a year: the same ratio every year, below 1
    assert all(r == pytest.approx(ratios[0], rel=1e-6) for r in ratios) and ratios[0] < 1


def test_discounting(client):
    r = 0.05
    res = _flow(client, annual_discount_rate=r)
    pv = [(1 + r) ** (-t / 12) for t in range(1, 61)]
    assert res["cloud_npv_usd"] == pytest.approx(CLOUD_MONTH * sum(pv))
    assert res["desktop_npv_usd"] == pytest.approx(S["desktop_usd"] + DESK_MONTH * sum(pv))


def test_years_sum_the_months(client):
    months = _flow(client)["rows"]
    years = _flow(client, period="year")["rows"]
    assert len(years) == 5 and years[0]["period"].count("..") == 1
    for y, row in enumerate(years):
        span = months[12 * y : 12 * y + 12]
        assert row["cloud_cash_usd"] == pytest.approx(sum(m["cloud_cash_usd"] for m in span))
        assert row["book_value_usd"] == span[-1]["book_value_usd"]


def test_resale_ends_the_flow_with_money_in(client):
    body = {**SEED, "desktop": {"gpu": "rtx-3090", "resell_after_years": 3}}
    be = client.post("/v1/break-even", json=body).json()
    res = _flow(client, desktop=body["desktop"], months=48)
    assert res["months"] == 36  # sold at the end of month 36
    assert any("sold at the end of month 36" in w for w in res["warnings"])
    last = res["rows"][-1]
    assert last["desktop_resale_usd"] == pytest.approx(-be["resale"]["resale_value_usd"])


def test_cash_flow_files(client):
    r = client.post("/v1/cash-flow/report", params={"format": "csv"}, json=SEED)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 60
    assert sum(float(x["cloud_cash_usd"]) for x in rows) == pytest.approx(60 * CLOUD_MONTH)
    r = client.post("/v1/cash-flow/report", params={"format": "xlsx"}, json=SEED)
    assert r.headers["content-disposition"].startswith("attachment;")
    wb = load_workbook(io.BytesIO(r.content))
    assert wb.sheetnames == ["Summary", "Cash flow", "Assumptions", "Sources", "Warnings"]
    summary = {a: b for a, b in wb["Summary"].iter_rows(min_row=2, values_only=True)}
    assert summary["Cloud total (USD)"] == pytest.approx(60 * CLOUD_MONTH)
    assert wb["Cash flow"].max_row == 61
    header = [c.value for c in wb["Cash flow"][1]]
    cloud = header.index("Cloud cash (USD)") + 1
    assert wb["Cash flow"].cell(2, cloud).number_format == '"$"#,##0.00'


def test_cash_flow_files_in_the_requested_currency(client):
    eur_usd, _ = ecb.latest_half_year("EUR")
    body = {**SEED, "currency": "EUR"}
    r = client.post("/v1/cash-flow/report", params={"format": "csv"}, json=body)
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert sum(float(x["cloud_cash_eur"]) for x in rows) == pytest.approx(
        60 * CLOUD_MONTH / eur_usd, rel=1e-5
    )
    r = client.post("/v1/cash-flow/report", params={"format": "xlsx"}, json=body)
    wb = load_workbook(io.BytesIO(r.content))
    summary = {a: b for a, b in wb["Summary"].iter_rows(min_row=2, values_only=True)}
    assert summary["Cloud total (EUR)"] == pytest.approx(60 * CLOUD_MONTH / eur_usd, rel=1e-5)
    header = [c.value for c in wb["Cash flow"][1]]
    assert "Cloud cash (EUR)" in header and not any("USD" in str(h) for h in header)
    assert wb["Cash flow"].cell(2, header.index("Cloud cash (EUR)") + 1).number_format == (
        '"\u20ac"#,##0.00'
    )


def test_optional_costs_are_off_unless_given(client):
    plain = _flow(client)
    assert all(r["desktop_extras_usd"] == 0 and r["cloud_extras_usd"] == 0 for r in plain["rows"])
    extras = {
        "admin": {"hours_per_month": 2, "usd_per_hour": 50},
        "cooling_overhead": 0.3,
        "annual_failure_rate": 0.06,
        "storage": {"gb": 500, "usd_per_gb_month": 0.02},
        "egress": {"gb_per_month": 100, "usd_per_gb": 0.09},
    }
    res = _flow(client, optional_costs=extras)
    launch = purchase_usd(next(r for r in read_csv(CURATED / "gpus.csv") if r["id"] == "rtx-3090"))
    desk = 2 * 50 + 0.3 * DESK_MONTH + 0.06 * launch / 12
    cloud = 500 * 0.02 + 100 * 0.09
    row = res["rows"][1]
    assert row["desktop_extras_usd"] == pytest.approx(desk)
    assert row["cloud_extras_usd"] == pytest.approx(cloud)
    assert row["cloud_cash_usd"] == pytest.approx(CLOUD_MONTH + cloud)
    assert res["desktop_total_usd"] == pytest.approx(plain["desktop_total_usd"] + 60 * desk)
    assert res["cloud_total_usd"] == pytest.approx(plain["cloud_total_usd"] + 60 * cloud)
    named = {a["name"] for a in res["assumptions"]}
    assert {"optional_costs.admin", "optional_costs.storage", "optional_costs.egress"} <= named
