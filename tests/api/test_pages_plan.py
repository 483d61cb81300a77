"""The fleet plan calculator page (``GET /plan``): the same plan as ``POST /v1/plan``, peak
rows added without JavaScript, problems beside the peak row they are about."""

from __future__ import annotations

import re

from tests.pages_html import scripts_are_only_vendored

PLAN = {
    "gpu": "rtx-4090",
    "baseline_gpu_hours_per_month": "300",
    "months": "24",
    "peak_name_1": "NeurIPS deadline",
    "peak_month_1": "5",
    "peak_gpu_hours_1": "1500",
}


def _answer(page: str) -> str:
    found = re.findall(r'class="answer"[^>]*>([^<]*)<', page)
    return found[0] if found else ""


def _errors(page: str) -> list[str]:
    return re.findall(r'class="error"[^>]*>([^<]*)<', page)


def test_the_page_plans_as_the_api_does(client):
    """300 RTX 4090-hours a month for 24 months, 1,500 in May: the page's totals are the
    API's plan, all-cloud and all-desktop totals for the same request."""
    page = client.get("/plan", params=PLAN)
    assert page.status_code == 200, _errors(page.text)
    api = client.post(
        "/v1/plan",
        json={
            "gpu": "rtx-4090",
            "baseline_gpu_hours_per_month": 300,
            "months": 24,
            "peaks": [{"name": "NeurIPS deadline", "month": 5, "gpu_hours": 1500}],
        },
    ).json()
    totals = {s["strategy"]: s["total_usd"] for s in api["strategies"]}
    answer = _answer(page.text)
    assert f"${totals['plan']:,.0f} over 24 months" in answer
    assert f"vs ${totals['all_cloud']:,.0f} all-cloud" in answer
    assert totals["plan"] <= min(totals["all_cloud"], totals["all_desktop"])  # the optimum
    assert (
        "<svg" in page.text
        and "POST /v1/plan" in page.text
        and scripts_are_only_vendored(page.text)
    )


def test_a_peak_row_is_added_without_javascript(client):
    empty = client.get("/plan")
    assert 'name="peak_month_1"' in empty.text and 'name="peak_month_2"' not in empty.text
    filled = client.get("/plan", params=PLAN)  # one empty row past the filled one
    assert 'name="peak_month_2"' in filled.text and 'name="peak_month_3"' not in filled.text
    more = client.get("/plan", params={**PLAN, "peak_rows": "4"})  # the button's request
    assert 'name="peak_month_4"' in more.text
    assert 'name="peak_rows" value="5"' in more.text


def test_a_problem_is_shown_beside_its_peak_row(client):
    r = client.get(
        "/plan",
        params={**PLAN, "peak_month_3": "13", "peak_gpu_hours_3": "100"},  # row 2 left empty
    )
    assert r.status_code == 422
    assert re.search(r'id="e-peak_month_3">[^<]+<', r.text)
    assert 'value="13"' in r.text  # what was typed is kept


def test_the_front_page_links_the_plan_calculator(client):
    assert 'href="/plan"' in client.get("/").text
