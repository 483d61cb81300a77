"""Energy and carbon of an LLM job (``POST /v1/llm/estimate``, issue 44 item 7), against a
hand computation from the catalog's own figures: the GPU's TDP (the catalog), its server's
published maximum power (server_power.csv: NVIDIA's DGX datasheets), the unknown-datacenter
PUE and the region's grid intensity (the catalog view), the barebone's base power and PSU
efficiency (barebones.csv)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from app.catalog.sources.reference import PUE_UNKNOWN

CURATED = Path(__file__).resolve().parents[2] / "app/data/curated"


def _row(name: str, key: str, value: str) -> dict[str, str]:
    with (CURATED / name).open(encoding="utf-8") as f:
        return next(r for r in csv.DictReader(f) if r[key] == value)


def _estimate(client, **body):
    resp = client.post("/v1/llm/estimate", json=body)
    assert resp.status_code == 200, resp.text
    return resp.json()


class TestRented:
    def test_an_h100_lora_job_draws_tdp_plus_its_dgx_share_times_the_pue(self, client, view):
        body = _estimate(client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["h100-sxm"])
        row = body["estimates"][0]
        hours = row["runtime_s"] / 3600
        tdp = view.resolve_gpu("h100-sxm").tdp_w  # the catalog's TDP: 700 W
        assert tdp == 700
        dgx = _row("server_power.csv", "system", "dgx-h100")  # 10.2 kW max, 8 x 700 W GPUs
        share = (float(dgx["system_max_power_w"]) - 8 * 700) / (8 * 700)  # 0.821 W per W
        pue = view.reference_value(PUE_UNKNOWN).value
        ci = view.region("world").carbon_intensity_g_per_kwh
        energy = (tdp + share * tdp) * hours / 1000 * pue
        assert row["cloud"]["energy_kwh"] == pytest.approx(energy, rel=1e-6)
        assert row["cloud"]["co2e_kg"] == pytest.approx(energy * ci / 1000, rel=1e-6)
        assert row["owned"] is None  # no desktop of H100 SXMs: the row's figures are rented
        assert row["energy_kwh"] == row["cloud"]["energy_kwh"]
        assert row["co2e_kg"] == row["cloud"]["co2e_kg"]
        names = {a["name"] for a in body["assumptions"]}
        assert {"gpu_power_w", "pue", "carbon_intensity_g_per_kwh", "rented host power"} <= names

    def test_the_request_regions_grid_is_used(self, client, view):
        de = _estimate(
            client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["h100-sxm"], region="de"
        )["estimates"][0]
        world = _estimate(client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["h100-sxm"])[
            "estimates"
        ][0]
        ratio = (
            view.region("de").carbon_intensity_g_per_kwh
            / view.region("world").carbon_intensity_g_per_kwh
        )
        pue = view.region("de").pue or view.reference_value(PUE_UNKNOWN).value
        pue_ratio = pue / view.reference_value(PUE_UNKNOWN).value
        assert de["cloud"]["co2e_kg"] / world["cloud"]["co2e_kg"] == pytest.approx(
            ratio * pue_ratio, rel=1e-6
        )


class TestOwned:
    def test_a_4090_desktop_draws_its_busy_wall_power_without_pue(self, client, view):
        row = _estimate(client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["rtx-4090"])[
            "estimates"
        ][0]
        owned = row["owned"]
        barebone = _row("barebones.csv", "id", owned["barebone_id"])
        tdp = view.resolve_gpu("rtx-4090").tdp_w  # the catalog's TDP: 450 W
        assert tdp == 450
        psu = float(barebone["psu_efficiency"] or 1.0)
        wall_w = (tdp + float(barebone["base_power_w"])) / psu
        energy = wall_w * row["runtime_s"] / 3600 / 1000
        ci = view.region("world").carbon_intensity_g_per_kwh
        assert owned["energy_kwh"] == pytest.approx(energy, rel=1e-6)
        assert owned["co2e_kg"] == pytest.approx(energy * ci / 1000, rel=1e-6)
        # Electricity is the same energy at the default US price (seed 001's USD 0.12/kWh).
        assert owned["electricity_usd"] == pytest.approx(energy * 0.12, rel=1e-6)
        cheaper = "owned" if owned["cost_usd"] <= row["cloud"]["cost_usd"] else "cloud"
        assert row["energy_kwh"] == row[cheaper]["energy_kwh"]


class TestDecodePower:
    """Decoding is bandwidth-bound and draws well under TDP: Ma, Afzal, Eitzinger and Wellein
    2026 ('The Illusion of Power Capping in LLM Decode', arXiv 2605.11999) measure 137-300 W
    on a 700 W H200 while decoding GQA, MLA, Gated DeltaNet and Mamba2 models."""

    def _h200_gpu_watts(self, client, view, **body) -> float:
        """The GPU's mean power over the run, W: the row's energy over the PUE and hours,
        less the host's share (the Hopper DGX's power less its GPUs, per W of TDP)."""
        answer = _estimate(client, model="llama-3.1-8b", gpus=["h200"], **body)
        row = answer["estimates"][0]
        hours = row["runtime_s"] / 3600
        tdp = view.resolve_gpu("h200").tdp_w
        dgx = _row("server_power.csv", "system", "dgx-h100")  # the Hopper DGX: H200 too
        host = (float(dgx["system_max_power_w"]) - 8 * tdp) / (8 * tdp) * tdp
        pue = view.reference_value(PUE_UNKNOWN).value
        return row["cloud"]["energy_kwh"] * 1000 / pue / hours - host

    def test_batch_1_decoding_draws_within_the_measured_range(self, client, view):
        watts = self._h200_gpu_watts(
            client, view, task="inference", tokens=1e6, prompt_tokens=0, output_tokens=1024
        )
        assert 137 <= watts <= 300

    def test_a_prompt_draws_tdp_so_a_long_one_raises_the_mean(self, client, view):
        short = self._h200_gpu_watts(client, view, task="inference", tokens=1e6, prompt_tokens=0)
        long = self._h200_gpu_watts(client, view, task="inference", tokens=1e6,
                                    prompt_tokens=8000, output_tokens=100)  # fmt: skip
        assert short < long < view.resolve_gpu("h200").tdp_w

    def test_training_still_draws_tdp(self, client, view):
        watts = self._h200_gpu_watts(client, view, task="lora", tokens=2e8)
        assert watts == pytest.approx(view.resolve_gpu("h200").tdp_w, rel=1e-6)

    def test_the_decode_load_is_stated_for_inference_only(self, client):
        serving = _estimate(client, model="llama-3.1-8b", task="inference", tokens=1e6)
        training = _estimate(client, model="llama-3.1-8b", task="lora", tokens=1e6)
        [load] = [a for a in serving["assumptions"] if a["name"] == "decode_gpu_load"]
        assert "arXiv 2605.11999" in load["source"]
        assert not any(a["name"] == "decode_gpu_load" for a in training["assumptions"])
