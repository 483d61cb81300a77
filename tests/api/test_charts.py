"""Charts: every chart renders to a valid PNG and SVG whose title and axis labels state the
inputs and units; the question chart and Slack's link to it; the command line."""

from __future__ import annotations

import io
import urllib.parse
import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from typer.testing import CliRunner

from app.api import deps
from app.cli import app as cli
from app.main import app
from app.routers import slack as slack_router
from app.settings import Settings
from tests import ecb
from tests.api.test_query_api import DAYS
from tests.factories import SLACK_SECRET as SECRET
from tests.factories import break_even, forget_replays
from tests.factories import slack_form as form
from tests.factories import slack_signed as signed

SEED_BREAK_EVEN = break_even(cloud={"gpu": "v100-16gb"})
SWEEP = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"price_usd_per_hour": 2.14},
    "electricity_prices_usd_per_kwh": [0.12, 0.3],
}
COMPARE = {"workload": {"benchmark": "stylegan_xl"}, "runs_per_month": 200, "limit": 8}
PLAN = {
    "gpu": "rtx-4090",
    "baseline_gpu_hours_per_month": 300,
    "months": 36,
    "peaks": [{"month": 5, "gpu_hours": 2000}],
}

# path, body, words the title must state, x label, y label
CHARTS = [
    (
        "/v1/charts/cumulative-cost",
        SEED_BREAK_EVEN,
        ["rtx-3090", "$2,200", "$2.14/h", "15% utilization", "$0.12/kWh"],
        "Days since purchase",
        "Cumulative cost (USD)",
    ),
    (
        "/v1/charts/break-even-sweep",
        SWEEP,
        ["rtx-3090", "$2,200", "$2.14/h"],
        "Utilization (% of the day the GPU is busy)",
        "Break-even (days)",
    ),
    (
        "/v1/charts/compare",
        COMPARE,
        ["stylegan_xl", "200 runs/month", "12 months"],
        "Cost per run, purchase and fees included (USD)",
        "Option (ranked)",
    ),
    (
        "/v1/charts/plan",
        PLAN,
        ["36 months on rtx-4090", "plan $", "all cloud $", "all desktop $"],
        "Month",
        "GPU-hours per month",
    ),
]


