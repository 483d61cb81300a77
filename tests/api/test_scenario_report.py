"""``GET /v1/scenarios/{id}/report``: a saved scenario as a printable page. The seed's
break-even and its what-ifs are worked out from seed 001's figures (seed_values.SEED_001)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.store import keys
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures: scenarios are writes)
from tests.seed_values import SEED_001 as S

SEED = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": S["desktop_usd"]},
    "cloud": {"price_usd_per_hour": S["cloud_usd_per_hour"], "gpu": "v100-16gb"},
    "utilization": S["utilization"],
    "electricity_price_usd_per_kwh": S["usd_per_kwh"],
}


@pytest.fixture(scope="module")
def lab(engine) -> dict[str, str]:
    with Session(engine) as s:
        return {"X-API-Key": keys.create(s, "report lab", ["scenarios"])[1]}


def _days(u: float, usd_per_kwh: float, desktop_usd: float) -> float:
    """Seed 001's formula: price / (cloud per day - desktop electricity per day)."""
    h = u * 24
    watts = S["gpu_w"] + S["cpu_w"]
    return desktop_usd / (S["cloud_usd_per_hour"] * h - watts / 1000 * h * usd_per_kwh)


def _rows(page: str) -> dict[str, list[str]]:
    """The sensitivity table's rows: label -> cells (text between tags)."""
    import re

    table = page[page.index("<h2>Sensitivity</h2>") :]
    table = table[: table.index("</table>")]
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)[1:]:
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
        rows[cells[0]] = cells[1:]
    return rows


def test_break_even_scenario_report(client, lab):
    saved = client.post("/v1/scenarios", json={"name": "Seed 001", "break_even": SEED}, headers=lab)
    sid = saved.json()["id"]
    r = client.get(f"/v1/scenarios/{sid}/report")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r.text
    page = r.text
    assert "Seed 001" in page and "<svg" in page and "<script" not in page
    assert (
        f"pays back after {_days(S['utilization'], S['usd_per_kwh'], S['desktop_usd']):,.0f} days"
        in page
    )
    rows = _rows(page)
    # what-ifs: the seed's formula with one input moved
    expected = {
        "as saved": _days(0.15, 0.12, 2200),
        "utilization x 0.5 (8%)": _days(0.075, 0.12, 2200),
        "utilization x 2 (30%)": _days(0.30, 0.12, 2200),
        "electricity price x 1.5 ($0.18/kWh)": _days(0.15, 0.18, 2200),
        "desktop price x 0.75": _days(0.15, 0.12, 1650),
    }
    for label, days in expected.items():
        assert float(rows[label][0].replace(",", "")) == pytest.approx(days, abs=0.5), label
    for a in client.get(f"/v1/scenarios/{sid}/result").json()["break_even"]["assumptions"]:
        assert a["name"] in page


def test_run_cost_scenario_report(client, lab):
    body = {
        "workload": {"benchmark": "stylegan_xl"},
        "options": [{"gpu": "rtx-a6000", "price_usd_per_hour": 1.89}],
    }
    saved = client.post("/v1/scenarios", json={"name": "StyleGAN", "run_cost": body}, headers=lab)
    sid = saved.json()["id"]
    res = client.get(f"/v1/scenarios/{sid}/result").json()["run_cost"]
    page = client.get(f"/v1/scenarios/{sid}/report").text
    cost = res["options"][0]["cost_usd"]
    assert f"${cost:,.2f}" in page and "<svg" in page


def test_unknown_scenario_report_is_404(client):
    r = client.get("/v1/scenarios/" + "0" * 32 + "/report")
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")
