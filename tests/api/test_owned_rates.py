"""``POST /v1/owned-rates`` and its SkyPilot and OpenCost formats, with seed 001's break-even
figures (Tim Dettmers, 2020-09-07): a $2,200 desktop with a 350 W RTX 3090 and a 100 W CPU,
$0.12/kWh, busy 15 % of the time; kept the IRS's 5-year recovery period for computers
(Publication 946, class 00.12) unless resold."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from app.catalog.sources.skypilot_names import kubernetes_accelerator_name
from app.cli import app as cli
from tests import ecb
from tests.seed_values import SEED_001

IRS_YEARS = 5
HOURS = 365 * 24
U = SEED_001["utilization"]
KW = (SEED_001["gpu_w"] + SEED_001["cpu_w"]) / 1000
SEED_RATE = SEED_001["desktop_usd"] / (IRS_YEARS * HOURS * U) + KW * SEED_001["usd_per_kwh"]
SEED_MACHINE = {"gpu": "rtx-3090", "total_price_usd": SEED_001["desktop_usd"]}

# SkyPilot's own schema of `kubernetes.pricing` (sky/utils/schemas.py, `_PRICING_SCHEMA`,
# skypilot-org/skypilot commit 00052dfe, read 2026-11-24, Apache-2.0), under the two keys
# that lead to it in ~/.sky/config.yaml.
SKYPILOT_PRICING = {
    "type": "object",
    "required": [],
    "additionalProperties": False,
    "properties": {
        "cpu": {"type": "number", "minimum": 0},
        "memory": {"type": "number", "minimum": 0},
        "accelerators": {
            "type": "object",
            "required": [],
            "additionalProperties": {"type": "number", "minimum": 0},
        },
    },
}
SKYPILOT_CONFIG = {
    "type": "object",
    "properties": {"kubernetes": {"type": "object", "properties": {"pricing": SKYPILOT_PRICING}}},
}


def body(*machines, **top):
    return {
        "machines": list(machines) or [SEED_MACHINE],
        "utilization": U,
        "electricity_price_usd_per_kwh": SEED_001["usd_per_kwh"],
        **top,
    }


def post(client, payload, fmt=None, status=200):
    url = "/v1/owned-rates" + (f"?format={fmt}" if fmt else "")
    r = client.post(url, json=payload)
    assert r.status_code == status, r.text
    return r


class TestJson:
    def test_seed_desktop_rate(self, client):
        res = post(client, body()).json()
        (rate,) = res["rates"]
        assert rate["gpu_id"] == "rtx-3090"
        assert rate["accelerator_name"] == "RTX3090"
        assert rate["cost_usd_per_gpu_hour"] == pytest.approx(SEED_RATE, rel=1e-7)
        assert rate["electricity_usd_per_gpu_hour"] == pytest.approx(0.054)
        assert rate["gpu_hours_per_year"] == pytest.approx(HOURS * U)
        assert any(a["name"] == "owned_rate" for a in res["assumptions"])
        assert any("IRS" in a["source"] for a in res["assumptions"])

    def test_machines_pool_by_gpu_hours(self, client):
        busy = {**SEED_MACHINE, "utilization": 0.6, "overhead_usd_per_year": 300}
        quiet = {**SEED_MACHINE, "count": 3}
        res = post(client, body(busy, quiet)).json()
        m_busy, m_quiet = res["machines"]
        busy_rate = 2200 / (5 * HOURS * 0.6) + KW * 0.12 + 300 / (HOURS * 0.6)
        assert m_busy["cost_usd_per_gpu_hour"] == pytest.approx(busy_rate, rel=1e-7)
        assert m_quiet["cost_usd_per_gpu_hour"] == pytest.approx(SEED_RATE, rel=1e-7)
        (pooled,) = res["rates"]
        hours = HOURS * 0.6 + 3 * HOURS * U
        expected = (busy_rate * HOURS * 0.6 + SEED_RATE * 3 * HOURS * U) / hours
        assert pooled["cost_usd_per_gpu_hour"] == pytest.approx(expected, rel=1e-7)
        assert pooled["gpus"] == 4

    def test_resale_lowers_the_rate(self, client):
        sold = {**SEED_MACHINE, "resell_after_years": 2, "resale_value_usd": 1000}
        (m,) = post(client, body(sold)).json()["machines"]
        assert m["holding_years"] == 2
        assert m["capex_usd_per_gpu_hour"] == pytest.approx(1200 / (2 * HOURS * U), rel=1e-7)

    def test_in_euros(self, client):
        eur_usd, _ = ecb.latest_half_year("EUR")
        res = post(client, body(currency="EUR")).json()
        (rate,) = res["rates"]
        assert rate["cost_per_gpu_hour_in_currency"] == pytest.approx(SEED_RATE / eur_usd, rel=1e-5)

    @pytest.mark.parametrize(
        "bad",
        [
            {"machines": []},
            {"machines": [{**SEED_MACHINE, "count": 0}]},
            {"machines": [{**SEED_MACHINE, "overhead_usd_per_year": -1}]},
            {"machines": [{**SEED_MACHINE, "overhead_usd_per_year": 1, "overhead_per_year": 1}]},
            # Issue 48: the smallest subnormal float gave "H100: inf" (below floors.SHARE).
            {"machines": [{**SEED_MACHINE, "utilization": 5e-324}]},
            {"machines": [{**SEED_MACHINE, "utilization": 0.5e-4}]},
        ],
    )
    def test_bad_input_is_a_problem(self, client, bad):
        r = post(client, body() | bad, status=422)
        assert r.headers["content-type"].startswith("application/problem+json")

    def test_unknown_gpu_is_404(self, client):
        r = post(client, body({"gpu": "rtx-9999", "total_price_usd": 1}), status=404)
        assert r.headers["content-type"].startswith("application/problem+json")

    def test_unknown_format_is_refused(self, client):
        post(client, body(), fmt="csv", status=422)


class TestSkyPilot:
    def test_yaml_block(self, client):
        h100 = {"gpu": "h100-pcie", "gpu_count": 8, "total_price_usd": 250000}
        r = post(client, body(SEED_MACHINE, h100), fmt="skypilot")
        assert r.headers["content-type"].startswith("application/yaml")
        doc = yaml.safe_load(r.text)
        # SkyPilot's kubernetes.pricing: accelerators -> $/accelerator/hr, valid by its schema
        jsonschema.validate(doc, SKYPILOT_CONFIG)
        assert set(doc) == {"kubernetes"}
        assert set(doc["kubernetes"]) == {"pricing"}
        acc = doc["kubernetes"]["pricing"]["accelerators"]
        assert set(acc) == {"RTX3090", "H100"}
        assert acc["RTX3090"] == pytest.approx(SEED_RATE, abs=5e-5)
        h100_rate = 250000 / (5 * HOURS * U * 8) + (8 * 350 + 100) / 1000 * 0.12 / 8
        assert acc["H100"] == pytest.approx(h100_rate, abs=5e-5)
        assert all(isinstance(v, float) for v in acc.values())

    def test_name_override(self, client):
        r = post(client, body({**SEED_MACHINE, "accelerator_name": "rtx-3090-lab"}), "skypilot")
        assert set(yaml.safe_load(r.text)["kubernetes"]["pricing"]["accelerators"]) == {
            "rtx-3090-lab"
        }


class TestOpenCost:
    def test_default_json(self, client):
        r = post(client, body(), fmt="opencost")
        doc = json.loads(r.text)
        # OpenCost's custom pricing: string fields, GPU per GPU-hour (configs/default.json)
        assert doc["provider"] == "custom"
        assert all(isinstance(v, str) for v in doc.values())
        assert float(doc["GPU"]) == pytest.approx(SEED_RATE, abs=5e-7)

    def test_the_answer_is_the_schema_the_openapi_document_declares(self, client):
        """Issue 48: the `opencost` answer was not in the OpenAPI document (a generated
        client failed to parse it). Its 200 `application/json` now names both shapes, and
        this answer is valid against the one for OpenCost (and not the JSON rates')."""
        from jsonschema import Draft202012Validator

        spec = client.get("/openapi.json").json()
        content = spec["paths"]["/v1/owned-rates"]["post"]["responses"]["200"]["content"]
        refs = [s["$ref"].rsplit("/", 1)[1] for s in content["application/json"]["schema"]["anyOf"]]
        assert refs == ["OwnedRatesResult", "OpenCostPricing"]
        # the skypilot answer is a YAML document: valid, once read, against its schema
        import yaml

        sky = post(client, body(), fmt="skypilot")
        assert sky.headers["content-type"].startswith("application/yaml")
        yaml_schema = content["application/yaml"]["schema"]
        assert list(Draft202012Validator(yaml_schema).iter_errors(yaml.safe_load(sky.text))) == []
        r = post(client, body(), fmt="opencost")
        assert r.headers["content-type"].startswith("application/json")
        schema = {**spec["components"]["schemas"]["OpenCostPricing"], "additionalProperties": False}
        assert list(Draft202012Validator(schema).iter_errors(r.json())) == []


@pytest.mark.parametrize(
    ("name", "skypilot"),
    [
        # SkyPilot's GFD rule on NVIDIA's product names (sky/utils/gpu_names.py)
        ("H100 PCIe 80GB", "H100"),
        ("A100 SXM4 80GB", "A100-80GB"),
        ("A100 PCIe 40GB", "A100"),
        ("L40S", "L40S"),
        ("L4", "L4"),
        ("RTX A6000", "A6000"),
        ("GeForce RTX 4090", "RTX4090"),
        ("GeForce RTX 3060 12GB", "RTX3060"),
        ("Tesla T4", "T4"),
    ],
)
def test_skypilot_names(name, skypilot):
    assert kubernetes_accelerator_name(name) == skypilot


def test_cli_writes_the_skypilot_block(engine, tmp_path):
    out = tmp_path / "sky.yaml"
    args = ["owned-rates", "-m", json.dumps(SEED_MACHINE), "--utilization", str(U)]
    args += ["--electricity", "0.12", "--format", "skypilot", "-o", str(out)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    acc = yaml.safe_load(out.read_text())["kubernetes"]["pricing"]["accelerators"]
    assert acc == {"RTX3090": pytest.approx(SEED_RATE, abs=5e-5)}
    r = CliRunner().invoke(cli, ["owned-rates", "-m", '{"gpu": "rtx-9999"}'])
    assert r.exit_code == 2


def test_skypilot_slurm_pricing_prices_each_partition_at_its_owned_rate(client):
    """SkyPilot's Slurm pricing file (skypilot-catalog catalogs/v8/slurm/README.md, commit
    81d02c61): Region = cluster, Zone = partition, the all-in rate per accelerator, vCPUs and
    memory 0, and the shipped wildcard row of zeros last. Seed 001's desktop at $0.12/kWh and
    15 %: $0.3889 per GPU-hour."""
    import csv
    import io

    body = {
        "machines": [
            {"cluster": "hpc", "partition": "rtx", "machine": SEED_MACHINE},
            {"partition": "big", "machine": {**SEED_MACHINE, "utilization": 0.6}},
        ],
        "utilization": U,
        "electricity_price_usd_per_kwh": SEED_001["usd_per_kwh"],
    }
    r = client.post("/v1/owned-rates/skypilot-slurm", json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert list(rows[0]) == [
        "Region", "Zone", "PricePerVCPU", "PricePerMemoryGB", "AcceleratorName", "PricePerAccelerator",
    ]  # fmt: skip
    rtx, big, wildcard = rows
    assert (rtx["Region"], rtx["Zone"]) == ("hpc", "rtx")
    assert float(rtx["PricePerAccelerator"]) == pytest.approx(SEED_RATE, abs=5e-5)
    busy = SEED_001["desktop_usd"] / (IRS_YEARS * HOURS * 0.6) + KW * SEED_001["usd_per_kwh"]
    assert (big["Region"], big["Zone"]) == ("", "big")
    assert float(big["PricePerAccelerator"]) == pytest.approx(busy, abs=5e-5)
    assert rtx["AcceleratorName"] == kubernetes_accelerator_name("NVIDIA GeForce RTX 3090")
    assert float(rtx["PricePerVCPU"]) == float(rtx["PricePerMemoryGB"]) == 0
    assert wildcard == dict.fromkeys(rows[0], "") | {
        "PricePerVCPU": "0.0", "PricePerMemoryGB": "0.0", "PricePerAccelerator": "0.0",
    }  # fmt: skip


def test_skypilot_slurm_pricing_needs_machines_from_the_request_or_the_server(client):
    r = client.post("/v1/owned-rates/skypilot-slurm", json={})
    assert r.status_code == 422
    assert "GPUCOST_MACHINES_FILE" in r.json()["detail"]


def test_metrics_carry_the_owned_rate_of_each_partition_of_the_machines_file(
    client, tmp_path, monkeypatch
):
    """`gpucost_owned_rate_usd_per_gpu_hour{gpu,cluster,partition,site}`: seed 001's desktop
    at 15 % kept in GPUCOST_MACHINES_FILE, at the rate `POST /v1/owned-rates` gives it."""
    import json

    from prometheus_client.parser import text_string_to_metric_families

    from app.routers import health
    from app.settings import get_settings

    machine = {**SEED_MACHINE, "utilization": U}
    path = tmp_path / "machines.json"
    path.write_text(
        json.dumps(
            {"machines": [{"cluster": "hpc", "partition": "rtx", "site": "b1", "machine": machine}]}
        )
    )
    monkeypatch.setenv("GPUCOST_MACHINES_FILE", str(path))
    monkeypatch.setattr(health, "_owned_rates_at", 0.0)
    get_settings.cache_clear()
    try:
        text = client.get("/metrics").text
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    samples = [
        s
        for family in text_string_to_metric_families(text)
        if family.name == "gpucost_owned_rate_usd_per_gpu_hour"
        for s in family.samples
    ]
    assert len(samples) == 1
    assert samples[0].labels == {
        "gpu": "rtx-3090",
        "cluster": "hpc",
        "partition": "rtx",
        "site": "b1",
    }
    rate = client.post("/v1/owned-rates", json={"machines": [machine]}).json()
    assert samples[0].value == pytest.approx(rate["machines"][0]["cost_usd_per_gpu_hour"])
