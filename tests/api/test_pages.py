"""The web calculator's pages (``GET /``, ``GET /break-even``): seed 001 through the form,
problems beside their fields, no inline script, the answer's sources and a link that reproduces it."""

from __future__ import annotations

import re

import pytest

from app.costing import defaults
from tests.pages_html import scripts_are_only_vendored
from tests.seed_values import SEED_001_DAYS

SEED_FORM = {
    "gpu": "rtx-3090",
    "total_price_usd": "2200",
    "price_usd_per_hour": "2.14",
    "utilization": "15",
    "electricity_price_usd_per_kwh": "0.12",
}


def _answer(page: str) -> str:
    found = re.findall(r'class="answer"[^>]*>([^<]*)<', page)
    return found[0] if found else ""


def _errors(page: str) -> list[str]:
    return re.findall(r'class="error"[^>]*>([^<]*)<', page)


def test_the_front_page_links_the_calculator_and_the_api(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert 'href="/break-even"' in r.text and 'href="/docs"' in r.text
    assert "<script" not in r.text  # the front page needs none
    csp = r.headers["content-security-policy"]
    assert "script-src 'self';" in csp  # the calculators' vendored htmx, from this origin
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "unsafe-eval" not in csp


def test_seed_001_through_the_form(client):
    """Seed 001 (Tim Dettmers, 2020): $2,200 RTX 3090 desktop, $2.14/h AWS V100 spot, 15 %,
    $0.12/kWh: 292.96 days (seed-facts.md), with its assumptions and sources on the page."""
    r = client.get("/break-even", params=SEED_FORM)
    assert r.status_code == 200, _errors(r.text)
    assert _answer(r.text) == f"Break-even after {SEED_001_DAYS:.2f} days"
    assert "<h2>Assumptions</h2>" in r.text and "<h2>Sources</h2>" in r.text
    assert "<svg" in r.text and scripts_are_only_vendored(r.text)
    link = re.search(r'href="(/break-even\?[^"]+)">/break-even', r.text).group(1)
    again = client.get(link.replace("&amp;", "&"))
    assert _answer(again.text) == _answer(r.text)  # the link reproduces the answer
    api = client.post("/v1/break-even", json={
        "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
        "cloud": {"price_usd_per_hour": 2.14}, "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }).json()  # fmt: skip
    assert f"{api['break_even_days']:,.2f}" in _answer(r.text)


def test_an_empty_cloud_side_takes_the_comparable_offer_and_says_so(client):
    r = client.get("/break-even", params={"gpu": "rtx-3090"})
    assert r.status_code == 200, _errors(r.text)
    chosen = re.search(r"used: ([^<;]+)", r.text).group(1).strip()
    assert chosen in r.text.split("<h2>Assumptions</h2>")[1]  # the default, stated
    api = client.get("/v1/query", params={"q": "break-even for 3090 at 15% util"}).json()
    assert api["request"]["cloud"]["offer_id"] == chosen  # the API's and chat's rule


def test_problems_are_shown_beside_their_fields(client):
    bad = client.get("/break-even", params={**SEED_FORM, "utilization": "150"})
    assert bad.status_code == 422
    field = bad.text.split('id="f-utilization"')[1].split("</div>")[0]
    assert 'aria-invalid="true"' in field and "less than or equal to 1" in field
    text = client.get("/break-even", params={**SEED_FORM, "total_price_usd": "a lot"})
    assert (
        text.status_code == 422 and "valid number" in text.text.split('id="f-total_price_usd"')[1]
    )
    unknown = client.get("/break-even", params={"gpu": "rtx-9999"})
    assert unknown.status_code == 404 and "rtx-9999" in _errors(unknown.text)[0]
    assert 'value="rtx-9999"' in unknown.text  # the form keeps what was typed


def test_the_empty_form_shows_the_engines_defaults(client):
    """Seed 001's defaults (Tim Dettmers, 2020: 15 % utilization, $0.12/kWh) and one GPU are
    shown in the fields a person leaves empty."""
    page = client.get("/break-even").text
    for field, shown in (("gpu_count", "1"), ("utilization", "15"),
                         ("electricity_price_usd_per_kwh", "0.12")):  # fmt: skip
        tag = re.search(rf'<input id="f-{field}"[^>]*>', page).group(0)
        assert f'placeholder="{shown}"' in tag


def test_the_carbon_page_answers_as_the_api(client):
    """8 H100 SXM for 100 busy hours in California: the page's energy and emissions are
    /v1/carbon's for the same request, and its link reproduces it."""
    form = {"gpu": "h100-sxm", "gpu_count": "8", "hours": "100", "region": "us-ca"}
    r = client.get("/carbon", params=form)
    assert r.status_code == 200, _errors(r.text)
    api = client.post(
        "/v1/carbon", json={"gpu": "h100-sxm", "gpu_count": 8, "hours": 100, "region": "us-ca"}
    ).json()
    assert _answer(r.text).startswith(
        f"{api['co2e_kg']:,.1f} kg CO2e from {api['energy_kwh']:,.1f} kWh at "
        f"{api['carbon_intensity_g_per_kwh']:,.0f} gCO2e/kWh"
    )
    # 8 GPUs at their TDP and the default host (seed 001's 100 W), for 100 hours, x PUE
    tdp = client.get("/v1/gpus/h100-sxm").json()["tdp_w"]
    assert api["power_w"] == pytest.approx(8 * tdp + defaults.BASE_POWER.number)
    assert api["energy_kwh"] == pytest.approx(api["power_w"] * 100 * api["pue"] / 1000)
    assert "<h2>Sources</h2>" in r.text and "POST /v1/carbon" in r.text
    link = re.search(r'href="(/carbon\?[^"]+)">/carbon', r.text).group(1)
    assert _answer(client.get(link.replace("&amp;", "&")).text) == _answer(r.text)


def test_the_carbon_page_shows_problems_beside_their_fields(client):
    both = client.get("/carbon", params={"gpu": "a100", "hours": "10", "days": "3"})
    assert both.status_code == 422 and _errors(both.text)
    unknown = client.get("/carbon", params={"gpu": "rtx-9999", "hours": "10"})
    assert unknown.status_code == 404 and "rtx-9999" in _errors(unknown.text)[0]
    assert 'href="/carbon"' in client.get("/").text


def test_the_llm_page_answers_as_the_api(client):
    """LoRA of Llama 3.1 8B on 100M tokens on an RTX 4090 or an H100 SXM: the page lists the
    API's memory, time and cost for each GPU; LoRA's FLOPs are 4·N·D (Hu et al. 2021)."""
    form = {"model": "llama-3.1-8b", "task": "lora", "tokens": "100000000",
            "gpus": "rtx-4090, h100-sxm"}  # fmt: skip
    r = client.get("/llm", params=form)
    assert r.status_code == 200, _errors(r.text)
    api = client.post(
        "/v1/llm/estimate",
        json={"model": "llama-3.1-8b", "task": "lora", "tokens": 1e8,
              "gpus": ["rtx-4090", "h100-sxm"]},
    ).json()  # fmt: skip
    assert api["flops"] == pytest.approx(4 * 8e9 * 1e8, rel=1e-2)  # 8B parameters, 100M tokens
    for e in api["estimates"]:
        row = r.text.split(f'<th scope="row">{e["gpu_id"]}</th>')[1].split("</tr>")[0]
        assert f"{e['memory_gb_per_gpu']:.1f} GB per GPU" in row
        assert f"{e['runtime_s'] / 3600:,.1f} h" in row
    assert "POST /v1/llm/estimate" in r.text


def test_the_llm_page_shows_an_unknown_model_beside_the_form(client):
    r = client.get("/llm", params={"model": "llama-9", "task": "lora", "tokens": "1000"})
    assert r.status_code in (404, 422) and _errors(r.text)
    assert 'value="llama-9"' in r.text


def test_an_answer_downloads_as_csv_and_xlsx(client):
    """Seed 001's answer as a file for the budget office: the headline (292.96 days), every
    assumption with its source, every source, and the address that reproduces it."""
    import csv
    import io

    from openpyxl import load_workbook

    page = client.get("/break-even", params=SEED_FORM).text
    assert "download=csv" in page and "download=xlsx" in page
    r = client.get("/break-even", params={**SEED_FORM, "download": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0] == ["Part", "Name", "Value", "Source", "As of"]
    assert rows[1][:3] == ["Answer", "headline", f"Break-even after {SEED_001_DAYS:.2f} days"]
    api = client.post("/v1/break-even", json={
        "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
        "cloud": {"price_usd_per_hour": 2.14}, "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }).json()  # fmt: skip
    assumed = {row[1]: row[3] for row in rows if row[0] == "Assumption"}
    assert assumed == {a["name"]: a["source"] for a in api["assumptions"]}
    assert sum(row[0] == "Source" for row in rows) == len(api["sources"])
    address = next(row[2] for row in rows if row[:2] == ["Cite", "address"])
    assert _answer(client.get(address).text) == f"Break-even after {SEED_001_DAYS:.2f} days"
    x = client.get("/carbon", params={"gpu": "a100", "hours": "10", "download": "xlsx"})
    assert x.status_code == 200 and "spreadsheetml" in x.headers["content-type"]
    sheet = load_workbook(io.BytesIO(x.content))["Answer"]
    assert sheet["A2"].value == "Answer" and "kg CO2e" in sheet["C2"].value
