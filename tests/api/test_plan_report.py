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
    # the electricity the workbook states is Eurostat's band IC price at the ECB rate
    usd_per_kwh = eurostat_eur_per_kwh("DE", "non-household", "2025-S2") * ecb.half_year(
        "EUR", 2025, 2
    )
    assert summary["electricity (USD/kWh)"] == pytest.approx(usd_per_kwh, rel=1e-5)
    totals = {s["strategy"]: s for s in plan["strategies"]}
    for name, s in totals.items():
        assert summary[f"{name}: total (USD)"] == s["total_usd"]
        assert summary[f"{name}: total (EUR)"] == s["total_in_currency"]
    header = [c.value for c in wb["Schedule"][1]]
    cash, cumulative = header.index("cash_usd"), header.index("cumulative_usd")
    schedule = list(wb["Schedule"].iter_rows(min_row=2, values_only=True))
    assert len(schedule) == 36 and schedule[0][0] == "2027-01" and schedule[-1][0] == "2029-12"
    assert sum(row[cash] for row in schedule) == pytest.approx(totals["plan"]["total_usd"])
    assert wb["Schedule"].cell(2, cumulative + 1).number_format == '"$"#,##0.00'
    purchases = list(wb["Purchases"].iter_rows(min_row=2, values_only=True))
    assert [(p[0], p[2]) for p in purchases] == [
        (p["month"], p["units"]) for p in plan["purchases"]
    ]
    names = [row[0] for row in wb["Assumptions"].iter_rows(min_row=2, values_only=True)]
    assert names == [a["name"] for a in plan["assumptions"]]


def test_sensitivity_recosts_the_plan(client, plan):
    wb = load_workbook(io.BytesIO(_report(client, "xlsx").content))
    rows = {r[0]: r[1:] for r in wb["Sensitivity"].iter_rows(min_row=2, values_only=True)}
    p = plan["strategies"][0]
    # purchases held: capex + electricity x f + cloud x f
    assert rows["as planned"][0] == pytest.approx(p["total_usd"])
    assert rows["cloud price x 1.25"][0] == pytest.approx(
        p["capex_usd"] + p["desktop_opex_usd"] + 1.25 * p["cloud_usd"]
    )
    assert rows["electricity price x 0.5"][0] == pytest.approx(
        p["capex_usd"] + 0.5 * p["desktop_opex_usd"] + p["cloud_usd"]
    )


def test_csv_is_the_schedule(client, plan):
    r = _report(client, "csv")
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["month"] for row in rows] == [m["month"] for m in plan["schedule"]]
    assert sum(float(row["cash_usd"]) for row in rows) == pytest.approx(
        plan["strategies"][0]["total_usd"]
    )


def test_html_report_states_question_answer_and_sources(client, plan):
    r = _report(client, "html")
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    p = plan["strategies"][0]
    assert f"${p['total_usd']:,.2f}" in page and "NeurIPS deadline" in page
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
    assert f"${plan['strategies'][0]['total_usd']:,.2f}" in dom.stdout
    assert ":CONSOLE" not in dom.stderr
