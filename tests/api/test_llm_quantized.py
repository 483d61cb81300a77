"""Weight-only quantized formats (issue 44 part 3): the GGUF formats' bits per weight and the
bandwidth their decode kernels reach (app/costing/llm_mbu.py), checked against published
figures the fit or the table did not use."""

from __future__ import annotations

import pytest

from app.costing import llm_mbu
from app.costing.llm import Precision
from tests.curated import rows

# llama.cpp's quantize table at its first model (tools/quantize/quantize.cpp before the
# Llama 3 update, "3.80G, +0.0532 ppl @ LLaMA-v1-7B"): GGUF sizes of the 6.74B-parameter
# LLaMA 7B, GiB. gpucost's bits per weight come from the Llama-3-8B column instead.
LLAMA_V1_7B_GIB = {"q4_k_m": 3.80, "q5_k_m": 4.45}


@pytest.mark.parametrize("fmt", sorted(LLAMA_V1_7B_GIB))
def test_gguf_bits_per_weight_hold_on_another_model(fmt) -> None:
    bits = LLAMA_V1_7B_GIB[fmt] * 2**30 * 8 / llm_mbu.LLAMA_7B_PARAMS
    assert Precision(fmt).weight_bytes * 8 == pytest.approx(bits, rel=0.03)


@pytest.mark.parametrize("held_out", range(len(llm_mbu.DECODE_POINTS)))
def test_each_decode_point_is_predicted_without_it_within_a_quarter(held_out) -> None:
    point = llm_mbu.DECODE_POINTS[held_out]
    line = llm_mbu.fit([p for i, p in enumerate(llm_mbu.DECODE_POINTS) if i != held_out])
    predicted = line(point.bits_per_weight) * point.bandwidth_gb_per_s * 1e9
    tokens_per_s = predicted / (point.size_gib * 2**30)
    assert tokens_per_s == pytest.approx(point.tokens_per_s, rel=0.25), point.model


def test_the_points_bandwidths_are_the_catalogs(view) -> None:
    for p in llm_mbu.DECODE_POINTS:
        assert view.gpu(p.gpu).memory_bandwidth_gb_per_s == pytest.approx(
            p.bandwidth_gb_per_s, abs=0.5
        ), p.gpu


def test_fewer_bits_read_at_a_lower_share() -> None:
    line = llm_mbu.QUANTIZED
    assert line(4.127) < line(Precision.Q4_K_M.weight_bytes * 8) < line(8.5) < 0.8


def _decode(client, precision: str, gpu: str = "rtx-3090") -> dict:
    resp = client.post(
        "/v1/llm/estimate",
        json={"model": "llama-2-7b", "task": "inference", "precision": precision,
              "tokens": 128, "prompt_tokens": 0, "output_tokens": 128, "gpus": [gpu]},
    )  # fmt: skip
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_4_bit_decode_on_a_3090_is_within_a_quarter_of_llama_cpps(client) -> None:
    """llama.cpp PR #4766: llama 7B Q4_0 at 121.82 tokens/s on an RTX 3090 (before: int4 at
    MBU 0.80 answered ~1.7x that)."""
    body = _decode(client, "int4")
    [row] = body["estimates"]
    assert row["tokens_per_s"] == pytest.approx(121.82, rel=0.25)
    assert any(a["name"] == "mbu" and "log2" in a["source"] for a in body["assumptions"])


def test_a_gguf_format_is_served_not_trained(client) -> None:
    row = _decode(client, "q4_k_m")["estimates"][0]
    bits = Precision.Q4_K_M.weight_bytes * 8
    assert row["memory_breakdown"]["weights_gb"] == pytest.approx(7e9 * bits / 8 / 1e9)
    resp = client.post(
        "/v1/llm/estimate",
        json={"model": "llama-2-7b", "task": "lora", "precision": "q4_k_m", "tokens": 1e6},
    )
    assert resp.status_code == 422


def test_chat_reads_gguf_formats(client) -> None:
    body = client.get(
        "/v1/query", params={"q": "tokens per second for llama 3 8b q4_k_m on a 3090"}
    ).json()
    assert body["answered"] and body["request"]["precision"] == "q4_k_m", body
    assert "q4_k_m" not in body["interpretation"]["ignored"]


