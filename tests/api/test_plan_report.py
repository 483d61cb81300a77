"""``POST /v1/plan/report``: the plan a budget office files, as XLSX, CSV and a printable HTML
page, checked against the JSON plan and the sources it rests on, and the page rendered in a
real headless browser (Debian's chromium): no console errors, the figures on screen."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess

import pytest
from openpyxl import load_workbook
from PIL import Image

from tests import ecb
from tests.api.test_plan_api import WORKED
from tests.electricity_sources import eurostat_eur_per_kwh

# The walkthrough: 300 GPU-hours a month for three years, a peak before a deadline,
# Germany, university (non-household tariff, no VAT), answered in euros too.
WALKTHROUGH = {**WORKED, "tariff": "non_household", "currency": "EUR"}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _report(client, fmt: str):
    r = client.post("/v1/plan/report", params={"format": fmt}, json=WALKTHROUGH)
    assert r.status_code == 200, r.text
    return r


@pytest.fixture(scope="module")
def plan(engine):
    from fastapi.testclient import TestClient

    from app.main import app

    with TestClient(app) as c:
        return c.post("/v1/plan", json=WALKTHROUGH).json()


def test_xlsx_files_the_plan(client, plan):
    r = _report(client, "xlsx")
    assert r.headers["content-disposition"] == (
        'attachment; filename="gpucost-plan-rtx-4090-2027-01-36m.xlsx"'
    )
    wb = load_workbook(io.BytesIO(r.content))
    assert wb.sheetnames == [
        "Summary", "Schedule", "Purchases", "Desktops", "Sensitivity", "Assumptions",
        "Sources", "Warnings",
    ]  # fmt: skip
    summary = {row[0]: row[1] for row in wb["Summary"].iter_rows(min_row=2, values_only=True)}
    eur_usd = plan["currency_rate"]["usd_per_unit"]
    assert eur_usd == pytest.approx(ecb.latest_half_year("EUR")[0], rel=1e-5)
    # the electricity the workbook states is Eurostat's band IC price (EUR/kWh) as published:
    # a euro answer converts it nowhere (issue 48)
    eur_per_kwh = eurostat_eur_per_kwh("DE", "non-household", "2025-S2")
    assert summary["Electricity (EUR/kWh)"] == pytest.approx(eur_per_kwh, rel=1e-7)
    totals = {s["strategy"]: s for s in plan["strategies"]}
    names = {"plan": "Plan", "all_cloud": "All cloud", "all_desktop": "All desktop"}
    for key, s in totals.items():
        assert summary[f"{names[key]}: total (EUR)"] == pytest.approx(s["total_in_currency"])
    # a budget officer's summary: the answer in a sentence (in euros), the budget
    assert summary["Answer"].startswith("Buy ") and "\u20ac" in summary["Answer"]
    assert "$" not in summary["Answer"] and "-" not in summary["Answer"].split(":")[-1][:3]
    assert summary["Budget for desktops"] == "none"
    summary_cells = {r[0].value: r[1] for r in wb["Summary"].iter_rows(min_row=2)}
    assert summary_cells["Plan: total (EUR)"].number_format == '"\u20ac"#,##0.00'
    header = [c.value for c in wb["Schedule"][1]]
    assert not any("_" in h for h in header)  # human headers
    cash, cumulative = header.index("Cash out (EUR)"), header.index("Cumulative (EUR)")
    schedule = list(wb["Schedule"].iter_rows(min_row=2, values_only=True))
    assert len(schedule) == 36 and schedule[0][0] == "2027-01" and schedule[-1][0] == "2029-12"
    assert sum(row[cash] for row in schedule) == pytest.approx(
        totals["plan"]["total_usd"] / eur_usd
    )
    assert wb["Schedule"].cell(2, cumulative + 1).number_format == '"\u20ac"#,##0.00'
    purchases = list(wb["Purchases"].iter_rows(min_row=2, values_only=True))
    assert [(p[0], p[2]) for p in purchases] == [
        (p["month"], p["units"]) for p in plan["purchases"]
    ]
    names = [row[0] for row in wb["Assumptions"].iter_rows(min_row=2, values_only=True)]
    assert names == [a["name"] for a in plan["assumptions"]]


def test_sensitivity_recosts_the_plan(client, plan):
    wb = load_workbook(io.BytesIO(_report(client, "xlsx").content))
    rows = {r[0]: r[1:] for r in wb["Sensitivity"].iter_rows(min_row=2, values_only=True)}
    p, eur_usd = plan["strategies"][0], plan["currency_rate"]["usd_per_unit"]
    # purchases held: capex + electricity x f + cloud x f (in euros, as asked)
    assert rows["as planned"][0] == pytest.approx(p["total_usd"] / eur_usd)
    assert rows["cloud price x 1.25"][0] == pytest.approx(
        (p["capex_usd"] + p["desktop_opex_usd"] + 1.25 * p["cloud_usd"]) / eur_usd
    )
    assert rows["electricity price x 0.5"][0] == pytest.approx(
        (p["capex_usd"] + 0.5 * p["desktop_opex_usd"] + p["cloud_usd"]) / eur_usd
    )


def test_csv_is_the_schedule(client, plan):
    r = _report(client, "csv")
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["month"] for row in rows] == [m["month"] for m in plan["schedule"]]
    assert sum(float(row["cash_eur"]) for row in rows) == pytest.approx(
        plan["strategies"][0]["total_in_currency"], rel=1e-6
    )


def test_html_report_states_question_answer_and_sources(client, plan):
    r = _report(client, "html")
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    p = plan["strategies"][0]
    assert f"\u20ac{p['total_in_currency']:,.2f}" in page and "NeurIPS deadline" in page
    assert "(USD)" not in page and "(EUR)" in page  # every amount in the requested currency
    assert "<svg" in page and "<script" not in page
    for a in plan["assumptions"]:
        assert a["name"] in page
    assert plan["sources"][0]["source"].split(" ")[0] in page


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("GPUCOST_REQUIRE_BROWSER"),
    reason="chromium not installed (CI installs it: scripts/ensure_chromium.sh)",
)
def test_html_report_in_a_real_browser(client, plan, tmp_path):
    assert CHROMIUM, "GPUCOST_REQUIRE_BROWSER is set but chromium is missing"
    page = tmp_path / "plan.html"
    page.write_bytes(_report(client, "html").content)
    shot = tmp_path / "plan.png"
    flags = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
        "--v=0", "--hide-scrollbars", "--window-size=900,2400",
    ]  # fmt: skip
    done = subprocess.run(
        [*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert ":CONSOLE" not in done.stderr  # no console errors, no failed loads
    img = Image.open(shot)
    assert img.size == (900, 2400)
    assert len(img.convert("RGB").getcolors(maxcolors=1_000_000)) > 50  # not blank
    dom = subprocess.run(
        [*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=90
    )
    assert f"\u20ac{plan['strategies'][0]['total_in_currency']:,.2f}" in dom.stdout
    assert ":CONSOLE" not in dom.stderr


def test_a_dearer_plan_is_said_to_cost_more_not_negative_less():
    # A plan dearer than an alternative (a negative saving) reads "$13.37 more than", never
    # "$-13.37 less than" (the sentence a budget officer files).
    from app.models.answers import CurrencyRate
    from app.render.report_html import Money, compared

    usd = Money(CurrencyRate(currency="USD", usd_per_unit=1.0, as_of=None, source=None))
    assert compared(usd, -13.37, "renting everything") == "$13.37 more than renting everything"
    assert compared(usd, 10, "owning for the peak") == "$10.00 less than owning for the peak"
    assert compared(usd, 0.001, "x") == "the same as x"
    chf = Money(CurrencyRate(currency="CHF", usd_per_unit=1.25, as_of=None, source=None))
    assert chf(-2500) == "-2,000.00 CHF"


def test_reports_and_charts_compute_their_plan_where_plans_run(client, plan, monkeypatch):
    """Issue 48: plan reports and plan charts computed their plan in the worker (+184-271 MB
    per flood), although `/v1/plan` computes it in a drawing process. Now each asks for its
    plan the way `/v1/plan` does (``Heavy.run_apart``: a drawing process when the worker has
    them), and writes or draws the same plan."""
    from app.api.deps import Heavy

    asked = []
    real = Heavy.run_apart

    async def recorded(self, apart_fn, fn, req, *rest, **kw):
        asked.append(apart_fn.__name__)
        return await real(self, apart_fn, fn, req, *rest, **kw)

    monkeypatch.setattr(Heavy, "run_apart", recorded)
    report = _report(client, "csv")
    rows = list(csv.DictReader(io.StringIO(report.text)))
    assert [row["month"] for row in rows] == [m["month"] for m in plan["schedule"]]
    chart = client.post("/v1/charts/plan", params={"format": "svg"}, json=WALKTHROUGH)
    assert chart.status_code == 200 and chart.headers["content-type"].startswith("image/svg")
    assert asked == ["plan", "plan"]