def _svg_texts(content: bytes) -> list[str]:
    root = ET.fromstring(content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize(("path", "body", "title_words", "x_label", "y_label"), CHARTS)
def test_chart_png(client, path, body, title_words, x_label, y_label):
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "image/png"
    img = Image.open(io.BytesIO(r.content))
    img.verify()
    img = Image.open(io.BytesIO(r.content))
    assert img.format == "PNG" and img.size[0] == 800 and img.size[1] >= 450
    title = img.text["Title"]
    for word in title_words:
        assert word in title
    # Not blank: a chart has many colours.
    assert len(img.convert("RGB").getcolors(maxcolors=1_000_000)) > 50


@pytest.mark.parametrize(("path", "body", "title_words", "x_label", "y_label"), CHARTS)
def test_chart_svg(client, path, body, title_words, x_label, y_label):
    r = client.post(path, params={"format": "svg"}, json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("image/svg+xml")
    texts = _svg_texts(r.content)
    joined = " ".join(texts).replace("\n", " ")  # a long title is wrapped to fit
    assert x_label in texts and y_label in texts
    for word in title_words:
        assert word in joined


def test_plan_chart_totals_match_the_plan(client):
    res = client.post("/v1/plan", json=PLAN).json()
    r = client.post("/v1/charts/plan", params={"format": "svg"}, json=PLAN)
    joined = "\n".join(_svg_texts(r.content))
    for s in res["strategies"]:
        assert f"${s['total_usd']:,.0f}" in joined
    assert "Cumulative cost (USD)" in joined and res["schedule"][0]["month"] in joined
    # no plan within the limits: a card with the reason, marked as not charted
    none = {**PLAN, "include_cloud": False, "constraints": {"max_machines": 1}}
    r = client.post("/v1/charts/plan", params={"format": "svg"}, json=none)
    assert r.status_code == 200 and r.headers["x-gpucost-charted"] == "false"
    assert "No plan meets the demand" in "\n".join(_svg_texts(r.content))


def test_cumulative_chart_marks_the_seed_break_even(client):
    r = client.post("/v1/charts/cumulative-cost", params={"format": "svg"}, json=SEED_BREAK_EVEN)
    texts = "\n".join(_svg_texts(r.content))
    assert "break-even: 293 days" in texts  # seed 001: 292.96 days
    never = SEED_BREAK_EVEN | {"cloud": {"price_usd_per_hour": 0.01}}
    r = client.post("/v1/charts/cumulative-cost", params={"format": "svg"}, json=never)
    assert "the desktop never pays back" in "\n".join(_svg_texts(r.content))


def test_chart_errors_are_problems(client):
    r = client.post("/v1/charts/compare", json={"runs_per_month": 3})
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    r = client.post("/v1/charts/cumulative-cost", params={"format": "gif"}, json=SEED_BREAK_EVEN)
    assert r.status_code == 422


def test_question_chart(client):
    r = client.get("/v1/charts/query", params={"q": "break-even for 3090 at 15% util"})
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert "rtx-3090" in Image.open(io.BytesIO(r.content)).text["Title"]
    r = client.get(
        "/v1/charts/query", params={"q": "cost per run of stylegan on a4000", "format": "svg"}
    )
    assert r.status_code == 200 and "Cost of one run (USD)" in _svg_texts(r.content)
    # No chart: still an image (Slack shows it), saying why, with examples.
    question = "what is the weather"
    answer = client.get("/v1/query", params={"q": question}).json()
    assert answer["answered"] is False
    r = client.get("/v1/charts/query", params={"q": question, "format": "svg"})
    assert r.status_code == 200 and r.headers["x-gpucost-charted"] == "false"
    assert answer["headline"] in "\n".join(_svg_texts(r.content))
    r = client.get("/v1/charts/query", params={"q": "carbon of a 3090 for a year", "format": "svg"})
    assert r.status_code == 200 and r.headers["x-gpucost-charted"] == "false"
    assert "No chart for a 'carbon' question" in "\n".join(_svg_texts(r.content))
    assert (
        "x-gpucost-charted"
        not in client.get(
            "/v1/charts/query", params={"q": "break-even for 3090 at 15% util"}
        ).headers
    )


def _slack_reply(engine, settings: Settings, text: str) -> dict:
    slack_router._replays = None
    forget_replays(engine)  # the same command is sent twice
    app.dependency_overrides[deps.settings] = lambda: settings
    try:
        with TestClient(app) as c:
            body = form(text)
            return c.post("/slack/commands", content=body, headers=signed(body)).json()
    finally:
        app.dependency_overrides.clear()


def test_slack_links_the_chart_when_a_public_url_is_set(engine, monkeypatch):
    monkeypatch.setattr(slack_router, "_replays", None)  # the same command is sent twice
    question = "break-even for 3090 vs $2.14/h at 15% util"
    plain = _slack_reply(engine, Settings(slack_signing_secret=SECRET), question)
    assert not [b for b in plain["blocks"] if b["type"] == "image"]
    settings = Settings(slack_signing_secret=SECRET, public_base_url="https://gpucost.example.org")
    msg = _slack_reply(engine, settings, question)
    [image] = [b for b in msg["blocks"] if b["type"] == "image"]
    url = urllib.parse.urlsplit(image["image_url"])
    assert (url.scheme, url.netloc, url.path) == (
        "https",
        "gpucost.example.org",
        "/v1/charts/query",
    )
    assert urllib.parse.parse_qs(url.query)["q"] == [question]
    assert image["alt_text"].startswith(f"Break-even: {DAYS:.0f} days")  # today's catalog 3090
    forget_replays(engine)  # written through the engine, not rolled back


def test_cli_compare_and_chart(engine, tmp_path):
    runner = CliRunner()
    out = tmp_path / "rank.svg"
    r = runner.invoke(
        cli,
        [
            "compare",
            "--benchmark",
            "stylegan_xl",
            "--runs-per-month",
            "200",
            "--limit",
            "5",
            "--chart",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "stylegan_xl" in r.output and "total USD" in r.output
    assert "Option (ranked)" in _svg_texts(out.read_bytes())
    png = tmp_path / "be.png"
    r = runner.invoke(
        cli, ["chart", "query", "-q", "break-even for 3090 at 15% util", "-o", str(png)]
    )
    assert r.exit_code == 0, r.output
    assert Image.open(png).format == "PNG"
    req = tmp_path / "sweep.json"
    req.write_text(
        '{"desktop": {"gpu": "rtx-3090", "total_price_usd": 2200}, '
        '"cloud": {"price_usd_per_hour": 2.14}}'
    )
    r = runner.invoke(
        cli, ["chart", "break-even-sweep", "-r", str(req), "-o", str(tmp_path / "s.svg")]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["compare", "--gpu", "3900"])
    assert r.exit_code == 2 and "rtx-3090" in r.output


def test_a_sweep_chart_draws_at_most_ten_prices(client):
    sweep = {**SWEEP, "electricity_prices_usd_per_kwh": [round(0.01 * i, 2) for i in range(1, 101)]}
    r = client.post("/v1/charts/break-even-sweep", params={"format": "svg"}, json=sweep)
    texts = " ".join(_svg_texts(r.content)).replace("\n", " ")  # the title is wrapped
    assert "(10 of 100 prices drawn)" in texts
    assert "$0.01/kWh" in texts and "$1/kWh" in texts  # the first and the last are drawn


def test_log_axis_ticks_are_plain_numbers(client):
    # Break-even days from 1 % to 100 % utilization span more than two decades: a log axis,
    # whose ticks read 100 and 1,000 (not matplotlib's raw "$\\mathdefault{10^{3}}$").
    r = client.post("/v1/charts/break-even-sweep", params={"format": "svg"}, json=SWEEP)
    texts = _svg_texts(r.content)
    assert "1,000" in texts
    assert not any("mathdefault" in t or "^{" in t for t in texts)


def test_charts_in_the_requested_currency(client):
    eur_usd, _ = ecb.latest_half_year("EUR")
    body = {**SEED_BREAK_EVEN, "currency": "EUR"}
    texts = _svg_texts(
        client.post("/v1/charts/cumulative-cost", params={"format": "svg"}, json=body).content
    )
    joined = " ".join(texts).replace("\n", " ")
    assert "Cumulative cost (EUR)" in texts
    assert f"\u20ac{2200 / eur_usd:,.0f}" in joined  # the seed's $2,200 in euros
    assert "$" not in joined
    compare = {**COMPARE, "currency": "EUR"}
    texts = _svg_texts(
        client.post("/v1/charts/compare", params={"format": "svg"}, json=compare).content
    )
    assert "Cost per run, purchase and fees included (EUR)" in texts
    assert not any("$" in t for t in texts)
    assert not any("\u2026" in t for t in texts)  # labels wrap rather than being cut
    plan = {**PLAN, "currency": "EUR"}
    texts = _svg_texts(client.post("/v1/charts/plan", params={"format": "svg"}, json=plan).content)
    assert "Cumulative cost (EUR)" in texts and not any("$" in t for t in texts)