@pytest.mark.parametrize("held_out", range(len(llm_mbu.PREFILL_POINTS)))
def test_each_prefill_point_is_predicted_without_it_within_a_quarter(held_out) -> None:
    point = llm_mbu.PREFILL_POINTS[held_out]
    share = llm_mbu.mean_share([p for i, p in enumerate(llm_mbu.PREFILL_POINTS) if i != held_out])
    tokens_per_s = share * point.int8_tops * 1e12 / (2 * point.params)
    assert tokens_per_s == pytest.approx(point.tokens_per_s, rel=0.25), point.model


def test_the_prefill_points_int8_rates_are_the_catalogs(view) -> None:
    for p in llm_mbu.PREFILL_POINTS:
        assert view.gpu(p.gpu).int8_tensor_tops == pytest.approx(p.int8_tops, abs=0.5), p.gpu


def test_a_gguf_prompt_runs_on_the_int8_tensor_cores(client) -> None:
    """Llama 3.1 8B in q4_k_m on an RTX 4090: 512 prompt tokens at the int8 rate and MMQ's
    share (before: the 16-bit FP32-accumulate rate at MFU 0.40, 3,558 tokens/s, 2.9x under
    llama.cpp's 10,359 for Q4_0 in PR #7676)."""
    body = client.post(
        "/v1/llm/estimate",
        json={"model": "llama-3.1-8b", "task": "inference", "precision": "q4_k_m",
              "tokens": 1, "prompt_tokens": 512, "output_tokens": 1, "gpus": ["rtx-4090"]},
    ).json()  # fmt: skip
    [row] = body["estimates"]
    int8 = float(rows("gpu_tensor_specs")["rtx-4090"]["int8_tensor_tops_dense"])
    assert row["peak_tflops"] == int8 and row["mfu"] == pytest.approx(llm_mbu.MMQ_PREFILL_SHARE)
    prefill_s = 2 * 8e9 * 512 / (int8 * 1e12 * llm_mbu.MMQ_PREFILL_SHARE)
    assert row["runtime_s"] > prefill_s
    assert 512 / prefill_s == pytest.approx(10358.75, rel=0.25)
    assert any(a["name"] == "mfu" and "MMQ" in a["source"] for a in body["assumptions"])


@pytest.mark.parametrize("fmt", ["awq", "gptq"])
def test_awq_and_gptq_weigh_their_packed_tensors(fmt) -> None:
    """An AutoAWQ / AutoGPTQ linear layer (group size 128) stores `qweight` (int32, eight
    4-bit weights each), `qzeros` (int32, eight 4-bit zero points per group row) and `scales`
    (fp16, one per group and output): bits per weight of Llama 2 7B's 4096 x 11008 MLP."""
    d_in, d_out, group = 4096, 11008, 128
    qweight = d_in // 8 * d_out * 32
    qzeros = d_in // group * d_out // 8 * 32
    scales = d_in // group * d_out * 16
    bits = (qweight + qzeros + scales) / (d_in * d_out)
    assert Precision(fmt).weight_bytes * 8 == pytest.approx(bits, rel=1e-9)


def test_awq_serves_in_vllm_and_llama_cpp_names_its_own_formats(client) -> None:
    body = {"model": "llama-3.1-8b", "task": "inference", "tokens": 1e6, "gpus": ["l4"]}
    served = client.post("/v1/llm/estimate", json=body | {"precision": "awq"})
    assert served.status_code == 200 and served.json()["model"]["engine"] == "vllm"
    refused = client.post(
        "/v1/llm/estimate", json=body | {"precision": "gptq", "engine": "llama.cpp"}
    )
    assert refused.status_code == 422 and "q4_k_m" in refused.json()["detail"]


def test_chat_reads_awq(client) -> None:
    q = "how fast is llama 3.1 8b awq on an l4"
    assert "(awq, vllm)" in client.get("/v1/query", params={"q": q}).json()["headline"]
